/* During vs outside an aggression (windows.h). */
#include "report/windows.h"

#include <inttypes.h>
#include <stdlib.h>

#include "report/result.h"

static const char *const side_name[] = {"during", "outside", "edge"};

enum rp_window_side rp_report_window_side(uint64_t lo, uint64_t hi, const struct rp_report_window *w, size_t n)
{
	bool touches = false;
	for (size_t i = 0; i < n; i++) {
		if (lo >= w[i].start_ns && hi <= w[i].end_ns)
			return RP_WINDOW_DURING;
		touches |= lo < w[i].end_ns && hi > w[i].start_ns;
	}
	return touches ? RP_WINDOW_EDGE : RP_WINDOW_OUTSIDE;
}

struct split {
	struct rp_hist h[2];   /* during, outside */
	size_t bins[3];        /* bins with samples on each side */
	uint64_t edge_samples;
};

static const struct rp_ts *series(const struct rp_acct *a)
{
	const struct rp_ts *t = rp_acct_timeseries(a);
	return t && t->hists ? t : NULL;
}

static enum rp_window_side bin_side(const struct rp_ts *t, size_t b, const struct rp_report_window *w, size_t n)
{
	uint64_t lo = t->cfg.start_ns + b * t->cfg.bin_ns;
	return rp_report_window_side(lo, lo + t->cfg.bin_ns, w, n);
}

/* Merges the bins of each side; NULL when out of memory. */
static struct split *split_bins(const struct rp_ts *t, const struct rp_report_window *w, size_t n)
{
	struct split *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	rp_hist_init(&s->h[0]);
	rp_hist_init(&s->h[1]);
	size_t nb = rp_ts_used_bins(t);
	for (size_t b = 0; b < nb; b++) {
		const struct rp_shist *h = rp_ts_hist(t, b);
		if (!h->count)
			continue;
		enum rp_window_side side = bin_side(t, b, w, n);
		s->bins[side]++;
		if (side == RP_WINDOW_EDGE)
			s->edge_samples += h->count;
		else
			rp_shist_merge_into(&s->h[side], h);
	}
	return s;
}

json_t *rp_report_windows(const struct rp_acct *a, const struct rp_report_window *w, size_t n)
{
	const struct rp_ts *t = series(a);
	struct split *s = t ? split_bins(t, w, n) : NULL;
	if (!s)
		return NULL;
	json_t *wins = json_array(), *rows = json_array(), *bins = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(wins, json_pack("{s:s, s:I, s:I}", "name", w[i].name, "start_ns",
						      (json_int_t)w[i].start_ns, "end_ns", (json_int_t)w[i].end_ns));
	for (int k = 0; k < 2; k++)
		json_array_append_new(rows, json_pack("{s:s, s:I, s:o}", "window", side_name[k], "bins",
						      (json_int_t)s->bins[k], "latency_ns", rp_report_latency(&s->h[k])));
	size_t nb = rp_ts_used_bins(t);
	for (size_t b = 0; b < nb; b++) {
		const struct rp_shist *h = rp_ts_hist(t, b);
		if (!h->count)
			continue;
		struct rp_hist full;
		rp_hist_init(&full);
		rp_shist_merge_into(&full, h);
		json_array_append_new(bins, json_pack("{s:I, s:I, s:s, s:o}", "bin", (json_int_t)b, "start_ns",
						      (json_int_t)(t->cfg.start_ns + b * t->cfg.bin_ns), "window",
						      side_name[bin_side(t, b, w, n)], "latency_ns", rp_report_latency(&full)));
	}
	json_t *o = json_pack("{s:I, s:o, s:o, s:I, s:I, s:o}", "bin_ns", (json_int_t)t->cfg.bin_ns, "windows", wins,
			      "latency", rows, "edge_bins", (json_int_t)s->bins[RP_WINDOW_EDGE], "edge_samples",
			      (json_int_t)s->edge_samples, "bins", bins);
	free(s);
	return o;
}

void rp_report_window_pause(const struct rp_acct *a, size_t port, const struct rp_report_window *w, size_t n,
			    uint64_t *frames, uint64_t *paused_ns)
{
	const struct rp_ts *t = rp_acct_timeseries(a);
	*frames = *paused_ns = 0;
	if (!t || port >= t->cfg.nports)
		return;
	size_t nb = rp_ts_used_bins(t);
	for (size_t b = 0; b < nb; b++)
		for (unsigned q = 0; q < 8 && bin_side(t, b, w, n) == RP_WINDOW_DURING; q++) {
			*frames += rp_ts_pfc_frames(t, b, port, q);
			*paused_ns += rp_ts_paused_ns(t, b, port, q);
		}
}

void rp_report_print_windows(FILE *f, const struct rp_acct *a, const struct rp_report_window *w, size_t n)
{
	const struct rp_ts *t = series(a);
	struct split *s = t ? split_bins(t, w, n) : NULL;
	if (!s)
		return;
	fprintf(f, "\nworkload latency during / outside the aggression (bins of %.3g ms by receive time; windows:",
		(double)t->cfg.bin_ns / 1e6);
	for (size_t i = 0; i < n; i++)
		fprintf(f, " %s %.3f-%.3f s", w[i].name, (double)w[i].start_ns / 1e9, (double)w[i].end_ns / 1e9);
	fprintf(f, ")\n%-8s %6s %10s %12s %12s %12s %12s\n", "window", "bins", "samples", "p50 ns", "p90 ns", "p99 ns",
		"max ns");
	for (int k = 0; k < 2; k++) {
		struct rp_hist_summary x;
		rp_hist_summarize(&s->h[k], &x);
		fprintf(f, "%-8s %6zu %10" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64 "\n", side_name[k],
			s->bins[k], x.count, x.pct[RP_P50], x.pct[RP_P90], x.pct[RP_P99], x.max);
	}
	if (s->bins[RP_WINDOW_EDGE])
		fprintf(f, "(%zu bins across a window's edge, %" PRIu64 " samples, are in neither row)\n",
			s->bins[RP_WINDOW_EDGE], s->edge_samples);
	free(s);
}
