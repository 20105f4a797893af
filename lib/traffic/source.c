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

static int flow_init(struct rp_source *s, const struct rp_plan *plan, const struct rp_flow *f, struct rp_sflow *sf,
		     const struct rp_source_opts *o, char *err, size_t errlen)
{
	sf->cfg = f->pace;
	sf->cfg.start_ns += o->time0_ns;
	if (sf->cfg.end_ns != UINT64_MAX)
		sf->cfg.end_ns += o->time0_ns;
	rp_pace_init(&sf->cfg, &sf->pace);
	sf->is_pfc = f->kind == RP_TRAFFIC_PFC;
	sf->prio_bit = sf->is_pfc ? 0 : (uint8_t)(1u << f->prio);
	sf->flow_id = f->id;
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
	for (int k = 0; k < RP_PKT_KINDS; k++)
		if (sf->kinds[k].len > s->max_frame)
			s->max_frame = sf->kinds[k].len;
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

/* The per-packet path: the QP's header and the kind's payload copied, then a
 * few stores and table look-ups. */
static inline uint16_t emit_roce(struct rp_sflow *f, enum rp_pkt_kind k, uint8_t *buf, uint64_t now)
{
	const struct rp_tkind *t = &f->kinds[k];
	const struct rp_qhdr *h = &f->hdrs[f->qp * RP_PKT_KINDS + k];
	copy_blocks(buf, h->bytes, t->hdr_len);
	copy_blocks(buf + t->hdr_len, t->frame + t->hdr_len, (size_t)(t->len - t->hdr_len));
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
		uint8_t *seq = buf + t->probe_off + RP_PROBE_SEQ_OFFSET, *ts = buf + t->probe_off + RP_PROBE_TS_OFFSET;
		const uint8_t *tseq = t->frame + t->probe_off + RP_PROBE_SEQ_OFFSET;
		rp_put_be64(seq, f->seq);
		rp_put_be64(ts, now);
		icrc ^= rp_icrc_patch_delta64(t->seq_p, rp_get_be64(tseq) ^ f->seq++);
		if (now != f->ts_now || t->ts_p != f->ts_patch) {
			f->ts_now = now;
			f->ts_patch = t->ts_p;
			f->ts_contrib = rp_icrc_patch_delta64(t->ts_p, rp_get_be64(tseq + 8) ^ now);
		}
		icrc ^= f->ts_contrib;
	}
	rp_icrc_store(buf + t->icrc_off, icrc);
	f->tx_payload += t->payload;
	if (k == RP_PKT_LAST || k == RP_PKT_ONLY) {
		f->msn[f->qp]++;
		f->qp = (uint16_t)(f->qp + 1 == f->qps ? 0 : f->qp + 1);
	}
	return t->len;
}

static inline uint16_t emit(struct rp_sflow *f, uint8_t *buf, uint64_t now)
{
	enum rp_pkt_kind k = rp_pace_kind(&f->cfg, &f->pace);
	uint16_t len;
	if (f->is_pfc) {
		len = f->kinds[RP_PKT_ONLY].len;
		memcpy(buf, f->kinds[RP_PKT_ONLY].frame, len);
	} else {
		len = emit_roce(f, k, buf, now);
	}
	f->tx_packets++;
	f->tx_bytes += len;
	rp_pace_step(&f->cfg, &f->pace, k);
	return len;
}

/* The earliest due eligible flow, and the due time of the next one. */
static struct rp_sflow *pick(struct rp_source *s, uint64_t now, uint8_t paused, uint64_t *second)
{
	struct rp_sflow *best = NULL;
	uint64_t best_due = UINT64_MAX, next = UINT64_MAX;
	for (size_t i = 0; i < s->nactive; i++) {
		struct rp_sflow *f = s->active[i];
		if (f->prio_bit & paused)
			continue;
		rp_pace_catch_up(&f->cfg, &f->pace, now, f->lag_ns);
		if (f->pace.done)
			continue;
		uint64_t d = f->pace.due_ns;
		if (d < best_due) {
			next = best_due;
			best_due = d;
			best = f;
		} else if (d < next) {
			next = d;
		}
	}
	*second = next;
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

unsigned rp_source_burst(struct rp_source *s, uint64_t now_ns, uint8_t paused_prio_mask, uint8_t *const bufs[],
			 uint16_t lens[], uint32_t flow_ids[], unsigned n)
{
	unsigned filled = 0;
	bool finished = false;
	while (filled < n) {
		uint64_t second;
		struct rp_sflow *f = pick(s, now_ns, paused_prio_mask, &second);
		if (!f)
			break;
		uint64_t limit = second < now_ns ? second : now_ns;
		do {
			lens[filled] = emit(f, bufs[filled], now_ns);
			if (flow_ids)
				flow_ids[filled] = f->flow_id;
			filled++;
		} while (filled < n && !f->pace.done && f->pace.due_ns <= limit);
		finished |= f->pace.done;
	}
	if (finished)
		drop_done(s);
	return filled;
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
		.done = f->pace.done,
	};
}
