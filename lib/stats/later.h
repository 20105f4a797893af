/* Replies held for later: the paper's notification point (receiver.h,
 * RP_CNP_PAPER) decides, when a CE mark falls inside a QP's CNP window, on
 * a CNP at the window's end (rp_reply_msg.at_ns). `run` keeps it here and
 * its RX loop's own clock check (rp_dp_rx_release, once a pass) sends it
 * when due: no timer thread, no allocation, one compare a pass when empty.
 * (The lab schedules an event instead.) Clock-free, plain C.
 *
 * At most one CNP per QP waits at a time, so RP_LATER_MAX is the QPs of one
 * port that may have one due together; past it a deferred CNP goes at once
 * (early rather than never) and `full` counts it. */
#ifndef RP_STATS_LATER_H
#define RP_STATS_LATER_H

#include <stdbool.h>
#include <stdint.h>

#include "receiver.h"

#define RP_LATER_MAX 16

struct rp_later {
	unsigned n;
	uint64_t due[RP_LATER_MAX];
	struct rp_reply r[RP_LATER_MAX]; /* each one message (n = 1) */
	uint64_t held;                   /* replies ever kept */
	uint64_t full;                   /* replies sent at once: the store was full */
};

/* Keeps message i of r to go at due. False when the store is full (counted
 * in full): the caller sends it now. */
bool rp_later_put(struct rp_later *l, const struct rp_reply *r, unsigned i, uint64_t due);
/* The earliest reply due by now into out (one message, its at_ns 0), and
 * removed; false when none is due. */
bool rp_later_take_slow(struct rp_later *l, uint64_t now, struct rp_reply *out);
static inline bool rp_later_take(struct rp_later *l, uint64_t now, struct rp_reply *out)
{
	return l->n && rp_later_take_slow(l, now, out);
}

#endif
