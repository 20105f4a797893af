/* Per-rank results -> one result (format and rules in acct_merge.h): the
 * reader, which checks a buffer whole before it installs anything. */
#include "acct_merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct_rec.h"
#include "stats/rec.h"

#define U(x) ((unsigned long long)(x))


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
	if (r->len < RP_ACCT_HEADER_LEN)
		return rp_rec_fail(r, "merge buffer of %llu bytes, shorter than its %llu-byte header", U(r->len), U(RP_ACCT_HEADER_LEN));
	if (memcmp(r->p, RP_ACCT_MAGIC, 4) != 0)
		return rp_rec_fail(r, "not a merge buffer (no RPAK magic)");
	r->off = 4;
	unsigned v = rp_rec_get16(r), nf = rp_rec_get16(r), np = rp_rec_get16(r), nq = rp_rec_get16(r);
	if (v != RP_ACCT_PACK_VERSION)
		return rp_rec_fail(r, "merge buffer version %llu, this build reads %llu", U(v), U(RP_ACCT_PACK_VERSION));
	if (nf != RP_ACCT_REC_FLOW_U64 || np != RP_ACCT_REC_PORT_U64 || nq != RP_ACCT_REC_PRIO_U64)
		return rp_rec_fail(r, "merge buffer from another build (%llu flow fields, this build has %llu)", U(nf), U(RP_ACCT_REC_FLOW_U64));
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
	struct rp_acct_flow_result *r = rp_acct_result_flow(m, (size_t)i);
	*r = *row;
	memcpy(r->src, rp_acct_result_src(m, (size_t)i), sizeof(r->src));
	memcpy(r->dst, rp_acct_result_dst(m, (size_t)i), sizeof(r->dst));
	/* buckets and the exact count/min/max and sums */
	return rp_shist_from_buckets(rp_acct_result_lat(m, (size_t)i), h, idx, nidx) == 0;
}

static bool walk_flows(struct rp_rec_rd *r, const struct hdr *hd, struct walk *w)
{
	if (!rp_rec_fits(r, hd->nflows, 4 + 4 + 4 + 8 * RP_ACCT_REC_FLOW_U64 + 4 * 8 + 3 * 8 + 4 * 8 + 4))
		return false;
	for (uint32_t n = 0; n < hd->nflows && !r->bad; n++) {
		struct rp_acct_flow_result row;
		memset(&row, 0, sizeof(row));
		row.id = rp_rec_get32(r);
		row.qpn = rp_rec_get32(r);
		row.qps = rp_rec_get16(r);
		row.dscp = rp_rec_get8(r);
		row.prio = rp_rec_get8(r);
		for (size_t k = 0; k < RP_ACCT_REC_FLOW_U64; k++)
			*rp_acct_u64_at(&row, RP_ACCT_FLOW_U64[k]) = rp_rec_get64(r);
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
	for (unsigned q = 0; q < 8; q++) {
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
	if (!rp_rec_fits(r, hd->nports, 1 + 4 + 8 * RP_ACCT_REC_PORT_U64 + 8 * (1 + 8 * RP_ACCT_REC_PRIO_U64)))
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
		for (size_t k = 0; k < RP_ACCT_REC_PORT_U64; k++)
			*rp_acct_u64_at(&p, RP_ACCT_PORT_U64[k]) = rp_rec_get64(r);
		for (unsigned q = 0; q < 8; q++) {
			p.prio[q].prio = q;
			uint8_t ever = rp_rec_get8(r);
			if (ever > 1)
				return rp_rec_fail(r, "port %llu prio %llu: paused_ever is not 0 or 1", U(n), U(q));
			p.prio[q].paused_ever = ever;
			for (size_t k = 0; k < RP_ACCT_REC_PRIO_U64; k++)
				*rp_acct_u64_at(&p.prio[q], RP_ACCT_PRIO_U64[k]) = rp_rec_get64(r);
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
			if (rp_shist_from(&one, w->h) != 0 || rp_shist_merge(rp_acct_result_rtt(w->merged, (size_t)i), &one) != 0)
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

int rp_acct_unpack_into(struct rp_acct_result *merged, const uint8_t *buf, size_t len, char *err, size_t errlen)
{
	if (!merged || merged->discovered) {
		snprintf(err, errlen, "a merged result is created with the plan's flows (results_only), not in discovery mode");
		return -1;
	}
	return run(merged, buf, len, NULL, NULL, NULL, err, errlen);
}

int rp_acct_unpack_rows(const uint8_t *buf, size_t len, rp_acct_row_fn fn, void *ctx, struct rp_hist *agg, char *err,
			size_t errlen)
{
	return run(NULL, buf, len, fn, ctx, agg, err, errlen);
}

int rp_acct_merge_block(struct rp_acct_result *merged, const uint8_t *all, const size_t *lens, size_t n,
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

void rp_acct_merge_done(struct rp_acct_result *m)
{
	if (!m)
		return;
	rp_hist_init(&m->agg);
	for (size_t i = 0; i < m->nflows; i++) {
		rp_shist_merge_into(&m->agg, rp_acct_result_lat(m, i));
		rp_shist_summarize(rp_acct_result_rtt(m, i), &rp_acct_result_flow(m, i)->rtt_ns);
	}
	m->finished = true;
}

/* The sender's side of a flow: what only the sender's rank counts. Indexed
 * by flow id, so a rank whose accountant holds only some flows of the plan
 * fills its part of the plan-wide array. */
/* ---- one histogram, for other records (rank_env.c) ---- */

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

