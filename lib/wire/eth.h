/* Ethernet II with an optional 802.1Q tag. */
#ifndef RP_WIRE_ETH_H
#define RP_WIRE_ETH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RP_ETH_ADDR_LEN 6
#define RP_ETH_HLEN 14
#define RP_VLAN_HLEN 4
#define RP_ETH_MIN_FRAME 60 /* without FCS */

#define RP_ETHERTYPE_IPV4 0x0800
#define RP_ETHERTYPE_IPV6 0x86DD
#define RP_ETHERTYPE_VLAN 0x8100
#define RP_ETHERTYPE_MACCTL 0x8808

struct rp_eth {
	uint8_t dst[RP_ETH_ADDR_LEN];
	uint8_t src[RP_ETH_ADDR_LEN];
	bool has_vlan;
	uint8_t pcp;        /* 0..7, only with has_vlan */
	bool dei;
	uint16_t vid;       /* 0..4095 */
	uint16_t ethertype; /* the inner one when tagged */
};

static inline size_t rp_eth_hlen(const struct rp_eth *e)
{
	return RP_ETH_HLEN + (e->has_vlan ? RP_VLAN_HLEN : 0);
}

/* Writes the header; returns its length, or 0 when cap is too small. */
size_t rp_eth_build(uint8_t *buf, size_t cap, const struct rp_eth *e);
/* Parses one header (one tag at most); *hlen gets its length. */
int rp_eth_parse(const uint8_t *buf, size_t len, struct rp_eth *e, size_t *hlen);

/* "02:00:00:00:00:01" into out; returns 0 or RP_WIRE_EMALFORMED. */
int rp_mac_parse(const char *s, uint8_t out[RP_ETH_ADDR_LEN]);
/* Writes 18 bytes including the NUL. */
void rp_mac_format(const uint8_t mac[RP_ETH_ADDR_LEN], char out[18]);

#endif
