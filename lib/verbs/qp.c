#include "verbs/qp.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

struct ibv_qp *rp_qp_create(struct ibv_pd *pd, struct ibv_cq *scq, struct ibv_cq *rcq,
			    struct rp_qp_caps *caps, char *err, size_t errlen)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = scq,
		.recv_cq = rcq,
		.cap = {.max_send_wr = caps->max_send_wr,
			.max_recv_wr = caps->max_recv_wr,
			.max_send_sge = 1,
			.max_recv_sge = 1,
			.max_inline_data = caps->max_inline},
		.qp_type = caps->ud ? IBV_QPT_UD : IBV_QPT_RC,
		.sq_sig_all = 0, /* we choose which sends complete (CQ moderation) */
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &ia);
	if (!qp && caps->max_inline) {
		ia.cap.max_inline_data = 0;
		qp = ibv_create_qp(pd, &ia);
	}
	if (!qp) {
		snprintf(err, errlen, "ibv_create_qp(%s, send %u, recv %u): %s", caps->ud ? "UD" : "RC", caps->max_send_wr, caps->max_recv_wr,
			 strerror(errno));
		return NULL;
	}
	caps->max_inline = ia.cap.max_inline_data;
	return qp;
}

int rp_qp_to_init(struct ibv_qp *qp, uint8_t port, char *err, size_t errlen)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = port,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_LOCAL_WRITE,
	};
	int rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (rc)
		snprintf(err, errlen, "QP %u RESET->INIT: %s", qp->qp_num, strerror(rc));
	return rc ? -1 : 0;
}

int rp_qp_to_rtr(struct ibv_qp *qp, const struct rp_qp_rtr *r, char *err, size_t errlen)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = r->mtu,
		.dest_qp_num = r->dest_qpn,
		.rq_psn = r->rq_psn & 0xffffff,
		.max_dest_rd_atomic = r->max_dest_rd_atomic ? r->max_dest_rd_atomic : 1,
		.min_rnr_timer = r->min_rnr_timer ? r->min_rnr_timer : 12,
		.ah_attr = r->ah,
	};
	int rc = ibv_modify_qp(qp, &a,
			       IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				       IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (rc)
		snprintf(err, errlen, "QP %u INIT->RTR (peer QP %u): %s", qp->qp_num, r->dest_qpn, strerror(rc));
	return rc ? -1 : 0;
}

int rp_qp_to_rts(struct ibv_qp *qp, const struct rp_qp_rts *r, char *err, size_t errlen)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTS,
		.sq_psn = r->sq_psn & 0xffffff,
		.timeout = r->timeout,
		.retry_cnt = r->retry_cnt,
		.rnr_retry = r->rnr_retry,
		.max_rd_atomic = r->max_rd_atomic ? r->max_rd_atomic : 1,
	};
	int rc = ibv_modify_qp(qp, &a,
			       IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				       IBV_QP_MAX_QP_RD_ATOMIC);
	if (rc)
		snprintf(err, errlen, "QP %u RTR->RTS: %s", qp->qp_num, strerror(rc));
	return rc ? -1 : 0;
}

int rp_qp_ud_to_init(struct ibv_qp *qp, uint8_t port, uint32_t qkey, char *err, size_t errlen)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = port,
		.qkey = qkey,
	};
	int rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY);
	if (rc)
		snprintf(err, errlen, "UD QP %u RESET->INIT: %s", qp->qp_num, strerror(rc));
	return rc ? -1 : 0;
}

int rp_qp_ud_to_rtr(struct ibv_qp *qp, char *err, size_t errlen)
{
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_RTR};
	int rc = ibv_modify_qp(qp, &a, IBV_QP_STATE);
	if (rc)
		snprintf(err, errlen, "UD QP %u INIT->RTR: %s", qp->qp_num, strerror(rc));
	return rc ? -1 : 0;
}

int rp_qp_ud_to_rts(struct ibv_qp *qp, uint32_t sq_psn, char *err, size_t errlen)
{
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_RTS, .sq_psn = sq_psn & 0xffffff};
	int rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
	if (rc)
		snprintf(err, errlen, "UD QP %u RTR->RTS: %s", qp->qp_num, strerror(rc));
	return rc ? -1 : 0;
}

int rp_ud_check_size(size_t size, unsigned mtu_bytes, char *err, size_t errlen)
{
	if (size == 0) {
		snprintf(err, errlen, "UD message size must be at least 1 byte");
		return -1;
	}
	if (mtu_bytes == 0 || size > mtu_bytes) {
		snprintf(err, errlen,
			 "UD message size %zu B is above the path MTU %u B (a UD message is one packet: %u B or "
			 "less)",
			 size, mtu_bytes, mtu_bytes);
		return -1;
	}
	return 0;
}
