/* A port's transmitter: PFC frames first (MAC control goes ahead of queued
 * data but never cuts the frame already on the wire), then the scheduler's
 * pick. The transmitter is busy for (len + 24) * 8 / rate; the sub-ns
 * remainder is carried to the next back-to-back frame so a long run keeps
 * line rate exactly. */
#include <string.h>

#include "switch_internal.h"

uint64_t rp_sw_tx_occupy(struct rp_switch *sw, unsigned port, uint64_t now_ns, size_t len)
{
	struct rp_port *p = &sw->port[port];
	uint64_t rate = sw->cfg.port[port].rate_bps;
	uint64_t bits_ns, dur;

	if (now_ns > p->busy_until)
		p->tx_rem = 0; /* the line went idle: nothing to carry */
	bits_ns = ((uint64_t)len + RP_SWITCH_L1_OVERHEAD) * 8u * 1000000000ull + p->tx_rem;
	dur = bits_ns / rate;
	p->tx_rem = bits_ns % rate;
	p->busy_until = now_ns + dur;
	p->st.busy_ns += dur;
	return p->busy_until;
}

static void timing(struct rp_switch *sw, unsigned port, uint64_t now_ns, size_t len, struct rp_switch_tx *tx)
{
	tx->len = len;
	tx->start_ns = now_ns;
	tx->end_ns = rp_sw_tx_occupy(sw, port, now_ns, len);
	tx->arrive_ns = tx->end_ns + sw->cfg.port[port].prop_ns;
}

static bool send_pfc(struct rp_switch *sw, unsigned port, uint64_t now_ns, uint8_t *buf, size_t cap,
		     struct rp_switch_tx *tx)
{
	size_t n = rp_sw_pfc_build(sw, port, now_ns, buf, cap, &tx->pfc_xoff, &tx->pfc_xon);
	if (!n)
		return false;
	tx->kind = RP_TX_PFC;
	timing(sw, port, now_ns, n, tx);
	return true;
}

static void mark_maybe(struct rp_switch *sw, unsigned port, const struct rp_pkt *k, uint8_t *buf,
		       struct rp_switch_tx *tx)
{
	struct rp_queue *q = &sw->port[port].q[k->tc];
	if (!k->ect || !k->l3 || !rp_sw_red_decide(sw, k->tc, q->bytes))
		return;
	rp_sw_ecn_set_ce(buf ? buf : sw->frame_of(sw->frame_ctx, k->cell), k);
	tx->ce = true;
	q->st.ecn_marked++;
	sw->port[port].st.ecn_marked++;
}

static void send_data(struct rp_switch *sw, unsigned port, unsigned tc, uint64_t now_ns, uint8_t *buf,
		      struct rp_switch_tx *tx)
{
	uint32_t i = rp_sw_queue_pop(sw, port, tc, now_ns);
	const struct rp_pkt *k = &sw->pkt[i];
	struct rp_queue *q = &sw->port[port].q[tc];

	rp_sw_sched_sent(sw, port, tc, k->len);
	if (sw->frame_of) { /* by reference: the caller's bytes, marked in place */
		tx->ref = k->cell;
		buf = NULL;
	} else {
		rp_cells_load(&sw->cells, k->cell, buf, k->len);
		rp_cells_release(&sw->cells, k->cell, k->len);
	}
	mark_maybe(sw, port, k, buf, tx);
	tx->kind = RP_TX_DATA;
	tx->tc = tc;
	tx->in_port = k->in_port;
	tx->enq_ns = k->enq_ns;
	timing(sw, port, now_ns, k->len, tx);
	q->st.tx_pkts++;
	q->st.tx_bytes += k->len;
	sw->port[port].st.tx_pkts++;
	sw->port[port].st.tx_bytes += k->len;
	rp_sw_release(sw, k->in_port, tc, k->len);
	if (rp_sw_pfc_check_xon(sw, now_ns, k->in_port, tc))
		rp_sw_kick(&tx->kick, tx->kick_port, &tx->nkick, k->in_port);
	rp_sw_pkt_free(sw, i);
}

int rp_switch_next_tx(struct rp_switch *sw, unsigned port, uint64_t now_ns, uint8_t *buf, size_t cap,
		      struct rp_switch_tx *tx)
{
	int tc;

	memset(tx, 0, sizeof(*tx));
	tx->ref = RP_SWITCH_NOREF;
	/* buf takes a PFC frame, or a data frame copied out of the cells; by
	 * reference (frame_of) data frames stay in the caller's bytes. */
	if (port >= sw->cfg.nports || (!sw->frame_of && cap < sw->cfg.max_frame) || cap < RP_MACCTL_FRAME_LEN)
		return -1;
	if (now_ns < sw->port[port].busy_until)
		return 0;
	if (send_pfc(sw, port, now_ns, buf, cap, tx))
		return 1;
	tc = rp_sw_sched_pick(sw, port, now_ns);
	if (tc < 0)
		return 0;
	send_data(sw, port, (unsigned)tc, now_ns, buf, tx);
	return 1;
}

/* When a non-empty queue may go: now, or when its pause runs out (an XON
 * arriving earlier comes in through ingress, which kicks the port). */
static uint64_t queue_ready(const struct rp_port *p, unsigned t, uint8_t paused, uint64_t now_ns)
{
	if (!p->q[t].pkts)
		return RP_SWITCH_NEVER;
	return (paused >> t) & 1u ? p->pause.prio[t].until_ns : now_ns;
}

uint64_t rp_switch_next_event_ns(const struct rp_switch *sw, unsigned port, uint64_t now_ns)
{
	const struct rp_port *p;
	uint64_t due;
	uint8_t paused;

	if (port >= sw->cfg.nports)
		return RP_SWITCH_NEVER;
	p = &sw->port[port];
	due = rp_sw_pfc_next_due(sw, port);
	paused = rp_pause_mask(&p->pause, now_ns) & (uint8_t)~p->wd.storm;
	for (unsigned m = p->qmask; m; m &= m - 1) { /* an empty queue is never ready, nor due for the watchdog */
		unsigned t = (unsigned)__builtin_ctz(m);
		uint64_t r = queue_ready(p, t, paused, now_ns);
		if ((paused >> t) & 1u) {
			uint64_t w = rp_sw_wd_due(sw, port, t, now_ns);
			r = w < r ? w : r;
		}
		if (r < due)
			due = r;
	}
	if (due == RP_SWITCH_NEVER)
		return due;
	if (due < now_ns)
		due = now_ns;
	return due > p->busy_until ? due : p->busy_until;
}
