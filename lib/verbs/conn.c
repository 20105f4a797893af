#include "verbs/conn.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "verbs/qp.h"

static const char *const op_names[] = {"write", "write_imm", "send", "read"};
static const char *const mode_names[] = {"lat", "bw", "rate"};

const char *rp_op_name(enum rp_op op)
{
	return op_names[op];
}

int rp_op_parse(const char *s, enum rp_op *op)
{
	for (int i = 0; i < 4; i++)
		if (strcmp(s, op_names[i]) == 0) {
			*op = (enum rp_op)i;
			return 0;
		}
	return -1;
}

const char *rp_mode_name(enum rp_mode m)
{
	return mode_names[m];
}

int rp_mode_parse(const char *s, enum rp_mode *m)
{
	for (int i = 0; i < 3; i++)
		if (strcmp(s, mode_names[i]) == 0 ||
		    (i == 0 && strcmp(s, "latency") == 0) || (i == 1 && strcmp(s, "bandwidth") == 0)) {
			*m = (enum rp_mode)i;
			return 0;
		}
	return -1;
}

uint32_t rp_conn_start_psn(uint64_t seed, unsigned q)
{
	uint64_t z = seed + (q + 1) * 0x9E3779B97F4A7C15ull;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	z ^= z >> 31;
	return (uint32_t)z & 0xffffff;
}

int rp_conn_create(struct rp_conn *c, struct rp_dev *dev, struct ibv_pd *pd, const struct rp_conn_cfg *cfg,
		   char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->dev = dev;
	c->pd = pd;
	c->nqp = cfg->nqp ? cfg->nqp : 1;
	if (c->nqp > RP_MAX_QP) {
		snprintf(err, errlen, "at most %d QPs", RP_MAX_QP);
		return RP_V_ENV;
	}
	c->tx_depth = cfg->tx_depth;
	c->rx_depth = cfg->rx_depth;
	c->cq_mod = cfg->cq_mod ? cfg->cq_mod : 1;
	if (c->cq_mod > c->tx_depth)
		c->cq_mod = c->tx_depth; /* else a full queue never completes */
	/* Slots page-aligned so every QP's region starts on a fresh page. */
	long page = sysconf(_SC_PAGESIZE);
	c->ud = cfg->ud;
	size_t need = cfg->max_size + (cfg->ud ? RP_UD_GRH_LEN : 0); /* UD: the GRH lands first */
	c->region = (need + (size_t)page - 1) / (size_t)page * (size_t)page;
	size_t len = 2 * c->nqp * c->region;
	c->buf = aligned_alloc((size_t)page, len);
	if (!c->buf) {
		snprintf(err, errlen, "cannot allocate %zu bytes of buffers", len);
		return RP_V_FAIL;
	}
	memset(c->buf, 0, len);
	c->mr = ibv_reg_mr(pd, c->buf, len,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!c->mr) {
		snprintf(err, errlen, "ibv_reg_mr(%zu bytes): %s (ulimit -l?)", len, strerror(errno));
		goto fail;
	}
	int cqe_s = (int)(c->nqp * c->tx_depth + 16), cqe_r = (int)(c->nqp * c->rx_depth + 16);
	c->scq = ibv_create_cq(dev->ctx, cqe_s, NULL, NULL, 0);
	c->rcq = ibv_create_cq(dev->ctx, cqe_r, NULL, NULL, 0);
	if (!c->scq || !c->rcq) {
		snprintf(err, errlen, "ibv_create_cq(%d/%d entries): %s", cqe_s, cqe_r, strerror(errno));
		goto fail;
	}
	for (unsigned q = 0; q < c->nqp; q++) {
		struct rp_qp_caps caps = {.ud = c->ud, .max_send_wr = c->tx_depth, .max_recv_wr = c->rx_depth,
					  .max_inline = cfg->inline_size};
		c->qp[q] = rp_qp_create(pd, c->scq, c->rcq, &caps, err, errlen);
		if (!c->qp[q])
			goto fail;
		if (c->ud ? rp_qp_ud_to_init(c->qp[q], dev->port.port_num, RP_UD_QKEY, err, errlen)
			  : rp_qp_to_init(c->qp[q], dev->port.port_num, err, errlen))
			goto fail;
		c->max_inline = caps.max_inline;
		c->psn[q] = rp_conn_start_psn(cfg->psn_seed, q);
	}
	return RP_V_OK;
fail:
	rp_conn_destroy(c);
	return RP_V_FAIL;
}

