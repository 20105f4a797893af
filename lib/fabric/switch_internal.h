/* The switch's state, shared by the files of lib/fabric; not for callers. */
#ifndef RP_FABRIC_SWITCH_INTERNAL_H
#define RP_FABRIC_SWITCH_INTERNAL_H

#include "cells.h"
#include "fdb.h"
#include "series.h"
#include "stats/pause.h"
#include "switch.h"

#define RP_PKT_NONE UINT32_MAX

/* One stored frame. What dequeue needs is kept here so the frame bytes are
 * only touched again to copy them out. */
struct rp_pkt {
	uint32_t next;   /* next in its queue, or in the free list */
	uint32_t cell;   /* first cell of the bytes; by reference, the caller's ref */
	uint64_t enq_ns;
	uint16_t len;
	uint16_t l3_off; /* IP header, for ECN marking */
	uint16_t in_port;
	uint8_t tc;
	uint8_t l3;      /* 0 (not IP), 4 or 6 */
	uint8_t ect;     /* ECN-capable: ECT(0) or ECT(1) */
};

struct rp_queue {
	uint32_t head, tail;
	uint64_t bytes, pkts;
	uint64_t deficit; /* DWRR */
	struct rp_series series;
	struct rp_switch_queue_stats st;
};

/* Ingress priority group: buffer charged to (port, priority) and its PFC
 * state. xoff is what the switch wants the peer to do; wire_xoff what the
 * last PFC frame sent told it. A PFC frame is due when they differ, or when
 * an XOFF is about to run out (refresh_ns). */
struct rp_pg {
	uint64_t shared, headroom;
	bool xoff, wire_xoff;
	uint64_t refresh_ns;
	uint64_t xoff_since;
	struct rp_switch_pg_stats st;
};

struct rp_port {
	struct rp_queue q[RP_SWITCH_TCS];
	struct rp_pg pg[RP_SWITCH_TCS];
	struct rp_pause pause; /* PFC received here pauses our egress queues */
	uint64_t busy_until;
	uint64_t tx_rem;       /* leftover of bits x 1e9 / rate, carried frame to frame */
	uint8_t dwrr_cur;
	bool dwrr_in_turn;
	uint8_t qmask;  /* bit t: q[t] holds frames (q[t].pkts > 0), kept by pktq.c */
	uint8_t pgmask; /* bit t: pg[t].xoff or pg[t].wire_xoff, kept by pfc_gen.c: no PFC frame is due for the others */
	struct rp_wd {
		uint64_t since[RP_SWITCH_TCS];    /* held paused with frames since; RP_SWITCH_NEVER: not */
		uint64_t last_pfc[RP_SWITCH_TCS]; /* the last PFC frame naming the priority */
		uint8_t storm;                    /* queues in a storm: PFC not honoured */
	} wd;
	struct rp_switch_port_stats st;
};

/* What classify learns from a frame. */
struct rp_class {
	bool macctl;
	uint8_t tc;
	uint8_t l3;
	uint8_t ect;
	uint16_t l3_off;
	uint8_t dst[6];
};

struct rp_switch {
	struct rp_switch_cfg cfg;
	uint64_t shared_size, headroom_size;
	uint64_t shared_used, headroom_used;
	uint64_t max_shared_used, max_headroom_used;
	struct rp_port *port;
	struct rp_pkt *pkt;
	uint32_t npkt, pkt_max, pkt_free, pkt_used; /* descriptors allocated, their limit */
	struct rp_cells cells;
	rp_switch_frame_fn frame_of; /* non-NULL: frames by reference (no cells) */
	void *frame_ctx;
	struct rp_fdb fdb;
	uint64_t rng;
};

/* watchdog.c: the queues received PFC holds paused now, bar those the
 * watchdog found in a storm (state updated); the time the watchdog would
 * next act on a held queue; a PFC frame naming prios arrived. */
uint8_t rp_sw_wd_paused(struct rp_switch *sw, unsigned port, uint64_t now_ns);
uint64_t rp_sw_wd_due(const struct rp_switch *sw, unsigned port, unsigned tc, uint64_t now_ns);
void rp_sw_wd_pfc_rx(struct rp_switch *sw, unsigned port, uint8_t prios, uint64_t now_ns);

