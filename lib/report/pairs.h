/* The pair matrix: one row per (source host, destination host) with data,
 * and the pairs that stand out, so one bad NIC, cable or path is named
 * instead of hidden in an average: each pair judged against what its plan
 * asked of it (goodput at its share of the ports it shares; no loss on a
 * lossless priority), on a lossy priority against its peers' loss. From a finished accountant
 * (one process, or the merge of many ranks). No printing but to the FILE given. */
#ifndef RP_REPORT_PAIRS_H
#define RP_REPORT_PAIRS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "report/doc.h"
#include "stats/acct.h"

struct rp_pair_result {
	char src[RP_ACCT_NAME_MAX], dst[RP_ACCT_NAME_MAX];
	size_t flows;
	uint64_t tx_packets, rx_packets, lost;
	uint64_t in_flight;   /* of tx_packets, still in the fabric when a lab run stopped: not lost */
	double loss_pct;      /* lost / (tx_packets - in_flight) */
	uint64_t latency_samples; /* probes whose latency the histograms hold; 0: p50/p99/max unknown */
	double goodput_gbps;  /* sum of the pair's flows' goodput over their active time */
	uint64_t p50_ns, p99_ns, max_ns; /* the pair's flows' latency histograms merged */
	double expected_gbps; /* sum of its flows' expected goodput (rp_pairs_plan); 0: unknown */
	uint64_t lost_lossless;          /* of lost, on a lossless priority */
	uint64_t tx_lossy, lost_lossy;   /* its flows on the other priorities (tx less in flight) */
};

/* Why a pair stands out (rp_pairs_flag). */
enum rp_pair_flag {
	RP_PAIR_SLOW = 1,   /* goodput below 90% of what its plan lets it reach */
	RP_PAIR_LATE = 2,   /* p99 above twice the median pair's */
	RP_PAIR_LOSSY = 4,  /* lost on a lossless priority; or on a lossy one, more than
			     * twice the median loss % of the other pairs that send lossy */
};

/* What the plan asked of each flow, by accountant flow index: the goodput
 * it can reach at its share of the ports it shares (traffic/expect.h
 * rp_plan_expect_goodput; 0: unknown), and the priorities meant lossless.
 * NULL: nothing is known (no pair is SLOW; every priority counts as lossy). */
struct rp_pairs_plan {
	const double *expect_gbps;
	uint8_t lossless; /* priority mask */
};

#define RP_PAIR_SLOW_SHARE 0.9   /* SLOW below this share of the expected goodput */
#define RP_PAIR_LATE_FACTOR 2.0  /* LATE above this many times the median pair's p99 */
#define RP_PAIR_LOSSY_FACTOR 2.0 /* lossy priority: above this many times the peers' median loss % */

/* The rule, on finished rows (pure: the unit tests call it), for rows[i]:
 * flags[i], rp_pair_flag bits:
 *   SLOW   goodput < 0.9 x expected_gbps x min(1, the median of the other
 *          pairs' goodput / expected_gbps): below what its plan lets it
 *          reach, or, when the pairs with a plan fall short of theirs (a
 *          fabric slower than planned), below how far they got. Not judged
 *          without expected_gbps;
 *   LATE   p99 > 2 x the median pair's (two pairs or more);
 *   LOSSY  lost on a lossless priority at all; or lost on a lossy one, at a
 *          loss % there above 2 x the median of the other pairs that send
 *          lossy (none: not judged).
 * slow_bar[i] the goodput below which it is SLOW (-1: not judged),
 * peer_loss[i] the other pairs' median lossy loss % (-1: not judged),
 * *med the median pair's goodput, p99, loss % and goodput / expected_gbps.
 * 0, or -1 when out of memory (flags all 0). */
struct rp_pairs_medians {
	double good, late, loss, reached;
};
int rp_pairs_flag(const struct rp_pair_result *rows, size_t n, unsigned *flags, double *peer_loss, double *slow_bar,
		  struct rp_pairs_medians *med);

/* {"rows":[{src,dst,flows,tx_packets,rx_packets,lost,loss_pct,goodput_gbps,p50_ns,p99_ns,max_ns,
 *  expected_gbps,lost_lossless}], "outliers":[{src,dst,why:[slow|late|lossy],goodput_vs_median,p99_vs_median,
 *  expected_gbps,goodput_vs_expected,lost_lossless,peers_loss_pct}]} */
json_t *rp_report_pairs(const struct rp_acct *a, const struct rp_pairs_plan *plan);
/* The same, built once and written a row at a time (a million pairs are GBs
 * as JSON): rp_pairs_json gives the object with both arrays empty, to be
 * filled by rp_report_write_atomic_streams with rp_pairs_row_item and
 * rp_pairs_outlier_item. NULL when out of memory. */
struct rp_pairs;
/* NULL too when a stop came while it was built (report/outdir.h's
 * rp_outdir_cancelled says so): a million flows' pairs take seconds. */
struct rp_pairs *rp_pairs_build(const struct rp_acct *a, const struct rp_pairs_plan *plan);
void rp_pairs_free(struct rp_pairs *p);
size_t rp_pairs_nrows(const struct rp_pairs *p);
size_t rp_pairs_noutliers(const struct rp_pairs *p);
json_t *rp_pairs_row_item(void *pairs, size_t i);
void rp_pairs_row_write(struct rp_jw *w, void *pairs, size_t i); /* the same, typed (report/doc.h) */
json_t *rp_pairs_outlier_item(void *pairs, size_t i);
/* The text: the outliers (at most max_rows), or that no pair stands out. */
void rp_report_print_pairs(FILE *f, const struct rp_acct *a, const struct rp_pairs_plan *plan, size_t max_rows);
/* The same from pairs built once (rp_pairs_build): a million flows' pairs
 * are seconds to build. */
void rp_pairs_print(FILE *f, const struct rp_pairs *p, size_t max_rows);
/* Whether rp_pairs_print writes a line: more than one pair, or one that
 * stands out (p NULL: no). */
bool rp_pairs_says(const struct rp_pairs *p);

#endif
