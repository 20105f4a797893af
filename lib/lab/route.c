/* Forwarding in the lab's fabric, at every tier the same rule: a frame for a
 * host below this switch goes down the one port toward it; any other goes
 * up, to the uplink ECMP picks from the RoCEv2 UDP source port (the entropy
 * RoCE NICs put there) hashed with the switch's own seed, as real switches
 * seed theirs apart so that tiers do not all choose alike. MAC control and
 * frames for no host are left to the switch (it consumes PFC/PAUSE, drops
 * the rest as no-route). */
#include "lab_internal.h"
#include "wire/classify.h"

/* The UDP source port of an IPv4/IPv6 UDP frame (one 802.1Q tag or none), or -1. */
static long udp_sport(const uint8_t *b, size_t len)
{
	size_t udp = rp_cls_udp(b, len);
	return udp ? (long)rp_get_be16(b + udp) : -1;
}

/* A 64-bit mix (murmur3's finaliser) of the port and the switch's seed, so
 * neighbouring ports spread and two switches' choices are independent. */
static unsigned ecmp(long sport, uint64_t seed, unsigned n)
{
	uint64_t z = (uint64_t)(sport < 0 ? 0 : sport) ^ seed;
	z = (z ^ (z >> 33)) * 0xFF51AFD7ED558CCDull;
	z = (z ^ (z >> 33)) * 0xC4CEB9FE1A85EC53ull;
	z ^= z >> 33;
	return (unsigned)((z >> 16) % n);
}

/* Whether host h's leaf is below switch s. */
static bool below(const struct rp_lab *lab, const struct rp_lab_switch *s, const struct rp_lab_host *h)
{
	switch (s->tier) {
	case RP_TIER_LEAF:
		return h->sw == (unsigned)(s - lab->sw);
	case RP_TIER_MID: /* a spine reaches every leaf; an agg its pod's */
		return lab->fab->topology != RP_TOPO_FAT_TREE || lab->sw[h->sw].pod == s->pod;
	default:
		return true;
	}
}

int rp_lab_route(const struct rp_lab *lab, unsigned s, const uint8_t *frame, size_t len)
{
	const struct rp_lab_switch *sw = &lab->sw[s];
	if (len < RP_ETH_HLEN || (frame[0] & 1))
		return -1;
	int hi = rp_lab_host_by_mac(lab, frame);
	if (hi < 0)
		return -1;
	const struct rp_lab_host *h = &lab->hosts[hi];
	if (below(lab, sw, h))
		return sw->tier == RP_TIER_LEAF ? (int)h->sw_port : (int)((h->sw / sw->down_div) % sw->down_mod);
	if (!sw->nup)
		return -1;
	return (int)(sw->up0 + ecmp(udp_sport(frame, len), sw->ecmp_seed, sw->nup));
}
