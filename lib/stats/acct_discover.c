/* Discovery mode (offline analysis of any capture): flows come from the
 * traffic. A data frame of an unknown (src IP, dst IP, DestQP) opens a new
 * QP: of the flow its probe names, if it carries one, else of a new flow.
 * ACK/NAK/CNP address the sender's QP, whose number no data frame carries
 * (an RC BTH has only the DestQP), so the first reverse frame of a QP is
 * matched by elimination: the only QP of that host pair whose sender QP is
 * still unknown; for a NAK (PSN sequence error), else the only one missing
 * the PSN it asks for (two QPs of a host pair over the same PSNs each lose
 * their own); else the only one whose PSN range holds the ACK/NAK's PSN.
 * Once matched, the sender QP is learned and later frames hit the map.
 * Allocates (once per new flow or QP): for offline use only. */
#include <stdlib.h>
#include <string.h>

#include "acct_internal.h"

static bool same_addr(const struct rp_frame *f, const struct rp_acct_flow_cfg *c, bool reverse)
{
	if (f->l3 != c->l3)
		return false;
	if (f->l3 == 4) {
		uint32_t s = reverse ? f->ip4.dst : f->ip4.src, d = reverse ? f->ip4.src : f->ip4.dst;
		return c->src_ip4 == s && c->dst_ip4 == d;
	}
	const uint8_t *s = reverse ? f->ip6.dst : f->ip6.src, *d = reverse ? f->ip6.src : f->ip6.dst;
	return memcmp(c->src_ip6, s, 16) == 0 && memcmp(c->dst_ip6, d, 16) == 0;
}

static void flow_cfg_from(const struct rp_frame *f, struct rp_acct_flow_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->l3 = f->l3;
	if (f->l3 == 4) {
		c->src_ip4 = f->ip4.src;
		c->dst_ip4 = f->ip4.dst;
		rp_ipv4_addr_format(f->ip4.src, c->src);
		rp_ipv4_addr_format(f->ip4.dst, c->dst);
		c->dscp = f->ip4.dscp;
	} else {
		memcpy(c->src_ip6, f->ip6.src, 16);
		memcpy(c->dst_ip6, f->ip6.dst, 16);
		char s[46], d[46];
		rp_ipv6_addr_format(f->ip6.src, s);
		rp_ipv6_addr_format(f->ip6.dst, d);
		memcpy(c->src, s, RP_ACCT_NAME_MAX - 1);
		memcpy(c->dst, d, RP_ACCT_NAME_MAX - 1);
		c->dscp = f->ip6.dscp;
	}
	c->prio = f->eth.has_vlan ? f->eth.pcp : (uint8_t)(c->dscp >> 3);
	c->rqpn = f->bth.dqpn;
	c->qps = 1;
	c->psn_start = f->bth.psn;
	c->id = f->has_probe ? f->probe.flow_id : 0;
}

static long new_flow(struct rp_acct *a, const struct rp_frame *f)
{
	if (a->nflows >= a->cfg.max_flows) {
		a->flows_dropped++;
		return -1;
	}
	if (a->nflows == a->cap_flows) {
		struct acct_flow *n = realloc(a->flows, 2 * a->cap_flows * sizeof(*n));
		if (!n)
			return -1;
		a->flows = n;
		a->cap_flows *= 2;
	}
	struct rp_acct_flow_cfg c;
	flow_cfg_from(f, &c);
	struct acct_flow *fl = &a->flows[a->nflows];
	if (rp_acct_flow_setup(a, fl, &c)) {
		rp_acct_flow_free(fl);
		return -1;
	}
	fl->probe_id = f->has_probe;
	return (long)a->nflows++;
}

static long flow_of_probe(const struct rp_acct *a, uint32_t id)
{
	for (size_t i = 0; i < a->nflows; i++)
		if (a->flows[i].probe_id && a->flows[i].cfg.id == id)
			return (long)i;
	return -1;
}

const struct acct_slot *rp_acct_discover_data(struct rp_acct *a, const struct rp_frame *f)
{
	if (f->l3 != 4 && f->l3 != 6)
		return NULL;
	long fi = f->has_probe ? flow_of_probe(a, f->probe.flow_id) : -1;
	if (fi < 0 && (fi = new_flow(a, f)) < 0)
		return NULL;
	struct acct_flow *fl = &a->flows[fi];
	if (fl->nqp && !same_addr(f, &fl->cfg, false))
		return NULL; /* the probe's flow id was already taken by another host pair */
	if (rp_acct_flow_add_qp(fl, f->bth.dqpn))
		return NULL;
	fl->cfg.qps = fl->nqp;
	struct acct_key k;
	rp_acct_key_frame(&k, f, DIR_DATA);
	if (rp_acct_map_put(&a->map, &k, (uint32_t)fi, (uint16_t)(fl->nqp - 1), true))
		return NULL;
	return rp_acct_map_find(&a->map, &k);
}

/* The ACK/NAK's PSN lies in what the QP sent: [first, next]. */
static bool psn_fits(const struct acct_qp *q, uint32_t psn)
{
	return q->psn.started && rp_psn_diff(q->psn.first, psn) >= 0 && rp_psn_diff(psn, q->psn.next) >= 0;
}

/* A NAK for a PSN sequence error: its PSN is the one the receiver expects. */
static bool psn_seq_nak(const struct rp_frame *f)
{
	return f->kind == RP_KIND_ROCE && f->bth.opcode == RP_OP_RC_ACK && (f->ext & RP_EXT_AETH) &&
	       rp_aeth_kind(f->aeth.syndrome) == RP_AETH_NAK && rp_aeth_value(f->aeth.syndrome) == RP_NAK_PSN_SEQ_ERR;
}

const struct acct_slot *rp_acct_discover_rev(struct rp_acct *a, const struct rp_frame *f, bool reads)
{
	long only_f = -1, psn_f = -1, miss_f = -1;
	unsigned only_q = 0, psn_q = 0, miss_q = 0, unknown = 0, fits = 0, missing = 0;
	bool has_psn = f->kind == RP_KIND_ROCE, nak = psn_seq_nak(f);
	for (size_t i = 0; i < a->nflows; i++) {
		struct acct_flow *fl = &a->flows[i];
		if (!same_addr(f, &fl->cfg, true))
			continue;
		for (unsigned q = 0; q < fl->nqp; q++) {
			if (fl->qp[q].lqpn_known || (reads && !fl->qp[q].reads))
				continue;
			unknown++;
			only_f = (long)i;
			only_q = q;
			if (has_psn && psn_fits(&fl->qp[q], f->bth.psn)) {
				fits++;
				psn_f = (long)i;
				psn_q = q;
				if (nak && !rp_psn_seen(&fl->qp[q].psn, f->bth.psn)) {
					missing++;
					miss_f = (long)i;
					miss_q = q;
				}
			}
		}
	}
	if (unknown != 1 && missing == 1) {
		only_f = miss_f;
		only_q = miss_q;
	} else if (unknown != 1) {
		if (fits != 1)
			return NULL;
		only_f = psn_f;
		only_q = psn_q;
	}
	struct acct_qp *q = &a->flows[only_f].qp[only_q];
	q->lqpn = f->bth.dqpn;
	q->lqpn_known = true;
	struct acct_key k;
	rp_acct_key_frame(&k, f, DIR_REV);
	if (rp_acct_map_put(&a->map, &k, (uint32_t)only_f, (uint16_t)only_q, true))
		return NULL;
	return rp_acct_map_find(&a->map, &k);
}
