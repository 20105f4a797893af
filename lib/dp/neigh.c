#include "neigh.h"

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "gen.h"
#include "traffic/source.h"
#include "wire/classify.h"

#define NEIGH_FRAME 128 /* the longest ARP/ND frame built is 86 B */

/* The frames are built on the stack (an answer is known only after the
 * classification) and copied into the mbuf by rp_dp_ctl_send: 86 B at most. */
struct copy {
	const uint8_t *b;
	size_t len;
};

static size_t build_copy(const void *arg, uint8_t *buf, size_t cap)
{
	const struct copy *c = arg;
	if (c->len > cap)
		return 0;
	memcpy(buf, c->b, c->len);
	return c->len;
}

static bool send_frame(struct rp_dp_txport *tp, const uint8_t *b, size_t len, struct rp_capture *cap,
		       uint64_t now_ns)
{
	struct copy c = {.b = b, .len = len};
	if (rp_dp_ctl_send(tp, build_copy, &c, cap, now_ns))
		return true;
	tp->neigh.unsent++;
	return false;
}

static bool same_addr(uint8_t l3, uint32_t a4, const uint8_t *a6, const struct rp_neigh_rx *r)
{
	return l3 == r->l3 && (l3 == 4 ? a4 == r->ip4 : !memcmp(a6, r->ip6, 16));
}

/* A binding heard during traffic for a kept next hop: a new MAC moves its flows. */
static void follow(struct rp_dp_txport *tp, const struct rp_neigh_rx *r, uint64_t now_ns)
{
	for (unsigned k = 0; k < tp->refresh.n; k++) {
		struct rp_dp_neigh_hop *h = &tp->refresh.hop[k];
		if (!same_addr(h->l3, h->ip4, h->ip6, r))
			continue;
		h->answers++;
		if (!memcmp(h->mac, r->mac, 6))
			continue;
		memcpy(h->mac, r->mac, 6);
		h->changes++;
		h->changed_ns = now_ns;
		tp->neigh.mac_changes++;
		if (tp->src)
			rp_source_set_next_hop_mac(tp->src, h->l3, h->ip4, h->ip6, h->mac);
		/* The port's other queues' sources follow on their own lcores (gen.c). */
		__atomic_store_n(&tp->hops_gen, tp->hops_gen + 1, __ATOMIC_RELEASE);
	}
}

bool rp_dp_neigh_frame(struct rp_dp_txport *tp, const uint8_t *frame, uint16_t len, struct rp_capture *cap,
		       uint64_t now_ns, struct rp_neigh_rx *out)
{
	/* Only ARP and NS/NA are: the rest costs a few loads. */
	if (!rp_cls_is_arp(frame, len) && !rp_cls_is_nd(frame, len))
		return false;
	uint8_t reply[NEIGH_FRAME];
	switch (rp_neigh_rx(&tp->self, frame, len, out, reply, sizeof(reply))) {
	case RP_NEIGH_NONE: return false;
	case RP_NEIGH_ARP_REQUEST: tp->neigh.arp_requests_rx++; break;
	case RP_NEIGH_ARP_REPLY: tp->neigh.arp_replies_rx++; break;
	case RP_NEIGH_NS: tp->neigh.nd_solicits_rx++; break;
	case RP_NEIGH_NA: tp->neigh.nd_adverts_rx++; break;
	}
	if (out->has_binding && !out->conflict && tp->refresh.n)
		follow(tp, out, now_ns);
	if (out->reply_len && send_frame(tp, reply, out->reply_len, cap, now_ns)) {
		if (out->l3 == 4)
			tp->neigh.arp_replies_tx++;
		else
			tp->neigh.nd_adverts_tx++;
	}
	return true;
}

/* An ARP request/probe/gratuitous ARP or an NS/NA the port sends itself. */
static bool send_own(struct rp_dp_txport *tp, const uint8_t *b, size_t len, uint8_t l3, bool request, uint64_t now,
		     struct rp_capture *cap)
{
	if (!len || !send_frame(tp, b, len, cap, now))
		return false;
	if (l3 == 4)
		tp->neigh.arp_requests_tx++; /* gratuitous ARPs and probes are requests too */
	else if (request)
		tp->neigh.nd_solicits_tx++;
	else
		tp->neigh.nd_adverts_tx++;
	return true;
}

static void learn(struct rp_dp_neigh_want *w, unsigned nw, unsigned port, const struct rp_neigh_rx *r)
{
	for (unsigned k = 0; r->has_binding && k < nw; k++) {
		if (w[k].port != port || !same_addr(w[k].l3, w[k].ip4, w[k].ip6, r))
			continue;
		w[k].resolved = true;
		memcpy(w[k].mac, r->mac, 6);
	}
}

