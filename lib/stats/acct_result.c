/* The accountant's result (acct_result.h): a merge target's set-up, the
 * finish that closes a run into one, and the getters that read it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct_internal.h"

static void finish_ports(struct rp_acct *a, uint64_t end)
{
	for (size_t i = 0; i < a->cfg.nports; i++) {
		struct acct_port *p = &a->ports[i];
		for (unsigned q = 0; q < RP_PFC_PRIOS; q++) {
			rp_acct_credit_pause(a, p, q, end);
			const struct rp_pause_prio *pp = &p->pause.prio[q];
			if (a->cfg.pause_to_expiry && pp->open && pp->until_ns > end)
				p->past_end[q] = pp->until_ns - (pp->start_ns > end ? pp->start_ns : end);
		}
		/* Past the end, an open pause runs to its expiry: settling at the end
		 * of time closes every interval at its until_ns. */
		rp_pause_settle(&p->pause, a->cfg.pause_to_expiry ? UINT64_MAX : end);
	}
}

static uint64_t sum_qps(const struct acct_flow *fl, size_t field_off)
{
	uint64_t s = 0;
	for (unsigned q = 0; q < fl->nqp; q++)
		s += *(const uint64_t *)((const uint8_t *)&fl->qp[q].psn + field_off);
	return s;
}
#define SUM_PSN(fl, field) sum_qps(fl, offsetof(struct rp_psn, field))

/* Loss: exact from the sender's count; else the probe seq gaps; else (no
 * probes, or some frames' probes unread: a snaplen cut before them, where
 * every such frame's seq would count lost) the PSN gaps never filled. */
static void finish_loss(const struct rp_acct *a, struct acct_flow *fl)
{
	struct rp_acct_flow_result *r = &fl->r;
	uint64_t unique = fl->seq.unique + fl->probeless_unique;
	bool by_seq = fl->probes && !(fl->probeless_unique && a->cfg.track_psn);
	rp_seq_finish(&fl->seq, false, 0);
	if (fl->tx_known) /* what is still in the fabric is not lost (yet) */
		r->lost = r->tx_packets > unique + fl->in_flight ? r->tx_packets - unique - fl->in_flight : 0;
	else if (by_seq) {
		r->lost = fl->seq.lost;
		/* No seq below the lowest arrival ever came (seq.low: the first
		 * one, or a late one below it). */
		r->head_lost = fl->seq.low < RP_SEQ_WINDOW && fl->seq.low <= r->lost ? fl->seq.low : 0;
	}
	else if (a->cfg.track_psn)
		r->lost = SUM_PSN(fl, missing);
	if (by_seq) {
		r->reordered = fl->seq.reordered;
		r->duplicates = fl->seq.duplicates;
	} else if (a->cfg.track_psn) {
		r->reordered = SUM_PSN(fl, reordered);
		r->duplicates = SUM_PSN(fl, duplicates);
	}
	r->stale = fl->seq.stale;
}

static void finish_flow(struct rp_acct *a, struct acct_flow *fl, uint64_t end)
{
	struct rp_acct_flow_result *r = &fl->r;
	r->id = fl->cfg.id;
	memcpy(r->src, fl->cfg.src, sizeof(r->src));
	memcpy(r->dst, fl->cfg.dst, sizeof(r->dst));
	r->qpn = fl->nqp ? fl->qp[0].dqpn : fl->cfg.rqpn;
	r->dscp = fl->cfg.dscp;
	r->prio = fl->cfg.prio;
	r->qps = fl->nqp;
	finish_loss(a, fl);
	if (a->cfg.track_psn) {
		r->retransmissions = SUM_PSN(fl, retransmissions);
		r->go_back_n = SUM_PSN(fl, go_back_n);
		r->messages = SUM_PSN(fl, messages);
	}
	uint64_t span = end > a->cfg.start_ns ? end - a->cfg.start_ns : r->last_rx_ns - r->first_rx_ns;
	r->goodput_gbps = span ? (double)r->rx_payload_bytes * 8.0 / (double)span : 0.0;
	/* Over the flow's own time, first to last frame: n frames evenly spaced
	 * T apart span (n - 1) T, so n - 1 of them fill the span. */
	uint64_t unique = fl->seq.unique + fl->probeless_unique;
	r->active_ns = r->rx_packets > 1 ? r->last_rx_ns - r->first_rx_ns : 0;
	r->goodput_active_gbps = r->active_ns && unique > 1
					 ? (double)r->rx_payload_bytes * 8.0 * (double)(unique - 1) / (double)unique /
						   (double)r->active_ns
					 : 0.0;
	rp_shist_summarize(&fl->lat, &r->latency_ns);
	rp_shist_summarize(&fl->rtt, &r->rtt_ns);
	rp_shist_merge_into(&a->res.agg, &fl->lat);
}

