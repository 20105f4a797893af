/* One flow of the accountant: its state, set up once (never per packet). */
#include <stdlib.h>
#include <string.h>

#include "acct_internal.h"

static void qp_init(struct acct_qp *q, const struct rp_acct_flow_cfg *cfg, uint32_t dqpn)
{
	memset(q, 0, sizeof(*q));
	q->dqpn = dqpn & RP_QPN_MASK;
	rp_rcv_qp_init(&q->rcv, true, cfg->psn_start);
	rp_psn_init(&q->psn);
}

int rp_acct_flow_add_qp(struct acct_flow *fl, uint32_t dqpn)
{
	if (fl->nqp == fl->cap_qp) {
		if (fl->cap_qp >= UINT16_MAX / 2)
			return -1;
		uint16_t cap = fl->cap_qp ? (uint16_t)(fl->cap_qp * 2) : 4;
		struct acct_qp *n = realloc(fl->qp, cap * sizeof(*n));
		if (!n)
			return -1;
		fl->qp = n;
		fl->cap_qp = cap;
	}
	qp_init(&fl->qp[fl->nqp], &fl->cfg, dqpn);
	fl->nqp++;
	return 0;
}

struct acct_psn_hists *rp_acct_flow_ph(struct acct_flow *fl)
{
	if (!fl->ph && (fl->ph = malloc(sizeof(*fl->ph)))) {
		rp_shist_init(&fl->ph->msg);
		rp_shist_init(&fl->ph->nak_resend);
	}
	return fl->ph;
}

/* Configured flows get all their QPs here; discovered ones add them as seen. */
int rp_acct_flow_setup(struct rp_acct *a, struct acct_flow *fl, const struct rp_acct_flow_cfg *cfg)
{
	memset(fl, 0, sizeof(*fl));
	fl->cfg = *cfg;
	static const uint8_t zero[6];
	fl->check_mac = memcmp(cfg->dst_mac, zero, sizeof(zero)) != 0;
	if (fl->cfg.qps == 0)
		fl->cfg.qps = 1;
	if (a->cfg.seq_from_first)
		rp_seq_init_from_first(&fl->seq);
	else
		rp_seq_init(&fl->seq, 0);
	rp_shist_init(&fl->lat);
	rp_shist_init(&fl->rtt);
	if (a->cfg.discover)
		return 0;
	if (!(fl->qp = malloc(fl->cfg.qps * sizeof(*fl->qp)))) /* exactly its QPs: no slack per flow */
		return -1;
	fl->cap_qp = fl->cfg.qps;
	for (uint16_t q = 0; q < fl->cfg.qps; q++) {
		if (rp_acct_flow_add_qp(fl, fl->cfg.rqpn + q))
			return -1;
		fl->qp[q].lqpn = (fl->cfg.lqpn + q) & RP_QPN_MASK;
		fl->qp[q].lqpn_known = true;
	}
	return 0;
}

void rp_acct_flow_free(struct acct_flow *fl)
{
	rp_shist_free(&fl->lat);
	if (fl->ph) {
		rp_shist_free(&fl->ph->msg);
		rp_shist_free(&fl->ph->nak_resend);
		free(fl->ph);
	}
	rp_shist_free(&fl->rtt);
	rp_seq_free(&fl->seq);
	for (uint16_t q = 0; q < fl->nqp; q++)
		rp_psn_free(&fl->qp[q].psn);
	free(fl->qp);
	memset(fl, 0, sizeof(*fl));
}
