/* A rank's share of one result (issue 10), the accountant's side: what is
 * done to live accountants before rp_acct_finish. The packing of a
 * finished one's result and the merge of the ranks' are lib/report's
 * (report/acct_merge.h, with the buffer format and the merge rules).
 *
 * 1. Loss needs the sender's count at the receiver's rank, and a flow's
 *    ACKs, NAKs and CNPs arrive at the sender's port, so only the sender's
 *    rank counts them. Every rank exports the sender's side of every flow
 *    (rp_acct_tx_export: RP_ACCT_TX_FIELDS x nflows uint64: tx packets, tx
 *    bytes, cnp_rx, acks, naks, echo_rx, and misdelivered (the flow's frames that
 *    reached this rank's ports but not its receiver: any rank may see them);
 *    0 for flows it does not send), the ranks
 *    reduce them element-wise with rp_acct_tx_combine (acc[i] += in[i]:
 *    exactly MPI_Allreduce(MPI_UINT64_T, MPI_SUM); one sender per flow, so
 *    the sum is that sender's count), and every rank installs the result
 *    (rp_acct_tx_import) before rp_acct_finish(a, end, NULL), so each
 *    received flow gets lost = tx - unique exactly, its tx_bytes and the
 *    replies its sender saw. The same sum by rows (rp_acct_tx_row, _set_row):
 *    each rank sends each flow's row to the flow's receiver's rank only, which
 *    adds them to its own (lib/cluster/ship.c: an alltoallv at 1024 hosts).
 *
 * Several RX lcores of one process (rp_acct_absorb, below) merge their
 * accountants' receive state before the one finish, not their results: a
 * flow's frames split over lcores need the summed sequence state for its
 * loss, and a port's pauses their open intervals. */
#ifndef RP_STATS_ACCT_PACK_H
#define RP_STATS_ACCT_PACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acct.h"


/* Step 1. tx has RP_ACCT_TX_FIELDS * nflows entries, nflows the plan's
 * flows, indexed by flow id (flows with an id >= nflows are left out); flow
 * id f's are [7f] tx packets, [7f+1] tx bytes, [7f+2] cnp_rx, [7f+3] acks,
 * [7f+4] naks, [7f+5] misdelivered, [7f+6] echo_rx (echoes back at the
 * sender). export zeroes the array first. */
#define RP_ACCT_TX_FIELDS 7u
void rp_acct_tx_export(const struct rp_acct *a, uint64_t *tx, size_t nflows);
/* The reduction op: acc[i] += in[i] for i < n (MPI_SUM over MPI_UINT64_T). */
void rp_acct_tx_combine(uint64_t *acc, const uint64_t *in, size_t n);
/* rp_acct_set_tx (and the replies' counts) for every flow of a from the
 * combined array, before rp_acct_finish. */
void rp_acct_tx_import(struct rp_acct *a, const uint64_t *tx, size_t nflows);

/* Step 1 by rows, for an exchange with the receiver's rank only: flow i's
 * (the accountant's index) RP_ACCT_TX_FIELDS values as export writes them,
 * and their installation as import does. */
void rp_acct_tx_row(const struct rp_acct *a, size_t i, uint64_t out[RP_ACCT_TX_FIELDS]);
void rp_acct_tx_set_row(struct rp_acct *a, size_t i, const uint64_t in[RP_ACCT_TX_FIELDS]);
/* The accountant's index of flow id, or -1 (a rank's share holds some ids). */
long rp_acct_flow_index(const struct rp_acct *a, uint32_t id);
uint32_t rp_acct_flow_id(const struct rp_acct *a, size_t i);

/* One process, several RX lcores (run --lcores): each lcore's accountant
 * was created from the same cfg (same flows, ports, start, bins) and saw a
 * share of the frames. dst += src, before either is finished: counters
 * add, the probe sequence state adds (unique, duplicates, reordered; loss is
 * then sent - unique at rp_acct_finish(dst), exactly), latency histograms
 * merge bucket by bucket, QPs by DestQP, first/last times widen, time bins
 * add as the ranks' do (rp_ts_bin_merge: per-bin percentiles the maximum,
 * an upper bound, exact when one lcore has the bin's samples), ports' pause
 * state adds (exact when one lcore got the port's PFC frames: they carry no
 * UDP and RSS leaves them on queue 0). src keeps its state; destroy it
 * after. -1 (dst half-added: give up the result) when the two do not have
 * the same shape, either is finished or results_only, or memory runs out. */
int rp_acct_absorb(struct rp_acct *dst, struct rp_acct *src);

#endif
