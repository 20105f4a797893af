/* Reading a result document (result.json's shape: docs/results.md): the
 * numbers the tests judge. Missing keys read as zero: a real fabric's run
 * has flows and ports but no switches. */
#include <stdio.h>
#include <string.h>

#include "cert_internal.h"

static uint64_t u(const json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
}

double rp_cert_jnum(const json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : 0.0;
}

void rp_cert_sum_flows(const json_t *res, int prio, const char *dst, struct rp_cert_flows *out)
{
	size_t i;
	json_t *f;
	memset(out, 0, sizeof(*out));
	json_array_foreach(json_object_get(res, "flows"), i, f) {
		if (prio >= 0 && (int)u(f, "prio") != prio)
			continue;
		if (dst && strcmp(json_string_value(json_object_get(f, "dst")) ?: "", dst) != 0)
			continue;
		out->tx += u(f, "tx_packets");
		out->rx += u(f, "rx_packets");
		out->lost += u(f, "lost");
		out->naks += u(f, "naks");
		out->ce += u(f, "ce");
		out->cnp_tx += u(f, "cnp_tx");
		out->cnp_rx += u(f, "cnp_rx");
		out->goodput_gbps += rp_cert_jnum(f, "goodput_gbps");
		out->n++;
	}
}

uint64_t rp_cert_host_pfc_rx(const json_t *res, const char *node, int prio)
{
	size_t i, j;
	json_t *p, *q;
	uint64_t n = 0;
	json_array_foreach(json_object_get(res, "ports"), i, p) {
		if (node && strcmp(json_string_value(json_object_get(p, "node")) ?: "", node) != 0)
			continue;
		json_array_foreach(json_object_get(p, "prio"), j, q)
			if (prio < 0 || (int)u(q, "prio") == prio)
				n += u(q, "pfc_rx");
	}
	return n;
}

/* Calls fn for every (switch, port, prio) entry. */
static void each_prio(const json_t *res, void (*fn)(const json_t *sw, const json_t *port, const json_t *prio, void *),
		      void *arg)
{
	size_t i, j, k;
	json_t *s, *p, *q;
	json_array_foreach(json_object_get(res, "switches"), i, s)
		json_array_foreach(json_object_get(s, "ports"), j, p)
			json_array_foreach(json_object_get(p, "prio"), k, q) fn(s, p, q, arg);
}

struct drops_arg {
	const char *reason;
	int prio;
	uint64_t n;
};

static void drops_fn(const json_t *sw, const json_t *port, const json_t *q, void *arg)
{
	struct drops_arg *a = arg;
	(void)sw;
	(void)port;
	if (a->prio >= 0 && (int)u(q, "prio") != a->prio)
		return;
	json_t *queue = json_object_get(q, "queue");
	if (!a->reason) {
		a->n += u(queue, "drop_pkts");
		return;
	}
	a->n += u(json_object_get(queue, "drops"), a->reason);
}

uint64_t rp_cert_sw_drops(const json_t *res, const char *reason, int prio)
{
	struct drops_arg a = {reason, prio, 0};
	each_prio(res, drops_fn, &a);
	return a.n;
}

static void xoff_fn(const json_t *sw, const json_t *port, const json_t *q, void *arg)
{
	struct drops_arg *a = arg;
	(void)sw;
	(void)port;
	if (a->prio < 0 || (int)u(q, "prio") == a->prio)
		a->n += u(json_object_get(q, "pg"), "xoff_sent");
}

uint64_t rp_cert_sw_xoff(const json_t *res, int prio)
{
	struct drops_arg a = {NULL, prio, 0};
	each_prio(res, xoff_fn, &a);
	return a.n;
}

static void enq_fn(const json_t *sw, const json_t *port, const json_t *q, void *arg)
{
	uint64_t *out = arg;
	(void)sw;
	(void)port;
	unsigned p = (unsigned)u(q, "prio");
	if (p < 8)
		out[p] += u(json_object_get(q, "queue"), "enq_pkts");
}

void rp_cert_sw_enq(const json_t *res, uint64_t out[8])
{
	memset(out, 0, 8 * sizeof(out[0]));
	each_prio(res, enq_fn, out);
}

static void first_xoff_fn(const json_t *sw, const json_t *port, const json_t *q, void *arg)
{
	uint64_t *t = arg;
	(void)sw;
	(void)port;
	json_t *v = json_object_get(json_object_get(q, "pg"), "first_xoff_ns");
	if (json_is_integer(v) && (uint64_t)json_integer_value(v) < *t)
		*t = (uint64_t)json_integer_value(v);
}

uint64_t rp_cert_first_xoff_ns(const json_t *res)
{
	uint64_t t = UINT64_MAX;
	each_prio(res, first_xoff_fn, &t);
	return t;
}

uint64_t rp_cert_first_ts_ns(const json_t *res, const char *counter)
{
	json_t *ts = json_object_get(res, "timeseries"), *v;
	size_t i;
	json_array_foreach(json_object_get(ts, counter), i, v)
		if (json_integer_value(v) > 0)
			return u(ts, "start_ns") + i * u(ts, "bin_ns");
	return UINT64_MAX;
}

