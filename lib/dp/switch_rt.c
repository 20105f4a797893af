#include "switch_rt.h"

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <string.h>

#include "capture.h"
#include "wire/classify.h"

#define ETH_HLEN 14

void rp_dp_switch_init(struct rp_dp_switch *s, struct rp_switch *sw, struct rp_dp_port *const *ports,
		       unsigned nports, bool learn, bool flood_unknown)
{
	memset(s, 0, sizeof(*s));
	s->sw = sw;
	s->nports = nports;
	s->learn = learn;
	s->flood_unknown = flood_unknown;
	for (unsigned i = 0; i < nports; i++) {
		s->port[i].port = ports[i];
		s->port[i].wake_ns = RP_SWITCH_NEVER;
	}
}

/* Ports whose transmitter has news: ask them at the model time. */
static void kick(struct rp_dp_switch *s, uint64_t mask)
{
	for (unsigned p = 0; mask && p < s->nports; p++, mask >>= 1)
		if ((mask & 1) && s->port[p].wake_ns > s->mt)
			s->port[p].wake_ns = s->mt;
}

/* 01:80:C2:00:00:00..0F: reserved for the link; bridges never forward them. */
static bool is_link_local(const uint8_t *b)
{
	static const uint8_t pfx[5] = {0x01, 0x80, 0xC2, 0x00, 0x00};
	return memcmp(b, pfx, 5) == 0 && (b[5] & 0xF0) == 0;
}

static void learn_src(struct rp_dp_switch *s, unsigned in, const uint8_t *b)
{
	const uint8_t *src = b + 6;
	if (src[0] & 1)
		return; /* a group address is never a source */
	if (rp_switch_fdb_lookup(s->sw, src) == (int)in)
		return;
	if (rp_switch_fdb_add(s->sw, src, in) == 0)
		s->port[in].c.learned++;
	else
		s->port[in].c.fdb_full++;
}

static void to_model(struct rp_dp_switch *s, unsigned in, const uint8_t *b, size_t len, int out)
{
	struct rp_switch_rx rx;
	if (rp_switch_ingress(s->sw, s->mt, in, b, len, out, &rx) != 0)
		return;
	kick(s, rx.kick);
	if (rx.verdict == RP_SW_QUEUED) {
		struct rp_switch_queue_stats q;
		struct rp_dp_sw_port *op = &s->port[rx.out_port];
		rp_switch_queue_stats(s->sw, rx.out_port, rx.tc, s->mt, &q);
		if (q.depth_bytes > op->qmax_window)
			op->qmax_window = q.depth_bytes;
	}
}

static void flood(struct rp_dp_switch *s, unsigned in, const uint8_t *b, size_t len)
{
	s->port[in].c.flooded++;
	for (unsigned p = 0; p < s->nports; p++)
		if (p != in) {
			to_model(s, in, b, len, (int)p);
			s->port[in].c.flood_copies++;
		}
}

/* One received frame: filter, learn, then into the model once (or once per
 * other port when flooded). */
static void forward(struct rp_dp_switch *s, unsigned in, const uint8_t *b, size_t len)
{
	if (len < ETH_HLEN || rp_cls_macctl_op(b, len) >= 0) {
		to_model(s, in, b, len, -1); /* the model consumes it or counts a runt */
		return;
	}
	if (is_link_local(b)) {
		s->port[in].c.link_local++;
		return;
	}
	if (s->learn)
		learn_src(s, in, b);
	if (b[0] & 1) {
		flood(s, in, b, len);
		return;
	}
	int out = rp_switch_fdb_lookup(s->sw, b);
	if (out == (int)in) {
		s->port[in].c.hairpin++;
		return;
	}
	if (out < 0 && s->flood_unknown && s->nports > 1) {
		flood(s, in, b, len);
		return;
	}
	to_model(s, in, b, len, -1); /* unknown without flooding: the model counts no_route */
}

static void rx_port(struct rp_dp_switch *s, unsigned p)
{
	struct rp_dp_sw_port *sp = &s->port[p];
	struct rte_mbuf *m[RP_DP_SW_BURST];
	uint16_t n = rte_eth_rx_burst(sp->port->id, 0, m, RP_DP_SW_BURST);
	for (uint16_t i = 0; i < n; i++) {
		uint32_t len = rte_pktmbuf_pkt_len(m[i]);
		const uint8_t *b = rte_pktmbuf_mtod(m[i], const uint8_t *);
		if (m[i]->nb_segs > 1)
			b = rte_pktmbuf_read(m[i], 0, len < sizeof(s->linear) ? len : sizeof(s->linear), s->linear);
		sp->c.rx_frames++;
		sp->c.rx_bytes += len;
		if (sp->cap)
			rp_capture_offer(sp->cap, s->mt, (uint16_t)p, false, b, len);
		forward(s, p, b, len);
	}
	if (n)
		rte_pktmbuf_free_bulk(m, n);
}

