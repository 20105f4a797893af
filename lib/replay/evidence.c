/* Captures -> frames counted once, per-QP facts as sent, and the accountant
 * (replay.h). Two passes over the captures merged in time order: the first
 * matches copies and learns hosts and QPs, the second feeds the accountant
 * each unique RoCE frame once (its last copy) and every other frame (PFC,
 * PAUSE) at the capture that holds it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "copies.h"
#include "profile/profile.h"

/* The host of a (MAC, address): found or added. -1: out of memory. */
static long host_of(struct rp_replay_evidence *ev, const uint8_t mac[6], const struct rp_frame *f, bool src)
{
	size_t i;
	for (i = 0; i < ev->nhosts; i++)
		if (memcmp(ev->hosts[i].mac, mac, 6) == 0)
			break;
	if (i == ev->nhosts) {
		struct rp_replay_host *n = realloc(ev->hosts, (ev->nhosts + 1) * sizeof(*n));
		if (!n)
			return -1;
		ev->hosts = n;
		ev->hosts[ev->nhosts++] = (struct rp_replay_host){.fabric = -1};
		memcpy(ev->hosts[i].mac, mac, 6);
	}
	struct rp_replay_host *h = &ev->hosts[i];
	if (f->l3 == 4 && !h->has_ipv4) {
		h->has_ipv4 = true;
		h->ipv4 = src ? f->ip4.src : f->ip4.dst;
	} else if (f->l3 == 6 && !h->has_ipv6) {
		h->has_ipv6 = true;
		memcpy(h->ipv6, src ? f->ip6.src : f->ip6.dst, 16);
	}
	return (long)i;
}

static bool is_data_op(uint8_t op)
{
	return op <= RP_OP_RC_WRITE_ONLY_IMM || (op >= RP_OP_RC_READ_RESP_FIRST && op <= RP_OP_RC_READ_RESP_ONLY);
}

static bool op_first(uint8_t op)
{
	return op == RP_OP_RC_SEND_FIRST || op == RP_OP_RC_WRITE_FIRST || op == RP_OP_RC_READ_RESP_FIRST;
}

static bool op_middle(uint8_t op)
{
	return op == RP_OP_RC_SEND_MIDDLE || op == RP_OP_RC_WRITE_MIDDLE || op == RP_OP_RC_READ_RESP_MIDDLE;
}

static bool op_only(uint8_t op)
{
	return op == RP_OP_RC_SEND_ONLY || op == RP_OP_RC_SEND_ONLY_IMM || op == RP_OP_RC_WRITE_ONLY ||
	       op == RP_OP_RC_WRITE_ONLY_IMM || op == RP_OP_RC_READ_RESP_ONLY;
}

#define QP_OP 0xFF  /* no BTH opcode: the key of a QP, (source, destination, DestQP) */
#define MAC_OP 0xFE /* nor this: the key of a MAC, whether a capture was taken at its host */

static struct dent *mac_entry(struct dmap *m, const uint8_t mac[6])
{
	struct dkey k = {.op = MAC_OP};
	memcpy(k.src, mac, 6);
	return rp_replay_dmap_get(m, &k);
}

static struct rp_replay_qp *qp_of(struct rp_replay_evidence *ev, struct dmap *m, const struct rp_frame *f)
{
	struct dkey k;
	rp_replay_key_of(f, &k);
	k.op = QP_OP;
	k.psn = 0;
	struct dent *e = rp_replay_dmap_get(m, &k);
	if (!e)
		return NULL;
	if (e->val)
		return &ev->qps[e->val - 1];
	e->val = (uint32_t)ev->nqps + 1;
	struct rp_replay_qp *n = realloc(ev->qps, (ev->nqps + 1) * sizeof(*n));
	if (!n)
		return NULL;
	ev->qps = n;
	struct rp_replay_qp *q = &ev->qps[ev->nqps++];
	*q = (struct rp_replay_qp){.l3 = f->l3, .dqpn = f->bth.dqpn, .psn_first = f->bth.psn, .span_min = UINT64_MAX,
				   .reth_min = UINT32_MAX, .src_host = -1, .dst_host = -1};
	if (f->l3 == 4) {
		q->src4 = f->ip4.src;
		q->dst4 = f->ip4.dst;
		q->dscp = f->ip4.dscp;
		q->ecn = f->ip4.ecn;
	} else {
		memcpy(q->src6, f->ip6.src, 16);
		memcpy(q->dst6, f->ip6.dst, 16);
		q->dscp = f->ip6.dscp;
		q->ecn = f->ip6.ecn;
	}
	q->vlan = f->eth.has_vlan;
	q->vid = f->eth.vid;
	q->pcp = f->eth.pcp;
	q->sport = f->udp.sport;
	return q;
}

