#include "udp.h"

#include "wire_err.h"

static inline void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

size_t rp_udp_build(uint8_t *buf, size_t cap, const struct rp_udp *u)
{
	if (cap < RP_UDP_HLEN)
		return 0;
	put16(buf, u->sport);
	put16(buf + 2, u->dport);
	put16(buf + 4, u->len);
	put16(buf + 6, u->checksum);
	return RP_UDP_HLEN;
}

int rp_udp_parse(const uint8_t *buf, size_t len, struct rp_udp *u)
{
	if (len < RP_UDP_HLEN)
		return RP_WIRE_ETRUNC;
	if (get16(buf + 4) < RP_UDP_HLEN)
		return RP_WIRE_EMALFORMED;
	u->sport = get16(buf);
	u->dport = get16(buf + 2);
	u->len = get16(buf + 4);
	u->checksum = get16(buf + 6);
	return RP_WIRE_OK;
}
