/* ARP for IPv4 over Ethernet (RFC 826): what a host needs to be reached
 * through a router and to find its next hop. A gratuitous ARP is a request
 * for the sender's own address (spa == tpa) sent to broadcast. */
#ifndef RP_WIRE_ARP_H
#define RP_WIRE_ARP_H

#include <stddef.h>
#include <stdint.h>

#include "eth.h"

#define RP_ETHERTYPE_ARP 0x0806
#define RP_ARP_LEN 28 /* Ethernet/IPv4: htype, ptype, hlen, plen, op, sha, spa, tha, tpa */

enum rp_arp_op { RP_ARP_REQUEST = 1, RP_ARP_REPLY = 2 };

struct rp_arp {
	uint16_t op;                  /* enum rp_arp_op */
	uint8_t sha[RP_ETH_ADDR_LEN]; /* sender MAC */
	uint32_t spa;                 /* sender IPv4, host order */
	uint8_t tha[RP_ETH_ADDR_LEN]; /* target MAC (zero in a request) */
	uint32_t tpa;                 /* target IPv4, host order */
};

extern const uint8_t rp_eth_broadcast[RP_ETH_ADDR_LEN];

/* The whole frame: Ethernet (source sha, destination eth_dst; a request goes
 * to rp_eth_broadcast), ARP, zero pad to 60 bytes. Returns 60, or 0 when cap
 * is too small. */
size_t rp_arp_frame_build(uint8_t *buf, size_t cap, const uint8_t eth_dst[RP_ETH_ADDR_LEN], const struct rp_arp *a);
/* The ARP payload after the Ethernet header. Only Ethernet/IPv4 ARP is
 * understood (RP_WIRE_EMALFORMED otherwise, or for an op other than 1, 2). */
int rp_arp_parse(const uint8_t *buf, size_t len, struct rp_arp *a);

#endif
