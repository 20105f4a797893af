/* A run's report (issue 27): result.json's run pieces handed to lib/report's
 * one builder (result.c) and summary.txt's view of the run for its one
 * summary writer (summary_view.c), a mixed run's aggression shared by both
 * (aggression.c). Rank 0 writes them after rp_run_go; errors as one line in
 * err (err/errlen), never printed here: the command prints it. */
#ifndef RP_RUN_REPORT_H
#define RP_RUN_REPORT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/windows.h"
#include "run.h"

/* Beyond RP_REPORT_FLOWS_INLINE flows (64 hosts all-to-all is 4032)
 * result.json keeps totals and outliers, and the per-flow detail goes to
 * files of its own, a line each (report/flowset.h, docs/results.md "Large
 * runs"); the summary lists the first RP_RUN_SUMMARY_FLOWS flows. */
#define RP_RUN_SUMMARY_FLOWS 40

/* DIR/result.json (atomically; beyond RP_REPORT_FLOWS_INLINE flows also
 * DIR/flows.jsonl and DIR/pairs.jsonl), naming the profile's path, the
 * binary's version and the DPDK version it linked (NULL: none) as given
 * (DPDK-free: tests/unit/test_run.c writes one). 0, or RP_RUN_USAGE with
 * one line in err. */
int rp_run_write_result(const struct rp_run *r, const char *dir, const char *profile_path, const char *version,
			const char *dpdk, char *err, size_t errlen);

/* DIR/summary.txt (atomically), and the same text to echo unless NULL.
 * 0, or RP_RUN_USAGE with one line in err. */
int rp_run_write_summary(const struct rp_run *r, const char *dir, FILE *echo, char *err, size_t errlen);

/* Inside the report: */
/* One line in err (when errlen); returns RP_RUN_USAGE. */
__attribute__((format(printf, 3, 4))) int rp_run_err(char *err, size_t errlen, const char *fmt, ...);
/* Which side of plan flow f ran on a rank that died: "sender", "receiver",
 * "both", or NULL. */
const char *rp_run_lost_side(const struct rp_run *r, uint32_t f);
/* A mixed run's aggression windows (rp_plan_aggression: at most one per
 * traffic entry), named by their entries; *w is the caller's to free (NULL
 * when out of memory). */
size_t rp_run_aggression_windows(const struct rp_run *r, struct rp_report_window **w);
/* The pause each host of the plan saw during the n windows w, in profile
 * order (vhosts: result.json's verbs.hosts, for verbs hosts' NIC counters);
 * NULL when out of memory. */
json_t *rp_run_aggression_pause(const struct rp_run *r, json_t *vhosts, const struct rp_report_window *w, size_t n);

#endif
