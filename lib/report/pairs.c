/* The pair matrix and its outliers (pairs.h). */
#include "pairs.h"
#include "result.h"
#include "report/outdir.h"

#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* A flow's place in the sort that groups flows by pair. */
struct flow_key {
	char src[RP_ACCT_NAME_MAX], dst[RP_ACCT_NAME_MAX];
	size_t flow;
};

static int cmp_key(const void *x, const void *y)
{
	const struct flow_key *a = x, *b = y;
	int c = strcmp(a->src, b->src);
	c = c ? c : strcmp(a->dst, b->dst);
	return c ? c : (a->flow > b->flow) - (a->flow < b->flow);
}

struct pair_set {
	struct rp_pair_result *rows; /* in order of first appearance among the flows */
	unsigned *flags;             /* rp_pair_flag bits, by row */
	double *peer_loss, *slow_bar; /* rp_pairs_flag's, by row */
	size_t n;
	struct rp_pairs_medians med;
	bool cancelled; /* a stop came while it was built (report/outdir.h): not built */
};

static int cmp_first(const void *x, const void *y)
{
	const size_t *a = x, *b = y; /* [first flow, row] */
	return (a[0] > b[0]) - (a[0] < b[0]);
}

/* One sort groups the flows by pair (no scan of every pair per flow), one
 * scratch histogram merges each pair's latencies in turn. */
static void rows_build(const struct rp_acct *a, const struct rp_pairs_plan *plan, struct pair_set *ps,
		       struct flow_key *k, size_t nf, struct rp_pair_result *tmp, size_t *first)
{
	struct rp_shist sh, *h = &sh; /* the pair's latencies: its flows' buckets, no more */
	rp_shist_init(h);
	for (size_t i = 0; i < nf; i++) {
		struct rp_acct_flow_result r;
		rp_acct_flow(a, i, &r);
		memcpy(k[i].src, r.src, sizeof(r.src));
		memcpy(k[i].dst, r.dst, sizeof(r.dst));
		k[i].flow = i;
	}
	qsort(k, nf, sizeof(*k), cmp_key);
	for (size_t i = 0; h && i < nf;) {
		if (ps->n % 4096 == 4095 && (ps->cancelled = rp_outdir_cancelled())) /* seconds for a million flows */
			break;
		struct rp_pair_result *q = &tmp[ps->n];
		*q = (struct rp_pair_result){0};
		memcpy(q->src, k[i].src, sizeof(q->src));
		memcpy(q->dst, k[i].dst, sizeof(q->dst));
		first[2 * ps->n] = k[i].flow; /* the group's smallest flow index: sorted last by flow */
		first[2 * ps->n + 1] = ps->n;
		h->n = 0; /* emptied, its memory kept for the next pair */
		h->count = 0, h->min = UINT64_MAX, h->max = 0, memset(&h->sums, 0, sizeof(h->sums));
		for (; i < nf && !strcmp(k[i].src, q->src) && !strcmp(k[i].dst, q->dst); i++) {
			struct rp_acct_flow_result r;
			rp_acct_flow(a, k[i].flow, &r);
			q->flows++;
			q->tx_packets += r.tx_packets;
			q->rx_packets += r.rx_packets;
			q->lost += r.lost;
			uint64_t flying = rp_acct_flow_in_flight(a, k[i].flow);
			q->in_flight += flying;
			q->goodput_gbps += r.goodput_active_gbps;
			if (plan && plan->expect_gbps)
				q->expected_gbps += plan->expect_gbps[k[i].flow];
			if (plan && ((plan->lossless >> (r.prio & 7)) & 1u)) {
				q->lost_lossless += r.lost;
			} else {
				q->tx_lossy += r.tx_packets - flying;
				q->lost_lossy += r.lost;
			}
			rp_shist_merge(h, rp_acct_flow_latency_sparse(a, k[i].flow));
		}
		struct rp_hist_summary s;
		rp_shist_summarize(h, &s);
		q->p50_ns = s.pct[RP_P50];
		q->p99_ns = s.pct[RP_P99];
		q->max_ns = s.max;
		q->latency_samples = s.count;
		uint64_t settled = q->tx_packets - q->in_flight;
		q->loss_pct = settled ? 100.0 * (double)q->lost / (double)settled : 0;
		ps->n++;
	}
	rp_shist_free(h);
	qsort(first, ps->n, 2 * sizeof(*first), cmp_first);
	for (size_t r = 0; r < ps->n; r++)
		ps->rows[r] = tmp[first[2 * r + 1]];
}

/* Goodput over what its plan lets it reach (expected_gbps > 0). */
static double reached(const struct rp_pair_result *p)
{
	return p->goodput_gbps / p->expected_gbps;
}

