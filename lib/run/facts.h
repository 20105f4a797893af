/* This rank's facts (facts.c): what result.json says of where it ran. */
#ifndef RP_RUN_FACTS_H
#define RP_RUN_FACTS_H

#include "run.h"

/* The PMDs' pause counters before the run (the facts give their changes). */
void rp_run_snapshot_xstats(struct rp_run *r);
/* This rank's facts into e, while its ports are still open (their PMD
 * counters). 0, or -1 out of memory (free e with rp_rank_env_free either way). */
int rp_run_rank_facts(const struct rp_run *r, struct rp_rank_env *e);

#endif
