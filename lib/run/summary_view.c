/* summary.txt's view of a run (report/summary.h's rp_summary): the ranks'
 * clocks, the captures, a mixed run's windows and pause, what the session
 * warned of, the pair matrix; lib/report's one summary writer prints it. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report/env_json.h"
#include "report/flowset.h"
#include "report/pairs.h"
#include "report/result.h"
#include "report/summary.h"
#include "report/windows.h"
#include "stats/acct.h"
#include "traffic/expect.h"

/* summary.txt's view of the run (report/summary.h): flow i (the
 * accountant's) as the summary needs it. */
static const char *sum_lost_side(void *ctx, size_t i)
{
	const struct rp_run *r = ctx;
	return rp_run_lost_side(r, r->flow_of[i]);
}

static bool sum_cross_rank(void *ctx, size_t i)
{
	const struct rp_run *r = ctx;
	const struct rp_flow *pf = &r->s.plan.flows[r->flow_of[i]];
	return r->cl.launched && r->host_rank[pf->src] != r->host_rank[pf->dst];
}

static int64_t sum_flow_bound(void *ctx, size_t i)
{
	return rp_run_flow_clock_bound(ctx, i);
}

/* What the session printed (lib/run: rate warnings, next hops), as text the
 * summary holds; NULL when it printed nothing. */
static char *session_text(const struct rp_run *r, bool hops)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		return NULL;
	if (!hops) {
		rp_session_warn_rates(&r->s, m, "\n");
	} else {
		bool kept = false;
		for (unsigned i = 0; i < r->s.nports; i++)
			kept |= r->s.tx[i].refresh.n != 0;
		if (kept) {
			fputc('\n', m);
			rp_session_print_next_hops(&r->s, m);
		}
	}
	if (fclose(m) != 0 || !len) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* What the view points to that the run does not hold. */
struct sum_parts {
	struct rp_summary_run run;
	struct rp_summary_rank *ranks;
	const char **host_names;
	struct rp_summary_capture captures[RP_DP_MAX_PORTS];
	struct rp_report_window *windows;
	json_t *pause, *verbs;
	char *warnings, *hops;
	struct rp_pairs *pairs;
};

static void sum_parts_free(struct sum_parts *p)
{
	free(p->ranks);
	free(p->host_names);
	free(p->windows);
	json_decref(p->pause);
	json_decref(p->verbs);
	free(p->warnings);
	free(p->hops);
	rp_pairs_free(p->pairs);
}

/* Each rank's clock against rank 0's, before and after the run. */
static int sum_ranks(const struct rp_run *r, struct sum_parts *p)
{
	int n = r->cl.launched ? r->cl.size : 0;
	if (n && !(p->ranks = calloc((size_t)n, sizeof(*p->ranks))))
		return -1;
	for (int k = 0; k < n; k++) {
		const struct rp_clock_offset none = {0}, *b = r->offsets ? &r->offsets[k] : &none,
						 *a = r->offsets_after ? &r->offsets_after[k] : &none;
		p->ranks[k] = (struct rp_summary_rank){
			.node = r->cl.ranks[k].node, .lost = rp_cluster_rank_lost(&r->cl, k), .offset_ns = b->offset_ns,
			.bound_ns = b->bound_ns, .offset_after_ns = a->offset_ns, .bound_after_ns = a->bound_ns,
			.pclock_err_ns = r->rank_pclock_err ? r->rank_pclock_err[k] : 0,
			.clock_bound_ns = rp_run_rank_clock_bound(r, k)};
		if (r->clocks_after) {
			p->ranks[k].drift_ppb = rp_clock_drift_ppb(b, a);
			p->ranks[k].drift_bound_ppb = rp_clock_drift_bound_ppb(b, a);
		}
	}
	p->run.nranks = n;
	p->run.ranks = p->ranks;
	return 0;
}

