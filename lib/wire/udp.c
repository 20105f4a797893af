#include "udp.h"

#include "bytes.h"
#include "wire_err.h"

size_t rp_udp_build(uint8_t *buf, size_t cap, const struct rp_udp *u)
{
	if (cap < RP_UDP_HLEN)
		return 0;
	rp_put_be16(buf, u->sport);
	rp_put_be16(buf + 2, u->dport);
	rp_put_be16(buf + 4, u->len);
	rp_put_be16(buf + 6, u->checksum);
	return RP_UDP_HLEN;
}

int rp_udp_parse(const uint8_t *buf, size_t len, struct rp_udp *u)
{
	if (len < RP_UDP_HLEN)
		return RP_WIRE_ETRUNC;
	if (rp_get_be16(buf + 4) < RP_UDP_HLEN)
		return RP_WIRE_EMALFORMED;
	u->sport = rp_get_be16(buf);
	u->dport = rp_get_be16(buf + 2);
	u->len = rp_get_be16(buf + 4);
	u->checksum = rp_get_be16(buf + 6);
	return RP_WIRE_OK;
}
