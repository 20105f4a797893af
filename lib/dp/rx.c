#include "rx.h"

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_prefetch.h>

#include "capture.h"
#include "gen.h"
#include "stats/acct.h"
#include "wire/classify.h"
#include "wire/frame.h"

struct one_reply {
	const struct rp_reply *r;
	unsigned i;
};

static size_t build_reply(const void *arg, uint8_t *buf, size_t cap)
{
	const struct one_reply *o = arg;
	return rp_reply_build(o->r, o->i, buf, cap);
}

static void send_replies(struct rp_dp_rx *rx, struct rp_dp_txport *tp, const struct rp_reply *r, uint64_t now_ns)
{
	struct rp_dp_rxport *rp = &rx->ports[tp->index];
	for (unsigned i = 0; i < r->n; i++) {
		if (r->msg[i].at_ns > now_ns && rp_later_put(&rp->later, r, i, r->msg[i].at_ns))
			continue; /* a paper-mode CNP: rp_dp_rx_release sends it at its window's end */
		struct one_reply o = {.r = r, .i = i};
		if (rp_dp_ctl_send(tp, build_reply, &o, rp->cap, now_ns))
			rp->replies_sent++;
		else
			rp->replies_unsent++;
	}
}

/* pre: the frame's first pass (rp_acct_pre), or NULL to do it here. */
static void account(struct rp_dp_rx *rx, struct rp_dp_txport *tp, struct rte_mbuf *m, uint64_t now_ns,
		    const struct rp_acct_pre *pre)
{
	const uint8_t *b = rte_pktmbuf_mtod(m, const uint8_t *);
	uint16_t len = rte_pktmbuf_data_len(m);
	struct rp_reply reply;
	reply.n = 0;
	unsigned port = rx->acct_port ? rx->acct_port[tp->index] : tp->index;
	if (pre)
		rp_acct_rx_pre(rx->acct, port, now_ns, b, len, rte_pktmbuf_pkt_len(m), pre, &reply);
	else
		rp_acct_rx(rx->acct, port, now_ns, b, len, rte_pktmbuf_pkt_len(m), &reply);
	if (reply.n)
		send_replies(rx, tp, &reply, now_ns);
}

static bool hold(struct rp_dp_hold *h, struct rte_mbuf *m, uint64_t due)
{
	if (h->n == RP_DP_HOLD)
		return false;
	unsigned tail = (h->head + h->n) % RP_DP_HOLD;
	h->m[tail] = m;
	h->due[tail] = due;
	h->n++;
	return true;
}

static enum rp_impair_fate impair_next(struct rp_dp_rxport *rp)
{
	struct rp_impair_state *sh = rp->shared;
	if (!sh)
		return rp_impair_next(&rp->impair);
	enum rp_impair_fate f = rp_impair_fate_of(&sh->cfg, __atomic_add_fetch(&sh->seen, 1, __ATOMIC_RELAXED));
	if (f == RP_IMPAIR_DROP)
		__atomic_add_fetch(&sh->dropped, 1, __ATOMIC_RELAXED);
	else if (f == RP_IMPAIR_MARK_CE)
		__atomic_add_fetch(&sh->marked, 1, __ATOMIC_RELAXED);
	return f;
}

/* Frames ahead whose first cache line is asked for while one is accounted
 * (l3fwd's PREFETCH_OFFSET): a NIC's DMA leaves them outside the cache. */
#define RX_PREFETCH_AHEAD 3

struct burst {
	const uint8_t *buf[RP_DP_BURST];
	uint16_t caplen[RP_DP_BURST];
	uint32_t wire_len[RP_DP_BURST];
	struct rp_acct_pre pre[RP_DP_BURST];
};

/* Without impairments (which change frames before they are accounted) the
 * burst goes in two passes: every frame's classification and ICRC first
 * (rp_acct_pre_n: independent work that overlaps, the ICRCs in pairs),
 * then the accounting in order. Every frame's data is asked for at
 * once (a NIC's DMA leaves it outside the cache; 32 lines fit the L1 many
 * times). */
