#include "pause.h"

#include <string.h>

void rp_pause_init(struct rp_pause *p, uint64_t link_bps)
{
	memset(p, 0, sizeof(*p));
	p->link_bps = link_bps;
	for (unsigned i = 0; i < RP_PFC_PRIOS; i++)
		p->prio[i].first_pause_ns = RP_PAUSE_NEVER;
}

static void close_interval(struct rp_pause *p, unsigned i, uint64_t end_ns)
{
	struct rp_pause_prio *q = &p->prio[i];
	q->paused_ns += end_ns - q->start_ns;
	q->xoff_to_xon++;
	rp_pause_set_open(p, i, false);
}

static void settle_prio(struct rp_pause *p, unsigned i, uint64_t now_ns)
{
	if (p->prio[i].open && p->prio[i].until_ns <= now_ns)
		close_interval(p, i, p->prio[i].until_ns);
}

/* A new quanta value replaces the running timer, as 802.1Qbb says: a refresh
 * extends the pause, quanta 0 (XON) ends it at once. */
static void pause_prio(struct rp_pause *p, unsigned i, uint64_t now_ns, uint16_t quanta)
{
	struct rp_pause_prio *q = &p->prio[i];
	settle_prio(p, i, now_ns);
	q->frames++;
	q->quanta += quanta;
	uint64_t until = now_ns + rp_pause_quanta_ns(quanta, p->link_bps);
	if (q->open) {
		if (quanta == 0)
			close_interval(p, i, now_ns);
		else
			q->until_ns = until;
		return;
	}
	if (quanta == 0 || until == now_ns)
		return;
	rp_pause_set_open(p, i, true);
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
				pause_prio(p, i, now_ns, m->quanta[i]);
	} else if (m->opcode == RP_MACCTL_OP_PAUSE) {
		p->pause_frames++;
		for (unsigned i = 0; i < RP_PFC_PRIOS; i++)
			pause_prio(p, i, now_ns, m->quanta[0]);
	}
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
		settle_prio(p, i, now_ns);
}
