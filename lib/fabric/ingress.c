/* A frame arrives: classify, act on MAC control, look up the out port, admit
 * against the buffer, store, and decide XOFF for the ingress PG. */
#include <string.h>

#include "switch_internal.h"

static void count_drop(struct rp_switch *sw, unsigned in, int out, const struct rp_class *c, size_t len,
		       enum rp_switch_drop why, struct rp_switch_rx *rx)
{
	rx->verdict = RP_SW_DROPPED;
	rx->drop = why;
	sw->port[in].st.drop_pkts[why]++;
	if (!c)
		return;
	sw->port[in].pg[c->tc].st.drop_pkts++;
	sw->port[in].pg[c->tc].st.drop_bytes += len;
	if (out >= 0) {
		struct rp_switch_queue_stats *qs = &sw->port[out].q[c->tc].st;
		qs->drop_pkts[why]++;
		qs->drop_bytes[why] += len;
	}
}

/* Copies the frame in (or keeps the caller's ref) and fills its descriptor;
 * RP_PKT_NONE when memory is out (it is sized so this does not happen). */
static uint32_t store(struct rp_switch *sw, uint64_t now_ns, unsigned in, const struct rp_class *c,
		      const uint8_t *frame, size_t len, uint32_t ref)
{
	uint32_t i = rp_sw_pkt_alloc(sw), cell;
	if (i == RP_PKT_NONE)
		return i;
	cell = sw->frame_of ? ref : rp_cells_store(&sw->cells, frame, len);
	if (cell == RP_CELL_NONE) {
		rp_sw_pkt_free(sw, i);
		return RP_PKT_NONE;
	}
	sw->pkt[i] = (struct rp_pkt){.cell = cell, .enq_ns = now_ns, .len = (uint16_t)len, .l3_off = c->l3_off,
				     .in_port = (uint16_t)in, .tc = c->tc, .l3 = c->l3, .ect = c->ect};
	return i;
}

static void xoff_check(struct rp_switch *sw, uint64_t now_ns, unsigned in, unsigned tc, bool spilled,
		       struct rp_switch_rx *rx)
{
	if (rp_sw_pfc_check_xoff(sw, now_ns, in, tc, spilled)) {
		rx->xoff |= (uint8_t)(1u << tc);
		rp_sw_kick(&rx->kick, rx->kick_port, &rx->nkick, in);
	}
}

static void enqueue(struct rp_switch *sw, uint64_t now_ns, unsigned in, unsigned out, const struct rp_class *c,
		    const uint8_t *frame, size_t len, uint32_t ref, struct rp_switch_rx *rx)
{
	enum rp_switch_drop why;
	enum rp_admit where = rp_sw_admit(sw, in, out, c->tc, len, &why);
	uint32_t i;

	if (where == RP_ADMIT_DROP) {
		count_drop(sw, in, (int)out, c, len, why, rx);
		xoff_check(sw, now_ns, in, c->tc, true, rx); /* overflow means XOFF, whatever the threshold */
		return;
	}
	i = store(sw, now_ns, in, c, frame, len, ref);
	if (i == RP_PKT_NONE) {
		count_drop(sw, in, (int)out, c, len, RP_DROP_NOMEM, rx);
		return;
	}
	rp_sw_charge(sw, in, c->tc, len, where);
	rp_sw_queue_push(sw, out, c->tc, i, now_ns);
	rx->verdict = RP_SW_QUEUED;
	rx->headroom = where == RP_ADMIT_HEADROOM;
	rp_sw_kick(&rx->kick, rx->kick_port, &rx->nkick, out);
	xoff_check(sw, now_ns, in, c->tc, rx->headroom, rx);
}

static int ingress(struct rp_switch *sw, uint64_t now_ns, unsigned in_port, const uint8_t *frame, size_t len,
		   int out_port, uint32_t ref, struct rp_switch_rx *rx)
{
	struct rp_switch_rx scratch;
	struct rp_class c;
	int out;

	if (!rx)
		rx = &scratch;
	memset(rx, 0, sizeof(*rx));
	if (in_port >= sw->cfg.nports)
		return -1;
	sw->port[in_port].st.rx_pkts++;
	sw->port[in_port].st.rx_bytes += len;
	if (rp_sw_classify(sw, frame, len, &c) != 0) {
		count_drop(sw, in_port, -1, NULL, len, RP_DROP_MALFORMED, rx);
		return 0;
	}
	if (c.macctl) {
		rp_sw_pfc_receive(sw, now_ns, in_port, frame, len, rx);
		return 0;
	}
	rx->tc = c.tc;
	sw->port[in_port].pg[c.tc].st.rx_pkts++;
	sw->port[in_port].pg[c.tc].st.rx_bytes += len;
	out = out_port >= 0 ? out_port : rp_fdb_lookup(&sw->fdb, c.dst);
	if (out < 0 || (unsigned)out >= sw->cfg.nports) {
		count_drop(sw, in_port, -1, &c, len, RP_DROP_NO_ROUTE, rx);
		return 0;
	}
	rx->out_port = (unsigned)out;
	enqueue(sw, now_ns, in_port, (unsigned)out, &c, frame, len, ref, rx);
	return 0;
}

int rp_switch_ingress(struct rp_switch *sw, uint64_t now_ns, unsigned in_port, const uint8_t *frame, size_t len,
		      int out_port, struct rp_switch_rx *rx)
{
	if (sw->frame_of)
		return -1; /* by reference: rp_switch_ingress_ref */
	return ingress(sw, now_ns, in_port, frame, len, out_port, RP_SWITCH_NOREF, rx);
}

int rp_switch_ingress_ref(struct rp_switch *sw, uint64_t now_ns, unsigned in_port, uint32_t ref, size_t len,
			  int out_port, struct rp_switch_rx *rx)
{
	if (!sw->frame_of)
		return -1;
	return ingress(sw, now_ns, in_port, sw->frame_of(sw->frame_ctx, ref), len, out_port, ref, rx);
}
