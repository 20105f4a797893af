/* The evidence -> flows with their profile keys, and the named patterns they
 * fit (replay.h). A flow is the accountant's (discovery: by the probe's flow
 * id, else by source, destination and DestQP), its QPs' facts as sent joined
 * by address and DestQP. */
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "replay.h"
#include "traffic/plan.h"
#include "wire/bth.h"
#include "wire/ipv4.h"
#include "wire/ipv6.h"

#define INCAST_MIN 3                 /* senders; two flows to one host are two flows */
#define INCAST_WINDOW_NS 10000ull    /* an incast's flows start within this */

static void qp_addr(const struct rp_replay_qp *q, bool src, char out[46])
{
	if (q->l3 == 4)
		rp_ipv4_addr_format(src ? q->src4 : q->dst4, out);
	else
		rp_ipv6_addr_format(src ? q->src6 : q->dst6, out);
}

/* The evidence's QPs by DestQP. */
struct qp_ix {
	uint32_t dqpn;
	size_t i;
};

static int by_dqpn(const void *a, const void *b)
{
	uint32_t x = ((const struct qp_ix *)a)->dqpn, y = ((const struct qp_ix *)b)->dqpn;
	return x < y ? -1 : x > y;
}

static struct qp_ix *qp_index(const struct rp_replay_evidence *ev)
{
	struct qp_ix *ix = malloc((ev->nqps + 1) * sizeof(*ix));
	for (size_t i = 0; ix && i < ev->nqps; i++)
		ix[i] = (struct qp_ix){ev->qps[i].dqpn, i};
	if (ix && ev->nqps)
		qsort(ix, ev->nqps, sizeof(*ix), by_dqpn);
	return ix;
}

/* The evidence QP of the accountant's flow r and QP dqpn. */
static const struct rp_replay_qp *qp_find(const struct rp_replay_evidence *ev, const struct qp_ix *ix,
					  const struct rp_acct_flow_result *r, uint32_t dqpn)
{
	size_t lo = 0, hi = ev->nqps;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (ix[mid].dqpn < dqpn)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < ev->nqps && ix[i].dqpn == dqpn; i++) {
		const struct rp_replay_qp *q = &ev->qps[ix[i].i];
		char s[46], d[46];
		qp_addr(q, true, s);
		qp_addr(q, false, d);
		if (q->dqpn == dqpn && !strncmp(s, r->src, RP_ACCT_NAME_MAX - 1) && !strncmp(d, r->dst, RP_ACCT_NAME_MAX - 1))
			return q;
	}
	return NULL;
}

#define OPS(a) (1u << RP_OP_RC_##a)

static const char *opcode_word(unsigned ops)
{
	if (ops & (OPS(WRITE_LAST_IMM) | OPS(WRITE_ONLY_IMM)))
		return "write_imm";
	if (ops & (OPS(WRITE_FIRST) | OPS(WRITE_MIDDLE) | OPS(WRITE_LAST) | OPS(WRITE_ONLY)))
		return "write";
	if (ops & (OPS(SEND_LAST_IMM) | OPS(SEND_ONLY_IMM)))
		return "send_imm";
	if (ops & (OPS(SEND_FIRST) | OPS(SEND_MIDDLE) | OPS(SEND_LAST) | OPS(SEND_ONLY)))
		return "send";
	return "read_resp";
}

static void flow_times(const struct rp_replay_evidence *ev, struct rp_replay_flow *fl)
{
	fl->start_ns = fl->first_abs - ev->first_ns;
	fl->active_ns = fl->last_abs - fl->first_abs;
	fl->rate_bps = fl->frames > 1 && fl->active_ns ? (double)(fl->bits - fl->last_bits) * 1e9 / (double)fl->active_ns
						       : 0;
}

