/* The lab's event queue: a binary min-heap keyed by (time, tie, seq). seq is
 * the order of insertion; tie is 0 unless the caller gives one (the lab's
 * seeded arbitration among frames reaching a switch at the same nanosecond),
 * so events at the same nanosecond run by tie, then in the order they were
 * scheduled, and a run is the same every time.
 *
 * The key is two words compared as one 128-bit number: the time, then the
 * tie (high 32 bits) and seq (low 32 bits). When seq would pass 2^32 the
 * queued events are numbered again 0, 1, ... in their order, which leaves
 * every comparison as it was (rare: once per 2^32 events). */
#ifndef RP_LAB_EVQ_H
#define RP_LAB_EVQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rp_event {
	uint64_t t;
	uint64_t seq;
	uint16_t kind;
	uint16_t port;
	uint32_t node;
	uint32_t slot; /* a frame in the pool, or an argument */
	uint32_t tie;  /* same t: lower first (0 for rp_evq_push) */
};

/* A queued event: 32 bytes, two to a cache line. */
struct rp_evq_node {
	uint64_t t;
	uint64_t ord; /* tie << 32 | seq */
	uint32_t node, slot;
	uint16_t kind, port;
};

struct rp_evq {
	struct rp_evq_node *e;
	size_t n, cap;
	uint64_t next_seq; /* below 2^32 */
	uint64_t pushed;
};

void rp_evq_init(struct rp_evq *q);
void rp_evq_free(struct rp_evq *q);
/* 0, or -1 when memory runs out. */
int rp_evq_push(struct rp_evq *q, uint64_t t, uint16_t kind, uint32_t node, uint16_t port, uint32_t slot);
/* The same with a tie-break: at equal t, lower tie first, then insertion. */
int rp_evq_push_tie(struct rp_evq *q, uint64_t t, uint32_t tie, uint16_t kind, uint32_t node, uint16_t port,
		    uint32_t slot);
/* Removes the earliest event into *out; false when empty. */
bool rp_evq_pop(struct rp_evq *q, struct rp_event *out);
static inline uint64_t rp_evq_peek_time(const struct rp_evq *q)
{
	return q->n ? q->e[0].t : UINT64_MAX;
}

#endif
