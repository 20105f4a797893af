/* Traffic patterns -> flows: flow, incast, fan-out, permutation, all-to-all. */
#include <stdio.h>
#include <stdlib.h>

#include "flow_internal.h"

/* A flow from member i of the entry's hosts to member j of its hosts
 * (peer false) or peers (peer true), on the NICs rp_plan_pick_nics picks. */
static int add_pair(struct rp_plan_builder *b, uint16_t t, size_t i, bool peer, size_t j, const struct rp_flow_when *w)
{
	struct rp_flow f;
	const struct rp_profile *prof = b->plan->prof;
	const struct rp_traffic *tr = &prof->traffic[t];
	uint16_t src = tr->hosts[i], dst = peer ? tr->peers[j] : tr->hosts[j];
	rp_plan_pick_nics(b, t, &src, tr->hosts_spread[i], &dst, peer ? tr->peers_spread[j] : tr->hosts_spread[j]);
	if (rp_flow_setup_rdma(&f, prof, t, src, dst, w)) {
		snprintf(b->err, b->errlen, "traffic '%s': the rate of %s rounds to 0 bit/s", prof->traffic[t].name,
			 prof->hosts[src].name);
		return -1;
	}
	return rp_plan_add_flow(b, &f);
}

static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* Sattolo's algorithm: a random single cycle, so nobody sends to itself and
 * every host receives from exactly one other. */
void rp_plan_permutation(uint16_t *perm, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i++)
		perm[i] = (uint16_t)i;
	uint64_t st = seed;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = (size_t)(splitmix64(&st) % i);
		uint16_t tmp = perm[i];
		perm[i] = perm[j];
		perm[j] = tmp;
	}
}

static int expand_permutation(struct rp_plan_builder *b, uint16_t t, const struct rp_flow_when *w)
{
	const struct rp_traffic *tr = &b->plan->prof->traffic[t];
	uint16_t *perm = malloc(tr->nhosts * sizeof(*perm));
	int rc = 0;
	if (!perm) {
		snprintf(b->err, b->errlen, "out of memory");
		return -1;
	}
	rp_plan_permutation(perm, tr->nhosts, tr->seed);
	for (size_t i = 0; i < tr->nhosts && rc == 0; i++)
		rc = add_pair(b, t, i, false, perm[i], w);
	free(perm);
	return rc;
}

static uint64_t msg_time_ns(const struct rp_plan_builder *b, uint16_t t, uint16_t src, uint16_t dst)
{
	struct rp_flow f;
	struct rp_flow_when w = {.end_ns = UINT64_MAX};
	if (rp_flow_setup_rdma(&f, b->plan->prof, t, src, dst, &w))
		return 0;
	return f.pace.msg_ns + (f.pace.msg_rem > 0);
}

/* Phase k (1..N-1): host i sends one message to host (i + k) mod N. The
 * phase is as long as the slowest sender's message, and the N-1 phases
 * repeat every (N-1) phases until the stop condition. */
static int expand_all_to_all(struct rp_plan_builder *b, uint16_t t, const struct rp_flow_when *dflt)
{
	const struct rp_traffic *tr = &b->plan->prof->traffic[t];
	size_t n = tr->nhosts;
	uint64_t phase = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t m = msg_time_ns(b, t, tr->hosts[i], tr->hosts[(i + 1) % n]);
		if (m == 0) {
			snprintf(b->err, b->errlen, "traffic '%s': the rate of %s rounds to 0 bit/s", tr->name,
				 b->plan->prof->hosts[tr->hosts[i]].name);
			return -1;
		}
		phase = m > phase ? m : phase;
	}
	for (size_t k = 1; k < n; k++) {
		struct rp_flow_when w = *dflt;
		w.start_ns = dflt->start_ns + (k - 1) * phase;
		w.period_ns = (n - 1) * phase;
		w.on_ns = 0;
		w.burst_msgs = 1;
		w.phase = (uint16_t)k;
		struct rp_phase ph = {.traffic = t, .k = (uint16_t)k, .start_ns = w.start_ns, .len_ns = phase,
				      .period_ns = w.period_ns};
		if (rp_plan_add_phase(b, &ph))
			return -1;
		for (size_t i = 0; i < n; i++)
			if (add_pair(b, t, i, false, (i + k) % n, &w))
				return -1;
	}
	return 0;
}

size_t rp_plan_count_flows(const struct rp_profile *prof)
{
	size_t n = 0;
	for (size_t t = 0; t < prof->ntraffic; t++) {
		const struct rp_traffic *tr = &prof->traffic[t];
		if (tr->kind == RP_TRAFFIC_PFC || tr->pattern == RP_PATTERN_FLOW)
			n += 1;
		else if (tr->pattern == RP_PATTERN_FAN_OUT)
			n += tr->npeers;
		else if (tr->pattern == RP_PATTERN_ALL_TO_ALL)
			n += tr->nhosts * (tr->nhosts ? tr->nhosts - 1 : 0);
		else
			n += tr->nhosts; /* incast, permutation */
	}
	return n;
}

int rp_plan_expand(struct rp_plan_builder *b, uint16_t t)
{
	const struct rp_traffic *tr = &b->plan->prof->traffic[t];
	struct rp_flow_when w;
	rp_flow_when_default(tr, &w);
	if (tr->kind == RP_TRAFFIC_PFC) {
		struct rp_flow f;
		rp_flow_setup_pfc(&f, b->plan->prof, t);
		return rp_plan_add_flow(b, &f);
	}
	switch (tr->pattern) {
	case RP_PATTERN_FLOW:
		return add_pair(b, t, 0, true, 0, &w);
	case RP_PATTERN_INCAST:
		for (size_t i = 0; i < tr->nhosts; i++)
			if (add_pair(b, t, i, true, 0, &w))
				return -1;
		return 0;
	case RP_PATTERN_FAN_OUT:
		for (size_t i = 0; i < tr->npeers; i++)
			if (add_pair(b, t, 0, true, i, &w))
				return -1;
		return 0;
	case RP_PATTERN_PERMUTATION:
		return expand_permutation(b, t, &w);
	case RP_PATTERN_ALL_TO_ALL:
		return expand_all_to_all(b, t, &w);
	default:
		snprintf(b->err, b->errlen, "traffic '%s': unknown pattern", tr->name);
		return -1;
	}
}
