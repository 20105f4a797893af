/* The pair matrix and its outliers (pairs.h). */
#include "pairs.h"

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
	size_t n;
	double good, late, loss;     /* the median pair's goodput, p99 and loss % */
};

static int cmp_first(const void *x, const void *y)
{
	const size_t *a = x, *b = y; /* [first flow, row] */
	return (a[0] > b[0]) - (a[0] < b[0]);
}

/* One sort groups the flows by pair (no scan of every pair per flow), one
 * scratch histogram merges each pair's latencies in turn. */
static void rows_build(const struct rp_acct *a, struct pair_set *ps, struct flow_key *k, size_t nf,
		       struct rp_pair_result *tmp, size_t *first)
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
			q->goodput_gbps += r.goodput_active_gbps;
			rp_shist_merge(h, rp_acct_flow_latency_sparse(a, k[i].flow));
		}
		struct rp_hist_summary s;
		rp_shist_summarize(h, &s);
		q->p50_ns = s.pct[RP_P50];
		q->p99_ns = s.pct[RP_P99];
		q->max_ns = s.max;
		q->loss_pct = q->tx_packets ? 100.0 * (double)q->lost / (double)q->tx_packets : 0;
		ps->n++;
	}
	rp_shist_free(h);
	qsort(first, ps->n, 2 * sizeof(*first), cmp_first);
	for (size_t r = 0; r < ps->n; r++)
		ps->rows[r] = tmp[first[2 * r + 1]];
}

/* The medians once, then each pair against them (nothing stands out among
 * fewer than two pairs). */
static void flag_outliers(struct pair_set *ps)
{
	double *v = malloc((ps->n ? ps->n : 1) * sizeof(*v));
	for (size_t i = 0; v && i < ps->n; i++)
		v[i] = ps->rows[i].goodput_gbps;
	ps->good = v ? median(v, ps->n) : 0;
	for (size_t i = 0; v && i < ps->n; i++)
		v[i] = (double)ps->rows[i].p99_ns;
	ps->late = v ? median(v, ps->n) : 0;
	for (size_t i = 0; v && i < ps->n; i++)
		v[i] = ps->rows[i].loss_pct;
	ps->loss = v ? median(v, ps->n) : 0;
	free(v);
	for (size_t i = 0; i < ps->n && ps->n > 1; i++) {
		const struct rp_pair_result *p = &ps->rows[i];
		ps->flags[i] = (p->goodput_gbps < 0.9 * ps->good ? RP_PAIR_SLOW : 0) |
			       ((double)p->p99_ns > 2 * ps->late && ps->late > 0 ? RP_PAIR_LATE : 0) |
			       (p->lost && p->loss_pct > 2 * ps->loss ? RP_PAIR_LOSSY : 0);
	}
}

static void pair_set_free(struct pair_set *ps)
{
	free(ps->rows);
	free(ps->flags);
}