/* The pace a flow's sender offered: its QPs' first frames (their first
 * copies, at the sender's capture) up to the first pause its host received
 * or the first CNP (DCQCN cuts the rate at once),
 * layer 1 over the gaps between them (a paced sender spaces its frames
 * bits / rate apart; one that a pause held back sends its backlog at line
 * rate after, which its rate over the active time averages in). Measured
 * only with a capture at the sender, from at least RP_REPLAY_PRE_MIN frames,
 * and not from a sample (its frames are N apart). */
#define PRE_QPS 64
struct pre_frame {
	uint64_t t;
	uint16_t len;
};

static int by_time(const void *a, const void *b)
{
	uint64_t x = ((const struct pre_frame *)a)->t, y = ((const struct pre_frame *)b)->t;
	return x < y ? -1 : x > y;
}

/* The first pause or CNP fl's sender's host received (UINT64_MAX: none), and
 * whether a capture was at that host. */
static uint64_t sender_xoff(const struct rp_replay_evidence *ev, const struct rp_replay_flow *fl, bool *sender_seen)
{
	uint64_t xoff = UINT64_MAX;
	bool at_sender = false;
	for (size_t c = 0; c < ev->ncap; c++)
		if (ev->cap[c].host == fl->src) {
			at_sender = true;
			const struct rp_replay_capture *cp = &ev->cap[c];
			const uint8_t *mac = ev->hosts[fl->src].mac;
			for (unsigned k = 0; k < cp->nxoff; k++) /* the host's own pauses hold back others */
				if (memcmp(cp->xoff[k].mac, mac, 6) && cp->xoff[k].ns < xoff)
					xoff = cp->xoff[k].ns;
			for (unsigned k = 0; k < cp->ncnp; k++) /* a CNP to it: DCQCN cuts its rate */
				if (!memcmp(cp->cnp[k].mac, mac, 6) && cp->cnp[k].ns < xoff)
					xoff = cp->cnp[k].ns;
		}
	*sender_seen = at_sender;
	return xoff;
}

static void flow_offered(const struct rp_replay_evidence *ev, const struct rp_replay_qp *const *qs, size_t nq,
			 struct rp_replay_flow *fl)
{
	bool at_sender;
	uint64_t xoff = sender_xoff(ev, fl, &at_sender);
	if (!at_sender || ev->sampled > 1)
		return;
	struct pre_frame fr[PRE_QPS * RP_REPLAY_PRE_FRAMES];
	size_t n = 0;
	for (size_t k = 0; k < nq; k++)
		for (unsigned j = 0; j < qs[k]->pre.n; j++) {
			uint64_t t = qs[k]->first_ns + qs[k]->pre.dt[j];
			if (t < xoff)
				fr[n++] = (struct pre_frame){t, qs[k]->pre.len[j]};
		}
	if (n < RP_REPLAY_PRE_MIN)
		return;
	qsort(fr, n, sizeof(*fr), by_time);
	uint64_t bits = 0;
	for (size_t i = 0; i + 1 < n; i++)
		bits += ((uint64_t)fr[i].len + 24) * 8;
	if (fr[n - 1].t > fr[0].t) {
		fl->offered_bps = (double)bits * 1e9 / (double)(fr[n - 1].t - fr[0].t);
		fl->offered_frames = n;
	}
}

/* On/off bursts of a flow of one QP: at least BURST_MIN idle gaps, periods
 * (a burst and the gap after it) within 10 % of each other; burst_off the
 * mean gap less one pace (a burst's last frame takes a pace to send),
 * burst_on the rest of the mean period. A sample's gaps are its own. */
#define BURST_MIN 3
static void flow_bursts(const struct rp_replay_evidence *ev, const struct rp_replay_qp *q, struct rp_replay_flow *fl)
{
	const struct rp_replay_bursts *b = &q->bursts;
	if (ev->sampled > 1 || b->offs < BURST_MIN || b->period_max > b->period_min + b->period_min / 10)
		return;
	uint64_t period = (b->period_sum + b->offs / 2) / b->offs, off = (b->off_sum + b->offs / 2) / b->offs;
	if (off <= b->pace_ns || period <= off)
		return;
	fl->burst_off_ns = off - b->pace_ns;
	fl->burst_on_ns = period - fl->burst_off_ns;
	fl->bursts = b->offs;
}

