/* A switch in the lab: frames in through rp_switch_ingress_ref, out through
 * its transmitters when they are free, onto the wire toward the peer. A frame
 * is never copied on its way through: the switch holds its pool slot while
 * it is queued and hands the same slot to the next wire. */
#include <string.h>

#include "lab_internal.h"

static uint8_t *pool_frame(void *ctx, uint32_t slot)
{
	return rp_pool_buf(ctx, slot);
}

void rp_lab_sw_refs(struct rp_lab *lab)
{
	for (unsigned s = 0; s < lab->nsw; s++)
		rp_switch_use_refs(lab->sw[s].sw, pool_frame, &lab->pool);
}

void rp_lab_sw_wake(struct rp_lab *lab, unsigned s, unsigned port, uint64_t t)
{
	struct rp_lab_switch *S = &lab->sw[s];
	if (t == RP_LAB_NEVER || t >= S->wake_at[port])
		return;
	S->wake_at[port] = t;
	rp_lab_push(lab, t, RP_EV_SW_TX, (uint32_t)(lab->nhosts + s), (uint16_t)port, 0);
}

static void kick(struct rp_lab *lab, unsigned s, const uint16_t *ports, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		rp_lab_sw_wake(lab, s, ports[i], lab->now);
}

/* The first standing queue anywhere (more than two max frames): the start
 * of congestion pause propagation is measured from. */
static void watch_congestion(struct rp_lab *lab, unsigned s, const struct rp_switch_rx *rx)
{
	struct rp_switch_queue_stats q;
	if (lab->congestion_ns != RP_LAB_NEVER)
		return;
	rp_switch_queue_stats(lab->sw[s].sw, rx->out_port, rx->tc, lab->now, &q);
	if (q.depth_bytes > 2ull * lab->fab->max_frame) {
		lab->congestion_ns = lab->now;
		lab->congested_sw = (int)s;
		lab->congested_port = (int)rx->out_port;
	}
}

/* ports[].prio[].drops: a dropped frame counts at the host it was for
 * (wherever in the fabric it died), on its priority. */
static void note_drop(struct rp_lab *lab, const uint8_t *b, size_t len, const struct rp_switch_rx *rx)
{
	int h = len >= 6 && rx->drop != RP_DROP_MALFORMED ? rp_lab_host_by_mac(lab, b) : -1;
	if (h >= 0)
		rp_acct_add_drops(lab->acct, (unsigned)h, rx->tc, 1);
}

void rp_lab_sw_arrive(struct rp_lab *lab, unsigned s, unsigned port, uint32_t slot)
{
	struct rp_lab_switch *S = &lab->sw[s];
	const uint8_t *b = rp_pool_buf(&lab->pool, slot);
	size_t len = lab->pool.len[slot];
	struct rp_switch_rx rx;
	if (S->mirror_of[port]) /* as it came in, before the switch decides */
		rp_lab_mirror(lab, S->mirror_of[port] - 1u, lab->now, b, len);
	int out = rp_lab_route(lab, s, slot);
	rx.verdict = RP_SW_CONSUMED;
	if (rp_switch_ingress_ref(S->sw, lab->now, port, slot, len, out, &rx) == 0) {
		if (rx.verdict == RP_SW_DROPPED) {
			lab->tot.sw_drops++;
			lab->tot.sw_drop_bytes += len;
			note_drop(lab, b, len, &rx);
		} else if (rx.verdict == RP_SW_QUEUED) {
			watch_congestion(lab, s, &rx);
		}
		kick(lab, s, rx.kick_port, rx.nkick);
	}
	if (rx.verdict != RP_SW_QUEUED) /* queued: the switch holds the slot */
		rp_pool_put(&lab->pool, slot);
}

static void note_pfc(struct rp_lab_switch *S, unsigned port, const struct rp_switch_tx *tx)
{
	if (tx->kind == RP_TX_PFC && tx->pfc_xoff && S->first_xoff_ns[port] == RP_LAB_NEVER)
		S->first_xoff_ns[port] = tx->start_ns;
}

void rp_lab_sw_tx(struct rp_lab *lab, unsigned s, unsigned port)
{
	struct rp_lab_switch *S = &lab->sw[s];
	struct rp_switch_tx tx;
	uint32_t slot = rp_pool_get(&lab->pool); /* for a PFC frame the switch builds */
	if (slot == RP_POOL_NONE) {
		lab->failed = true;
		return;
	}
	int rc = rp_switch_next_tx(S->sw, port, lab->now, rp_pool_buf(&lab->pool, slot), lab->pool.slot_size, &tx);
	if (rc == 1 && tx.ref != RP_SWITCH_NOREF) { /* a data frame: its own slot goes on */
		rp_pool_put(&lab->pool, slot);
		slot = tx.ref;
	} else { /* a PFC frame may have been built in it */
		rp_pool_wrote(&lab->pool, slot, 0, rc == 1 && tx.len > RP_MACCTL_FRAME_LEN ? tx.len : RP_MACCTL_FRAME_LEN);
	}
	if (rc == 1 && S->mirror_of[port]) /* as it leaves: CE marks made, PFC frames sent */
		rp_lab_mirror(lab, S->mirror_of[port] - 1u, tx.start_ns, rp_pool_buf(&lab->pool, slot), tx.len);
	if (rc == 1 && S->port[port].kind != RP_PEER_NONE) {
		lab->pool.len[slot] = (uint16_t)tx.len;
		note_pfc(S, port, &tx);
		rp_lab_deliver(lab, &S->port[port], slot, tx.arrive_ns);
		kick(lab, s, tx.kick_port, tx.nkick);
	} else {
		rp_pool_put(&lab->pool, slot);
		if (rc == 1)
			kick(lab, s, tx.kick_port, tx.nkick);
	}
	rp_lab_sw_wake(lab, s, port, rp_switch_next_event_ns(S->sw, port, lab->now));
}
