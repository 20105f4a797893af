/* The fast frame classifier: what a per-packet path needs to know about a
 * frame (MAC control and its opcode, ARP, ICMPv6 NS/NA, RoCEv2 and its BTH
 * opcode, the IP ECN field) from fixed offsets, without the full parse. Every
 * length guard is here; each accessor takes the frame and its length and
 * never reads past it.
 *
 * The rule, the same as rp_frame_parse's: the EtherType is the one after at
 * most ONE 802.1Q tag (0x8100). A QinQ frame (0x88A8 outer tag, or two
 * 0x8100 tags) is "other" for every classifier: rp_frame_parse, the capture
 * tap, the dataplane and the lab. MAC control frames count tagged or not,
 * as the switch model (rp_sw_classify) counts them.
 *
 * Where rp_frame_parse says PFC, PAUSE, ROCE or CNP, rp_cls_kind says the
 * same; where rp_cls_kind says one of those and rp_frame_parse does not, the
 * full parse found the frame malformed (a bad UDP length, a cut ICRC, ...).
 * tests/unit/test_classify.c and tests/fuzz/fuzz_frame.c hold them to it. */
#ifndef RP_WIRE_CLASSIFY_H
#define RP_WIRE_CLASSIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arp.h"
#include "bth.h"
#include "bytes.h"
#include "eth.h"
#include "frame.h"
#include "ipv4.h"
#include "ipv6.h"
#include "nd.h"
#include "pfc.h"
#include "udp.h"

/* The EtherType after at most one 802.1Q tag, and in *l3 where what it
 * announces starts (14, or 18 tagged). 0 when the Ethernet header (and its
 * tag) is not all there. */
static inline uint16_t rp_cls_ethertype(const uint8_t *b, size_t len, size_t *l3)
{
	if (len < RP_ETH_HLEN)
		return 0;
	uint16_t et = rp_get_be16(b + 12);
	size_t off = RP_ETH_HLEN;
	if (et == RP_ETHERTYPE_VLAN) {
		if (len < RP_ETH_HLEN + RP_VLAN_HLEN)
			return 0;
		et = rp_get_be16(b + 16);
		off += RP_VLAN_HLEN;
	}
	*l3 = off;
	return et;
}

/* A MAC control frame (EtherType 0x8808) with its opcode present: *op_off is
 * where the opcode sits (what rp_macctl_parse takes). */
static inline bool rp_cls_macctl(const uint8_t *b, size_t len, size_t *op_off)
{
	size_t off = 0;
	if (rp_cls_ethertype(b, len, &off) != RP_ETHERTYPE_MACCTL || len < off + 2)
		return false;
	*op_off = off;
	return true;
}

/* The MAC control opcode (RP_MACCTL_OP_PFC, _PAUSE, ...), or -1. */
static inline int rp_cls_macctl_op(const uint8_t *b, size_t len)
{
	size_t off;
	return rp_cls_macctl(b, len, &off) ? (int)rp_get_be16(b + off) : -1;
}

static inline bool rp_cls_is_arp(const uint8_t *b, size_t len)
{
	size_t off;
	return rp_cls_ethertype(b, len, &off) == RP_ETHERTYPE_ARP;
}

/* An IPv4 header with version 4 and a sane header length, all present. */
static inline bool rp_cls_ipv4_ok(const uint8_t *p, size_t len)
{
	return len >= RP_IPV4_HLEN && (p[0] >> 4) == 4 && (p[0] & 0xFu) * 4u >= RP_IPV4_HLEN &&
	       (p[0] & 0xFu) * 4u <= len;
}

/* The IP header at *l3 (4 or 6; 0: not IP, or its header is not all there). */
static inline int rp_cls_ip(const uint8_t *b, size_t len, size_t *l3)
{
	uint16_t et = rp_cls_ethertype(b, len, l3);
	if (et == RP_ETHERTYPE_IPV4 && rp_cls_ipv4_ok(b + *l3, len - *l3))
		return 4;
	if (et == RP_ETHERTYPE_IPV6 && len - *l3 >= RP_IPV6_HLEN && (b[*l3] >> 4) == 6)
		return 6;
	return 0;
}

/* The ECN field of an IPv4/IPv6 frame (enum rp_ecn), or -1. */
static inline int rp_cls_ecn(const uint8_t *b, size_t len)
{
	size_t l3 = 0;
	switch (rp_cls_ip(b, len, &l3)) {
	case 4: return b[l3 + 1] & 3;
	case 6: return (b[l3 + 1] >> 4) & 3;
	default: return -1;
	}
}

static inline bool rp_cls_ce(const uint8_t *b, size_t len)
{
	return rp_cls_ecn(b, len) == RP_ECN_CE;
}

/* The layer-4 protocol of an IPv4/IPv6 frame and in *l4 where its header
 * starts, or -1. IPv6 extension headers are not followed; an IPv4 fragment
 * other than the first has no layer-4 header (-1). */
static inline int rp_cls_l4(const uint8_t *b, size_t len, size_t *l4)
{
	size_t l3 = 0;
	switch (rp_cls_ip(b, len, &l3)) {
	case 4:
		if (rp_get_be16(b + l3 + 6) & 0x1FFF)
			return -1;
		*l4 = l3 + (b[l3] & 0xFu) * 4u;
		return b[l3 + 9];
	case 6:
		*l4 = l3 + RP_IPV6_HLEN;
		return b[l3 + 6];
	default:
		return -1;
	}
}

/* A UDP header, all present: its offset, or 0. */
static inline size_t rp_cls_udp(const uint8_t *b, size_t len)
{
	size_t l4 = 0;
	return rp_cls_l4(b, len, &l4) == RP_IPPROTO_UDP && len - l4 >= RP_UDP_HLEN ? l4 : 0;
}

/* An ICMPv6 Neighbour Solicitation or Advertisement (its type byte present). */
static inline bool rp_cls_is_nd(const uint8_t *b, size_t len)
{
	size_t l4 = 0;
	return rp_cls_l4(b, len, &l4) == RP_IPPROTO_ICMPV6 && len > l4 && (b[l4] == RP_ND_NS || b[l4] == RP_ND_NA);
}

/* RoCEv2: UDP to port 4791 with a whole BTH. Returns the BTH's offset, or 0. */
static inline size_t rp_cls_bth(const uint8_t *b, size_t len)
{
	size_t udp = rp_cls_udp(b, len);
	if (!udp || rp_get_be16(b + udp + 2) != RP_ROCEV2_UDP_PORT || len - udp < RP_UDP_HLEN + RP_BTH_LEN)
		return 0;
	return udp + RP_UDP_HLEN;
}

/* The BTH opcode of a RoCEv2 frame, or -1. */
static inline int rp_cls_opcode(const uint8_t *b, size_t len)
{
	size_t bth = rp_cls_bth(b, len);
	return bth ? b[bth] : -1;
}

/* RP_KIND_PFC, _PAUSE, _ROCE, _CNP or _OTHER: never _MALFORMED (that takes
 * the full parse). */
static inline enum rp_frame_kind rp_cls_kind(const uint8_t *b, size_t len)
{
	int op = rp_cls_macctl_op(b, len);
	if (op >= 0)
		return op == RP_MACCTL_OP_PFC ? RP_KIND_PFC : op == RP_MACCTL_OP_PAUSE ? RP_KIND_PAUSE : RP_KIND_OTHER;
	op = rp_cls_opcode(b, len);
	if (op < 0)
		return RP_KIND_OTHER;
	return op == RP_OP_CNP ? RP_KIND_CNP : RP_KIND_ROCE;
}

#endif