/* One flow's keys from its QPs. false: none of its QPs sent data we saw. */
static bool flow_from(const struct rp_replay_evidence *ev, const struct qp_ix *ix, size_t i, struct rp_replay_flow *fl)
{
	struct rp_acct_flow_result r;
	rp_acct_flow(ev->acct, i, &r);
	*fl = (struct rp_replay_flow){.acct = i, .src = -1, .dst = -1, .entry = -1, .sport = -2};
	uint64_t first = UINT64_MAX, last = 0, last_bits = 0, bits = 0, rmin = UINT64_MAX, rmax = 0, smin = UINT64_MAX,
		 smax = 0, cut = 0;
	unsigned ops = 0;
	bool reth = false;
	size_t nq = rp_acct_flow_nqps(ev->acct, i), npre = 0;
	const struct rp_replay_qp *pre[PRE_QPS];
	for (size_t k = 0; k < nq; k++) {
		struct rp_acct_qp_result qr;
		rp_acct_qp(ev->acct, i, k, &qr);
		const struct rp_replay_qp *q = qp_find(ev, ix, &r, qr.dqpn);
		if (!q || !q->frames)
			continue;
		if (npre < PRE_QPS)
			pre[npre++] = q;
		/* one port for all its QPs, or none to pin (-1) */
		fl->sport = q->sport_varies || (fl->sport != -2 && fl->sport != q->sport) ? -1 : q->sport;
		if (fl->src < 0) {
			fl->src = q->src_host;
			fl->dst = q->dst_host;
			fl->l3 = q->l3;
			fl->dscp = q->dscp;
			/* a first copy already CE was marked on the way (an egress mirror
			 * saw it after the switch): the sender sent ECT, ECT(0) as RoCE NICs do */
			fl->ecn = q->ecn == RP_ECN_CE ? RP_ECN_ECT0 : q->ecn;
			fl->vlan = q->vlan;
			fl->vid = q->vid;
			fl->pcp = q->pcp;
		}
		fl->qps++;
		fl->messages += q->messages;
		ops |= q->ops;
		fl->frames += q->frames;
		fl->sampled_frames += q->sampled_frames;
		bits += q->l1_bits;
		if (q->first_ns < first)
			first = q->first_ns;
		if (q->last_ns >= last) {
			last = q->last_ns;
			last_bits = q->last_bits;
		}
		if (q->reth_seen) {
			reth = true;
			rmin = q->reth_min < rmin ? q->reth_min : rmin;
			rmax = q->reth_max > rmax ? q->reth_max : rmax;
		}
		cut += q->reth_cut;
		if (q->spans) {
			smin = q->span_min < smin ? q->span_min : smin;
			smax = q->span_max > smax ? q->span_max : smax;
		}
		fl->mtu = q->mtu > fl->mtu ? q->mtu : fl->mtu;
		fl->max_payload = q->span_max > fl->max_payload && q->spans ? q->span_max : fl->max_payload;
	}
	if (fl->src < 0 || fl->dst < 0)
		return false;
	fl->sport = fl->sport < 0 ? -1 : fl->sport;
	fl->opcode = opcode_word(ops);
	if (reth) {
		fl->message_size = rmax;
		fl->size_spread = rmax - rmin;
		fl->size_how = "RETH";
	} else if (smax) {
		fl->message_size = smax;
		fl->size_spread = smax - smin;
		fl->size_how = cut ? "cut" : "span";
	} else {
		fl->size_how = "none";
	}
	if (ev->sampled > 1 && fl->message_size) {
		/* a 1-in-N sample of a periodic stream can miss every LAST packet (N packets a
		 * message): messages from the frames and the packets a message takes */
		uint64_t ppm = fl->mtu ? (fl->message_size + fl->mtu - 1) / fl->mtu : 1;
		fl->messages = (fl->frames + ppm / 2) / ppm;
	}
	fl->bits = bits;
	fl->last_bits = last_bits;
	fl->first_abs = first;
	fl->last_abs = last;
	fl->merged = 1;
	flow_times(ev, fl);
	flow_offered(ev, pre, npre, fl);
	if (npre == 1)
		flow_bursts(ev, pre[0], fl);
	if (npre == 1 && !fl->bursts && ev->sampled <= 1) {
		bool at_sender;
		uint64_t xoff = sender_xoff(ev, fl, &at_sender);
		if (at_sender)
			rp_replay_flow_phases(pre[0], ev->bin_ns, xoff, fl);
	}
	return true;
}

