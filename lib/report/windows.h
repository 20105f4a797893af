/* A workload's latency during and outside an aggression (docs/cluster.md,
 * "Mixed runs"): the time series' per-bin histograms (rp_ts cfg.bin_hist,
 * the accountant's bin_hist flows: the workload's) merged bucket by bucket
 * over the bins that lie inside a window, and over the bins that touch no
 * window. A bin that straddles a window's edge is in neither (listed as
 * "edge"). Bins are by receive time on the run's common timebase. From a
 * finished accountant; no printing but to the FILE given. */
#ifndef RP_REPORT_WINDOWS_H
#define RP_REPORT_WINDOWS_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "stats/acct.h"

struct rp_report_window {
	const char *name;  /* the aggressor's traffic entry */
	uint64_t start_ns; /* [start, end) on the run's timebase (plan time) */
	uint64_t end_ns;
};

enum rp_window_side { RP_WINDOW_DURING, RP_WINDOW_OUTSIDE, RP_WINDOW_EDGE };
/* Where bin [lo, hi) lies. */
enum rp_window_side rp_report_window_side(uint64_t lo, uint64_t hi, const struct rp_report_window *w, size_t n);

/* {"bin_ns", "windows":[{"name","start_ns","end_ns"}],
 *  "latency":[{"window":"during"|"outside", "bins", "latency_ns":{...}}],
 *  "edge_bins", "edge_samples",
 *  "bins":[{"bin","start_ns","window":"during"|"outside"|"edge","latency_ns":{..., "histogram"}}]}
 * (bins: those with samples). NULL when the accountant keeps no per-bin histograms. */
json_t *rp_report_windows(const struct rp_acct *a, const struct rp_report_window *w, size_t n);
/* PFC/PAUSE frames received at accountant port `port` and its paused ns
 * (every priority) in the bins inside the windows. */
void rp_report_window_pause(const struct rp_acct *a, size_t port, const struct rp_report_window *w, size_t n,
			    uint64_t *frames, uint64_t *paused_ns);
/* The table: one row during the windows, one outside. */
void rp_report_print_windows(FILE *f, const struct rp_acct *a, const struct rp_report_window *w, size_t n);

#endif
