/* Header templates of one flow: built once per (QP, packet kind) with
 * rp_roce_build, plus the ICRC patches for the fields stamped per packet. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source_internal.h"
#include "wire/frame.h"
#include "wire/sport.h"

#define RP_RKEY_BASE 0x1000u

const uint8_t rp_tmpl_zeros[RP_TMPL_ZEROS];
#define RP_AETH_CREDIT_INVALID 0x1F

static const struct rp_icrc_patch *patch_get(struct rp_patch_cache *c, size_t off, size_t len, size_t region)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->e[i].off == off && c->e[i].len == len && c->e[i].region == region)
			return c->e[i].p;
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;
		struct rp_patch_entry *ne = realloc(c->e, cap * sizeof(*ne));
		if (!ne)
			return NULL;
		c->e = ne;
		c->cap = cap;
	}
	struct rp_icrc_patch *p = malloc(sizeof(*p));
	if (!p || rp_icrc_patch_init(p, off, len, region)) {
		free(p);
		return NULL;
	}
	c->e[c->n++] = (struct rp_patch_entry){.off = off, .len = len, .region = region, .p = p};
	return p;
}

void rp_patch_cache_free(struct rp_patch_cache *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->e[i].p);
	free(c->e);
	memset(c, 0, sizeof(*c));
}

static void spec_addrs(const struct rp_plan *plan, const struct rp_flow *f, struct rp_roce_spec *sp)
{
	const struct rp_host *src = &plan->prof->hosts[f->src], *dst = &plan->prof->hosts[f->dst];
	memcpy(sp->eth.dst, f->nh.mac, 6); /* the destination's, or its gateway's when routed */
	memcpy(sp->eth.src, src->mac, 6);
	sp->eth.has_vlan = f->p.has_vlan;
	sp->eth.pcp = f->p.has_vlan ? f->prio : 0;
	sp->eth.vid = f->p.vid;
	sp->l3 = f->p.ip;
	if (f->p.ip == 4) {
		sp->ip4 = (struct rp_ipv4){.dscp = f->p.dscp, .ecn = f->p.ecn, .df = true, .ttl = 64,
					   .proto = RP_IPPROTO_UDP, .src = src->ipv4, .dst = dst->ipv4};
	} else {
		sp->ip6 = (struct rp_ipv6){.dscp = f->p.dscp, .ecn = f->p.ecn, .next_header = RP_IPPROTO_UDP,
					   .hop_limit = 64};
		memcpy(sp->ip6.src, src->ipv6, 16);
		memcpy(sp->ip6.dst, dst->ipv6, 16);
	}
}

/* The spec of packet kind k on QP q (PSN and MSN at their first values). */
static void spec_for(const struct rp_plan *plan, const struct rp_flow *f, unsigned q, const struct rp_seg *seg,
		     const uint8_t *payload, struct rp_roce_spec *sp)
{
	memset(sp, 0, sizeof(*sp));
	spec_addrs(plan, f, sp);
	uint32_t lqpn = f->lqpn + q, rqpn = f->rqpn + q;
	if (f->p.ip == 6)
		sp->ip6.flow_label = rp_flow_label(lqpn, rqpn);
	sp->udp_sport = rp_sport_select((enum rp_sport_policy)f->p.sport, lqpn, rqpn, f->p.sport_base, q);
	sp->bth = (struct rp_bth){.opcode = seg->opcode, .pkey = 0xFFFF, .dqpn = rqpn, .ack_req = seg->ack_req,
				  .psn = f->p.psn_start};
	sp->reth = (struct rp_reth){.va = (uint64_t)(f->id + 1) << 32, .rkey = RP_RKEY_BASE + q, .dma_len = f->p.msg_size};
	sp->aeth = (struct rp_aeth){.syndrome = rp_aeth_syndrome(RP_AETH_ACK, RP_AETH_CREDIT_INVALID), .msn = 0};
	sp->imm = f->p.imm;
	sp->payload = payload;
	sp->payload_len = seg->payload;
}