/* The same frames on the wire: opcode, sizes, header fields. */
static bool same_wire(const struct rp_replay_flow *a, const struct rp_replay_flow *b)
{
	return a->opcode == b->opcode && a->message_size == b->message_size && a->mtu == b->mtu && a->l3 == b->l3 &&
	       a->dscp == b->dscp &&
	       a->ecn == b->ecn && a->vlan == b->vlan && a->vid == b->vid;
}

static bool same_keys(const struct rp_replay_flow *a, const struct rp_replay_flow *b)
{
	return same_wire(a, b) && a->qps == b->qps && a->messages == b->messages;
}

/* Without probes (a NIC's traffic, a snaplen that cut them) each QP is a
 * flow of its own: flows of one host pair with the same keys at overlapping
 * times are taken as the QPs of one (nothing on the wire tells them apart). */
static void merge_qps(struct rp_replay_model *m)
{
	for (size_t j = 0; j < m->nflows; j++) {
		struct rp_replay_flow *y = &m->flows[j];
		for (size_t i = 0; i < j; i++) {
			struct rp_replay_flow *x = &m->flows[i];
			bool same = x->entry == -1 && x->src == y->src && x->dst == y->dst && same_wire(x, y);
			if (!same || y->first_abs > x->last_abs || x->first_abs > y->last_abs)
				continue;
			x->qps += y->qps;
			x->messages += y->messages;
			x->frames += y->frames;
			x->sampled_frames += y->sampled_frames;
			x->bits += y->bits;
			if (y->last_abs >= x->last_abs) {
				x->last_abs = y->last_abs;
				x->last_bits = y->last_bits;
			}
			x->first_abs = y->first_abs < x->first_abs ? y->first_abs : x->first_abs;
			x->size_spread = x->size_spread > y->size_spread ? x->size_spread : y->size_spread;
			x->merged += y->merged;
			/* QPs of one sender's pace: theirs together, when both were measured */
			x->offered_bps = x->offered_bps > 0 && y->offered_bps > 0 ? x->offered_bps + y->offered_bps : 0;
			x->offered_frames += y->offered_frames;
			x->sport = x->sport == y->sport ? x->sport : -1;
			x->bursts = 0; /* one QP's bursts are not the flow's, nor its phases */
			free(x->phases);
			x->phases = NULL;
			x->nphases = 0;
			flow_times(m->ev, x);
			y->entry = -2;
			break;
		}
	}
}

static int add_entry(struct rp_replay_model *m, enum rp_replay_pattern p, const size_t *flows, size_t n)
{
	struct rp_replay_entry *ne = realloc(m->entries, (m->nentries + 1) * sizeof(*ne));
	if (!ne)
		return -1;
	m->entries = ne;
	struct rp_replay_entry *e = &m->entries[m->nentries];
	*e = (struct rp_replay_entry){.pattern = p, .flows = malloc(n * sizeof(size_t)), .nflows = n};
	if (!e->flows)
		return -1;
	memcpy(e->flows, flows, n * sizeof(size_t));
	e->first = flows[0];
	for (size_t k = 0; k < n; k++)
		m->flows[flows[k]].entry = (int)m->nentries;
	m->nentries++;
	return 0;
}

