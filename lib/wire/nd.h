/* IPv6 Neighbour Discovery (RFC 4861): Neighbour Solicitation and
 * Advertisement with the link-layer address option, the IPv6 counterpart of
 * ARP. ND packets travel with hop limit 255 (a receiver drops any other: it
 * proves the sender is on the link); a solicitation goes to the target's
 * solicited-node multicast address, ff02::1:ffXX:XXXX. */
#ifndef RP_WIRE_ND_H
#define RP_WIRE_ND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "eth.h"

#define RP_IPPROTO_ICMPV6 58
#define RP_ND_HOP_LIMIT 255
#define RP_ND_LEN 32 /* ICMPv6 head 4, flags/reserved 4, target 16, one link-layer option 8 */

enum rp_nd_type { RP_ND_NS = 135, RP_ND_NA = 136 };

/* NA flags, as in the first byte after the checksum. */
#define RP_ND_FLAG_ROUTER 0x80
#define RP_ND_FLAG_SOLICITED 0x40
#define RP_ND_FLAG_OVERRIDE 0x20

struct rp_nd {
	uint8_t type;               /* enum rp_nd_type */
	uint8_t flags;              /* NA only: RP_ND_FLAG_* */
	uint8_t src[16], dst[16];   /* the IPv6 header's addresses */
	uint8_t target[16];
	bool has_lladdr;            /* NS: source link-layer option; NA: target link-layer option */
	uint8_t lladdr[RP_ETH_ADDR_LEN];
	bool checksum_ok;           /* parse only */
};

/* ff02::1:ff + the low 24 bits of addr. */
void rp_nd_solicited_node(const uint8_t addr[16], uint8_t out[16]);
/* The Ethernet multicast address of an IPv6 multicast address: 33:33 + its low 32 bits. */
void rp_ipv6_mcast_mac(const uint8_t addr[16], uint8_t mac[RP_ETH_ADDR_LEN]);

/* A whole frame: Ethernet (eth_src -> eth_dst), IPv6 (nd->src -> nd->dst, hop
 * limit 255), ICMPv6 NS or NA with the link-layer option when has_lladdr,
 * checksum computed. Returns its length (86 with the option), or 0 when cap is
 * too small or the type is neither NS nor NA. */
size_t rp_nd_frame_build(uint8_t *buf, size_t cap, const uint8_t eth_src[RP_ETH_ADDR_LEN],
			 const uint8_t eth_dst[RP_ETH_ADDR_LEN], const struct rp_nd *nd);
/* An IPv6 packet (header onwards, l3_len bytes) that carries an NS or NA:
 * RP_WIRE_EMALFORMED for other ICMPv6, a hop limit other than 255, code != 0
 * or a zero-length option; RP_WIRE_ETRUNC when cut short. The checksum is
 * reported in checksum_ok, not as an error. */
int rp_nd_parse(const uint8_t *l3, size_t l3_len, struct rp_nd *nd);

#endif