void rp_conn_destroy(struct rp_conn *c)
{
	for (unsigned q = 0; q < RP_MAX_QP; q++)
		if (c->ah[q]) {
			ibv_destroy_ah(c->ah[q]);
			c->ah[q] = NULL;
		}
	for (unsigned q = 0; q < RP_MAX_QP; q++)
		if (c->qp[q]) {
			ibv_destroy_qp(c->qp[q]);
			c->qp[q] = NULL;
		}
	if (c->scq)
		ibv_destroy_cq(c->scq);
	if (c->rcq)
		ibv_destroy_cq(c->rcq);
	if (c->mr)
		ibv_dereg_mr(c->mr);
	free(c->buf);
	c->scq = c->rcq = NULL;
	c->mr = NULL;
	c->buf = NULL;
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

void rp_conn_local_rec(const struct rp_conn *c, unsigned q, const uint8_t *gid, struct rp_oob_rec *r)
{
	memset(r, 0, sizeof(*r));
	r->qpn = c->qp[q]->qp_num;
	r->psn = c->psn[q];
	r->lid = c->dev->port.lid;
	if (gid)
		memcpy(r->gid, gid, 16);
	r->rkey = c->mr->rkey;
	/* The peer writes into our recv slot and reads from our send slot;
	 * addr is the recv slot, the send slot is nqp * region further on. */
	r->addr = (uint64_t)(uintptr_t)rp_conn_recv_slot(c, q);
	r->len = c->region;
	r->qkey = c->ud ? RP_UD_QKEY : 0;
}

static int ud_connect(struct rp_conn *c, const struct rp_conn_path *p, char *err, size_t errlen)
{
	for (unsigned q = 0; q < c->nqp; q++) {
		struct ibv_ah_attr ah;
		struct rp_peer_addr peer = {.lid = c->remote[q].lid};
		memcpy(peer.gid, c->remote[q].gid, 16);
		if (rp_addr_build(&c->dev->port, &p->addr, &peer, &ah, err, errlen))
			return RP_V_ENV;
		c->ah[q] = ibv_create_ah(c->pd, &ah);
		if (!c->ah[q]) {
			snprintf(err, errlen, "ibv_create_ah (toward the peer's UD QP %u): %s", c->remote[q].qpn,
				 strerror(errno));
			return RP_V_FAIL;
		}
		if (rp_qp_ud_to_rtr(c->qp[q], err, errlen) || rp_qp_ud_to_rts(c->qp[q], c->psn[q], err, errlen))
			return RP_V_FAIL;
	}
	return RP_V_OK;
}

int rp_conn_connect(struct rp_conn *c, const struct rp_conn_path *p, char *err, size_t errlen)
{
	if (c->ud)
		return ud_connect(c, p, err, errlen);
	for (unsigned q = 0; q < c->nqp; q++) {
		struct rp_qp_rtr rtr = {.dest_qpn = c->remote[q].qpn,
					.rq_psn = c->remote[q].psn,
					.mtu = (enum ibv_mtu)p->mtu,
					.max_dest_rd_atomic = p->rd_atomic,
					.min_rnr_timer = 12};
		struct rp_peer_addr peer = {.lid = c->remote[q].lid};
		memcpy(peer.gid, c->remote[q].gid, 16);
		if (rp_addr_build(&c->dev->port, &p->addr, &peer, &rtr.ah, err, errlen))
			return RP_V_ENV;
		if (rp_qp_to_rtr(c->qp[q], &rtr, err, errlen))
			return RP_V_FAIL;
		struct rp_qp_rts rts = {.sq_psn = c->psn[q],
					.timeout = p->timeout,
					.retry_cnt = p->retry_cnt,
					.rnr_retry = 7,
					.max_rd_atomic = p->rd_atomic};
		if (rp_qp_to_rts(c->qp[q], &rts, err, errlen))
			return RP_V_FAIL;
	}
	return RP_V_OK;
}

int rp_conn_fill_recvs(struct rp_conn *c, char *err, size_t errlen)
{
	for (unsigned q = 0; q < c->nqp; q++) {
		while (c->rq_posted[q] < c->rx_depth) {
			struct ibv_sge sge = {.addr = (uintptr_t)rp_conn_recv_slot(c, q),
					      .length = (uint32_t)c->region,
					      .lkey = c->mr->lkey};
			struct ibv_recv_wr wr = {.wr_id = q, .sg_list = &sge, .num_sge = 1}, *bad;
			int rc = ibv_post_recv(c->qp[q], &wr, &bad);
			if (rc) {
				snprintf(err, errlen, "ibv_post_recv(QP %u): %s", c->qp[q]->qp_num, strerror(rc));
				return RP_V_FAIL;
			}
			c->rq_posted[q]++;
		}
	}
	return RP_V_OK;
}