/* Flows of the same keys as flow f, not yet in an entry. */
static size_t alike(const struct rp_replay_model *m, size_t f, size_t *out)
{
	size_t n = 0;
	for (size_t j = 0; j < m->nflows; j++)
		if (m->flows[j].entry == -1 && same_keys(&m->flows[f], &m->flows[j]))
			out[n++] = j;
	return n;
}

/* Every ordered pair of a host set, once each: all-to-all. */
static int find_all_to_all(struct rp_replay_model *m, size_t *tmp)
{
	size_t nh = m->ev->nhosts;
	unsigned char *pair = calloc(nh * nh + 1, 1), *in = calloc(nh + 1, 1);
	int rc = -1;
	if (!pair || !in)
		goto out;
	for (size_t f = 0; f < m->nflows; f++) {
		if (m->flows[f].entry != -1)
			continue;
		size_t n = alike(m, f, tmp), hosts = 0;
		memset(pair, 0, nh * nh);
		memset(in, 0, nh);
		bool ok = n >= 6;
		for (size_t k = 0; ok && k < n; k++) {
			const struct rp_replay_flow *x = &m->flows[tmp[k]];
			ok = x->src != x->dst && !pair[(size_t)x->src * nh + (size_t)x->dst]++;
			hosts += !in[x->src]++;
			hosts += !in[x->dst]++;
		}
		if (ok && n == hosts * (hosts - 1) && add_entry(m, RP_REPLAY_ALL_TO_ALL, tmp, n))
			goto out;
	}
	rc = 0;
out:
	free(pair);
	free(in);
	return rc;
}

/* N >= 3 flows of the same keys from distinct sources to one destination,
 * starting within the window: incast. */
static int find_incast(struct rp_replay_model *m, size_t *tmp)
{
	size_t nh = m->ev->nhosts;
	unsigned char *from = calloc(nh + 1, 1);
	if (!from)
		return -1;
	for (size_t f = 0; f < m->nflows; f++) {
		if (m->flows[f].entry != -1)
			continue;
		size_t n = 0, all = alike(m, f, tmp);
		memset(from, 0, nh);
		uint64_t lo = UINT64_MAX, hi = 0;
		bool ok = true;
		for (size_t k = 0; k < all; k++) {
			const struct rp_replay_flow *x = &m->flows[tmp[k]];
			if (x->dst != m->flows[f].dst)
				continue;
			ok = ok && !from[x->src]++;
			lo = x->start_ns < lo ? x->start_ns : lo;
			hi = x->start_ns > hi ? x->start_ns : hi;
			tmp[n++] = tmp[k];
		}
		if (ok && n >= INCAST_MIN && hi - lo <= m->window_ns && add_entry(m, RP_REPLAY_INCAST, tmp, n)) {
			free(from);
			return -1;
		}
	}
	free(from);
	return 0;
}

/* N >= 3 flows of the same keys, starting within the window, where every
 * host of them sends to exactly one other and receives from exactly one, in
 * one cycle: permutation. The profile's permutation is the cycle its seed
 * draws over its hosts in list order (rp_plan_permutation), so the hosts are
 * listed in the order that makes seed 1's cycle the one seen: member 0 is
 * the first flow's source, member P[i] the destination of member i's flow.
 * The entry's flows are put in that order. */
