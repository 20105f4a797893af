/* Segmentation of one RDMA message into RoCEv2 packets at a path MTU:
 * FIRST / MIDDLE... / LAST, or ONLY, with the opcodes each verb uses. */
#ifndef RP_TRAFFIC_SEGMENT_H
#define RP_TRAFFIC_SEGMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/names.h"

enum rp_pkt_kind { RP_PKT_ONLY, RP_PKT_FIRST, RP_PKT_MIDDLE, RP_PKT_LAST, RP_PKT_KINDS };

/* Layer-1 overhead per frame that pacing counts: FCS 4 + preamble/SFD 8 +
 * inter-frame gap 12 bytes. */
#define RP_L1_OVERHEAD 24

struct rp_seg {
	enum rp_pkt_kind kind;
	uint8_t opcode;   /* enum rp_opcode */
	unsigned ext;     /* enum rp_ext bits the opcode carries */
	uint32_t payload; /* bytes of message data */
	uint8_t pad;      /* 0..3 so that payload + pad is a multiple of 4 */
	bool ack_req;     /* the last packet of a request message */
};

/* Packets in a message of size bytes (at least 1: an empty message is ONLY). */
static inline uint32_t rp_seg_count(uint32_t size, uint32_t mtu)
{
	return size <= mtu ? 1u : (uint32_t)((size + (uint64_t)mtu - 1) / mtu);
}

/* The kind of packet idx (0-based) of a message that has n packets. */
static inline enum rp_pkt_kind rp_seg_kind(uint32_t idx, uint32_t n)
{
	if (n == 1)
		return RP_PKT_ONLY;
	return idx == 0 ? RP_PKT_FIRST : idx + 1 == n ? RP_PKT_LAST : RP_PKT_MIDDLE;
}

/* The opcode verb v uses for a packet kind. */
uint8_t rp_verb_opcode(enum rp_verb v, enum rp_pkt_kind k);
/* Packet idx of a message; returns -1 when idx is past the last packet. */
int rp_segment(enum rp_verb v, uint32_t size, uint32_t mtu, uint32_t idx, struct rp_seg *out);
/* The payload of a packet kind in a message (LAST carries the remainder). */
uint32_t rp_seg_payload(uint32_t size, uint32_t mtu, enum rp_pkt_kind k);
const char *rp_pkt_kind_name(enum rp_pkt_kind k); /* "only", "first", "middle", "last" */

/* The shape of a flow's frames: enough to know each frame's length. */
struct rp_frame_shape {
	uint8_t l3;    /* 4 or 6 */
	bool vlan;
};
/* Ethernet frame length without FCS (padded to 60) that rp_roce_build makes. */
uint32_t rp_seg_frame_len(const struct rp_frame_shape *sh, const struct rp_seg *s);
/* Bits on the wire for pacing: (frame_len + RP_L1_OVERHEAD) * 8. */
static inline uint64_t rp_l1_bits(uint32_t frame_len)
{
	return ((uint64_t)frame_len + RP_L1_OVERHEAD) * 8u;
}

#endif
