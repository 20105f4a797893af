#include "result.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const pct_names[RP_PCT_COUNT] = {"p50", "p90", "p99", "p999", "p9999", "p99999"};

static json_t *jint(uint64_t v) { return json_integer((json_int_t)v); }

/* Without a sample (no probe carried a timestamp: message_size 0, every
 * probe lost, analyze without --latency) there is no latency: every figure
 * but count is null, never a measured-looking 0. The histogram's buckets
 * from h, or from its sparse form sh. */
static void latency_write(struct rp_jw *w, const char *key, const struct rp_hist_summary *s, const struct rp_hist *h,
			  const struct rp_shist *sh)
{
	bool have = s->count > 0;
	rp_jw_obj(w, key);
	rp_jw_int(w, "count", (int64_t)s->count);
	have ? rp_jw_int(w, "min", (int64_t)s->min) : rp_jw_null(w, "min");
	have ? rp_jw_real(w, "mean", s->mean) : rp_jw_null(w, "mean");
	have ? rp_jw_real(w, "stdev", s->stdev) : rp_jw_null(w, "stdev");
	for (unsigned i = 0; i < RP_PCT_COUNT; i++)
		have ? rp_jw_int(w, pct_names[i], (int64_t)s->pct[i]) : rp_jw_null(w, pct_names[i]);
	have ? rp_jw_int(w, "max", (int64_t)s->max) : rp_jw_null(w, "max");
	rp_jw_arr(w, "histogram");
	size_t pos = 0;
	uint64_t up, cnt;
	while (h ? rp_hist_next(h, &pos, &up, &cnt) : rp_shist_next(sh, &pos, &up, &cnt)) {
		rp_jw_arr(w, NULL);
		rp_jw_int(w, NULL, (int64_t)up);
		rp_jw_int(w, NULL, (int64_t)cnt);
		rp_jw_end(w);
	}
	rp_jw_end(w);
	rp_jw_end(w);
}

const char *rp_report_ns_cell(char buf[RP_REPORT_CELL], uint64_t count, uint64_t ns)
{
	if (!count)
		return "-";
	snprintf(buf, RP_REPORT_CELL, "%llu", (unsigned long long)ns);
	return buf;
}

static void latency_tree(struct rp_jw *w, void *h, size_t i)
{
	(void)i;
	struct rp_hist_summary s;
	rp_hist_summarize(h, &s);
	latency_write(w, NULL, &s, h, NULL);
}

json_t *rp_report_latency(const struct rp_hist *h)
{
	struct rp_hist empty;
	if (!h) {
		rp_hist_init(&empty);
		h = &empty;
	}
	return rp_jw_tree(latency_tree, (void *)h, 0);
}

/* A flow's members up to its latency (h, or sparse sh). */
static void flow_members(struct rp_jw *w, const struct rp_acct_flow_result *r, const struct rp_hist *h,
			 const struct rp_shist *sh)
{
	rp_jw_int(w, "id", r->id);
	rp_jw_str(w, "src", r->src);
	rp_jw_str(w, "dst", r->dst);
	rp_jw_int(w, "qpn", r->qpn);
	rp_jw_int(w, "dscp", r->dscp);
	rp_jw_int(w, "prio", r->prio);
	const struct {
		const char *name;
		uint64_t v;
	} counters[] = {
		{"tx_packets", r->tx_packets}, {"tx_bytes", r->tx_bytes}, {"rx_packets", r->rx_packets},
		{"rx_bytes", r->rx_bytes},     {"lost", r->lost},         {"reordered", r->reordered},
		{"duplicates", r->duplicates}, {"ce", r->ce},             {"cnp_tx", r->cnp_tx},
		{"cnp_rx", r->cnp_rx},         {"acks", r->acks},         {"naks", r->naks},
		{"misdelivered", r->misdelivered}, {"clock_skew", r->clock_skew},
		{"icrc_bad", r->icrc_bad},
	};
	for (size_t i = 0; i < sizeof(counters) / sizeof(counters[0]); i++)
		rp_jw_int(w, counters[i].name, (int64_t)counters[i].v);
	rp_jw_real(w, "goodput_gbps", r->goodput_gbps);
	rp_jw_int(w, "active_ns", (int64_t)r->active_ns);
	rp_jw_real(w, "goodput_active_gbps", r->goodput_active_gbps);
	latency_write(w, "latency_ns", &r->latency_ns, h, sh);
}

