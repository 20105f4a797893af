#include "pause.h"

#include <string.h>

void rp_pause_init(struct rp_pause *p, uint64_t link_bps)
{
	memset(p, 0, sizeof(*p));
	p->link_bps = link_bps;
	for (unsigned i = 0; i < RP_PFC_PRIOS; i++)
		p->prio[i].first_pause_ns = RP_PAUSE_NEVER;
}

static void close_interval(struct rp_pause_prio *q, uint64_t end_ns)
{
	q->paused_ns += end_ns - q->start_ns;
	q->xoff_to_xon++;
	q->open = false;
}

static void settle_prio(struct rp_pause_prio *q, uint64_t now_ns)
{
	if (q->open && q->until_ns <= now_ns)
		close_interval(q, q->until_ns);
}

/* A new quanta value replaces the running timer, as 802.1Qbb says: a refresh
 * extends the pause, quanta 0 (XON) ends it at once. */
static void pause_prio(struct rp_pause_prio *q, uint64_t now_ns, uint16_t quanta, uint64_t link_bps)
{
	settle_prio(q, now_ns);
	q->frames++;
	q->quanta += quanta;
	uint64_t until = now_ns + rp_pause_quanta_ns(quanta, link_bps);
	if (q->open) {
		if (quanta == 0)
			close_interval(q, now_ns);
		else
			q->until_ns = until;
		return;
	}
	if (quanta == 0 || until == now_ns)
		return;
	q->open = true;
	q->start_ns = now_ns;
	q->until_ns = until;
	if (q->first_pause_ns == RP_PAUSE_NEVER)
		q->first_pause_ns = now_ns;
}

void rp_pause_rx(struct rp_pause *p, uint64_t now_ns, const struct rp_macctl *m)
{
	if (m->opcode == RP_MACCTL_OP_PFC) {
		p->pfc_frames++;
		for (unsigned i = 0; i < RP_PFC_PRIOS; i++)
			if (m->enable & (1u << i))
				pause_prio(&p->prio[i], now_ns, m->quanta[i], p->link_bps);
	} else if (m->opcode == RP_MACCTL_OP_PAUSE) {
		p->pause_frames++;
		for (unsigned i = 0; i < RP_PFC_PRIOS; i++)
			pause_prio(&p->prio[i], now_ns, m->quanta[0], p->link_bps);
	}
}

uint8_t rp_pause_mask(const struct rp_pause *p, uint64_t now_ns)
{
	uint8_t mask = 0;
	for (unsigned i = 0; i < RP_PFC_PRIOS; i++)
		if (p->prio[i].open && now_ns < p->prio[i].until_ns)
			mask |= (uint8_t)(1u << i);
	return mask;
}

uint64_t rp_pause_paused_ns(const struct rp_pause *p, unsigned prio, uint64_t now_ns)
{
	const struct rp_pause_prio *q = &p->prio[prio];
	if (!q->open || now_ns <= q->start_ns)
		return q->paused_ns;
	uint64_t end = q->until_ns < now_ns ? q->until_ns : now_ns;
	return q->paused_ns + (end - q->start_ns);
}

void rp_pause_settle(struct rp_pause *p, uint64_t now_ns)
{
	for (unsigned i = 0; i < RP_PFC_PRIOS; i++)
		settle_prio(&p->prio[i], now_ns);
}
