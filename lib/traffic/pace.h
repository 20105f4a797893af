/* Exact, clock-free pacing of one flow: when each packet is due, in integer
 * nanoseconds plus a remainder, so due times never drift. Shared by the plan
 * (to count what a flow will send) and the packet source (to send it).
 *
 * Packet i of a flow is due at start + floor(B_i * 1e9 / rate) where B_i is
 * the layer-1 bits of the packets before it (frame + 24 bytes each), with
 * the due time restarting at each burst window:
 * - time bursts (on/off): a packet due at or after the end of the current
 *   on-window waits for the start of the next one;
 * - message bursts (all-to-all phases): after burst_msgs messages the flow
 *   waits for the next period.
 * Stop: after stop_count packets or messages, or (duration) no message starts
 * at or after end_ns; a started message is always finished.
 * Rate phases (profile `phases:`; duration stop, no bursts): the rate changes
 * at start + at of each phase, between messages: the first message due at or
 * after the boundary starts the new rate (its remainder restarts at 0). While
 * a phase is left, end_ns is the next boundary, so the pacer stops there as
 * at the end, and rp_pace_phase_check moves it on (a slow path, where the
 * flow would otherwise be done); a flow without phases never takes it. */
#ifndef RP_TRAFFIC_PACE_H
#define RP_TRAFFIC_PACE_H

#include <stdbool.h>
#include <stdint.h>

#include "profile/profile.h"
#include "segment.h"

struct rp_pace_cfg {
	uint64_t start_ns;
	uint64_t end_ns;    /* RP_STOP_DURATION: start + duration; else UINT64_MAX */
	uint64_t period_ns; /* 0: continuous */
	uint64_t on_ns;     /* with period: time bursts; 0 with period: message bursts */
	uint32_t burst_msgs;
	enum rp_stop_kind stop;
	uint64_t stop_count; /* packets or messages */
	uint64_t div;        /* the rate in bit/s (frames/s for PFC sources) */
	uint32_t npkts;      /* packets per message */
	/* The time a packet of each kind takes: gap_ns + gap_rem / div. */
	uint64_t gap_ns[RP_PKT_KINDS];
	uint64_t gap_rem[RP_PKT_KINDS];
	/* The same for a whole message. */
	uint64_t msg_ns;
	uint64_t msg_rem;
	/* Rate phases (NULL: one rate): the entry's, borrowed from the profile.
	 * The gaps above are phase `phase`'s; end_ns its end. */
	const struct rp_rate_phase *phases;
	uint64_t link_bps; /* what the phases' percentages are of */
	uint64_t stop_ns;  /* with phases: the duration's end */
	uint16_t nphases, phase;
};

struct rp_pace {
	uint64_t due_ns;
	uint64_t rem;       /* < div */
	uint64_t win_start;
	uint64_t pkts;
	uint64_t msgs;      /* whole messages sent */
	uint32_t pkt_in_msg;
	uint32_t msgs_in_win;
	bool done;
};

/* Sets gap_ns/gap_rem from each kind's layer-1 bits (bits * 1e9 / rate) and
 * the message totals; l1_bits[k] may be 0 for kinds the flow never sends. */
void rp_pace_cfg_gaps(struct rp_pace_cfg *c, const uint64_t l1_bits[RP_PKT_KINDS]);
/* For PFC sources: one frame every 1e9 / fps ns, exactly. */
void rp_pace_cfg_fps(struct rp_pace_cfg *c, uint64_t fps);
void rp_pace_init(const struct rp_pace_cfg *c, struct rp_pace *s);

static inline enum rp_pkt_kind rp_pace_kind(const struct rp_pace_cfg *c, const struct rp_pace *s)
{
	return rp_seg_kind(s->pkt_in_msg, c->npkts);
}

void rp_pace_window(const struct rp_pace_cfg *c, struct rp_pace *s, bool boundary);

static inline void rp_pace_check_stop(const struct rp_pace_cfg *c, struct rp_pace *s)
{
	if (c->stop == RP_STOP_PACKETS)
		s->done = s->pkts >= c->stop_count;
	else if (c->stop == RP_STOP_MESSAGES)
		s->done = s->msgs >= c->stop_count;
	else
		s->done = s->pkt_in_msg == 0 && s->due_ns >= c->end_ns;
}

/* The due time after one packet that takes gap + gap_rem / div ns: the
 * continuous part of a pacing step. rp_pace_step uses it, and so does the
 * packet source's fast path with due and rem held in registers. */
static inline __attribute__((always_inline)) void rp_pace_advance(uint64_t *due, uint64_t *rem, uint64_t gap,
								  uint64_t gap_rem, uint64_t div)
{
	*due += gap;
	*rem += gap_rem;
	if (*rem >= div) {
		*rem -= div;
		++*due;
	}
}

/* Account one sent packet of kind k and move to the next one. */
static inline void rp_pace_step(const struct rp_pace_cfg *c, struct rp_pace *s, enum rp_pkt_kind k)
{
	s->pkts++;
	rp_pace_advance(&s->due_ns, &s->rem, c->gap_ns[k], c->gap_rem[k], c->div);
	bool boundary = ++s->pkt_in_msg == c->npkts;
	if (boundary) {
		s->pkt_in_msg = 0;
		s->msgs++;
		s->msgs_in_win++;
	}
	if (c->period_ns)
		rp_pace_window(c, s, boundary);
	rp_pace_check_stop(c, s);
}

/* Sets phase i's rate (gaps and message time from the current ones, exactly)
 * and its end in end_ns. */
void rp_pace_phase_set(struct rp_pace_cfg *c, uint16_t i);
/* The slow path: a flow done at a phase boundary moves to the next phase(s). */
void rp_pace_phase_next(struct rp_pace_cfg *c, struct rp_pace *s);
static inline void rp_pace_phase_check(struct rp_pace_cfg *c, struct rp_pace *s)
{
	if (__builtin_expect(s->done, 0) && c->nphases)
		rp_pace_phase_next(c, s);
}

/* A flow more than lag_ns behind now restarts at now (no burst to catch up). */
static inline void rp_pace_catch_up(const struct rp_pace_cfg *c, struct rp_pace *s, uint64_t now, uint64_t lag_ns)
{
	if (s->due_ns + lag_ns >= now)
		return;
	s->due_ns = now;
	s->rem = 0;
	if (c->period_ns && c->on_ns)
		rp_pace_window(c, s, false);
	rp_pace_check_stop(c, s);
}

/* What a flow sends in total, counted exactly as the source will send it. */
struct rp_pace_totals {
	uint64_t pkts;
	uint64_t msgs;                  /* whole messages */
	uint64_t kind[RP_PKT_KINDS];    /* packets of each kind */
};
void rp_pace_totals(const struct rp_pace_cfg *c, struct rp_pace_totals *t);
/* The same by stepping the pacer packet by packet (slow; for tests). */
void rp_pace_totals_slow(const struct rp_pace_cfg *c, struct rp_pace_totals *t);
/* With phases: the time the last message's last packet is done (rounded up),
 * as the source paces it; the flow's busy time is this minus start_ns. */
uint64_t rp_pace_phases_end(const struct rp_pace_cfg *c);

#endif