static bool first_pass(struct rte_mbuf **m, uint16_t n, struct burst *b)
{
	if (n > RP_DP_BURST)
		return false;
	for (uint16_t i = 0; i < n; i++) {
		b->buf[i] = rte_pktmbuf_mtod(m[i], const uint8_t *);
		rte_prefetch0(b->buf[i]);
		b->caplen[i] = rte_pktmbuf_data_len(m[i]);
		b->wire_len[i] = rte_pktmbuf_pkt_len(m[i]);
	}
	rp_acct_pre_n(b->buf, b->caplen, b->wire_len, n, b->pre);
	return true;
}

/* What rte_pktmbuf_free_bulk does for a burst of plain mbufs (one segment,
 * direct, not shared, one pool: what a PMD hands over), in one mempool put;
 * anything else goes through it. */
static void free_burst(struct rte_mbuf **m, uint16_t n)
{
	struct rte_mempool *mp = n ? m[0]->pool : NULL;
	for (uint16_t i = 0; i < n; i++) {
		if (m[i]->pool != mp || m[i]->nb_segs != 1 || m[i]->next || !RTE_MBUF_DIRECT(m[i]) ||
		    rte_mbuf_refcnt_read(m[i]) != 1) {
			rte_pktmbuf_free_bulk(m, n);
			return;
		}
	}
	if (n)
		rte_mempool_put_bulk(mp, (void **)m, n);
}

/* Nothing between the wire and the accountant (no impairment, capture or
 * delay): after the first pass the fast path accounts runs of frames
 * without a call per frame (rp_acct_rx_fast_n), each frame it leaves goes
 * through account(), and the burst is freed in one call. One time for the
 * burst: now_ns, read once per poll (lcore_loop), is every frame's arrival. */
static bool rx_plain(struct rp_dp_rx *rx, struct rp_dp_txport *tp, struct rte_mbuf **m, uint16_t n, uint64_t now_ns)
{
	struct burst fb;
	if (!first_pass(m, n, &fb))
		return false;
	for (uint16_t i = 0; i < n;) {
		i += rp_acct_rx_fast_n(rx->acct, tp->index, now_ns, fb.buf + i, fb.caplen + i, fb.pre + i, n - i, true);
		if (i < n) {
			account(rx, tp, m[i], now_ns, &fb.pre[i]);
			i++;
		}
	}
	free_burst(m, n);
	return true;
}

/* A frame's arrival on the packet clock: the port's RX stamp moved to it
 * (rxclock.c), else (no stamp, or one that cannot be this run's) the poll's
 * time; counted either way, in this lcore's own port state. */
static uint64_t arrival(const struct rp_dp_rx_stamps *x, struct rp_dp_rxport *rp, const struct rte_mbuf *m,
			uint64_t now_ns)
{
	uint64_t t;
	if ((m->ol_flags & x->flag) &&
	    rp_dp_stamp_to_pkt(x, (int64_t)*RTE_MBUF_DYNFIELD(m, x->field, const rte_mbuf_timestamp_t *), now_ns, &t)) {
		rp->stamped++;
		return t;
	}
	rp->unstamped++;
	return now_ns;
}