static int find_permutation(struct rp_replay_model *m, size_t *tmp)
{
	size_t nh = m->ev->nhosts;
	long *to = malloc((nh + 1) * sizeof(*to));
	unsigned char *in = calloc(nh + 1, 1);
	uint16_t *perm = malloc((nh + 1) * sizeof(*perm));
	size_t *order = malloc((nh + 1) * sizeof(*order));
	int rc = -1;
	if (!to || !in || !perm || !order)
		goto out;
	for (size_t f = 0; f < m->nflows; f++) {
		if (m->flows[f].entry != -1)
			continue;
		size_t n = alike(m, f, tmp);
		if (n < 3 || n > nh)
			continue;
		for (size_t h = 0; h < nh; h++)
			to[h] = -1;
		memset(in, 0, nh);
		uint64_t lo = UINT64_MAX, hi = 0;
		bool ok = true;
		for (size_t k = 0; ok && k < n; k++) {
			const struct rp_replay_flow *x = &m->flows[tmp[k]];
			ok = x->src != x->dst && to[x->src] < 0 && !in[x->dst]++;
			to[x->src] = (long)tmp[k];
			lo = x->start_ns < lo ? x->start_ns : lo;
			hi = x->start_ns > hi ? x->start_ns : hi;
		}
		/* one cycle through every source: n steps from the first come back, each a new host */
		int h = m->flows[tmp[0]].src;
		for (size_t k = 0; ok && k < n; k++) {
			ok = to[h] >= 0;
			order[k] = ok ? (size_t)to[h] : 0;
			h = ok ? m->flows[to[h]].dst : h;
			ok = ok && (k + 1 == n) == (h == m->flows[tmp[0]].src);
		}
		if (!ok || hi - lo > m->window_ns)
			continue;
		rp_plan_permutation(perm, n, 1);
		for (size_t k = 0, i = 0; k < n; k++, i = perm[i])
			tmp[i] = order[k];
		if (add_entry(m, RP_REPLAY_PERMUTATION, tmp, n))
			goto out;
	}
	rc = 0;
out:
	free(to);
	free(in);
	free(perm);
	free(order);
	return rc;
}

static int by_first(const void *a, const void *b)
{
	size_t x = ((const struct rp_replay_entry *)a)->first, y = ((const struct rp_replay_entry *)b)->first;
	return x < y ? -1 : x > y;
}

int rp_replay_infer(struct rp_replay_model *m, const struct rp_replay_evidence *ev, const struct rp_profile *fabric,
		    const char *fabric_path, const char *fabric_text)
{
	*m = (struct rp_replay_model){.ev = ev, .fabric = fabric, .fabric_path = fabric_path,
				      .fabric_text = fabric_text, .window_ns = INCAST_WINDOW_NS};
	size_t n = rp_acct_nflows(ev->acct);
	m->flows = calloc(n + 1, sizeof(*m->flows));
	size_t *tmp = calloc(n + 1, sizeof(size_t));
	struct qp_ix *ix = qp_index(ev);
	if (!m->flows || !tmp || !ix) {
		free(tmp);
		free(ix);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (flow_from(ev, ix, i, &m->flows[m->nflows]))
			m->nflows++;
	free(ix);
	merge_qps(m);
	int rc = find_all_to_all(m, tmp) || find_incast(m, tmp) || find_permutation(m, tmp) ? -1 : 0;
	for (size_t f = 0; rc == 0 && f < m->nflows; f++)
		if (m->flows[f].entry == -1 && add_entry(m, RP_REPLAY_FLOW, &f, 1))
			rc = -1;
	free(tmp);
	if (rc == 0 && m->nentries)
		qsort(m->entries, m->nentries, sizeof(*m->entries), by_first);
	for (size_t e = 0; rc == 0 && e < m->nentries; e++)
		for (size_t k = 0; k < m->entries[e].nflows; k++)
			m->flows[m->entries[e].flows[k]].entry = (int)e;
	return rc;
}

void rp_replay_model_free(struct rp_replay_model *m)
{
	for (size_t i = 0; i < m->nentries; i++)
		free(m->entries[i].flows);
	for (size_t i = 0; i < m->nflows; i++)
		free(m->flows[i].phases);
	free(m->entries);
	free(m->flows);
	m->entries = NULL;
	m->flows = NULL;
	m->nentries = m->nflows = 0;
}
