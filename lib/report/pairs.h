/* The pair matrix: one row per (source host, destination host) with data,
 * and the pairs that stand out from the others, so one bad NIC, cable or
 * path is named instead of hidden in an average. From a finished accountant
 * (one process, or the merge of many ranks). No printing but to the FILE given. */
#ifndef RP_REPORT_PAIRS_H
#define RP_REPORT_PAIRS_H

#include <jansson.h>
#include <stdio.h>

#include "stats/acct.h"

struct rp_pair_result {
	char src[RP_ACCT_NAME_MAX], dst[RP_ACCT_NAME_MAX];
	size_t flows;
	uint64_t tx_packets, rx_packets, lost;
	double loss_pct;      /* lost / tx_packets */
	double goodput_gbps;  /* sum of the pair's flows' goodput over their active time */
	uint64_t p50_ns, p99_ns, max_ns; /* the pair's flows' latency histograms merged */
};

/* Why a pair stands out, compared with the median pair. */
enum rp_pair_flag {
	RP_PAIR_SLOW = 1,   /* goodput below 90% of the median pair's */
	RP_PAIR_LATE = 2,   /* p99 above twice the median pair's */
	RP_PAIR_LOSSY = 4,  /* loses, and more than twice the median pair's loss % */
};

/* {"rows":[{src,dst,flows,tx_packets,rx_packets,lost,loss_pct,goodput_gbps,p50_ns,p99_ns,max_ns}],
 *  "outliers":[{src,dst,why:[slow|late|lossy],goodput_vs_median,p99_vs_median}]} */
json_t *rp_report_pairs(const struct rp_acct *a);
/* The same, built once and written a row at a time (a million pairs are GBs
 * as JSON): rp_pairs_json gives the object with both arrays empty, to be
 * filled by rp_report_write_atomic_streams with rp_pairs_row_item and
 * rp_pairs_outlier_item. NULL when out of memory. */
struct rp_pairs;
struct rp_pairs *rp_pairs_build(const struct rp_acct *a);
void rp_pairs_free(struct rp_pairs *p);
size_t rp_pairs_nrows(const struct rp_pairs *p);
size_t rp_pairs_noutliers(const struct rp_pairs *p);
json_t *rp_pairs_row_item(void *pairs, size_t i);
json_t *rp_pairs_outlier_item(void *pairs, size_t i);
/* The text: the outliers (at most max_rows), or that no pair stands out. */
void rp_report_print_pairs(FILE *f, const struct rp_acct *a, size_t max_rows);

#endif
