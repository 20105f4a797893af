/* How far a one-way latency between ranks can be off: each rank's packet
 * clock against rank 0's time (docs/cluster.md, "Clocks"). */
#include "run.h"

/* Rank k: its corrected clock's error (the offset's bound, and with a
 * measurement after the run what drift can add), plus how far the packet
 * clock was from the corrected clock at its start or after the run, the
 * larger (the TSC and the system clock each run at a steady rate: the gap
 * moves in a line). */
int64_t rp_run_rank_clock_bound(const struct rp_run *r, int k)
{
	int64_t pclock = r->rank_pclock_err ? r->rank_pclock_err[k] : 0;
	if (k == 0)
		return pclock;
	return pclock +
	       (r->clocks_after ? rp_clock_run_bound_ns(&r->offsets[k], &r->offsets_after[k]) : r->offsets[k].bound_ns);
}

/* Accountant flow i: both ranks' clock errors (0 on one rank). */
int64_t rp_run_flow_clock_bound(const struct rp_run *r, size_t i)
{
	if (!r->cl.launched)
		return 0;
	const struct rp_flow *pf = &r->s.plan.flows[r->flow_of[i]];
	int a = r->host_rank[pf->src], b = r->host_rank[pf->dst];
	return a == b ? 0 : rp_run_rank_clock_bound(r, a) + rp_run_rank_clock_bound(r, b);
}
