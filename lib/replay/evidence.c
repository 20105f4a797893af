/* Captures -> frames counted once, per-QP facts as sent, and the accountant
 * (replay.h). Two passes over the captures merged in time order: the first
 * matches copies and learns hosts and QPs, the second feeds the accountant
 * each unique RoCE frame once (its last copy) and every other frame (PFC,
 * PAUSE) at the capture that holds it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcap/reader.h"
#include "profile/profile.h"
#include "replay.h"
#include "wire/frame.h"

/* A RoCE frame's identity across capture points, with its copy number in
 * one capture (occ): the k-th copy at one point matches the k-th at another. */
struct dkey {
	uint8_t l3, op;
	uint16_t zero;
	uint32_t dqpn, psn, occ;
	uint8_t src[16], dst[16];
};

struct dent {
	struct dkey k;
	uint64_t seen[2];  /* captures holding this copy: pass 1, pass 2 */
	uint8_t chosen;    /* the capture whose copy the accountant gets: the last in time */
	bool fed;          /* pass 2: a copy went to the accountant */
	uint32_t val;      /* a QP's entry (QP_OP): its index in ev->qps + 1; a MAC's (MAC_OP): its
			    * host's index + 1 when a capture was taken at that host */
	bool used;
	uint8_t f0;        /* pass 0 (clocks): the file of its first copy, and that copy's time */
	uint64_t t0;
};

struct dmap {
	struct dent *e;
	size_t cap, n;
};

static uint64_t dhash(const struct dkey *k)
{
	const uint8_t *p = (const uint8_t *)k;
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < sizeof(*k); i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

static int dmap_grow(struct dmap *m)
{
	size_t ncap = m->cap ? 2 * m->cap : 4096;
	struct dent *ne = calloc(ncap, sizeof(*ne));
	if (!ne)
		return -1;
	for (size_t i = 0; i < m->cap; i++)
		if (m->e[i].used)
			for (size_t j = dhash(&m->e[i].k) & (ncap - 1);; j = (j + 1) & (ncap - 1))
				if (!ne[j].used) {
					ne[j] = m->e[i];
					break;
				}
	free(m->e);
	m->e = ne;
	m->cap = ncap;
	return 0;
}

static struct dent *dmap_get(struct dmap *m, const struct dkey *k)
{
	if (2 * (m->n + 1) > m->cap && dmap_grow(m))
		return NULL;
	for (size_t j = dhash(k) & (m->cap - 1);; j = (j + 1) & (m->cap - 1)) {
		if (!m->e[j].used) {
			m->e[j] = (struct dent){.k = *k, .used = true};
			m->n++;
			return &m->e[j];
		}
		if (memcmp(&m->e[j].k, k, sizeof(*k)) == 0)
			return &m->e[j];
	}
}

static bool is_roce(const struct rp_frame *f)
{
	return (f->kind == RP_KIND_ROCE || f->kind == RP_KIND_CNP) && (f->l3 == 4 || f->l3 == 6);
}

static void key_of(const struct rp_frame *f, struct dkey *k)
{
	memset(k, 0, sizeof(*k));
	k->l3 = f->l3;
	k->op = f->bth.opcode;
	k->dqpn = f->bth.dqpn;
	k->psn = f->bth.psn;
	if (f->l3 == 4) {
		memcpy(k->src, &f->ip4.src, 4);
		memcpy(k->dst, &f->ip4.dst, 4);
	} else {
		memcpy(k->src, f->ip6.src, 16);
		memcpy(k->dst, f->ip6.dst, 16);
	}
}

/* The copy of f at capture c: its entry, and whether it is the first copy
 * anywhere (*first). NULL: out of memory. */
static struct dent *copy_of(struct dmap *m, const struct rp_frame *f, size_t c, int pass, bool *first)
{
	struct dkey k;
	key_of(f, &k);
	for (;; k.occ++) {
		struct dent *e = dmap_get(m, &k);
		if (!e)
			return NULL;
		if (e->seen[pass] & (1ull << c))
			continue;
		*first = e->seen[pass] == 0;
		e->seen[pass] |= 1ull << c;
		return e;
	}
}

/* The captures, read side by side in time order: each file's times with
 * its clock's offset added (0 until the clocks are aligned). */
struct merge {
	struct rp_pcap_reader r[RP_REPLAY_MAX_CAPTURES];
	struct pcap_pkthdr *h[RP_REPLAY_MAX_CAPTURES];
	const u_char *d[RP_REPLAY_MAX_CAPTURES];
	bool live[RP_REPLAY_MAX_CAPTURES];
	int64_t off[RP_REPLAY_MAX_CAPTURES];
	size_t n;
};

/* File i's current frame's time on the reference clock. */
static uint64_t merge_t(const struct merge *m, size_t i)
{
	int64_t t = (int64_t)rp_pcap_ts_ns(m->h[i]) + m->off[i];
	return t > 0 ? (uint64_t)t : 0;
}

static int merge_advance(struct merge *m, size_t i, char *err, size_t errlen)
{
	int rc = rp_pcap_reader_next(&m->r[i], &m->h[i], &m->d[i], err, errlen);
	if (rc < 0)
		return -1;
	m->live[i] = rc == 1;
	return 0;
}

static int merge_start(struct merge *m, char *err, size_t errlen)
{
	for (size_t i = 0; i < m->n; i++)
		if (merge_advance(m, i, err, errlen))
			return -1;
	return 0;
}

/* The capture whose frame is next; -1 at the end of all. */
static long merge_next(const struct merge *m)
{
	long best = -1;
	for (size_t i = 0; i < m->n; i++)
		if (m->live[i] && (best < 0 || merge_t(m, i) < merge_t(m, (size_t)best)))
			best = (long)i;
	return best;
}

static int merge_rewind(struct merge *m, char *err, size_t errlen)
{
	for (size_t i = 0; i < m->n; i++)
		if (rp_pcap_reader_rewind(&m->r[i], err, errlen))
			return -1;
	return merge_start(m, err, errlen);
}

static void merge_close(struct merge *m)
{
	for (size_t i = 0; i < m->n; i++)
		rp_pcap_reader_close(&m->r[i]);
	m->n = 0;
}

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
	return dmap_get(m, &k);
}

