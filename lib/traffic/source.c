/* The packet source: pick the earliest due flow, copy its template, stamp. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source_internal.h"
#include "wire/bytes.h"
#include "wire/bth.h"
#include "wire/probe.h"

#define RP_CATCHUP_PACKETS 32

/* max(catchup, the time of 32 of the flow's largest packets). */
static uint64_t lag_allowance(const struct rp_flow *f, uint64_t catchup)
{
	uint64_t g = 0;
	for (int k = 0; k < RP_PKT_KINDS; k++)
		g = f->pace.gap_ns[k] > g ? f->pace.gap_ns[k] : g;
	g = (g + 1) * RP_CATCHUP_PACKETS;
	return g > catchup ? g : catchup;
}

/* Kind t's shape (0: none): its frame long enough to gain, all zeros from
 * its head to its ICRC (from tail_off on they are by construction). */
static uint8_t shape_of(struct rp_source *s, const struct rp_tkind *t)
{
	if (!t->frame || t->len <= RP_SOURCE_SHAPE_MIN)
		return 0;
	for (size_t i = t->head; i < (t->tail_off ? t->tail_off : t->icrc_off); i++)
		if (t->frame[i])
			return 0;
	for (unsigned i = 0; i < s->nshapes; i++)
		if (s->shapes[i].len == t->len && s->shapes[i].head == t->head)
			return (uint8_t)(i + 1);
	if (s->nshapes == RP_SOURCE_SHAPES)
		return 0;
	s->shapes[s->nshapes++] = (struct rp_source_shape){.len = t->len, .head = t->head};
	return (uint8_t)s->nshapes;
}

static int flow_init(struct rp_source *s, const struct rp_plan *plan, const struct rp_flow *f, struct rp_sflow *sf,
		     const struct rp_source_opts *o, char *err, size_t errlen)
{
	sf->cfg = f->pace;
	sf->cfg.start_ns += o->time0_ns;
	if (sf->cfg.end_ns != UINT64_MAX)
		sf->cfg.end_ns += o->time0_ns;
	if (sf->cfg.nphases)
		sf->cfg.stop_ns += o->time0_ns;
	rp_pace_init(&sf->cfg, &sf->pace);
	sf->is_pfc = f->kind == RP_TRAFFIC_PFC;
	sf->prio_bit = sf->is_pfc ? 0 : (uint8_t)(1u << f->prio);
	sf->flow_id = f->id;
	sf->nh = f->nh;
	sf->qps = sf->is_pfc ? 1 : f->p.qps;
	sf->lag_ns = lag_allowance(f, o->catchup_ns ? o->catchup_ns : RP_SOURCE_CATCHUP_NS);
	sf->psn = calloc(sf->qps, sizeof(*sf->psn));
	sf->msn = calloc(sf->qps, sizeof(*sf->msn));
	if (!sf->psn || !sf->msn) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (unsigned q = 0; q < sf->qps; q++)
		sf->psn[q] = f->p.psn_start & RP_PSN_MASK;
	if (rp_tmpl_build(s, plan, f, sf, err, errlen))
		return -1;
	for (int k = 0; k < RP_PKT_KINDS; k++) {
		if (sf->kinds[k].len > s->max_frame)
			s->max_frame = sf->kinds[k].len;
		if (!sf->is_pfc)
			sf->kinds[k].shape = shape_of(s, &sf->kinds[k]);
	}
	return 0;
}

struct rp_source *rp_source_create_flows(const struct rp_plan *plan, const uint32_t *flow_ids, size_t nflows,
					 const struct rp_source_opts *opts, char *err, size_t errlen)
{
	struct rp_source_opts o = opts ? *opts : (struct rp_source_opts){0};
	struct rp_source *s = calloc(1, sizeof(*s));
	if (!s || !(s->flows = calloc(nflows + 1, sizeof(*s->flows))) ||
	    !(s->active = calloc(nflows + 1, sizeof(*s->active)))) {
		snprintf(err, errlen, "out of memory");
		rp_source_destroy(s);
		return NULL;
	}
	for (size_t i = 0; i < nflows; i++) {
		if (flow_ids[i] >= plan->nflows) {
			snprintf(err, errlen, "flow %u is not in the plan", flow_ids[i]);
			rp_source_destroy(s);
			return NULL;
		}
		s->nflows = i + 1;
		if (flow_init(s, plan, &plan->flows[flow_ids[i]], &s->flows[i], &o, err, errlen)) {
			rp_source_destroy(s);
			return NULL;
		}
		if (!s->flows[i].pace.done)
			s->active[s->nactive++] = &s->flows[i];
	}
	return s;
}

struct rp_source *rp_source_create(const struct rp_plan *plan, unsigned host_idx, const struct rp_source_opts *opts,
				   char *err, size_t errlen)
{
	uint32_t *ids = calloc(plan->nflows + 1, sizeof(*ids));
	if (!ids) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	size_t n = 0;
	for (size_t i = 0; i < plan->nflows; i++)
		if (plan->flows[i].src == host_idx)
			ids[n++] = (uint32_t)i;
	struct rp_source *s = rp_source_create_flows(plan, ids, n, opts, err, errlen);
	free(ids);
	return s;
}

