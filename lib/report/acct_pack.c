/* A result packed for rank 0 (format and rules in acct_merge.h): the writer. */
#include "acct_merge.h"

#include <stdlib.h>
#include <string.h>

#include "acct_rec.h"
#include "stats/rec.h"

#define F(field) offsetof(struct rp_acct_flow_result, field)
const size_t RP_ACCT_FLOW_U64[] = { /* its length must be RP_ACCT_REC_FLOW_U64: the declaration checks */
	F(tx_packets), F(tx_bytes), F(rx_packets), F(rx_bytes), F(lost), F(reordered), F(duplicates), F(ce),
	F(cnp_tx), F(cnp_rx), F(acks), F(naks), F(rx_payload_bytes), F(first_rx_ns), F(last_rx_ns),
	F(retransmissions), F(go_back_n), F(messages), F(stale), F(head_lost), F(clock_skew), F(misdelivered), F(active_ns),
	F(echo_tx), F(echo_rx), F(icrc_bad),
	F(latency_ns.count), F(latency_ns.min), F(latency_ns.max), F(latency_ns.pct[0]), F(latency_ns.pct[1]),
	F(latency_ns.pct[2]), F(latency_ns.pct[3]), F(latency_ns.pct[4]), F(latency_ns.pct[5]),
};
#undef F
#define P(field) offsetof(struct rp_acct_port_result, field)
const size_t RP_ACCT_PORT_U64[] = {
	P(speed_bps), P(rx_frames), P(rx_bytes), P(class_frames[0]), P(class_frames[1]), P(class_frames[2]),
	P(class_frames[3]), P(class_frames[4]), P(class_frames[5]), P(class_frames[6]), P(class_frames[7]),
	P(class_frames[8]), P(class_frames[9]),
	P(pfc_frames), P(pause_frames), P(misdelivered), P(misdelivered_bytes), P(icrc_bad),
};
#undef P
#define Q(field) offsetof(struct rp_acct_prio_result, field)
const size_t RP_ACCT_PRIO_U64[] = {
	Q(pfc_rx), Q(pfc_tx), Q(quanta), Q(paused_ns), Q(paused_past_end_ns), Q(xoff_to_xon), Q(first_pause_ns), Q(drops), Q(ecn_marked),
};
#undef Q
/* A field added to a result struct must be added to the tables above (and
 * RP_ACCT_PACK_VERSION bumped), or the merged result silently lacks it:
 * these break the build first. Sizes on x86-64 / aarch64 (LP64). */
_Static_assert(sizeof(void *) != 8 || sizeof(struct rp_acct_flow_result) == 488,
	       "rp_acct_flow_result changed: update FLOW_U64 and put_flow/walk_flows");
_Static_assert(sizeof(void *) != 8 || sizeof(struct rp_acct_port_result) == 888,
	       "rp_acct_port_result changed: update PORT_U64/PRIO_U64");
_Static_assert(sizeof(void *) != 8 || sizeof(struct rp_acct_prio_result) == 88,
	       "rp_acct_prio_result changed: update PRIO_U64");
_Static_assert(RP_RX_CLASSES == 10, "PORT_U64 lists 10 classes");
_Static_assert(RP_TS_COUNTERS == 7 && RP_TS_PCTS == 4, "the series record is c[7] and 4 percentiles");

const uint8_t RP_ACCT_MAGIC[4] = {'R', 'P', 'A', 'K'};

/* ---- writing: counts every byte, stores those that fit ---- */

static void put_sums(struct rp_rec_wr *w, const struct rp_sums *m)
{
	for (unsigned i = 0; i < 2; i++)
		rp_rec_put64(w, m->s[i]);
	for (unsigned i = 0; i < 3; i++)
		rp_rec_put64(w, m->q[i]);
}

static void put_hist(struct rp_rec_wr *w, const struct rp_hist *h)
{
	rp_rec_put64(w, h->count);
	rp_rec_put64(w, h->min);
	rp_rec_put64(w, h->max);
	put_sums(w, &h->sums);
	size_t at = w->len, nb = 0;
	rp_rec_put32(w, 0);
	for (size_t i = 0; h->count && i < RP_HIST_BUCKETS; i++)
		if (h->b[i]) {
			rp_rec_put16(w, i);
			rp_rec_put64(w, h->b[i]);
			nb++;
		}
	if (w->buf && at + 4 <= w->cap) {
		struct rp_rec_wr fix = {w->buf, w->cap, at};
		rp_rec_put32(&fix, nb);
	}
}