static void span_end(struct rp_replay_qp *q, uint64_t bytes)
{
	q->spans++;
	q->span_min = bytes < q->span_min ? bytes : q->span_min;
	q->span_max = bytes > q->span_max ? bytes : q->span_max;
	q->span_open = false;
}

/* A QP's frame at t (its n-th): an idle gap of more than BURST_GAP_X times
 * its pace (the smallest gap of its first frames) and BURST_GAP_MIN_NS ends a
 * burst; a burst and the gap after it are a period. */
#define BURST_GAP_X 8
#define BURST_GAP_MIN_NS 2000
static void bursts_see(struct rp_replay_bursts *b, uint64_t n, uint64_t t)
{
	if (n == 0) {
		b->on_ns = t;
	} else {
		uint64_t gap = t - b->prev_ns;
		if (n < RP_REPLAY_PRE_FRAMES && (!b->pace_ns || gap < b->pace_ns))
			b->pace_ns = gap;
		if (n >= RP_REPLAY_PRE_FRAMES && b->pace_ns && gap > BURST_GAP_X * b->pace_ns && gap > BURST_GAP_MIN_NS) {
			uint64_t period = t - b->on_ns;
			b->offs++;
			b->off_sum += gap;
			b->period_sum += period;
			b->period_min = b->offs == 1 || period < b->period_min ? period : b->period_min;
			b->period_max = period > b->period_max ? period : b->period_max;
			b->on_ns = t;
		}
	}
	b->prev_ns = t;
}

/* A data frame's first copy: what its QP sent. */
static void qp_account(struct rp_replay_qp *q, const struct rp_frame *f, uint64_t t, size_t wire_len, bool resend,
		       bool sampled, uint64_t win_ns)
{
	uint8_t op = f->bth.opcode;
	if (!resend && !op_first(op) && !op_middle(op))
		q->messages++;
	q->ops |= 1u << op;
	q->sport_varies |= f->udp.sport != q->sport;
	uint64_t bits = ((uint64_t)wire_len + 24) * 8;
	if (!q->frames)
		q->first_ns = t;
	bursts_see(&q->bursts, q->frames, t);
	if (q->pre.n < RP_REPLAY_PRE_FRAMES && t - q->first_ns <= UINT32_MAX) {
		q->pre.dt[q->pre.n] = (uint32_t)(t - q->first_ns);
		q->pre.len[q->pre.n++] = (uint16_t)(wire_len < UINT16_MAX ? wire_len : UINT16_MAX);
	}
	if (!sampled)
		rp_replay_pace_see(q, t, bits, win_ns);
	q->frames++;
	q->l1_bits += bits;
	q->last_bits = bits;
	q->last_ns = t;
	bool write_head = op == RP_OP_RC_WRITE_FIRST || op == RP_OP_RC_WRITE_ONLY || op == RP_OP_RC_WRITE_ONLY_IMM;
	if (write_head && (f->ext & RP_EXT_RETH)) {
		q->reth_seen = true;
		q->reth_min = f->reth.dma_len < q->reth_min ? f->reth.dma_len : q->reth_min;
		q->reth_max = f->reth.dma_len > q->reth_max ? f->reth.dma_len : q->reth_max;
	} else if (write_head) {
		q->reth_cut++;
	}
	if ((op_first(op) || op_middle(op)) && f->payload_len > q->mtu)
		q->mtu = (uint32_t)f->payload_len;
	if (op_only(op)) {
		span_end(q, f->payload_len);
	} else if (sampled) {
		/* a sample has no whole FIRST..LAST span: sizes from RETH and ONLY packets only */
	} else if (op_first(op)) {
		q->span_open = true;
		q->span_bytes = f->payload_len;
	} else if (q->span_open) {
		q->span_bytes += f->payload_len;
		if (!op_middle(op))
			span_end(q, q->span_bytes);
	}
}

