/* Per-rank partial results -> one result (format and rules in acct_pack.h). */
#include "acct_pack.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct_internal.h"
#include "rec.h"

#define F(field) offsetof(struct rp_acct_flow_result, field)
static const size_t FLOW_U64[] = {
	F(tx_packets), F(tx_bytes), F(rx_packets), F(rx_bytes), F(lost), F(reordered), F(duplicates), F(ce),
	F(cnp_tx), F(cnp_rx), F(acks), F(naks), F(rx_payload_bytes), F(first_rx_ns), F(last_rx_ns),
	F(retransmissions), F(go_back_n), F(messages), F(stale), F(head_lost), F(clock_skew), F(misdelivered), F(active_ns),
	F(echo_tx), F(echo_rx), F(icrc_bad),
	F(latency_ns.count), F(latency_ns.min), F(latency_ns.max), F(latency_ns.pct[0]), F(latency_ns.pct[1]),
	F(latency_ns.pct[2]), F(latency_ns.pct[3]), F(latency_ns.pct[4]), F(latency_ns.pct[5]),
};
#undef F
#define P(field) offsetof(struct rp_acct_port_result, field)
static const size_t PORT_U64[] = {
	P(speed_bps), P(rx_frames), P(rx_bytes), P(class_frames[0]), P(class_frames[1]), P(class_frames[2]),
	P(class_frames[3]), P(class_frames[4]), P(class_frames[5]), P(class_frames[6]), P(class_frames[7]),
	P(class_frames[8]), P(class_frames[9]),
	P(pfc_frames), P(pause_frames), P(misdelivered), P(misdelivered_bytes), P(icrc_bad),
};
#undef P
#define Q(field) offsetof(struct rp_acct_prio_result, field)
static const size_t PRIO_U64[] = {
	Q(pfc_rx), Q(pfc_tx), Q(quanta), Q(paused_ns), Q(paused_past_end_ns), Q(xoff_to_xon), Q(first_pause_ns), Q(drops), Q(ecn_marked),
};
#undef Q
#define NELEM(x) (sizeof(x) / sizeof((x)[0]))
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

#define U(x) ((unsigned long long)(x))
static const uint8_t MAGIC[4] = {'R', 'P', 'A', 'K'};
#define HEADER_LEN (4 + 2 * 4 + 8 * 5 + 4 * 2)

static uint64_t *u64_at(void *base, size_t off) { return (uint64_t *)((uint8_t *)base + off); }
static uint64_t u64_of(const void *base, size_t off) { return *(const uint64_t *)((const uint8_t *)base + off); }

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

static void put_flow(struct rp_rec_wr *w, const struct rp_acct_row *row, struct rp_hist *h, const struct rp_shist **prev)
{
	const struct rp_acct_flow_result *r = &row->r;
	rp_rec_put32(w, r->id);
	rp_rec_put32(w, r->qpn);
	rp_rec_put16(w, r->qps);
	rp_rec_put8(w, r->dscp);
	rp_rec_put8(w, r->prio);
	for (size_t k = 0; k < NELEM(FLOW_U64); k++)
		rp_rec_put64(w, u64_of(r, FLOW_U64[k]));
	rp_rec_putf(w, r->goodput_gbps);
	rp_rec_putf(w, r->goodput_active_gbps);
	rp_rec_putf(w, r->latency_ns.mean);
	rp_rec_putf(w, r->latency_ns.stdev);
	rp_shist_expand(&row->lat, h, *prev);
	*prev = &row->lat;
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
	for (size_t k = 0; k < NELEM(PORT_U64); k++)
		rp_rec_put64(w, u64_of(&p, PORT_U64[k]));
	for (unsigned q = 0; q < 8; q++) {
		rp_rec_put8(w, p.prio[q].paused_ever);
		for (size_t k = 0; k < NELEM(PRIO_U64); k++)
			rp_rec_put64(w, u64_of(&p.prio[q], PRIO_U64[k]));
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
			rp_rec_put32(w, a->flows[f].id);
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
		if (!a->flows[i].rtt.count)
			continue;
		n++;
		rp_rec_put32(w, a->flows[i].id);
		rp_shist_expand(&a->flows[i].rtt, h, *prev);
		*prev = &a->flows[i].rtt;
		put_hist(w, h);
	}
	if (w->buf && at + 4 <= w->cap) {
		struct rp_rec_wr fix = {w->buf, w->cap, at};
		rp_rec_put32(&fix, n);
	}
}

