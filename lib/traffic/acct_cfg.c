#include "acct_cfg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint8_t responder_bits(const struct rp_responder *r)
{
	return (uint8_t)((r->cnp ? RP_ACCT_REPLY_CNP : 0) | (r->ack ? RP_ACCT_REPLY_ACK : 0) |
			 (r->nak ? RP_ACCT_REPLY_NAK : 0));
}

static void flow_cfg(const struct rp_plan *plan, const struct rp_flow *f, struct rp_acct_flow_cfg *c)
{
	const struct rp_host *src = &plan->prof->hosts[f->src], *dst = &plan->prof->hosts[f->dst];
	memset(c, 0, sizeof(*c));
	c->id = f->id;
	snprintf(c->src, sizeof(c->src), "%s", src->name);
	snprintf(c->dst, sizeof(c->dst), "%s", dst->name);
	c->l3 = f->p.ip;
	c->src_ip4 = src->ipv4;
	c->dst_ip4 = dst->ipv4;
	memcpy(c->src_ip6, src->ipv6, 16);
	memcpy(c->dst_ip6, dst->ipv6, 16);
	c->lqpn = f->lqpn;
	c->rqpn = f->rqpn;
	c->qps = f->p.qps;
	c->prio = f->prio;
	c->dscp = f->p.dscp;
	c->psn_start = f->p.psn_start;
	c->reply = responder_bits(&dst->responder);
	c->cnp_dscp = dst->responder.cnp_dscp;
	c->cnp_interval_ns = dst->responder.cnp_interval_ns; /* 0 included: no limit */
	c->cnp_interval_set = true;
	c->cnp_mode = (uint8_t)dst->responder.cnp_mode;
	/* rtt: on echoes every probe; auto is the caller's (it knows the ranks). A
	 * verbs end has no DPDK responder (its completions time the round trip). */
	if (f->p.rtt == RP_RTT_ON && src->engine.engine == RP_ENGINE_DPDK && dst->engine.engine == RP_ENGINE_DPDK)
		c->echo_every = 1;
	c->dst_port = f->dst; /* the accountant's ports are the hosts, in order */
	memcpy(c->dst_mac, dst->mac, 6);
}

static bool sender_verbs(const struct rp_plan *plan, const struct rp_flow *f)
{
	return plan->prof->hosts[f->src].engine.engine == RP_ENGINE_VERBS;
}

/* Senders of both engines: a mixed run. */
static bool plan_mixed(const struct rp_plan *plan)
{
	bool seen[2] = {false, false};
	for (size_t i = 0; i < plan->nflows; i++)
		seen[sender_verbs(plan, &plan->flows[i])] = true;
	return seen[0] && seen[1];
}

size_t rp_plan_aggression(const struct rp_plan *plan, struct rp_plan_window *w, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; plan_mixed(plan) && i < plan->nflows; i++) {
		const struct rp_flow *f = &plan->flows[i];
		if (sender_verbs(plan, f))
			continue;
		size_t k = 0;
		while (k < n && w[k].traffic != f->traffic)
			k++;
		if (k == n && n == max)
			continue;
		if (k == n)
			w[n++] = (struct rp_plan_window){.traffic = f->traffic, .start_ns = f->pace.start_ns, .end_ns = f->end_ns};
		w[k].start_ns = f->pace.start_ns < w[k].start_ns ? f->pace.start_ns : w[k].start_ns;
		w[k].end_ns = f->end_ns > w[k].end_ns ? f->end_ns : w[k].end_ns;
	}
	return n;
}

int rp_acct_cfg_from_plan(const struct rp_plan *plan, struct rp_acct_cfg *cfg, uint32_t **flow_of, char *err,
			  size_t errlen)
{
	memset(cfg, 0, sizeof(*cfg));
	size_t nh = plan->prof->nhosts;
	struct rp_acct_flow_cfg *flows = calloc(plan->nflows ? plan->nflows : 1, sizeof(*flows));
	struct rp_acct_port_cfg *ports = calloc(nh ? nh : 1, sizeof(*ports));
	uint32_t *map = calloc(plan->nflows ? plan->nflows : 1, sizeof(*map));
	if (!flows || !ports || !map) {
		free(flows);
		free(ports);
		free(map);
		snprintf(err, errlen, "out of memory for %zu flows", plan->nflows);
		return -1;
	}
	size_t n = 0;
	uint64_t end = 0;
	cfg->bin_hist = plan_mixed(plan); /* the verbs flows are the workload */
	for (size_t i = 0; i < plan->nflows; i++) {
		const struct rp_flow *f = &plan->flows[i];
		if (f->kind != RP_TRAFFIC_RDMA)
			continue;
		flow_cfg(plan, f, &flows[n]);
		flows[n].bin_hist = cfg->bin_hist && sender_verbs(plan, f);
		map[n++] = f->id;
		if (f->end_ns > end)
			end = f->end_ns;
	}
	for (size_t h = 0; h < nh; h++) {
		snprintf(ports[h].node, sizeof(ports[h].node), "%s", plan->prof->hosts[h].name);
		ports[h].port = 0;
		ports[h].speed_bps = plan->prof->hosts[h].speed_bps;
	}
	cfg->flows = flows;
	cfg->nflows = n;
	cfg->ports = ports;
	cfg->nports = nh;
	cfg->run_ns = end;
	cfg->latency = true;
	cfg->flow_series = n <= RP_ACCT_FLOW_SERIES_MAX;
	if (flow_of)
		*flow_of = map;
	else
		free(map);
	return 0;
}

void rp_acct_cfg_free(struct rp_acct_cfg *cfg)
{
	free((void *)cfg->flows);
	free((void *)cfg->ports);
	memset(cfg, 0, sizeof(*cfg));
}