static int host_by_mac(const struct rp_replay_evidence *ev, const uint8_t mac[6])
{
	for (size_t j = 0; j < ev->nhosts; j++)
		if (!memcmp(ev->hosts[j].mac, mac, 6))
			return (int)j;
	return -1;
}

/* Each capture's host (point above). */
static void capture_hosts(struct rp_replay_evidence *ev, const struct point *pts)
{
	for (size_t c = 0; c < ev->ncap; c++)
		ev->cap[c].host = pts[c].ncand == 1 ? host_by_mac(ev, pts[c].cand[0]) : -1;
	for (size_t c = 0; c < ev->ncap; c++) {
		if (pts[c].ncand != 2)
			continue;
		int a = host_by_mac(ev, pts[c].cand[0]), b = host_by_mac(ev, pts[c].cand[1]);
		bool ta = false, tb = false;
		for (size_t o = 0; o < ev->ncap; o++) {
			ta = ta || (o != c && ev->cap[o].host == a);
			tb = tb || (o != c && ev->cap[o].host == b);
		}
		if (pts[c].score[0] != pts[c].score[1])
			ev->cap[c].host = pts[c].score[0] > pts[c].score[1] ? a : b;
		else if (ta != tb)
			ev->cap[c].host = ta ? b : a;
	}
}

/* A data frame's copy at point c of a sampled capture: what c saw of its QP. */
static int qp_point_account(struct rp_replay_qp *q, size_t c, const struct rp_frame *f, uint64_t t, size_t wire_len,
			    bool resend)
{
	if (!q->pt && !(q->pt = calloc(RP_REPLAY_MAX_CAPTURES, sizeof(*q->pt))))
		return -1;
	struct rp_replay_qp_point *p = &q->pt[c];
	uint8_t op = f->bth.opcode;
	uint64_t bits = ((uint64_t)wire_len + 24) * 8;
	if (!p->frames)
		p->first_ns = t;
	p->frames++;
	p->l1_bits += bits;
	p->last_bits = bits;
	p->last_ns = t;
	if (!resend && !op_first(op) && !op_middle(op))
		p->messages++;
	return 0;
}

/* The first frame of its kind from or to mac at a capture point (up to 4 MACs). */
static void first_of(struct rp_replay_first *fs, unsigned *n, const uint8_t mac[6], uint64_t t)
{
	for (unsigned k = 0; k < *n; k++)
		if (!memcmp(fs[k].mac, mac, 6))
			return;
	if (*n < 4) {
		memcpy(fs[*n].mac, mac, 6);
		fs[(*n)++].ns = t;
	}
}

/* A PFC or PAUSE frame at capture point c: the first that pauses is when its
 * host was first held back (infer.c's offered rate); every frame counts for
 * its sender, a host sending pauses (a storm's source, or a NIC whose buffer
 * filled), at the first point that saw one of its frames. */
static void macctl_frame(struct rp_replay_evidence *ev, size_t c, const struct rp_frame *f, uint64_t t)
{
	bool pause = f->kind == RP_KIND_PAUSE;
	uint8_t prios = 0;
	uint16_t quanta = 0;
	for (unsigned p = 0; p < RP_PFC_PRIOS; p++)
		if (f->macctl.quanta[p] && (pause || (f->macctl.enable >> p & 1))) {
			prios |= (uint8_t)(1u << p);
			quanta = f->macctl.quanta[p] > quanta ? f->macctl.quanta[p] : quanta;
		}
	if (prios) /* an XON pauses nothing */
		first_of(ev->cap[c].xoff, &ev->cap[c].nxoff, f->eth.src, t);
	struct rp_replay_pfc_src *s = NULL;
	for (size_t i = 0; i < ev->npfc && !s; i++)
		if (!memcmp(ev->pfc[i].mac, f->eth.src, 6) && ev->pfc[i].pause == pause)
			s = &ev->pfc[i];
	if (!s && ev->npfc < RP_REPLAY_MAX_PFC_SOURCES) {
		s = &ev->pfc[ev->npfc++];
		*s = (struct rp_replay_pfc_src){.pause = pause, .first_ns = t, .cap = c};
		memcpy(s->mac, f->eth.src, 6);
	}
	if (!s || s->cap != c)
		return;
	s->frames++;
	s->last_ns = t;
	s->prios |= pause ? 0 : prios;
	s->quanta = quanta > s->quanta ? quanta : s->quanta;
}

