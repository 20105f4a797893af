/* The host NIC: one packet source per flow, a transmitter serializing at
 * the link rate, PFC honoured per priority (rp_pause), the accountant as
 * the RoCE receiver (its CNP/ACK/NAK replies go out ahead of data), and
 * DCQCN per flow when the fabric enables it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab_internal.h"
#include "wire/classify.h"
#include "wire/frame.h"

/* Far beyond any run (fabric.max_time is far less than 1e15 ns), small enough
 * that due + allowance never wraps. */
#define RP_LAB_NO_CATCHUP_NS 1000000000000000ull

static int heaps_init(struct rp_lab_host *h);

/* Host h's flows are ids[0..n) (plan order); acct_of[plan flow] is its
 * accountant flow or -1. */
static int flows_init(struct rp_lab *lab, struct rp_lab_host *h, const uint32_t *ids, size_t n, const long *acct_of,
		      char *err, size_t errlen)
{
	const struct rp_plan *plan = lab->plan;
	h->flows = calloc(n ? n : 1, sizeof(*h->flows));
	if (!h->flows) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* A NIC's send queue holds posted work through a pause and drops none of
	 * it: no lag is ever too far behind to send (see docs/lab.md). */
	const struct rp_source_opts so = {.catchup_ns = RP_LAB_NO_CATCHUP_NS};
	if (!(h->src = rp_source_create_flows(plan, ids, n, &so, err, errlen)))
		return -1;
	if (lab->fab->dcqcn.enabled && !(h->dcqcn = calloc(n ? n : 1, sizeof(*h->dcqcn)))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		const struct rp_flow *pf = &plan->flows[ids[i]];
		struct rp_lab_flow *lf = &h->flows[h->nflows++];
		lf->plan_flow = ids[i];
		lf->si = (uint32_t)i;
		lf->acct = acct_of[ids[i]];
		lf->prio_bit = pf->kind == RP_TRAFFIC_PFC ? 0 : (uint8_t)(1u << pf->prio);
		lf->lqpn = pf->lqpn;
		lf->qps = pf->p.qps ? pf->p.qps : 1;
		lf->dcqcn_on = lab->fab->dcqcn.enabled && lf->prio_bit;
		if (lf->dcqcn_on) {
			lf->dcqcn = &h->dcqcn[i];
			rp_dcqcn_init(lf->dcqcn, &lab->fab->dcqcn, h->rate_bps);
		}
	}
	h->heaps = !lab->fab->dcqcn.enabled;
	if (h->heaps && heaps_init(h)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

/* Every host's flows in plan order, in one pass: by[start[h] .. start[h + 1]). */
static uint32_t *flows_by_host(const struct rp_plan *plan, size_t nhosts, size_t *start)
{
	uint32_t *by = malloc((plan->nflows ? plan->nflows : 1) * sizeof(*by));
	memset(start, 0, (nhosts + 1) * sizeof(*start));
	for (size_t f = 0; by && f < plan->nflows; f++)
		start[plan->flows[f].src + 1]++;
	for (size_t h = 0; h < nhosts; h++)
		start[h + 1] += start[h];
	size_t *at = malloc((nhosts ? nhosts : 1) * sizeof(*at));
	if (!at) {
		free(by);
		return NULL;
	}
	memcpy(at, start, nhosts * sizeof(*at));
	for (size_t f = 0; by && f < plan->nflows; f++)
		by[at[plan->flows[f].src]++] = (uint32_t)f;
	free(at);
	return by;
}

int rp_lab_hosts_init(struct rp_lab *lab, char *err, size_t errlen)
{
	size_t *start = malloc((lab->nhosts + 1) * sizeof(*start));
	long *acct_of = malloc((lab->plan->nflows ? lab->plan->nflows : 1) * sizeof(*acct_of));
	uint32_t *by = start && acct_of ? flows_by_host(lab->plan, lab->nhosts, start) : NULL;
	int rc = -1;
	if (!by) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (size_t f = 0; f < lab->plan->nflows; f++)
		acct_of[f] = -1;
	for (size_t a = 0; a < lab->acfg.nflows; a++)
		acct_of[lab->flow_of[a]] = (long)a;
	for (unsigned i = 0; i < lab->nhosts; i++) {
		struct rp_lab_host *h = &lab->hosts[i];
		h->idx = i;
		h->wake_at = RP_LAB_NEVER;
		rp_pause_init(&h->pause, h->rate_bps);
		rp_impair_init(&h->impair, &lab->prof->hosts[i].impair);
		if (rp_lab_setup_poll(lab)) {
			snprintf(err, errlen, "stopped");
			goto out;
		}
		if (flows_init(lab, h, by + start[i], start[i + 1] - start[i], acct_of, err, errlen))
			goto out;
		if (lab->opts.capture_dir &&
		    !(h->cap = rp_lab_cap_open(lab->opts.capture_dir, lab->prof->hosts[i].name,
					       lab->opts.snaplen ? lab->opts.snaplen : 65535, lab->opts.capture_rotate,
					       &lab->capb, err, errlen)))
			goto out;
		rp_lab_host_wake(lab, i, 0);
	}
	rc = 0;
out:
	free(by);
	free(acct_of);
	free(start);
	return rc;
}

void rp_lab_hosts_free(struct rp_lab *lab)
{
	for (unsigned i = 0; lab->hosts && i < lab->nhosts; i++) {
		struct rp_lab_host *h = &lab->hosts[i];
		rp_source_destroy(h->src);
		for (unsigned g = 0; g < RP_LAB_FGROUPS; g++)
			free(h->grp[g].v);
		free(h->flows);
		free(h->dcqcn);
		free(h->rq);
		rp_lab_cap_free(h->cap);
	}
	free(lab->hosts);
	lab->hosts = NULL;
}

void rp_lab_capture(struct rp_lab *lab, unsigned h, uint64_t t, const uint8_t *b, size_t len)
{
	rp_lab_cap_put(lab, lab->hosts[h].cap, t, b, len);
}

void rp_lab_cap_put(struct rp_lab *lab, struct rp_lab_cap *c, uint64_t t, const uint8_t *b, size_t len)
{
	if (c && rp_lab_cap_write(c, t, b, len, lab->err, sizeof(lab->err)))
		lab->failed = true;
	if (lab->capb.failed && !lab->cap_told) { /* said when it happens: the run goes on */
		lab->cap_told = true;
		if (lab->opts.capture_failed)
			lab->opts.capture_failed(lab->capb.error, t, lab->opts.progress_arg);
	}
}

void rp_lab_host_wake(struct rp_lab *lab, unsigned h, uint64_t t)
{
	struct rp_lab_host *H = &lab->hosts[h];
	if (t == RP_LAB_NEVER || t >= H->wake_at)
		return;
	H->wake_at = t;
	rp_lab_push(lab, t, RP_EV_HOST_TX, h, 0, 0);
}

/* ---- transmit ---- */

/* Busy for (len + 24) * 8 / rate, the sub-ns rest carried while back to back. */
static uint64_t occupy(struct rp_lab_host *h, uint64_t now, size_t len)
{
	if (now > h->busy_until)
		h->tx_rem = 0;
	uint64_t bits_ns = ((uint64_t)len + RP_SWITCH_L1_OVERHEAD) * 8u * 1000000000ull + h->tx_rem;
	h->tx_rem = bits_ns % h->rate_bps;
	h->busy_until = now + bits_ns / h->rate_bps;
	return h->busy_until;
}

static void put_on_wire(struct rp_lab *lab, struct rp_lab_host *h, uint32_t slot, uint64_t now)
{
	uint8_t *b = rp_pool_buf(&lab->pool, slot);
	size_t len = lab->pool.len[slot];
	uint64_t end = occupy(h, now, len);
	rp_lab_capture(lab, h->idx, now, b, len);
	if (rp_cls_macctl_op(b, len) >= 0)
		rp_acct_pfc_tx(lab->acct, h->idx, b, len);
	h->tx_frames++;
	h->tx_bytes += len;
	lab->tot.tx_frames++;
	lab->tot.tx_bytes += len;
	struct rp_lab_port to = {.kind = RP_PEER_SWITCH, .peer = h->sw, .peer_port = (uint16_t)h->sw_port};
	rp_lab_deliver(lab, &to, slot, end + h->prop_ns);
}

/* Replies go first; only a paused priority holds them (CNPs ride 6). */
static uint8_t reply_prio_bit(const uint8_t *b, size_t len)
{
	size_t l3 = 0;
	uint16_t et = rp_cls_ethertype(b, len, &l3);
	if (l3 > RP_ETH_HLEN) /* tagged: its PCP */
		return (uint8_t)(1u << (b[14] >> 5));
	if (et == RP_ETHERTYPE_IPV4 && len >= l3 + 2) /* the DSCP's top three bits */
		return (uint8_t)(1u << (b[l3 + 1] >> 5));
	if (et == RP_ETHERTYPE_IPV6 && len >= l3 + 2)
		return (uint8_t)(1u << ((b[l3] & 0xF) >> 1));
	return 0;
}

static bool send_reply(struct rp_lab *lab, struct rp_lab_host *h, uint8_t paused, uint64_t now)
{
	if (!h->rq_n)
		return false;
	uint32_t slot = h->rq[h->rq_head];
	if (reply_prio_bit(rp_pool_buf(&lab->pool, slot), lab->pool.len[slot]) & paused)
		return false;
	h->rq_head = (h->rq_head + 1) % h->rq_cap;
	h->rq_n--;
	const uint8_t *b = rp_pool_buf(&lab->pool, slot);
	h->cnp_tx += rp_cls_opcode(b, lab->pool.len[slot]) == RP_OP_CNP; /* --counters' cnp_sent */
	put_on_wire(lab, h, slot, now);
	return true;
}

/* When flow f may next start, seen at now with these priorities paused. */
static uint64_t flow_ready(const struct rp_lab_host *h, const struct rp_lab_flow *f, uint8_t paused)
{
	if (rp_source_flow_done(h->src, f->si))
		return RP_LAB_NEVER;
	if (f->prio_bit & paused) {
		unsigned p = (unsigned)__builtin_ctz(f->prio_bit);
		return h->pause.prio[p].until_ns;
	}
	uint64_t t = rp_source_flow_next_due(h->src, f->si);
	return f->dcqcn_on && f->allowed_ns > t ? f->allowed_ns : t;
}

/* The next start DCQCN allows: the last frame's start plus its time at the
 * flow's rate now. Called when a frame goes and whenever the rate changes
 * (a cut, an increase step), so a cut re-times the departure already
 * waiting instead of landing one old gap late (issue 31, item 4). */
static void dcqcn_retime(struct rp_lab_flow *f)
{
	f->paced_bps = rp_dcqcn_rate(f->dcqcn);
	if (!f->dcqcn->limited || !f->last_len) {
		f->allowed_ns = 0;
		return;
	}
	double ns = ((double)f->last_len + RP_SWITCH_L1_OVERHEAD) * 8e9 / f->paced_bps;
	f->allowed_ns = f->last_tx_ns + (uint64_t)(ns + 0.5);
}

static void dcqcn_pace(struct rp_lab_flow *f, uint64_t now, size_t len)
{
	rp_dcqcn_sent(f->dcqcn, now, len);
	f->last_tx_ns = now;
	f->last_len = (uint32_t)len;
	dcqcn_retime(f);
}

/* ---- the next flow: a heap per priority ----
 * Without DCQCN a flow's readiness is its source's due time, or its
 * priority's pause end, so the flow the scan below would pick (earliest
 * ready, lowest index on ties) is the least (due, index) among the heaps of
 * unpaused priorities; a paused priority only says when to wake. A host
 * with a thousand flows no longer looks at each per packet. */

static bool fh_less(const struct rp_lab_host *h, uint32_t a, uint32_t b)
{
	uint64_t da = rp_source_flow_next_due(h->src, h->flows[a].si), db = rp_source_flow_next_due(h->src, h->flows[b].si);
	return da != db ? da < db : a < b;
}

static void fh_down(const struct rp_lab_host *h, struct rp_lab_fheap *q, uint32_t i)
{
	uint32_t x = q->v[i];
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= q->n)
			break;
		if (c + 1 < q->n && fh_less(h, q->v[c + 1], q->v[c]))
			c++;
		if (!fh_less(h, q->v[c], x))
			break;
		q->v[i] = q->v[c];
		i = c;
	}
	q->v[i] = x;
}

