/* A whole Ethernet frame: classify and parse it, or build a RoCEv2 one. */
#ifndef RP_WIRE_FRAME_H
#define RP_WIRE_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bth.h"
#include "eth.h"
#include "ext.h"
#include "icrc.h"
#include "ipv4.h"
#include "ipv6.h"
#include "pfc.h"
#include "probe.h"
#include "udp.h"

enum rp_frame_kind {
	RP_KIND_ROCE,
	RP_KIND_CNP,
	RP_KIND_PFC,
	RP_KIND_PAUSE,
	RP_KIND_OTHER,
	RP_KIND_MALFORMED,
};

const char *rp_frame_kind_name(enum rp_frame_kind k); /* "roce", "cnp", ... */

struct rp_frame {
	enum rp_frame_kind kind;
	struct rp_eth eth;
	uint8_t l3; /* 0, 4 or 6 */
	struct rp_ipv4 ip4;
	struct rp_ipv6 ip6;
	struct rp_udp udp;
	struct rp_bth bth;
	unsigned ext; /* enum rp_ext bits present */
	struct rp_reth reth;
	struct rp_aeth aeth;
	uint32_t imm;
	uint32_t ieth;
	struct rp_deth deth;
	struct rp_atomic_eth atomic;
	uint64_t atomic_ack;
	size_t l3_off;
	size_t payload_off; /* where the wire has it (past caplen when a snaplen cut the headers) */
	size_t payload_len; /* on the wire, without the pad (from the IP/UDP lengths) */
	size_t payload_cap; /* of those, the bytes in the buffer (less under a snaplen) */
	bool has_probe;
	struct rp_probe probe;
	bool icrc_checked; /* false when the capture cut the frame short */
	bool icrc_ok;
	uint8_t icrc_wire[RP_ICRC_LEN];
	struct rp_macctl macctl;
	char error[96]; /* set for RP_KIND_MALFORMED: "truncated BTH: 8 of 12 bytes" */
};

/* caplen bytes are present of a frame that was wire_len long (a snaplen can
 * make caplen smaller: pcap's caplen and orig_len). Then the headers that fit
 * are parsed (an extended header cut off is not in ext; the BTH must be
 * there), icrc_checked is false, and the lengths still come from the wire:
 * payload_len is what the IP and UDP lengths say (minus headers, pad, ICRC),
 * payload_cap how many of those bytes are in buf. Never reads past caplen.
 * Returns f->kind. */
enum rp_frame_kind rp_frame_parse(const uint8_t *buf, size_t caplen, size_t wire_len, struct rp_frame *f);

/* Everything needed to build one RoCEv2 frame. The builder sets EtherType,
 * IP lengths and checksum, UDP length and destination port, BTH pad, the
 * ICRC, and pads the frame to 60 bytes. Extended headers are written as the
 * opcode requires. */
struct rp_roce_spec {
	struct rp_eth eth;
	uint8_t l3; /* 4 or 6 */
	struct rp_ipv4 ip4;
	struct rp_ipv6 ip6;
	uint16_t udp_sport;
	bool udp_checksum; /* compute it; otherwise 0 */
	struct rp_bth bth;
	struct rp_reth reth;
	struct rp_aeth aeth;
	uint32_t imm;
	uint32_t ieth;
	struct rp_deth deth;
	struct rp_atomic_eth atomic;
	uint64_t atomic_ack;
	const uint8_t *payload; /* NULL: payload_len zero bytes */
	size_t payload_len;
};

/* Offsets of a built frame, for stamping templates. */
struct rp_roce_layout {
	size_t l3_off;
	size_t udp_off;
	size_t bth_off;
	size_t payload_off;
	size_t icrc_off;
	size_t frame_len;
};

/* Returns the frame length, or 0 when cap is too small or the spec is invalid
 * (l3 not 4/6, opcode without table entry). layout may be NULL. */
size_t rp_roce_build(uint8_t *buf, size_t cap, const struct rp_roce_spec *s, struct rp_roce_layout *layout);

/* A quick look, no full parse: is this RoCEv2 data (not ACK, atomic ACK or
 * CNP)? For per-packet decisions such as impairments that act on data only.
 * On classify.h's accessors: a whole BTH must be there. */
bool rp_frame_is_roce_data(const uint8_t *b, size_t len);

/* Rewrites the ECN field of an IPv4 or IPv6 frame in place (what a switch
 * does when it marks CE), keeping the IPv4 header checksum right; the ICRC
 * masks the field and stays valid. Returns 0, or -1 for a frame that is not
 * IP or is too short. */
int rp_frame_set_ecn(uint8_t *frame, size_t len, uint8_t ecn);

/* UDP checksum over the IPv4/IPv6 pseudo header (0 maps to 0xFFFF). */
uint16_t rp_udp_checksum(const uint8_t *l3, size_t l3_len);
/* The Internet checksum of an IPv4/IPv6 packet's layer-4 part (l3 is the IP
 * header, l3_len the whole packet) with the pseudo header for proto; the
 * 16-bit field at csum_off into layer 4 counts as zero. UDP: 6, ICMPv6: 2. */
uint16_t rp_l4_checksum(const uint8_t *l3, size_t l3_len, uint8_t proto, size_t csum_off);

#endif