static double lossy_pct(const struct rp_pair_result *p)
{
	return p->tx_lossy ? 100.0 * (double)p->lost_lossy / (double)p->tx_lossy : 0;
}

/* The median of sorted v[0..m) with one element equal to x taken out
 * (x is among them); -1 when none is left. */
static double median_without(const double *v, size_t m, double x)
{
	if (m < 2)
		return -1;
	size_t lo = 0, hi = m; /* the first index whose value is >= x: v[j] == x */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t j = lo, r = m - 1; /* v without v[j], r elements: w(k) = v[k < j ? k : k + 1] */
#define W(k) v[(k) < j ? (k) : (k) + 1]
	double med = r % 2 ? W(r / 2) : (W(r / 2 - 1) + W(r / 2)) / 2;
#undef W
	return med;
}

int rp_pairs_flag(const struct rp_pair_result *rows, size_t n, unsigned *flags, double *peer_loss, double *slow_bar,
		  struct rp_pairs_medians *med)
{
	double *v = malloc((n ? n : 1) * sizeof(*v));
	*med = (struct rp_pairs_medians){0};
	for (size_t i = 0; i < n; i++) {
		flags[i] = 0;
		peer_loss[i] = slow_bar[i] = -1;
	}
	if (!v)
		return -1;
	for (size_t i = 0; i < n; i++)
		v[i] = rows[i].goodput_gbps;
	med->good = median(v, n);
	for (size_t i = 0; i < n; i++)
		v[i] = (double)rows[i].p99_ns;
	med->late = median(v, n);
	for (size_t i = 0; i < n; i++)
		v[i] = rows[i].loss_pct;
	med->loss = median(v, n);
	double *w = malloc((n ? n : 1) * sizeof(*w));
	if (!w) {
		free(v);
		return -1;
	}
	size_t m = 0, mr = 0; /* the pairs that send on a lossy priority, by their loss % there; */
	for (size_t i = 0; i < n; i++) {   /* the pairs with a plan, by how much of it they reached */
		if (rows[i].tx_lossy)
			v[m++] = lossy_pct(&rows[i]);
		if (rows[i].expected_gbps > 0)
			w[mr++] = reached(&rows[i]);
	}
	qsort(v, m, sizeof(*v), cmp_double);
	qsort(w, mr, sizeof(*w), cmp_double);
	med->reached = median(w, mr);
	for (size_t i = 0; i < n; i++) {
		const struct rp_pair_result *p = &rows[i];
		double peers = p->tx_lossy ? median_without(v, m, lossy_pct(p)) : -1;
		double others = p->expected_gbps > 0 ? median_without(w, mr, reached(p)) : -1;
		double bar = others >= 0 && others < 1 ? others : 1; /* the others fell short of their plans: so may it */
		bool slow = p->expected_gbps > 0 && reached(p) < RP_PAIR_SLOW_SHARE * bar;
		bool late = n > 1 && med->late > 0 && (double)p->p99_ns > RP_PAIR_LATE_FACTOR * med->late;
		bool lossy = p->lost_lossless > 0 ||
			     (p->lost_lossy > 0 && peers >= 0 && lossy_pct(p) > RP_PAIR_LOSSY_FACTOR * peers);
		peer_loss[i] = peers;
		slow_bar[i] = p->expected_gbps > 0 ? RP_PAIR_SLOW_SHARE * bar * p->expected_gbps : -1;
		flags[i] = (slow ? RP_PAIR_SLOW : 0) | (late ? RP_PAIR_LATE : 0) | (lossy ? RP_PAIR_LOSSY : 0);
	}
	free(w);
	free(v);
	return 0;
}

static void pair_set_free(struct pair_set *ps)
{
	free(ps->rows);
	free(ps->flags);
	free(ps->peer_loss);
	free(ps->slow_bar);
}

/* Every pair of a's flows, flagged; an empty set when out of memory. */
static void pair_set_build(const struct rp_acct *a, const struct rp_pairs_plan *plan, struct pair_set *ps)
{
	size_t nf = rp_acct_nflows(a), m = nf ? nf : 1;
	struct flow_key *k = malloc(m * sizeof(*k));
	struct rp_pair_result *tmp = malloc(m * sizeof(*tmp));
	size_t *first = malloc(2 * m * sizeof(*first));
	*ps = (struct pair_set){.rows = calloc(m, sizeof(*ps->rows)), .flags = calloc(m, sizeof(*ps->flags)),
				.peer_loss = calloc(m, sizeof(*ps->peer_loss)), .slow_bar = calloc(m, sizeof(*ps->slow_bar))};
	if (k && tmp && first && ps->rows && ps->flags && ps->peer_loss && ps->slow_bar) {
		rows_build(a, plan, ps, k, nf, tmp, first);
		if (!ps->cancelled)
			rp_pairs_flag(ps->rows, ps->n, ps->flags, ps->peer_loss, ps->slow_bar, &ps->med);
	}
	free(k);
	free(tmp);
	free(first);
}

