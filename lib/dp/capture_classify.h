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

#define AETH_SYNDROME_NAK 3u /* syndrome bits 7..5 */

struct cls {
	enum rp_capture_kind kind;
	bool ce;
	bool neigh; /* ARP, or ICMPv6 NS/NA: kept by every filter, like control frames */
};

static inline struct cls classify(const uint8_t *b, uint32_t len)
{
	struct cls c = {RP_CAPK_OTHER, rp_cls_ce(b, len), rp_cls_is_arp(b, len) || rp_cls_is_nd(b, len)};
	switch (rp_cls_kind(b, len)) {
	case RP_KIND_PFC: c.kind = RP_CAPK_PFC; break;
	case RP_KIND_PAUSE: c.kind = RP_CAPK_PAUSE; break;
	case RP_KIND_CNP: c.kind = RP_CAPK_CNP; break;
	case RP_KIND_ROCE: {
		size_t bth = rp_cls_bth(b, len);
		c.kind = b[bth] == RP_OP_RC_ACK && len - bth >= RP_BTH_LEN + RP_AETH_LEN &&
				 (b[bth + RP_BTH_LEN] >> 5) == AETH_SYNDROME_NAK
			 ? RP_CAPK_NAK
			 : RP_CAPK_ROCE;
		break;
	}
	default: break;
	}
	return c;
}

#endif
