/* The accountant: set-up and the per-packet path (see acct.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct_internal.h"

static const char *const class_names[RP_RX_CLASSES] = {
	"data", "ack", "nak", "cnp", "pfc", "pause", "other", "malformed", "echo", "icrc_bad",
};

const char *rp_rx_class_name(enum rp_rx_class c)
{
	return (unsigned)c < RP_RX_CLASSES ? class_names[c] : "?";
}

static void flow_keys(struct acct_key *data, struct acct_key *rev, const struct rp_acct_flow_cfg *c, uint16_t q)
{
	if (c->l3 == 6) {
		rp_acct_key_v6(data, c->src_ip6, c->dst_ip6, c->rqpn + q, DIR_DATA);
		rp_acct_key_v6(rev, c->dst_ip6, c->src_ip6, c->lqpn + q, DIR_REV);
	} else {
		rp_acct_key_v4(data, c->src_ip4, c->dst_ip4, c->rqpn + q, DIR_DATA);
		rp_acct_key_v4(rev, c->dst_ip4, c->src_ip4, c->lqpn + q, DIR_REV);
	}
}

/* Ids are a plan's flow indexes, so the table is about as long as the plan;
 * ids far sparser than that (a hand-made configuration) get none, and their
 * frames are found by the map. */
#define ID_TABLE_MIN 65536u

int rp_acct_ids_build(uint32_t **tab, size_t *nids, const struct rp_acct_flow_cfg *flows, size_t n)
{
	uint32_t max = 0;
	*tab = NULL;
	*nids = 0;
	for (size_t i = 0; i < n; i++)
		if (flows[i].id > max)
			max = flows[i].id;
	if (n == 0 || max >= ID_TABLE_MIN + 4 * (uint64_t)n)
		return 0;
	uint32_t *t = malloc(((size_t)max + 1) * sizeof(*t));
	if (!t)
		return -1;
	for (size_t i = 0; i <= max; i++)
		t[i] = RP_ACCT_NO_FLOW;
	for (size_t i = n; i-- > 0;) /* a repeated id: the first flow that has it */
		t[flows[i].id] = (uint32_t)i;
	*tab = t;
	*nids = (size_t)max + 1;
	return 0;
}

static int setup_flows(struct rp_acct *a, char *err, size_t errlen)
{
	size_t nkeys = 0;
	for (size_t i = 0; i < a->cfg.nflows; i++)
		nkeys += 2u * (a->cfg.flows[i].qps ? a->cfg.flows[i].qps : 1);
	a->cap_flows = a->cfg.nflows ? a->cfg.nflows : 1;
	a->flows = calloc(a->cap_flows, sizeof(*a->flows));
	if (!a->flows || rp_acct_map_init(&a->map, nkeys)) {
		snprintf(err, errlen, "out of memory for %zu flows", a->cfg.nflows);
		return -1;
	}
	for (size_t i = 0; i < a->cfg.nflows; i++) {
		const struct rp_acct_flow_cfg *c = &a->cfg.flows[i];
		if (c->l3 != 4 && c->l3 != 6) {
			snprintf(err, errlen, "flow %u: l3 is %u, not 4 or 6", c->id, c->l3);
			return -1;
		}
		if (a->cfg.poll && i % RP_ACCT_POLL_EVERY == RP_ACCT_POLL_EVERY - 1 && a->cfg.poll(a->cfg.poll_arg)) {
			snprintf(err, errlen, "stopped");
			return -1;
		}
		if (rp_acct_flow_setup(a, &a->flows[i], c)) {
			snprintf(err, errlen, "out of memory for flow %u", c->id);
			return -1;
		}
		a->nflows++;
		for (uint16_t q = 0; q < a->flows[i].cfg.qps; q++) {
			struct acct_key d, r;
			flow_keys(&d, &r, c, q);
			rp_acct_map_put(&a->map, &d, (uint32_t)i, q, false);
			rp_acct_map_put(&a->map, &r, (uint32_t)i, q, false);
		}
	}
	if (rp_acct_ids_build(&a->flow_of_id, &a->nids, a->cfg.flows, a->cfg.nflows)) {
		snprintf(err, errlen, "out of memory for %zu flows", a->cfg.nflows);
		return -1;
	}
	return 0;
}