static bool same_hop(const struct rp_next_hop *nh, uint8_t l3, uint32_t ip4, const uint8_t ip6[16])
{
	if (nh->l3 != l3 || (nh->mac_from != RP_MAC_FROM_ARP && nh->mac_from != RP_MAC_FROM_ND))
		return false;
	return l3 == 4 ? nh->ip4 == ip4 : !memcmp(nh->ip6, ip6, 16);
}

/* The destination MAC is outside the ICRC (it starts at the IP header): the
 * templates' first six bytes change and nothing else. */
unsigned rp_source_set_next_hop_mac(struct rp_source *s, uint8_t l3, uint32_t ip4, const uint8_t ip6[16],
				    const uint8_t mac[6])
{
	unsigned moved = 0;
	for (size_t i = 0; i < s->nflows; i++) {
		struct rp_sflow *sf = &s->flows[i];
		if (sf->is_pfc || !same_hop(&sf->nh, l3, ip4, ip6))
			continue;
		memcpy(sf->nh.mac, mac, 6);
		for (int k = 0; k < RP_PKT_KINDS; k++) {
			if (!sf->kinds[k].frame)
				continue;
			memcpy(sf->kinds[k].frame, mac, 6);
			for (unsigned q = 0; q < sf->qps; q++)
				memcpy(rp_sflow_hdr(sf, q, (enum rp_pkt_kind)k)->bytes, mac, 6);
		}
		moved++;
	}
	return moved;
}

void rp_source_destroy(struct rp_source *s)
{
	if (!s)
		return;
	for (size_t i = 0; s->flows && i < s->nflows; i++)
		rp_tmpl_free(&s->flows[i]);
	free(s->flows);
	free(s->active);
	rp_patch_cache_free(&s->patches);
	free(s);
}

/* Constant-size copies compile to a few vector moves, where a memcpy of a
 * length known only at run time is a call; the slack makes the overrun safe. */
static inline void copy_blocks(uint8_t *dst, const uint8_t *src, size_t len)
{
	for (size_t i = 0; i < len; i += RP_COPY_BLOCK)
		memcpy(dst + i, src + i, RP_COPY_BLOCK);
}

/* The payload: the template's, or its head and then zeros (not written
 * when zeroed: the buffer holds them already). The head's block slack is the
 * template's zeros, so it leaves the tail zero either way. */
static inline void copy_payload(uint8_t *buf, const uint8_t *frame, uint16_t hdr_len, uint16_t tail_off, uint16_t len,
				bool zeroed)
{
	if (!tail_off) {
		copy_blocks(buf + hdr_len, frame + hdr_len, (size_t)(len - hdr_len));
		return;
	}
	copy_blocks(buf + hdr_len, frame + hdr_len, (size_t)(tail_off - hdr_len));
	if (!zeroed)
		copy_blocks(buf + tail_off, rp_tmpl_zeros, (size_t)(len - tail_off));
}

/* A kind whose frame is zeros from tail_off up to its ICRC, the frame's last
 * four bytes: what the zero-tail skip of rp_source_flow_burst_zeroed needs. */
static inline bool zero_tail(const struct rp_tkind *t)
{
	return t->tail_off && t->tail_off <= t->icrc_off && t->icrc_off + 4u == t->len;
}

/* Whether the buffer's known zeros cover t's tail; then what is zero after t
 * is written into it (f->zlo, f->zhi, the out half of the hint). */
static inline bool zero_hint(struct rp_sflow *f, const struct rp_tkind *t)
{
	if (!f->zhint)
		return false;
	bool z = zero_tail(t) && f->zlo <= t->tail_off && f->zhi >= t->icrc_off;
	f->zlo = zero_tail(t) ? t->tail_off : 0;
	f->zhi = zero_tail(t) ? t->icrc_off : 0;
	return z;
}

/* The per-packet path: the QP's header and the kind's payload copied, then a
 * few stores and table look-ups; ts is the packet's stamp (stamp_of). */
