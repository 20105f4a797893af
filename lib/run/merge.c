/* A run's accounting closed and merged (merge.h). */
#include <stdio.h>
#include <stdlib.h>

#include "engine.h"
#include "merge.h"
#include "stats/acct.h"
#include "stats/acct_pack.h"

int rp_run_merge_lcores(struct rp_run *r)
{
	int rc = 0;
	for (unsigned k = 1; k < r->s.nq; k++) {
		if (rc == 0 && rp_acct_absorb(r->acct, r->rx[k].acct) != 0)
			rc = rp_run_fail(r, "out of memory merging lcore %u's accounting", k);
		rp_acct_destroy(r->rx[k].acct);
		r->rx[k].acct = NULL;
	}
	return rc;
}

void rp_run_finish_accounting(struct rp_run *r)
{
	size_t n = rp_acct_nflows(r->acct);
	uint64_t *sent = calloc(n ? n : 1, sizeof(*sent));
	if (r->eng && r->eng->account_tx && sent)
		r->eng->account_tx(r, sent);
	if (r->cl.launched) { /* the senders' counts come from their ranks, to the receivers' */
		uint64_t end;
		int *dst_rank = calloc(n ? n : 1, sizeof(*dst_rank));
		if (!dst_rank) { /* every rank takes the same path: none may fall back alone */
			fprintf(stderr, "roceprobe run: rank %d is out of memory for %zu flows\n", r->cl.rank, n);
			rp_cluster_abort(&r->cl, RP_RUN_USAGE);
		}
		for (size_t a = 0; a < n; a++)
			dst_rank[a] = r->host_rank[r->s.plan.flows[r->flow_of[a]].dst];
		rp_cluster_acct_finish(&r->cl, r->acct, r->s.plan.nflows, dst_rank, r->s.g.end_ns, &end);
		free(dst_rank);
		r->s.g.end_ns = end;
	} else {
		rp_acct_finish(r->acct, r->s.g.end_ns, sent);
	}
	free(sent);
}

int64_t rp_run_packet_clock_err(const struct rp_rank_env *e)
{
	int64_t worst = 0;
	for (unsigned i = 0; e->present && i < 2; i++) {
		int64_t v = e->pclock_gap[i] < 0 ? -e->pclock_gap[i] : e->pclock_gap[i];
		worst = v > worst ? v : worst;
	}
	return worst;
}

void rp_run_own_flows(const struct rp_run *r, bool *own_flow)
{
	/* A flow whose receiver's rank died is its sender's rank's to ship: its
	 * accountant has the senders' combined counts (and nothing received). */
	for (size_t i = 0; i < rp_acct_nflows(r->acct); i++) {
		const struct rp_flow *pf = &r->s.plan.flows[r->flow_of[i]];
		own_flow[i] = r->mine[pf->dst] || (r->mine[pf->src] && rp_cluster_rank_lost(&r->cl, r->host_rank[pf->dst]));
	}
}

void rp_run_merged_cfg(const struct rp_run *r, struct rp_acct_cfg *mc)
{
	*mc = r->acfg;
	if (r->all_flows) { /* every flow of the plan */
		mc->flows = r->all_flows;
		mc->nflows = r->all_nflows;
	}
	if (r->all_ports) { /* every host's port */
		mc->ports = r->all_ports;
		mc->nports = r->all_nports;
	}
	/* The merged series covers what happened, not the plan's generous span: after
	 * Ctrl-C mpirun gives the ranks a second before it kills them. */
	uint64_t used = r->s.g.end_ns + RP_RUN_LINGER_NS + rp_run_max_delay(r->s.prof) + 10000000ull;
	mc->run_ns = used < mc->run_ns ? used : mc->run_ns;
	mc->results_only = true; /* rows and sparse histograms, the ports' non-zero cells: bounded (acct.h) */
}

int rp_run_merge_ranks(struct rp_run *r)
{
	char err[512], eerr[512] = "";
	int rc = rp_cluster_rank_envs(&r->cl, &r->own, &r->envs, eerr, sizeof(eerr));
	r->nenvs = r->envs ? (size_t)r->cl.size : 0;
	if (r->envs && (r->rank_pclock_err = calloc((size_t)r->cl.size, sizeof(int64_t))))
		for (int k = 0; k < r->cl.size; k++)
			r->rank_pclock_err[k] = rp_run_packet_clock_err(&r->envs[k]);
	size_t n = rp_acct_nflows(r->acct);
	bool *own_flow = calloc(n ? n : 1, sizeof(*own_flow));
	if (own_flow)
		rp_run_own_flows(r, own_flow);
	struct rp_acct_cfg mc;
	rp_run_merged_cfg(r, &mc);
	struct rp_acct *merged = r->cl.rank == 0 ? rp_acct_create(&mc, err, sizeof(err)) : NULL;
	const bool *own_port = r->all_ports ? NULL : r->mine; /* a share's ports are all its own */
	if (rp_cluster_acct_merge(&r->cl, r->acct, own_flow, own_port, merged, err, sizeof(err)) != 0)
		rc = r->cl.rank == 0 ? rp_run_fail(r, "%s", err) : RP_RUN_USAGE;
	else if (rc != 0) /* a rank's facts missing or bad */
		rc = r->cl.rank == 0 ? rp_run_fail(r, "%s", eerr) : RP_RUN_USAGE;
	free(own_flow);
	if (r->cl.rank == 0) {
		rp_acct_destroy(r->acct);
		r->acct = merged;
		if (r->all_flow_of) { /* the merged accountant's flows are the plan's */
			free(r->flow_of);
			r->flow_of = r->all_flow_of;
			r->all_flow_of = NULL;
		}
	}
	uint64_t stop = *r->cfg.stop; /* one rank interrupted: the run was */
	rp_cluster_max_u64(&r->cl, &stop, 1);
	*r->cfg.stop = (sig_atomic_t)stop;
	return rc;
}