static unsigned fh_group(const struct rp_lab_flow *f)
{
	return f->prio_bit ? (unsigned)__builtin_ctz(f->prio_bit) : RP_LAB_FGROUPS - 1;
}

static int heaps_init(struct rp_lab_host *h)
{
	uint32_t count[RP_LAB_FGROUPS] = {0};
	for (size_t i = 0; i < h->nflows; i++)
		count[fh_group(&h->flows[i])]++;
	for (unsigned g = 0; g < RP_LAB_FGROUPS; g++)
		if (count[g] && !(h->grp[g].v = malloc(count[g] * sizeof(uint32_t))))
			return -1;
	for (size_t i = 0; i < h->nflows; i++) {
		struct rp_lab_fheap *q = &h->grp[fh_group(&h->flows[i])];
		if (!rp_source_flow_done(h->src, h->flows[i].si))
			q->v[q->n++] = (uint32_t)i;
	}
	for (unsigned g = 0; g < RP_LAB_FGROUPS; g++)
		for (uint32_t i = h->grp[g].n / 2; i-- > 0;)
			fh_down(h, &h->grp[g], i);
	return 0;
}

/* The top of group g moved on (sent, or its source skipped ahead): re-place it. */
static void fh_top_moved(struct rp_lab_host *h, unsigned g)
{
	struct rp_lab_fheap *q = &h->grp[g];
	if (rp_source_flow_done(h->src, h->flows[q->v[0]].si))
		q->v[0] = q->v[--q->n];
	if (q->n)
		fh_down(h, q, 0);
}