static inline uint16_t emit_roce(struct rp_sflow *f, enum rp_pkt_kind k, uint8_t *buf, uint64_t ts, bool kept)
{
	const struct rp_tkind *t = &f->kinds[k];
	const struct rp_qhdr *h = rp_sflow_hdr(f, f->qp, k);
	copy_blocks(buf, h->bytes, t->hdr_len);
	if (kept) /* the buffer holds the shape's zeros: the head only */
		copy_blocks(buf + t->hdr_len, t->frame + t->hdr_len, (size_t)(t->head - t->hdr_len));
	else
		copy_payload(buf, t->frame, t->hdr_len, t->tail_off, t->len, zero_hint(f, t));
	uint32_t icrc = h->icrc;
	uint32_t *psn = &f->psn[f->qp];
	rp_put_be24(buf + t->psn_off, *psn);
	icrc ^= rp_icrc_patch_delta24(t->psn_p, rp_get_be24(h->bytes + t->psn_off) ^ *psn);
	*psn = (*psn + 1) & RP_PSN_MASK;
	if (t->msn_p) {
		uint32_t msn = (f->msn[f->qp] + (k != RP_PKT_FIRST)) & 0xFFFFFF;
		rp_put_be24(buf + t->msn_off, msn);
		icrc = rp_icrc_patch_apply(t->msn_p, icrc, h->bytes + t->msn_off, buf + t->msn_off);
	}
	if (t->probe_off) {
		uint8_t *seq = buf + t->probe_off + RP_PROBE_SEQ_OFFSET, *tsp = buf + t->probe_off + RP_PROBE_TS_OFFSET;
		const uint8_t *tseq = t->frame + t->probe_off + RP_PROBE_SEQ_OFFSET;
		rp_put_be64(seq, f->seq);
		rp_put_be64(tsp, ts);
		icrc ^= rp_icrc_patch_delta64(t->seq_p, rp_get_be64(tseq) ^ f->seq++);
		icrc ^= rp_icrc_patch_delta64(t->ts_p, rp_get_be64(tseq + 8) ^ ts);
	}
	rp_icrc_store(buf + t->icrc_off, icrc);
	f->tx_payload += t->payload;
	if (k == RP_PKT_LAST || k == RP_PKT_ONLY) {
		f->msn[f->qp]++;
		f->qp = (uint16_t)(f->qp + 1 == f->qps ? 0 : f->qp + 1);
	}
	return t->len;
}

/* A packet's tx_ns: its due time on the flow's schedule, or floor when that
 * is later (the lab: the virtual time its NIC puts it on the wire). The
 * source emits a packet only once it is due (due <= now), and a flow more
 * than its lag allowance behind restarts at now (rp_pace_catch_up): with
 * floor 0 the stamp is in [now - allowance, now]. */
static inline uint64_t stamp_of(uint64_t due, uint64_t floor)
{
	return due > floor ? due : floor;
}

static inline uint16_t emit(struct rp_sflow *f, uint8_t *buf, uint64_t floor, bool kept)
{
	enum rp_pkt_kind k = rp_pace_kind(&f->cfg, &f->pace);
	uint16_t len;
	if (f->is_pfc) {
		len = f->kinds[RP_PKT_ONLY].len;
		memcpy(buf, f->kinds[RP_PKT_ONLY].frame, len);
		f->zlo = f->zhi = 0;
	} else {
		len = emit_roce(f, k, buf, stamp_of(f->pace.due_ns, floor), kept);
	}
	f->tx_packets++;
	f->tx_bytes += len;
	rp_pace_step(&f->cfg, &f->pace, k);
	rp_pace_phase_check(&f->cfg, &f->pace);
	return len;
}

/* Frames up to this size are staged whole once per run (header and payload)
 * and then copied in one piece. */
#define RP_STAGE_MAX 256
_Static_assert(RP_STAGE_MAX <= RP_TMPL_WHOLE, "staged frames are kept whole in their templates");
/* Frames of (RP_SMALL_FRAME - RP_COPY_BLOCK, RP_SMALL_FRAME] bytes (a SEND
 * carrying just the probe) are copied with one constant-size copy, which
 * the buffers' RP_COPY_BLOCK slack covers. */
#define RP_SMALL_FRAME (3 * RP_COPY_BLOCK)
_Static_assert(RP_SMALL_FRAME == 6 * 16, "run_loop holds a small frame in six 16-byte registers");
typedef uint8_t rp_v16 __attribute__((vector_size(16)));

/* Whether a small stage of copy_len bytes needs its sixth vector stored:
 * bytes from 80 on that the ICRC store does not cover. */
static inline bool small_tail(uint16_t copy_len, uint16_t icrc_off, uint16_t len)
{
	return copy_len > 80 && !(icrc_off <= 80 && icrc_off + 4 >= len);
}

struct run_state {
	const uint8_t *stage, *hdr, *frame;
	uint16_t hdr_len, tail_off, len, copy_len, psn_off, icrc_off, seq_off, ts_off;
	bool zeroed; /* unstaged: the one buffer's zero tail is there already */
	const struct rp_icrc_patch *psn_p, *seq_p, *ts_p;
	uint32_t base, tpsn, psn;
	uint32_t psn_top; /* the header's byte before the PSN (BTH A and reserved bits), << 24 */
	uint64_t tseq, tts, seq;
};

