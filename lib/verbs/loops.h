/* The measurement loops, over an rp_conn that is connected (QPs in RTS).
 *
 * latency (ping-pong on QP 0), as perftest's ib_*_lat:
 *   write      the client writes size bytes into the server's slot; the
 *              server spins on the slot's last byte, then writes back. The
 *              last byte carries a counter 1..254 so a stale value is never
 *              taken for a new ping; 255 tells the server the run is over.
 *   write_imm  the same with RDMA write with immediate: the receiver sees a
 *              completion instead of spinning on memory (imm = sequence,
 *              0xffffffff = stop).
 *   send       send/receive; the stop marker is the payload's last byte.
 *   read       the client reads size bytes from the server; no server CPU.
 *   A sample is half the round trip (one-way latency, as perftest reports)
 *   for write, write_imm and send, and the whole round trip for read.
 *   Every sample goes into the histogram: nothing is dropped or sampled.
 *
 * bandwidth / message rate: the client keeps tx_depth work requests in
 *   flight on each of nqp QPs, one signalled every cq_mod; goodput is
 *   completed payload bytes over first post to last completion. With send
 *   and write_imm the server consumes receives and counts what arrived.
 *
 * UD latency (`ep --ud`, c->ud): send with immediate both ways, imm = a
 *   probe number that keeps counting across sizes. The client waits for the
 *   answer carrying its probe's number for at most ud_timeout_ms; a probe
 *   without one is counted lost (no sample) and the next one goes out, and a
 *   late answer to an earlier probe is discarded. The server echoes every
 *   probe until the client's END line arrives on the control socket (no stop
 *   message: it could be lost too).
 *
 * Either bound: iters (> 0) iterations (per QP for bandwidth), or a
 * duration. stall_ms without progress means the peer is gone: error. */
#ifndef RP_VERBS_LOOPS_H
#define RP_VERBS_LOOPS_H

#include <stddef.h>
#include <stdint.h>

#include "stats/hist.h"
#include "verbs/conn.h"

struct rp_run {
	enum rp_op op;
	size_t size;
	uint64_t iters;       /* 0: run for duration_ns */
	uint64_t duration_ns;
	unsigned stall_ms;
	struct rp_hist *hist; /* latency: every sample recorded here */
	unsigned ud_timeout_ms; /* UD latency: give a probe up after this long (0: 1000) */
};

struct rp_run_result {
	uint64_t msgs;
	uint64_t bytes;
	uint64_t t_ns; /* first post to last completion */
	uint64_t lost; /* UD latency: probes whose answer did not come back in time */
};

uint64_t rp_now_ns(void);

/* Latency sample unit of an op: 2 = half round trip, 1 = full. */
static inline unsigned rp_lat_divisor(enum rp_op op)
{
	return op == RP_OP_READ ? 1 : 2;
}

int rp_lat_client(struct rp_conn *c, const struct rp_run *r, struct rp_run_result *res, char *err, size_t errlen);
/* Answers pings until the stop marker; nothing to do for read. */
int rp_lat_server(struct rp_conn *c, const struct rp_run *r, struct rp_run_result *res, char *err, size_t errlen);
int rp_bw_client(struct rp_conn *c, const struct rp_run *r, struct rp_run_result *res, char *err, size_t errlen);
/* send / write_imm: consumes and counts receives until the control socket
 * becomes readable (the client's END line). write / read: returns at once. */
int rp_bw_server(struct rp_conn *c, const struct rp_run *r, struct rp_run_result *res, char *err, size_t errlen);

#endif
