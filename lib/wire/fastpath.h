/* The RX fast path's classifier: is this frame one of roceprobe's own RoCEv2
 * data frames, in the layout the builder (rp_roce_build) writes? Then its
 * accounting fields come from fixed offsets, with no general parse.
 *
 * The layouts: untagged Ethernet; IPv4 with a 20-byte header (version 4,
 * IHL 5, protocol UDP, not a later fragment) or IPv6 (next header UDP);
 * UDP to 4791 whose length is exactly what the IP header says follows it;
 * a BTH with a request opcode that carries payload (SEND and RDMA WRITE,
 * with their ImmDt, RETH and IETH); the whole frame captured. Anything else
 * (VLAN tags, IPv4 options, ACKs, CNPs, read responses, a UDP length short
 * of the IP one, snaplen cuts, ...) is not taken: the caller hands it to
 * rp_frame_parse, which stays the one parser of every other frame.
 *
 * The promise, held by tests/unit/test_fastpath.c and
 * tests/fuzz/fuzz_fastpath.c on any bytes: where rp_fp_parse takes a frame,
 * rp_frame_parse says RP_KIND_ROCE with the same L3, ECN, opcode, DestQP,
 * PSN, AckReq, payload length, probe and ICRC region (rp_fp_icrc_ok is
 * rp_frame_parse's icrc_ok). Never reads past len.
 *
 * The header structs are the wire layout (packed, network byte order, as
 * DPDK's IPv4 header struct); the accessors below are the only readers. */
#ifndef RP_WIRE_FASTPATH_H
#define RP_WIRE_FASTPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bth.h"
#include "eth.h"
#include "ext.h"
#include "icrc.h"
#include "ipv4.h"
#include "ipv6.h"
#include "probe.h"
#include "udp.h"

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define RP_FP_BE16(v) __builtin_bswap16(v)
#define RP_FP_BE32(v) __builtin_bswap32(v)
#define RP_FP_BE64(v) __builtin_bswap64(v)
#else
#define RP_FP_BE16(v) (v)
#define RP_FP_BE32(v) (v)
#define RP_FP_BE64(v) (v)
#endif

struct rp_fp_eth_hdr {
	uint8_t dst[RP_ETH_ADDR_LEN];
	uint8_t src[RP_ETH_ADDR_LEN];
	uint16_t type;
} __attribute__((packed));

struct rp_fp_ipv4_hdr {
	uint8_t ver_ihl;
	uint8_t tos;        /* DSCP << 2 | ECN */
	uint16_t total_len;
	uint16_t id;
	uint16_t frag;      /* flags(3) | fragment offset(13) */
	uint8_t ttl;
	uint8_t proto;
	uint16_t csum;
	uint32_t src;
	uint32_t dst;
} __attribute__((packed));

struct rp_fp_ipv6_hdr {
	uint32_t vtc_flow;  /* version(4) | traffic class(8) | flow label(20) */
	uint16_t payload_len;
	uint8_t next_header;
	uint8_t hop_limit;
	uint8_t src[16];
	uint8_t dst[16];
} __attribute__((packed));

struct rp_fp_udp_hdr {
	uint16_t sport;
	uint16_t dport;
	uint16_t len;
	uint16_t csum;
} __attribute__((packed));

struct rp_fp_bth_hdr {
	uint8_t opcode;
	uint8_t flags;      /* SE | M | pad(2) | TVer(4) */
	uint16_t pkey;
	uint32_t dqpn;      /* FECN | BECN | reserved(6) | DestQP(24) */
	uint32_t psn;       /* AckReq | reserved(7) | PSN(24) */
} __attribute__((packed));

struct rp_fp_probe_hdr {
	uint32_t magic;
	uint32_t flow_id;
	uint64_t seq;
	uint64_t tx_ns;
} __attribute__((packed));

/* The two frame layouts, headers back to back. */
struct rp_fp_v4 {
	struct rp_fp_eth_hdr eth;
	struct rp_fp_ipv4_hdr ip;
	struct rp_fp_udp_hdr udp;
	struct rp_fp_bth_hdr bth;
} __attribute__((packed));

struct rp_fp_v6 {
	struct rp_fp_eth_hdr eth;
	struct rp_fp_ipv6_hdr ip;
	struct rp_fp_udp_hdr udp;
	struct rp_fp_bth_hdr bth;
} __attribute__((packed));

_Static_assert(sizeof(struct rp_fp_v4) == RP_ETH_HLEN + RP_IPV4_HLEN + RP_UDP_HLEN + RP_BTH_LEN, "v4 layout");
_Static_assert(sizeof(struct rp_fp_v6) == RP_ETH_HLEN + RP_IPV6_HLEN + RP_UDP_HLEN + RP_BTH_LEN, "v6 layout");
_Static_assert(sizeof(struct rp_fp_probe_hdr) == RP_PROBE_LEN, "probe layout");

