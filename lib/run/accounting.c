/* A run's receivers: one accountant per lcore (no shared line on the
 * per-packet path) over this rank's share of the plan, each port's
 * impairments, and its capture (one lane per lcore, one file per port). */
#include <stdio.h>
#include <stdlib.h>

#include "run.h"

int rp_run_accounting(struct rp_run *r)
{
	char err[512];
	if (rp_acct_cfg_from_plan(&r->s.plan, &r->acfg, &r->flow_of, err, sizeof(err)) != 0)
		return rp_run_fail(r, "%s", err);
	r->acfg.latency = true;
	r->acfg.track_psn = true;
	rp_run_auto_echoes(r);
	r->acfg.dst_port_check = true; /* received = arrived at the destination host's port */
	r->acfg.bin_ns = r->cfg.bin_ns ? r->cfg.bin_ns : r->nrecs ? RP_RUN_VERBS_BIN_NS : 100000; /* verbs or mixed */
	if (r->cfg.duration_s > 0 && (uint64_t)(r->cfg.duration_s * 1e9) < r->acfg.run_ns)
		r->acfg.run_ns = (uint64_t)(r->cfg.duration_s * 1e9);
	/* A loaded machine runs late: bins for twice the plan and a second more,
	 * so the series holds the whole run (later events are still counted). */
	r->acfg.run_ns = 2 * (r->acfg.run_ns + RP_RUN_LINGER_NS + rp_run_max_delay(r->s.prof)) + 1000000000ull;
	if (r->cl.launched && rp_run_share_flows(r) != 0)
		return RP_RUN_USAGE;
	for (unsigned k = 0; k < r->s.nq; k++) {
		r->rx[k].acct = rp_acct_create(&r->acfg, err, sizeof(err));
		if (k == 0)
			r->acct = r->rx[0].acct; /* owned from here: rp_run_close frees it */
		if (!r->rx[k].acct)
			return rp_run_fail(r, "%s", err);
	}
	for (unsigned k = 0; k < r->s.nq; k++)
		for (unsigned i = 0; i < r->s.nports; i++) {
			unsigned h = r->s.tx[i].index;
			struct rp_dp_rxport *rp = &r->rx[k].ports[h];
			rp_impair_init(&rp->impair, &r->s.prof->hosts[h].impair);
			rp->shared = r->s.nq > 1 ? &r->rx[0].ports[h].impair : NULL; /* the link's one count */
			if (rp->impair.cfg.delay_ns && !(rp->hold = calloc(1, sizeof(*rp->hold))))
				return rp_run_fail(r, "out of memory");
		}
	for (unsigned i = 0; r->cfg.capture && i < r->s.nports; i++) {
		unsigned h = r->s.tx[i].index;
		char path[4096];
		snprintf(path, sizeof(path), "%s/capture-%s.pcap", r->cfg.out, r->s.prof->hosts[h].name);
		/* One lane per lcore, merged into the port's one file in time order. */
		struct rp_capture_cfg cc = {.path = path, .snaplen = r->cfg.snaplen, .filter = r->cfg.filter,
					    .sample_every = r->cfg.sample, .lanes = r->s.nq};
		r->rx[0].ports[h].cap = rp_capture_open(&cc, err, sizeof(err));
		if (!r->rx[0].ports[h].cap)
			return rp_run_fail(r, "%s", err);
		for (unsigned k = 1; k < r->s.nq; k++)
			r->rx[k].ports[h].cap = rp_capture_lane(r->rx[0].ports[h].cap, k);
	}
	return 0;
}
