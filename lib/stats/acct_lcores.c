/* Per-lcore accountants -> one (acct_pack.h: rp_acct_absorb). The ranks'
 * merge (report/acct_merge.h) installs finished, disjoint results; here
 * every lcore's accountant has the same flows and ports and saw part of
 * each, so the raw state is added before the one rp_acct_finish, which then
 * derives loss, goodput and percentiles exactly as for one lcore. */
#include <string.h>

#include "acct_pack.h"
#include "acct_internal.h"

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }
static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

static void add_seq(struct rp_seq *d, const struct rp_seq *s)
{
	if (!s->started)
		return;
	d->next = d->started ? max_u64(d->next, s->next) : s->next;
	d->low = d->started ? min_u64(d->low, s->low) : s->low;
	d->started = true;
	d->received += s->received;
	d->unique += s->unique;
	d->lost += s->lost; /* gaps: replaced by sent - unique at the finish */
	d->reordered += s->reordered;
	d->duplicates += s->duplicates;
	d->stale += s->stale;
}

/* A QP's packets go to one queue (its UDP source port), so one side is
 * empty; when both saw some the counters add and the times widen. */
static int add_psn(struct rp_psn *d, const struct rp_psn *s)
{
	if (!s->started)
		return 0;
	if (!d->started) { /* d never started: its window holds no memory */
		rp_psn_free(d);
		return rp_psn_copy(d, s);
	}
	d->packets += s->packets;
	d->gaps += s->gaps;
	d->skipped += s->skipped;
	d->missing += s->missing;
	d->filled += s->filled;
	d->reordered += s->reordered;
	d->duplicates += s->duplicates;
	d->retransmissions += s->retransmissions;
	d->go_back_n += s->go_back_n;
	d->rewinds += s->rewinds;
	d->naks += s->naks;
	d->messages += s->messages;
	return 0;
}

static void add_times(uint64_t *dfirst, uint64_t *dlast, uint64_t sfirst, uint64_t slast, bool d_has, bool s_has)
{
	if (!s_has)
		return;
	*dfirst = d_has ? min_u64(*dfirst, sfirst) : sfirst;
	*dlast = d_has ? max_u64(*dlast, slast) : slast;
}

static int add_qps(struct acct_flow *d, const struct acct_flow *s)
{
	for (unsigned k = 0; k < s->nqp; k++) {
		const struct acct_qp *x = &s->qp[k];
		unsigned j = 0;
		while (j < d->nqp && d->qp[j].dqpn != x->dqpn)
			j++;
		if (j == d->nqp && rp_acct_flow_add_qp(d, x->dqpn) != 0)
			return -1;
		struct acct_qp *y = &d->qp[j];
		if (x->lqpn_known && !y->lqpn_known) {
			y->lqpn = x->lqpn;
			y->lqpn_known = true;
		}
		if (add_psn(&y->psn, &x->psn) != 0)
			return -1;
		add_times(&y->ack_first, &y->ack_last, x->ack_first, x->ack_last, y->acks, x->acks);
		add_times(&y->nak_first, &y->nak_last, x->nak_first, x->nak_last, y->naks, x->naks);
		add_times(&y->cnp_first, &y->cnp_last, x->cnp_first, x->cnp_last, y->cnps, x->cnps);
		y->acks += x->acks;
		y->naks += x->naks;
		y->cnps += x->cnps;
		y->ce += x->ce;
	}
	return 0;
}

static int add_flow(struct acct_flow *d, const struct acct_flow *s)
{
	struct rp_acct_flow_result *y = &d->r;
	const struct rp_acct_flow_result *x = &s->r;
	add_times(&y->first_rx_ns, &y->last_rx_ns, x->first_rx_ns, x->last_rx_ns, y->rx_packets, x->rx_packets);
	y->rx_packets += x->rx_packets;
	y->rx_bytes += x->rx_bytes;
	y->rx_payload_bytes += x->rx_payload_bytes;
	y->ce += x->ce;
	y->cnp_tx += x->cnp_tx;
	y->cnp_rx += x->cnp_rx;
	y->acks += x->acks;
	y->naks += x->naks;
	y->misdelivered += x->misdelivered;
	y->icrc_bad += x->icrc_bad;
	y->clock_skew += x->clock_skew;
	y->echo_tx += x->echo_tx;
	y->echo_rx += x->echo_rx;
	add_seq(&d->seq, &s->seq);
	d->probes |= s->probes;
	d->probeless_unique += s->probeless_unique;
	if (rp_shist_merge(&d->lat, &s->lat) || rp_shist_merge(&d->rtt, &s->rtt))
		return -1;
	if (s->ph) {
		struct acct_psn_hists *ph = rp_acct_flow_ph(d);
		if (!ph || rp_shist_merge(&ph->msg, &s->ph->msg) || rp_shist_merge(&ph->nak_resend, &s->ph->nak_resend))
			return -1;
	}
	return add_qps(d, s);
}