static int pass1_frame(struct rp_replay_evidence *ev, struct dmap *m, struct point *pt, size_t c, uint64_t t,
		       const u_char *d, const struct pcap_pkthdr *h)
{
	struct rp_replay_capture *cap = &ev->cap[c];
	struct rp_replay_file *file = &ev->files[cap->file];
	if (!cap->frames)
		cap->first_ns = t;
	cap->frames++;
	file->frames++;
	cap->last_ns = t;
	ev->frames++;
	struct rp_frame f;
	rp_frame_parse(d, h->caplen, h->len, &f);
	ev->malformed += f.kind == RP_KIND_MALFORMED;
	if (f.kind == RP_KIND_PFC || f.kind == RP_KIND_PAUSE) {
		file->macctl++;
		macctl_frame(ev, c, &f, t);
		return 0;
	}
	if (!rp_replay_is_roce(&f))
		return 0;
	if (f.kind == RP_KIND_CNP) /* when its host was first slowed (DCQCN) */
		first_of(cap->cnp, &cap->ncnp, f.eth.dst, t);
	cap->roce++;
	file->roce++;
	ev->roce_copies++;
	bool first;
	struct dent *e = rp_replay_copy_of(m, &f, c, 0, &first);
	if (!e)
		return -1;
	rp_replay_point_see(pt, &f, first);
	e->chosen = (uint8_t)c;
	bool resend = e->k.occ > 0; /* e is not valid past the next lookup */
	bool data = f.kind == RP_KIND_ROCE && is_data_op(f.bth.opcode);
	if (!first) {
		ev->matched++;
		struct rp_replay_qp *q = data && ev->sampled > 1 ? qp_of(ev, m, &f) : NULL;
		return q ? qp_point_account(q, c, &f, t, h->len, resend) : data && ev->sampled > 1 ? -1 : 0;
	}
	ev->unique++;
	long s = host_of(ev, f.eth.src, &f, true), r = host_of(ev, f.eth.dst, &f, false);
	if (s < 0 || r < 0)
		return -1;
	ev->hosts[s].tx++;
	ev->hosts[r].rx++;
	if (!data)
		return 0;
	struct rp_replay_qp *q = qp_of(ev, m, &f);
	if (!q)
		return -1;
	q->src_host = (int)s;
	q->dst_host = (int)r;
	qp_account(q, &f, t, h->len, resend, ev->sampled > 1, ev->bin_ns);
	return ev->sampled > 1 ? qp_point_account(q, c, &f, t, h->len, resend) : 0;
}

/* Sampled evidence: each QP's counts from one point's sample, scaled by N
 * (two points' samples are not added: a frame in both would count twice):
 * its sender's capture, where every frame it sent passed; without one, the
 * point that saw most (the largest of several samples leans high). */
static void sampled_scale(struct rp_replay_evidence *ev)
{
	for (size_t i = 0; i < ev->nqps; i++) {
		struct rp_replay_qp *q = &ev->qps[i];
		const struct rp_replay_qp_point *best = NULL;
		for (size_t c = 0; q->pt && c < ev->ncap; c++)
			if (ev->cap[c].host >= 0 && ev->cap[c].host == q->src_host && q->pt[c].frames &&
			    (!best || q->pt[c].frames > best->frames))
				best = &q->pt[c];
		bool at_sender = best != NULL;
		for (size_t c = 0; q->pt && !at_sender && c < ev->ncap; c++)
			if (!best || q->pt[c].frames > best->frames)
				best = &q->pt[c];
		if (!best || !best->frames)
			continue;
		q->sampled_frames = best->frames;
		q->frames = best->frames * ev->sampled;
		q->l1_bits = best->l1_bits * ev->sampled;
		q->last_bits = best->last_bits * ev->sampled;
		q->messages = best->messages * ev->sampled;
		q->first_ns = best->first_ns;
		q->last_ns = best->last_ns;
	}
}

