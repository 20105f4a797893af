#include "nd.h"

#include <string.h>

#include "bytes.h"
#include "frame.h"
#include "ipv6.h"
#include "wire_err.h"

#define ND_HEAD 24            /* type, code, checksum, flags/reserved, target */
#define ND_OPT_SOURCE_LLADDR 1
#define ND_OPT_TARGET_LLADDR 2

void rp_nd_solicited_node(const uint8_t addr[16], uint8_t out[16])
{
	static const uint8_t prefix[13] = {0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0xff};
	memcpy(out, prefix, sizeof(prefix));
	memcpy(out + 13, addr + 13, 3);
}

void rp_ipv6_mcast_mac(const uint8_t addr[16], uint8_t mac[RP_ETH_ADDR_LEN])
{
	mac[0] = 0x33;
	mac[1] = 0x33;
	memcpy(mac + 2, addr + 12, 4);
}

size_t rp_nd_frame_build(uint8_t *buf, size_t cap, const uint8_t eth_src[RP_ETH_ADDR_LEN],
			 const uint8_t eth_dst[RP_ETH_ADDR_LEN], const struct rp_nd *nd)
{
	size_t icmp_len = ND_HEAD + (nd->has_lladdr ? 8 : 0);
	size_t len = RP_ETH_HLEN + RP_IPV6_HLEN + icmp_len;
	if (cap < len || (nd->type != RP_ND_NS && nd->type != RP_ND_NA))
		return 0;
	memset(buf, 0, len);
	struct rp_eth eth = {.ethertype = RP_ETHERTYPE_IPV6};
	memcpy(eth.dst, eth_dst, RP_ETH_ADDR_LEN);
	memcpy(eth.src, eth_src, RP_ETH_ADDR_LEN);
	uint8_t *l3 = buf + rp_eth_build(buf, cap, &eth);
	struct rp_ipv6 ip = {.payload_len = (uint16_t)icmp_len, .next_header = RP_IPPROTO_ICMPV6,
			     .hop_limit = RP_ND_HOP_LIMIT};
	memcpy(ip.src, nd->src, 16);
	memcpy(ip.dst, nd->dst, 16);
	uint8_t *p = l3 + rp_ipv6_build(l3, cap - RP_ETH_HLEN, &ip);
	p[0] = nd->type;
	if (nd->type == RP_ND_NA)
		p[4] = nd->flags;
	memcpy(p + 8, nd->target, 16);
	if (nd->has_lladdr) {
		p[ND_HEAD] = nd->type == RP_ND_NS ? ND_OPT_SOURCE_LLADDR : ND_OPT_TARGET_LLADDR;
		p[ND_HEAD + 1] = 1; /* in units of 8 bytes */
		memcpy(p + ND_HEAD + 2, nd->lladdr, RP_ETH_ADDR_LEN);
	}
	rp_put_be16(p + 2, rp_l4_checksum(l3, RP_IPV6_HLEN + icmp_len, RP_IPPROTO_ICMPV6, 2));
	return len;
}

int rp_nd_parse(const uint8_t *l3, size_t l3_len, struct rp_nd *nd)
{
	struct rp_ipv6 ip;
	int rc = rp_ipv6_parse(l3, l3_len, &ip);
	if (rc != RP_WIRE_OK)
		return rc;
	if (ip.next_header != RP_IPPROTO_ICMPV6)
		return RP_WIRE_EMALFORMED;
	size_t icmp_len = ip.payload_len;
	if (icmp_len > l3_len - RP_IPV6_HLEN || icmp_len < ND_HEAD)
		return RP_WIRE_ETRUNC;
	const uint8_t *p = l3 + RP_IPV6_HLEN;
	if ((p[0] != RP_ND_NS && p[0] != RP_ND_NA) || p[1] != 0 || ip.hop_limit != RP_ND_HOP_LIMIT)
		return RP_WIRE_EMALFORMED;
	*nd = (struct rp_nd){.type = p[0], .flags = p[0] == RP_ND_NA ? (uint8_t)(p[4] & 0xE0) : 0};
	memcpy(nd->src, ip.src, 16);
	memcpy(nd->dst, ip.dst, 16);
	memcpy(nd->target, p + 8, 16);
	uint8_t want = nd->type == RP_ND_NS ? ND_OPT_SOURCE_LLADDR : ND_OPT_TARGET_LLADDR;
	for (size_t off = ND_HEAD; off + 2 <= icmp_len;) {
		size_t olen = (size_t)p[off + 1] * 8;
		if (olen == 0)
			return RP_WIRE_EMALFORMED;
		if (off + olen > icmp_len)
			return RP_WIRE_ETRUNC;
		if (p[off] == want && olen >= 8 && !nd->has_lladdr) {
			nd->has_lladdr = true;
			memcpy(nd->lladdr, p + off + 2, RP_ETH_ADDR_LEN);
		}
		off += olen;
	}
	nd->checksum_ok = rp_l4_checksum(l3, RP_IPV6_HLEN + icmp_len, RP_IPPROTO_ICMPV6, 2) == rp_get_be16(p + 2);
	return RP_WIRE_OK;
}