void rp_dp_rx_frames(struct rp_dp_rx *rx, struct rp_dp_txport *tp, struct rte_mbuf **m, uint16_t n, uint64_t now_ns)
{
	struct rp_dp_rxport *rp = &rx->ports[tp->index];
	bool impaired = rp_impair_active(&rp->impair);
	/* Stamped frames each have their own time: not the plain path's one for the burst. */
	const struct rp_dp_rx_stamps *xs = tp->port && tp->port->rxs.kind != RP_DP_STAMP_POLL ? &tp->port->rxs : NULL;
	if (!impaired && !rp->cap && !rp->hold && !xs && rx_plain(rx, tp, m, n, now_ns))
		return;
	struct rte_mbuf *done[RP_DP_BURST];
	struct burst fb;
	unsigned ndone = 0;
	bool two_pass = !impaired && first_pass(m, n, &fb);
	for (uint16_t i = 0; !two_pass && i < n && i < RX_PREFETCH_AHEAD; i++)
		rte_prefetch0(rte_pktmbuf_mtod(m[i], void *));
	for (uint16_t i = 0; i < n; i++) {
		if (!two_pass && i + RX_PREFETCH_AHEAD < n)
			rte_prefetch0(rte_pktmbuf_mtod(m[i + RX_PREFETCH_AHEAD], void *));
		uint8_t *b = rte_pktmbuf_mtod(m[i], uint8_t *);
		uint16_t len = rte_pktmbuf_data_len(m[i]);
		uint64_t at = xs ? arrival(xs, rp, m[i], now_ns) : now_ns;
		enum rp_impair_fate fate = impaired && rp_frame_is_roce_data(b, len) ? impair_next(rp) : RP_IMPAIR_PASS;
		if (fate == RP_IMPAIR_DROP) {
			done[ndone++] = m[i];
			continue;
		}
		if (fate == RP_IMPAIR_MARK_CE)
			rp_frame_set_ecn(b, len, RP_ECN_CE);
		if (rp->cap)
			rp_capture_offer(rp->cap, at, (uint16_t)tp->index, false, b, rte_pktmbuf_pkt_len(m[i]));
		if (rp->hold && hold(rp->hold, m[i], at + rp->impair.cfg.delay_ns))
			continue;
		rp->hold_full += rp->hold != NULL;
		account(rx, tp, m[i], at, two_pass ? &fb.pre[i] : NULL);
		done[ndone++] = m[i];
		if (ndone == RP_DP_BURST) {
			rte_pktmbuf_free_bulk(done, ndone);
			ndone = 0;
		}
	}
	if (ndone)
		rte_pktmbuf_free_bulk(done, ndone);
}

/* Accounted at the time it was due, not when the loop came round: the delay
 * a test adds is then exact. */
void rp_dp_rx_release(struct rp_dp_rx *rx, struct rp_dp_txport *tp, uint64_t now_ns)
{
	struct rp_dp_hold *h = rx->ports[tp->index].hold;
	if (rx->ports[tp->index].cap) /* this pass's frames are offered: the capture's merge may pass now_ns */
		rp_capture_mark(rx->ports[tp->index].cap, now_ns);
	while (h && h->n && h->due[h->head] <= now_ns) {
		account(rx, tp, h->m[h->head], h->due[h->head], NULL);
		rte_pktmbuf_free(h->m[h->head]);
		h->head = (h->head + 1) % RP_DP_HOLD;
		h->n--;
	}
	struct rp_reply later;
	while (rp_later_take(&rx->ports[tp->index].later, now_ns, &later))
		send_replies(rx, tp, &later, now_ns);
}

bool rp_dp_rx_holding(const struct rp_dp_rx *rx, const struct rp_dp_txport *tp)
{
	const struct rp_dp_hold *h = rx->ports[tp->index].hold;
	return (h && h->n) || rx->ports[tp->index].later.n;
}

void rp_dp_rx_sent(struct rp_dp_rx *rx, const struct rp_dp_txport *tp, uint8_t *const bufs[], const uint16_t *lens,
		     unsigned n, uint64_t now_ns)
{
	struct rp_capture *cap = rx->ports[tp->index].cap;
	for (unsigned i = 0; i < n; i++) {
		if (cap)
			rp_capture_offer(cap, now_ns, (uint16_t)tp->index, true, bufs[i], lens[i]);
		if (rp_cls_macctl_op(bufs[i], lens[i]) >= 0)
			rp_acct_pfc_tx(rx->acct, rx->acct_port ? rx->acct_port[tp->index] : tp->index, bufs[i], lens[i]);
	}
}