struct flow_full {
	const struct rp_acct_flow_result *r;
	const struct rp_hist *lat;
};

static void flow_full_write(struct rp_jw *w, void *ctx, size_t i)
{
	(void)i;
	const struct flow_full *f = ctx;
	struct rp_hist empty;
	const struct rp_hist *h = f->lat;
	if (!h) {
		rp_hist_init(&empty);
		h = &empty;
	}
	struct rp_acct_flow_result r = *f->r;
	rp_hist_summarize(h, &r.latency_ns); /* the figures of the histogram given, as rp_report_latency */
	rp_jw_obj(w, NULL);
	flow_members(w, &r, h, NULL);
	rp_jw_end(w);
}

json_t *rp_report_flow(const struct rp_acct_flow_result *r, const struct rp_hist *lat)
{
	struct flow_full f = {r, lat};
	return rp_jw_tree(flow_full_write, &f, 0);
}

void rp_report_flow_members(struct rp_jw *w, const struct rp_acct *a, size_t i)
{
	struct rp_acct_flow_result r;
	rp_acct_flow(a, i, &r);
	const struct rp_shist *sh = rp_acct_flow_latency_sparse(a, i);
	rp_shist_summarize(sh, &r.latency_ns);
	flow_members(w, &r, NULL, sh);
	/* Round trips (probes echoed back to the sender, docs/results.md): only
	 * where the receiver echoed or the sender got echoes. */
	if (r.echo_tx || r.echo_rx) {
		rp_jw_int(w, "echo_tx", (int64_t)r.echo_tx);
		rp_jw_int(w, "echo_rx", (int64_t)r.echo_rx);
		latency_write(w, "rtt_ns", &r.rtt_ns, rp_acct_flow_rtt(a, i), NULL);
	}
}

static void flow_item_write(struct rp_jw *w, void *acct, size_t i)
{
	rp_jw_obj(w, NULL);
	rp_report_flow_members(w, acct, i);
	rp_jw_end(w);
}

json_t *rp_report_flow_item(void *acct, size_t i)
{
	return rp_jw_tree(flow_item_write, acct, i);
}

const char *rp_report_latency_shown(const struct rp_acct_flow_result *r, int64_t bound_ns, char *why, size_t len)
{
	char tmp[8];
	if (!why)
		why = tmp, len = sizeof(tmp);
	bool below = r->latency_ns.count && bound_ns > 0 && r->latency_ns.pct[0] < (uint64_t)bound_ns;
	if (r->latency_ns.count && !below) {
		if (bound_ns > 0)
			snprintf(why, len, "one-way p50 %llu ns, above its clock bound %lld ns",
				 (unsigned long long)r->latency_ns.pct[0], (long long)bound_ns);
		else
			snprintf(why, len, "one-way p50 %llu ns, sender and receiver on one clock",
				 (unsigned long long)r->latency_ns.pct[0]);
		return "one-way";
	}
	if (below)
		snprintf(why, len, "one-way p50 %llu ns is below its clock bound %lld ns: not a measurement",
			 (unsigned long long)r->latency_ns.pct[0], (long long)bound_ns);
	else
		snprintf(why, len, "no one-way sample (%llu probes stamped after they arrived)",
			 (unsigned long long)r->clock_skew);
	return r->rtt_ns.count ? "rtt" : "none";
}

json_t *rp_report_flows(const struct rp_acct *a)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < rp_acct_nflows(a); i++) {
		json_array_append_new(arr, rp_report_flow_item((void *)a, i));
	}
	return arr;
}

