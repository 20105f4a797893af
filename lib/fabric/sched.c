/* The egress scheduler: strict priority (highest queue first) over the
 * strict queues, then deficit weighted round robin (Shreedhar-Varghese DRR,
 * quantum = weight x dwrr_quantum) over the rest. Queues paused by received
 * PFC, like empty ones, are not eligible and keep no deficit: a paused queue
 * must not come back with a burst of saved-up credit. */
#include "switch_internal.h"

static uint8_t eligible(struct rp_switch *sw, unsigned port, uint64_t now_ns)
{
	uint8_t m = sw->port[port].qmask; /* the non-empty queues */
	return m & (uint8_t)~rp_sw_wd_paused(sw, port, now_ns);
}

static int highest(uint8_t m)
{
	for (int t = RP_SWITCH_TCS - 1; t >= 0; t--)
		if ((m >> t) & 1u)
			return t;
	return -1;
}

static void dwrr_advance(struct rp_port *p)
{
	p->dwrr_cur = (uint8_t)((p->dwrr_cur + 1) % RP_SWITCH_TCS);
	p->dwrr_in_turn = false;
}

/* Terminates: each pass over an eligible queue adds its quantum, so its head
 * frame fits after at most max_frame / quantum rounds. */
static int dwrr_pick(struct rp_switch *sw, unsigned port, uint8_t elig)
{
	struct rp_port *p = &sw->port[port];

	if (!elig)
		return -1;
	for (;;) {
		unsigned t = p->dwrr_cur;
		struct rp_queue *q = &p->q[t];
		if (!((elig >> t) & 1u)) {
			q->deficit = 0;
			dwrr_advance(p);
			continue;
		}
		if (!p->dwrr_in_turn) {
			q->deficit += (uint64_t)sw->cfg.queue[t].weight * sw->cfg.dwrr_quantum;
			p->dwrr_in_turn = true;
		}
		if (sw->pkt[q->head].len <= q->deficit)
			return (int)t;
		dwrr_advance(p);
	}
}

int rp_sw_sched_pick(struct rp_switch *sw, unsigned port, uint64_t now_ns)
{
	uint8_t elig = eligible(sw, port, now_ns), strict = elig & sw->cfg.strict_mask;

	if (strict)
		return highest(strict);
	return dwrr_pick(sw, port, elig & (uint8_t)~sw->cfg.strict_mask);
}

void rp_sw_sched_sent(struct rp_switch *sw, unsigned port, unsigned tc, uint64_t len)
{
	struct rp_port *p = &sw->port[port];
	struct rp_queue *q = &p->q[tc];

	if ((sw->cfg.strict_mask >> tc) & 1u)
		return;
	q->deficit -= len;
	if (!q->pkts) { /* an emptied queue gives up its turn and its credit */
		q->deficit = 0;
		if (p->dwrr_cur == tc)
			dwrr_advance(p);
	}
}