int rp_dp_neigh_resolve(struct rp_dp_txport *ports, unsigned n, const bool *announce, struct rp_dp_neigh_want *w,
			unsigned nw, const struct rp_dp_neigh_opts *o, struct rp_neigh_rx *conflict,
			unsigned *conflict_port, struct rp_capture *const *caps)
{
#define CAP(i) (caps ? caps[i] : NULL)
	uint8_t b[NEIGH_FRAME];
	bool any_wire = false;
	uint64_t start = rp_dp_now_ns();
	for (unsigned i = 0; i < n; i++) {
		if (!announce[i])
			continue;
		any_wire = true;
		for (uint8_t l3 = 4; l3 <= 6; l3 += 2)
			send_own(&ports[i], b, rp_neigh_probe_build(&ports[i].self, l3, b, sizeof(b)), l3, true, start,
				 CAP(i));
	}
	if (!any_wire && nw == 0)
		return 0;
	unsigned tries_sent = 0;
	uint64_t last_try = start;
	bool announced = !any_wire;
	uint64_t step = o->timeout_ns / (o->tries ? o->tries : 1);
	for (;;) {
		uint64_t now = rp_dp_now_ns();
		bool all = true;
		for (unsigned k = 0; k < nw; k++)
			all &= w[k].resolved;
		if (tries_sent < o->tries && now >= start + tries_sent * step && !all) {
			for (unsigned k = 0; k < nw; k++) {
				if (w[k].resolved)
					continue;
				struct rp_dp_txport *tp = &ports[w[k].port];
				send_own(tp, b, rp_neigh_request_build(&tp->self, w[k].l3, w[k].ip4, w[k].ip6, b, sizeof(b)),
					 w[k].l3, true, now, CAP(w[k].port));
			}
			tries_sent++;
			last_try = now;
		}
		for (unsigned i = 0; i < n; i++) {
			struct rte_mbuf *m[RP_DP_BURST];
			uint16_t got = rte_eth_rx_burst(ports[i].port->id, 0, m, RP_DP_BURST);
			for (uint16_t j = 0; j < got; j++) {
				struct rp_neigh_rx r;
				const uint8_t *fb = rte_pktmbuf_mtod(m[j], const uint8_t *);
				if (CAP(i))
					rp_capture_offer(CAP(i), now, (uint16_t)ports[i].index, false, fb,
							 rte_pktmbuf_pkt_len(m[j]));
				if (rp_dp_neigh_frame(&ports[i], fb, rte_pktmbuf_data_len(m[j]), CAP(i), now, &r)) {
					if (r.conflict) {
						*conflict = r;
						*conflict_port = i;
						rte_pktmbuf_free_bulk(m + j, got - j);
						return 2;
					}
					learn(w, nw, i, &r);
				}
				rte_pktmbuf_free(m[j]);
			}
		}
		if (!announced && now >= start + o->dad_ns) {
			for (unsigned i = 0; i < n; i++)
				for (uint8_t l3 = 4; announce[i] && l3 <= 6; l3 += 2)
					send_own(&ports[i], b, rp_neigh_announce_build(&ports[i].self, l3, b, sizeof(b)), l3,
						 false, now, CAP(i));
			announced = true;
		}
		if (announced && all)
			return 0;
		/* Every try is sent and has its step to be answered, however late a
		 * loaded machine let this loop run. */
		bool tried = all || (tries_sent >= o->tries && now >= last_try + step);
		if (now >= start + o->timeout_ns && tried)
			return all ? 0 : 1;
	}
}
#undef CAP

int rp_dp_neigh_keep(struct rp_dp_txport *tp, unsigned port, const struct rp_dp_neigh_want *w, unsigned nw,
		     uint64_t interval_ns)
{
	rp_dp_neigh_forget(tp);
	unsigned n = 0;
	for (unsigned k = 0; k < nw; k++)
		n += w[k].port == port && w[k].resolved;
	if (!n || !interval_ns)
		return 0;
	if (!(tp->refresh.hop = calloc(n, sizeof(*tp->refresh.hop))))
		return -1;
	for (unsigned k = 0; k < nw; k++) {
		if (w[k].port != port || !w[k].resolved)
			continue;
		struct rp_dp_neigh_hop *h = &tp->refresh.hop[tp->refresh.n++];
		h->l3 = w[k].l3;
		h->ip4 = w[k].ip4;
		memcpy(h->ip6, w[k].ip6, 16);
		memcpy(h->mac, w[k].mac, 6);
		memcpy(h->first_mac, w[k].mac, 6);
	}
	tp->refresh.interval_ns = interval_ns;
	tp->refresh.next_ns = interval_ns / tp->refresh.n ? interval_ns / tp->refresh.n : 1;
	return 0;
}

void rp_dp_neigh_forget(struct rp_dp_txport *tp)
{
	free(tp->refresh.hop);
	tp->refresh = (struct rp_dp_neigh_refresh){.next_ns = UINT64_MAX};
}

/* One next hop a call, the next one interval / n later: n requests never
 * go out back to back between two TX bursts. */
void rp_dp_neigh_refresh(struct rp_dp_txport *tp, struct rp_capture *cap, uint64_t now_ns)
{
	struct rp_dp_neigh_refresh *r = &tp->refresh;
	if (!r->n || !r->interval_ns) {
		r->next_ns = UINT64_MAX;
		return;
	}
	uint8_t b[NEIGH_FRAME];
	const struct rp_dp_neigh_hop *h = &r->hop[r->next_hop];
	size_t len = rp_neigh_request_build(&tp->self, h->l3, h->ip4, h->ip6, b, sizeof(b));
	tp->neigh.refresh_tx += send_own(tp, b, len, h->l3, true, now_ns, cap);
	r->next_hop = (r->next_hop + 1) % r->n;
	/* From the due time, not from now: a late loop does not stretch the period. */
	uint64_t step = r->interval_ns / r->n ? r->interval_ns / r->n : 1;
	r->next_ns += step;
	if (r->next_ns <= now_ns)
		r->next_ns = now_ns + step;
}
