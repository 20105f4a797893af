/* One result from many ranks (issue 10; in lib/report since issue 27): a profile run by N processes, each
 * with an accountant configured with ALL flows of the plan (same order, same
 * ids) but only its own hosts' ports. Pure C, no MPI: lib/cluster moves the
 * bytes (MPI_Allreduce, MPI_Gatherv), this file says what they are. A rank's
 * accountant may also hold only the flows its hosts send or receive: flows
 * are matched by id everywhere here, never by position.
 *
 * 1. (the accountant's side, stats/acct_pack.h) every rank exports the
 *    sender's side of every flow, the ranks sum it, and each installs it
 *    before rp_acct_finish: each received flow's loss is then exact.
 *
 * 2. rp_acct_pack serialises a finished accountant's result
 *    (stats/acct_result.h: rp_acct_result) for its part of the run: the
 *    flows it owns (own_flow[i]: this rank hosts flow i's receiver), its
 *    ports (own_port, or every port it has), and its time series. Rank 0
 *    holds a merge target: a result shaped by the plan (rp_acct_result_init,
 *    or a results_only accountant's, rp_acct_merged: all flows, ALL ranks'
 *    ports, same start_ns, run_ns, bin_ns, flow_series as the ranks),
 *    installs every rank's buffer with rp_acct_unpack_into, then calls
 *    rp_acct_merge_done (rp_acct_merge_block does the three over the
 *    gathered block); lib/report's rp_report_flows/ports/timeseries and the
 *    summary read it through the accountant's getters like any finished
 *    accountant. Packed again it gives the same bytes
 *    (tests/unit/test_merge.c, merged_result_round_trips).
 *
 * Merge rules (what the merged result holds):
 * - a flow's row (rx counters, lost, reordered, duplicates, CE, CNP, ACK,
 *   NAK, goodput, analyze's extras, its latency summary) is the owning
 *   rank's, as is; its latency histogram is installed bucket for bucket with
 *   its exact count/min/max and sums, so percentiles come from buckets, never
 *   from averages. tx is the combined one (step 1). A flow no rank owns
 *   stays as rp_acct_result_init left it (zeros).
 * - a port's counters and pause results (frames, quanta, paused_ns,
 *   xoff_to_xon, first pause relative to the common start_ns) are the
 *   rank's, as rp_acct_port gave them at that rank's end (its name
 *   and speed the merged cfg's, no paused_past_end_ns); the port is found
 *   by (node, port) in the merged cfg.
 * - the aggregate latency is rp_hist_merge of every flow's histogram in flow
 *   order (rp_acct_merge_done), the same computation rp_acct_finish does.
 * - time series (all ranks share start_ns and bin_ns): counters, per-bin
 *   latency count, min, max, sum and sum of squares (so mean and stdev) and
 *   outside are summed / min'd / max'd exactly; PFC frames and paused ns go
 *   to the merged port; per-flow series to the merged flow. Per-bin
 *   latency percentiles cannot be merged from four numbers: the merged bin's
 *   p50/p90/p99/p99.9 are the MAXIMUM over ranks, an upper bound of the
 *   true percentile of the bin (every rank has at most (1 - p) of its
 *   samples above its own p-quantile, so the union has at most (1 - p) above
 *   the largest), exact when one rank has the bin's samples. With
 *   cfg.bin_hist the bins' latency histograms (of the bin_hist flows) are
 *   shipped whole and merged bucket by bucket: their percentiles are exact.
 * - end_ns is the latest rank's; unmatched (RoCE frames of no flow) is summed.
 * - not carried: track_psn state (per-QP PSN results, message and NAK ->
 *   resend times: analyze's, which runs in one process) and discovery.
 * A flow or port installed twice is overwritten by the later buffer.
 *
 * Buffer format, version 3 (little-endian, explicit counts; for ranks of the
 * same build; a field added to the tables below bumps the version):
 *   header: "RPAK" u16 version u16 nflow_u64 u16 nport_u64 u16 nprio_u64
 *           u64 total_len u64 start_ns u64 bin_ns u64 end_ns u64 unmatched
 *           u32 nflows u32 nports
 *   flow x nflows: u32 id u32 qpn u16 qps u8 dscp u8 prio
 *           u64 x nflow_u64 (FLOW_U64: counters, latency summary) f64 goodput
 *           f64 mean f64 stdev
 *           hist: u64 count min max, f64 mean_hi mean_lo m2_hi m2_lo
 *           (long double = hi + lo exactly), u32 nb, nb x (u16 bucket, u64 n)
 *           in increasing bucket order (only non-empty buckets)
 *   port x nports: u8 namelen, name, u32 port, u64 x nport_u64 (PORT_U64),
 *           8 x (u8 paused_ever, u64 x nprio_u64 (PRIO_U64))
 *   series: u8 present; if 1: u64 outside, u32 nbins, nbins x (u32 bin,
 *           u64 c[7], u64 lat_count lat_min lat_max lat_pct[4],
 *           f64 sum_hi sum_lo sumsq_hi sumsq_lo) in increasing bin order;
 *           u32 n, n x (u32 bin, u16 port record, u8 prio, u64 pfc, u64 paused_ns);
 *           u32 n, n x (u32 bin, u32 flow id, u64 packets, u64 bytes);
 *           u32 n, n x (u32 bin, hist) (cfg.bin_hist's, bins with samples)
 *   rtt: u32 n, n x (u32 flow id, hist as above): the round trips this
 *           rank's senders timed (echoes), every flow with one, owned or not;
 *           merged (not overwritten) into the flow, its rtt_ns summarised by
 *           rp_acct_merge_done
 *   nothing after: total_len == the buffer's length.
 * Every read is bounds-checked: a truncated or corrupt buffer (or one of
 * another plan: an unknown flow id or port, another start or bin width) is
 * an error with a reason, never a crash, and installs nothing (the buffer is
 * checked whole before anything is written).
 *
 * Memory (tools/bench/merge.sh, merge_bench MODE=rank0): a live accountant
 * costs ~2.6 KB a flow (sequence window, QPs, keys, sparse histograms) and
 * its time series 128 B per bin and port (dense: 3.9 GB for 1024 ports x
 * 30 000 bins). A result holds a flow's row (488 B), its two
 * sparse histograms and names, ~0.95 KB with 32 samples, and per port only
 * the cells with PFC or pause: rank 0's merge of 1024 hosts all-to-all
 * (1,047,552 flows) fits in about a GB besides the gathered block. A
 * packed flow is 328 bytes + 10 per non-empty latency bucket (591 bytes
 * with 32 samples of realistic latency). rp_acct_unpack_rows streams rows
 * with no state per flow at all (one scratch histogram, the aggregate
 * merged sparsely). Every rank's own accountant should hold only the flows
 * its hosts send or receive; flows are matched by id everywhere here (tx
 * arrays, buffers), not by position. */
