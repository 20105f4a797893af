/* A reliable-connected QP through its states, as the IB spec orders them:
 *   RESET -> INIT (port, access rights) -> RTR (peer: address, QPN, its PSN,
 *   path MTU) -> RTS (our PSN, ACK timeout, retry counts).
 * Each step is one function so a failure names the step that failed. */
#ifndef RP_VERBS_QP_H
#define RP_VERBS_QP_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

struct rp_qp_caps {
	int ud; /* 1: an Unreliable Datagram QP (IBV_QPT_UD), else RC */
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_inline; /* asked; the provider may grant more or refuse */
};

/* Returns the QP or NULL with err set. caps->max_inline is updated to what
 * the provider granted; when it refuses inline data at all, the QP is made
 * without (inline is an optimisation, not a requirement). */
struct ibv_qp *rp_qp_create(struct ibv_pd *pd, struct ibv_cq *scq, struct ibv_cq *rcq,
			    struct rp_qp_caps *caps, char *err, size_t errlen);

int rp_qp_to_init(struct ibv_qp *qp, uint8_t port, char *err, size_t errlen);

struct rp_qp_rtr {
	struct ibv_ah_attr ah;
	uint32_t dest_qpn;
	uint32_t rq_psn;        /* the peer's starting PSN */
	enum ibv_mtu mtu;
	uint8_t max_dest_rd_atomic; /* RDMA reads we serve at once */
	uint8_t min_rnr_timer;      /* 12 = 0.64 ms, as perftest */
};
int rp_qp_to_rtr(struct ibv_qp *qp, const struct rp_qp_rtr *r, char *err, size_t errlen);

struct rp_qp_rts {
	uint32_t sq_psn;
	uint8_t timeout;   /* 4.096 us * 2^timeout; 14 = 67 ms */
	uint8_t retry_cnt; /* 7 = the maximum */
	uint8_t rnr_retry; /* 7 = retry forever */
	uint8_t max_rd_atomic;
};
int rp_qp_to_rts(struct ibv_qp *qp, const struct rp_qp_rts *r, char *err, size_t errlen);

/* Unreliable Datagram (`ep --ud`): no connection, so no peer in the QP itself.
 *   RESET -> INIT (pkey index, port, qkey) -> RTR (state only) -> RTS (sq_psn).
 * Every send names its destination (an address handle, QPN and qkey); a
 * message is one packet, so it must fit the path MTU, and every receive buffer
 * gets RP_UD_GRH_LEN bytes in front for the GRH the HCA writes there (on RoCE
 * v2 over IPv4, the IPv4 header in its last 20 bytes). */
#define RP_UD_QKEY 0x11111111u
#define RP_UD_GRH_LEN 40
int rp_qp_ud_to_init(struct ibv_qp *qp, uint8_t port, uint32_t qkey, char *err, size_t errlen);
int rp_qp_ud_to_rtr(struct ibv_qp *qp, char *err, size_t errlen);
int rp_qp_ud_to_rts(struct ibv_qp *qp, uint32_t sq_psn, char *err, size_t errlen);
/* Pure: 0 when a UD message of size bytes fits the path MTU (bytes), else -1
 * with a one-line reason in err. */
int rp_ud_check_size(size_t size, unsigned mtu_bytes, char *err, size_t errlen);

#endif
