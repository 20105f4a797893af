/* A rank's share of the plan: under a launcher its accountant holds only the
 * flows its hosts receive (accounted here) or send (their ACKs, CNPs and
 * echoes arrive here), and a DPDK rank only its own hosts' ports. At 1024
 * hosts all-to-all that is 2046 flows of 1,047,552 (docs/cluster.md,
 * "Scale"). Rank 0 merges their results into a results_only accountant of
 * all of them (merge.c). */
#include <limits.h>
#include <stdlib.h>

#include "run.h"

void rp_run_auto_echoes(struct rp_run *r)
{
	struct rp_acct_flow_cfg *fc = (struct rp_acct_flow_cfg *)r->acfg.flows;
	for (size_t i = 0; r->cl.launched && i < r->acfg.nflows; i++) {
		const struct rp_flow *pf = &r->s.plan.flows[r->flow_of[i]];
		const struct rp_host *src = &r->s.prof->hosts[pf->src], *dst = &r->s.prof->hosts[pf->dst];
		if (pf->p.rtt == RP_RTT_AUTO && r->host_rank[pf->src] != r->host_rank[pf->dst] &&
		    src->engine.engine == RP_ENGINE_DPDK && dst->engine.engine == RP_ENGINE_DPDK)
			fc[i].echo_every = RP_RTT_AUTO_EVERY;
	}
}

/* Only its own hosts' ports (each port's time series is nbins x 8
 * priorities x 16 bytes: 3.8 MB for a 3 s run, 3.9 GB for 1024 hosts): port
 * k is its k-th host; a flow it only sends has no destination port here (a
 * frame of it arriving is misdelivered, as on any port but the receiver's).
 * A verbs rank keeps every port (lib/verbs names the receiver's host). */
static int share_ports(struct rp_run *r)
{
	size_t nh = r->s.prof->nhosts, k = 0;
	if (r->verbs_here)
		return 0;
	struct rp_acct_port_cfg *mine = calloc(nh ? nh : 1, sizeof(*mine));
	r->acct_port = calloc(nh ? nh : 1, sizeof(*r->acct_port));
	if (!mine || !r->acct_port) {
		free(mine);
		return rp_run_fail(r, "out of memory for %zu ports", nh);
	}
	for (size_t h = 0; h < nh; h++) {
		r->acct_port[h] = r->mine[h] ? (unsigned)k : UINT_MAX;
		if (r->mine[h])
			mine[k++] = r->acfg.ports[h];
	}
	struct rp_acct_flow_cfg *fc = (struct rp_acct_flow_cfg *)r->acfg.flows;
	for (size_t i = 0; i < r->acfg.nflows; i++)
		fc[i].dst_port = r->acct_port[fc[i].dst_port];
	r->all_ports = r->acfg.ports;
	r->all_nports = r->acfg.nports;
	r->acfg.ports = mine;
	r->acfg.nports = k;
	for (unsigned q = 0; q < RP_DP_MAX_QUEUES; q++) /* every lcore's RX finds the host's port in its share */
		r->rx[q].acct_port = r->acct_port;
	return 0;
}

int rp_run_share_flows(struct rp_run *r)
{
	size_t n = r->acfg.nflows, k = 0;
	struct rp_acct_flow_cfg *mine = calloc(n ? n : 1, sizeof(*mine));
	uint32_t *of = calloc(n ? n : 1, sizeof(*of));
	if (!mine || !of) {
		free(mine);
		free(of);
		return rp_run_fail(r, "out of memory for %zu flows", n);
	}
	for (size_t i = 0; i < n; i++) {
		const struct rp_flow *pf = &r->s.plan.flows[r->flow_of[i]];
		if (r->mine[pf->src] || r->mine[pf->dst]) {
			mine[k] = r->acfg.flows[i];
			of[k++] = r->flow_of[i];
		}
	}
	r->all_flows = r->acfg.flows;
	r->all_nflows = n;
	r->all_flow_of = r->flow_of;
	r->acfg.flows = mine;
	r->acfg.nflows = k;
	r->flow_of = of;
	return share_ports(r);
}
