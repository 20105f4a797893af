/* summary.txt's flows table: one row format for run and lab, a column
 * more for what only one of them knows (report/summary.h). */
#include <inttypes.h>
#include <string.h>

#include "report/flowset.h"
#include "report/result.h"
#include "report/summary.h"

/* tx, rx and lost as the row shows them: a dead rank's side was not
 * counted, so its counts and the loss are unknown, as result.json's null
 * says (never 0). */
static void counts(const struct rp_acct_flow_result *x, const char *side, char tx[24], char rx[24], char lost[24])
{
	snprintf(tx, 24, "%" PRIu64, x->tx_packets);
	snprintf(rx, 24, "%" PRIu64, x->rx_packets);
	snprintf(lost, 24, "%" PRIu64, x->lost);
	if (side) {
		snprintf(lost, 24, "unknown");
		if (strcmp(side, "receiver") != 0)
			snprintf(tx, 24, "unknown");
		if (strcmp(side, "sender") != 0)
			snprintf(rx, 24, "unknown");
	}
}

void rp_summary_flows(FILE *f, const struct rp_summary *s)
{
	const struct rp_summary_run *run = s->run;
	unsigned c = s->cols;
	fprintf(f, "%-4s %-8s %-8s %4s %10s %10s %8s", "flow", "src", "dst", "prio", "tx", "rx", "lost");
	if (c & RP_SUMMARY_IN_FLIGHT)
		fprintf(f, " %7s", "flying");
	if (c & RP_SUMMARY_REORDER)
		fprintf(f, " %6s %6s", "reord", "dup");
	fprintf(f, " %6s %6s %9s", "ce", "cnp", "Gbit/s");
	if (c & RP_SUMMARY_ACTIVE)
		fprintf(f, " %10s", "active ms");
	fprintf(f, " %10s %10s %10s\n", "p50 ns", "p99 ns", "max ns");
	size_t n = rp_acct_nflows(s->acct), listed = n < s->max_flows ? n : s->max_flows;
	for (size_t i = 0; i < listed; i++) {
		struct rp_acct_flow_result x;
		rp_acct_flow(s->acct, i, &x);
		const char *side = run && run->lost && run->lost_side ? run->lost_side(run->ctx, i) : NULL;
		char tx[24], rx[24], lost[24];
		counts(&x, side, tx, rx, lost);
		fprintf(f, "%-4u %-8s %-8s %4u %10s %10s %8s", x.id, x.src, x.dst, x.prio, tx, rx, lost);
		if (c & RP_SUMMARY_IN_FLIGHT)
			fprintf(f, " %7" PRIu64, rp_acct_flow_in_flight(s->acct, i));
		if (c & RP_SUMMARY_REORDER)
			fprintf(f, " %6" PRIu64 " %6" PRIu64, x.reordered, x.duplicates);
		fprintf(f, " %6" PRIu64 " %6" PRIu64 " %9.3f", x.ce, x.cnp_tx,
			c & RP_SUMMARY_ACTIVE ? x.goodput_active_gbps : x.goodput_gbps);
		if (c & RP_SUMMARY_ACTIVE)
			fprintf(f, " %10.3f", (double)x.active_ns / 1e6);
		char c50[RP_REPORT_CELL], c99[RP_REPORT_CELL], cmax[RP_REPORT_CELL];
		uint64_t k = x.latency_ns.count;
		fprintf(f, " %10s %10s %10s\n", rp_report_ns_cell(c50, k, x.latency_ns.pct[0]),
			rp_report_ns_cell(c99, k, x.latency_ns.pct[2]), rp_report_ns_cell(cmax, k, x.latency_ns.max));
	}
	if (listed < n && s->files_skipped && n > RP_REPORT_FLOWS_INLINE)
		fprintf(f, "... %zu more flows, not written: the stop left %s out (result.json flows_summary has their "
			"totals)\n", n - listed, RP_REPORT_FLOWS_FILE);
	else if (listed < n)
		fprintf(f, "... %zu more flows in %s (the pairs that stand out are below)\n", n - listed,
			n > RP_REPORT_FLOWS_INLINE ? RP_REPORT_FLOWS_FILE : "result.json");
	if (c & RP_SUMMARY_ACTIVE)
		fputs("(Gbit/s: unique payload over the flow's active time, its first to last frame received)\n", f);
	else /* the lab's column is goodput_gbps; its pairs sum goodput_active_gbps (docs/results.md) */
		fputs("(Gbit/s: unique payload over the whole run, idle time included; pairs: over each flow's "
		      "active time)\n", f);
}
