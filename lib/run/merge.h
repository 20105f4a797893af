/* A run's accounting closed and merged (merge.c): the lcores' accountants
 * into lcore 0's, the senders' counts to the receivers' ranks, every rank's
 * share of the plan into one results_only accountant on rank 0. */
#ifndef RP_RUN_MERGE_H
#define RP_RUN_MERGE_H

#include <stdbool.h>

#include "run.h"

/* The lcores' accountants into lcore 0's, before the one finish: loss,
 * goodput and percentiles then come out as from one lcore. 0, or
 * RP_RUN_USAGE with r->s.err (the others freed all the same). */
int rp_run_merge_lcores(struct rp_run *r);
/* The accountant learns what each flow sent (the engine's senders; under a
 * launcher from every rank, to the receiver's), and is closed at the latest
 * rank's end (r->s.g.end_ns). */
void rp_run_finish_accounting(struct rp_run *r);
/* Rank 0 gets every rank's facts (r->envs) and one accountant holding every
 * rank's flows and ports: their results only (docs/cluster.md, "Scale":
 * ~0.95 KB a flow at 1024 hosts); a stop on any rank is every rank's. 0, or
 * RP_RUN_USAGE (with r->s.err on rank 0). */
int rp_run_merge_ranks(struct rp_run *r);

/* Pure, per rank: which of its accountant's flows this rank ships (it hosts
 * the receiver, or the sender of a flow whose receiver's rank died), and
 * the merged accountant's cfg (every flow and port of the plan, its series
 * over what happened, results only). */
void rp_run_own_flows(const struct rp_run *r, bool *own_flow);
void rp_run_merged_cfg(const struct rp_run *r, struct rp_acct_cfg *mc);

#endif