static void add_pause(struct acct_port *d, const struct acct_port *s)
{
	d->pause.pfc_frames += s->pause.pfc_frames;
	d->pause.pause_frames += s->pause.pause_frames;
	for (unsigned q = 0; q < RP_PFC_PRIOS; q++) {
		struct rp_pause_prio *y = &d->pause.prio[q];
		const struct rp_pause_prio *x = &s->pause.prio[q];
		y->frames += x->frames;
		y->quanta += x->quanta;
		y->paused_ns += x->paused_ns;
		y->xoff_to_xon += x->xoff_to_xon;
		y->first_pause_ns = min_u64(y->first_pause_ns, x->first_pause_ns);
		if (x->open) { /* both open: their union's bounds */
			y->start_ns = y->open ? min_u64(y->start_ns, x->start_ns) : x->start_ns;
			y->until_ns = y->open ? max_u64(y->until_ns, x->until_ns) : x->until_ns;
			rp_pause_set_open(&d->pause, q, true);
		}
		d->credited[q] = max_u64(d->credited[q], s->credited[q]);
	}
}

static void add_port(struct acct_port *d, const struct acct_port *s)
{
	struct rp_acct_port_result *y = &d->r;
	const struct rp_acct_port_result *x = &s->r;
	y->rx_frames += x->rx_frames;
	y->rx_bytes += x->rx_bytes;
	for (unsigned c = 0; c < RP_RX_CLASSES; c++)
		y->class_frames[c] += x->class_frames[c];
	y->misdelivered += x->misdelivered;
	y->misdelivered_bytes += x->misdelivered_bytes;
	y->icrc_bad += x->icrc_bad;
	for (unsigned q = 0; q < 8; q++) {
		y->prio[q].pfc_tx += x->prio[q].pfc_tx;
		y->prio[q].drops += x->prio[q].drops;
		y->prio[q].ecn_marked += x->prio[q].ecn_marked;
	}
	add_pause(d, s);
}

static int add_series(struct rp_ts *d, struct rp_ts *s)
{
	rp_ts_flush(d);
	rp_ts_flush(s);
	d->outside += s->outside;
	for (size_t b = 0; b < d->cfg.nbins; b++) {
		rp_ts_bin_merge(&d->bins[b], &s->bins[b]);
		if (d->hists && rp_shist_merge(&d->hists[b], &s->hists[b]) != 0)
			return -1;
	}
	size_t cells = d->cfg.nbins * d->cfg.nports * 8;
	for (size_t c = 0; c < cells; c++) {
		d->pfc[c] += s->pfc[c];
		d->paused[c] += s->paused[c];
	}
	for (size_t c = 0; d->flow_pkts && s->flow_pkts && c < d->cfg.nbins * d->cfg.nflows; c++) {
		d->flow_pkts[c] += s->flow_pkts[c];
		d->flow_bytes[c] += s->flow_bytes[c];
	}
	return 0;
}

static bool same_shape(const struct rp_acct *d, const struct rp_acct *s)
{
	if (d->nflows != s->nflows || d->cfg.nports != s->cfg.nports || d->cfg.discover || s->cfg.discover ||
	    !d->ts != !s->ts || d->cfg.start_ns != s->cfg.start_ns)
		return false;
	if (d->ts && (d->ts->cfg.nbins != s->ts->cfg.nbins || d->ts->cfg.nports != s->ts->cfg.nports ||
		      d->ts->cfg.bin_ns != s->ts->cfg.bin_ns || d->ts->cfg.nflows != s->ts->cfg.nflows ||
		      !d->ts->hists != !s->ts->hists))
		return false;
	for (size_t i = 0; i < d->nflows; i++)
		if (d->flows[i].cfg.id != s->flows[i].cfg.id)
			return false;
	return true;
}

int rp_acct_absorb(struct rp_acct *dst, struct rp_acct *src)
{
	if (dst->finished || src->finished || dst->cfg.results_only || src->cfg.results_only || !same_shape(dst, src))
		return -1;
	for (size_t i = 0; i < dst->nflows; i++)
		if (add_flow(&dst->flows[i], &src->flows[i]) != 0)
			return -1;
	for (size_t i = 0; i < dst->cfg.nports; i++)
		add_port(&dst->ports[i], &src->ports[i]);
	if (dst->ts && add_series(dst->ts, src->ts) != 0)
		return -1;
	dst->unmatched += src->unmatched;
	dst->fast_frames += src->fast_frames;
	return 0;
}
