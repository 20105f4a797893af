/* An accountant configuration (lib/stats/acct.h) from a plan: one flow per
 * RDMA flow (PFC sources are not accounted as flows), one port per host.
 * lib/stats knows nothing of plans; this adapter lives on the plan's side. */
#ifndef RP_TRAFFIC_ACCT_CFG_H
#define RP_TRAFFIC_ACCT_CFG_H

#include <stddef.h>

#include "plan.h"
#include "stats/acct.h"

/* Runs with at most this many flows keep per-flow time series
 * (cfg->flow_series: result.json timeseries.flows); they cost bins x flows
 * x 16 bytes. */
#define RP_ACCT_FLOW_SERIES_MAX 64

/* Fills cfg (flows and ports arrays allocated; free with rp_acct_cfg_free).
 * Accountant flow i is plan flow flow_of[i] (flow_of allocated too, may be
 * NULL in the call when not wanted). Each flow replies as its receiving
 * host's responder says; the port speed is the host's. start_ns / run_ns
 * come from the plan (run_ns: the latest flow end); flow_series is on when
 * there are at most RP_ACCT_FLOW_SERIES_MAX flows. A plan whose senders
 * have both engines (a mixed run: a verbs workload, DPDK aggressors) gets
 * bin_hist, its verbs flows' latencies binned as histograms (report/windows.h).
 * Returns 0, or -1 with a reason in err. */
int rp_acct_cfg_from_plan(const struct rp_plan *plan, struct rp_acct_cfg *cfg, uint32_t **flow_of, char *err,
			  size_t errlen);
void rp_acct_cfg_free(struct rp_acct_cfg *cfg);

/* A mixed plan's aggression windows (report/windows.h): one per traffic entry
 * of DPDK senders (RDMA or PFC), from its first flow's start to its last
 * flow's planned end, plan time. Returns how many went into w (at most max);
 * 0 unless the plan is mixed. */
struct rp_plan_window {
	uint16_t traffic; /* the profile's traffic entry */
	uint64_t start_ns;
	uint64_t end_ns;
};
size_t rp_plan_aggression(const struct rp_plan *plan, struct rp_plan_window *w, size_t max);

#endif