/* emit_run's per-packet loop: the TX fast path. Each trick below was kept
 * for a gain measured with tools/bench/tx.sh (gen vs dpdk-testpmd txonly,
 * 82 B frames, net_null, one TX core; the Mpps are from the commit that
 * added it, alternating A/B runs on this 2-core machine; measure again with
 * tools/bench/tx.sh before changing any of them):
 * 1. Runs (8cd9d41): packets of one kind on one QP are filled in one loop,
 *    the header staged once per run, counters added once: 44.4 -> 53.4.
 * 2. Pacing in registers (6d3ba1d, 45ef4b0): pacing is continuous here
 *    (emit_run's precondition), so a step is rp_pace_advance alone on due
 *    and rem held in locals; where the flow stops inside the run is known
 *    in advance (a packet or message count bounds the run, a duration
 *    bounds the due time like the limit does), and the counters and the
 *    stop check are settled once after the loop, as rp_pace_step would
 *    have left them: ~78 -> 85.8.
 * 3. Low-byte ICRC look-ups (cf21554): the PSN and seq ICRC deltas of the
 *    bytes above the lowest are cached and redone once in 256 packets:
 *    85.6 -> 87.4.
 * 4. A small frame in registers (45ef4b0, c86c370): a staged frame of
 *    65..96 B is loaded into six vectors once per run and stored per packet
 *    without reloads (stores into buf could alias the stage); when the
 *    ICRC store covers the bytes from 80 on, the sixth vector is not stored:
 *    82.9 -> 91.4.
 * 5. probe_icrc_tail (a812eac): the instance for the common 82 B SEND ONLY
 *    (a probe seq, and an ICRC store covering the frame's tail) with both
 *    known at compile time, so neither is tested per packet: 94.0 -> 95.9.
 * 6. Lengths after the loop (1e6ce06): a run's lengths are all equal and
 *    are stored eight per 16-byte store after the loop: 98.0 -> 98.9.
 * 7. The 82 B layout's offsets as constants (fixed82: IPv4, SEND ONLY, the
 *    probe; chosen only where the run's own offsets are exactly these, so
 *    nothing differs but the registers they no longer take): 1.04-1.28x,
 *    median 1.09x, 4 alternating pairs with DPDK linked statically. Since
 *    82 B frames are kept (RP_SOURCE_SHAPE_MIN 64) their head is 78 B: the
 *    same instance, 1.06x (6 alternating pairs, 2026-12-02). FIXED_HEAD: the
 *    same head in a kept frame of any length (1026 B: only the length and
 *    the ICRC's place stay in registers; the loop still spills some):
 *    1.045x at 1026 B, 8 alternating pairs, every one faster.
 * Re-measured 2026-12-01 on a busy machine (gen and testpmd both near 42
 * Mpps), 22 alternating 2 s runs each: all six 39.3 Mpps median; without 5
 * 37.7, without 6 38.2. Both still gain, but inside the noise (quartiles
 * 37.6 .. 41.3): kept until a quiet machine says otherwise.
 * Instantiated for staged and unstaged frames (the flags are constants at
 * each call site). */
/* Which of a run's offsets are constants (trick 7). */
enum run_fixed {
	FIXED_NONE,
	FIXED_HEAD, /* the IPv4 SEND ONLY probe head: PSN 51, seq 62, stamp 70 */
	FIXED_82,   /* that head in an 82 B frame: its length and ICRC (78) too */
};

