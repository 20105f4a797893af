#include "arp.h"

#include <string.h>

#include "bytes.h"
#include "wire_err.h"

#define ARP_HTYPE_ETHERNET 1

const uint8_t rp_eth_broadcast[RP_ETH_ADDR_LEN] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

size_t rp_arp_frame_build(uint8_t *buf, size_t cap, const uint8_t eth_dst[RP_ETH_ADDR_LEN], const struct rp_arp *a)
{
	if (cap < RP_ETH_MIN_FRAME)
		return 0;
	memset(buf, 0, RP_ETH_MIN_FRAME);
	struct rp_eth eth = {.ethertype = RP_ETHERTYPE_ARP};
	memcpy(eth.dst, eth_dst, RP_ETH_ADDR_LEN);
	memcpy(eth.src, a->sha, RP_ETH_ADDR_LEN);
	uint8_t *p = buf + rp_eth_build(buf, cap, &eth);
	rp_put_be16(p, ARP_HTYPE_ETHERNET);
	rp_put_be16(p + 2, RP_ETHERTYPE_IPV4);
	p[4] = RP_ETH_ADDR_LEN;
	p[5] = 4;
	rp_put_be16(p + 6, a->op);
	memcpy(p + 8, a->sha, RP_ETH_ADDR_LEN);
	rp_put_be32(p + 14, a->spa);
	memcpy(p + 18, a->tha, RP_ETH_ADDR_LEN);
	rp_put_be32(p + 24, a->tpa);
	return RP_ETH_MIN_FRAME;
}

int rp_arp_parse(const uint8_t *buf, size_t len, struct rp_arp *a)
{
	if (len < RP_ARP_LEN)
		return RP_WIRE_ETRUNC;
	if (rp_get_be16(buf) != ARP_HTYPE_ETHERNET || rp_get_be16(buf + 2) != RP_ETHERTYPE_IPV4 ||
	    buf[4] != RP_ETH_ADDR_LEN || buf[5] != 4)
		return RP_WIRE_EMALFORMED;
	a->op = rp_get_be16(buf + 6);
	if (a->op != RP_ARP_REQUEST && a->op != RP_ARP_REPLY)
		return RP_WIRE_EMALFORMED;
	memcpy(a->sha, buf + 8, RP_ETH_ADDR_LEN);
	a->spa = rp_get_be32(buf + 14);
	memcpy(a->tha, buf + 18, RP_ETH_ADDR_LEN);
	a->tpa = rp_get_be32(buf + 24);
	return RP_WIRE_OK;
}