/* A mixed run's windows and each host's pause (result.json's aggression.pause). */
static int sum_aggression(const struct rp_run *r, struct sum_parts *p)
{
	size_t n = rp_run_aggression_windows(r, &p->windows);
	if (!p->windows)
		return -1;
	if (!n)
		return 0;
	p->verbs = r->nrecs ? rp_env_verbs_json(r->envs, r->nenvs) : NULL;
	if (!(p->pause = rp_run_aggression_pause(r, json_object_get(p->verbs, "hosts"), p->windows, n)))
		return -1;
	p->run.windows = p->windows;
	p->run.nwindows = n;
	p->run.pause = p->pause;
	return 0;
}

static int summary_view(const struct rp_run *r, struct rp_summary *s, struct sum_parts *p)
{
	const struct rp_profile *prof = r->s.prof;
	size_t nflows = rp_acct_nflows(r->acct);
	*p = (struct sum_parts){.run = {.launched = r->cl.launched, .clocks_after = r->clocks_after,
					.nhosts = prof->nhosts, .host_rank = r->host_rank, .lost = r->lost,
					.lost_side = sum_lost_side, .cross_rank = sum_cross_rank,
					.flow_bound = sum_flow_bound, .ctx = (void *)r, .envs = r->envs,
					.nenvs = r->nenvs, .ncaptures = r->s.nports}};
	if (r->lost)
		p->run.lost_after_ns = (uint64_t)(rp_cluster_fault_ns(&r->cl) - r->t0_ns);
	if (!(p->host_names = calloc(prof->nhosts ? prof->nhosts : 1, sizeof(*p->host_names))))
		return -1;
	for (size_t h = 0; h < prof->nhosts; h++)
		p->host_names[h] = prof->hosts[h].name;
	p->run.host_names = p->host_names;
	for (unsigned i = 0; i < r->s.nports; i++)
		p->captures[i] = (struct rp_summary_capture){rp_session_host(&r->s, &r->s.tx[i]), r->cap_stats[i].offered,
							     r->cap_stats[i].written, r->cap_stats[i].dropped};
	p->run.captures = p->captures;
	if (sum_ranks(r, p) || sum_aggression(r, p))
		return -1;
	p->run.rate_warnings = p->warnings = session_text(r, false);
	p->run.next_hops = p->hops = session_text(r, true);
	double *expect = rp_plan_expect_goodput(&r->s.plan, r->flow_of, nflows);
	const struct rp_pairs_plan pp = {expect, rp_plan_lossless(prof)};
	p->pairs = nflows ? rp_pairs_build(r->acct, &pp) : NULL;
	free(expect);
	if (nflows && !p->pairs)
		return -1;
	/* Beyond RP_REPORT_FLOWS_INLINE flows the first RP_RUN_SUMMARY_FLOWS */
	*s = (struct rp_summary){.command = "run", .name = prof->name, .elapsed_ns = r->s.g.end_ns,
				 .interrupted = r->interrupted, .acct = r->acct,
				 .cols = RP_SUMMARY_REORDER | RP_SUMMARY_ACTIVE,
				 .max_flows = nflows > RP_REPORT_FLOWS_INLINE ? RP_RUN_SUMMARY_FLOWS : nflows,
				 .pairs = p->pairs, .run = &p->run};
	return 0;
}

int rp_run_write_summary(const struct rp_run *r, const char *dir, FILE *echo, char *err, size_t errlen)
{
	char path[4096], tmp[4200];
	struct rp_summary s;
	struct sum_parts parts;
	if (summary_view(r, &s, &parts)) {
		sum_parts_free(&parts);
		return rp_run_err(err, errlen, "out of memory for the summary of %zu flows", rp_acct_nflows(r->acct));
	}
	snprintf(path, sizeof(path), "%s/summary.txt", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	int rc = 0;
	if (!f)
		rc = rp_run_err(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
	if (f)
		rp_summary_write(f, &s);
	if (f && (fclose(f) != 0 || rename(tmp, path) != 0))
		rc = rp_run_err(err, errlen, "cannot write %s: %s", path, strerror(errno));
	if (rc == 0 && echo)
		rp_summary_write(echo, &s);
	sum_parts_free(&parts);
	return rc;
}
