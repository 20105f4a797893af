/* PFC / PAUSE as a receiving NIC sees it: which priorities are paused now, and
 * how long each was paused in all. Clock-free: the caller passes now in ns, so
 * the DPDK edge, the virtual-time lab and offline analysis share it. */
#ifndef RP_STATS_PAUSE_H
#define RP_STATS_PAUSE_H

#include <stdbool.h>
#include <stdint.h>

#include "wire/pfc.h"

#define RP_PAUSE_NEVER UINT64_MAX

struct rp_pause_prio {
	uint64_t frames;       /* PFC/PAUSE frames that named this priority */
	uint64_t quanta;       /* their quanta, summed */
	uint64_t paused_ns;    /* closed pause intervals, summed */
	uint64_t xoff_to_xon;  /* pause intervals that ended (XON or expiry) */
	uint64_t first_pause_ns;
	uint64_t start_ns;     /* of the open interval */
	uint64_t until_ns;     /* paused while now < until_ns */
	bool open;
};

struct rp_pause {
	uint64_t link_bps;
	uint64_t pfc_frames;
	uint64_t pause_frames;
	uint8_t open_mask; /* bit i: prio[i].open (rp_pause_mask looks at these only) */
	struct rp_pause_prio prio[RP_PFC_PRIOS];
};

void rp_pause_init(struct rp_pause *p, uint64_t link_bps);
/* A received PFC or PAUSE frame (802.3x PAUSE pauses every priority). */
void rp_pause_rx(struct rp_pause *p, uint64_t now_ns, const struct rp_macctl *m);
/* Bit p set when priority p may not transmit at now_ns. Called per packet
 * (host and switch transmitters): only the open intervals are looked at. */
static inline uint8_t rp_pause_mask(const struct rp_pause *p, uint64_t now_ns)
{
	uint8_t mask = 0;
	for (unsigned m = p->open_mask; m; m &= m - 1) {
		unsigned i = (unsigned)__builtin_ctz(m);
		if (now_ns < p->prio[i].until_ns)
			mask |= (uint8_t)(1u << i);
	}
	return mask;
}
/* Sets or clears prio's open flag and its bit in open_mask together. */
static inline void rp_pause_set_open(struct rp_pause *p, unsigned prio, bool open)
{
	p->prio[prio].open = open;
	if (open)
		p->open_mask |= (uint8_t)(1u << prio);
	else
		p->open_mask &= (uint8_t)~(1u << prio);
}
/* Total paused time of a priority up to now_ns, the open interval included. */
uint64_t rp_pause_paused_ns(const struct rp_pause *p, unsigned prio, uint64_t now_ns);
/* Closes intervals that have expired by now_ns, so xoff_to_xon is current. */
void rp_pause_settle(struct rp_pause *p, uint64_t now_ns);

#endif
