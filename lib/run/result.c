/* result.json's run pieces (docs/results.md), handed to lib/report's one
 * builder (report/result_doc.h): the run's kind, environment, flows with
 * their cross-rank latency bounds and lost sides, ports, hosts, verbs, a
 * mixed run's aggression, the cluster. */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report/env_json.h"
#include "report/flowset.h"
#include "report/pairs.h"
#include "report/pause_order.h"
#include "report/rank_nics.h"
#include "report/result.h"
#include "report/result_doc.h"
#include "report/windows.h"
#include "stats/acct.h"
#include "traffic/expect.h"
#include "wire/eth.h"
#include "wire/ipv4.h"
#include "wire/ipv6.h"

int rp_run_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (err && errlen)
		vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return RP_RUN_USAGE;
}

/* Every flow's sender has engine: verbs. */
static bool all_verbs(const struct rp_session *s)
{
	for (size_t i = 0; i < s->plan.nflows; i++)
		if (s->prof->hosts[s->plan.flows[i].src].engine.engine != RP_ENGINE_VERBS)
			return false;
	return s->plan.nflows > 0;
}


/* result.json's "verbs" (docs/results.md): every verbs host with its rank,
 * device, GID and NIC counters, and one row per QP of every verbs flow, its
 * sender's half and its receiver's half (from two ranks) joined. */
static json_t *verbs_json(const struct rp_run *r)
{
	return rp_env_verbs_json(r->envs, r->nenvs);
}

/* Every rank's ports. */
static json_t *all_ports_env(const struct rp_run *r)
{
	return rp_env_ports_json(r->envs, r->nenvs);
}

/* result.json's "cluster": the launch, and per rank its node, hosts, clock
 * offset to rank 0 with its bound, and how late it started. */
static json_t *cluster_json(const struct rp_run *r)
{
	json_t *ranks = json_array();
	int64_t worst = 0;
	for (int k = 0; r->envs && k < r->cl.size && (size_t)k < r->nenvs; k++) {
		json_t *e;
		if (!r->envs[k].present || rp_cluster_rank_lost(&r->cl, k)) { /* died mid-run: what rank 0 knows of it */
			json_t *hosts = json_array();
			for (size_t h = 0; h < r->s.prof->nhosts; h++)
				if (r->host_rank[h] == k)
					json_array_append_new(hosts, json_string(r->s.prof->hosts[h].name));
			e = json_pack("{s:i, s:s, s:o, s:b}", "rank", k, "node", r->cl.ranks[k].node, "hosts", hosts, "lost",
				      1);
		} else {
			e = rp_env_rank_json(&r->envs[k]);
		}
		if (r->clocks_after) {
			const struct rp_clock_offset *b = &r->offsets[k], *a = &r->offsets_after[k];
			json_object_set_new(e, "clock_offset_after_ns", json_integer(a->offset_ns));
			json_object_set_new(e, "clock_bound_after_ns", json_integer(a->bound_ns));
			json_object_set_new(e, "clock_drift_ppb", json_real(rp_clock_drift_ppb(b, a)));
			json_object_set_new(e, "clock_drift_bound_ppb", json_real(rp_clock_drift_bound_ppb(b, a)));
		}
		int64_t b = rp_run_rank_clock_bound(r, k);
		worst = b > worst ? b : worst;
		json_array_append_new(ranks, e);
	}
	/* Every rank's packet clock counts from T0 on its corrected clock (however late it
	 * woke): a one-way latency between two ranks is off by at most both ranks' errors. */
	json_t *c = json_pack("{s:s, s:i, s:I, s:I, s:o}", "launcher", r->cl.launcher, "size", r->cl.size, "start_ns",
			      (json_int_t)r->t0_ns, "latency_bound_ns", (json_int_t)(2 * worst), "ranks", ranks);
	/* Connections to rank 0's watch closed during set-up without being a rank. */
	json_object_set_new(c, "watch_refused", json_integer(rp_cluster_watch_refused(&r->cl)));
	if (r->lost) /* when rank 0 saw the first death, after T0 on its clock */
		json_object_set_new(c, "lost_at_ns", json_integer(rp_cluster_fault_ns(&r->cl) - r->t0_ns));
	return c;
}