/* What the accountant reads of a data frame. */
struct rp_fp_pkt {
	uint8_t l3;             /* 4 or 6 */
	uint8_t ecn;            /* enum rp_ecn */
	uint8_t opcode;
	bool ack_req;
	uint32_t dqpn;
	uint32_t psn;
	uint32_t icrc_len;      /* from the IP header to the end of the ICRC (rp_icrc_verify's len) */
	uint32_t payload_len;   /* without pad and ICRC */
	bool has_probe;
	struct rp_probe probe;
};

#define RP_FP_L3_OFF RP_ETH_HLEN

/* ---- accessors: one field each, host order ---------------------------------- */

static inline uint16_t rp_fp_eth_type(const struct rp_fp_eth_hdr *e) { return RP_FP_BE16(e->type); }

static inline unsigned rp_fp_ip4_version(const struct rp_fp_ipv4_hdr *ip) { return ip->ver_ihl >> 4; }
static inline unsigned rp_fp_ip4_hlen(const struct rp_fp_ipv4_hdr *ip) { return (ip->ver_ihl & 0xFu) * 4u; }
static inline uint8_t rp_fp_ip4_ecn(const struct rp_fp_ipv4_hdr *ip) { return ip->tos & 3; }
static inline uint16_t rp_fp_ip4_total_len(const struct rp_fp_ipv4_hdr *ip) { return RP_FP_BE16(ip->total_len); }
static inline uint16_t rp_fp_ip4_frag_off(const struct rp_fp_ipv4_hdr *ip) { return RP_FP_BE16(ip->frag) & 0x1FFF; }
static inline uint32_t rp_fp_ip4_src(const struct rp_fp_ipv4_hdr *ip) { return RP_FP_BE32(ip->src); }
static inline uint32_t rp_fp_ip4_dst(const struct rp_fp_ipv4_hdr *ip) { return RP_FP_BE32(ip->dst); }

static inline unsigned rp_fp_ip6_version(const struct rp_fp_ipv6_hdr *ip) { return RP_FP_BE32(ip->vtc_flow) >> 28; }
static inline uint8_t rp_fp_ip6_ecn(const struct rp_fp_ipv6_hdr *ip) { return (RP_FP_BE32(ip->vtc_flow) >> 20) & 3; }
static inline uint16_t rp_fp_ip6_payload_len(const struct rp_fp_ipv6_hdr *ip) { return RP_FP_BE16(ip->payload_len); }

static inline uint16_t rp_fp_udp_dport(const struct rp_fp_udp_hdr *u) { return RP_FP_BE16(u->dport); }
static inline uint16_t rp_fp_udp_len(const struct rp_fp_udp_hdr *u) { return RP_FP_BE16(u->len); }

static inline unsigned rp_fp_bth_pad(const struct rp_fp_bth_hdr *b) { return (b->flags >> 4) & 3; }
static inline uint32_t rp_fp_bth_dqpn(const struct rp_fp_bth_hdr *b) { return RP_FP_BE32(b->dqpn) & RP_QPN_MASK; }
static inline uint32_t rp_fp_bth_psn(const struct rp_fp_bth_hdr *b) { return RP_FP_BE32(b->psn) & RP_PSN_MASK; }
static inline bool rp_fp_bth_ack_req(const struct rp_fp_bth_hdr *b) { return (RP_FP_BE32(b->psn) >> 31) != 0; }

/* The probe at p (RP_PROBE_LEN bytes present), as rp_probe_parse reads it. */
static inline bool rp_fp_probe(const uint8_t *p, struct rp_probe *out)
{
	struct rp_fp_probe_hdr h;
	memcpy(&h, p, sizeof(h));
	if (RP_FP_BE32(h.magic) != RP_PROBE_MAGIC)
		return false;
	out->flow_id = RP_FP_BE32(h.flow_id);
	out->seq = RP_FP_BE64(h.seq);
	out->tx_ns = RP_FP_BE64(h.tx_ns);
	return true;
}

/* The extended headers' length of the request opcodes the fast path takes
 * (bth.c's table for them: ImmDt 4, RETH 16, IETH 4), or -1 for any other. */
