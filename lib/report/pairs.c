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

/* The pair index of every flow (pairs numbered in order of first appearance). */
static size_t number_pairs(const struct rp_acct *a, size_t *pair_of, struct rp_pair_result *pairs)
{
	size_t np = 0, nf = rp_acct_nflows(a);
	for (size_t i = 0; i < nf; i++) {
		struct rp_acct_flow_result r;
		rp_acct_flow(a, i, &r);
		size_t p = 0;
		while (p < np && (strcmp(pairs[p].src, r.src) || strcmp(pairs[p].dst, r.dst)))
			p++;
		if (p == np) {
			memset(&pairs[np], 0, sizeof(pairs[np]));
			memcpy(pairs[np].src, r.src, sizeof(r.src));
			memcpy(pairs[np].dst, r.dst, sizeof(r.dst));
			np++;
		}
		pair_of[i] = p;
		struct rp_pair_result *q = &pairs[p];
		q->flows++;
		q->tx_packets += r.tx_packets;
		q->rx_packets += r.rx_packets;
		q->lost += r.lost;
		q->goodput_gbps += r.goodput_active_gbps;
	}
	return np;
}

/* The median goodput and p99 over the pairs (for the outliers' ratios). */
static void medians(const struct rp_pair_result *p, size_t n, double *good, double *late)
{
	double *v = malloc((n ? n : 1) * sizeof(*v));
	*good = *late = 0;
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		v[i] = p[i].goodput_gbps;
	*good = median(v, n);
	for (size_t i = 0; i < n; i++)
		v[i] = (double)p[i].p99_ns;
	*late = median(v, n);
	free(v);
}

/* Each pair against the median pair (nothing stands out among fewer than two). */
static void flag_outliers(const struct rp_pair_result *p, size_t n, unsigned *flags)
{
	double good, late, loss = 0, *v = malloc((n ? n : 1) * sizeof(*v));
	medians(p, n, &good, &late);
	for (size_t i = 0; v && i < n; i++)
		v[i] = p[i].loss_pct;
	if (v)
		loss = median(v, n);
	free(v);
	for (size_t i = 0; i < n && n > 1; i++) {
		flags[i] = 0;
		if (p[i].goodput_gbps < 0.9 * good)
			flags[i] |= RP_PAIR_SLOW;
		if ((double)p[i].p99_ns > 2 * late && late > 0)
			flags[i] |= RP_PAIR_LATE;
		if (p[i].lost && p[i].loss_pct > 2 * loss)
			flags[i] |= RP_PAIR_LOSSY;
	}
}

size_t rp_report_pair_results(const struct rp_acct *a, struct rp_pair_result **out, unsigned **flags)
{
	size_t nf = rp_acct_nflows(a);
	size_t *pair_of = malloc((nf ? nf : 1) * sizeof(*pair_of));
	struct rp_pair_result *pairs = calloc(nf ? nf : 1, sizeof(*pairs));
	struct rp_hist *h = malloc(sizeof(*h));
	unsigned *fl = calloc(nf ? nf : 1, sizeof(*fl));
	*out = NULL;
	if (flags)
		*flags = NULL;
	if (!pair_of || !pairs || !h || !fl) {
		free(pair_of), free(pairs), free(h), free(fl);
		return 0;
	}
	size_t np = number_pairs(a, pair_of, pairs);
	/* One scratch histogram, pair after pair: nothing per pair but its row. */
	for (size_t p = 0; p < np; p++) {
		rp_hist_init(h);
		for (size_t i = 0; i < nf; i++)
			if (pair_of[i] == p)
				rp_hist_merge(h, rp_acct_flow_latency(a, i));
		struct rp_hist_summary s;
		rp_hist_summarize(h, &s);
		pairs[p].p50_ns = s.pct[RP_P50];
		pairs[p].p99_ns = s.pct[RP_P99];
		pairs[p].max_ns = s.max;
		pairs[p].loss_pct = pairs[p].tx_packets ? 100.0 * (double)pairs[p].lost / (double)pairs[p].tx_packets : 0;
	}
	flag_outliers(pairs, np, fl);
	free(pair_of);
	free(h);
	*out = pairs;
	if (flags)
		*flags = fl;
	else
		free(fl);
	return np;
}

static double ratio(double x, double med)
{
	return med > 0 ? x / med : 0;
}

json_t *rp_report_pairs(const struct rp_acct *a)
{
	struct rp_pair_result *p;
	unsigned *fl;
	size_t n = rp_report_pair_results(a, &p, &fl);
	double good, late;
	medians(p, n, &good, &late);
	json_t *rows = json_array(), *out = json_array();
	for (size_t i = 0; i < n; i++) {
		json_array_append_new(rows, json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:f, s:f, s:I, s:I, s:I}", "src",
						      p[i].src, "dst", p[i].dst, "flows", (json_int_t)p[i].flows,
						      "tx_packets", (json_int_t)p[i].tx_packets, "rx_packets",
						      (json_int_t)p[i].rx_packets, "lost", (json_int_t)p[i].lost, "loss_pct",
						      p[i].loss_pct, "goodput_gbps", p[i].goodput_gbps, "p50_ns",
						      (json_int_t)p[i].p50_ns, "p99_ns", (json_int_t)p[i].p99_ns, "max_ns",
						      (json_int_t)p[i].max_ns));
		if (!fl[i])
			continue;
		json_t *why = json_array();
		if (fl[i] & RP_PAIR_SLOW)
			json_array_append_new(why, json_string("slow"));
		if (fl[i] & RP_PAIR_LATE)
			json_array_append_new(why, json_string("late"));
		if (fl[i] & RP_PAIR_LOSSY)
			json_array_append_new(why, json_string("lossy"));
		json_array_append_new(out, json_pack("{s:s, s:s, s:o, s:f, s:f}", "src", p[i].src, "dst", p[i].dst, "why",
						     why, "goodput_vs_median", ratio(p[i].goodput_gbps, good),
						     "p99_vs_median", ratio((double)p[i].p99_ns, late)));
	}
	free(p);
	free(fl);
	return json_pack("{s:o, s:o}", "rows", rows, "outliers", out);
}

void rp_report_print_pairs(FILE *f, const struct rp_acct *a, size_t max_rows)
{
	struct rp_pair_result *p;
	unsigned *fl;
	size_t n = rp_report_pair_results(a, &p, &fl), shown = 0, flagged = 0;
	double good, late;
	medians(p, n, &good, &late);
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
	free(p);
	free(fl);
}
