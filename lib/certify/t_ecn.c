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

/* The first pause any of the senders received (result.json pause_order, the
 * hosts' own timestamps on the run's timebase); UINT64_MAX: none. */
static uint64_t first_pause(const struct rp_cert_ctx *c, const json_t *res, const unsigned *senders, size_t n)
{
	size_t i;
	json_t *e;
	uint64_t m = UINT64_MAX;
	json_array_foreach(json_object_get(res, "pause_order"), i, e) {
		const char *h = json_string_value(json_object_get(e, "host")) ?: "";
		json_t *v = json_object_get(e, "first_pause_ns");
		for (size_t k = 0; k < n; k++)
			if (strcmp(h, c->prof->hosts[senders[k]].name) == 0 && json_is_integer(v) &&
			    (uint64_t)json_integer_value(v) < m)
				m = (uint64_t)json_integer_value(v);
	}
	return m;
}

/* A real fabric: the switch's totals over the run (counters.switches[],
 * res_switch.c): ECN marks at the congestion point (the queue of priority p
 * on the port facing the receiver) and the PFC frames it sent the senders
 * (the ports facing them); the order from the hosts' own timestamps (the
 * first CE bin against the first pause a sender received): a switch source
 * gives totals per sample, seconds apart, not the order of events. */
static void from_switches(struct rp_cert_ctx *c, struct rp_cert_t *t, const json_t *res, unsigned p,
			  const unsigned *senders, size_t n, const struct rp_cert_flows *f)
{
	struct rp_cert_swc w;
	const char *recv = c->prof->hosts[0].name;
	if (rp_cert_swc_read(res, &w)) {
		rp_cert_skip(t, "out of memory reading the switches' counters");
		rp_cert_swc_free(&w);
		return;
	}
	if (!(w.have & (RP_SWC_ECN | RP_SWC_PFC_TX))) {
		rp_cert_skip(t, "no switch source of the profile's `switches:` (%zu read, %zu samples) counts what this test "
				"needs: %s, or %s",
			     w.nswitches, w.nsamples, rp_cert_swc_name(RP_SWC_ECN), rp_cert_swc_name(RP_SWC_PFC_TX));
		rp_cert_swc_free(&w);
		return;
	}
	const struct rp_cert_swport *rp = rp_cert_swc_facing(&w, recv);
	uint64_t ecn = 0, pfc_sw = 0;
	char where[512] = "";
	size_t k = 0;
	for (size_t i = 0; i < w.nports; i++) {
		const struct rp_cert_swport *sp = &w.ports[i];
		if (!rp || sp == rp)
			ecn += sp->q_ecn[p];
		bool sender = !rp && sp != rp;
		for (size_t j = 0; rp && j < n; j++)
			sender = sender || strcmp(sp->peer, c->prof->hosts[senders[j]].name) == 0;
		if (sender && sp != rp) {
			pfc_sw += sp->pfc_tx[p];
			if (rp && k < sizeof(where))
				k += (size_t)snprintf(where + k, sizeof(where) - k, "%s%s:%s", k ? ", " : "", sp->sw, sp->port);
		}
	}
	uint64_t first_ce = rp_cert_first_ts_ns(res, "ce"), first_p = first_pause(c, res, senders, n);
	uint64_t pfc = rp_cert_host_pfc_rx(res, NULL, -1), elapsed = rp_cert_elapsed_ns(res);
	uint64_t allowed = (uint64_t)floor(c->cfg->pfc_per_min * (double)elapsed / 60e9);
	json_object_set_new(t->measured, "ce", json_integer((json_int_t)f->ce));
	json_object_set_new(t->measured, "cnp_rx", json_integer((json_int_t)f->cnp_rx));
	json_object_set_new(t->measured, "pfc_frames", json_integer((json_int_t)pfc));
	json_object_set_new(t->measured, "pfc_allowed", json_integer((json_int_t)allowed));
	json_object_set_new(t->measured, "first_ce_ns", jt(first_ce));
	json_object_set_new(t->measured, "first_sender_pause_ns", jt(first_p));
	json_object_set_new(t->measured, "elapsed_ns", json_integer((json_int_t)elapsed));
	json_object_set_new(t->measured, "congestion_point",
			    rp ? json_sprintf("%s:%s (faces %s), queue %u", rp->sw, rp->port, recv, p)
			       : json_sprintf("unknown: no `ports:` entry names %s; the switches' totals over every port", recv));
	json_object_set_new(t->measured, "order_from", json_string("the hosts' timestamps (first CE bin, first pause a "
								   "sender received); the switches give totals per sample"));
	rp_cert_crit(t, "CE-marked packets", "> 0", json_integer((json_int_t)f->ce), f->ce > 0);
	rp_cert_crit(t, "CNPs received by the senders", "> 0", json_integer((json_int_t)f->cnp_rx), f->cnp_rx > 0);
	char label[RP_CERT_LINE], want[128];
	if (w.have & RP_SWC_ECN) {
		json_object_set_new(t->measured, "switch_ecn_marked", json_integer((json_int_t)ecn));
		snprintf(label, sizeof(label), "ECN marks at the switch toward %s (queue %u)", recv, p);
		rp_cert_crit(t, label, "> 0", json_integer((json_int_t)ecn), ecn > 0);
	} else {
		json_object_set_new(t->measured, "switch_ecn_marked",
				    json_sprintf("not read: it needs %s; CE judged from the hosts", rp_cert_swc_name(RP_SWC_ECN)));
	}
	snprintf(want, sizeof(want), "<= %llu (%.0f a minute for %.3f ms)", (unsigned long long)allowed,
		 c->cfg->pfc_per_min, (double)elapsed / 1e6);
	if (w.have & RP_SWC_PFC_TX) {
		json_object_set_new(t->measured, "switch_pfc_to_senders", json_integer((json_int_t)pfc_sw));
		snprintf(label, sizeof(label), "PFC frames the switch sent the senders on priority %u (%s)", p,
			 where[0] ? where : rp ? "no `ports:` entry names a sender" : "every port");
		rp_cert_crit(t, label, want, json_integer((json_int_t)pfc_sw), pfc_sw <= allowed);
	} else {
		json_object_set_new(t->measured, "switch_pfc_to_senders",
				    json_sprintf("not read: it needs %s; judged from the PFC the hosts received",
						 rp_cert_swc_name(RP_SWC_PFC_TX)));
	}
	rp_cert_crit(t, "first CE before the first pause at a sender (ns, hosts' clocks)", "CE first, or no pause",
		     json_pack("[o, o]", jt(first_ce), jt(first_p)), f->ce && first_ce < first_p);
	rp_cert_crit(t, "PFC frames received by hosts", want, json_integer((json_int_t)pfc), pfc <= allowed);
	if (t->failed) {
		if (!f->ce && !ecn)
			rp_cert_fail(t, "no-ecn", "no packet was CE-marked%s: the switch does not mark priority %u, or its "
						  "queue never reached kmin",
				     w.have & RP_SWC_ECN ? " (the switch counted 0 ECN marks)" : "", p);
		else if (!f->cnp_rx)
			rp_cert_fail(t, "no-cnp", "packets were CE-marked but no sender got a CNP: the receivers do not "
						  "answer CE with CNPs (RoCE notification point off)");
		else
			rp_cert_fail(t, "ecn-after-pfc",
				     "the switch marked %llu packets (the hosts saw %llu CE) but still paused the senders "
				     "(%llu PFC frames sent to them, %llu received by the hosts): marking comes too late or "
				     "too weakly for the senders' rate control; mark earlier (lower kmin/kmax) or harder "
				     "(higher pmax), or check that the senders cut their rate on CNPs",
				     (unsigned long long)ecn, (unsigned long long)f->ce, (unsigned long long)pfc_sw,
				     (unsigned long long)pfc);
	}
	rp_cert_swc_free(&w);
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
	if (!c->fab.known && c->fab.switch_sources) { /* a real fabric: its switches' own counters (`switches:`) */
		from_switches(c, t, res, p, senders, n, &f);
		json_decref(res);
		return 0;
	}
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
					   "the switch's XOFF timeline and queue depth at the first CE mark", .seeded = false,
					   .counted = true};