static inline __attribute__((always_inline)) unsigned run_loop(struct rp_sflow *f, enum rp_pkt_kind k,
							       struct run_state *r, uint8_t *const bufs[],
							       uint16_t lens[], unsigned run, uint64_t limit,
							       uint64_t floor, const bool staged, const bool small,
							       const bool probe_icrc_tail, const enum run_fixed fixed)
{
	const struct rp_pace_cfg *c = &f->cfg;
	const bool head = fixed != FIXED_NONE, fixed82 = fixed == FIXED_82;
	const uint16_t len = fixed82 ? 82 : r->len, psn_off = head ? 51 : r->psn_off,
		       icrc_off = fixed82 ? 78 : r->icrc_off, seq_off = head ? 62 : r->seq_off,
		       ts_off = head ? 70 : r->ts_off, hdr_len = r->hdr_len;
	const struct rp_icrc_patch *psn_p = r->psn_p, *seq_p = r->seq_p, *ts_p = r->ts_p;
	const uint32_t base = r->base, tpsn = r->tpsn, psn_top = r->psn_top;
	const uint64_t tseq = r->tseq, tts = r->tts;
	uint32_t psn = r->psn;
	uint64_t seq = r->seq;
	struct rp_pace p = f->pace;
	/* ONLY: every packet is a whole message. MIDDLE: the run ends before
	 * the message's LAST packet, so no message completes in it. */
	const bool only = k == RP_PKT_ONLY;
	if (c->stop == RP_STOP_PACKETS || (c->stop == RP_STOP_MESSAGES && only)) {
		uint64_t sent = c->stop == RP_STOP_PACKETS ? p.pkts : p.msgs;
		uint64_t left = sent < c->stop_count ? c->stop_count - sent : 1;
		if (left < run)
			run = (unsigned)left;
	} else if (c->stop == RP_STOP_DURATION && only) {
		/* Done once due_ns >= end_ns (each packet ends a message). */
		uint64_t last = c->end_ns ? c->end_ns - 1 : 0;
		if (last < limit)
			limit = last;
	}
	const uint64_t gap = c->gap_ns[k], gap_rem = c->gap_rem[k], div = c->div;
	uint64_t due = p.due_ns, rem = p.rem;
	const uint8_t *stage = r->stage;
	const uint32_t *psn_lo = psn_p->tab[2], *seq_lo = seq_off ? seq_p->tab[7] : NULL;
	const uint32_t *ts_lo1 = seq_off ? ts_p->tab[6] : NULL, *ts_lo0 = seq_off ? ts_p->tab[7] : NULL;
	uint32_t hi = 0, ts_hi = 0;
	uint64_t ts_above = UINT64_MAX; /* the stamp's change above its two low bytes, whose part ts_hi is */
	rp_v16 s0, s1, s2, s3, s4, s5;
	/* The ICRC store writes the frame's last bytes: when it covers all from
	 * byte 80 on (82 B: the ICRC at 78), or the stage is a kept buffer's
	 * head of at most 80 B, the sixth vector is not stored. */
	const bool tail = !probe_icrc_tail && small_tail(r->copy_len, icrc_off, len);
	/* probe_icrc_tail: the instance for the common small frame, a probe and
	 * no sixth vector, with both known at compile time (trick 5). */
	const bool has_seq = probe_icrc_tail || seq_off;
	if (staged && small) {
		memcpy(&s0, stage, 16);
		memcpy(&s1, stage + 16, 16);
		memcpy(&s2, stage + 32, 16);
		memcpy(&s3, stage + 48, 16);
		memcpy(&s4, stage + 64, 16);
		memcpy(&s5, stage + 80, 16);
	}
	unsigned i = 0;
	for (;;) {
		uint8_t *buf = bufs[i];
		if (staged && small) {
			/* A constant size, held in registers: six stores, no loads. */
			memcpy(buf, &s0, 16);
			memcpy(buf + 16, &s1, 16);
			memcpy(buf + 32, &s2, 16);
			memcpy(buf + 48, &s3, 16);
			memcpy(buf + 64, &s4, 16);
			if (tail)
				memcpy(buf + 80, &s5, 16);
		} else if (staged) {
			copy_blocks(buf, stage, r->copy_len);
		} else {
			copy_blocks(buf, r->hdr, hdr_len);
			copy_payload(buf, r->frame, hdr_len, r->tail_off, len, r->zeroed);
		}
		/* The PSN and the seq both count up by one: their bytes above the
		 * lowest change once in 256 packets, so their contribution is
		 * cached and only the low bytes are looked up per packet (a
		 * patch table maps a zero change to zero). */
		if (i == 0 || (uint8_t)psn == 0 || (has_seq && (uint8_t)seq == 0)) {
			hi = base ^ rp_icrc_patch_delta24(psn_p, (tpsn ^ psn) & ~0xFFu);
			if (has_seq)
				hi ^= rp_icrc_patch_delta64(seq_p, (tseq ^ seq) & ~(uint64_t)0xFF);
		}
		/* The PSN with the byte before it, as it is: one store, not two. */
		rp_put_be32(buf + psn_off - 1, psn_top | psn);
		uint32_t icrc = hi ^ psn_lo[(uint8_t)(tpsn ^ psn)];
		psn = (psn + 1) & RP_PSN_MASK;
		if (has_seq) {
			rp_put_be64(buf + seq_off, seq);
			icrc ^= seq_lo[(uint8_t)(tseq ^ seq)];
			seq++;
			/* Each packet's own due time (stamp_of): consecutive stamps
			 * differ by the gap, so the bytes above the two lowest
			 * change seldom and their part is cached like hi. */
			const uint64_t ts = stamp_of(due, floor), x = tts ^ ts;
			rp_put_be64(buf + ts_off, ts);
			if (x >> 16 != ts_above) {
				ts_above = x >> 16;
				ts_hi = rp_icrc_patch_delta64(ts_p, x & ~(uint64_t)0xFFFF);
			}
			icrc ^= ts_hi ^ ts_lo1[(uint8_t)(x >> 8)] ^ ts_lo0[(uint8_t)x];
		}
		rp_icrc_store(buf + icrc_off, icrc);
		rp_pace_advance(&due, &rem, gap, gap_rem, div);
		if (++i == run || due > limit)
			break;
	}
	/* Every length of a run is the same: filled after the loop, eight per
	 * store, instead of one store per packet inside it. */
	typedef uint16_t u16x8 __attribute__((vector_size(16)));
	const u16x8 l8 = {len, len, len, len, len, len, len, len};
	unsigned j = 0;
	for (; j + 8 <= i; j += 8)
		memcpy(lens + j, &l8, sizeof(l8));
	for (; j < i; j++)
		lens[j] = len;
	p.due_ns = due;
	p.rem = rem;
	p.pkts += i;
	if (only) {
		p.msgs += i;
		p.msgs_in_win += i;
	} else {
		p.pkt_in_msg += i;
	}
	rp_pace_check_stop(c, &p);
	f->pace = p;
	rp_pace_phase_check(&f->cfg, &f->pace);
	r->psn = psn;
	r->seq = seq;
	return i;
}

/* The common case, specialised: a run of packets of one kind on one QP
 * (single-packet messages on a single QP, or the MIDDLE packets of a
 * message), continuous pacing, no AETH. Per packet: one copy, the PSN, the
 * probe seq and the ICRC; the rest is done once per run. Emits up to max
 * packets while the flow stays due by limit; returns 0 (nothing emitted)
 * when the flow's next packet is not such a case. */