/* Discovered flows without a probe id are numbered after the largest probe id. */
static void number_discovered(struct rp_acct *a)
{
	uint32_t next = 0;
	for (size_t i = 0; i < a->nflows; i++)
		if (a->flows[i].probe_id && a->flows[i].cfg.id >= next)
			next = a->flows[i].cfg.id + 1;
	for (size_t i = 0; i < a->nflows; i++)
		if (!a->flows[i].probe_id)
			a->flows[i].cfg.id = next++;
}

/* Port i from the live state: its pause intervals settle at end_ns once
 * finished. */
static void port_live(const struct rp_acct *a, size_t i, struct rp_acct_port_result *out)
{
	const struct acct_port *p = &a->ports[i];
	*out = p->r;
	memcpy(out->node, p->cfg.node, sizeof(out->node));
	out->port = p->cfg.port;
	out->speed_bps = p->cfg.speed_bps;
	out->pfc_frames = p->pause.pfc_frames;
	out->pause_frames = p->pause.pause_frames;
	uint64_t end = a->finished ? a->end_ns : UINT64_MAX;
	for (unsigned q = 0; q < RP_PFC_PRIOS; q++) {
		const struct rp_pause_prio *pp = &p->pause.prio[q];
		struct rp_acct_prio_result *o = &out->prio[q];
		o->prio = q;
		o->pfc_rx = pp->frames;
		o->quanta = pp->quanta;
		o->paused_ns = rp_pause_paused_ns(&p->pause, q, end);
		o->paused_past_end_ns = p->past_end[q];
		o->xoff_to_xon = pp->xoff_to_xon;
		o->paused_ever = pp->first_pause_ns != RP_PAUSE_NEVER;
		o->first_pause_ns = o->paused_ever && pp->first_pause_ns > a->cfg.start_ns
					    ? pp->first_pause_ns - a->cfg.start_ns : 0;
	}
}

/* The run's result out of the closed state: a view of the rows the flows
 * keep, the ports' values at end_ns. Without memory for those the result
 * stays unbuilt and the getters read the live ports as before. */
static void take_result(struct rp_acct *a)
{
	struct rp_acct_result *res = &a->res;
	res->end_ns = a->end_ns;
	res->unmatched = a->unmatched;
	res->unmatched_data = a->unmatched_data;
	res->flows_dropped = a->flows_dropped;
	res->nflows = a->nflows;
	res->nports = a->cfg.nports;
	res->finished = true;
	static const struct rp_acct_row_at in_flows = {
		.stride = sizeof(struct acct_flow), .r = offsetof(struct acct_flow, r),
		.lat = offsetof(struct acct_flow, lat), .rtt = offsetof(struct acct_flow, rtt),
		.id = offsetof(struct acct_flow, cfg.id), .src = offsetof(struct acct_flow, cfg.src),
		.dst = offsetof(struct acct_flow, cfg.dst)};
	res->flows = a->flows; /* never NULL in a live accountant */
	res->at = &in_flows;
	struct rp_acct_port_result *ports = calloc(res->nports ? res->nports : 1, sizeof(*ports));
	if (!ports)
		return;
	for (size_t i = 0; i < res->nports; i++)
		port_live(a, i, &ports[i]);
	res->ports = ports;
	res->flow_of_id = a->flow_of_id; /* no more frames: the look-up is the result's */
	res->nids = a->nids;
	a->flow_of_id = NULL;
	a->nids = 0;
}

void rp_acct_finish(struct rp_acct *a, uint64_t end_ns, const uint64_t *tx_packets_per_flow)
{
	if (a->finished || a->cfg.results_only) /* a merged result is finished by rp_acct_merge_done */
		return;
	a->finished = true;
	a->end_ns = end_ns;
	if (a->ts)
		rp_ts_flush(a->ts);
	finish_ports(a, end_ns);
	if (a->cfg.discover)
		number_discovered(a);
	rp_hist_init(&a->res.agg);
	for (size_t i = 0; i < a->nflows; i++) {
		if (tx_packets_per_flow) {
			a->flows[i].r.tx_packets = tx_packets_per_flow[i];
			a->flows[i].tx_known = true;
		}
		finish_flow(a, &a->flows[i], end_ns);
	}
	take_result(a);
}

size_t rp_acct_nflows(const struct rp_acct *a) { return a->nflows; }