/* Every rank's captures, each on its own machine; null without --capture. */
static json_t *capture_json(const struct rp_run *r)
{
	return r->cfg.capture ? rp_env_captures_json(r->envs, r->nenvs) : json_null();
}

/* result.json's "hosts": every host's addresses as the run used them, the
 * ones its rank read at start (mac: auto, ipv4/ipv6: netdev) included. */
static json_t *hosts_json(const struct rp_run *r)
{
	json_t *arr = json_array();
	const struct rp_profile *p = r->s.prof;
	for (size_t h = 0; h < p->nhosts; h++) {
		const struct rp_host *H = &p->hosts[h];
		char mac[18], ip4[16], ip6[46];
		rp_mac_format(H->mac, mac);
		rp_ipv4_addr_format(H->ipv4, ip4);
		rp_ipv6_addr_format(H->ipv6, ip6);
		int rank = r->cl.launched ? r->host_rank[h] : 0;
		json_t *o = json_pack("{s:s, s:i, s:s, s:s?, s:s?, s:s, s:s?, s:o, s:s?, s:o, s:s}", "name", H->name, "rank",
				      rank, "node", r->cl.ranks[rank].node, "port", H->port[0] ? H->port : NULL, "mac",
				      H->mac_known ? mac : NULL, "mac_from", H->mac_auto ? "port" : "profile", "ipv4",
				      H->has_ipv4 ? ip4 : NULL, "ipv4_prefix",
				      H->has_ipv4 && H->ipv4_plen != RP_PLEN_NONE ? json_integer(H->ipv4_plen) : json_null(),
				      "ipv6", H->has_ipv6 ? ip6 : NULL, "ipv6_prefix",
				      H->has_ipv6 && H->ipv6_plen != RP_PLEN_NONE ? json_integer(H->ipv6_plen) : json_null(),
				      "ip_from", H->ipv4_netdev || H->ipv6_netdev ? "netdev" : "profile");
		/* a NIC of a host of several (nics:): which host, which NIC, as plan --json says */
		json_object_set_new(o, "host", json_string(p->servers[H->server].name));
		json_object_set_new(o, "nic", json_integer(H->nic));
		json_array_append_new(arr, o);
	}
	return arr;
}

/* Which side of plan flow f ran on a rank that died: "sender", "receiver",
 * "both", or NULL. */
const char *rp_run_lost_side(const struct rp_run *r, uint32_t f)
{
	const struct rp_flow *pf = &r->s.plan.flows[f];
	bool s = rp_cluster_rank_lost(&r->cl, r->host_rank[pf->src]);
	bool d = rp_cluster_rank_lost(&r->cl, r->host_rank[pf->dst]);
	return s && d ? "both" : s ? "sender" : d ? "receiver" : NULL;
}

/* flows[].latency_clock: the clock that stamped each side of flow i's
 * latencies (the sender's TSC packet clock; the receiving port's RX clock,
 * environment.ports[].rx_clock) and the bound of their difference: the RX
 * stamps' mapping and, across ranks, both clocks' errors. A verbs flow's
 * sides are the hosts' system clocks. */
static json_t *latency_clock(const struct rp_run *r, size_t i)
{
	const struct rp_flow *pf = &r->s.plan.flows[r->flow_of[i]];
	const char *dst = r->s.prof->hosts[pf->dst].name;
	const struct rp_env_port *port = NULL;
	for (size_t k = 0; !port && r->envs && k < r->nenvs; k++)
		for (uint32_t j = 0; j < r->envs[k].nports; j++)
			if (r->envs[k].ports[j].node && !strcmp(r->envs[k].ports[j].node, dst))
				port = &r->envs[k].ports[j];
	int64_t bound = rp_run_flow_clock_bound(r, i) + (port ? (int64_t)port->rx_clock_bound_ns : 0);
	return json_pack("{s:s, s:s, s:I}", "tx", port ? "tsc" : "host", "rx",
			 port && port->rx_clock ? port->rx_clock : port ? "poll" : "host", "bound_ns", (json_int_t)bound);
}