static double ratio(double x, double med)
{
	return med > 0 ? x / med : 0;
}

struct rp_pairs {
	struct pair_set ps;
	size_t *out; /* the flagged rows, in order */
	size_t nout;
};

struct rp_pairs *rp_pairs_build(const struct rp_acct *a, const struct rp_pairs_plan *plan)
{
	struct rp_pairs *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	pair_set_build(a, plan, &p->ps);
	if (p->ps.cancelled) {
		rp_pairs_free(p);
		return NULL;
	}
	p->out = malloc((p->ps.n ? p->ps.n : 1) * sizeof(*p->out));
	if (!p->out) {
		rp_pairs_free(p);
		return NULL;
	}
	for (size_t i = 0; i < p->ps.n; i++)
		if (p->ps.flags[i])
			p->out[p->nout++] = i;
	return p;
}

void rp_pairs_free(struct rp_pairs *p)
{
	if (!p)
		return;
	pair_set_free(&p->ps);
	free(p->out);
	free(p);
}

size_t rp_pairs_nrows(const struct rp_pairs *p)
{
	return p->ps.n;
}

size_t rp_pairs_noutliers(const struct rp_pairs *p)
{
	return p->nout;
}

/* A known number, or null. */
static json_t *known(double v, bool ok)
{
	return ok ? json_real(v) : json_null();
}

void rp_pairs_row_write(struct rp_jw *w, void *pairs, size_t i)
{
	const struct rp_pair_result *p = ((const struct rp_pairs *)pairs)->ps.rows;
	bool lat = p[i].latency_samples > 0;
	rp_jw_obj(w, NULL);
	rp_jw_str(w, "src", p[i].src);
	rp_jw_str(w, "dst", p[i].dst);
	rp_jw_int(w, "flows", (int64_t)p[i].flows);
	rp_jw_int(w, "tx_packets", (int64_t)p[i].tx_packets);
	rp_jw_int(w, "rx_packets", (int64_t)p[i].rx_packets);
	rp_jw_int(w, "lost", (int64_t)p[i].lost);
	rp_jw_int(w, "in_flight", (int64_t)p[i].in_flight);
	rp_jw_real(w, "loss_pct", p[i].loss_pct);
	rp_jw_real(w, "goodput_gbps", p[i].goodput_gbps);
	lat ? rp_jw_int(w, "p50_ns", (int64_t)p[i].p50_ns) : rp_jw_null(w, "p50_ns");
	lat ? rp_jw_int(w, "p99_ns", (int64_t)p[i].p99_ns) : rp_jw_null(w, "p99_ns");
	lat ? rp_jw_int(w, "max_ns", (int64_t)p[i].max_ns) : rp_jw_null(w, "max_ns");
	p[i].expected_gbps > 0 ? rp_jw_real(w, "expected_gbps", p[i].expected_gbps) : rp_jw_null(w, "expected_gbps");
	rp_jw_int(w, "lost_lossless", (int64_t)p[i].lost_lossless);
	rp_jw_end(w);
}

json_t *rp_pairs_row_item(void *pairs, size_t i)
{
	return rp_jw_tree(rp_pairs_row_write, pairs, i);
}

json_t *rp_pairs_outlier_item(void *pairs, size_t k)
{
	const struct rp_pairs *ps = pairs;
	const struct rp_pair_result *p = ps->ps.rows;
	const unsigned *fl = ps->ps.flags;
	double good = ps->ps.med.good, late = ps->ps.med.late;
	size_t i = ps->out[k];
	json_t *why = json_array();
	if (fl[i] & RP_PAIR_SLOW)
		json_array_append_new(why, json_string("slow"));
	if (fl[i] & RP_PAIR_LATE)
		json_array_append_new(why, json_string("late"));
	if (fl[i] & RP_PAIR_LOSSY)
		json_array_append_new(why, json_string("lossy"));
	double ex = p[i].expected_gbps, peers = ps->ps.peer_loss[i], bar = ps->ps.slow_bar[i];
	return json_pack("{s:s, s:s, s:o, s:f, s:f, s:o, s:o, s:o, s:I, s:o}", "src", p[i].src, "dst", p[i].dst, "why",
			 why, "goodput_vs_median", ratio(p[i].goodput_gbps, good), "p99_vs_median",
			 ratio((double)p[i].p99_ns, late), "expected_gbps", known(ex, ex > 0), "goodput_vs_expected",
			 known(ratio(p[i].goodput_gbps, ex), ex > 0), "slow_below_gbps", known(bar, bar >= 0),
			 "lost_lossless", (json_int_t)p[i].lost_lossless, "peers_loss_pct", known(peers, peers >= 0));
}