void rp_acct_flow(const struct rp_acct *a, size_t i, struct rp_acct_flow_result *out) { *out = *rp_acct_res(a, i); }
uint64_t rp_acct_flow_gaps(const struct rp_acct *a, size_t i) { return a->cfg.results_only ? 0 : a->flows[i].seq.lost; }

static const struct rp_hist *expand(const struct rp_acct *a, unsigned k, const struct rp_shist *s)
{
	struct acct_scratch *sc = a->scratch;
	rp_shist_expand(s, &sc->h[k], sc->of[k]);
	sc->of[k] = s;
	return &sc->h[k];
}

const struct rp_hist *rp_acct_flow_latency(const struct rp_acct *a, size_t i)
{
	return expand(a, 0, rp_acct_lat(a, i));
}

/* A flow without message or NAK -> resend times (no acct_psn_hists yet). */
static const struct rp_shist no_samples = {.min = UINT64_MAX};

const struct rp_hist *rp_acct_flow_msg_times(const struct rp_acct *a, size_t i)
{
	if (!a->cfg.track_psn || a->cfg.results_only)
		return NULL;
	const struct acct_psn_hists *ph = a->flows[i].ph;
	return expand(a, 1, ph ? &ph->msg : &no_samples);
}

const struct rp_hist *rp_acct_flow_nak_resend(const struct rp_acct *a, size_t i)
{
	if (!a->cfg.track_psn || a->cfg.results_only)
		return NULL;
	const struct acct_psn_hists *ph = a->flows[i].ph;
	return expand(a, 2, ph ? &ph->nak_resend : &no_samples);
}

const struct rp_hist *rp_acct_flow_rtt(const struct rp_acct *a, size_t i)
{
	return expand(a, 3, rp_acct_rtt(a, i));
}

const struct rp_shist *rp_acct_flow_latency_sparse(const struct rp_acct *a, size_t i)
{
	return rp_acct_lat(a, i);
}

void rp_acct_flow_latency_merge(const struct rp_acct *a, size_t i, struct rp_hist *dst)
{
	rp_shist_merge_into(dst, rp_acct_lat(a, i));
}
size_t rp_acct_flow_nqps(const struct rp_acct *a, size_t i) { return a->cfg.results_only ? 0 : a->flows[i].nqp; }

void rp_acct_qp(const struct rp_acct *a, size_t flow, size_t qp, struct rp_acct_qp_result *out)
{
	const struct acct_qp *q = &a->flows[flow].qp[qp];
	*out = (struct rp_acct_qp_result){
		.dqpn = q->dqpn, .lqpn_known = q->lqpn_known, .lqpn = q->lqpn, .psn = q->psn,
		.acks = q->acks, .naks = q->naks, .cnps = q->cnps,
		.ack_first_ns = q->ack_first, .ack_last_ns = q->ack_last,
		.nak_first_ns = q->nak_first, .nak_last_ns = q->nak_last,
		.cnp_first_ns = q->cnp_first, .cnp_last_ns = q->cnp_last, .ce = q->ce,
	};
	rp_win_init(&out->psn.win); /* the counters: the window stays the accountant's */
}

size_t rp_acct_nports(const struct rp_acct *a) { return a->cfg.nports; }

void rp_acct_port(const struct rp_acct *a, size_t i, struct rp_acct_port_result *out)
{
	if (a->res.ports)
		*out = a->res.ports[i];
	else
		port_live(a, i, out);
}

const struct rp_hist *rp_acct_latency(const struct rp_acct *a) { return &a->res.agg; }
const struct rp_ts *rp_acct_timeseries(const struct rp_acct *a) { return a->ts; }
uint64_t rp_acct_start_ns(const struct rp_acct *a) { return a->cfg.start_ns; }
uint64_t rp_acct_end_ns(const struct rp_acct *a) { return rp_acct_closed(a) ? a->res.end_ns : a->end_ns; }
uint64_t rp_acct_unmatched(const struct rp_acct *a) { return rp_acct_closed(a) ? a->res.unmatched : a->unmatched; }
uint64_t rp_acct_unmatched_data(const struct rp_acct *a)
{
	return rp_acct_closed(a) ? a->res.unmatched_data : a->unmatched_data;
}
uint64_t rp_acct_flows_dropped(const struct rp_acct *a)
{
	return rp_acct_closed(a) ? a->res.flows_dropped : a->flows_dropped;
}

const struct rp_acct_result *rp_acct_result(const struct rp_acct *a)
{
	const struct rp_acct_result *r = &a->res;
	return r->finished && r->flows && r->ports ? r : NULL;
}

struct rp_acct_result *rp_acct_merged(struct rp_acct *a) { return a->cfg.results_only ? &a->res : NULL; }

