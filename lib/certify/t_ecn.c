/* Test 3, ECN before PFC: with congestion control on (the lab: DCQCN as the
 * profile sets it), an incast marks CE and draws CNPs before any PFC, and
 * PFC frames stay below a bound (certify.ecn.pfc_per_min, 100 a minute as
 * the snappi DCQCN test asks, for the run's length). The report shows the
 * queue at the first CE and at the first XOFF. */
#include <math.h>
#include <string.h>

#include "cert_internal.h"

/* The receiver's egress queue over time (its qdepth series), for the plot. */
static void queue_series(const json_t *res, const char *node, unsigned prio, json_t *s, uint64_t *peak)
{
	size_t i, j, k, b;
	json_t *sw, *p, *q, *v;
	uint64_t bin = (uint64_t)json_integer_value(json_object_get(res, "qdepth_bin_ns"));
	json_array_foreach(json_object_get(res, "switches"), i, sw)
		json_array_foreach(json_object_get(sw, "ports"), j, p) {
		if (strcmp(json_string_value(json_object_get(p, "peer")) ?: "", node) != 0)
			continue;
		json_array_foreach(json_object_get(p, "prio"), k, q) {
			if ((unsigned)json_integer_value(json_object_get(q, "prio")) != prio)
				continue;
			json_t *series = json_object_get(q, "qdepth_bytes");
			size_t n = json_array_size(series), step = n > 400 ? n / 400 : 1;
			json_array_foreach(series, b, v) {
				uint64_t d = (uint64_t)json_integer_value(v);
				*peak = d > *peak ? d : *peak;
				if (b % step == 0)
					rp_cert_point(s, (double)(b * bin) / 1000.0, (double)d);
			}
		}
	}
}

static json_t *jt(uint64_t t)
{
	return t == UINT64_MAX ? json_null() : json_integer((json_int_t)t);
}

static void cause(struct rp_cert_ctx *c, struct rp_cert_t *t, unsigned p, const struct rp_cert_flows *f)
{
	char kmin[32], xoff[32];
	const struct rp_cert_fabric *x = &c->fab;
	rp_cert_fmt_bytes(x->kmin, kmin, sizeof(kmin));
	rp_cert_fmt_bytes(x->xoff_bytes, xoff, sizeof(xoff));
	if (!f->ce && x->known && !((x->ecn_mask >> p) & 1u))
		rp_cert_fail(t, "no-ecn", "the switch does not ECN-mark priority %u (not in fabric.ecn.priorities): "
					  "congestion is left to PFC alone", p);
	else if (x->known && !x->xoff_dynamic && x->kmin >= x->xoff_bytes)
		rp_cert_fail(t, "ecn-after-pfc",
			     "ECN marking starts at kmin %s, at or above the PFC XOFF threshold %s: the queue reaches XOFF "
			     "before a packet is marked, so PFC fires before ECN can slow the senders; put kmin (and kmax) "
			     "well below XOFF",
			     kmin, xoff);
	else if (!f->ce)
		rp_cert_fail(t, "no-ecn", "no packet was CE-marked: the switch does not mark this priority, or the "
					  "queue never reached kmin");
	else if (!f->cnp_rx)
		rp_cert_fail(t, "no-cnp", "packets were CE-marked but no sender got a CNP: the receivers do not answer "
					  "CE with CNPs (RoCE notification point off)");
	else if (x->known && !x->dcqcn)
		rp_cert_fail(t, "no-dcqcn", "CNPs arrived but the senders do not cut their rate (fabric.dcqcn off): "
					    "the queue grows on to XOFF");
	else
		rp_cert_fail(t, "ecn-after-pfc",
			     "ECN marks and CNPs came too late or too weakly (kmin %s, kmax %llu B, pmax %.3g against XOFF "
			     "%s): the queue still reached XOFF; mark earlier (lower kmin/kmax) or harder (higher pmax)",
			     kmin, (unsigned long long)x->kmax, x->pmax, xoff);
}