static int pass2_frame(struct rp_replay_evidence *ev, struct dmap *m, size_t c, uint64_t t, const u_char *d,
		       const struct pcap_pkthdr *h)
{
	struct rp_frame f;
	rp_frame_parse(d, h->caplen, h->len, &f);
	if (rp_replay_is_roce(&f)) {
		/* counted where it arrived: at its destination's capture, if there is one (not
		 * there: lost on the way), else the copy furthest along */
		struct dent *at = mac_entry(m, f.eth.dst);
		if (!at)
			return -1;
		uint32_t dst = at->val; /* its host + 1 when captured there */
		bool first;
		struct dent *e = rp_replay_copy_of(m, &f, c, 1, &first);
		if (!e)
			return -1;
		if (dst ? ev->cap[c].host != (int)dst - 1 || e->fed : e->chosen != c)
			return 0;
		e->fed = true;
	}
	rp_acct_rx(ev->acct, (unsigned)c, t, d, h->caplen, h->len, NULL);
	return 0;
}

static int by_mac(const void *a, const void *b)
{
	return memcmp(((const struct rp_replay_host *)a)->mac, ((const struct rp_replay_host *)b)->mac, 6);
}

static int fabric_host(const struct rp_profile *p, const struct rp_replay_host *h)
{
	for (size_t i = 0; i < p->nhosts; i++) {
		const struct rp_host *x = &p->hosts[i];
		if ((x->mac_known && !memcmp(x->mac, h->mac, 6)) || (h->has_ipv4 && x->has_ipv4 && x->ipv4 == h->ipv4) ||
		    (h->has_ipv6 && x->has_ipv6 && !memcmp(x->ipv6, h->ipv6, 16)))
			return (int)i;
	}
	return -1;
}

static void host_label(const struct rp_replay_host *h, char *out, size_t len)
{
	char mac[18], ip[46] = "";
	rp_mac_format(h->mac, mac);
	if (h->has_ipv4)
		rp_ipv4_addr_format(h->ipv4, ip);
	else if (h->has_ipv6)
		rp_ipv6_addr_format(h->ipv6, ip);
	snprintf(out, len, "%s (%s)", mac, ip);
}

/* Hosts in MAC order, named; the QPs' and captures' host indices follow. */
static int name_hosts(struct rp_replay_evidence *ev, const struct rp_profile *fabric, struct point *pts, char *err,
		      size_t errlen)
{
	qsort(ev->hosts, ev->nhosts, sizeof(*ev->hosts), by_mac);
	for (size_t i = 0; i < ev->nhosts; i++) {
		struct rp_replay_host *h = &ev->hosts[i];
		if (fabric) {
			h->fabric = fabric_host(fabric, h);
			if (h->fabric < 0) {
				char l[80];
				host_label(h, l, sizeof(l));
				snprintf(err, errlen, "host %s sends or receives RoCE in the evidence but is none of the "
					 "fabric's hosts (by MAC or address): give the fabric of the incident", l);
				return -1;
			}
			snprintf(h->name, sizeof(h->name), "%s", fabric->hosts[h->fabric].name);
		} else {
			snprintf(h->name, sizeof(h->name), "h%zu", i);
		}
	}
	for (size_t i = 0; i < ev->nqps; i++) {
		struct rp_replay_qp *q = &ev->qps[i];
		q->src_host = q->dst_host = -1;
		for (size_t j = 0; j < ev->nhosts; j++) {
			const struct rp_replay_host *h = &ev->hosts[j];
			bool s = q->l3 == 4 ? h->has_ipv4 && h->ipv4 == q->src4 : h->has_ipv6 && !memcmp(h->ipv6, q->src6, 16);
			bool d = q->l3 == 4 ? h->has_ipv4 && h->ipv4 == q->dst4 : h->has_ipv6 && !memcmp(h->ipv6, q->dst6, 16);
			if (s && q->src_host < 0)
				q->src_host = (int)j;
			if (d && q->dst_host < 0)
				q->dst_host = (int)j;
		}
	}
	capture_hosts(ev, pts);
	for (size_t c = 0; c < ev->ncap; c++) {
		struct rp_replay_capture *cap = &ev->cap[c];
		if (cap->host >= 0) {
			snprintf(cap->node, sizeof(cap->node), "%s", ev->hosts[cap->host].name);
		} else {
			const char *b = strrchr(cap->path, '/');
			snprintf(cap->node, sizeof(cap->node), "%s", b ? b + 1 : cap->path);
		}
		if (cap->session >= 0) { /* a mirror's session: a point of its own */
			size_t l = strlen(cap->node);
			snprintf(cap->node + l, sizeof(cap->node) - l, ":erspan-%d", cap->session);
		}
	}
	return 0;
}