static json_t *prio_json(const struct rp_acct_prio_result *p)
{
	json_t *o = json_object();
	json_object_set_new(o, "prio", jint(p->prio));
	json_object_set_new(o, "pfc_rx", jint(p->pfc_rx));
	json_object_set_new(o, "pfc_tx", jint(p->pfc_tx));
	json_object_set_new(o, "paused_ns", jint(p->paused_ns));
	json_object_set_new(o, "xoff_to_xon", jint(p->xoff_to_xon));
	json_object_set_new(o, "first_pause_ns", p->paused_ever ? jint(p->first_pause_ns) : json_null());
	json_object_set_new(o, "drops", jint(p->drops));
	json_object_set_new(o, "ecn_marked", jint(p->ecn_marked));
	json_object_set_new(o, "quanta", jint(p->quanta));
	return o;
}

json_t *rp_report_ports(const struct rp_acct *a)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < rp_acct_nports(a); i++) {
		struct rp_acct_port_result p;
		rp_acct_port(a, i, &p);
		json_t *prios = json_array();
		for (unsigned q = 0; q < 8; q++)
			json_array_append_new(prios, prio_json(&p.prio[q]));
		json_array_append_new(arr, json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o}", "node",
						     p.node, "port", (json_int_t)p.port, "speed_bps",
						     (json_int_t)p.speed_bps, "rx_frames", (json_int_t)p.rx_frames,
						     "rx_bytes", (json_int_t)p.rx_bytes, "pfc_frames",
						     (json_int_t)p.pfc_frames, "pause_frames", (json_int_t)p.pause_frames,
						     "misdelivered", (json_int_t)p.misdelivered, "misdelivered_bytes",
						     (json_int_t)p.misdelivered_bytes, "icrc_bad", (json_int_t)p.icrc_bad,
						     "echo_frames", (json_int_t)p.class_frames[RP_RX_ECHO], "prio", prios));
	}
	return arr;
}

static json_t *lat_series(const struct rp_ts *t, size_t n)
{
	static const char *const pct_names[RP_TS_PCTS] = {"p50", "p90", "p99", "p999"};
	json_t *cnt = json_array(), *mn = json_array(), *mean = json_array(), *sd = json_array(), *mx = json_array();
	json_t *pct[RP_TS_PCTS];
	for (int k = 0; k < RP_TS_PCTS; k++)
		pct[k] = json_array();
	for (size_t b = 0; b < n; b++) {
		const struct rp_ts_bin *x = rp_ts_get(t, b);
		for (int k = 0; k < RP_TS_PCTS; k++)
			json_array_append_new(pct[k], jint(x->lat_pct[k]));
		json_array_append_new(cnt, jint(x->lat_count));
		json_array_append_new(mn, jint(x->lat_count ? x->lat_min : 0));
		json_array_append_new(mean, json_real((double)rp_sums_mean(&x->lat_sums, x->lat_count)));
		json_array_append_new(sd, json_real(rp_sums_stdev(&x->lat_sums, x->lat_count)));
		json_array_append_new(mx, jint(x->lat_max));
	}
	json_t *o = json_pack("{s:o, s:o, s:o, s:o, s:o}", "count", cnt, "min", mn, "mean", mean, "stdev", sd, "max", mx);
	for (int k = 0; k < RP_TS_PCTS; k++)
		json_object_set_new(o, pct_names[k], pct[k]);
	return o;
}

/* Port p's entry of "timeseries.ports": its priorities with PFC activity. */
static json_t *port_series_one(const struct rp_acct *a, const struct rp_ts *t, size_t n, size_t p)
{
	struct rp_acct_port_result pr;
	rp_acct_port(a, p, &pr);
	json_t *prios = json_array();
	for (unsigned q = 0; q < 8; q++) {
		if (!rp_ts_port_used(t, p, q)) /* a merged series knows without a walk of its bins */
			continue;
		json_t *pfc = json_array(), *paused = json_array();
		uint64_t any = 0;
		for (size_t b = 0; b < n; b++) {
			uint64_t f = rp_ts_pfc_frames(t, b, p, q), ns = rp_ts_paused_ns(t, b, p, q);
			any |= f | ns;
			json_array_append_new(pfc, jint(f));
			json_array_append_new(paused, jint(ns));
		}
		if (any)
			json_array_append_new(prios, json_pack("{s:I, s:o, s:o}", "prio", (json_int_t)q, "pfc", pfc,
							       "paused_ns", paused));
		else {
			json_decref(pfc);
			json_decref(paused);
		}
	}
	return json_pack("{s:s, s:I, s:o}", "node", pr.node, "port", (json_int_t)pr.port, "prio", prios);
}