/* The flow to send (its index), or SIZE_MAX with *best_t when the first is ready. */
static size_t pick_heaps(const struct rp_lab_host *h, uint8_t paused, uint64_t *best_t)
{
	size_t best = SIZE_MAX;
	*best_t = RP_LAB_NEVER;
	for (unsigned g = 0; g < RP_LAB_FGROUPS; g++) {
		if (!h->grp[g].n)
			continue;
		uint32_t top = h->grp[g].v[0];
		bool held = g < RP_PFC_PRIOS && ((paused >> g) & 1);
		uint64_t t = held ? h->pause.prio[g].until_ns : rp_source_flow_next_due(h->src, h->flows[top].si);
		if (t < *best_t || (t == *best_t && !held && best != SIZE_MAX && top < best)) {
			*best_t = t;
			best = held ? SIZE_MAX : top;
		}
	}
	return best;
}

/* DCQCN hosts: every flow looked at (its rate state advanced to now). */
static size_t pick_scan(struct rp_lab_host *h, uint8_t paused, uint64_t now, uint64_t *next, uint64_t *best_t)
{
	size_t best = SIZE_MAX;
	*best_t = RP_LAB_NEVER;
	for (size_t i = 0; i < h->nflows; i++) {
		struct rp_lab_flow *f = &h->flows[i];
		if (f->dcqcn_on) {
			rp_dcqcn_advance(f->dcqcn, now);
			if (rp_dcqcn_rate(f->dcqcn) != f->paced_bps)
				dcqcn_retime(f);
		}
		uint64_t t = flow_ready(h, f, paused);
		if (f->dcqcn_on && t != RP_LAB_NEVER && rp_dcqcn_next_change(f->dcqcn) < *next)
			*next = rp_dcqcn_next_change(f->dcqcn);
		if (t < *best_t) {
			*best_t = t;
			best = i;
		}
	}
	return best;
}