/* The capture point of file f's current frame: the file's, or its ERSPAN
 * session's; made at its first frame. -1 past RP_REPLAY_MAX_CAPTURES. */
static long point_of(struct rp_replay_evidence *ev, struct point *pts, const struct merge *mg, size_t f, char *err,
		     size_t errlen)
{
	const struct rp_pcap_reader *r = &mg->r[f];
	int session = r->encap ? r->erspan.session : -1;
	uint8_t type = r->encap ? r->erspan.type : 0;
	for (size_t i = 0; i < ev->ncap; i++)
		if (ev->cap[i].file == f && ev->cap[i].session == session && ev->cap[i].erspan == type)
			return (long)i;
	if (ev->ncap == RP_REPLAY_MAX_CAPTURES) {
		snprintf(err, errlen, "%s: more than %u capture points (files and their ERSPAN sessions)", r->name,
			 RP_REPLAY_MAX_CAPTURES);
		return -1;
	}
	ev->cap[ev->ncap] = (struct rp_replay_capture){.path = ev->files[f].path, .host = -1, .file = f,

						       .session = session, .erspan = type};
	pts[ev->ncap].ncand = -1;
	return (long)ev->ncap++;
}

static int pass1(struct rp_replay_evidence *ev, struct merge *mg, struct dmap *m, struct point *pts, char *err,
		 size_t errlen)
{
	for (size_t i = 0; i < ev->nfiles; i++) /* points in the files' order (their first frames') */
		if (mg->live[i] && point_of(ev, pts, mg, i, err, errlen) < 0)
			return -1;
	long f;
	while ((f = rp_replay_merge_next(mg)) >= 0) {
		uint64_t t = rp_replay_merge_t(mg, (size_t)f);
		long c = point_of(ev, pts, mg, (size_t)f, err, errlen);
		if (c < 0)
			return -1;
		if (pass1_frame(ev, m, &pts[c], (size_t)c, t, mg->d[f], mg->h[f])) {
			snprintf(err, errlen, "out of memory matching the captures' frames");
			return -1;
		}
		if (rp_replay_merge_advance(mg, (size_t)f, err, errlen))
			return -1;
	}
	for (size_t i = 0; i < ev->nfiles; i++) {
		struct rp_replay_file *fl = &ev->files[i];
		fl->erspan = mg->r[i].erspan_frames;
		fl->erspan_ts_used = mg->r[i].erspan_ts_used;
		fl->erspan_ts_kept = mg->r[i].erspan_ts_kept;
		if (!fl->frames) {
			snprintf(err, errlen, "%s: an empty capture (no frames): nothing to infer from", fl->path);
			return -1;
		}
		if (!fl->roce && !fl->macctl) {
			snprintf(err, errlen, "%s: %llu frames and no RoCEv2 among them (UDP 4791 with a BTH): not a "
				 "capture of the fabric's RDMA traffic", fl->path, (unsigned long long)fl->frames);
			return -1;
		}
	}
	for (size_t i = 0; i < ev->ncap; i++) {
		const struct rp_replay_capture *cap = &ev->cap[i];
		if (i == 0 || cap->first_ns < ev->first_ns)
			ev->first_ns = cap->first_ns;
		if (cap->last_ns > ev->last_ns)
			ev->last_ns = cap->last_ns;
	}
	return 0;
}

