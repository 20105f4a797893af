/* The verbs resources one ep peer needs, and the ops and modes they run.
 *
 * One rp_conn per peer connection: a send CQ and a receive CQ, one memory
 * region, and nqp RC QPs. The region is split in 2 * nqp slots of max_size
 * bytes: slot q is where the peer writes into us on QP q ("recv"), slot
 * nqp + q is what we send from ("send"), so a ping never overwrites the byte
 * its sender is about to change. */
#ifndef RP_VERBS_CONN_H
#define RP_VERBS_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "verbs/addr.h"
#include "verbs/device.h"
#include "verbs/oob.h"

#define RP_MAX_QP 64

enum rp_op { RP_OP_WRITE, RP_OP_WRITE_IMM, RP_OP_SEND, RP_OP_READ };
enum rp_mode { RP_MODE_LAT, RP_MODE_BW, RP_MODE_RATE };

const char *rp_op_name(enum rp_op op);
int rp_op_parse(const char *s, enum rp_op *op);
const char *rp_mode_name(enum rp_mode m);
int rp_mode_parse(const char *s, enum rp_mode *m);
/* Does the receiver's CPU see each message (it must post receives)? */
static inline int rp_op_needs_recv(enum rp_op op)
{
	return op == RP_OP_SEND || op == RP_OP_WRITE_IMM;
}

struct rp_conn_cfg {
	unsigned nqp;
	size_t max_size;  /* the largest message of the session */
	unsigned tx_depth; /* send queue depth = outstanding WRs per QP */
	unsigned rx_depth; /* receives kept posted per QP */
	unsigned cq_mod;   /* one signalled completion every cq_mod sends */
	unsigned inline_size;
	bool ud;           /* UD QPs (`ep --ud`): receive slots get RP_UD_GRH_LEN more */
	/* QP q starts at PSN rp_conn_start_psn(psn_seed, q): the caller owns
	 * the randomness (ep seeds each connection from getrandom), no hidden
	 * global state. */
	uint64_t psn_seed;
};

/* The 24-bit start PSN of QP q of a connection seeded with seed (splitmix64
 * of seed + q: distinct, well spread, the same for the same seed). */
uint32_t rp_conn_start_psn(uint64_t seed, unsigned q);

struct rp_conn {
	struct rp_dev *dev;
	struct ibv_pd *pd;
	struct ibv_cq *scq, *rcq;
	struct ibv_mr *mr;
	uint8_t *buf;
	size_t region; /* bytes per slot */
	unsigned nqp;
	struct ibv_qp *qp[RP_MAX_QP];
	uint32_t psn[RP_MAX_QP];
	struct rp_oob_rec remote[RP_MAX_QP];
	unsigned rq_posted[RP_MAX_QP];
	uint32_t max_inline;
	unsigned tx_depth, rx_depth, cq_mod;
	int fd; /* the control socket to this peer */
	/* UD: no connection; every send names the peer's AH, QPN and qkey
	 * (c->remote[q].qpn / .qkey). ud_seq numbers probes across runs so a
	 * late answer from an earlier size is never taken for a new one. */
	bool ud;
	struct ibv_ah *ah[RP_MAX_QP];
	uint32_t ud_seq;
};

static inline uint8_t *rp_conn_recv_slot(const struct rp_conn *c, unsigned q)
{
	return c->buf + (size_t)q * c->region;
}
static inline uint8_t *rp_conn_send_slot(const struct rp_conn *c, unsigned q)
{
	return c->buf + (size_t)(c->nqp + q) * c->region;
}

int rp_conn_create(struct rp_conn *c, struct rp_dev *dev, struct ibv_pd *pd, const struct rp_conn_cfg *cfg,
		   char *err, size_t errlen);
void rp_conn_destroy(struct rp_conn *c);
/* Our record for QP q; gid is our chosen GID (NULL on InfiniBand). */
void rp_conn_local_rec(const struct rp_conn *c, unsigned q, const uint8_t *gid, struct rp_oob_rec *r);

struct rp_conn_path {
	struct rp_addr_opts addr;
	int mtu;           /* enum ibv_mtu */
	uint8_t timeout;   /* local ACK timeout exponent */
	uint8_t retry_cnt;
	uint8_t rd_atomic; /* outstanding RDMA reads */
};
/* INIT -> RTR -> RTS on every QP, toward c->remote[]. UD: RTR -> RTS and an
 * address handle per QP toward c->remote[q] (rp_addr_build, as RC's RTR). */
int rp_conn_connect(struct rp_conn *c, const struct rp_conn_path *p, char *err, size_t errlen);
/* Tops up every QP to rx_depth posted receives. */
int rp_conn_fill_recvs(struct rp_conn *c, char *err, size_t errlen);

#endif
