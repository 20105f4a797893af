/* The one text summary writer: the sections of report/summary.h in their
 * order, for run and lab. */
#include <inttypes.h>

#include "report/pause_order.h"
#include "report/summary.h"

static void title(FILE *f, const struct rp_summary *s)
{
	const struct rp_summary_lab *l = s->lab;
	const char *why = s->interrupted ? " (interrupted by a signal)"
			  : l && l->truncated ? " (stopped at fabric.max_time)"
					      : "";
	if (l)
		fprintf(f, "roceprobe %s: %s, %.3f ms virtual%s, %" PRIu64 " events, %" PRIu64 " hops, %.2f s wall\n\n",
			s->command, s->name, (double)s->elapsed_ns / 1e6, why, l->events, l->hops, l->wall_s);
	else
		fprintf(f, "roceprobe %s: %s, %.3f s%s\n\n", s->command, s->name, (double)s->elapsed_ns / 1e9, why);
}

/* The ranks that died, their hosts, and what that means for the counts. */
static void incomplete(FILE *f, const struct rp_summary_run *r)
{
	fprintf(f, "INCOMPLETE: lost %.3f s after the start:", (double)r->lost_after_ns / 1e9);
	for (int k = 0; k < r->nranks; k++)
		if (r->ranks[k].lost) {
			fprintf(f, " rank %d (node %s; hosts", k, r->ranks[k].node);
			for (size_t h = 0; h < r->nhosts; h++)
				if (r->host_rank[h] == k)
					fprintf(f, " %s", r->host_names[h]);
			fputc(')', f);
		}
	fputs("; the others stopped and counted what they had: the flows of those hosts have the\n"
	      "other side's counts only, their loss unknown (result.json: incomplete, flows[].incomplete)\n\n", f);
}

/* What left the ports, where the counts disagree: every rank's. */
static void findings(FILE *f, const struct rp_summary_run *r)
{
	bool first = true;
	for (size_t k = 0; k < r->nenvs; k++)
		for (uint32_t i = 0; r->envs[k].present && i < r->envs[k].nports; i++)
			for (uint32_t j = 0; j < r->envs[k].ports[i].nfindings; j++) {
				fprintf(f, "%sFINDING: %s\n", first ? "\n" : "", r->envs[k].ports[i].findings[j]);
				first = false;
			}
}

static void captures(FILE *f, const struct rp_summary_run *r)
{
	for (size_t i = 0; i < r->ncaptures; i++) /* the blank line comes with the first port's */
		if (r->captures[i].offered)
			fprintf(f, "%scapture-%s.pcap: %" PRIu64 " frames written, %" PRIu64 " dropped by the writer\n",
				i ? "" : "\n", r->captures[i].host, r->captures[i].written, r->captures[i].dropped);
}

static void pairs(FILE *f, const struct rp_summary *s)
{
	if (!rp_pairs_says(s->pairs))
		return;
	fputc('\n', f);
	rp_pairs_print(f, s->pairs, 10);
}

static void run_tail(FILE *f, const struct rp_summary *s)
{
	const struct rp_summary_run *r = s->run;
	rp_summary_ports(f, s);
	pairs(f, s);
	rp_report_print_pause_order(f, s->acct, 16);
	rp_summary_aggression(f, s);
	rp_summary_rtt(f, s);
	if (r->launched)
		rp_summary_clocks(f, s);
	rp_summary_misdelivered(f, s);
	findings(f, r);
	if (r->rate_warnings)
		fputs(r->rate_warnings, f);
	if (r->next_hops)
		fputs(r->next_hops, f);
	captures(f, r);
}

void rp_summary_write(FILE *f, const struct rp_summary *s)
{
	title(f, s);
	if (s->run && s->run->lost)
		incomplete(f, s->run);
	rp_summary_flows(f, s);
	if (s->run)
		run_tail(f, s);
	if (s->lab) {
		rp_summary_headline(f, s);
		rp_summary_fabric(f, s);
		rp_summary_hosts(f, s->lab);
		pairs(f, s);
	}
}