/* The same bytes put_hist writes for the expansion of s. */
static void put_shist(struct rp_rec_wr *w, const struct rp_shist *s)
{
	rp_rec_put64(w, s->count);
	rp_rec_put64(w, s->min);
	rp_rec_put64(w, s->max);
	put_sums(w, &s->sums);
	rp_rec_put32(w, s->count ? s->n : 0);
	for (uint32_t i = 0; s->count && i < s->n; i++) {
		rp_rec_put16(w, (uint16_t)(s->e[i] >> RP_SHIST_COUNT_BITS));
		rp_rec_put64(w, s->e[i] & ((1ull << RP_SHIST_COUNT_BITS) - 1));
	}
}

static void put_flow(struct rp_rec_wr *w, const struct rp_acct_flow_result *r, const struct rp_shist *lat,
		     struct rp_hist *h, const struct rp_shist **prev)
{
	rp_rec_put32(w, r->id);
	rp_rec_put32(w, r->qpn);
	rp_rec_put16(w, r->qps);
	rp_rec_put8(w, r->dscp);
	rp_rec_put8(w, r->prio);
	for (size_t k = 0; k < RP_ACCT_REC_FLOW_U64; k++)
		rp_rec_put64(w, rp_acct_u64_of(r, RP_ACCT_FLOW_U64[k]));
	rp_rec_putf(w, r->goodput_gbps);
	rp_rec_putf(w, r->goodput_active_gbps);
	rp_rec_putf(w, r->latency_ns.mean);
	rp_rec_putf(w, r->latency_ns.stdev);
	rp_shist_expand(lat, h, *prev);
	*prev = lat;
	put_hist(w, h);
}

static void put_port(struct rp_rec_wr *w, const struct rp_acct_port_result *pp)
{
	const struct rp_acct_port_result p = *pp;
	size_t n = strnlen(p.node, RP_ACCT_NAME_MAX - 1);
	rp_rec_put8(w, n);
	for (size_t k = 0; k < n; k++)
		rp_rec_put8(w, (uint8_t)p.node[k]);
	rp_rec_put32(w, p.port);
	for (size_t k = 0; k < RP_ACCT_REC_PORT_U64; k++)
		rp_rec_put64(w, rp_acct_u64_of(&p, RP_ACCT_PORT_U64[k]));
	for (unsigned q = 0; q < 8; q++) {
		rp_rec_put8(w, p.prio[q].paused_ever);
		for (size_t k = 0; k < RP_ACCT_REC_PRIO_U64; k++)
			rp_rec_put64(w, rp_acct_u64_of(&p.prio[q], RP_ACCT_PRIO_U64[k]));
	}
}

static bool bin_has(const struct rp_ts_bin *b)
{
	for (unsigned c = 0; c < RP_TS_COUNTERS; c++)
		if (b->c[c])
			return true;
	return b->lat_count != 0;
}

/* Sparse: only bins and (bin, port, prio) / (bin, flow) cells that hold something.
 * A PFC cell names its port by record (the shipped ports, own_port's, in order),
 * as the reader maps it. */
static void put_series(struct rp_rec_wr *w, const struct rp_acct_result *a, const bool *own, const bool *own_port)
{
	const struct rp_ts *t = a->ts;
	rp_rec_put8(w, t != NULL);
	if (!t)
		return;
	size_t nb = rp_ts_used_bins(t), at, n;
	rp_rec_put64(w, t->outside);
	at = w->len, n = 0;
	rp_rec_put32(w, 0);
	for (size_t b = 0; b < nb; b++) {
		const struct rp_ts_bin *x = &t->bins[b];
		if (!bin_has(x))
			continue;
		n++;
		rp_rec_put32(w, b);
		for (unsigned c = 0; c < RP_TS_COUNTERS; c++)
			rp_rec_put64(w, x->c[c]);
		rp_rec_put64(w, x->lat_count);
		rp_rec_put64(w, x->lat_min);
		rp_rec_put64(w, x->lat_max);
		for (unsigned k = 0; k < RP_TS_PCTS; k++)
			rp_rec_put64(w, x->lat_pct[k]);
		put_sums(w, &x->lat_sums);
	}
	struct rp_rec_wr fix = {w->buf, w->cap, at};
	if (w->buf && at + 4 <= w->cap)
		rp_rec_put32(&fix, n);
	at = w->len, n = 0;
	rp_rec_put32(w, 0);
	for (size_t b = 0; b < nb; b++)
		for (size_t p = 0, rec = 0; p < t->cfg.nports; rec += !own_port || own_port[p], p++)
			for (unsigned q = 0; q < 8 && (!own_port || own_port[p]); q++) {
				uint64_t f = rp_ts_pfc_frames(t, b, p, q), ns = rp_ts_paused_ns(t, b, p, q);
				if (!f && !ns)
					continue;
				n++;
				rp_rec_put32(w, b);
				rp_rec_put16(w, rec);
				rp_rec_put8(w, q);
				rp_rec_put64(w, f);
				rp_rec_put64(w, ns);
			}
	fix = (struct rp_rec_wr){w->buf, w->cap, at};
	if (w->buf && at + 4 <= w->cap)
		rp_rec_put32(&fix, n);
	at = w->len, n = 0;
	rp_rec_put32(w, 0);
	for (size_t b = 0; t->flow_pkts && b < nb; b++)
		for (size_t f = 0; f < t->cfg.nflows && f < a->nflows; f++) {
			uint64_t pk = t->flow_pkts[b * t->cfg.nflows + f], by = t->flow_bytes[b * t->cfg.nflows + f];
			if ((own && !own[f]) || (!pk && !by))
				continue;
			n++;
			rp_rec_put32(w, b);
			rp_rec_put32(w, rp_acct_result_id(a, f));
			rp_rec_put64(w, pk);
			rp_rec_put64(w, by);
		}
	fix = (struct rp_rec_wr){w->buf, w->cap, at};
	if (w->buf && at + 4 <= w->cap)
		rp_rec_put32(&fix, n);
	/* The per-bin latency histograms (cfg.bin_hist): the bins that hold samples. */
	at = w->len, n = 0;
	rp_rec_put32(w, 0);
	for (size_t b = 0; t->hists && b < nb; b++) {
		if (!t->hists[b].count)
			continue;
		n++;
		rp_rec_put32(w, b);
		put_shist(w, &t->hists[b]);
	}
	fix = (struct rp_rec_wr){w->buf, w->cap, at};
	if (w->buf && at + 4 <= w->cap)
		rp_rec_put32(&fix, n);
}