static inline int rp_fp_ext_len(uint8_t opcode)
{
	switch (opcode) {
	case RP_OP_RC_SEND_FIRST:
	case RP_OP_RC_SEND_MIDDLE:
	case RP_OP_RC_SEND_LAST:
	case RP_OP_RC_SEND_ONLY:
	case RP_OP_RC_WRITE_MIDDLE:
	case RP_OP_RC_WRITE_LAST:
		return 0;
	case RP_OP_RC_SEND_LAST_IMM:
	case RP_OP_RC_SEND_ONLY_IMM:
	case RP_OP_RC_WRITE_LAST_IMM:
		return RP_IMM_LEN;
	case RP_OP_RC_SEND_LAST_INV:
	case RP_OP_RC_SEND_ONLY_INV:
		return RP_IETH_LEN;
	case RP_OP_RC_WRITE_FIRST:
	case RP_OP_RC_WRITE_ONLY:
		return RP_RETH_LEN;
	case RP_OP_RC_WRITE_ONLY_IMM:
		return RP_RETH_LEN + RP_IMM_LEN;
	default:
		return -1;
	}
}

/* From the UDP header on (its offset l4, udp_room = what the IP header says
 * follows it, within the frame): the transport fields. */
#define RP_FP_INLINE inline __attribute__((always_inline)) /* the per-frame path: no call */

static RP_FP_INLINE bool rp_fp_transport(const uint8_t *b, size_t l4, size_t udp_room, const struct rp_fp_udp_hdr *udp,
				   const struct rp_fp_bth_hdr *bth, struct rp_fp_pkt *out)
{
	if (rp_fp_udp_dport(udp) != RP_ROCEV2_UDP_PORT || rp_fp_udp_len(udp) != udp_room)
		return false;
	int ext = rp_fp_ext_len(bth->opcode);
	size_t hdr = RP_UDP_HLEN + RP_BTH_LEN + (size_t)ext, tail = rp_fp_bth_pad(bth) + RP_ICRC_LEN;
	if (ext < 0 || udp_room < hdr + tail)
		return false;
	out->opcode = bth->opcode;
	out->dqpn = rp_fp_bth_dqpn(bth);
	out->psn = rp_fp_bth_psn(bth);
	out->ack_req = rp_fp_bth_ack_req(bth);
	out->payload_len = (uint32_t)(udp_room - hdr - tail);
	out->has_probe = out->payload_len >= RP_PROBE_LEN && rp_fp_probe(b + l4 + hdr, &out->probe);
	return true;
}

/* Takes the frame (true, *out filled) or leaves it to rp_frame_parse. len is
 * both what the buffer holds and the frame's length on the wire. */
static RP_FP_INLINE bool rp_fp_parse(const uint8_t *b, size_t len, struct rp_fp_pkt *out)
{
	if (len < sizeof(struct rp_fp_v4))
		return false;
	const struct rp_fp_v4 *h4 = (const struct rp_fp_v4 *)b;
	uint16_t type = rp_fp_eth_type(&h4->eth);
	if (type == RP_ETHERTYPE_IPV4) {
		const struct rp_fp_ipv4_hdr *ip = &h4->ip;
		size_t total = rp_fp_ip4_total_len(ip);
		if (ip->ver_ihl != 0x45 || ip->proto != RP_IPPROTO_UDP || rp_fp_ip4_frag_off(ip) != 0 ||
		    total > len - RP_FP_L3_OFF || total < RP_IPV4_HLEN)
			return false;
		out->l3 = 4;
		out->ecn = rp_fp_ip4_ecn(ip);
		out->icrc_len = (uint32_t)total;
		return rp_fp_transport(b, RP_FP_L3_OFF + RP_IPV4_HLEN, total - RP_IPV4_HLEN, &h4->udp, &h4->bth, out);
	}
	if (type != RP_ETHERTYPE_IPV6 || len < sizeof(struct rp_fp_v6))
		return false;
	const struct rp_fp_v6 *h6 = (const struct rp_fp_v6 *)b;
	const struct rp_fp_ipv6_hdr *ip = &h6->ip;
	size_t room = rp_fp_ip6_payload_len(ip);
	if (rp_fp_ip6_version(ip) != 6 || ip->next_header != RP_IPPROTO_UDP ||
	    room > len - RP_FP_L3_OFF - RP_IPV6_HLEN)
		return false;
	out->l3 = 6;
	out->ecn = rp_fp_ip6_ecn(ip);
	out->icrc_len = (uint32_t)(RP_IPV6_HLEN + room);
	return rp_fp_transport(b, RP_FP_L3_OFF + RP_IPV6_HLEN, room, &h6->udp, &h6->bth, out);
}

/* The frame's destination MAC (any frame rp_fp_parse took). */
static inline const uint8_t *rp_fp_eth_dst(const uint8_t *b)
{
	return ((const struct rp_fp_eth_hdr *)b)->dst;
}

/* The full ICRC over the frame rp_fp_parse took, as rp_frame_parse checks it. */
static inline bool rp_fp_icrc_ok(const uint8_t *b, const struct rp_fp_pkt *p)
{
	return rp_icrc_verify(b + RP_FP_L3_OFF, p->icrc_len);
}

#endif