static inline unsigned emit_run(struct rp_sflow *f, uint8_t *const bufs[], uint16_t lens[], unsigned max,
				uint64_t limit, uint64_t floor, bool kept)
{
	const struct rp_pace_cfg *c = &f->cfg;
	if (f->is_pfc || c->period_ns)
		return 0;
	enum rp_pkt_kind k = rp_pace_kind(c, &f->pace);
	unsigned run;
	if (k == RP_PKT_ONLY && f->qps == 1)
		run = max;
	else if (k == RP_PKT_MIDDLE)
		run = c->npkts - 1 - f->pace.pkt_in_msg;
	else
		return 0;
	if (run > max)
		run = max;
	const struct rp_tkind *t = &f->kinds[k];
	if (t->msn_p)
		return 0;
	/* Kept buffers (rp_source_burst_shaped) hold the shape's zeros: only
	 * the head is staged and copied, the ICRC stored at the frame's end. */
	const bool staged = kept || t->len <= RP_STAGE_MAX;
	const uint16_t copy_len = kept ? t->head : t->len;
	/* The zero hint is for one buffer (rp_source_flow_burst_zeroed's); a
	 * staged frame is written whole and leaves no zeros known. */
	const bool zeroed = !staged && zero_hint(f, t);
	if (staged)
		f->zlo = f->zhi = 0;
	const struct rp_qhdr *h = rp_sflow_hdr(f, f->qp, k);
	uint8_t stage[RP_STAGE_MAX + RP_COPY_BLOCK];
	_Static_assert(RP_PROBE_LEN <= RP_COPY_BLOCK && RP_TMPL_HDR_MAX + 3 * RP_COPY_BLOCK <= sizeof(stage),
		       "a head, its last block and the zeros after it fit the stage");
	if (kept) {
		/* Zeros after the head, up to what the vectors or blocks load
		 * (at most 96 B, or the head rounded up to a block; the head is
		 * longer than 32 B): one constant-size copy past where the
		 * frame's blocks end, not a memset of the whole stage per run. */
		size_t end = t->hdr_len + RP_COPY_BLOCK * (((size_t)(t->head - t->hdr_len) + RP_COPY_BLOCK - 1) / RP_COPY_BLOCK);
		copy_blocks(stage, h->bytes, t->hdr_len);
		copy_blocks(stage + t->hdr_len, t->frame + t->hdr_len, (size_t)(t->head - t->hdr_len));
		memcpy(stage + end, rp_tmpl_zeros, 2 * RP_COPY_BLOCK);
	} else if (staged) {
		copy_blocks(stage, h->bytes, t->hdr_len);
		copy_blocks(stage + t->hdr_len, t->frame + t->hdr_len, (size_t)(t->len - t->hdr_len));
	}
	uint32_t base = h->icrc;
	uint32_t *psnp = &f->psn[f->qp];
	uint32_t psn = *psnp;
	const uint32_t tpsn = rp_get_be24(h->bytes + t->psn_off);
	const uint16_t len = t->len, psn_off = t->psn_off, icrc_off = t->icrc_off;
	const struct rp_icrc_patch *psn_p = t->psn_p, *seq_p = t->seq_p;
	uint64_t seq = f->seq, tseq = 0, tts = 0;
	uint16_t seq_off = 0, ts_off = 0;
	if (t->probe_off) {
		seq_off = (uint16_t)(t->probe_off + RP_PROBE_SEQ_OFFSET);
		tseq = rp_get_be64(t->frame + seq_off);
		ts_off = (uint16_t)(t->probe_off + RP_PROBE_TS_OFFSET);
		tts = rp_get_be64(t->frame + ts_off);
	}
	struct run_state r = {.stage = stage, .hdr = h->bytes, .frame = t->frame, .hdr_len = t->hdr_len,
			      .tail_off = t->tail_off,
			      .len = len, .copy_len = copy_len, .psn_off = psn_off, .icrc_off = icrc_off, .seq_off = seq_off,
			      .ts_off = ts_off, .psn_p = psn_p, .seq_p = seq_p, .ts_p = t->ts_p, .base = base,
			      .tpsn = tpsn, .psn_top = (uint32_t)h->bytes[psn_off - 1] << 24, .tseq = tseq, .tts = tts, .psn = psn, .seq = seq, .zeroed = zeroed};
	const bool small = copy_len > RP_SMALL_FRAME - RP_COPY_BLOCK && copy_len <= RP_SMALL_FRAME;
	unsigned i;
	const bool probe_head = seq_off == 62 && psn_off == 51 && r.ts_off == 70;
	if (!staged)
		i = run_loop(f, k, &r, bufs, lens, run, limit, floor, false, false, false, FIXED_NONE);
	else if ((copy_len == 82 || copy_len == 78) && len == 82 && icrc_off == 78 && probe_head)
		i = run_loop(f, k, &r, bufs, lens, run, limit, floor, true, true, true, FIXED_82);
	else if (copy_len == 78 && probe_head) /* a 78 B head leaves no sixth vector (small_tail) */
		i = run_loop(f, k, &r, bufs, lens, run, limit, floor, true, true, true, FIXED_HEAD);
	else if (small && seq_off && !small_tail(copy_len, icrc_off, len))
		i = run_loop(f, k, &r, bufs, lens, run, limit, floor, true, true, true, FIXED_NONE);
	else if (small)
		i = run_loop(f, k, &r, bufs, lens, run, limit, floor, true, true, false, FIXED_NONE);
	else
		i = run_loop(f, k, &r, bufs, lens, run, limit, floor, true, false, false, FIXED_NONE);
	psn = r.psn;
	seq = r.seq;
	*psnp = psn;
	f->seq = seq;
	f->tx_packets += i;
	f->tx_bytes += (uint64_t)i * len;
	f->tx_payload += (uint64_t)i * t->payload;
	if (k == RP_PKT_ONLY)
		f->msn[f->qp] += i;
	return i;
}

