#include "ipv4.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "bytes.h"
#include "wire_err.h"

#define IPV4_FLAG_DF 0x4000

/* RFC 1071's one's complement sum, taken over 32-bit words in the host's
 * byte order and swapped once at the end (the sum does not depend on the
 * order it is taken in, 2.(B)): the same result as big-endian 16-bit words
 * one by one, in a third of the steps (a switch's CE mark is one per frame). */
uint16_t rp_ipv4_checksum(const uint8_t *hdr, size_t hlen)
{
	uint64_t sum = 0;
	size_t i = 0;

	for (; i + 4 <= hlen; i += 4) {
		uint32_t w;
		memcpy(&w, hdr + i, 4);
		sum += w;
	}
	for (; i + 2 <= hlen; i += 2) {
		uint16_t w;
		memcpy(&w, hdr + i, 2);
		sum += w;
	}
	if (i < hlen) { /* the odd byte, padded with a zero: the high byte of a big-endian word */
		uint16_t w = 0;
		memcpy(&w, hdr + i, 1);
		sum += w;
	}
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	uint16_t s = (uint16_t)sum;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	s = (uint16_t)(s << 8 | s >> 8);
#endif
	return (uint16_t)~s;
}

size_t rp_ipv4_build(uint8_t *buf, size_t cap, const struct rp_ipv4 *ip)
{
	if (cap < RP_IPV4_HLEN)
		return 0;
	buf[0] = 0x45;
	buf[1] = (uint8_t)((ip->dscp & 0x3F) << 2 | (ip->ecn & 3));
	rp_put_be16(buf + 2, ip->total_len);
	rp_put_be16(buf + 4, ip->id);
	rp_put_be16(buf + 6, ip->df ? IPV4_FLAG_DF : 0);
	buf[8] = ip->ttl;
	buf[9] = ip->proto;
	rp_put_be16(buf + 10, 0);
	rp_put_be32(buf + 12, ip->src);
	rp_put_be32(buf + 16, ip->dst);
	rp_put_be16(buf + 10, rp_ipv4_checksum(buf, RP_IPV4_HLEN));
	return RP_IPV4_HLEN;
}

int rp_ipv4_parse(const uint8_t *buf, size_t len, struct rp_ipv4 *ip)
{
	size_t hlen;

	if (len < RP_IPV4_HLEN)
		return RP_WIRE_ETRUNC;
	if (buf[0] >> 4 != 4)
		return RP_WIRE_EMALFORMED;
	hlen = (size_t)(buf[0] & 0xF) * 4;
	if (hlen < RP_IPV4_HLEN)
		return RP_WIRE_EMALFORMED;
	if (len < hlen)
		return RP_WIRE_ETRUNC;
	if (rp_get_be16(buf + 2) < hlen)
		return RP_WIRE_EMALFORMED;
	ip->dscp = buf[1] >> 2;
	ip->ecn = buf[1] & 3;
	ip->total_len = rp_get_be16(buf + 2);
	ip->id = rp_get_be16(buf + 4);
	ip->df = (rp_get_be16(buf + 6) & IPV4_FLAG_DF) != 0;
	ip->ttl = buf[8];
	ip->proto = buf[9];
	ip->checksum = rp_get_be16(buf + 10);
	ip->src = rp_get_be32(buf + 12);
	ip->dst = rp_get_be32(buf + 16);
	ip->hlen = (uint8_t)hlen;
	/* A correct header, checksum field included, sums to all ones. */
	ip->checksum_ok = rp_ipv4_checksum(buf, hlen) == 0;
	return RP_WIRE_OK;
}

int rp_ipv4_addr_parse(const char *s, uint32_t *out)
{
	struct in_addr a;

	/* glibc's inet_pton takes exactly four decimal parts, no leading zeros;
	 * inet_aton would also take "1.2.3" and hex. */
	if (inet_pton(AF_INET, s, &a) != 1)
		return RP_WIRE_EMALFORMED;
	*out = ntohl(a.s_addr);
	return RP_WIRE_OK;
}

void rp_ipv4_addr_format(uint32_t addr, char out[16])
{
	snprintf(out, 16, "%u.%u.%u.%u", addr >> 24, (addr >> 16) & 0xFF,
		 (addr >> 8) & 0xFF, addr & 0xFF);
}