static int pass2(struct rp_replay_evidence *ev, struct merge *mg, struct dmap *m, struct point *pts, uint64_t speed_bps,
		 char *err, size_t errlen)
{
	struct rp_acct_port_cfg ports[RP_REPLAY_MAX_CAPTURES];
	for (size_t i = 0; i < ev->ncap; i++) {
		ports[i] = (struct rp_acct_port_cfg){.port = 0, .speed_bps = speed_bps};
		snprintf(ports[i].node, sizeof(ports[i].node), "%s", ev->cap[i].node);
	}
	struct rp_acct_cfg cfg = {.ports = ports, .nports = ev->ncap, .start_ns = ev->first_ns,
				  .run_ns = ev->last_ns - ev->first_ns, .bin_ns = ev->bin_ns, .discover = true,
				  .track_psn = ev->sampled <= 1, .seq_from_first = true, .pause_to_expiry = true};
	for (size_t c = 0; c < ev->ncap; c++) {
		struct dent *e = ev->cap[c].host >= 0 ? mac_entry(m, ev->hosts[ev->cap[c].host].mac) : NULL;
		if (e)
			e->val = (uint32_t)ev->cap[c].host + 1;
	}
	ev->acct = rp_acct_create(&cfg, err, errlen);
	if (!ev->acct || rp_replay_merge_rewind(mg, err, errlen))
		return -1;
	long f;
	while ((f = rp_replay_merge_next(mg)) >= 0) {
		long c = point_of(ev, pts, mg, (size_t)f, err, errlen);
		if (c < 0)
			return -1;
		if (pass2_frame(ev, m, (size_t)c, rp_replay_merge_t(mg, (size_t)f), mg->d[f], mg->h[f])) {
			snprintf(err, errlen, "out of memory matching the captures' frames");
			return -1;
		}
		if (rp_replay_merge_advance(mg, (size_t)f, err, errlen))
			return -1;
	}
	rp_acct_finish(ev->acct, ev->last_ns, NULL);
	return 0;
}

double rp_replay_sample_bound(unsigned n, uint64_t k)
{
	if (n <= 1)
		return 0;
	if (!k)
		return 1;
	return 2 * sqrt((double)(n - 1) / ((double)n * (double)k));
}

int rp_replay_evidence_read(struct rp_replay_evidence *ev, const char *const *paths, size_t n,
			    const struct rp_profile *fabric, uint64_t bin_ns, uint64_t speed_bps, char *err,
			    size_t errlen)
{
	struct rp_replay_read_opts o = {.bin_ns = bin_ns, .speed_bps = speed_bps, .sampled = 1};
	return rp_replay_evidence_read_opts(ev, paths, n, fabric, &o, err, errlen);
}

int rp_replay_evidence_read_opts(struct rp_replay_evidence *ev, const char *const *paths, size_t n,
				 const struct rp_profile *fabric, const struct rp_replay_read_opts *opts, char *err,
				 size_t errlen)
{
	*ev = (struct rp_replay_evidence){.bin_ns = opts->bin_ns ? opts->bin_ns : 100000,
					  .sampled = opts->sampled > 1 ? opts->sampled : 1};
	if (n == 0 || n > RP_REPLAY_MAX_CAPTURES) {
		snprintf(err, errlen, "give 1 to %u captures (%zu given)", RP_REPLAY_MAX_CAPTURES, n);
		return -1;
	}
	struct merge *mg = calloc(1, sizeof(*mg));
	struct point *pts = calloc(RP_REPLAY_MAX_CAPTURES, sizeof(*pts));
	struct dmap m = {0};
	int rc = -1;
	if (!mg || !pts) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		ev->files[i] = (struct rp_replay_file){.path = paths[i], .via = -1};
		if (rp_pcap_reader_open(&mg->r[i], paths[i], true, err, errlen))
			goto out;
		mg->n = ev->nfiles = i + 1;
	}
	if (rp_replay_merge_start(mg, err, errlen) || (n > 1 && rp_replay_align(ev, mg, err, errlen)) ||
	    pass1(ev, mg, &m, pts, err, errlen) || name_hosts(ev, fabric, pts, err, errlen))
		goto out;
	if (ev->sampled > 1)
		sampled_scale(ev);
	if (pass2(ev, mg, &m, pts, opts->speed_bps, err, errlen))
		goto out;
	rc = 0;
out:
	if (mg)
		rp_replay_merge_close(mg);
	free(mg);
	free(pts);
	free(m.e);
	if (rc)
		rp_replay_evidence_free(ev);
	return rc;
}

void rp_replay_evidence_free(struct rp_replay_evidence *ev)
{
	if (ev->acct)
		rp_acct_destroy(ev->acct);
	for (size_t i = 0; i < ev->nqps; i++) {
		free(ev->qps[i].pt);
		free(ev->qps[i].win);
	}
	free(ev->hosts);
	free(ev->qps);
	ev->acct = NULL;
	ev->hosts = NULL;
	ev->qps = NULL;
	ev->nhosts = ev->nqps = 0;
}