/* classify.c: -1 when the frame is malformed (runt, oversize, no header). */
int rp_sw_classify(const struct rp_switch *sw, const uint8_t *frame, size_t len, struct rp_class *c);

/* admit.c: buffer accounting. */
enum rp_admit { RP_ADMIT_SHARED, RP_ADMIT_HEADROOM, RP_ADMIT_DROP };
uint64_t rp_sw_xoff_thresh(const struct rp_switch *sw, unsigned tc);
enum rp_admit rp_sw_admit(const struct rp_switch *sw, unsigned in, unsigned out, unsigned tc, uint64_t len,
			  enum rp_switch_drop *why);
void rp_sw_charge(struct rp_switch *sw, unsigned in, unsigned tc, uint64_t len, enum rp_admit where);
void rp_sw_release(struct rp_switch *sw, unsigned in, unsigned tc, uint64_t len);

/* pfc_gen.c: the PFC frames the switch sends. */
bool rp_sw_pfc_check_xoff(struct rp_switch *sw, uint64_t now_ns, unsigned in, unsigned tc, bool spilled);
bool rp_sw_pfc_check_xon(struct rp_switch *sw, uint64_t now_ns, unsigned in, unsigned tc);
uint8_t rp_sw_pfc_due(const struct rp_switch *sw, unsigned port, uint64_t now_ns);
uint64_t rp_sw_pfc_next_due(const struct rp_switch *sw, unsigned port);
size_t rp_sw_pfc_build(struct rp_switch *sw, unsigned port, uint64_t now_ns, uint8_t *buf, size_t cap,
		       uint8_t *xoff, uint8_t *xon);

/* pfc_rx.c: PFC/PAUSE received. */
void rp_sw_pfc_receive(struct rp_switch *sw, uint64_t now_ns, unsigned port, const uint8_t *frame, size_t len,
		       struct rp_switch_rx *rx);

/* ecn_mark.c */
bool rp_sw_red_decide(struct rp_switch *sw, unsigned tc, uint64_t depth_after);
void rp_sw_ecn_set_ce(uint8_t *frame, const struct rp_pkt *p);

/* sched.c: the queue to serve next, or -1. */
int rp_sw_sched_pick(struct rp_switch *sw, unsigned port, uint64_t now_ns);
/* A frame of len left queue tc: charge its DWRR deficit. */
void rp_sw_sched_sent(struct rp_switch *sw, unsigned port, unsigned tc, uint64_t len);

/* pktq.c: descriptors and FIFO queues. */
uint32_t rp_sw_pkt_alloc(struct rp_switch *sw);
void rp_sw_pkt_free(struct rp_switch *sw, uint32_t i);
/* Port p's transmitter is to be asked: in the list (every port) and, below
 * 64, the mask too. */
static inline void rp_sw_kick(uint64_t *mask, uint16_t *list, uint8_t *n, unsigned p)
{
	if (p < 64)
		*mask |= 1ull << p;
	for (unsigned i = 0; i < *n; i++)
		if (list[i] == p)
			return;
	if (*n < RP_SWITCH_KICKS)
		list[(*n)++] = (uint16_t)p;
}
/* More descriptors (doubling up to pkt_max); 0, or -1 at the limit or out of memory. */
int rp_sw_pkt_grow(struct rp_switch *sw);
void rp_sw_queue_push(struct rp_switch *sw, unsigned port, unsigned tc, uint32_t i, uint64_t now_ns);
uint32_t rp_sw_queue_pop(struct rp_switch *sw, unsigned port, unsigned tc, uint64_t now_ns);

/* wire time of a frame on a port, carrying sub-ns remainders frame to frame. */
uint64_t rp_sw_tx_occupy(struct rp_switch *sw, unsigned port, uint64_t now_ns, size_t len);

static inline bool rp_sw_lossless(const struct rp_switch *sw, unsigned tc)
{
	return (sw->cfg.lossless_mask >> tc) & 1u;
}

#endif
