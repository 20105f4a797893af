/* The capture tap's classifier (capture.h "Classification"), on the fast
 * accessors of wire/classify.h: the same kinds as rp_frame_parse (one
 * 802.1Q tag at most; QinQ is "other"), plus NAK, and ARP/ND marked as
 * neigh. Cheap enough for the producers' per-packet path. Private to
 * capture.c; DPDK-free (tests/unit/test_classify.c includes it). */
#ifndef RP_DP_CAPTURE_CLASSIFY_H
#define RP_DP_CAPTURE_CLASSIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "capture.h"
#include "wire/classify.h"
#include "wire/ext.h"

struct cls {
	enum rp_capture_kind kind;
	bool ce;
	bool neigh; /* ARP, or ICMPv6 NS/NA: kept by every filter, like control frames */
};

/* One walk per question, each question once: MAC control, else RoCEv2 (its
 * BTH found once), else ARP/ND (which can be neither). The kinds are
 * rp_cls_kind's, with NAKs (an ACK whose AETH syndrome bits 7..5 are 011) apart. */
static inline struct cls classify(const uint8_t *b, uint32_t len)
{
	struct cls c = {RP_CAPK_OTHER, rp_cls_ce(b, len), false};
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

#endif
