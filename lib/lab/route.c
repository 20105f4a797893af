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

#define NO_HOST (1ull << 63) /* a route key: multicast, short, or for no host */

/* The frame's host and UDP source port, the same at every hop (one Ethernet
 * segment: nothing rewrites them): read at its first switch, kept with its
 * slot for the others, which need not touch the frame. */
static uint64_t route_key(struct rp_lab *lab, uint32_t slot)
{
	uint64_t *k = &lab->pool.route[slot];
	if (*k)
		return *k;
	const uint8_t *frame = rp_pool_buf(&lab->pool, slot);
	size_t len = lab->pool.len[slot];
	int hi = len < RP_ETH_HLEN || (frame[0] & 1) ? -1 : rp_lab_host_by_mac(lab, frame);
	*k = hi < 0 ? NO_HOST : (uint64_t)(uint32_t)hi << 32 | (uint32_t)(udp_sport(frame, len) + 1);
	return *k;
}

int rp_lab_route(struct rp_lab *lab, unsigned s, uint32_t slot)
{
	const struct rp_lab_switch *sw = &lab->sw[s];
	uint64_t k = route_key(lab, slot);
	if (k & NO_HOST)
		return -1;
	int hi = (int)(k >> 32);
	if (hi < 0)
		return -1;
	const struct rp_lab_host *h = &lab->hosts[hi];
	if (below(lab, sw, h))
		return sw->tier == RP_TIER_LEAF ? (int)h->sw_port : (int)((h->sw / sw->down_div) % sw->down_mod);
	if (!sw->nup)
		return -1;
	return (int)(sw->up0 + ecmp((long)(uint32_t)k - 1, sw->ecmp_seed, sw->nup));
}
