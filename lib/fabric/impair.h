/* Impairments put on a link on purpose, so a test knows the exact answer:
 * drop every Nth frame, drop a burst, CE-mark every Nth, delay every frame.
 * A pure link model next to the switch model: clock-free, no I/O; the
 * caller (lib/lab's host model, lib/dp's receiver) says when a frame arrived
 * and gets its fate. */
#ifndef RP_FABRIC_IMPAIR_H
#define RP_FABRIC_IMPAIR_H

#include <stdbool.h>
#include <stdint.h>

/* A link's impairments as a profile's `impair:` section says them. */
struct rp_impair {
	uint64_t drop_every; /* 0: none */
	uint64_t drop_from;  /* the first frame of a burst to drop; 0: none */
	uint64_t drop_count;
	uint64_t ce_every;   /* 0: none */
	uint64_t delay_ns;
};

enum rp_impair_fate {
	RP_IMPAIR_PASS,
	RP_IMPAIR_DROP,
	RP_IMPAIR_MARK_CE,
};

struct rp_impair_state {
	struct rp_impair cfg;
	uint64_t seen;    /* data frames so far */
	uint64_t dropped;
	uint64_t marked;
};

void rp_impair_init(struct rp_impair_state *s, const struct rp_impair *cfg);
static inline bool rp_impair_active(const struct rp_impair_state *s)
{
	return s->cfg.drop_every || s->cfg.drop_from || s->cfg.ce_every || s->cfg.delay_ns;
}
/* The fate of the next RoCE data frame (counted from 1). A frame both due a
 * drop and a mark is dropped. */
enum rp_impair_fate rp_impair_next(struct rp_impair_state *s);
/* The fate of data frame n (from 1) of the link: what rp_impair_next says
 * for it (several RX lcores sharing one link's count, lib/dp/rx.c). */
enum rp_impair_fate rp_impair_fate_of(const struct rp_impair *c, uint64_t n);

#endif
