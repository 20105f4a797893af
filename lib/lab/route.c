/* Forwarding in the lab's fabric. A leaf sends a frame for a host on
 * another leaf up to a spine chosen by ECMP over the RoCEv2 UDP source
 * port (the entropy RoCE NICs put there); everything else the switch's
 * static MAC table decides. */
#include "lab_internal.h"
#include "wire/eth.h"
#include "wire/ipv4.h"
#include "wire/ipv6.h"

/* The UDP source port of an IPv4/IPv6 UDP frame (VLAN-tagged or not), or -1. */
static long udp_sport(const uint8_t *b, size_t len)
{
	size_t off = RP_ETH_HLEN;
	if (len < off)
		return -1;
	uint16_t et = (uint16_t)(b[12] << 8 | b[13]);
	if (et == RP_ETHERTYPE_VLAN && len >= off + RP_VLAN_HLEN) {
		et = (uint16_t)(b[16] << 8 | b[17]);
		off += RP_VLAN_HLEN;
	}
	size_t l4;
	if (et == RP_ETHERTYPE_IPV4 && len >= off + RP_IPV4_HLEN && b[off + 9] == 17)
		l4 = off + (size_t)(b[off] & 0xF) * 4;
	else if (et == RP_ETHERTYPE_IPV6 && len >= off + RP_IPV6_HLEN && b[off + 6] == 17)
		l4 = off + RP_IPV6_HLEN;
	else
		return -1;
	return len >= l4 + 2 ? (long)(b[l4] << 8 | b[l4 + 1]) : -1;
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
