#include "eth.h"

#include <stdio.h>
#include <string.h>

#include "bytes.h"
#include "wire_err.h"

size_t rp_eth_build(uint8_t *buf, size_t cap, const struct rp_eth *e)
{
	size_t hlen = rp_eth_hlen(e);
	uint8_t *p;

	if (cap < hlen)
		return 0;
	p = buf + 2 * RP_ETH_ADDR_LEN;
	memcpy(buf, e->dst, RP_ETH_ADDR_LEN);
	memcpy(buf + RP_ETH_ADDR_LEN, e->src, RP_ETH_ADDR_LEN);
	if (e->has_vlan) {
		rp_put_be16(p, RP_ETHERTYPE_VLAN);
		rp_put_be16(p + 2, (uint16_t)((e->pcp & 7) << 13 | (e->dei ? 1 : 0) << 12 |
					      (e->vid & 0xFFF)));
		p += RP_VLAN_HLEN;
	}
	rp_put_be16(p, e->ethertype);
	return hlen;
}

int rp_eth_parse(const uint8_t *buf, size_t len, struct rp_eth *e, size_t *hlen)
{
	uint16_t type, tci = 0;
	size_t h = RP_ETH_HLEN;

	if (len < RP_ETH_HLEN)
		return RP_WIRE_ETRUNC;
	type = rp_get_be16(buf + 12);
	if (type == RP_ETHERTYPE_VLAN) {
		h += RP_VLAN_HLEN;
		if (len < h)
			return RP_WIRE_ETRUNC;
		tci = rp_get_be16(buf + 14);
		type = rp_get_be16(buf + 16);
	}
	memcpy(e->dst, buf, RP_ETH_ADDR_LEN);
	memcpy(e->src, buf + RP_ETH_ADDR_LEN, RP_ETH_ADDR_LEN);
	e->has_vlan = h > RP_ETH_HLEN;
	e->pcp = (uint8_t)(tci >> 13);
	e->dei = (tci >> 12) & 1;
	e->vid = tci & 0xFFF;
	e->ethertype = type;
	*hlen = h;
	return RP_WIRE_OK;
}

static int hex_nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int rp_mac_parse(const char *s, uint8_t out[RP_ETH_ADDR_LEN])
{
	uint8_t mac[RP_ETH_ADDR_LEN];

	/* Hand-rolled: sscanf("%hhx") would accept "2:0:..." and trailing junk. */
	for (int i = 0; i < RP_ETH_ADDR_LEN; i++) {
		int hi, lo;

		if (i > 0 && *s++ != ':')
			return RP_WIRE_EMALFORMED;
		hi = hex_nibble(s[0]);
		if (hi < 0)
			return RP_WIRE_EMALFORMED;
		lo = hex_nibble(s[1]);
		if (lo < 0)
			return RP_WIRE_EMALFORMED;
		mac[i] = (uint8_t)(hi << 4 | lo);
		s += 2;
	}
	if (*s != '\0')
		return RP_WIRE_EMALFORMED;
	memcpy(out, mac, RP_ETH_ADDR_LEN);
	return RP_WIRE_OK;
}

void rp_mac_format(const uint8_t mac[RP_ETH_ADDR_LEN], char out[18])
{
	snprintf(out, 18, "%02x:%02x:%02x:%02x:%02x:%02x",
		 mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
}