static bool send_data(struct rp_lab *lab, struct rp_lab_host *h, uint8_t paused, uint64_t now, uint64_t *next)
{
	uint64_t best_t;
	size_t best = h->heaps ? pick_heaps(h, paused, &best_t) : pick_scan(h, paused, now, next, &best_t);
	if (best_t > now || best == SIZE_MAX) {
		*next = best_t < *next ? best_t : *next;
		return false;
	}
	struct rp_lab_flow *f = &h->flows[best];
	uint32_t slot = rp_pool_get(&lab->pool);
	if (slot == RP_POOL_NONE) {
		lab->failed = true;
		return false;
	}
	uint16_t len[1];
	unsigned sent = rp_source_flow_burst_zeroed(h->src, f->si, now, paused, rp_pool_buf(&lab->pool, slot), len,
						    lab->pool.zero[slot]);
	if (h->heaps)
		fh_top_moved(h, fh_group(f));
	if (sent != 1) {
		/* The source moved the flow on (a pause outlasted its lag allowance
		 * or its burst window): wake when it is due again, never give up. */
		rp_pool_put(&lab->pool, slot);
		uint64_t t = flow_ready(h, f, paused);
		if (t > now && t < *next)
			*next = t;
		return false;
	}
	lab->pool.len[slot] = len[0];
	lab->pool.flow[slot] = f->acct >= 0 ? (uint32_t)f->acct : RP_POOL_NONE; /* a data frame, in flight until it lands */
	if (f->dcqcn_on)
		dcqcn_pace(f, now, len[0]);
	put_on_wire(lab, h, slot, now);
	return true;
}

