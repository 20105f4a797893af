/* The capture tap's classifier (capture.h "Classification"): fixed
 * offsets, cheap enough for the producers' per-packet path. Private to
 * capture.c. */
#ifndef RP_DP_CAPTURE_CLASSIFY_H
#define RP_DP_CAPTURE_CLASSIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "capture.h"
#include "wire/arp.h"
#include "wire/bth.h"
#include "wire/eth.h"
#include "wire/ext.h"
#include "wire/ipv4.h"
#include "wire/ipv6.h"
#include "wire/nd.h"
#include "wire/pfc.h"
#include "wire/udp.h"

#define ETHERTYPE_QINQ 0x88A8
#define AETH_SYNDROME_NAK 3u /* syndrome bits 7..5 */

struct cls {
	enum rp_capture_kind kind;
	bool ce;
	bool neigh; /* ARP, or ICMPv6 NS/NA: kept by every filter, like control frames */
};

static inline unsigned be16(const uint8_t *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

/* p points at the UDP header; len bytes of it are present. */
static inline enum rp_capture_kind classify_udp(const uint8_t *p, uint32_t len)
{
	if (len < RP_UDP_HLEN + RP_BTH_LEN || be16(p + 2) != RP_ROCEV2_UDP_PORT)
		return RP_CAPK_OTHER;
	const uint8_t *bth = p + RP_UDP_HLEN;
	if (bth[0] == RP_OP_CNP)
		return RP_CAPK_CNP;
	if (bth[0] == RP_OP_RC_ACK && len >= RP_UDP_HLEN + RP_BTH_LEN + RP_AETH_LEN &&
	    (bth[RP_BTH_LEN] >> 5) == AETH_SYNDROME_NAK)
		return RP_CAPK_NAK;
	return RP_CAPK_ROCE;
}

static inline struct cls classify_ipv4(const uint8_t *p, uint32_t len)
{
	struct cls c = {RP_CAPK_OTHER, false, false};
	if (len < RP_IPV4_HLEN || (p[0] >> 4) != 4)
		return c;
	c.ce = (p[1] & 3) == 3;
	uint32_t hlen = (p[0] & 0xFu) * 4u;
	bool first_fragment = (be16(p + 6) & 0x1FFF) == 0;
	if (hlen >= RP_IPV4_HLEN && len >= hlen && p[9] == RP_IPPROTO_UDP && first_fragment)
		c.kind = classify_udp(p + hlen, len - hlen);
	return c;
}

static inline struct cls classify_ipv6(const uint8_t *p, uint32_t len)
{
	struct cls c = {RP_CAPK_OTHER, false, false};
	if (len < RP_IPV6_HLEN || (p[0] >> 4) != 6)
		return c;
	c.ce = ((p[1] >> 4) & 3) == 3;
	c.neigh = p[6] == RP_IPPROTO_ICMPV6 && len > RP_IPV6_HLEN &&
		  (p[RP_IPV6_HLEN] == RP_ND_NS || p[RP_IPV6_HLEN] == RP_ND_NA);
	if (p[6] == RP_IPPROTO_UDP)
		c.kind = classify_udp(p + RP_IPV6_HLEN, len - RP_IPV6_HLEN);
	return c;
}

static inline struct cls classify(const uint8_t *b, uint32_t len)
{
	struct cls c = {RP_CAPK_OTHER, false, false};
	uint32_t off = 12; /* the EtherType, after any VLAN tags */
	if (len < off + 2)
		return c;
	unsigned et = be16(b + off);
	while ((et == RP_ETHERTYPE_VLAN || et == ETHERTYPE_QINQ) && len >= off + 6) {
		off += RP_VLAN_HLEN;
		et = be16(b + off);
	}
	uint32_t l3 = off + 2;
	if (et == RP_ETHERTYPE_MACCTL && len >= l3 + 2) {
		unsigned op = be16(b + l3);
		c.kind = op == RP_MACCTL_OP_PFC ? RP_CAPK_PFC : op == RP_MACCTL_OP_PAUSE ? RP_CAPK_PAUSE : RP_CAPK_OTHER;
	} else if (et == RP_ETHERTYPE_ARP) {
		c.neigh = true;
	} else if (et == RP_ETHERTYPE_IPV4) {
		c = classify_ipv4(b + l3, len - l3);
	} else if (et == RP_ETHERTYPE_IPV6) {
		c = classify_ipv6(b + l3, len - l3);
	}
	return c;
}

#endif
