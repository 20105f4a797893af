/* The accountant's output (issue 27): the result of a run, apart from the
 * per-packet state that counted it (acct.h). rp_acct_finish produces one
 * from a live accountant; lib/report packs it for rank 0
 * (report/acct_merge.h), merges the ranks' into one, and the reports read
 * it. No receive state is in it: no sequence windows, QPs, keys or open
 * pauses; a merge target, which owns its rows, costs what a run's result
 * does (~0.95 KB a flow with 32 latency samples, not the live ~2.6 KB).
 *
 * Two kinds:
 * - an accountant's own (rp_acct_result, after rp_acct_finish): a view of
 *   the rows its flows keep in place (no copy, no memory: the flows' layout,
 *   which the per-packet path reads, stays as it was), its ports as
 *   rp_acct_port gave them at end_ns, its time series the one the run
 *   filled;
 * - a merge target (rp_acct_result_init from the plan's cfg, or a
 *   results_only accountant's, rp_acct_merged): every flow of the plan with
 *   zero counters, every port, a series that keeps the ports' cells sparse;
 *   report/acct_merge.h fills it and rp_acct_merge_done finishes it.
 * The accountant's read accessors (rp_acct_flow, rp_acct_port,
 * rp_acct_flow_latency, rp_acct_nflows, ...) read an accountant's result
 * once it has one, so a report takes either an accountant or a merged
 * result the same way. */
#ifndef RP_STATS_ACCT_RESULT_H
#define RP_STATS_ACCT_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acct.h"
#include "hist.h"
#include "shist.h"
#include "timeseries.h"

/* One flow of a merge target's result (an accountant's keeps the same parts
 * in its flows: rp_acct_result_flow & co. read either). */
struct rp_acct_row {
	struct rp_acct_flow_result r; /* result.json's fields (zero in a merge target until a rank's row is in) */
	struct rp_shist lat;          /* latency, sparse (r.latency_ns summarises it) */
	struct rp_shist rtt;          /* round trips: echoes back at the sender (r.rtt_ns) */
	uint32_t id;                  /* the plan's flow id (the cfg's: set even when r is still zero) */
	char src[RP_ACCT_NAME_MAX];   /* the cfg's host names, likewise */
	char dst[RP_ACCT_NAME_MAX];
};

/* Where a row's parts sit in an element of a result's flows: struct
 * rp_acct_row's offsets (a merge target's), or an accountant's flow's. */
struct rp_acct_row_at {
	uint32_t stride, r, lat, rtt, id, src, dst;
	bool owned;                   /* the result's own rows (a merge target's) */
};

struct rp_acct_result {
	uint64_t start_ns;            /* run start: bin 0 of the series, first_pause_ns's origin */
	uint64_t bin_ns;              /* the series' bin width */
	uint64_t end_ns;              /* the run's end (a merge: the latest rank's) */
	size_t nflows;
	void *flows;                  /* nflows elements in the accountant's (cfg's) order, at->stride
				       * bytes apart: a merge target's struct rp_acct_row (its own), or
				       * the accountant's flows; read them with rp_acct_result_flow & co. */
	const struct rp_acct_row_at *at; /* where a row's parts sit in an element */
	uint32_t *flow_of_id;         /* a flow id -> its index (UINT32_MAX: none); NULL when the ids
				       * are too sparse for a table: then no id is found (as before) */
	size_t nids;                  /* flow_of_id's length */
	size_t nports;
	struct rp_acct_port_result *ports; /* [nports], in the cfg's order */
	struct rp_ts *ts;             /* the time series (NULL: none); owned */
	struct rp_hist agg;           /* every flow's latency merged, in flow order */
	uint64_t unmatched;           /* RoCE frames of no flow (a merge: summed) */
	uint64_t unmatched_data;      /* of them data frames (one process only) */
	uint64_t flows_dropped;       /* discovery: flows it could not add */
	bool discovered;              /* flows came from the traffic (analyze): not a plan's, not shipped */
	bool finished;                /* rp_acct_finish / rp_acct_merge_done ran */
};

/* Flow i's parts. */
static inline void *rp_acct_result_at(const struct rp_acct_result *res, size_t i, uint32_t off)
{
	return (char *)res->flows + i * res->at->stride + off;
}
static inline struct rp_acct_flow_result *rp_acct_result_flow(const struct rp_acct_result *res, size_t i)
{
	return (struct rp_acct_flow_result *)rp_acct_result_at(res, i, res->at->r);
}
static inline struct rp_shist *rp_acct_result_lat(const struct rp_acct_result *res, size_t i)
{
	return (struct rp_shist *)rp_acct_result_at(res, i, res->at->lat);
}
static inline struct rp_shist *rp_acct_result_rtt(const struct rp_acct_result *res, size_t i)
{
	return (struct rp_shist *)rp_acct_result_at(res, i, res->at->rtt);
}
/* The plan's id and host names of flow i (set even while its row is zero). */
static inline uint32_t rp_acct_result_id(const struct rp_acct_result *res, size_t i)
{
	return *(const uint32_t *)rp_acct_result_at(res, i, res->at->id);
}
static inline const char *rp_acct_result_src(const struct rp_acct_result *res, size_t i)
{
	return (const char *)rp_acct_result_at(res, i, res->at->src);
}
static inline const char *rp_acct_result_dst(const struct rp_acct_result *res, size_t i)
{
	return (const char *)rp_acct_result_at(res, i, res->at->dst);
}

/* A merge target shaped by cfg: its flows (ids, names; counters zero), its
 * ports (node, port, speed), a series of start_ns, run_ns, bin_ns,
 * flow_series and bin_hist whose port cells are sparse. 0, or -1 with a
 * reason in err (res then holds nothing to free). cfg->discover is refused. */
int rp_acct_result_init(struct rp_acct_result *res, const struct rp_acct_cfg *cfg, char *err, size_t errlen);
/* Frees what res holds (its rows' histograms, its series); res is then empty. */
void rp_acct_result_free(struct rp_acct_result *res);
/* The index of flow id, or -1. */
long rp_acct_result_index(const struct rp_acct_result *res, uint32_t id);

/* An accountant's result, after rp_acct_finish (NULL before, or when memory
 * for its ports ran out at the finish: its getters then read the live ports). A
 * results_only accountant's once rp_acct_merge_done has run. Valid until
 * rp_acct_destroy. */
const struct rp_acct_result *rp_acct_result(const struct rp_acct *a);
/* A results_only accountant's result, for the merge to fill (NULL for any
 * other accountant). */
struct rp_acct_result *rp_acct_merged(struct rp_acct *a);

#endif