size_t rp_acct_pack(const struct rp_acct *acct, const bool *own_flow, const bool *own_port, uint8_t *buf, size_t cap)
{
	const struct rp_acct_result *a = rp_acct_result(acct);
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
		rp_rec_put8(&w, MAGIC[k]);
	rp_rec_put16(&w, RP_ACCT_PACK_VERSION);
	rp_rec_put16(&w, NELEM(FLOW_U64));
	rp_rec_put16(&w, NELEM(PORT_U64));
	rp_rec_put16(&w, NELEM(PRIO_U64));
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
			put_flow(&w, &a->flows[i], h, &prev);
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

/* ---- reading: every read checked against len ---- */

static void get_sums(struct rp_rec_rd *r, struct rp_sums *m)
{
	for (unsigned i = 0; i < 2; i++)
		m->s[i] = rp_rec_get64(r);
	for (unsigned i = 0; i < 3; i++)
		m->q[i] = rp_rec_get64(r);
}

struct hdr {
	uint64_t start_ns, bin_ns, end_ns, unmatched;
	uint32_t nflows, nports;
};

static bool get_header(struct rp_rec_rd *r, struct hdr *h)
{
	if (r->len < HEADER_LEN)
		return rp_rec_fail(r, "merge buffer of %llu bytes, shorter than its %llu-byte header", U(r->len), U(HEADER_LEN));
	if (memcmp(r->p, MAGIC, 4) != 0)
		return rp_rec_fail(r, "not a merge buffer (no RPAK magic)");
	r->off = 4;
	unsigned v = rp_rec_get16(r), nf = rp_rec_get16(r), np = rp_rec_get16(r), nq = rp_rec_get16(r);
	if (v != RP_ACCT_PACK_VERSION)
		return rp_rec_fail(r, "merge buffer version %llu, this build reads %llu", U(v), U(RP_ACCT_PACK_VERSION));
	if (nf != NELEM(FLOW_U64) || np != NELEM(PORT_U64) || nq != NELEM(PRIO_U64))
		return rp_rec_fail(r, "merge buffer from another build (%llu flow fields, this build has %llu)", U(nf), U(NELEM(FLOW_U64)));
	uint64_t total = rp_rec_get64(r);
	if (total != r->len)
		return rp_rec_fail(r, "merge buffer says %llu bytes, got %llu", U(total), U(r->len));
	h->start_ns = rp_rec_get64(r);
	h->bin_ns = rp_rec_get64(r);
	h->end_ns = rp_rec_get64(r);
	h->unmatched = rp_rec_get64(r);
	h->nflows = rp_rec_get32(r);
	h->nports = rp_rec_get32(r);
	return !r->bad;
}

/* A histogram into h (which is empty on entry); the touched buckets go to
 * idx so the caller can empty it again without clearing 59 KB. */
static bool get_hist(struct rp_rec_rd *r, struct rp_hist *h, uint16_t *idx, uint32_t *nidx)
{
	uint64_t count = rp_rec_get64(r), min = rp_rec_get64(r), max = rp_rec_get64(r);
	struct rp_sums sums;
	get_sums(r, &sums);
	uint32_t nb = rp_rec_get32(r);
	*nidx = 0;
	if (!rp_rec_fits(r, nb, 10))
		return false;
	if (nb > RP_HIST_BUCKETS)
		return rp_rec_fail(r, "histogram with %llu buckets, at most %llu", U(nb), U(RP_HIST_BUCKETS));
	uint64_t sum = 0;
	long prev = -1;
	for (uint32_t i = 0; i < nb; i++) {
		uint16_t b = rp_rec_get16(r);
		uint64_t n = rp_rec_get64(r);
		if (r->bad)
			return false;
		if ((long)b <= prev || b >= RP_HIST_BUCKETS || n == 0)
			return rp_rec_fail(r, "histogram bucket %llu out of order, out of range or empty (count %llu)", U(b), U(n));
		if (sum + n < sum)
			return rp_rec_fail(r, "histogram counts overflow at bucket %llu", U(b));
		sum += n;
		prev = b;
		h->b[b] = n;
		idx[(*nidx)++] = b;
	}
	if (sum != count)
		return rp_rec_fail(r, "histogram count %llu, its buckets hold %llu", U(count), U(sum));
	if (count && (min > max || min < rp_hist_bucket_lo(idx[0]) || max > rp_hist_bucket_hi(idx[nb - 1])))
		return rp_rec_fail(r, "histogram min %llu / max %llu outside its buckets", U(min), U(max));
	h->count = count;
	h->min = count ? min : UINT64_MAX;
	h->max = count ? max : 0;
	if (!count)
		memset(&sums, 0, sizeof(sums));
	h->sums = sums;
	return !r->bad;
}

static void hist_clear(struct rp_hist *h, const uint16_t *idx, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		h->b[idx[i]] = 0;
	h->count = 0;
	h->min = UINT64_MAX;
	h->max = 0;
	memset(&h->sums, 0, sizeof(h->sums));
}


struct walk {
	struct rp_acct_result *merged; /* install into it (apply), or only check the ids */
	bool apply;
	rp_acct_row_fn fn;
	void *ctx;
	struct rp_hist *agg;    /* streaming: every row's histogram merged in */
	int fn_rc;
	struct rp_hist *h;      /* scratch, empty between flows */
	uint16_t *idx;
	long *port_map;         /* buffer's port record -> merged port */
};

/* false when memory for the flow's histogram runs out */
static bool install_flow(struct rp_acct_result *m, long i, const struct rp_acct_flow_result *row,
			 const struct rp_hist *h, const uint16_t *idx, uint32_t nidx)
{
	struct rp_acct_row *w = &m->flows[i];
	w->r = *row;
	memcpy(w->r.src, w->src, sizeof(w->r.src));
	memcpy(w->r.dst, w->dst, sizeof(w->r.dst));
	/* buckets and the exact count/min/max and sums */
	return rp_shist_from_buckets(&w->lat, h, idx, nidx) == 0;
}

static bool walk_flows(struct rp_rec_rd *r, const struct hdr *hd, struct walk *w)
{
	if (!rp_rec_fits(r, hd->nflows, 4 + 4 + 4 + 8 * NELEM(FLOW_U64) + 4 * 8 + 3 * 8 + 4 * 8 + 4))
		return false;
	for (uint32_t n = 0; n < hd->nflows && !r->bad; n++) {
		struct rp_acct_flow_result row;
		memset(&row, 0, sizeof(row));
		row.id = rp_rec_get32(r);
		row.qpn = rp_rec_get32(r);
		row.qps = rp_rec_get16(r);
		row.dscp = rp_rec_get8(r);
		row.prio = rp_rec_get8(r);
		for (size_t k = 0; k < NELEM(FLOW_U64); k++)
			*u64_at(&row, FLOW_U64[k]) = rp_rec_get64(r);
		row.goodput_gbps = rp_rec_getf(r);
		row.goodput_active_gbps = rp_rec_getf(r);
		row.latency_ns.mean = rp_rec_getf(r);
		row.latency_ns.stdev = rp_rec_getf(r);
		uint32_t nidx = 0;
		get_hist(r, w->h, w->idx, &nidx);
		long i = -1;
		if (!r->bad && w->merged && (i = rp_acct_result_index(w->merged, row.id)) < 0)
			rp_rec_fail(r, "merge buffer: flow id %llu is not in the merged plan", U(row.id));
		if (!r->bad && w->apply) {
			if (w->merged && !install_flow(w->merged, i, &row, w->h, w->idx, nidx))
				rp_rec_fail(r, "merge buffer: out of memory for flow %llu's latency histogram", U(row.id));
			if (w->agg)
				rp_hist_merge_sparse(w->agg, w->h, w->idx, nidx);
			if (w->fn && w->fn_rc == 0)
				w->fn_rc = w->fn(w->ctx, &row, w->h);
		}
		hist_clear(w->h, w->idx, nidx);
	}
	return !r->bad;
}

/* A rank's port as the merged result keeps it: the rank's values at its end
 * (closed pauses), named and sped by the merged cfg, no time past the end
 * (pause_to_expiry is analyze's, in one process). */
static void install_port(struct rp_acct_port_result *p, const struct rp_acct_port_result *in)
{
	struct rp_acct_port_result keep = *in;
	memcpy(keep.node, p->node, sizeof(keep.node));
	keep.port = p->port;
	keep.speed_bps = p->speed_bps;
	for (unsigned q = 0; q < RP_PFC_PRIOS; q++) {
		struct rp_acct_prio_result *o = &keep.prio[q];
		o->prio = q;
		o->paused_past_end_ns = 0;
		if (!o->paused_ever)
			o->first_pause_ns = 0;
	}
	*p = keep;
}

static bool walk_ports(struct rp_rec_rd *r, const struct hdr *hd, struct walk *w)
{
	if (!rp_rec_fits(r, hd->nports, 1 + 4 + 8 * NELEM(PORT_U64) + 8 * (1 + 8 * NELEM(PRIO_U64))))
		return false;
	for (uint32_t n = 0; n < hd->nports && !r->bad; n++) {
		struct rp_acct_port_result p;
		memset(&p, 0, sizeof(p));
		unsigned len = rp_rec_get8(r);
		if (len >= RP_ACCT_NAME_MAX)
			return rp_rec_fail(r, "port name of %llu bytes, at most %llu", U(len), U(RP_ACCT_NAME_MAX - 1));
		for (unsigned k = 0; k < len; k++)
			p.node[k] = (char)rp_rec_get8(r);
		p.port = rp_rec_get32(r);
		for (size_t k = 0; k < NELEM(PORT_U64); k++)
			*u64_at(&p, PORT_U64[k]) = rp_rec_get64(r);
		for (unsigned q = 0; q < 8; q++) {
			p.prio[q].prio = q;
			uint8_t ever = rp_rec_get8(r);
			if (ever > 1)
				return rp_rec_fail(r, "port %llu prio %llu: paused_ever is not 0 or 1", U(n), U(q));
			p.prio[q].paused_ever = ever;
			for (size_t k = 0; k < NELEM(PRIO_U64); k++)
				*u64_at(&p.prio[q], PRIO_U64[k]) = rp_rec_get64(r);
		}
		if (r->bad || !w->merged)
			continue;
		long found = -1;
		for (size_t i = 0; i < w->merged->nports && found < 0; i++)
			if (w->merged->ports[i].port == p.port &&
			    strncmp(w->merged->ports[i].node, p.node, RP_ACCT_NAME_MAX) == 0)
				found = (long)i;
		if (found < 0)
			return rp_rec_fail(r, "merge buffer: port %s:%u is not in the merged cfg", p.node, p.port);
		w->port_map[n] = found;
		if (w->apply)
			install_port(&w->merged->ports[found], &p);
	}
	return !r->bad;
}

static bool walk_series(struct rp_rec_rd *r, const struct hdr *hd, struct walk *w)
{
	uint8_t present = rp_rec_get8(r);
	if (present > 1)
		return rp_rec_fail(r, "merge buffer: series flag %llu", U(present));
	struct rp_ts *t = w->merged ? w->merged->ts : NULL;
	if (!present || r->bad)
		return !r->bad;
	uint64_t outside = rp_rec_get64(r);
	uint32_t nb = rp_rec_get32(r);
	if (!rp_rec_fits(r, nb, 4 + 8 * (RP_TS_COUNTERS + 3 + RP_TS_PCTS + 4)))
		return false;
	if (t && w->apply)
		t->outside += outside;
	long prev = -1;
	for (uint32_t n = 0; n < nb && !r->bad; n++) {
		struct rp_ts_bin x;
		uint32_t b = rp_rec_get32(r);
		for (unsigned c = 0; c < RP_TS_COUNTERS; c++)
			x.c[c] = rp_rec_get64(r);
		x.lat_count = rp_rec_get64(r);
		x.lat_min = rp_rec_get64(r);
		x.lat_max = rp_rec_get64(r);
		for (unsigned k = 0; k < RP_TS_PCTS; k++)
			x.lat_pct[k] = rp_rec_get64(r);
		get_sums(r, &x.lat_sums);
		if (r->bad)
			break;
		if ((long)b <= prev)
			return rp_rec_fail(r, "merge buffer: series bin %llu after bin %llu", U(b), U(prev));
		prev = b;
		if (t && b >= t->cfg.nbins)
			return rp_rec_fail(r, "merge buffer: series bin %llu, the merged series has %llu", U(b), U(t->cfg.nbins));
		if (!t || !w->apply)
			continue;
		rp_ts_bin_merge(&t->bins[b], &x); /* percentiles: an upper bound (acct_pack.h) */
	}
	uint32_t np = rp_rec_get32(r);
	if (!rp_rec_fits(r, np, 4 + 2 + 1 + 16))
		return false;
	for (uint32_t n = 0; n < np && !r->bad; n++) {
		uint32_t b = rp_rec_get32(r);
		uint16_t port = rp_rec_get16(r);
		uint8_t q = rp_rec_get8(r);
		uint64_t f = rp_rec_get64(r), ns = rp_rec_get64(r);
		if (r->bad)
			break;
		if (port >= hd->nports || q >= 8)
			return rp_rec_fail(r, "merge buffer: PFC series of port record %llu prio %llu", U(port), U(q));
		if (t && b >= t->cfg.nbins)
			return rp_rec_fail(r, "merge buffer: PFC series bin %llu, the merged series has %llu", U(b), U(t->cfg.nbins));
		if (t && w->apply && rp_ts_port_add(t, b, (size_t)w->port_map[port], q, f, ns) != 0)
			return rp_rec_fail(r, "out of memory for the PFC series of bin %llu", U(b));
	}
	uint32_t nf = rp_rec_get32(r);
	if (!rp_rec_fits(r, nf, 4 + 4 + 16))
		return false;
	for (uint32_t n = 0; n < nf && !r->bad; n++) {
		uint32_t b = rp_rec_get32(r), id = rp_rec_get32(r);
		uint64_t pk = rp_rec_get64(r), by = rp_rec_get64(r);
		if (r->bad)
			break;
		if (!t)
			continue;
		if (!t->flow_pkts)
			return rp_rec_fail(r, "merge buffer has per-flow series, the merged accountant keeps none");
		long i = rp_acct_result_index(w->merged, id);
		if (i < 0 || (size_t)i >= t->cfg.nflows || b >= t->cfg.nbins)
			return rp_rec_fail(r, "merge buffer: flow series of flow id %llu bin %llu not in the merged plan", U(id), U(b));
		if (w->apply) {
			t->flow_pkts[(size_t)b * t->cfg.nflows + (size_t)i] += pk;
			t->flow_bytes[(size_t)b * t->cfg.nflows + (size_t)i] += by;
		}
	}
	uint32_t nh = rp_rec_get32(r);
	if (!rp_rec_fits(r, nh, 4 + 5 * 8 + 4))
		return false;
	for (uint32_t n = 0; n < nh && !r->bad; n++) {
		uint32_t b = rp_rec_get32(r), nidx = 0;
		if (r->bad || !get_hist(r, w->h, w->idx, &nidx))
			return false;
		bool ok = !t || b < t->cfg.nbins;
		if (ok && t && w->apply && t->hists) { /* a merged accountant without bin_hist ignores them */
			struct rp_shist one;
			rp_shist_init(&one);
			ok = rp_shist_from(&one, w->h) == 0 && rp_shist_merge(&t->hists[b], &one) == 0;
			rp_shist_free(&one);
			if (!ok) {
				hist_clear(w->h, w->idx, nidx);
				return rp_rec_fail(r, "out of memory for the histogram of series bin %llu", U(b));
			}
		}
		hist_clear(w->h, w->idx, nidx);
		if (!ok)
			return rp_rec_fail(r, "merge buffer: histogram of series bin %llu, the merged series has %llu", U(b),
				    U(t->cfg.nbins));
	}
	return !r->bad;
}

/* Each flow's round trips, merged into what other ranks gave (one sender per
 * flow: in practice one record, from the sender's rank). */
static bool walk_rtt(struct rp_rec_rd *r, struct walk *w)
{
	uint32_t n = rp_rec_get32(r);
	if (!rp_rec_fits(r, n, 4 + 3 * 8 + 4 * 8 + 4))
		return false;
	for (uint32_t k = 0; k < n && !r->bad; k++) {
		uint32_t id = rp_rec_get32(r), nidx = 0;
		get_hist(r, w->h, w->idx, &nidx);
		long i = -1;
		if (!r->bad && w->merged && (i = rp_acct_result_index(w->merged, id)) < 0)
			rp_rec_fail(r, "merge buffer: round trips of flow id %llu, not in the merged plan", U(id));
		if (!r->bad && w->apply && w->merged) {
			struct rp_shist one;
			rp_shist_init(&one);
			if (rp_shist_from(&one, w->h) != 0 || rp_shist_merge(&w->merged->flows[i].rtt, &one) != 0)
				rp_rec_fail(r, "merge buffer: out of memory for flow %llu's round trips", U(id));
			rp_shist_free(&one);
		}
		hist_clear(w->h, w->idx, nidx);
	}
	return !r->bad;
}

static bool walk(struct rp_rec_rd *r, struct walk *w, struct hdr *hd)
{
	r->off = 0;
	r->bad = false;
	if (!get_header(r, hd))
		return false;
	if (w->merged && (hd->start_ns != w->merged->start_ns || hd->bin_ns != w->merged->bin_ns))
		return rp_rec_fail(r, "merge buffer: start_ns %llu / bin_ns %llu differ from the merged accountant's", U(hd->start_ns), U(hd->bin_ns));
	if (!walk_flows(r, hd, w) || !rp_rec_fits(r, 0, 1))
		return false;
	if (w->merged) {
		free(w->port_map);
		if (!rp_rec_fits(r, hd->nports, 1) || !(w->port_map = calloc(hd->nports ? hd->nports : 1, sizeof(long))))
			return rp_rec_fail(r, "out of memory for %llu port records", U(hd->nports));
	}
	if (!walk_ports(r, hd, w) || !walk_series(r, hd, w) || !walk_rtt(r, w))
		return false;
	if (r->off != r->len)
		return rp_rec_fail(r, "merge buffer: %llu bytes left over after byte %llu", U((r->len - r->off)), U(r->off));
	return true;
}

/* Checks the whole buffer, then (only when it is sound) applies it. */
static int run(struct rp_acct_result *merged, const uint8_t *buf, size_t len, rp_acct_row_fn fn, void *ctx,
	       struct rp_hist *agg, char *err, size_t errlen)
{
	struct rp_rec_rd r = {.p = buf, .len = buf ? len : 0, .err = err, .errlen = errlen, .what = "merge buffer"};
	struct walk w = {.merged = merged, .fn = fn, .ctx = ctx, .agg = agg};
	w.h = malloc(sizeof(*w.h));
	w.idx = malloc(RP_HIST_BUCKETS * sizeof(*w.idx));
	int rc = -1;
	if (!w.h || !w.idx) {
		snprintf(err, errlen, "out of memory for a merge scratch histogram");
		goto out;
	}
	rp_hist_init(w.h);
	struct hdr hd;
	if (!walk(&r, &w, &hd))
		goto out;
	w.apply = true;
	if (!walk(&r, &w, &hd)) /* cannot fail: the same bytes passed */
		goto out;
	if (merged && hd.end_ns > merged->end_ns)
		merged->end_ns = hd.end_ns;
	if (merged)
		merged->unmatched += hd.unmatched;
	rc = w.fn_rc;
out:
	free(w.h);
	free(w.idx);
	free(w.port_map);
	return rc;
}

int rp_acct_unpack_into(struct rp_acct *merged, const uint8_t *buf, size_t len, char *err, size_t errlen)
{
	struct rp_acct_result *m = rp_acct_merged(merged);
	if (!m) {
		snprintf(err, errlen, "a merged accountant is created results_only, with the plan's flows");
		return -1;
	}
	return run(m, buf, len, NULL, NULL, NULL, err, errlen);
}

int rp_acct_unpack_rows(const uint8_t *buf, size_t len, rp_acct_row_fn fn, void *ctx, struct rp_hist *agg, char *err,
			size_t errlen)
{
	return run(NULL, buf, len, fn, ctx, agg, err, errlen);
}

int rp_acct_merge_block(struct rp_acct *merged, const uint8_t *all, const size_t *lens, size_t n,
			const bool *may_be_empty, size_t *bad, char *err, size_t errlen)
{
	size_t off = 0;
	for (size_t k = 0; k < n; off += lens[k], k++) {
		*bad = k;
		if (lens[k] == 0 && may_be_empty && may_be_empty[k])
			continue;
		if (lens[k] == 0) {
			snprintf(err, errlen, "sent no result (out of memory?)");
			return -1;
		}
		if (rp_acct_unpack_into(merged, all + off, lens[k], err, errlen) != 0)
			return -1;
	}
	return 0;
}

void rp_acct_merge_done(struct rp_acct *merged)
{
	struct rp_acct_result *m = rp_acct_merged(merged);
	if (!m)
		return;
	rp_hist_init(&m->agg);
	for (size_t i = 0; i < m->nflows; i++) {
		rp_shist_merge_into(&m->agg, &m->flows[i].lat);
		rp_shist_summarize(&m->flows[i].rtt, &m->flows[i].r.rtt_ns);
	}
	m->finished = true;
}

/* The sender's side of a flow: what only the sender's rank counts. Indexed
 * by flow id, so a rank whose accountant holds only some flows of the plan
 * fills its part of the plan-wide array. */
void rp_acct_tx_row(const struct rp_acct *a, size_t i, uint64_t o[RP_ACCT_TX_FIELDS])
{
	const struct rp_acct_flow_result *r = rp_acct_res(a, i);
	o[0] = r->tx_packets;
	o[1] = r->tx_bytes;
	o[2] = r->cnp_rx;
	o[3] = r->acks;
	o[4] = r->naks;
	o[5] = r->misdelivered;
	o[6] = r->echo_rx;
}

void rp_acct_tx_set_row(struct rp_acct *a, size_t i, const uint64_t v[RP_ACCT_TX_FIELDS])
{
	struct rp_acct_flow_result *r = rp_acct_res(a, i);
	rp_acct_set_tx(a, i, v[0], v[1]);
	r->cnp_rx = v[2];
	r->acks = v[3];
	r->naks = v[4];
	r->misdelivered = v[5];
	r->echo_rx = v[6];
}

long rp_acct_flow_index(const struct rp_acct *a, uint32_t id)
{
	if (a->cfg.discover)
		return -1;
	if (a->res.flows)
		return rp_acct_result_index(&a->res, id);
	uint32_t i = rp_acct_flow_of_id(a, id);
	return i == RP_ACCT_NO_FLOW ? -1 : (long)i;
}

uint32_t rp_acct_flow_id(const struct rp_acct *a, size_t i)
{
	return rp_acct_id(a, i);
}

/* The sender's side of a flow: what only the sender's rank counts. Indexed
 * by flow id, so a rank whose accountant holds only some flows of the plan
 * fills its part of the plan-wide array. */
void rp_acct_tx_export(const struct rp_acct *a, uint64_t *tx, size_t nflows)
{
	memset(tx, 0, nflows * RP_ACCT_TX_FIELDS * sizeof(*tx));
	for (size_t i = 0; i < a->nflows; i++)
		if (rp_acct_id(a, i) < nflows)
			rp_acct_tx_row(a, i, &tx[RP_ACCT_TX_FIELDS * rp_acct_id(a, i)]);
}

void rp_acct_tx_combine(uint64_t *acc, const uint64_t *in, size_t n)
{
	for (size_t i = 0; i < n; i++)
		acc[i] += in[i];
}

void rp_acct_tx_import(struct rp_acct *a, const uint64_t *tx, size_t nflows)
{
	for (size_t i = 0; i < a->nflows; i++)
		if (rp_acct_id(a, i) < nflows)
			rp_acct_tx_set_row(a, i, &tx[RP_ACCT_TX_FIELDS * rp_acct_id(a, i)]);
}

/* ---- one histogram, for other records (lib/report/rank_env.c) ---- */

size_t rp_acct_hist_pack(const struct rp_hist *h, uint8_t *buf, size_t cap)
{
	struct rp_rec_wr w = {buf, cap, 0};
	put_hist(&w, h);
	return w.len;
}

int rp_acct_hist_unpack(const uint8_t *buf, size_t len, struct rp_hist *h, size_t *used, char *err, size_t errlen)
{
	uint16_t *idx = malloc(RP_HIST_BUCKETS * sizeof(*idx));
	struct rp_rec_rd r = {buf, len, 0, err, errlen, false, "merge buffer"};
	uint32_t n = 0;
	if (!idx) {
		snprintf(err, errlen, "out of memory for a histogram");
		return -1;
	}
	rp_hist_init(h);
	bool ok = get_hist(&r, h, idx, &n);
	if (!ok)
		hist_clear(h, idx, n);
	free(idx);
	*used = r.off;
	return ok ? 0 : -1;
}