static struct rp_replay_qp *qp_of(struct rp_replay_evidence *ev, struct dmap *m, const struct rp_frame *f)
{
	struct dkey k;
	key_of(f, &k);
	k.op = QP_OP;
	k.psn = 0;
	struct dent *e = dmap_get(m, &k);
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
	return q;
}

static void span_end(struct rp_replay_qp *q, uint64_t bytes)
{
	q->spans++;
	q->span_min = bytes < q->span_min ? bytes : q->span_min;
	q->span_max = bytes > q->span_max ? bytes : q->span_max;
	q->span_open = false;
}

/* A data frame's first copy: what its QP sent. */
static void qp_account(struct rp_replay_qp *q, const struct rp_frame *f, uint64_t t, size_t wire_len, bool resend,
		       bool sampled)
{
	uint8_t op = f->bth.opcode;
	if (!resend && !op_first(op) && !op_middle(op))
		q->messages++;
	q->ops |= 1u << op;
	uint64_t bits = ((uint64_t)wire_len + 24) * 8;
	if (!q->frames)
		q->first_ns = t;
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

/* The capture's host: the MAC in every one of its RoCE frames (cand). Of two
 * (a capture of one host pair), the one the frames show it at: the source
 * where its copy is a frame's first, the destination where it is a later one
 * (a frame is captured at its sender before its receiver); a tie goes to
 * the one no other capture is of. */
struct point {
	uint8_t cand[2][6];
	uint64_t score[2];
	int ncand; /* -1: no RoCE frame yet */
};

static void point_see(struct point *p, const struct rp_frame *f, bool first)
{
	if (p->ncand < 0) {
		memcpy(p->cand[0], f->eth.src, 6);
		memcpy(p->cand[1], f->eth.dst, 6);
		p->ncand = 2;
	}
	int k = 0;
	for (int i = 0; i < p->ncand; i++) {
		bool src = !memcmp(p->cand[i], f->eth.src, 6), dst = !memcmp(p->cand[i], f->eth.dst, 6);
		if (!src && !dst)
			continue;
		memmove(p->cand[k], p->cand[i], 6);
		p->score[k++] = p->score[i] + ((src && first) || (dst && !first));
	}
	p->ncand = k;
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
	if (!is_roce(&f))
		return 0;
	cap->roce++;
	file->roce++;
	ev->roce_copies++;
	bool first;
	struct dent *e = copy_of(m, &f, c, 0, &first);
	if (!e)
		return -1;
	point_see(pt, &f, first);
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
	qp_account(q, &f, t, h->len, resend, ev->sampled > 1);
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
	if (is_roce(&f)) {
		/* counted where it arrived: at its destination's capture, if there is one (not
		 * there: lost on the way), else the copy furthest along */
		struct dent *at = mac_entry(m, f.eth.dst);
		if (!at)
			return -1;
		uint32_t dst = at->val; /* its host + 1 when captured there */
		bool first;
		struct dent *e = copy_of(m, &f, c, 1, &first);
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

/* Clocks (pass 0). A frame seen at files a and b at times ta and tb (on
 * their own clocks) gives x = tb - ta = d + theta, theta the offset of b's
 * clock from a's and d the frame's delay from a to b: d > 0 when a is nearer
 * its sender (its host sent it, or b's host received it), d < 0 the other
 * way. So theta <= min x of the first kind (up) and >= max x of the second
 * (lo); as NTP does, theta = (up + lo) / 2, within (up - lo) / 2, when
 * [lo, up] excludes 0 (a frame would arrive before it left on one clock);
 * when it holds 0 the clocks are taken as one, within max(up, -lo). Frames
 * one way only bound theta on one side: the clocks are kept as one unless
 * that bound excludes it. */
struct xagg {
	uint8_t a, b;       /* files, a < b */
	uint8_t src[6], dst[6];
	int64_t min, max;
	uint64_t n;
	size_t next;        /* the pair's next aggregate + 1; 0: none */
};

struct clocks {
	struct xagg *x;
	size_t n, cap;
	size_t head[RP_REPLAY_MAX_CAPTURES * RP_REPLAY_MAX_CAPTURES]; /* a pair's first aggregate + 1 */
	struct point host[RP_REPLAY_MAX_CAPTURES]; /* each file's MACs in every RoCE frame */
	uint64_t first[RP_REPLAY_MAX_CAPTURES], last_t[RP_REPLAY_MAX_CAPTURES], frames[RP_REPLAY_MAX_CAPTURES];
};

static int clocks_add(struct clocks *k, size_t a, size_t b, int64_t x, const struct rp_frame *f)
{
	if (a > b) {
		size_t t = a;
		a = b;
		b = t;
		x = -x;
	}
	size_t *head = &k->head[a * RP_REPLAY_MAX_CAPTURES + b];
	struct xagg *g = NULL;
	for (size_t i = *head; i && !g; i = k->x[i - 1].next)
		if (!memcmp(k->x[i - 1].src, f->eth.src, 6) && !memcmp(k->x[i - 1].dst, f->eth.dst, 6))
			g = &k->x[i - 1];
	if (!g) {
		if (k->n == k->cap) {
			size_t nc = k->cap ? 2 * k->cap : 64;
			struct xagg *nx = realloc(k->x, nc * sizeof(*nx));
			if (!nx)
				return -1;
			k->x = nx;
			k->cap = nc;
		}
		g = &k->x[k->n];
		*g = (struct xagg){.a = (uint8_t)a, .b = (uint8_t)b, .min = x, .max = x, .next = *head};
		memcpy(g->src, f->eth.src, 6);
		memcpy(g->dst, f->eth.dst, 6);
		*head = ++k->n;
	}
	g->min = x < g->min ? x : g->min;
	g->max = x > g->max ? x : g->max;
	g->n++;
	return 0;
}

static int clocks_read(struct rp_replay_evidence *ev, struct merge *mg, struct clocks *k, char *err, size_t errlen)
{
	struct dmap m = {0};
	int rc = -1;
	for (size_t i = 0; i < ev->nfiles; i++)
		k->host[i].ncand = -1;
	long c;
	while ((c = merge_next(mg)) >= 0) {
		uint64_t t = merge_t(mg, (size_t)c);
		if (!k->frames[c]++)
			k->first[c] = t;
		k->last_t[c] = t;
		struct rp_frame f;
		rp_frame_parse(mg->d[c], mg->h[c]->caplen, mg->h[c]->len, &f);
		if (is_roce(&f)) {
			point_see(&k->host[c], &f, false);
			bool first;
			struct dent *e = copy_of(&m, &f, (size_t)c, 0, &first);
			if (!e)
				goto oom;
			if (first) {
				e->f0 = (uint8_t)c;
				e->t0 = t;
			} else if (clocks_add(k, e->f0, (size_t)c, (int64_t)(t - e->t0), &f)) {
				goto oom;
			}
		}
		if (merge_advance(mg, (size_t)c, err, errlen))
			goto out;
	}
	rc = 0;
	goto out;
oom:
	snprintf(err, errlen, "out of memory matching the captures' frames");
out:
	free(m.e);
	return rc;
}

/* The MAC of file i's host, when every RoCE frame of it has one MAC in
 * common (a host's capture); NULL for a mirror's or one host pair's. */
static const uint8_t *clocks_host(const struct clocks *k, size_t i)
{
	return k->host[i].ncand == 1 ? k->host[i].cand[0] : NULL;
}

/* Neither file's host known (each a capture of one host pair, both MACs in
 * every frame): with frames from two sources X and Y, either X is on a's
 * side (theta in [max x of Y's, min x of X's]) or on b's; the one of the two
 * that holds (the wider interval) is taken. false: not two sources. */
static bool clocks_pair_unnamed(const struct clocks *k, size_t a, size_t b, int64_t *up, int64_t *lo, uint64_t *n)
{
	const uint8_t *mac[2] = {NULL, NULL};
	int64_t mn[2] = {0, 0}, mx[2] = {0, 0};
	*n = 0;
	for (size_t i = k->head[a * RP_REPLAY_MAX_CAPTURES + b]; i; i = k->x[i - 1].next) {
		const struct xagg *g = &k->x[i - 1];
		int s = mac[0] && !memcmp(mac[0], g->src, 6) ? 0 : mac[1] && !memcmp(mac[1], g->src, 6) ? 1 : -1;
		if (s < 0) {
			if (mac[1])
				return false; /* a third source: not one host pair */
			s = mac[0] ? 1 : 0;
			mac[s] = g->src;
			mn[s] = g->min;
			mx[s] = g->max;
		}
		mn[s] = g->min < mn[s] ? g->min : mn[s];
		mx[s] = g->max > mx[s] ? g->max : mx[s];
		*n += g->n;
	}
	if (!mac[1])
		return false;
	bool x_at_a = mn[0] - mx[1] >= mn[1] - mx[0];
	*up = x_at_a ? mn[0] : mn[1];
	*lo = x_at_a ? mx[1] : mx[0];
	return true;
}

/* theta of b's clock from a's (x = tb - ta), from their frames. false: no
 * frame tells the direction. */
static bool clocks_pair(const struct clocks *k, size_t a, size_t b, int64_t *theta, int64_t *res, uint64_t *n)
{
	const uint8_t *ha = clocks_host(k, a < b ? a : b), *hb = clocks_host(k, a < b ? b : a);
	bool has_up = false, has_lo = false;
	int64_t up = 0, lo = 0;
	*n = 0;
	for (size_t i = k->head[(a < b ? a : b) * RP_REPLAY_MAX_CAPTURES + (a < b ? b : a)]; i; i = k->x[i - 1].next) {
		const struct xagg *g = &k->x[i - 1];
		bool fwd = (ha && !memcmp(g->src, ha, 6)) || (hb && !memcmp(g->dst, hb, 6));
		bool bwd = (hb && !memcmp(g->src, hb, 6)) || (ha && !memcmp(g->dst, ha, 6));
		if (fwd == bwd)
			continue;
		*n += g->n;
		if (fwd && (!has_up || g->min < up))
			up = g->min;
		if (bwd && (!has_lo || g->max > lo))
			lo = g->max;
		has_up = has_up || fwd;
		has_lo = has_lo || bwd;
	}
	if (!has_up && !has_lo && !clocks_pair_unnamed(k, a < b ? a : b, a < b ? b : a, &up, &lo, n))
		return false;
	if (!has_up && !has_lo)
		has_up = has_lo = true;
	if (has_up && has_lo) {
		/* one clock when the frames allow it (a lab's, PTP-synchronised hosts'): NTP's
		 * midpoint assumes the fastest frames each way took as long, which congestion
		 * on one way only (an incast's data against its CNPs) belies by microseconds */
		*theta = lo <= 0 && up >= 0 ? 0 : (up + lo) / 2;
		*res = up - *theta > *theta - lo ? up - *theta : *theta - lo;
		*res = *res < 0 ? -*res : *res;
	} else {
		/* one way: theta is only bounded on one side; the clocks are kept as one unless
		 * the frames arrive before they left, then moved by no more than that (the fastest
		 * frame taken as taking no time): not bounded */
		*theta = has_up ? (up < 0 ? up : 0) : (lo > 0 ? lo : 0);
		*res = -1;
	}
	if (a > b)
		*theta = -*theta;
	return true;
}

/* Each file's offset to the first file's clock, through the files it shares
 * frames with (nearest first). A file that shares none: its clock taken as
 * the reference's when its times overlap the aligned files', else -1 (one
 * line in err: the evidence of another time). */
static int align(struct rp_replay_evidence *ev, struct merge *mg, char *err, size_t errlen)
{
	struct clocks *k = calloc(1, sizeof(*k));
	int rc = -1;
	if (!k) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (clocks_read(ev, mg, k, err, errlen) || merge_rewind(mg, err, errlen))
		goto out;
	ev->files[0].aligned = true;
	for (bool more = true; more;) {
		more = false;
		for (size_t b = 0; b < ev->nfiles; b++) {
			if (ev->files[b].aligned)
				continue;
			for (size_t a = 0; a < ev->nfiles && !ev->files[b].aligned; a++) {
				int64_t theta, res;
				uint64_t n;
				if (!ev->files[a].aligned || !clocks_pair(k, a, b, &theta, &res, &n))
					continue;
				struct rp_replay_file *fb = &ev->files[b], *fa = &ev->files[a];
				fb->aligned = more = true;
				fb->via = (int)a;
				fb->offset_ns = fa->offset_ns - theta;
				fb->residual_ns = res < 0 || fa->residual_ns < 0 ? -1 : fa->residual_ns + res;
				fb->pairs = n;
			}
		}
	}
	uint64_t lo = UINT64_MAX, hi = 0;
	for (size_t i = 0; i < ev->nfiles; i++)
		if (ev->files[i].aligned && k->frames[i]) {
			int64_t o = ev->files[i].offset_ns;
			lo = (uint64_t)((int64_t)k->first[i] + o) < lo ? (uint64_t)((int64_t)k->first[i] + o) : lo;
			hi = (uint64_t)((int64_t)k->last_t[i] + o) > hi ? (uint64_t)((int64_t)k->last_t[i] + o) : hi;
		}
	for (size_t i = 0; i < ev->nfiles; i++) {
		if (ev->files[i].aligned || !k->frames[i])
			continue;
		if (k->last_t[i] < lo || k->first[i] > hi) {
			snprintf(err, errlen, "%s: no frame in common with the other captures and its times (%.6f..%.6f s) do "
				 "not overlap theirs (%.6f..%.6f s): evidence of another time, or clocks apart",
				 ev->files[i].path, (double)k->first[i] / 1e9, (double)k->last_t[i] / 1e9, (double)lo / 1e9,
				 (double)hi / 1e9);
			goto out;
		}
	}
	for (size_t i = 0; i < ev->nfiles; i++)
		mg->off[i] = ev->files[i].offset_ns;
	rc = 0;
out:
	free(k->x);
	free(k);
	return rc;
}

static int pass1(struct rp_replay_evidence *ev, struct merge *mg, struct dmap *m, struct point *pts, char *err,
		 size_t errlen)
{
	for (size_t i = 0; i < ev->nfiles; i++) /* points in the files' order (their first frames') */
		if (mg->live[i] && point_of(ev, pts, mg, i, err, errlen) < 0)
			return -1;
	long f;
	while ((f = merge_next(mg)) >= 0) {
		uint64_t t = merge_t(mg, (size_t)f);
		long c = point_of(ev, pts, mg, (size_t)f, err, errlen);
		if (c < 0)
			return -1;
		if (pass1_frame(ev, m, &pts[c], (size_t)c, t, mg->d[f], mg->h[f])) {
			snprintf(err, errlen, "out of memory matching the captures' frames");
			return -1;
		}
		if (merge_advance(mg, (size_t)f, err, errlen))
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
		if (!fl->roce) {
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
	if (!ev->acct || merge_rewind(mg, err, errlen))
		return -1;
	long f;
	while ((f = merge_next(mg)) >= 0) {
		long c = point_of(ev, pts, mg, (size_t)f, err, errlen);
		if (c < 0)
			return -1;
		if (pass2_frame(ev, m, (size_t)c, merge_t(mg, (size_t)f), mg->d[f], mg->h[f])) {
			snprintf(err, errlen, "out of memory matching the captures' frames");
			return -1;
		}
		if (merge_advance(mg, (size_t)f, err, errlen))
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
	if (merge_start(mg, err, errlen) || (n > 1 && align(ev, mg, err, errlen)) ||
	    pass1(ev, mg, &m, pts, err, errlen) || name_hosts(ev, fabric, pts, err, errlen))
		goto out;
	if (ev->sampled > 1)
		sampled_scale(ev);
	if (pass2(ev, mg, &m, pts, opts->speed_bps, err, errlen))
		goto out;
	rc = 0;
out:
	if (mg)
		merge_close(mg);
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
	for (size_t i = 0; i < ev->nqps; i++)
		free(ev->qps[i].pt);
	free(ev->hosts);
	free(ev->qps);
	ev->acct = NULL;
	ev->hosts = NULL;
	ev->qps = NULL;
	ev->nhosts = ev->nqps = 0;
}
