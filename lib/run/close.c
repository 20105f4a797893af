/* A run's resources, freed in the reverse order of their making: the
 * captures (their files completed), the engine's ends, the facts, the
 * placement, the accountants and the session; the cluster last. */
#include <stdlib.h>

#include "engine.h"
#include "stats/acct.h"

void rp_run_close_captures(struct rp_run *r)
{
	for (unsigned i = 0; i < r->s.nports; i++) {
		struct rp_dp_rxport *rp = &r->rx[0].ports[r->s.tx[i].index];
		if (rp->cap) {
			char err[256];
			rp_capture_close(rp->cap, &r->cap_stats[i], err, sizeof(err));
			for (unsigned k = 0; k < r->s.nq; k++) /* its lanes */
				r->rx[k].ports[r->s.tx[i].index].cap = NULL;
		}
	}
}

void rp_run_close(struct rp_run *r)
{
	rp_run_close_captures(r);
	rp_run_nics_free(&r->nics); /* a run stopped before its facts: the sampler's thread and series */
	rp_run_switches_free(&r->switches);
	if (r->eng && r->eng->cleanup)
		r->eng->cleanup(r);
	if (r->envs != &r->own)
		rp_cluster_rank_envs_free(&r->cl, r->envs);
	r->envs = NULL;
	rp_rank_env_free(&r->own);
	free(r->unsent_by_flow);
	r->unsent_by_flow = NULL;
	free(r->rank_pclock_err);
	free(r->launch);
	free(r->offsets);
	free(r->offsets_after);
	free(r->mine);
	free(r->host_rank);
	for (unsigned k = 0; k < RP_DP_MAX_QUEUES; k++) {
		for (unsigned i = 0; i < RP_DP_MAX_PORTS; i++)
			free(r->rx[k].ports[i].hold);
		if (k > 0) /* lcore 0's is r->acct (or was, before the ranks' merge) */
			rp_acct_destroy(r->rx[k].acct);
	}
	rp_acct_destroy(r->acct);
	rp_acct_cfg_free(&r->acfg);
	free(r->flow_of);
	free((void *)r->all_flows);
	free(r->all_flow_of);
	free((void *)r->all_ports);
	free(r->acct_port);
	rp_session_close(&r->s);
	rp_cluster_finalize(&r->cl);
}
