/* A run's flows and pair matrix in its result (issue 27): in result.json up
 * to RP_REPORT_FLOWS_INLINE flows; beyond, in DIR/flows.jsonl and
 * DIR/pairs.jsonl (a line each, written and renamed into place before
 * result.json), with result.json keeping their totals ("flows_summary"), the
 * outlying pairs, and where the rest is ("flows_file", "pairs.rows_file";
 * docs/results.md "Large runs"). The same for run and lab. */
#ifndef RP_REPORT_FLOWSET_H
#define RP_REPORT_FLOWSET_H

#include <jansson.h>
#include <stdbool.h>

#include "report/doc.h"
#include "report/pairs.h"
#include "stats/acct.h"

#define RP_REPORT_FLOWS_INLINE 4096
#define RP_REPORT_FLOWS_FILE "flows.jsonl"
#define RP_REPORT_PAIRS_FILE "pairs.jsonl"

struct rp_report_flowset {
	const struct rp_acct *acct;
	/* result.json's flows[i] (report/result.h's rp_report_flow_item and what
	 * the command adds); ctx is theirs */
	json_t *(*item)(void *ctx, size_t i);
	/* or, when set, flows[i] written typed (report/doc.h), no tree */
	void (*write)(struct rp_jw *w, void *ctx, size_t i);
	void *ctx;
	struct rp_pairs *pairs; /* rp_pairs_build's (NULL: no flows) */
	/* flow i's loss is unknown (a rank died): counted in flows_summary's
	 * "incomplete", not in its "lost"; NULL: every flow is complete */
	bool (*incomplete)(void *ctx, size_t i);
	/* A stop (a signal) left the files out: no flows.jsonl or pairs.jsonl,
	 * no "flows_file" or "pairs.rows_file"; flows_summary is still written
	 * (its "file" null) */
	bool files_skipped;
};

/* Whether the flows go to files of their own. */
bool rp_report_flowset_apart(const struct rp_report_flowset *fs);
/* With more than RP_REPORT_FLOWS_INLINE flows: DIR/flows.jsonl and
 * DIR/pairs.jsonl (unless files_skipped); nothing otherwise. 0, or -1 with
 * err. */
int rp_report_flowset_files(const struct rp_report_flowset *fs, const char *dir, char *err, size_t errlen);
/* "flows": every flow, or [] when they are apart. */
int rp_report_doc_flows(struct rp_doc *d, const struct rp_report_flowset *fs);
/* When apart, "flows_file" and "flows_summary"; then "pairs": {"rows" (or []
 * and "rows_file", "pairs": how many), "outliers"}. */
int rp_report_doc_pairs(struct rp_doc *d, const struct rp_report_flowset *fs);
/* "flows_summary": {"file","flows","tx_packets","rx_packets","lost","ce",
 * "incomplete","latency_ns"} over every flow (latency: their histograms
 * merged, rp_acct_latency). */
json_t *rp_report_flows_summary(const struct rp_report_flowset *fs);

#endif