void rp_lab_host_tx(struct rp_lab *lab, unsigned hi)
{
	struct rp_lab_host *h = &lab->hosts[hi];
	uint64_t now = lab->now, next = RP_LAB_NEVER;
	if (h->busy_until > now) {
		rp_lab_host_wake(lab, hi, h->busy_until);
		return;
	}
	uint8_t paused = rp_pause_mask(&h->pause, now);
	if (send_reply(lab, h, paused, now) || send_data(lab, h, paused, now, &next)) {
		rp_lab_host_wake(lab, hi, h->busy_until);
		return;
	}
	if (h->rq_n) { /* a reply held by a pause */
		unsigned p = (unsigned)__builtin_ctz(paused ? paused : 1);
		next = h->pause.prio[p].until_ns < next ? h->pause.prio[p].until_ns : next;
	}
	rp_lab_host_wake(lab, hi, next);
}

/* ---- receive ---- */

static int queue_reply(struct rp_lab *lab, struct rp_lab_host *h, uint32_t slot)
{
	if (h->rq_n == h->rq_cap) {
		size_t cap = h->rq_cap ? h->rq_cap * 2 : 64;
		uint32_t *rq = malloc(cap * sizeof(*rq));
		if (!rq)
			return -1;
		for (size_t i = 0; i < h->rq_n; i++)
			rq[i] = h->rq[(h->rq_head + i) % h->rq_cap];
		free(h->rq);
		h->rq = rq;
		h->rq_cap = cap;
		h->rq_head = 0;
	}
	h->rq[(h->rq_head + h->rq_n++) % h->rq_cap] = slot;
	(void)lab;
	return 0;
}

static void send_replies(struct rp_lab *lab, struct rp_lab_host *h, const struct rp_reply *r)
{
	for (unsigned i = 0; i < r->n; i++) {
		uint32_t slot = rp_pool_get(&lab->pool);
		if (slot == RP_POOL_NONE) {
			lab->failed = true;
			return;
		}
		size_t len = rp_reply_build(r, i, rp_pool_buf(&lab->pool, slot), lab->pool.slot_size);
		rp_pool_wrote(&lab->pool, slot, 0, len ? len : lab->pool.slot_size);
		lab->pool.len[slot] = (uint16_t)len;
		if (len && r->msg[i].at_ns > lab->now) { /* paper NP: a CNP at its window's end */
			rp_lab_push(lab, r->msg[i].at_ns, RP_EV_HOST_REPLY, h->idx, 0, slot);
			continue;
		}
		if (!len || queue_reply(lab, h, slot)) {
			rp_pool_put(&lab->pool, slot);
			continue;
		}
		h->replies++;
	}
	rp_lab_host_wake(lab, h->idx, lab->now);
}

/* A deferred reply's time came: it joins the replies, which go first. */
void rp_lab_host_reply_due(struct rp_lab *lab, unsigned hi, uint32_t slot)
{
	struct rp_lab_host *h = &lab->hosts[hi];
	if (queue_reply(lab, h, slot)) {
		rp_pool_put(&lab->pool, slot);
		lab->failed = true;
		return;
	}
	h->replies++;
	rp_lab_host_wake(lab, hi, lab->now);
}