static json_t *port_series(const struct rp_acct *a, const struct rp_ts *t, size_t n)
{
	json_t *arr = json_array();
	for (size_t p = 0; p < rp_acct_nports(a); p++)
		json_array_append_new(arr, port_series_one(a, t, n, p));
	return arr;
}

json_t *rp_report_port_series_item(void *acct, size_t p)
{
	const struct rp_acct *a = acct;
	const struct rp_ts *t = rp_acct_timeseries(a);
	return port_series_one(a, t, rp_ts_used_bins(t), p);
}

static json_t *flow_series(const struct rp_acct *a, const struct rp_ts *t, size_t n)
{
	json_t *arr = json_array();
	for (size_t f = 0; t->flow_pkts && f < t->cfg.nflows; f++) {
		struct rp_acct_flow_result r;
		rp_acct_flow(a, f, &r);
		json_t *pk = json_array(), *by = json_array();
		for (size_t b = 0; b < n; b++) {
			json_array_append_new(pk, jint(t->flow_pkts[b * t->cfg.nflows + f]));
			json_array_append_new(by, jint(t->flow_bytes[b * t->cfg.nflows + f]));
		}
		json_array_append_new(arr, json_pack("{s:I, s:o, s:o}", "id", (json_int_t)r.id, "rx_packets", pk,
						     "rx_bytes", by));
	}
	return arr;
}

static json_t *timeseries(const struct rp_acct *a, json_t **ports_apart);

json_t *rp_report_timeseries(const struct rp_acct *a)
{
	return timeseries(a, NULL);
}

json_t *rp_report_timeseries_apart(const struct rp_acct *a, json_t **ports)
{
	return timeseries(a, ports);
}

static json_t *timeseries(const struct rp_acct *a, json_t **ports_apart)
{
	const struct rp_ts *t = rp_acct_timeseries(a);
	size_t n = rp_ts_used_bins(t);
	json_t *o = json_object();
	json_object_set_new(o, "bin_ns", jint(t->cfg.bin_ns));
	json_object_set_new(o, "start_ns", jint(t->cfg.start_ns));
	json_object_set_new(o, "bins", jint(n));
	json_object_set_new(o, "outside", jint(t->outside));
	for (unsigned c = 0; c < RP_TS_COUNTERS; c++) {
		json_t *arr = json_array();
		for (size_t b = 0; b < n; b++)
			json_array_append_new(arr, jint(rp_ts_get(t, b)->c[c]));
		json_object_set_new(o, rp_ts_counter_names[c], arr);
	}
	json_object_set_new(o, "latency_ns", lat_series(t, n));
	if (ports_apart)
		json_object_set_new(o, "ports", *ports_apart = json_array());
	else
		json_object_set_new(o, "ports", port_series(a, t, n));
	if (t->flow_pkts)
		json_object_set_new(o, "flows", flow_series(a, t, n));
	return o;
}

/* The writers are lib/report/doc.c's; these names stay for their callers. */
int rp_report_write_atomic(const char *path, json_t *root, char *err, size_t errlen)
{
	return rp_doc_write(path, root, NULL, 0, err, errlen);
}

int rp_report_write_jsonl(const char *path, const struct rp_report_stream *s, char *err, size_t errlen)
{
	return rp_doc_write_lines(path, s, err, errlen);
}

int rp_report_write_atomic_streams(const char *path, json_t *root, const struct rp_report_stream *s, size_t ns,
				   char *err, size_t errlen)
{
	return rp_doc_write(path, root, s, ns, err, errlen);
}
