/* `roceprobe analyze`'s report (docs/analyze.md): a capture's frames went
 * through the accountant in discovery mode; these write what it found, as
 * text or as the "roceprobe.analyze/1" document, with the findings (the
 * lines that make an incident explain itself) shared by both. Times in the
 * flows' and QPs' entries are relative to the capture's first frame. */
#ifndef RP_REPORT_ANALYZE_H
#define RP_REPORT_ANALYZE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "stats/acct.h"

/* What the capture itself held, besides what the accountant counted. */
struct rp_capture_facts {
	uint64_t frames;
	uint64_t first_ns, last_ns;
	uint64_t classes[RP_RX_CLASSES];
	bool truncated; /* the file ends inside a record: what is before it is analysed */
};

/* t - t0, 0 before t0. */
static inline uint64_t rp_analyze_rel(uint64_t t, uint64_t t0)
{
	return t > t0 ? t - t0 : 0;
}

/* The findings, a JSON array of strings ("nothing wrong: ..." when none). */
json_t *rp_analyze_findings(const struct rp_acct *a, const struct rp_capture_facts *ci);
/* The document: capture, findings, flows (with qps), ports, latency_ns
 * (count 0 without latency), timeseries. path names the capture. */
json_t *rp_analyze_json(const char *path, bool latency, const struct rp_acct *a, const struct rp_capture_facts *ci);
/* The text: the capture's line, findings, flows with their QPs, priorities. */
void rp_analyze_print_text(FILE *out, const char *path, bool latency, const struct rp_acct *a,
			   const struct rp_capture_facts *ci);
/* --latency is only meaningful when the capture's clock stamped the probes:
 * -1 with one line in err when a probe arrived before its TX time or a
 * one-way delay is over 1 s, else 0. */
int rp_analyze_latency_clock(const struct rp_acct *a, char *err, size_t errlen);

#endif