/* The port whose transmitter is due first (at or before now) and whose
 * burst has room; -1 when none. */
static int next_due(const struct rp_dp_switch *s, uint64_t now_ns)
{
	int best = -1;
	for (unsigned p = 0; p < s->nports; p++) {
		const struct rp_dp_sw_port *sp = &s->port[p];
		if (sp->wake_ns <= now_ns && sp->nout < RP_DP_SW_BURST &&
		    (best < 0 || sp->wake_ns < s->port[best].wake_ns))
			best = (int)p;
	}
	return best;
}

/* Asks the model for port p's frame at t; a frame goes into the port's burst. */
static void take_frame(struct rp_dp_switch *s, unsigned p, uint64_t t)
{
	struct rp_dp_sw_port *sp = &s->port[p];
	struct rte_mbuf *m = rte_pktmbuf_alloc(sp->port->pool);
	if (!m) {
		sp->c.nombuf++;
		sp->wake_ns = t + 1000; /* try again shortly */
		return;
	}
	struct rp_switch_tx tx;
	uint8_t *buf = rte_pktmbuf_mtod(m, uint8_t *);
	int rc = rp_switch_next_tx(s->sw, p, t, buf, rte_pktmbuf_tailroom(m), &tx);
	if (rc == 1) {
		m->data_len = (uint16_t)tx.len;
		m->pkt_len = (uint32_t)tx.len;
		sp->out_len[sp->nout] = (uint16_t)tx.len;
		sp->out[sp->nout++] = m;
		sp->c.tx_pfc += tx.kind == RP_TX_PFC;
		if (sp->cap)
			rp_capture_offer(sp->cap, tx.start_ns, (uint16_t)p, true, buf, (uint32_t)tx.len);
		kick(s, tx.kick);
	} else {
		rte_pktmbuf_free(m);
	}
	sp->wake_ns = rp_switch_next_event_ns(s->sw, p, t);
	if (rc != 1 && sp->wake_ns <= t)
		sp->wake_ns = t + 1; /* never spin on a time that gives nothing */
}

/* Every transmitter catches up to now_ns at the times the model names, in
 * time order across ports, so model time never goes back. */
static void tx_catch_up(struct rp_dp_switch *s, uint64_t now_ns)
{
	int p;
	while ((p = next_due(s, now_ns)) >= 0) {
		uint64_t t = s->port[p].wake_ns > s->mt ? s->port[p].wake_ns : s->mt;
		s->mt = t;
		take_frame(s, (unsigned)p, t);
	}
}

static void tx_flush(struct rp_dp_sw_port *sp)
{
	if (!sp->nout)
		return;
	/* Lengths were kept at take_frame: a sent mbuf may be back in its pool. */
	uint16_t sent = rte_eth_tx_burst(sp->port->id, 0, sp->out, (uint16_t)sp->nout);
	for (uint16_t i = 0; i < sent; i++)
		sp->c.tx_bytes += sp->out_len[i];
	sp->c.tx_frames += sent;
	if (sent < sp->nout) {
		sp->c.tx_stalls++;
		memmove(sp->out, sp->out + sent, (sp->nout - sent) * sizeof(sp->out[0]));
		memmove(sp->out_len, sp->out_len + sent, (sp->nout - sent) * sizeof(sp->out_len[0]));
	}
	sp->nout -= sent;
}

void rp_dp_switch_poll(struct rp_dp_switch *s, uint64_t now_ns)
{
	tx_catch_up(s, now_ns);
	if (now_ns > s->mt)
		s->mt = now_ns;
	for (unsigned p = 0; p < s->nports; p++)
		rx_port(s, p);
	for (unsigned p = 0; p < s->nports; p++)
		tx_flush(&s->port[p]);
}

void rp_dp_switch_flush(struct rp_dp_switch *s, uint64_t drain_ns)
{
	uint64_t end = rp_dp_now_ns() + drain_ns;
	bool left = true;
	while (left && rp_dp_now_ns() < end) {
		left = false;
		for (unsigned p = 0; p < s->nports; p++) {
			tx_flush(&s->port[p]);
			left |= s->port[p].nout != 0;
		}
	}
	for (unsigned p = 0; p < s->nports; p++) {
		struct rp_dp_sw_port *sp = &s->port[p];
		if (sp->nout)
			rte_pktmbuf_free_bulk(sp->out, sp->nout);
		sp->c.tx_unsent += sp->nout;
		sp->nout = 0;
	}
}
