#include "ipv6.h"

#include <arpa/inet.h>
#include <string.h>

#include "bytes.h"
#include "wire_err.h"

size_t rp_ipv6_build(uint8_t *buf, size_t cap, const struct rp_ipv6 *ip)
{
	uint8_t tc = (uint8_t)((ip->dscp & 0x3F) << 2 | (ip->ecn & 3));
	uint32_t fl = ip->flow_label & 0xFFFFF;

	if (cap < RP_IPV6_HLEN)
		return 0;
	/* version(4) | traffic class(8) | flow label(20) */
	rp_put_be32(buf, (uint32_t)6 << 28 | (uint32_t)tc << 20 | fl);
	rp_put_be16(buf + 4, ip->payload_len);
	buf[6] = ip->next_header;
	buf[7] = ip->hop_limit;
	memcpy(buf + 8, ip->src, 16);
	memcpy(buf + 24, ip->dst, 16);
	return RP_IPV6_HLEN;
}

int rp_ipv6_parse(const uint8_t *buf, size_t len, struct rp_ipv6 *ip)
{
	uint8_t tc;

	if (len < RP_IPV6_HLEN)
		return RP_WIRE_ETRUNC;
	if (buf[0] >> 4 != 6)
		return RP_WIRE_EMALFORMED;
	tc = (uint8_t)((buf[0] & 0xF) << 4 | buf[1] >> 4);
	ip->dscp = tc >> 2;
	ip->ecn = tc & 3;
	ip->flow_label = rp_get_be24(buf + 1) & 0xFFFFF;
	ip->payload_len = rp_get_be16(buf + 4);
	ip->next_header = buf[6];
	ip->hop_limit = buf[7];
	memcpy(ip->src, buf + 8, 16);
	memcpy(ip->dst, buf + 24, 16);
	return RP_WIRE_OK;
}

int rp_ipv6_addr_parse(const char *s, uint8_t out[16])
{
	uint8_t a[16];

	if (inet_pton(AF_INET6, s, a) != 1)
		return RP_WIRE_EMALFORMED;
	memcpy(out, a, 16);
	return RP_WIRE_OK;
}

void rp_ipv6_addr_format(const uint8_t addr[16], char out[46])
{
	/* Cannot fail: the family is valid and 46 is INET6_ADDRSTRLEN. */
	inet_ntop(AF_INET6, addr, out, 46);
}
