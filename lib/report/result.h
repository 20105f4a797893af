/* The accountant's results as result.json's objects (jansson), and an
 * atomic file writer. Field names are the documented ones (docs/results.md)
 * and are only ever added to. No printing: errors go to err. */
#ifndef RP_REPORT_RESULT_H
#define RP_REPORT_RESULT_H

#include <jansson.h>
#include <stddef.h>

#include "report/doc.h"
#include "stats/acct.h"

/* {"count","min","mean","stdev","p50","p90","p99","p999","p9999","p99999","max",
 *  "histogram":[[upper_ns,count],...]} (histogram omitted when h is NULL). */
json_t *rp_report_latency(const struct rp_hist *h);
/* A latency figure for a text table: ns, or "-" without samples (count 0:
 * no probe carried a timestamp), never a measured-looking 0. */
#define RP_REPORT_CELL 24
const char *rp_report_ns_cell(char buf[RP_REPORT_CELL], uint64_t count, uint64_t ns);
/* One flow: id, src, dst, qpn, dscp, prio, tx/rx packets/bytes, lost,
 * reordered, duplicates, ce, cnp_tx, cnp_rx, acks, naks, goodput_gbps, latency_ns. */
json_t *rp_report_flow(const struct rp_acct_flow_result *r, const struct rp_hist *lat);
/* "flows": every flow of the accountant (after rp_acct_finish). */
json_t *rp_report_flows(const struct rp_acct *a);
/* "ports": [{"node","port","speed_bps","prio":[{"prio","pfc_rx","pfc_tx",
 * "paused_ns","xoff_to_xon","first_pause_ns"(null if never),"drops","ecn_marked","quanta"}x8]}] */
json_t *rp_report_ports(const struct rp_acct *a);
/* "timeseries": {"bin_ns","start_ns","bins","outside", one array per counter,
 * "latency_ns":{count,min,mean,stdev,max arrays}, "ports":[...prios with PFC
 * activity: pfc and paused_ns arrays], "flows":[...] when kept}. Bins after
 * the last non-empty one are left out. */
json_t *rp_report_timeseries(const struct rp_acct *a);
/* The same with "ports" an empty array, *ports (borrowed: root holds it), to
 * be written a port at a time by rp_report_write_atomic_streams with
 * rp_report_port_series_item (ctx: the accountant) for each of its ports: a
 * merged run's series of 1024 ports with PFC in every bin is millions of
 * numbers, as JSON tree GBs. */
json_t *rp_report_timeseries_apart(const struct rp_acct *a, json_t **ports);
json_t *rp_report_port_series_item(void *acct, size_t port);

/* Writes root to a temporary file in path's directory, fsyncs it and renames
 * it over path, so readers see the old file or the whole new one. 0 or -1. */
int rp_report_write_atomic(const char *path, json_t *root, char *err, size_t errlen);
/* The same with some arrays of root written an item at a time: each
 * stream's marker is an empty array somewhere in root; item(ctx, i) for
 * i < n gives its items, each freed once written, so a million flows never
 * sit in memory as JSON at once (struct rp_report_stream: report/doc.h).
 * The file is what rp_report_write_atomic would write had the items been in
 * the arrays. */
int rp_report_write_atomic_streams(const char *path, json_t *root, const struct rp_report_stream *s, size_t ns,
				   char *err, size_t errlen);
/* JSON Lines: each of the stream's items on a line of its own (compact), in
 * order, written and renamed as rp_report_write_atomic does (s->marker is
 * not used). For the per-flow detail of a large run (DIR/flows.jsonl,
 * docs/results.md): a line a flow, readable a flow at a time. */
int rp_report_write_jsonl(const char *path, const struct rp_report_stream *s, char *err, size_t errlen);
/* Which latency figure of a flow means something (flows[].latency_shown,
 * docs/results.md): "one-way" (latency_ns), or, when its one-way p50 is below
 * bound_ns (the two clocks' error; 0 on one clock) or it has no one-way
 * sample at all, "rtt" (rtt_ns: its echoes) when it has round trips, else
 * "none". why (may be NULL) gets one line saying so. */
const char *rp_report_latency_shown(const struct rp_acct_flow_result *r, int64_t bound_ns, char *why, size_t len);
/* rp_report_flows' item i (for rp_report_write_atomic_stream; ctx: the accountant). */
json_t *rp_report_flow_item(void *acct, size_t i);
/* The same object's members (not its braces), typed (report/doc.h), for a
 * command that adds its own (lab: in_flight) and writes a million of them. */
void rp_report_flow_members(struct rp_jw *w, const struct rp_acct *a, size_t i);

#endif