/* Flow i of result.json (written a flow at a time: rp_report_stream); after
 * a rank died, each flow of its hosts says which side is missing, and its
 * loss is unknown (null). */
static json_t *flow_item(void *ctx, size_t i)
{
	const struct rp_run *r = ctx;
	json_t *f = rp_report_flow_item(r->acct, i);
	struct rp_acct_flow_result x;
	rp_acct_flow(r->acct, i, &x);
	json_object_set_new(f, "latency_shown", json_string(rp_report_latency_shown(&x, rp_run_flow_clock_bound(r, i), NULL, 0)));
	json_object_set_new(f, "latency_clock", latency_clock(r, i));
	json_object_set_new(f, "tx_unsent",
			    json_integer(r->unsent_by_flow ? (json_int_t)r->unsent_by_flow[r->flow_of[i]] : 0));
	const struct rp_flow *pf = &r->s.plan.flows[r->flow_of[i]];
	if (r->cl.launched && r->host_rank[pf->src] != r->host_rank[pf->dst]) {
		/* Across ranks the one-way latency carries both clocks' errors; below that it
		 * says nothing, and the round trip (rtt_ns, echoes) is the figure to read. */
		int64_t bound = rp_run_flow_clock_bound(r, i);
		json_t *lat = json_object_get(f, "latency_ns");
		json_int_t p50 = json_integer_value(json_object_get(lat, "p50"));
		json_object_set_new(f, "latency_bound_ns", json_integer(bound));
		json_object_set_new(f, "latency_below_bound",
				    json_boolean(json_integer_value(json_object_get(lat, "count")) > 0 && p50 < bound));
	}
	const char *side = r->lost ? rp_run_lost_side(r, r->flow_of[i]) : NULL;
	if (side) {
		json_object_set_new(f, "incomplete", json_string(side));
		json_object_set_new(f, "lost", json_null());
	}
	return f;
}

/* Flow i's loss is unknown: a side of it ran on a rank that died
 * (report/flowset.h's flows_summary counts it as incomplete). */
static bool flow_incomplete(void *ctx, size_t i)
{
	const struct rp_run *r = ctx;
	return r->lost && rp_run_lost_side(r, r->flow_of[i]);
}

/* The ports; after a rank died, its hosts' ports (nothing measured: zeros)
 * say so. */
static json_t *ports_json(const struct rp_run *r)
{
	json_t *ports = rp_report_ports(r->acct);
	for (size_t i = 0; r->lost && i < json_array_size(ports); i++) {
		json_t *p = json_array_get(ports, i);
		const char *node = json_string_value(json_object_get(p, "node"));
		for (size_t h = 0; node && h < r->s.prof->nhosts; h++)
			if (!strcmp(r->s.prof->hosts[h].name, node) && rp_cluster_rank_lost(&r->cl, r->host_rank[h]))
				json_object_set_new(p, "incomplete", json_true());
	}
	return ports;
}

/* The hosts of the ranks that died, in profile order. */
static json_t *lost_hosts_json(const struct rp_run *r)
{
	json_t *a = json_array();
	for (size_t h = 0; h < r->s.prof->nhosts; h++)
		if (rp_cluster_rank_lost(&r->cl, r->host_rank[h]))
			json_array_append_new(a, json_string(r->s.prof->hosts[h].name));
	return a;
}

/* result.json's "aggression" (docs/cluster.md, "Mixed runs"): the windows,
 * the workload's latency during and outside them from the merged per-bin
 * histograms, and each host's pause. NULL when the run is not mixed. */
static json_t *aggression_json(const struct rp_run *r, json_t *verbs)
{
	struct rp_report_window *w;
	size_t n = rp_run_aggression_windows(r, &w);
	json_t *o = n ? rp_report_windows(r->acct, w, n) : NULL;
	if (o)
		json_object_set_new(o, "pause", rp_run_aggression_pause(r, json_object_get(verbs, "hosts"), w, n));
	free(w);
	return o;
}