static int setup_discovery(struct rp_acct *a, char *err, size_t errlen)
{
	if (a->cfg.max_flows == 0)
		a->cfg.max_flows = RP_ACCT_MAX_DISCOVERED;
	a->cap_flows = 16;
	a->flows = calloc(a->cap_flows, sizeof(*a->flows));
	if (!a->flows || rp_acct_map_init(&a->map, 64)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

static int setup_ports(struct rp_acct *a, char *err, size_t errlen)
{
	a->ports = calloc(a->cfg.nports ? a->cfg.nports : 1, sizeof(*a->ports));
	if (!a->ports) {
		snprintf(err, errlen, "out of memory for %zu ports", a->cfg.nports);
		return -1;
	}
	for (size_t i = 0; i < a->cfg.nports; i++) {
		struct acct_port *p = &a->ports[i];
		p->cfg = a->cfg.ports[i];
		rp_pause_init(&p->pause, p->cfg.speed_bps);
		for (unsigned q = 0; q < RP_PFC_PRIOS; q++)
			p->credited[q] = a->cfg.start_ns;
	}
	return 0;
}

struct rp_acct *rp_acct_create(const struct rp_acct_cfg *cfg, char *err, size_t errlen)
{
	struct rp_acct *a = calloc(1, sizeof(*a));
	if (!a) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	a->cfg = *cfg;
	if (!a->cfg.cnp_interval_ns)
		a->cfg.cnp_interval_ns = RP_CNP_INTERVAL_NS;
	if (!a->cfg.cnp_dscp_set && !a->cfg.cnp_dscp)
		a->cfg.cnp_dscp = RP_CNP_DSCP;
	if (!a->cfg.bin_ns)
		a->cfg.bin_ns = RP_TS_BIN_NS;
	if (!(a->scratch = calloc(1, sizeof(*a->scratch)))) {
		snprintf(err, errlen, "out of memory");
		free(a);
		return NULL;
	}
	if (cfg->results_only) { /* a merge target: its result, no receive state */
		if (rp_acct_result_init(&a->res, &a->cfg, err, errlen)) {
			free(a->scratch);
			free(a);
			return NULL;
		}
		a->nflows = a->res.nflows;
		a->ts = a->res.ts;
		a->cfg.flows = NULL; /* read here only: the rows hold what they need */
		if (setup_ports(a, err, errlen) == 0)
			return a;
		rp_acct_destroy(a);
		return NULL;
	}
	rp_hist_init(&a->res.agg);
	a->res.start_ns = cfg->start_ns;
	a->res.bin_ns = a->cfg.bin_ns;
	a->res.discovered = cfg->discover;
	int rc = cfg->discover ? setup_discovery(a, err, errlen) : setup_flows(a, err, errlen);
	a->fast = !cfg->discover && !cfg->general_only && a->nflows > 0;
	if (rc == 0)
		rc = setup_ports(a, err, errlen);
	if (rc == 0 && !(a->ts = a->res.ts = rp_acct_series_create(&a->cfg, a->nflows, false))) {
		snprintf(err, errlen, "out of memory for %zu time series bins", rp_ts_bins_for(cfg->run_ns, a->cfg.bin_ns));
		rc = -1;
	}
	if (rc) {
		rp_acct_destroy(a);
		return NULL;
	}
	a->cfg.flows = NULL; /* read here only: the flows hold their own copies */
	return a;
}

void rp_acct_destroy(struct rp_acct *a)
{
	if (!a)
		return;
	for (size_t i = 0; a->flows && i < a->nflows; i++)
		rp_acct_flow_free(&a->flows[i]);
	free(a->flows);
	free(a->flow_of_id);
	free(a->ports);
	rp_acct_map_free(&a->map);
	rp_acct_result_free(&a->res); /* and the series */
	free(a->scratch);
	free(a);
}

static uint8_t frame_ecn(const struct rp_frame *f) { return f->l3 == 4 ? f->ip4.ecn : f->ip6.ecn; }
static uint8_t frame_dscp(const struct rp_frame *f) { return f->l3 == 4 ? f->ip4.dscp : f->ip6.dscp; }
static uint8_t frame_prio(const struct rp_frame *f)
{
	return f->eth.has_vlan ? f->eth.pcp : (uint8_t)(frame_dscp(f) >> 3);
}

/* Pause time of the interval open before this event, spread over the bins. */
void rp_acct_credit_pause(struct rp_acct *a, struct acct_port *p, unsigned prio, uint64_t now)
{
	const struct rp_pause_prio *q = &p->pause.prio[prio];
	if (q->open) {
		uint64_t from = q->start_ns > p->credited[prio] ? q->start_ns : p->credited[prio];
		uint64_t to = q->until_ns < now ? q->until_ns : now;
		if (to > from)
			rp_ts_paused(a->ts, (size_t)(p - a->ports), prio, from, to);
	}
	if (now > p->credited[prio])
		p->credited[prio] = now;
}

static void rx_macctl(struct rp_acct *a, struct acct_port *p, uint64_t now)
{
	const struct rp_macctl *m = &a->f.macctl;
	for (unsigned i = 0; i < RP_PFC_PRIOS; i++) {
		bool named = m->opcode == RP_MACCTL_OP_PAUSE || (m->enable & (1u << i));
		if (!named)
			continue;
		rp_acct_credit_pause(a, p, i, now);
		rp_ts_pfc(a->ts, now, (size_t)(p - a->ports), i);
	}
	rp_pause_rx(&p->pause, now, m);
}

/* Replies go back to the data packet's sender, from the QP it addressed. */
static void reply_addr(const struct rp_acct *a, const struct rp_frame *f, const struct acct_qp *q,
		       struct rp_reply *r)
{
	r->eth = f->eth;
	memcpy(r->eth.dst, f->eth.src, 6);
	memcpy(r->eth.src, f->eth.dst, 6);
	r->l3 = f->l3;
	r->ip4_src = f->ip4.dst;
	r->ip4_dst = f->ip4.src;
	memcpy(r->ip6_src, f->ip6.dst, 16);
	memcpy(r->ip6_dst, f->ip6.src, 16);
	r->dqpn = q->lqpn;
	r->udp_sport = a->cfg.reply_sport ? a->cfg.reply_sport : f->udp.sport;
	r->dscp = frame_dscp(f);
	r->ecn = frame_ecn(f) != RP_ECN_NOT_ECT ? RP_ECN_ECT0 : RP_ECN_NOT_ECT;
}

/* Keeps the replies the flow asked for (the decisions are made regardless,
 * so the receiver's PSN state stays right). */
static unsigned keep_wanted(struct rp_reply *r, uint8_t want)
{
	unsigned n = 0;
	for (unsigned i = 0; i < r->n; i++) {
		enum rp_reply_kind k = r->msg[i].kind;
		uint8_t bit = k == RP_REPLY_CNP ? RP_ACCT_REPLY_CNP : k == RP_REPLY_ACK ? RP_ACCT_REPLY_ACK
											 : RP_ACCT_REPLY_NAK;
		if (want & bit)
			r->msg[n++] = r->msg[i];
	}
	return r->n = n;
}

void rp_acct_respond(struct rp_acct *a, uint32_t fi, uint16_t qi, uint64_t now, bool ce, struct rp_reply *r)
{
	struct acct_flow *fl = &a->flows[fi];
	struct acct_qp *q = &fl->qp[qi];
	const struct rp_frame *f = &a->f;
	struct rp_rcv_pkt pkt = {.opcode = f->bth.opcode, .psn = f->bth.psn, .ack_req = f->bth.ack_req,
				 .ce = ce && (fl->cfg.reply & RP_ACCT_REPLY_CNP)};
	uint64_t interval = fl->cfg.cnp_interval_set ? fl->cfg.cnp_interval_ns : a->cfg.cnp_interval_ns;
	r->n = rp_rcv_data(&q->rcv, interval, (enum rp_cnp_mode)fl->cfg.cnp_mode, a->cfg.reply_strict, now, &pkt, r->msg);
	if (keep_wanted(r, fl->cfg.reply) == 0)
		return;
	r->flow = fi;
	r->qp = qi;
	reply_addr(a, f, q, r);
	r->cnp_dscp = fl->cfg.cnp_dscp ? fl->cfg.cnp_dscp : a->cfg.cnp_dscp;
	r->cnp_pcp = (uint8_t)(r->cnp_dscp >> 3);
	for (unsigned i = 0; i < r->n; i++) {
		if (r->msg[i].kind == RP_REPLY_CNP) {
			fl->r.cnp_tx++;
			rp_ts_add(a->ts, now, RP_TS_CNP_TX, 1);
		}
	}
}

/* The probe back to its sender (RP_REPLY_ECHO), after the replies the flow's
 * responder decided (addressed like them: r->n == 0 means none were). */
void rp_acct_echo(struct rp_acct *a, uint32_t fi, uint16_t qi, const struct acct_pkt *k, struct rp_reply *r)
{
	struct acct_flow *fl = &a->flows[fi];
	if (r->n == 0) {
		r->flow = fi;
		r->qp = qi;
		reply_addr(a, &a->f, &fl->qp[qi], r);
	}
	if (r->n >= RP_REPLY_MAX)
		return;
	r->msg[r->n++] = (struct rp_reply_msg){.kind = RP_REPLY_ECHO, .psn = k->psn, .msn = fl->qp[qi].rcv.msn,
					       .flow_id = k->probe.flow_id, .seq = k->probe.seq,
					       .tx_ns = k->probe.tx_ns};
	fl->r.echo_tx++;
}

/* The general parse's data frame, as rp_acct_data reads it. */
static void general_pkt(const struct rp_frame *f, struct acct_pkt *k)
{
	*k = (struct acct_pkt){.opcode = f->bth.opcode, .psn = f->bth.psn, .ce = frame_ecn(f) == RP_ECN_CE,
			       .prio = frame_prio(f), .has_probe = f->has_probe, .probe = f->probe,
			       .payload_len = f->payload_len, .dst_mac = f->eth.dst};
}

/* A probe names its flow; the DestQP must agree, or the map decides. */
static const struct acct_slot *data_slot(struct rp_acct *a, struct acct_slot *tmp)
{
	const struct rp_frame *f = &a->f;
	uint32_t fi = f->has_probe && !a->cfg.discover ? rp_acct_flow_of_id(a, f->probe.flow_id) : RP_ACCT_NO_FLOW;
	if (fi != RP_ACCT_NO_FLOW) {
		const struct acct_flow *fl = &a->flows[fi];
		uint32_t q = (f->bth.dqpn - fl->cfg.rqpn) & RP_QPN_MASK;
		if (q < fl->cfg.qps) {
			*tmp = (struct acct_slot){.key.dir = DIR_DATA, .flow = fi, .qp = (uint16_t)q, .used = 1};
			return tmp;
		}
	}
	struct acct_key k;
	rp_acct_key_frame(&k, f, DIR_DATA);
	const struct acct_slot *s = rp_acct_map_find(&a->map, &k);
	if (!s && a->cfg.discover)
		s = rp_acct_discover_data(a, f);
	return s;
}

/* The flow QP whose sender the frame goes back to; in discovery found by
 * elimination when not yet known (rp_acct_discover_rev; reads: among the
 * QPs that sent READ requests, for a read response). */
static const struct acct_slot *rev_slot_of(struct rp_acct *a, bool reads)
{
	struct acct_key k;
	rp_acct_key_frame(&k, &a->f, DIR_REV);
	const struct acct_slot *s = rp_acct_map_find(&a->map, &k);
	if (!s && a->cfg.discover)
		s = rp_acct_discover_rev(a, &a->f, reads);
	return s;
}

static const struct acct_slot *rev_slot(struct rp_acct *a)
{
	return rev_slot_of(a, false);
}

static void stamp(uint64_t *count, uint64_t *first, uint64_t *last, uint64_t now)
{
	if ((*count)++ == 0)
		*first = now;
	*last = now;
}

static enum rp_rx_class rx_cnp(struct rp_acct *a, uint64_t now)
{
	const struct acct_slot *s = rev_slot(a);
	if (!s) {
		a->unmatched++;
		return RP_RX_CNP;
	}
	struct acct_flow *fl = &a->flows[s->flow];
	struct acct_qp *q = &fl->qp[s->qp];
	fl->r.cnp_rx++;
	stamp(&q->cnps, &q->cnp_first, &q->cnp_last, now);
	rp_ts_add(a->ts, now, RP_TS_CNP_RX, 1);
	return RP_RX_CNP;
}

static bool is_read_response_opcode(uint8_t op)
{
	return op >= RP_OP_RC_READ_RESP_FIRST && op <= RP_OP_RC_READ_RESP_ONLY;
}

/* ACK, NAK, atomic ACK, or a read response coming back to the requester. */
static enum rp_rx_class rx_response(struct rp_acct *a, const struct acct_slot *s, uint64_t now)
{
	const struct rp_frame *f = &a->f;
	bool has_aeth = (f->ext & RP_EXT_AETH) != 0;
	enum rp_aeth_kind k = has_aeth ? rp_aeth_kind(f->aeth.syndrome) : RP_AETH_ACK;
	bool nak = k == RP_AETH_NAK || k == RP_AETH_RNR_NAK;
	if (!s) {
		a->unmatched++;
		return nak ? RP_RX_NAK : RP_RX_ACK;
	}
	struct acct_flow *fl = &a->flows[s->flow];
	struct acct_qp *q = &fl->qp[s->qp];
	if (nak) {
		fl->r.naks++;
		stamp(&q->naks, &q->nak_first, &q->nak_last, now);
		rp_ts_add(a->ts, now, RP_TS_NAKS, 1);
		if (k == RP_AETH_NAK && rp_aeth_value(f->aeth.syndrome) == RP_NAK_PSN_SEQ_ERR)
			rp_psn_nak(&q->psn, now, f->bth.psn);
		return RP_RX_NAK;
	}
	if (is_read_response_opcode(f->bth.opcode)) /* the PSNs its READ request took */
		rp_psn_read_response(&q->psn, f->bth.psn);
	fl->r.acks++;
	stamp(&q->acks, &q->ack_first, &q->ack_last, now);
	rp_ts_add(a->ts, now, RP_TS_ACKS, 1);
	return RP_RX_ACK;
}

/* A probe echoed back (RP_REPLY_ECHO) at its sender (s: the reverse slot of
 * its flow's QP): the round trip on this clock, the one that stamped it. */
static enum rp_rx_class rx_echo(struct rp_acct *a, const struct acct_slot *s, uint64_t now)
{
	const struct rp_probe *pr = &a->f.probe;
	if (a->flows[s->flow].cfg.id != pr->flow_id) {
		a->unmatched++;
		return RP_RX_ECHO;
	}
	struct acct_flow *fl = &a->flows[s->flow];
	fl->r.echo_rx++;
	if (now >= pr->tx_ns)
		rp_shist_record(&fl->rtt, now - pr->tx_ns);
	return RP_RX_ECHO;
}

static bool is_response_opcode(uint8_t op)
{
	return op == RP_OP_RC_ACK || op == RP_OP_RC_ATOMIC_ACK;
}

static enum rp_rx_class rx_roce(struct rp_acct *a, struct acct_port *p, uint64_t now, size_t wire_len,
				struct rp_reply *reply)
{
	uint8_t op = a->f.bth.opcode;
	if (is_response_opcode(op))
		return rx_response(a, rev_slot(a), now);
	/* A READ response ONLY with a probe, to a flow's sender QP, is an echo (one
	 * to a receiver's QP is a read_resp data flow's, below). */
	const struct acct_slot *rs = op == RP_OP_RC_READ_RESP_ONLY && a->f.has_probe ? rev_slot(a) : NULL;
	if (rs)
		return rx_echo(a, rs, now);
	/* A read response on its way to its requester: known by the QP number
	 * (its ACKs named it), else found among the QPs that sent READ requests. */
	if (is_read_response_opcode(op) && (rs = rev_slot_of(a, true)) != NULL)
		return rx_response(a, rs, now);
	struct acct_slot tmp;
	const struct acct_slot *s = data_slot(a, &tmp);
	if (!s) {
		a->unmatched++;
		a->unmatched_data++;
		return RP_RX_OTHER;
	}
	if (a->cfg.dst_port_check && !rp_acct_at_destination(a, p, &a->flows[s->flow], a->f.eth.dst)) {
		a->flows[s->flow].r.misdelivered++;
		if (p) {
			p->r.misdelivered++;
			p->r.misdelivered_bytes += wire_len;
		}
		return RP_RX_OTHER;
	}
	a->flows[s->flow].qp[s->qp].reads |= op == RP_OP_RC_READ_REQUEST;
	struct acct_pkt k;
	general_pkt(&a->f, &k);
	rp_acct_data(a, p, s->flow, s->qp, now, wire_len, &k, reply);
	return RP_RX_DATA;
}

/* A RoCE frame (or CNP) that arrived whole with a wrong ICRC: a NIC drops
 * it, so it is no data, ACK, NAK or CNP here either. A data frame of a known
 * flow (at its destination) counts in the flow's icrc_bad and, where its
 * PSN or probe sequence is the next expected one, holds that place as a gap
 * (rp_psn_hole, rp_seq_hole): lost, unless sent again. Its other headers are
 * not trusted further than that. */
static enum rp_rx_class rx_icrc_bad(struct rp_acct *a, struct acct_port *p)
{
	const struct rp_frame *f = &a->f;
	uint8_t op = f->bth.opcode;
	if (f->kind != RP_KIND_ROCE || is_response_opcode(op) || is_read_response_opcode(op))
		return RP_RX_ICRC_BAD;
	struct acct_slot tmp;
	const struct acct_slot *s = data_slot(a, &tmp);
	if (!s)
		return RP_RX_ICRC_BAD;
	struct acct_flow *fl = &a->flows[s->flow];
	if (a->cfg.dst_port_check && !rp_acct_at_destination(a, p, fl, f->eth.dst))
		return RP_RX_ICRC_BAD;
	fl->r.icrc_bad++;
	if (a->cfg.track_psn)
		rp_psn_hole(&fl->qp[s->qp].psn, f->bth.psn);
	if (f->has_probe) {
		if (!fl->seq.started && f->probe.seq == 0)
			rp_seq_init(&fl->seq, 0); /* the run's first probe: as rp_acct_probe starts it */
		if (rp_seq_hole(&fl->seq, f->probe.seq))
			fl->probes = true;
	}
	return RP_RX_ICRC_BAD;
}

static enum rp_rx_class classify(struct rp_acct *a, struct acct_port *p, uint64_t now, size_t wire_len,
				 struct rp_reply *reply)
{
	if (a->f.icrc_checked && !a->f.icrc_ok)
		return rx_icrc_bad(a, p);
	switch (a->f.kind) {
	case RP_KIND_ROCE:
		return rx_roce(a, p, now, wire_len, reply);
	case RP_KIND_CNP:
		return rx_cnp(a, now);
	case RP_KIND_PFC:
	case RP_KIND_PAUSE:
		if (p)
			rx_macctl(a, p, now);
		return a->f.kind == RP_KIND_PFC ? RP_RX_PFC : RP_RX_PAUSE;
	case RP_KIND_MALFORMED:
		return RP_RX_MALFORMED;
	default:
		return RP_RX_OTHER;
	}
}

enum rp_rx_class rp_acct_rx(struct rp_acct *a, unsigned port, uint64_t now_ns, const uint8_t *buf, size_t caplen,
			    size_t wire_len, struct rp_reply *reply_out)
{
	struct rp_acct_pre pre = {.taken = false};
	if (a->fast)
		rp_acct_pre(buf, caplen, wire_len, &pre);
	return rp_acct_rx_pre(a, port, now_ns, buf, caplen, wire_len, &pre, reply_out);
}

enum rp_rx_class rp_acct_rx_trusted(struct rp_acct *a, unsigned port, uint64_t now_ns, const uint8_t *buf,
				    size_t len, struct rp_reply *reply_out)
{
	struct rp_acct_pre pre = {.taken = false};
	if (a->fast) {
		pre.taken = rp_fp_parse(buf, len, &pre.fp) && pre.fp.has_probe;
		pre.icrc_ok = pre.taken;
	}
	return rp_acct_rx_pre(a, port, now_ns, buf, len, len, &pre, reply_out);
}

enum rp_rx_class rp_acct_rx_pre(struct rp_acct *a, unsigned port, uint64_t now_ns, const uint8_t *buf, size_t caplen,
				size_t wire_len, const struct rp_acct_pre *pre, struct rp_reply *reply_out)
{
	if (reply_out)
		reply_out->n = 0;
	if (a->cfg.results_only) { /* a merged result takes no frames */
		a->unmatched++;
		return RP_RX_OTHER;
	}
	if (wire_len < caplen)
		wire_len = caplen;
	struct acct_port *p = port < a->cfg.nports ? &a->ports[port] : NULL;
	if (a->fast && pre->taken && pre->icrc_ok && rp_acct_rx_fast(a, p, now_ns, buf, caplen, pre, reply_out))
		return RP_RX_DATA;
	rp_frame_parse(buf, caplen, wire_len, &a->f);
	enum rp_rx_class c = classify(a, p, now_ns, wire_len, reply_out);
	if (p)
		rp_acct_port_rx(p, wire_len, c, a->f.icrc_checked && !a->f.icrc_ok);
	return c;
}

int rp_acct_message(struct rp_acct *a, size_t flow, unsigned port, uint64_t now_ns, const struct rp_probe *probe,
		    size_t bytes)
{
	struct acct_port *p = port < a->cfg.nports ? &a->ports[port] : NULL;
	if (flow >= a->nflows || a->cfg.results_only || a->flows[flow].cfg.id != probe->flow_id) {
		a->unmatched++;
		if (p)
			p->r.class_frames[RP_RX_OTHER]++;
		return -1;
	}
	struct acct_flow *fl = &a->flows[flow];
	rp_acct_count_arrivals(fl, now_ns, 1, bytes);
	if (!rp_acct_probe(a, fl, probe, now_ns, NULL))
		fl->r.rx_payload_bytes += bytes;
	rp_ts_rx(a->ts, now_ns, flow, bytes, false);
	if (p) {
		p->r.rx_frames++;
		p->r.rx_bytes += bytes;
		p->r.class_frames[RP_RX_DATA]++;
	}
	return 0;
}

void rp_acct_pfc_tx(struct rp_acct *a, unsigned port, const uint8_t *buf, size_t len)
{
	if (port >= a->cfg.nports)
		return;
	enum rp_frame_kind k = rp_frame_parse(buf, len, len, &a->f);
	if (k != RP_KIND_PFC && k != RP_KIND_PAUSE)
		return;
	struct acct_port *p = &a->ports[port];
	for (unsigned i = 0; i < RP_PFC_PRIOS; i++)
		if (a->f.kind == RP_KIND_PAUSE || (a->f.macctl.enable & (1u << i)))
			p->r.prio[i].pfc_tx++;
}

void rp_acct_add_drops(struct rp_acct *a, unsigned port, unsigned prio, uint64_t n)
{
	if (port < a->cfg.nports && prio < RP_PFC_PRIOS)
		a->ports[port].r.prio[prio].drops += n;
}

uint64_t rp_acct_fast_frames(const struct rp_acct *a)
{
	return a->fast_frames;
}

void rp_acct_set_in_flight(struct rp_acct *a, size_t flow, uint64_t packets)
{
	if (flow < a->nflows && !a->cfg.results_only)
		a->flows[flow].in_flight = packets;
}

uint64_t rp_acct_flow_in_flight(const struct rp_acct *a, size_t flow)
{
	return flow < a->nflows && !a->cfg.results_only ? a->flows[flow].in_flight : 0;
}

void rp_acct_set_tx(struct rp_acct *a, size_t flow, uint64_t packets, uint64_t bytes)
{
	if (flow >= a->nflows || a->cfg.results_only)
		return;
	a->flows[flow].r.tx_packets = packets;
	a->flows[flow].r.tx_bytes = bytes;
	a->flows[flow].tx_known = true;
}
