/* The lab's event queue, ordered by (time, tie, seq). seq is the order of
 * insertion; tie is 0 unless the caller gives one (the lab's seeded
 * arbitration among frames reaching a switch at the same nanosecond), so
 * events at the same nanosecond run by tie, then in the order they were
 * scheduled, and a run is the same every time.
 *
 * A calendar of RP_EVQ_BUCKETS buckets of 2^RP_EVQ_SHIFT ns each (about 1 ms
 * ahead) in front of a small binary heap: the heap ("near") holds every event
 * of the bucket being run, in exact (time, tie, seq) order; an event further
 * ahead waits unsorted in its bucket's list, or, beyond the calendar, in a
 * second heap ("far"). When near runs empty the next non-empty bucket (a
 * bitmap says which) and any far event of that bucket move into it. Every
 * event of a bucket is in near before the first of them runs, so the order
 * is exactly a single heap's.
 *
 * A heap key is two words compared as one 128-bit number: the time, then the
 * tie (high 32 bits) and seq (low 32 bits). When seq would pass 2^32 the
 * queued events are numbered again 0, 1, ... in their order, which leaves
 * every comparison as it was (rare: once per 2^32 events). */
#ifndef RP_LAB_EVQ_H
#define RP_LAB_EVQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RP_EVQ_SHIFT 6            /* 64 ns buckets ... */
#define RP_EVQ_BUCKETS (1u << 14) /* ... 16384 of them: 1.05 ms ahead */

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
	uint32_t next; /* in a bucket's list or the free list */
};

struct rp_evq_heap {
	struct rp_evq_node *e;
	size_t n, cap;
};

struct rp_evq {
	struct rp_evq_heap near, far;
	uint64_t cur;               /* the bucket near holds (time >> RP_EVQ_SHIFT) */
	uint32_t *head;             /* [RP_EVQ_BUCKETS] first node of each bucket's list */
	uint64_t *bits;             /* [RP_EVQ_BUCKETS / 64] non-empty buckets */
	struct rp_evq_node *nodes;  /* the buckets' nodes */
	uint32_t nnodes, free_node; /* allocated; free list */
	size_t in_buckets;
	uint64_t next_seq; /* below 2^32 */
	uint64_t pushed;
	bool oom;          /* a pop ran out of memory moving a bucket: the queue is no longer whole */
};

void rp_evq_init(struct rp_evq *q);
void rp_evq_free(struct rp_evq *q);
/* With a tie-break: at equal t, lower tie first, then insertion; 0, or -1
 * when memory runs out. */
int rp_evq_push_tie(struct rp_evq *q, uint64_t t, uint32_t tie, uint16_t kind, uint32_t node, uint16_t port,
		    uint32_t slot);
/* The same with tie 0. */
static inline int rp_evq_push(struct rp_evq *q, uint64_t t, uint16_t kind, uint32_t node, uint16_t port, uint32_t slot)
{
	return rp_evq_push_tie(q, t, 0, kind, node, port, slot);
}
/* Calls fn for every queued event, in no particular order (the lab's count
 * of frames still on its wires when a run stops). */
void rp_evq_each(const struct rp_evq *q, void (*fn)(const struct rp_evq_node *n, void *arg), void *arg);
/* Removes the earliest event into *out; false when empty, or when memory ran
 * out (oom set). */
bool rp_evq_pop(struct rp_evq *q, struct rp_event *out);

#endif