/* Every pair of a's flows, flagged; an empty set when out of memory. */
static void pair_set_build(const struct rp_acct *a, struct pair_set *ps)
{
	size_t nf = rp_acct_nflows(a), m = nf ? nf : 1;
	struct flow_key *k = malloc(m * sizeof(*k));
	struct rp_pair_result *tmp = malloc(m * sizeof(*tmp));
	size_t *first = malloc(2 * m * sizeof(*first));
	*ps = (struct pair_set){.rows = calloc(m, sizeof(*ps->rows)), .flags = calloc(m, sizeof(*ps->flags))};
	if (k && tmp && first && ps->rows && ps->flags) {
		rows_build(a, ps, k, nf, tmp, first);
		flag_outliers(ps);
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

struct rp_pairs *rp_pairs_build(const struct rp_acct *a)
{
	struct rp_pairs *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	pair_set_build(a, &p->ps);
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

json_t *rp_pairs_row_item(void *pairs, size_t i)
{
	const struct rp_pair_result *p = ((const struct rp_pairs *)pairs)->ps.rows;
	return json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:f, s:f, s:I, s:I, s:I}", "src",
						      p[i].src, "dst", p[i].dst, "flows", (json_int_t)p[i].flows,
						      "tx_packets", (json_int_t)p[i].tx_packets, "rx_packets",
						      (json_int_t)p[i].rx_packets, "lost", (json_int_t)p[i].lost, "loss_pct",
						      p[i].loss_pct, "goodput_gbps", p[i].goodput_gbps, "p50_ns",
						      (json_int_t)p[i].p50_ns, "p99_ns", (json_int_t)p[i].p99_ns, "max_ns",
						      (json_int_t)p[i].max_ns);
}

json_t *rp_pairs_outlier_item(void *pairs, size_t k)
{
	const struct rp_pairs *ps = pairs;
	const struct rp_pair_result *p = ps->ps.rows;
	const unsigned *fl = ps->ps.flags;
	double good = ps->ps.good, late = ps->ps.late;
	size_t i = ps->out[k];
	json_t *why = json_array();
		if (fl[i] & RP_PAIR_SLOW)
			json_array_append_new(why, json_string("slow"));
		if (fl[i] & RP_PAIR_LATE)
			json_array_append_new(why, json_string("late"));
		if (fl[i] & RP_PAIR_LOSSY)
			json_array_append_new(why, json_string("lossy"));
	return json_pack("{s:s, s:s, s:o, s:f, s:f}", "src", p[i].src, "dst", p[i].dst, "why", why, "goodput_vs_median",
			 ratio(p[i].goodput_gbps, good), "p99_vs_median", ratio((double)p[i].p99_ns, late));
}

json_t *rp_report_pairs(const struct rp_acct *a)
{
	struct rp_pairs *p = rp_pairs_build(a);
	json_t *rows = json_array(), *out = json_array();
	for (size_t i = 0; p && i < p->ps.n; i++)
		json_array_append_new(rows, rp_pairs_row_item(p, i));
	for (size_t i = 0; p && i < p->nout; i++)
		json_array_append_new(out, rp_pairs_outlier_item(p, i));
	rp_pairs_free(p);
	return json_pack("{s:o, s:o}", "rows", rows, "outliers", out);
}

void rp_report_print_pairs(FILE *f, const struct rp_acct *a, size_t max_rows)
{
	struct pair_set ps;
	pair_set_build(a, &ps);
	const struct rp_pair_result *p = ps.rows;
	const unsigned *fl = ps.flags;
	size_t n = ps.n, shown = 0, flagged = 0;
	double good = ps.good, late = ps.late;
	for (size_t i = 0; i < n; i++)
		flagged += fl[i] != 0;
	if (n > 1 && !flagged)
		fprintf(f, "pairs: %zu host pairs; none stands out (median goodput %.3f Gbit/s, p99 %.0f ns)\n", n, good,
			late);
	else if (n > 1)
		fprintf(f, "pairs: %zu host pairs, %zu stand out (median goodput %.3f Gbit/s, p99 %.0f ns):\n", n, flagged,
			good, late);
	for (size_t i = 0; i < n && shown < max_rows; i++) {
		if (!fl[i])
			continue;
		fprintf(f, "  %s -> %s:%s%s%s goodput %.3f Gbit/s (%.2f x median), p99 %llu ns (%.2f x median), lost %llu "
			   "(%.3f%%)\n",
			p[i].src, p[i].dst, fl[i] & RP_PAIR_SLOW ? " SLOW" : "", fl[i] & RP_PAIR_LATE ? " LATE" : "",
			fl[i] & RP_PAIR_LOSSY ? " LOSSY" : "", p[i].goodput_gbps, ratio(p[i].goodput_gbps, good),
			(unsigned long long)p[i].p99_ns, ratio((double)p[i].p99_ns, late), (unsigned long long)p[i].lost,
			p[i].loss_pct);
		shown++;
	}
	if (flagged > shown)
		fprintf(f, "  ... %zu more in result.json (\"pairs\".\"outliers\")\n", flagged - shown);
	pair_set_free(&ps);
}
