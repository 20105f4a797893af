/* Forwarding in the lab's fabric. A leaf sends a frame for a host on
 * another leaf up to a spine chosen by ECMP over the RoCEv2 UDP source
 * port (the entropy RoCE NICs put there); everything else the switch's
 * static MAC table decides. */
#include "lab_internal.h"
#include "wire/classify.h"

/* The UDP source port of an IPv4/IPv6 UDP frame (one 802.1Q tag or none), or -1. */
static long udp_sport(const uint8_t *b, size_t len)
{
	size_t udp = rp_cls_udp(b, len);
	return udp ? (long)rp_get_be16(b + udp) : -1;
}

/* A multiplicative hash, so neighbouring ports spread over the spines. */
static unsigned ecmp(long sport, unsigned n)
{
	uint32_t h = (uint32_t)(sport < 0 ? 0 : sport) * 2654435761u;
	return (h >> 16) % n;
}

int rp_lab_route(const struct rp_lab *lab, unsigned s, const uint8_t *frame, size_t len)
{
	const struct rp_lab_switch *sw = &lab->sw[s];
	if (lab->fab->topology == RP_TOPO_SINGLE || sw->spine || len < RP_ETH_HLEN || (frame[0] & 1))
		return -1;
	int local = rp_switch_fdb_lookup(sw->sw, frame);
	if (local >= 0)
		return local;
	return (int)(sw->nhost_ports + ecmp(udp_sport(frame, len), lab->fab->spines));
}
