/* Which NICs a flow between hosts of several NICs uses (docs/profiles.md,
 * "Hosts with several NICs"). An end that names one NIC uses it. An end that
 * names a whole host follows the other end's NIC number r when that end is
 * one NIC of a host of several (NIC r talks to NIC r: the rail rule of
 * rail-optimised clusters, modulo its own count). Otherwise (both ends whole
 * hosts, or the other end a one-NIC host) the entry's nic_spread picks r:
 * round-robin (the source host's k-th such flow, in plan order, has r = k:
 * each NIC gets its share exactly) or hash (the flow's entry and hosts
 * hashed with the profile's qpn_seed: a fixed, seeded spread, as a bonding
 * host's per-flow hash); each whole-host end then uses its NIC r mod its
 * NIC count. */
#include "flow_internal.h"

static uint64_t mix(uint64_t z)
{
	z += 0x9E3779B97F4A7C15ull;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

void rp_plan_pick_nics(struct rp_plan_builder *b, uint16_t t, uint16_t *src, bool src_spread, uint16_t *dst,
		       bool dst_spread)
{
	const struct rp_profile *p = b->plan->prof;
	if (!src_spread && !dst_spread)
		return;
	const struct rp_host *s = &p->hosts[*src], *d = &p->hosts[*dst];
	const struct rp_server *ss = &p->servers[s->server], *ds = &p->servers[d->server];
	uint64_t r;
	if (!src_spread && ss->nnics > 1) {
		r = s->nic;
	} else if (!dst_spread && ds->nnics > 1) {
		r = d->nic;
	} else if (p->traffic[t].p.nic_spread == RP_NIC_HASH) {
		uint64_t key = (uint64_t)t << 40 ^ (uint64_t)s->server << 20 ^ d->server;
		r = mix(key ^ mix(p->qpn_seed));
	} else {
		r = b->nic_rr[s->server]++;
	}
	if (src_spread)
		*src = (uint16_t)(ss->nic0 + r % ss->nnics);
	if (dst_spread)
		*dst = (uint16_t)(ds->nic0 + r % ds->nnics);
}
