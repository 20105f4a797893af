/* A captured frame's kind, and which frames a capture filter keeps: on the
 * fast accessors of wire/classify.h, cheap enough for a capture tap's
 * per-packet path (lib/dp's producers); pure C.
 *
 *   pfc    EtherType 0x8808, opcode 0x0101
 *   pause  EtherType 0x8808, opcode 0x0001
 *   cnp    RoCEv2 (IPv4/IPv6, UDP 4791, complete BTH) opcode 0x81
 *   nak    RoCEv2 opcode 0x11 (RC ACKNOWLEDGE) with AETH syndrome bits 7..5 = 011
 *   roce   any other RoCEv2 frame ("RoCE data": requests, responses, ACKs)
 *   other  anything else (ARP, TCP, non-RoCE UDP, frames too short to tell)
 *   ce     orthogonal flag: any IPv4/IPv6 frame with ECN = 3 (CE)
 *   neigh  orthogonal flag: ARP, or ICMPv6 NS/NA
 * The kinds are rp_frame_parse's and `roceprobe decode`'s (one 802.1Q tag at
 * most; QinQ is "other", as everywhere: wire/classify.h), with NAKs apart.
 * "Control" frames are pfc, pause, cnp, nak, ARP/ND and any CE-marked frame;
 * every other frame is "data". tests/unit/test_classify.c holds it to
 * rp_frame_parse. */
#ifndef RP_PCAP_CLASSIFY_H
#define RP_PCAP_CLASSIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "wire/classify.h"
#include "wire/ext.h"

/* The kinds counted per frame offered (before filter and sampling). */
enum rp_capture_kind {
	RP_CAPK_ROCE,
	RP_CAPK_CNP,
	RP_CAPK_NAK,
	RP_CAPK_PFC,
	RP_CAPK_PAUSE,
	RP_CAPK_OTHER,
	RP_CAPK_COUNT,
};

enum rp_capture_filter {
	RP_CAPTURE_ALL,     /* every frame */
	RP_CAPTURE_ROCE,    /* RoCEv2 frames and control frames */
	RP_CAPTURE_CONTROL, /* control frames only: PFC, PAUSE, CNP, NAK, ARP, NS/NA, CE-marked */
};

const char *rp_capture_kind_name(enum rp_capture_kind k); /* "roce", "cnp", ... */

struct rp_pcap_cls {
	enum rp_capture_kind kind;
	bool ce;
	bool neigh; /* ARP, or ICMPv6 NS/NA: kept by every filter, like control frames */
};

/* One walk per question, each question once: MAC control, else RoCEv2 (its
 * BTH found once), else ARP/ND (which can be neither). The kinds are
 * rp_cls_kind's, with NAKs (an ACK whose AETH syndrome bits 7..5 are 011) apart. */
static inline struct rp_pcap_cls rp_pcap_classify(const uint8_t *b, uint32_t len)
{
	struct rp_pcap_cls c = {RP_CAPK_OTHER, rp_cls_ce(b, len), false};
	int op = rp_cls_macctl_op(b, len);
	if (op >= 0) {
		c.kind = op == RP_MACCTL_OP_PFC ? RP_CAPK_PFC : op == RP_MACCTL_OP_PAUSE ? RP_CAPK_PAUSE : RP_CAPK_OTHER;
		return c;
	}
	size_t bth = rp_cls_bth(b, len);
	if (bth) {
		bool nak = b[bth] == RP_OP_RC_ACK && len - bth >= RP_BTH_LEN + RP_AETH_LEN &&
			   (b[bth + RP_BTH_LEN] >> 5) == RP_AETH_NAK;
		c.kind = b[bth] == RP_OP_CNP ? RP_CAPK_CNP : nak ? RP_CAPK_NAK : RP_CAPK_ROCE;
		return c;
	}
	c.neigh = rp_cls_is_arp(b, len) || rp_cls_is_nd(b, len);
	return c;
}

static inline bool rp_pcap_is_control(struct rp_pcap_cls k)
{
	return k.ce || k.neigh || k.kind == RP_CAPK_CNP || k.kind == RP_CAPK_NAK || k.kind == RP_CAPK_PFC ||
	       k.kind == RP_CAPK_PAUSE;
}

/* Whether filter f keeps a frame of kind k (control: rp_pcap_is_control(k)). */
static inline bool rp_pcap_wanted(enum rp_capture_filter f, struct rp_pcap_cls k, bool control)
{
	switch (f) {
	case RP_CAPTURE_CONTROL:
		return control;
	case RP_CAPTURE_ROCE:
		return control || k.kind == RP_CAPK_ROCE;
	default:
		return true;
	}
}

#endif
