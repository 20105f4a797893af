/* summary.txt's clocks (run): the flows with round trips and which latency
 * figure each shows; under a launcher, each rank's clock against rank 0's
 * before and after the run, and what that means for one-way latencies. */
#include <inttypes.h>
#include <string.h>

#include "report/result.h"
#include "report/summary.h"

#define SUMMARY_RTT_LINES 16 /* flows with round trips listed; the rest counted */

static int64_t flow_bound(const struct rp_summary *s, size_t i)
{
	const struct rp_summary_run *r = s->run;
	return r && r->flow_bound ? r->flow_bound(r->ctx, i) : 0;
}

void rp_summary_rtt(FILE *f, const struct rp_summary *s)
{
	bool head = false;
	size_t listed = 0, more = 0;
	for (size_t i = 0; i < rp_acct_nflows(s->acct); i++) {
		struct rp_acct_flow_result x;
		char why[160];
		rp_acct_flow(s->acct, i, &x);
		if (!x.echo_tx && !x.echo_rx)
			continue;
		if (listed == SUMMARY_RTT_LINES) {
			more++;
			continue;
		}
		listed++;
		if (!head)
			fprintf(f, "\nround trips (probes echoed back to the sender, on its own clock):\n%-4s %-8s %-8s %8s %8s "
				   "%10s %10s %10s  %s\n", "flow", "src", "dst", "echoed", "back", "rtt p50", "rtt p99",
				   "rtt max", "shown");
		head = true;
		const char *shown = rp_report_latency_shown(&x, flow_bound(s, i), why, sizeof(why));
		fprintf(f, "%-4u %-8s %-8s %8" PRIu64 " %8" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10" PRIu64 "  %s: %s\n",
			x.id, x.src, x.dst, x.echo_tx, x.echo_rx, x.rtt_ns.pct[0], x.rtt_ns.pct[2], x.rtt_ns.max, shown, why);
	}
	if (more)
		fprintf(f, "(%zu more flows with round trips: result.json flows[].rtt_ns, latency_shown)\n", more);
}

void rp_summary_clocks(FILE *f, const struct rp_summary *s)
{
	const struct rp_summary_run *r = s->run;
	fputs("\nclocks: offset to rank 0 before / after the run (+- bound), drift; the packet clock's\n"
	      "largest gap to the rank's corrected clock\n", f);
	int64_t worst = 0;
	for (int k = 0; k < r->nranks; k++) {
		const struct rp_summary_rank *q = &r->ranks[k];
		worst = q->clock_bound_ns > worst ? q->clock_bound_ns : worst;
		if (q->lost)
			continue;
		fprintf(f, "rank %-3d %-12s ", k, q->node);
		if (k == 0)
			fputs("(the reference)", f);
		else
			fprintf(f, "%+" PRId64 " +- %" PRId64 " ns", q->offset_ns, q->bound_ns);
		if (k && r->clocks_after)
			fprintf(f, " / %+" PRId64 " +- %" PRId64 " ns, drift %+.1f +- %.1f ns/s", q->offset_after_ns,
				q->bound_after_ns, q->drift_ppb, q->drift_bound_ppb);
		fprintf(f, "; packet clock %" PRId64 " ns\n", q->pclock_err_ns);
	}
	size_t cross = 0, below = 0, rtt = 0;
	for (size_t i = 0; i < rp_acct_nflows(s->acct); i++) {
		struct rp_acct_flow_result x;
		if (!r->cross_rank || !r->cross_rank(r->ctx, i))
			continue;
		rp_acct_flow(s->acct, i, &x);
		int64_t bound = flow_bound(s, i);
		cross++;
		below += x.latency_ns.count && x.latency_ns.pct[0] < (uint64_t)bound;
		rtt += !strcmp(rp_report_latency_shown(&x, bound, NULL, 0), "rtt");
	}
	if (cross)
		fprintf(f, "one-way latency across ranks is right within +- %" PRId64 " ns%s", 2 * worst,
			below ? "" : "\n");
	if (below)
		fprintf(f, "; %zu of %zu cross-rank flows have a p50 below their bound: their one-way latency is\n"
			   "not a measurement (flows[].latency_below_bound); %zu of them show the round trip instead%s\n",
			below, cross, rtt, rtt < below ? " (the others: set rtt: auto or on for an echo)" : "");
}