/* The round trips this rank's senders timed: every flow with an echo back,
 * owned or not (the echo arrives at the sender, the row is the receiver's). */
static void put_rtt(struct rp_rec_wr *w, const struct rp_acct_result *a, struct rp_hist *h,
		    const struct rp_shist **prev)
{
	size_t at = w->len, n = 0;
	rp_rec_put32(w, 0);
	for (size_t i = 0; i < a->nflows; i++) {
		const struct rp_shist *rtt = rp_acct_result_rtt(a, i);
		if (!rtt->count)
			continue;
		n++;
		rp_rec_put32(w, rp_acct_result_id(a, i));
		rp_shist_expand(rtt, h, *prev);
		*prev = rtt;
		put_hist(w, h);
	}
	if (w->buf && at + 4 <= w->cap) {
		struct rp_rec_wr fix = {w->buf, w->cap, at};
		rp_rec_put32(&fix, n);
	}
}

size_t rp_acct_pack(const struct rp_acct_result *a, const bool *own_flow, const bool *own_port, uint8_t *buf, size_t cap)
{
	if (!a || a->discovered)
		return 0;
	struct rp_hist *h = malloc(sizeof(*h)); /* a histogram expanded: flow after flow, only its buckets cleared */
	if (!h)
		return 0;
	rp_hist_init(h);
	const struct rp_shist *prev = NULL;
	size_t nown = 0, nports = 0;
	for (size_t i = 0; i < a->nflows; i++)
		nown += !own_flow || own_flow[i];
	for (size_t i = 0; i < a->nports; i++)
		nports += !own_port || own_port[i];
	struct rp_rec_wr w = {buf, cap, 0};
	for (int k = 0; k < 4; k++)
		rp_rec_put8(&w, RP_ACCT_MAGIC[k]);
	rp_rec_put16(&w, RP_ACCT_PACK_VERSION);
	rp_rec_put16(&w, RP_ACCT_REC_FLOW_U64);
	rp_rec_put16(&w, RP_ACCT_REC_PORT_U64);
	rp_rec_put16(&w, RP_ACCT_REC_PRIO_U64);
	size_t total_at = w.len;
	rp_rec_put64(&w, 0);
	rp_rec_put64(&w, a->start_ns);
	rp_rec_put64(&w, a->bin_ns);
	rp_rec_put64(&w, a->end_ns);
	rp_rec_put64(&w, a->unmatched);
	rp_rec_put32(&w, nown);
	rp_rec_put32(&w, nports);
	for (size_t i = 0; i < a->nflows; i++)
		if (!own_flow || own_flow[i])
			put_flow(&w, rp_acct_result_flow(a, i), rp_acct_result_lat(a, i), h, &prev);
	for (size_t i = 0; i < a->nports; i++)
		if (!own_port || own_port[i])
			put_port(&w, &a->ports[i]);
	put_series(&w, a, own_flow, own_port);
	put_rtt(&w, a, h, &prev);
	if (buf && w.len <= cap) {
		struct rp_rec_wr fix = {buf, cap, total_at};
		rp_rec_put64(&fix, w.len);
	}
	free(h);
	return w.len;
}

/* ---- one histogram, for other records (lib/report/rank_env.c) ---- */

size_t rp_acct_hist_pack(const struct rp_hist *h, uint8_t *buf, size_t cap)
{
	struct rp_rec_wr w = {buf, cap, 0};
	put_hist(&w, h);
	return w.len;
}