struct qat_arg {
	const char *node;
	int prio;
	uint64_t bin, t, depth;
};

static void qat_fn(const json_t *sw, const json_t *port, const json_t *q, void *arg)
{
	struct qat_arg *a = arg;
	(void)sw;
	if ((int)u(q, "prio") != a->prio || strcmp(json_string_value(json_object_get(port, "peer")) ?: "", a->node) != 0)
		return;
	json_t *series = json_object_get(q, "qdepth_bytes");
	size_t i = a->bin ? (size_t)(a->t / a->bin) : 0;
	if (i < json_array_size(series)) {
		uint64_t d = (uint64_t)json_integer_value(json_array_get(series, i));
		a->depth = d > a->depth ? d : a->depth;
	}
}

uint64_t rp_cert_queue_at(const json_t *res, const char *node, int prio, uint64_t t_ns)
{
	struct qat_arg a = {node, prio, u(res, "qdepth_bin_ns"), t_ns, 0};
	if (t_ns == UINT64_MAX)
		return 0;
	each_prio(res, qat_fn, &a);
	return a.depth;
}

uint64_t rp_cert_elapsed_ns(const json_t *res)
{
	return u(res, "elapsed_ns");
}

void rp_cert_drops_line(const json_t *res, char *buf, size_t len)
{
	static const char *const reasons[] = {"headroom", "tail", "buffer", "no-route", "malformed", "nomem"};
	size_t n = 0;
	buf[0] = '\0';
	for (size_t r = 0; r < sizeof(reasons) / sizeof(reasons[0]); r++) {
		uint64_t d = rp_cert_sw_drops(res, reasons[r], -1);
		if (d && n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s %llu", n ? ", " : "", reasons[r], (unsigned long long)d);
	}
	if (!n)
		snprintf(buf, len, "none");
}

bool rp_cert_diagnose_drops(const struct rp_cert_ctx *c, struct rp_cert_t *t, const json_t *res, unsigned prio)
{
	uint64_t hr = rp_cert_sw_drops(res, "headroom", (int)prio);
	uint64_t other = rp_cert_sw_drops(res, NULL, (int)prio) - hr;
	if (hr) {
		char cfg[64] = "";
		if (c->fab.known && c->fab.nlinks)
			rp_cert_fmt_bytes(c->fab.links[0].configured, cfg, sizeof(cfg));
		rp_cert_fail(t, "headroom",
			     "%llu frames of lossless priority %u were dropped in PFC headroom: the headroom%s%s cannot "
			     "absorb what is still in flight after XOFF (cable, the NIC's response time, frames on the "
			     "wire); test 5 shows what the formula asks for",
			     (unsigned long long)hr, prio, cfg[0] ? " configured, " : "", cfg);
		return true;
	}
	if (other && (!c->fab.known || !((c->fab.pfc_mask >> prio) & 1u))) {
		rp_cert_fail(t, "pfc-off",
			     "priority %u is meant to be lossless but the switch does not run PFC on it%s: %llu frames "
			     "were dropped at its queues instead of the senders being paused",
			     prio, c->fab.known ? " (fabric.pfc.enabled is off, or the priority is not in fabric.pfc.priorities)" : "",
			     (unsigned long long)other);
		return true;
	}
	return false;
}

/* What host h offered, as a share of the line it was free to use: the frame
 * bits its flows sent over the traffic's span, against the line rate times
 * the part of the span priority p was not paused at its port. Below the
 * goodput bound a sender did not even try (a busy CPU, a slow NIC on a real
 * fabric): the fabric cannot be judged by what it delivered. */
double rp_cert_offered_share(const struct rp_cert_ctx *c, const json_t *res, const char *h, unsigned p)
{
	uint64_t span = u(res, "traffic_ns") ? u(res, "traffic_ns") : rp_cert_elapsed_ns(res), bytes = 0, paused = 0;
	size_t i, j;
	json_t *f, *q;
	json_array_foreach(json_object_get(res, "flows"), i, f)
		if (strcmp(json_string_value(json_object_get(f, "src")) ?: "", h) == 0)
			bytes += u(f, "tx_bytes");
	json_array_foreach(json_object_get(res, "ports"), i, f)
		if (strcmp(json_string_value(json_object_get(f, "node")) ?: "", h) == 0)
			json_array_foreach(json_object_get(f, "prio"), j, q)
				if (u(q, "prio") == p)
					paused += u(q, "paused_ns");
	double free_ns = (double)span - (double)(paused < span ? paused : span);
	return free_ns > 0 && c->line_bps ? (double)bytes * 8e9 / (double)c->line_bps / free_ns : 1.0;
}

double rp_cert_min_offered(const struct rp_cert_ctx *c, struct rp_cert_t *t, const json_t *res, unsigned p, size_t nh,
			   size_t *which)
{
	double lo = 1e18;
	*which = 0;
	for (size_t h = 0; !c->fab.known && h < nh; h++) {
		double o = rp_cert_offered_share(c, res, c->prof->hosts[h].name, p);
		if (o < lo) {
			lo = o;
			*which = h;
		}
	}
	if (!c->fab.known)
		json_object_set_new(t->measured, "min_offered_share", json_real(lo));
	return lo;
}