#ifndef RP_REPORT_ACCT_MERGE_H
#define RP_REPORT_ACCT_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stats/acct.h"
#include "stats/acct_result.h"

#define RP_ACCT_PACK_VERSION 6u /* 2: ports carry icrc_bad; 3: per-bin histograms, echoes (echo_tx, class echo, rtt); 4: histograms carry exact sums, not a mean and M2; 5: flows carry head_lost; 6: flows carry icrc_bad, ports class icrc_bad */

/* Step 2. The bytes needed; they are written only when they fit in cap
 * (buf may be NULL with cap 0 to size the buffer). own_flow NULL: all flows;
 * own_port NULL: all ports (an accountant configured with every host's port,
 * of which this rank feeds only its own, ships only those).
 * 0 when res is NULL (rp_acct_result of an accountant not finished) or
 * discovered (analyze's). */
size_t rp_acct_pack(const struct rp_acct_result *res, const bool *own_flow, const bool *own_port, uint8_t *buf,
		    size_t cap);
/* 0, or -1 with a reason in err and merged untouched. merged: a merge
 * target (NULL, as rp_acct_merged gives for an accountant that is none, is
 * an error). */
int rp_acct_unpack_into(struct rp_acct_result *merged, const uint8_t *buf, size_t len, char *err, size_t errlen);
/* After the last buffer: the aggregate latency, the round trips' summaries;
 * merged counts as finished. */
void rp_acct_merge_done(struct rp_acct_result *merged);
/* Rank 0's merge of a gathered block (lib/cluster/ship.c, in rounds of
 * ranks; tools/bench/merge_bench.c): n buffers back to back as MPI_Gatherv
 * leaves them, lens[k] bytes each, through rp_acct_unpack_into in turn
 * (rp_acct_merge_done after the last block). An empty buffer is an error
 * unless may_be_empty[k] (a rank that died, or ships in another round;
 * may_be_empty NULL: none may). 0, or -1 with *bad the first bad buffer's
 * index and a reason in err. The result holds per flow its row and sparse
 * histograms, per port its cells that are not zero. */
int rp_acct_merge_block(struct rp_acct_result *merged, const uint8_t *all, const size_t *lens, size_t n,
			const bool *may_be_empty, size_t *bad, char *err, size_t errlen);

/* Streaming, for plans too big to hold (1M flows): each flow record of a
 * checked buffer in turn. row has no src/dst (the plan has them); lat is a
 * scratch histogram valid during the call; fn may be NULL. With agg, every
 * row's histogram is also merged into it (rp_hist_merge_sparse: its
 * non-empty buckets only), so the aggregate latency needs no per-flow
 * state. A non-zero return of fn stops the calls and is returned. -1 with
 * err when the buffer is bad (before any call). */
typedef int (*rp_acct_row_fn)(void *ctx, const struct rp_acct_flow_result *row, const struct rp_hist *lat);
int rp_acct_unpack_rows(const uint8_t *buf, size_t len, rp_acct_row_fn fn, void *ctx, struct rp_hist *agg, char *err,
			size_t errlen);

/* One histogram in the record's form (count, min, max, exact sums, its
 * non-empty buckets), for other records that carry one (rank_env.c): the
 * bytes needed, written only when they fit in cap. unpack reads one from
 * the front of buf into h (initialised here), *used the bytes it took; 0,
 * or -1 with a reason in err and h left empty. */
size_t rp_acct_hist_pack(const struct rp_hist *h, uint8_t *buf, size_t cap);
int rp_acct_hist_unpack(const uint8_t *buf, size_t len, struct rp_hist *h, size_t *used, char *err, size_t errlen);

#endif
