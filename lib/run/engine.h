/* A run's engine (DESIGN: one ops table per way of moving frames): what a
 * rank does with its hosts, step by step, without the run knowing which.
 * dpdk (engine_dpdk.c): ports polled by lcores, the packet clock, ARP/ND;
 * verbs (engine_verbs.c, built only with rdma-core): RC QPs on RDMA devices.
 * A rank runs one engine (a mixed run gives each engine's hosts their own
 * ranks). Each op may be NULL: nothing to do at that step. Errors: one line
 * in r->s.err, RP_RUN_USAGE. */
#ifndef RP_RUN_ENGINE_H
#define RP_RUN_ENGINE_H

#include <stdint.h>

#include "run.h"

struct rp_run_engine {
	const char *name;
	/* After the session's addresses, before DIR is made: this rank's ends
	 * (verbs: devices, GIDs, QPs); a missing device leaves nothing behind. */
	int (*setup)(struct rp_run *r);
	/* After the accountants: where the engine's receivers count. */
	int (*account)(struct rp_run *r);
	/* Before the ranks agree they are ready: ARP/ND and the sources (dpdk). */
	int (*prepare)(struct rp_run *r);
	/* At T0: plan time 0 (the packet clock). */
	void (*start)(struct rp_run *r);
	/* T0 until this rank's senders are done (and under a launcher every
	 * rank's: r->others_done); sets r->s.g.end_ns and r->tx_done. 0, or
	 * RP_RUN_USAGE with err (the run goes on to its result). */
	int (*run)(struct rp_run *r, char *err, size_t errlen);
	/* Right after this rank's run: what left each port. */
	void (*stop)(struct rp_run *r);
	/* Once the ranks agreed the run is over (and measured their clocks
	 * again): how far the packet clock has gone from the corrected clock. */
	void (*after)(struct rp_run *r);
	/* What the engine's senders sent, into r->acct (sent[a]: accountant
	 * flow a's packets, for a finish in one process). */
	void (*account_tx)(struct rp_run *r, uint64_t *sent);
	/* This rank's facts of the engine (verbs: hosts, QPs, NIC counters). */
	int (*facts)(const struct rp_run *r, struct rp_rank_env *e);
	void (*cleanup)(struct rp_run *r);
};

extern const struct rp_run_engine rp_run_engine_dpdk;
extern const struct rp_run_engine rp_run_engine_verbs; /* built with rdma-core only */

/* This rank's engine, chosen from its hosts (r->s.verbs_hosts), the plan's
 * QP records counted (r->nrecs), then its setup. A plan with verbs flows in
 * a build without rdma-core, or a rank with hosts of both engines: one line. */
int rp_run_engine_setup(struct rp_run *r);

#endif
