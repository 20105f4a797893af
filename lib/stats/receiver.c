#include "receiver.h"

#include <string.h>

#include "psn.h"
#include "wire/frame.h"

void rp_rcv_qp_init(struct rp_rcv_qp *q, bool psn_known, uint32_t psn_start)
{
	memset(q, 0, sizeof(*q));
	q->started = psn_known;
	q->epsn = psn_start & RP_PSN_MASK;
}

static bool ends_message(uint8_t op)
{
	switch (op) {
	case RP_OP_RC_SEND_LAST: case RP_OP_RC_SEND_LAST_IMM: case RP_OP_RC_SEND_LAST_INV:
	case RP_OP_RC_SEND_ONLY: case RP_OP_RC_SEND_ONLY_IMM: case RP_OP_RC_SEND_ONLY_INV:
	case RP_OP_RC_WRITE_LAST: case RP_OP_RC_WRITE_LAST_IMM: case RP_OP_RC_WRITE_ONLY:
	case RP_OP_RC_WRITE_ONLY_IMM: case RP_OP_RC_READ_RESP_LAST: case RP_OP_RC_READ_RESP_ONLY:
	case RP_OP_RC_READ_REQUEST: case RP_OP_RC_CMP_SWAP: case RP_OP_RC_FETCH_ADD:
		return true;
	default:
		return false;
	}
}

/* A CE mark at now: true for a CNP, to go at *at (now, or in paper mode
 * the end of the window the mark fell in). */
static bool cnp_due(struct rp_rcv_qp *q, uint64_t interval, enum rp_cnp_mode mode, uint64_t now, uint64_t *at)
{
	*at = now;
	if (q->cnp_ever && q->last_cnp_ns > now) /* paper: the CNP due at this window's end covers it */
		return false;
	if (q->cnp_ever && now - q->last_cnp_ns < interval) {
		if (mode == RP_CNP_FIRST)
			return false;
		*at = q->last_cnp_ns + interval;
	}
	q->cnp_ever = true;
	q->last_cnp_ns = *at;
	q->cnps++;
	return true;
}

/* The packet at the expected PSN: accept it, ACK when asked. */
static unsigned accept(struct rp_rcv_qp *q, const struct rp_rcv_pkt *pkt, struct rp_reply_msg *out)
{
	q->epsn = rp_psn_add(pkt->psn, 1);
	q->nak_sent = false;
	if (ends_message(pkt->opcode))
		q->msn = (q->msn + 1) & 0xFFFFFF;
	if (!pkt->ack_req)
		return 0;
	q->acks++;
	*out = (struct rp_reply_msg){.kind = RP_REPLY_ACK, .psn = pkt->psn, .msn = q->msn};
	return 1;
}

static unsigned gap(struct rp_rcv_qp *q, bool strict, const struct rp_rcv_pkt *pkt, struct rp_reply_msg *out)
{
	if (strict && q->nak_sent)
		return 0;
	q->naks++;
	*out = (struct rp_reply_msg){.kind = RP_REPLY_NAK, .psn = q->epsn, .msn = q->msn};
	if (strict) {
		q->nak_sent = true;
		return 1;
	}
	struct rp_reply_msg ack; /* resync: the packet itself is taken, its AckReq answered by the NAK */
	struct rp_rcv_pkt quiet = *pkt;
	quiet.ack_req = false;
	accept(q, &quiet, &ack);
	return 1;
}

unsigned rp_rcv_data(struct rp_rcv_qp *q, uint64_t cnp_interval_ns, enum rp_cnp_mode mode, bool strict,
		     uint64_t now_ns, const struct rp_rcv_pkt *pkt, struct rp_reply_msg out[RP_REPLY_MAX])
{
	unsigned n = 0;
	uint64_t at;
	if (pkt->ce && cnp_due(q, cnp_interval_ns, mode, now_ns, &at))
		out[n++] = (struct rp_reply_msg){.kind = RP_REPLY_CNP, .at_ns = at > now_ns ? at : 0};
	if (!q->started) {
		q->started = true;
		q->epsn = pkt->psn & RP_PSN_MASK;
	}
	int32_t d = rp_psn_diff(q->epsn, pkt->psn);
	if (d == 0)
		return n + accept(q, pkt, &out[n]);
	if (d > 0)
		return n + gap(q, strict, pkt, &out[n]);
	if (!pkt->ack_req)
		return n;
	q->acks++;
	out[n] = (struct rp_reply_msg){.kind = RP_REPLY_ACK, .psn = rp_psn_add(q->epsn, RP_PSN_MASK), .msn = q->msn};
	return n + 1;
}

static void reply_spec(const struct rp_reply *r, const struct rp_reply_msg *m, struct rp_roce_spec *s)
{
	memset(s, 0, sizeof(*s));
	s->eth = r->eth;
	bool cnp = m->kind == RP_REPLY_CNP;
	if (cnp && r->eth.has_vlan)
		s->eth.pcp = r->cnp_pcp;
	uint8_t dscp = cnp ? r->cnp_dscp : r->dscp, ecn = cnp ? 0 : r->ecn;
	s->l3 = r->l3;
	if (r->l3 == 4) {
		s->ip4 = (struct rp_ipv4){.dscp = dscp, .ecn = ecn, .df = true, .ttl = 64, .proto = RP_IPPROTO_UDP,
					  .src = r->ip4_src, .dst = r->ip4_dst};
	} else {
		s->ip6 = (struct rp_ipv6){.dscp = dscp, .ecn = ecn, .next_header = RP_IPPROTO_UDP, .hop_limit = 64};
		memcpy(s->ip6.src, r->ip6_src, 16);
		memcpy(s->ip6.dst, r->ip6_dst, 16);
	}
	s->udp_sport = r->udp_sport;
	s->bth = (struct rp_bth){.pkey = 0xFFFF, .dqpn = r->dqpn & RP_QPN_MASK, .psn = m->psn & RP_PSN_MASK};
	if (cnp) {
		s->bth.opcode = RP_OP_CNP;
		s->bth.becn = true;
		s->bth.psn = 0;
		return;
	}
	s->bth.opcode = m->kind == RP_REPLY_ECHO ? RP_OP_RC_READ_RESP_ONLY : RP_OP_RC_ACK;
	uint8_t syn = m->kind != RP_REPLY_NAK ? rp_aeth_syndrome(RP_AETH_ACK, RP_AETH_CREDITS_INVALID)
					      : rp_aeth_syndrome(RP_AETH_NAK, RP_NAK_PSN_SEQ_ERR);
	s->aeth = (struct rp_aeth){.syndrome = syn, .msn = m->msn & 0xFFFFFF};
}

size_t rp_reply_build(const struct rp_reply *r, unsigned i, uint8_t *buf, size_t cap)
{
	if (i >= r->n || i >= RP_REPLY_MAX)
		return 0;
	struct rp_roce_spec s;
	uint8_t probe[RP_PROBE_LEN];
	reply_spec(r, &r->msg[i], &s);
	if (r->msg[i].kind == RP_REPLY_ECHO) {
		const struct rp_reply_msg *m = &r->msg[i];
		struct rp_probe p = {.flow_id = m->flow_id, .seq = m->seq, .tx_ns = m->tx_ns};
		s.payload_len = rp_probe_build(probe, sizeof(probe), &p);
		s.payload = probe;
	}
	return rp_roce_build(buf, cap, &s, NULL);
}
