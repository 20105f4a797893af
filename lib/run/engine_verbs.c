/* The verbs engine (built with rdma-core only): this rank's hosts' ends of
 * the plan's verbs flows, RC QPs on their RDMA devices (lib/verbs/engine.h),
 * accounted by the run's accountant, on rank 0's timebase. */
#include <stdio.h>
#include <stdlib.h>

#include "engine.h"
#include "stats/acct.h"
#include "verbs/device.h"
#include "verbs/engine.h"

/* ns since T0 on rank 0's timebase (this rank's clock corrected by its
 * offset), as the DPDK ranks' packet clock counts. */
static uint64_t verbs_clock(void *arg)
{
	const struct rp_run *r = arg;
	int64_t t = rp_run_corrected_ns(r) - r->t0_ns;
	return t > 0 ? (uint64_t)t : 0;
}

/* Right after the session opened, before DIR is made: a missing device
 * leaves nothing behind, as a missing port does. */
static int verbs_setup(struct rp_run *r)
{
	if (r->s.nports)
		return rp_run_fail(r, "rank %d (node %s) runs hosts of both engines (dpdk and verbs): give each engine's "
				   "hosts their own ranks (rank: or node:)", r->cl.rank, r->cl.ranks[r->cl.rank].node);
	struct rp_vengine_cfg vc = {.plan = &r->s.plan, .mine = r->cl.launched ? r->mine : NULL, .clock = verbs_clock,
				    .clock_arg = r};
	char err[RP_ERR_LEN + 128];
	return rp_vengine_create(&vc, &r->ve, err, sizeof(err)) ? rp_run_fail(r, "%s", err) : 0;
}

/* The receivers' messages go to the run's accountant. */
static int verbs_account(struct rp_run *r)
{
	size_t n = r->s.plan.nflows;
	uint32_t *acct_of = calloc(n ? n : 1, sizeof(*acct_of));
	if (!acct_of)
		return rp_run_fail(r, "out of memory");
	for (size_t i = 0; i < n; i++)
		acct_of[i] = UINT32_MAX;
	for (size_t a = 0; a < rp_acct_nflows(r->acct); a++)
		acct_of[r->flow_of[a]] = (uint32_t)a;
	rp_vengine_account(r->ve, r->acct, acct_of);
	free(acct_of); /* each end keeps its index */
	return 0;
}

/* Whether host h's rank died (the watch). */
static bool verbs_host_lost(void *arg, unsigned h)
{
	const struct rp_run *r = arg;
	return rp_cluster_rank_lost(&r->cl, r->host_rank[h]);
}

/* This rank's ends from T0 until every rank's senders are done. */
static int verbs_run(struct rp_run *r, char *err, size_t errlen)
{
	struct rp_vengine_run vr = {.stop = r->cfg.stop, .duration_ns = (uint64_t)(r->cfg.duration_s * 1e9),
				    .tx_done = &r->tx_done, .others_done = r->cl.launched ? &r->others_done : NULL,
				    .host_lost = r->cl.launched ? verbs_host_lost : NULL, .host_lost_arg = r};
	uint64_t end = 0;
	int rc = rp_vengine_run(r->ve, &vr, &end, err, errlen);
	r->tx_done = true;
	r->s.g.end_ns = end;
	return rc ? RP_RUN_USAGE : 0;
}

/* What the QPs sent: rp_acct_set_tx of every local sender end. */
static void verbs_account_tx(struct rp_run *r, uint64_t *sent)
{
	rp_vengine_finish(r->ve, r->acct);
	for (size_t a = 0; a < rp_acct_nflows(r->acct); a++) {
		struct rp_acct_flow_result x;
		rp_acct_flow(r->acct, a, &x);
		sent[a] = x.tx_packets;
	}
}

static int verbs_facts(const struct rp_run *r, struct rp_rank_env *e)
{
	return r->ve && !(e->verbs = rp_vengine_facts(r->ve)) ? -1 : 0;
}

static void verbs_cleanup(struct rp_run *r)
{
	rp_vengine_destroy(r->ve);
	r->ve = NULL;
}

const struct rp_run_engine rp_run_engine_verbs = {
	.name = "verbs",
	.setup = verbs_setup,
	.account = verbs_account,
	.run = verbs_run,
	.account_tx = verbs_account_tx,
	.facts = verbs_facts,
	.cleanup = verbs_cleanup,
};