/* ---- a merge target ---- */

struct rp_ts *rp_acct_series_create(const struct rp_acct_cfg *cfg, size_t nflows, bool sparse)
{
	uint64_t bin = cfg->bin_ns ? cfg->bin_ns : RP_TS_BIN_NS;
	struct rp_ts_cfg tc = {.start_ns = cfg->start_ns, .bin_ns = bin, .nbins = rp_ts_bins_for(cfg->run_ns, bin),
			       .nflows = cfg->flow_series && !cfg->discover ? nflows : 0,
			       .nports = cfg->nports, .bin_hist = cfg->bin_hist, .sparse_ports = sparse};
	return rp_ts_create(&tc);
}

int rp_acct_result_init(struct rp_acct_result *res, const struct rp_acct_cfg *cfg, char *err, size_t errlen)
{
	memset(res, 0, sizeof(*res));
	rp_hist_init(&res->agg);
	if (cfg->discover) {
		snprintf(err, errlen, "a merged (results_only) accountant has the plan's flows, not discovery");
		return -1;
	}
	res->start_ns = cfg->start_ns;
	res->bin_ns = cfg->bin_ns ? cfg->bin_ns : RP_TS_BIN_NS;
	struct rp_acct_row *rows = calloc(cfg->nflows ? cfg->nflows : 1, sizeof(*rows));
	if (!rows) {
		snprintf(err, errlen, "out of memory for %zu flows", cfg->nflows);
		return -1;
	}
	static const struct rp_acct_row_at own = {
		.stride = sizeof(struct rp_acct_row), .r = offsetof(struct rp_acct_row, r),
		.lat = offsetof(struct rp_acct_row, lat), .rtt = offsetof(struct rp_acct_row, rtt),
		.id = offsetof(struct rp_acct_row, id), .src = offsetof(struct rp_acct_row, src),
		.dst = offsetof(struct rp_acct_row, dst), .owned = true};
	res->flows = rows;
	res->at = &own;
	res->nflows = cfg->nflows;
	for (size_t i = 0; i < cfg->nflows; i++) {
		struct rp_acct_row *w = &rows[i];
		const struct rp_acct_flow_cfg *c = &cfg->flows[i];
		w->id = c->id;
		memcpy(w->src, c->src, sizeof(w->src));
		memcpy(w->dst, c->dst, sizeof(w->dst));
		rp_shist_init(&w->lat);
		rp_shist_init(&w->rtt);
	}
	if (rp_acct_ids_build(&res->flow_of_id, &res->nids, cfg->flows, cfg->nflows)) {
		snprintf(err, errlen, "out of memory for %zu flows", cfg->nflows);
		rp_acct_result_free(res);
		return -1;
	}
	res->ports = calloc(cfg->nports ? cfg->nports : 1, sizeof(*res->ports));
	if (!res->ports) {
		snprintf(err, errlen, "out of memory for %zu ports", cfg->nports);
		rp_acct_result_free(res);
		return -1;
	}
	res->nports = cfg->nports;
	for (size_t i = 0; i < cfg->nports; i++) {
		struct rp_acct_port_result *p = &res->ports[i];
		memcpy(p->node, cfg->ports[i].node, sizeof(p->node));
		p->port = cfg->ports[i].port;
		p->speed_bps = cfg->ports[i].speed_bps;
		for (unsigned q = 0; q < 8; q++)
			p->prio[q].prio = q;
	}
	if (!(res->ts = rp_acct_series_create(cfg, cfg->nflows, true))) {
		snprintf(err, errlen, "out of memory for %zu time series bins", rp_ts_bins_for(cfg->run_ns, res->bin_ns));
		rp_acct_result_free(res);
		return -1;
	}
	return 0;
}

void rp_acct_result_free(struct rp_acct_result *res)
{
	struct rp_acct_row *rows = res->at && res->at->owned ? res->flows : NULL; /* else the accountant's flows */
	for (size_t i = 0; rows && i < res->nflows; i++) {
		rp_shist_free(&rows[i].lat);
		rp_shist_free(&rows[i].rtt);
	}
	free(rows);
	free(res->flow_of_id);
	free(res->ports);
	rp_ts_destroy(res->ts);
	res->flows = NULL;
	res->flow_of_id = NULL;
	res->ports = NULL;
	res->ts = NULL;
	res->nflows = res->nports = res->nids = 0;
}

long rp_acct_result_index(const struct rp_acct_result *res, uint32_t id)
{
	return id < res->nids && res->flow_of_id[id] != RP_ACCT_NO_FLOW ? (long)res->flow_of_id[id] : -1;
}