static size_t aeth_offset(const struct rp_roce_layout *lay, unsigned ext)
{
	size_t off = lay->bth_off + RP_BTH_LEN;
	if (ext & RP_EXT_DETH)
		off += RP_DETH_LEN;
	if (ext & RP_EXT_RETH)
		off += RP_RETH_LEN;
	if (ext & RP_EXT_ATOMIC_ETH)
		off += RP_ATOMIC_ETH_LEN;
	return off;
}

/* Offsets and patches of one kind, from QP 0's built frame. */
static int kind_fields(struct rp_source *s, struct rp_tkind *t, const struct rp_roce_layout *lay,
		       const struct rp_seg *seg)
{
	size_t l3 = lay->l3_off, region = lay->icrc_off - l3;
	t->len = (uint16_t)lay->frame_len;
	t->hdr_len = (uint16_t)lay->payload_off;
	t->icrc_off = (uint16_t)lay->icrc_off;
	t->payload = seg->payload;
	t->psn_off = (uint16_t)(lay->bth_off + RP_BTH_PSN_OFFSET);
	t->psn_p = patch_get(&s->patches, t->psn_off - l3, 3, region);
	if (!t->psn_p)
		return -1;
	if (seg->ext & RP_EXT_AETH) {
		t->msn_off = (uint16_t)(aeth_offset(lay, seg->ext) + 1);
		if (!(t->msn_p = patch_get(&s->patches, t->msn_off - l3, 3, region)))
			return -1;
	}
	if (seg->payload >= RP_PROBE_LEN) {
		t->probe_off = (uint16_t)lay->payload_off;
		t->seq_p = patch_get(&s->patches, t->probe_off + RP_PROBE_SEQ_OFFSET - l3, 8, region);
		t->ts_p = patch_get(&s->patches, t->probe_off + RP_PROBE_TS_OFFSET - l3, 8, region);
		if (!t->seq_p || !t->ts_p)
			return -1;
	}
	t->head = (uint16_t)(t->probe_off ? t->probe_off + RP_PROBE_LEN : t->hdr_len);
	return 0;
}

/* Where a large frame's zeros start (its payload past the probe, the pad,
 * and the ICRC bytes that are stored per packet anyway), or 0 to keep it
 * whole: a million flows then hold their headers, not a million payloads. */
static size_t tail_from(const uint8_t *frame, const struct rp_roce_layout *lay)
{
	size_t from = lay->payload_off + RP_TMPL_HEAD;
	if (lay->frame_len <= RP_TMPL_WHOLE || from >= lay->icrc_off || lay->frame_len + RP_COPY_BLOCK > RP_TMPL_ZEROS)
		return 0;
	for (size_t i = from; i < lay->icrc_off; i++)
		if (frame[i])
			return 0;
	return from;
}

static int build_kind(struct rp_source *s, const struct rp_plan *plan, const struct rp_flow *f, struct rp_sflow *sf,
		      const struct rp_seg *seg, uint8_t *scratch, size_t cap)
{
	uint8_t probe[RP_PROBE_LEN];
	struct rp_probe pr = {.flow_id = f->id};
	rp_probe_build(probe, sizeof(probe), &pr);
	uint8_t *payload = calloc(1, seg->payload + 1);
	if (!payload)
		return -1;
	if (seg->payload >= RP_PROBE_LEN)
		memcpy(payload, probe, RP_PROBE_LEN);
	struct rp_tkind *t = &sf->kinds[seg->kind];
	int rc = 0;
	for (unsigned q = 0; q < sf->qps && rc == 0; q++) {
		struct rp_roce_spec sp;
		struct rp_roce_layout lay;
		spec_for(plan, f, q, seg, payload, &sp);
		if (rp_roce_build(scratch, cap, &sp, &lay) == 0 || lay.payload_off > RP_TMPL_HDR_MAX) {
			rc = -1;
			break;
		}
		struct rp_qhdr *h = rp_sflow_hdr(sf, q, seg->kind);
		memcpy(h->bytes, scratch, lay.payload_off);
		h->icrc = rp_icrc_load(scratch + lay.icrc_off);
		if (q == 0) {
			size_t keep = tail_from(scratch, &lay);
			t->frame = calloc(1, (keep ? keep : lay.frame_len) + RP_COPY_BLOCK);
			if (!t->frame || kind_fields(s, t, &lay, seg)) {
				rc = -1;
				break;
			}
			t->tail_off = (uint16_t)keep;
			memcpy(t->frame, scratch, keep ? keep : lay.frame_len);
		}
	}
	free(payload);
	return rc;
}