static int run(struct rp_cert_ctx *c, struct rp_cert_t *t)
{
	size_t nh = c->prof->nhosts;
	if (nh < 3) {
		rp_cert_skip(t, "an incast needs at least 3 hosts; the profile has %zu", nh);
		return 0;
	}
	unsigned p = 0, n = (unsigned)(nh - 1 > 4 ? 4 : nh - 1), senders[4];
	while (p < 7 && !((c->want.lossless >> p) & 1u))
		p++;
	for (unsigned i = 0; i < n; i++)
		senders[i] = i + 1;
	char respond[96], label[96];
	snprintf(respond, sizeof(respond), "hosts.0.respond.cnp=on");
	const char *extra[] = {respond};
	struct rp_cert_buf w;
	json_t *res;
	rp_cert_buf_init(&w);
	rp_cert_w_incast(&w, c, "incast", 0, senders, n, rp_cert_dscp_for(c, p), "ect0", 4 * c->cfg->messages);
	snprintf(label, sizeof(label), "%u:1 incast, ECT(0), priority %u, CNPs and congestion control on", n, p);
	int rc = rp_cert_exec(c, t, label, &w, extra, 1, &res);
	if (rc) {
		json_decref(res);
		return rc;
	}
	const char *recv = c->prof->hosts[0].name;
	struct rp_cert_flows f;
	rp_cert_sum_flows(res, (int)p, NULL, &f);
	uint64_t first_ce = rp_cert_first_ts_ns(res, "ce"), first_xoff = rp_cert_first_xoff_ns(res);
	uint64_t pfc = rp_cert_host_pfc_rx(res, NULL, -1), elapsed = rp_cert_elapsed_ns(res);
	uint64_t allowed = (uint64_t)floor(c->cfg->pfc_per_min * (double)elapsed / 60e9);
	uint64_t q_ce = rp_cert_queue_at(res, recv, (int)p, first_ce), q_xoff = rp_cert_queue_at(res, recv, (int)p, first_xoff);
	json_object_set_new(t->measured, "ce", json_integer((json_int_t)f.ce));
	json_object_set_new(t->measured, "cnp_rx", json_integer((json_int_t)f.cnp_rx));
	json_object_set_new(t->measured, "pfc_frames", json_integer((json_int_t)pfc));
	json_object_set_new(t->measured, "pfc_allowed", json_integer((json_int_t)allowed));
	json_object_set_new(t->measured, "first_ce_ns", jt(first_ce));
	json_object_set_new(t->measured, "first_xoff_ns", jt(first_xoff));
	json_object_set_new(t->measured, "queue_at_first_ce_bytes", first_ce == UINT64_MAX ? json_null() : json_integer((json_int_t)q_ce));
	json_object_set_new(t->measured, "queue_at_first_xoff_bytes",
			    first_xoff == UINT64_MAX ? json_null() : json_integer((json_int_t)q_xoff));
	json_object_set_new(t->measured, "elapsed_ns", json_integer((json_int_t)elapsed));
	rp_cert_crit(t, "CE-marked packets", "> 0", json_integer((json_int_t)f.ce), f.ce > 0);
	rp_cert_crit(t, "CNPs received by the senders", "> 0", json_integer((json_int_t)f.cnp_rx), f.cnp_rx > 0);
	rp_cert_crit(t, "first CE before the first XOFF (ns)", "CE first, or no XOFF", json_pack("[o, o]", jt(first_ce), jt(first_xoff)),
		     f.ce && first_ce < first_xoff);
	char want[64];
	snprintf(want, sizeof(want), "<= %llu (%.0f a minute for %.3f ms)", (unsigned long long)allowed,
		 c->cfg->pfc_per_min, (double)elapsed / 1e6);
	rp_cert_crit(t, "PFC frames received by hosts", want, json_integer((json_int_t)pfc), pfc <= allowed);
	json_t *plot = rp_cert_plot(t, "queue toward the receiver; first CE and first XOFF", "time (us)", "bytes", "line");
	uint64_t peak = 0;
	queue_series(res, recv, p, rp_cert_series(plot, "queue depth"), &peak);
	if (first_ce != UINT64_MAX) {
		json_t *s = rp_cert_series(plot, "first CE");
		rp_cert_point(s, (double)first_ce / 1000.0, 0);
		rp_cert_point(s, (double)first_ce / 1000.0, (double)peak);
	}
	if (first_xoff != UINT64_MAX) {
		json_t *s = rp_cert_series(plot, "first XOFF");
		rp_cert_point(s, (double)first_xoff / 1000.0, 0);
		rp_cert_point(s, (double)first_xoff / 1000.0, (double)peak);
	}
	if (t->failed && !rp_cert_diagnose_drops(c, t, res, p))
		cause(c, t, p, &f);
	json_decref(res);
	return 0;
}

const struct rp_cert_test rp_cert_t_ecn = {3, "ecn-before-pfc", "ECN before PFC: CE and CNPs come first", run,
					   "the switch's XOFF timeline and queue depth at the first CE mark", .seeded = false};