/* The flow a CNP is for: its BTH DestQP is the sender's QP (lqpn + q). */
static void dcqcn_on_cnp(struct rp_lab *lab, struct rp_lab_host *h, const uint8_t *b, size_t len)
{
	struct rp_frame fr;
	if (rp_frame_parse(b, len, len, &fr) != RP_KIND_CNP)
		return;
	h->cnp_rx++;
	for (size_t i = 0; i < h->nflows; i++) {
		struct rp_lab_flow *f = &h->flows[i];
		if (f->dcqcn_on && fr.bth.dqpn >= f->lqpn && fr.bth.dqpn < f->lqpn + f->qps) {
			rp_dcqcn_cnp(f->dcqcn, lab->now);
			dcqcn_retime(f);
			rp_lab_host_wake(lab, h->idx, lab->now);
			return;
		}
	}
}

/* PFC / PAUSE takes effect now: a pause ending (XON) lets data go at once. */
void rp_lab_host_pfc_apply(struct rp_lab *lab, unsigned hi, uint32_t slot)
{
	struct rp_lab_host *h = &lab->hosts[hi];
	const uint8_t *b = rp_pool_buf(&lab->pool, slot);
	size_t len = lab->pool.len[slot], off = 0;
	struct rp_macctl m;
	if (rp_cls_macctl(b, len, &off) && rp_macctl_parse(b + off, len - off, &m) == 0) {
		uint8_t before = rp_pause_mask(&h->pause, lab->now);
		rp_pause_rx(&h->pause, lab->now, &m);
		if (rp_pause_mask(&h->pause, lab->now) & ~before)
			h->paused_starts++;
		rp_lab_host_wake(lab, hi, lab->now);
	}
	rp_pool_put(&lab->pool, slot);
}

/* A frame reaches the receiver (after any delay impairment). */
void rp_lab_host_rx(struct rp_lab *lab, unsigned hi, uint32_t slot)
{
	struct rp_lab_host *h = &lab->hosts[hi];
	uint8_t *b = rp_pool_buf(&lab->pool, slot);
	size_t len = lab->pool.len[slot];
	struct rp_reply reply;
	reply.n = 0;
	h->rx_frames++;
	h->rx_bytes += len;
	lab->tot.rx_frames++;
	lab->tot.rx_bytes += len;
	/* Every frame here is the lab's own (a source's or a reply's, ICRC valid)
	 * and only CE marks (masked by the ICRC) changed it since. */
	enum rp_rx_class c = rp_acct_rx_trusted(lab->acct, hi, lab->now, b, len, &reply);
	if (c == RP_RX_CNP)
		dcqcn_on_cnp(lab, h, b, len);
	if (reply.n)
		send_replies(lab, h, &reply);
	rp_pool_put(&lab->pool, slot);
}

/* The last bit arrives on the host's wire. */
void rp_lab_host_arrive(struct rp_lab *lab, unsigned hi, uint32_t slot)
{
	struct rp_lab_host *h = &lab->hosts[hi];
	uint8_t *b = rp_pool_buf(&lab->pool, slot);
	size_t len = lab->pool.len[slot];
	if (rp_impair_active(&h->impair) && rp_frame_is_roce_data(b, len)) {
		enum rp_impair_fate fate = rp_impair_next(&h->impair);
		if (fate == RP_IMPAIR_DROP) {
			lab->tot.impair_dropped++;
			rp_pool_put(&lab->pool, slot);
			return;
		}
		if (fate == RP_IMPAIR_MARK_CE)
			rp_frame_set_ecn(b, len, RP_ECN_CE);
	}
	rp_lab_capture(lab, hi, lab->now, b, len);
	if (rp_cls_macctl_op(b, len) >= 0) { /* the NIC acts on it (after its response time); the accountant counts it now */
		uint32_t copy = rp_pool_get(&lab->pool);
		if (copy != RP_POOL_NONE) {
			memcpy(rp_pool_buf(&lab->pool, copy), b, len);
			rp_pool_wrote(&lab->pool, copy, 0, len);
			lab->pool.len[copy] = (uint16_t)len;
			uint64_t resp = rp_pause_quanta_ns(lab->fab->response_quanta, h->rate_bps);
			rp_lab_push(lab, lab->now + resp, RP_EV_PFC_APPLY, hi, 0, copy);
		}
	}
	if (h->impair.cfg.delay_ns)
		rp_lab_push(lab, lab->now + h->impair.cfg.delay_ns, RP_EV_HOST_RX, hi, 0, slot);
	else
		rp_lab_host_rx(lab, hi, slot);
}