/* The earliest due eligible flow (*at its index in active); *second gets the
 * due time of the next one, *pfc the earliest due time of a PFC source (read
 * only when the flow picked is a data flow). */
static struct rp_sflow *pick(struct rp_source *s, uint64_t now, uint8_t paused, uint64_t *second, uint64_t *pfc,
			     size_t *at)
{
	struct rp_sflow *best = NULL;
	uint64_t best_due = UINT64_MAX, next = UINT64_MAX, pfc_due = UINT64_MAX;
	/* From the flow after the last one that sent (burst() sets rr): of flows
	 * due at the same time (restarted at now by the catch-up rule, all
	 * together when the sender is behind), each goes first in turn, not
	 * always the lowest index. */
	size_t start = s->rr < s->nactive ? s->rr : 0;
	for (size_t j = 0; j < s->nactive; j++) {
		size_t i = start + j < s->nactive ? start + j : start + j - s->nactive;
		struct rp_sflow *f = s->active[i];
		if (f->prio_bit & paused)
			continue;
		rp_pace_catch_up(&f->cfg, &f->pace, now, f->lag_ns);
		rp_pace_phase_check(&f->cfg, &f->pace);
		if (f->pace.done)
			continue;
		uint64_t d = f->pace.due_ns;
		if (f->is_pfc && d < pfc_due)
			pfc_due = d;
		if (d < best_due) {
			next = best_due;
			best_due = d;
			best = f;
			*at = i;
		} else if (d < next) {
			next = d;
		}
	}
	*second = next;
	*pfc = pfc_due;
	return best && best_due <= now ? best : NULL;
}

static void drop_done(struct rp_source *s)
{
	for (size_t i = 0; i < s->nactive;) {
		if (s->active[i]->pace.done)
			s->active[i] = s->active[--s->nactive];
		else
			i++;
	}
}

/* What rp_source_burst does for the one flow it picked, one packet. */
static void note_burst(struct rp_sflow *f, uint64_t now_ns)
{
	if (!f->tx_packets)
		f->first_tx_ns = now_ns;
	if (f->last_tx_ns != now_ns || f->tx_packets == 0) {
		f->before_last_packets = f->tx_packets;
		f->before_last_bytes = f->tx_bytes;
	}
	f->last_tx_ns = now_ns;
}

uint64_t rp_source_flow_next_due(const struct rp_source *s, size_t i)
{
	return s->flows[i].pace.done ? UINT64_MAX : s->flows[i].pace.due_ns;
}

bool rp_source_flow_done(const struct rp_source *s, size_t i)
{
	return s->flows[i].pace.done;
}

unsigned rp_source_flow_burst(struct rp_source *s, size_t i, uint64_t now_ns, uint8_t paused_prio_mask, uint8_t *buf,
			      uint16_t *len)
{
	struct rp_sflow *f = &s->flows[i];
	if (f->prio_bit & paused_prio_mask)
		return 0;
	rp_pace_catch_up(&f->cfg, &f->pace, now_ns, f->lag_ns);
	rp_pace_phase_check(&f->cfg, &f->pace);
	if (f->pace.done || f->pace.due_ns > now_ns)
		return 0;
	note_burst(f, now_ns);
	uint8_t *const bufs[1] = {buf};
	/* The lab asks for a packet when its NIC puts it on the wire: stamped now. */
	if (!emit_run(f, bufs, len, 1, now_ns, now_ns, false))
		*len = emit(f, buf, now_ns, false);
	return 1;
}

unsigned rp_source_flow_burst_zeroed(struct rp_source *s, size_t i, uint64_t now_ns, uint8_t paused_prio_mask,
				     uint8_t *buf, uint16_t *len, uint16_t zero[2])
{
	struct rp_sflow *f = &s->flows[i];
	f->zlo = zero[0];
	f->zhi = zero[1];
	f->zhint = true;
	unsigned n = rp_source_flow_burst(s, i, now_ns, paused_prio_mask, buf, len);
	if (n) {
		zero[0] = f->zlo;
		zero[1] = f->zhi;
	}
	f->zlo = f->zhi = 0;
	f->zhint = false;
	return n;
}

/* The shape of flow f's next packet. */
static inline unsigned next_shape_of(const struct rp_sflow *f)
{
	return f->is_pfc ? 0 : f->kinds[rp_pace_kind(&f->cfg, &f->pace)].shape;
}

/* shape < 0: any packet, written whole (rp_source_burst); else packets of
 * that shape only (rp_source_burst_shaped), into kept buffers when > 0. */