json_t *rp_report_pairs(const struct rp_acct *a, const struct rp_pairs_plan *plan)
{
	struct rp_pairs *p = rp_pairs_build(a, plan);
	json_t *rows = json_array(), *out = json_array();
	for (size_t i = 0; p && i < p->ps.n; i++)
		json_array_append_new(rows, rp_pairs_row_item(p, i));
	for (size_t i = 0; p && i < p->nout; i++)
		json_array_append_new(out, rp_pairs_outlier_item(p, i));
	rp_pairs_free(p);
	return json_pack("{s:o, s:o}", "rows", rows, "outliers", out);
}

/* Why a flagged pair's loss stands out, in words. */
static void loss_words(const struct rp_pair_result *p, double peers, unsigned fl, char *buf, size_t len)
{
	if (!(fl & RP_PAIR_LOSSY))
		buf[0] = '\0';
	else if (p->lost_lossless)
		snprintf(buf, len, ", %llu on a lossless priority", (unsigned long long)p->lost_lossless);
	else
		snprintf(buf, len, ", lossy priority: %.3f%% against the other pairs' median %.3f%%",
			 100.0 * (double)p->lost_lossy / (double)p->tx_lossy, peers);
}

static void print_set(FILE *f, const struct pair_set *set, size_t max_rows)
{
	const struct pair_set ps = *set;
	const struct rp_pair_result *p = ps.rows;
	const unsigned *fl = ps.flags;
	size_t n = ps.n, shown = 0, flagged = 0;
	double good = ps.med.good, late = ps.med.late;
	for (size_t i = 0; i < n; i++)
		flagged += fl[i] != 0;
	char plan_words[96] = "each against its plan";
	if (ps.med.reached > 0)
		snprintf(plan_words, sizeof(plan_words), "each against its plan; the median pair reached %.2f of its plan",
			 ps.med.reached);
	if (n > 1 && !flagged)
		fprintf(f, "pairs: %zu host pairs; none stands out (%s; median goodput %.3f Gbit/s, p99 %.0f ns)\n", n,
			plan_words, good, late);
	else if (flagged)
		fprintf(f, "pairs: %zu host pair%s, %zu stand%s out (%s; median goodput %.3f Gbit/s, p99 %.0f ns):\n", n,
			n > 1 ? "s" : "", flagged, flagged > 1 ? "" : "s", plan_words, good, late);
	for (size_t i = 0; i < n && shown < max_rows; i++) {
		if (!fl[i])
			continue;
		char ex[64], lw[128];
		if (p[i].expected_gbps > 0)
			snprintf(ex, sizeof(ex), "%.2f x the %.3f its plan lets it reach",
				 ratio(p[i].goodput_gbps, p[i].expected_gbps), p[i].expected_gbps);
		else
			snprintf(ex, sizeof(ex), "no plan to compare with");
		loss_words(&p[i], ps.peer_loss[i], fl[i], lw, sizeof(lw));
		char p99[RP_REPORT_CELL];
		fprintf(f, "  %s -> %s:%s%s%s goodput %.3f Gbit/s (%s), p99 %s ns (%.2f x median), lost %llu (%.3f%%%s)\n",
			p[i].src, p[i].dst, fl[i] & RP_PAIR_SLOW ? " SLOW" : "", fl[i] & RP_PAIR_LATE ? " LATE" : "",
			fl[i] & RP_PAIR_LOSSY ? " LOSSY" : "", p[i].goodput_gbps, ex,
			rp_report_ns_cell(p99, p[i].latency_samples, p[i].p99_ns), ratio((double)p[i].p99_ns, late),
			(unsigned long long)p[i].lost, p[i].loss_pct, lw);
		shown++;
	}
	if (flagged > shown)
		fprintf(f, "  ... %zu more in result.json (\"pairs\".\"outliers\")\n", flagged - shown);
}

void rp_report_print_pairs(FILE *f, const struct rp_acct *a, const struct rp_pairs_plan *plan, size_t max_rows)
{
	struct pair_set ps;
	pair_set_build(a, plan, &ps);
	print_set(f, &ps, max_rows);
	pair_set_free(&ps);
}

void rp_pairs_print(FILE *f, const struct rp_pairs *p, size_t max_rows)
{
	print_set(f, &p->ps, max_rows);
}

bool rp_pairs_says(const struct rp_pairs *p)
{
	return p && (p->ps.n > 1 || p->nout);
}