/* counters.switches[]: the profile's switches in its order (rank 0's). */
static json_t *switches_json(const struct rp_run_switches *w)
{
	json_t *a = json_array();
	for (size_t i = 0; i < w->n; i++) {
		const struct rp_run_switch *s = &w->sw[i];
		json_t *ports = json_object();
		for (size_t k = 0; k < s->cfg->nports; k++)
			json_object_set_new(ports, s->cfg->ports[k].port, json_string(s->cfg->ports[k].peer));
		json_array_append_new(a, rp_switch_series_json(s->cfg->name, s->cfg->source, s->cfg->interval_ns,
								s->cfg->optional, ports, s->reason,
								s->nseries ? &s->series[0] : NULL));
	}
	return a;
}

/* result.json's keys after the measured ones: the pair matrix, hosts,
 * pause order, findings, verbs, a mixed run's aggression, the cluster. */
static int run_keys(struct rp_result_out *o, void *ctx)
{
	const struct rp_run *r = ctx;
	rp_report_doc_pairs(rp_result_doc(o), rp_result_flowset(o));
	rp_result_put(o, "hosts", hosts_json(r));
	rp_result_put(o, "pause_order", rp_report_pause_order(r->acct));
	rp_result_put(o, "findings", rp_env_findings_json(r->envs, r->nenvs));
	json_t *counters = rp_env_counters_json(r->envs, r->nenvs);
	json_object_set_new(counters, "switches", switches_json(&r->switches));
	rp_result_put(o, "counters", counters);
	if (r->nrecs) {
		json_t *v = verbs_json(r), *ag = aggression_json(r, v);
		rp_result_put(o, "verbs", v);
		if (ag)
			rp_result_put(o, "aggression", ag);
	}
	if (r->cl.launched)
		rp_result_put(o, "cluster", cluster_json(r));
	if (r->lost)
		rp_result_put(o, "incomplete", lost_hosts_json(r));
	return 0;
}

/* result.json through the one builder (report/result_doc.h), a flow, a
 * pair and a port's series at a time (a million flows are GBs as JSON).
 * Beyond RP_REPORT_FLOWS_INLINE flows the flows and the pair matrix go to
 * DIR/flows.jsonl and DIR/pairs.jsonl (written first), and result.json
 * keeps their totals, the outlying pairs, hosts, ports (report/flowset.h,
 * docs/results.md). */
int rp_run_write_result(const struct rp_run *r, const char *dir, const char *profile_path, const char *version,
			const char *dpdk, char *err, size_t errlen)
{
	size_t nf = rp_acct_nflows(r->acct);
	double *expect = rp_plan_expect_goodput(&r->s.plan, r->flow_of, nf);
	const struct rp_pairs_plan pp = {expect, rp_plan_lossless(r->s.prof)};
	const struct rp_report_flowset fs = {.acct = r->acct, .item = flow_item, .ctx = (void *)r,
					     .pairs = rp_pairs_build(r->acct, &pp), .incomplete = flow_incomplete};
	free(expect);
	if (!fs.pairs && nf)
		return rp_run_err(err, errlen, "out of memory for the pairs of %zu flows", nf);
	json_t *tports = NULL;
	struct rp_result_env env = {.version = version, .dpdk = dpdk, .started = r->started,
				    .more = json_pack("{s:o, s:o}", "ports", all_ports_env(r), "lcores",
						      rp_env_lcores_json(&r->own))};
	struct rp_result_measured m = {.elapsed_ns = r->s.g.end_ns, .interrupted = r->interrupted, .fs = &fs,
				       .ports = ports_json(r), .timeseries = rp_report_timeseries_apart(r->acct, &tports),
				       .capture = capture_json(r)};
	const struct rp_report_stream tp = {tports, rp_acct_nports(r->acct), rp_report_port_series_item, r->acct};
	m.ts_streams = &tp; /* a port at a time */
	m.nts = 1;
	struct rp_result_pieces p = {.kind = !r->nrecs ? "dpdk" : all_verbs(&r->s) ? "verbs" : "mixed",
				     .profile_name = r->s.prof->name, .profile_path = profile_path, .env = &env,
				     .measured = &m, .ext = run_keys, .ctx = (void *)r};
	int rc = rp_result_write(dir, &p, err, errlen);
	rp_pairs_free(fs.pairs);
	return rc ? RP_RUN_USAGE : 0;
}