static int build_pfc(const struct rp_plan *plan, const struct rp_flow *f, struct rp_sflow *sf)
{
	struct rp_tkind *t = &sf->kinds[RP_PKT_ONLY];
	const uint8_t *mac = plan->prof->hosts[f->src].mac;
	t->frame = calloc(1, RP_MACCTL_FRAME_LEN);
	if (!t->frame)
		return -1;
	uint16_t quanta[RP_PFC_PRIOS] = {0};
	for (int p = 0; p < RP_PFC_PRIOS; p++)
		if (f->pfc.prio_mask & (1u << p))
			quanta[p] = f->pfc.quanta;
	size_t len = f->pfc.pause ? rp_pause_frame_build(t->frame, RP_MACCTL_FRAME_LEN, mac, f->pfc.quanta)
				  : rp_pfc_frame_build(t->frame, RP_MACCTL_FRAME_LEN, mac, f->pfc.prio_mask, quanta);
	t->len = (uint16_t)len;
	return len ? 0 : -1;
}

int rp_tmpl_build(struct rp_source *s, const struct rp_plan *plan, const struct rp_flow *f, struct rp_sflow *sf,
		  char *err, size_t errlen)
{
	if (f->kind == RP_TRAFFIC_PFC) {
		if (build_pfc(plan, f, sf) == 0)
			return 0;
		snprintf(err, errlen, "flow %u: cannot build its PFC frame", f->id);
		return -1;
	}
	/* The kinds its messages use (one packet: ONLY; else FIRST, MIDDLE with
	 * three or more, LAST): headers for those only, not for all four. */
	uint32_t n = rp_seg_count(f->p.msg_size, f->p.mtu);
	uint32_t idx[3] = {0, 1, n - 1};
	struct rp_seg segs[3];
	unsigned nseg = 0;
	int rc = 0;
	for (int i = 0; i < 3 && rc == 0; i++) {
		if (idx[i] >= n || (i == 2 && n < 2) || (i == 1 && n < 3))
			continue;
		rc = rp_segment(f->p.verb, f->p.msg_size, f->p.mtu, idx[i], &segs[nseg]);
		if (rc == 0) {
			bool dup = false;
			for (unsigned j = 0; j < nseg; j++)
				dup |= segs[j].kind == segs[nseg].kind;
			if (!dup) {
				sf->kslot[segs[nseg].kind] = (uint8_t)nseg;
				nseg++;
			}
		}
	}
	sf->nkinds = (uint8_t)nseg;
	sf->hdrs = rc == 0 ? calloc((size_t)sf->qps * (nseg ? nseg : 1), sizeof(*sf->hdrs)) : NULL;
	size_t cap = (size_t)f->p.mtu + 256;
	uint8_t *scratch = malloc(cap);
	if (!sf->hdrs || !scratch)
		rc = -1;
	for (unsigned i = 0; i < nseg && rc == 0; i++)
		rc = build_kind(s, plan, f, sf, &segs[i], scratch, cap);
	free(scratch);
	if (rc)
		snprintf(err, errlen, "flow %u: cannot build its packet templates (out of memory or a bad spec)", f->id);
	return rc;
}

void rp_tmpl_free(struct rp_sflow *sf)
{
	for (int k = 0; k < RP_PKT_KINDS; k++)
		free(sf->kinds[k].frame);
	free(sf->hdrs);
	free(sf->psn);
	free(sf->msn);
}