static inline unsigned burst(struct rp_source *s, uint64_t now_ns, uint8_t paused_prio_mask, int shape,
			     uint8_t *const bufs[], uint16_t lens[], uint32_t flow_ids[], unsigned n,
			     unsigned *next_shape)
{
	unsigned filled = 0;
	bool finished = false;
	const bool kept = shape > 0;
	const uint64_t stamp_floor = now_ns > RP_SOURCE_STAMP_NS ? now_ns - RP_SOURCE_STAMP_NS : 0;
	while (filled < n) {
		uint64_t second, pfc;
		size_t at = 0;
		struct rp_sflow *f = pick(s, now_ns, paused_prio_mask, &second, &pfc, &at);
		if (!f)
			break;
		if (shape >= 0 && next_shape_of(f) != (unsigned)shape) {
			*next_shape = next_shape_of(f);
			break;
		}
		s->rr = at + 1;
		/* A data flow's turn: its packets due by now, up to RP_SOURCE_TURN of
		 * them when another flow is due too (not only those due before the
		 * other's first: flows as late as each other would alternate packet by
		 * packet, runs of one). A PFC frame due is never overtaken. */
		const uint64_t until = f->is_pfc ? second : pfc;
		const uint64_t limit = until < now_ns ? until : now_ns;
		unsigned turn = !f->is_pfc && second <= now_ns ? RP_SOURCE_TURN : n;
		note_burst(f, now_ns);
		do {
			/* Stamped with their due times, but never more than RP_SOURCE_STAMP_NS
			 * before the hand-over: a sender late on its schedule (a CPU taken
			 * away, the start) does not count its own lateness as latency. */
			unsigned room = n - filled < turn ? n - filled : turn;
			unsigned r = emit_run(f, bufs + filled, lens + filled, room, limit, stamp_floor, kept);
			if (!r) {
				lens[filled] = emit(f, bufs[filled], stamp_floor, kept);
				r = 1;
			}
			if (flow_ids)
				for (unsigned i = 0; i < r; i++)
					flow_ids[filled + i] = f->flow_id;
			filled += r;
			turn -= r; /* r <= room <= turn */
		} while (filled < n && turn && !f->pace.done && f->pace.due_ns <= limit &&
			 (shape < 0 || next_shape_of(f) == (unsigned)shape));
		finished |= f->pace.done;
	}
	if (finished)
		drop_done(s);
	return filled;
}

unsigned rp_source_burst(struct rp_source *s, uint64_t now_ns, uint8_t paused_prio_mask, uint8_t *const bufs[],
			 uint16_t lens[], uint32_t flow_ids[], unsigned n)
{
	return burst(s, now_ns, paused_prio_mask, -1, bufs, lens, flow_ids, n, NULL);
}

unsigned rp_source_burst_shaped(struct rp_source *s, uint64_t now_ns, uint8_t paused_prio_mask, unsigned shape,
				uint8_t *const bufs[], uint16_t lens[], uint32_t flow_ids[], unsigned n,
				unsigned *next_shape)
{
	*next_shape = shape;
	return burst(s, now_ns, paused_prio_mask, (int)shape, bufs, lens, flow_ids, n, next_shape);
}

unsigned rp_source_shapes(const struct rp_source *s, struct rp_source_shape out[RP_SOURCE_SHAPES])
{
	memcpy(out, s->shapes, s->nshapes * sizeof(out[0]));
	return s->nshapes;
}

uint64_t rp_source_next_due_unpaused(const struct rp_source *s, uint8_t paused_prio_mask)
{
	uint64_t best = UINT64_MAX;
	for (size_t i = 0; i < s->nactive; i++) {
		const struct rp_sflow *f = s->active[i];
		if (!f->pace.done && !(f->prio_bit & paused_prio_mask) && f->pace.due_ns < best)
			best = f->pace.due_ns;
	}
	return best;
}

uint64_t rp_source_next_due(const struct rp_source *s)
{
	return rp_source_next_due_unpaused(s, 0);
}

bool rp_source_done(const struct rp_source *s)
{
	for (size_t i = 0; i < s->nactive; i++)
		if (!s->active[i]->pace.done)
			return false;
	return true;
}

size_t rp_source_max_frame(const struct rp_source *s)
{
	return s->max_frame + RP_COPY_BLOCK;
}

size_t rp_source_nflows(const struct rp_source *s)
{
	return s->nflows;
}

void rp_source_flow_stats(const struct rp_source *s, size_t i, struct rp_source_flow_stats *out)
{
	const struct rp_sflow *f = &s->flows[i];
	*out = (struct rp_source_flow_stats){
		.flow_id = f->flow_id,
		.tx_packets = f->tx_packets,
		.tx_bytes = f->tx_bytes,
		.tx_payload = f->tx_payload,
		.tx_messages = f->pace.msgs,
		.probes = f->seq,
		.first_tx_ns = f->first_tx_ns,
		.last_tx_ns = f->last_tx_ns,
		.span_packets = f->before_last_packets,
		.span_bytes = f->before_last_bytes,
		.done = f->pace.done,
	};
}
