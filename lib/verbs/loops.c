#include "verbs/loops.h"

#include <arpa/inet.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define STOP_MARK 255
#define STOP_IMM 0xffffffffu
#define SPIN_CHECK 0xffff /* look at the clock every 64 Ki idle spins */

uint64_t rp_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int post(struct rp_conn *c, unsigned q, enum rp_op op, size_t size, bool signaled, uint32_t imm,
		uint64_t wr_id, char *err, size_t errlen)
{
	struct ibv_sge sge = {.addr = (uintptr_t)(op == RP_OP_READ ? rp_conn_recv_slot(c, q) : rp_conn_send_slot(c, q)),
			      .length = (uint32_t)size,
			      .lkey = c->mr->lkey};
	struct ibv_send_wr wr, *bad;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = signaled ? IBV_SEND_SIGNALED : 0;
	if (op != RP_OP_READ && size <= c->max_inline)
		wr.send_flags |= IBV_SEND_INLINE; /* no DMA read of the payload: lower latency */
	switch (op) {
	case RP_OP_WRITE:
		wr.opcode = IBV_WR_RDMA_WRITE;
		break;
	case RP_OP_WRITE_IMM:
		wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
		wr.imm_data = htonl(imm);
		break;
	case RP_OP_SEND:
		wr.opcode = IBV_WR_SEND;
		break;
	case RP_OP_READ:
		wr.opcode = IBV_WR_RDMA_READ;
		break;
	}
	wr.wr.rdma.rkey = c->remote[q].rkey;
	/* write into the peer's recv slot; read from its send slot */
	wr.wr.rdma.remote_addr = c->remote[q].addr + (op == RP_OP_READ ? (uint64_t)c->nqp * c->remote[q].len : 0);
	int rc = ibv_post_send(c->qp[q], &wr, &bad);
	if (rc)
		snprintf(err, errlen, "ibv_post_send(QP %u, %s, %zu B): %s", c->qp[q]->qp_num, rp_op_name(op), size,
			 strerror(rc));
	return rc ? RP_V_FAIL : RP_V_OK;
}

static int wc_error(const struct ibv_wc *wc, char *err, size_t errlen)
{
	snprintf(err, errlen, "work completion failed on QP %u: %s (vendor error 0x%x); is the peer still there?",
		 wc->qp_num, ibv_wc_status_str(wc->status), wc->vendor_err);
	return RP_V_FAIL;
}

/* Reaps send completions; each signalled one stands for its wr_id >> 16
 * work requests of QP wr_id & 0xffff. Returns how many CQEs, -1 on error. */
static int reap_send(struct rp_conn *c, uint64_t *outstanding, uint64_t *msgs, char *err, size_t errlen)
{
	struct ibv_wc wc[16];
	int n = ibv_poll_cq(c->scq, 16, wc);
	if (n < 0) {
		snprintf(err, errlen, "ibv_poll_cq failed");
		return -1;
	}
	for (int i = 0; i < n; i++) {
		if (wc[i].status != IBV_WC_SUCCESS) {
			wc_error(&wc[i], err, errlen);
			return -1;
		}
		unsigned q = (unsigned)(wc[i].wr_id & 0xffff);
		uint64_t k = wc[i].wr_id >> 16;
		if (outstanding)
			outstanding[q] -= k;
		if (msgs)
			*msgs += k;
	}
	return n;
}

static bool stalled(uint64_t since, unsigned stall_ms)
{
	return stall_ms && rp_now_ns() - since > (uint64_t)stall_ms * 1000000u;
}

static int stall_error(const char *what, unsigned stall_ms, char *err, size_t errlen)
{
	snprintf(err, errlen, "peer stopped responding: no %s for %u ms", what, stall_ms);
	return RP_V_FAIL;
}

/* Waits for one receive completion on c->rcq, keeping send completions
 * reaped meanwhile. */
static int wait_recv(struct rp_conn *c, struct ibv_wc *wc, uint64_t since, unsigned stall_ms, uint64_t *sq_out,
		     char *err, size_t errlen)
{
	for (uint64_t spins = 1;; spins++) {
		int n = ibv_poll_cq(c->rcq, 1, wc);
		if (n < 0) {
			snprintf(err, errlen, "ibv_poll_cq failed");
			return RP_V_FAIL;
		}
		if (n == 1) {
			c->rq_posted[wc->wr_id]--;
			if (wc->status != IBV_WC_SUCCESS)
				return wc_error(wc, err, errlen);
			return RP_V_OK;
		}
		if (*sq_out && reap_send(c, sq_out, NULL, err, errlen) < 0)
			return RP_V_FAIL;
		if ((spins & SPIN_CHECK) == 0 && stalled(since, stall_ms))
			return stall_error("message", stall_ms, err, errlen);
	}
}

/* Drains every outstanding signalled send of QP 0. */
static int drain_send(struct rp_conn *c, uint64_t *out, unsigned stall_ms, char *err, size_t errlen)
{
	uint64_t since = rp_now_ns();
	for (uint64_t spins = 1; *out; spins++) {
		if (reap_send(c, out, NULL, err, errlen) < 0)
			return RP_V_FAIL;
		if ((spins & SPIN_CHECK) == 0 && stalled(since, stall_ms))
			return stall_error("completion", stall_ms, err, errlen);
	}
	return RP_V_OK;
}

/* Never let unreaped requests fill the send queue (acks may lag pongs). */
static int keep_room(struct rp_conn *c, uint64_t *sq_out, unsigned stall_ms, char *err, size_t errlen)
{
	uint64_t since = rp_now_ns();
	for (uint64_t spins = 1; sq_out[0] + 1 >= c->tx_depth; spins++) {
		if (reap_send(c, sq_out, NULL, err, errlen) < 0)
			return RP_V_FAIL;
		if ((spins & SPIN_CHECK) == 0 && stalled(since, stall_ms))
			return stall_error("completion", stall_ms, err, errlen);
	}
	return RP_V_OK;
}

/* Latency sends: signalled every cq_mod (at most half the queue, so the
 * queue never fills with unreaped work requests). Returns the wr_id. */
static uint64_t lat_wr_id(struct rp_conn *c, unsigned *unsig, bool force)
{
	unsigned mod = c->cq_mod < c->tx_depth / 2 ? c->cq_mod : (c->tx_depth / 2 ? c->tx_depth / 2 : 1);
	(*unsig)++;
	if (force || *unsig >= mod) {
		uint64_t id = (uint64_t)*unsig << 16;
		*unsig = 0;
		return id;
	}
	return 0;
}


/* ---- UD latency ---- */

static int ud_post(struct rp_conn *c, unsigned q, size_t size, uint32_t imm, char *err, size_t errlen)
{
	struct ibv_sge sge = {.addr = (uintptr_t)rp_conn_send_slot(c, q), .length = (uint32_t)size, .lkey = c->mr->lkey};
	struct ibv_send_wr wr, *bad;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = (uint64_t)1 << 16 | q; /* one work request of QP q (reap_send) */
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND_WITH_IMM;
	wr.imm_data = htonl(imm);
	wr.send_flags = IBV_SEND_SIGNALED;
	if (size <= c->max_inline)
		wr.send_flags |= IBV_SEND_INLINE;
	wr.wr.ud.ah = c->ah[q];
	wr.wr.ud.remote_qpn = c->remote[q].qpn;
	wr.wr.ud.remote_qkey = c->remote[q].qkey;
	int rc = ibv_post_send(c->qp[q], &wr, &bad);
	if (rc)
		snprintf(err, errlen, "ibv_post_send(UD QP %u, send, %zu B): %s", c->qp[q]->qp_num, size, strerror(rc));
	return rc ? RP_V_FAIL : RP_V_OK;
}

/* One receive completion if there is one: 1 with *imm set (0 when the
 * message had no immediate), 0 when none, -1 on error. Tops the queue up. */
static int ud_poll_recv(struct rp_conn *c, uint32_t *imm, int *has_imm, char *err, size_t errlen)
{
	struct ibv_wc wc;
	int n = ibv_poll_cq(c->rcq, 1, &wc);
	if (n < 0) {
		snprintf(err, errlen, "ibv_poll_cq failed");
		return -1;
	}
	if (n == 0)
		return 0;
	c->rq_posted[wc.wr_id]--;
	if (wc.status != IBV_WC_SUCCESS) {
		wc_error(&wc, err, errlen);
		return -1;
	}
	*has_imm = (wc.wc_flags & IBV_WC_WITH_IMM) != 0;
	*imm = *has_imm ? ntohl(wc.imm_data) : 0;
	return rp_conn_fill_recvs(c, err, errlen) ? -1 : 1;
}

static int ud_lat_client(struct rp_conn *c, const struct rp_run *r, struct rp_run_result *res, char *err,
			 size_t errlen)
{
	uint64_t sq_out[1] = {0};
	uint64_t timeout_ns = (uint64_t)(r->ud_timeout_ms ? r->ud_timeout_ms : 1000) * 1000000u;
	uint64_t start = rp_now_ns(), t1 = start, deadline = start + r->duration_ns;
	uint64_t samples = 0, lost = 0, i;
	memset(res, 0, sizeof(*res));
	if (rp_conn_fill_recvs(c, err, errlen))
		return RP_V_FAIL;
	for (i = 0; r->iters ? i < r->iters : t1 < deadline; i++) {
		uint32_t seq = ++c->ud_seq;
		if (keep_room(c, sq_out, r->stall_ms, err, errlen))
			return RP_V_FAIL;
		uint64_t t0 = rp_now_ns();
		if (ud_post(c, 0, r->size, seq, err, errlen))
			return RP_V_FAIL;
		sq_out[0] += 1;
		bool got = false;
		for (uint64_t spins = 1;; spins++) {
			uint32_t imm;
			int has_imm;
			int n = ud_poll_recv(c, &imm, &has_imm, err, errlen);
			if (n < 0)
				return RP_V_FAIL;
			if (n > 0 && has_imm && imm == seq) {
				got = true;
				break;
			}
			/* n > 0 otherwise: a late answer to a probe already given up */
			if (sq_out[0] && reap_send(c, sq_out, NULL, err, errlen) < 0)
				return RP_V_FAIL;
			if ((spins & 63) == 0 && rp_now_ns() - t0 > timeout_ns)
				break;
		}
		t1 = rp_now_ns();
		if (got) {
			rp_hist_record(r->hist, (t1 - t0) / 2);
			samples++;
		} else {
			lost++;
		}
	}
	res->msgs = samples;
	res->bytes = samples * r->size;
	res->t_ns = t1 - start;
	res->lost = lost;
	return drain_send(c, sq_out, r->stall_ms, err, errlen);
}

static int ud_lat_server(struct rp_conn *c, const struct rp_run *r, struct rp_run_result *res, char *err,
			 size_t errlen)
{
	uint64_t sq_out[1] = {0};
	uint64_t start = rp_now_ns();
	memset(res, 0, sizeof(*res));
	if (rp_conn_fill_recvs(c, err, errlen))
		return RP_V_FAIL;
	/* Echo every probe with its number until the client's END line. */
	for (uint64_t spins = 1;; spins++) {
		uint32_t imm;
		int has_imm;
		int n = ud_poll_recv(c, &imm, &has_imm, err, errlen);
		if (n < 0)
			return RP_V_FAIL;
		if (n > 0 && has_imm) {
			if (keep_room(c, sq_out, r->stall_ms, err, errlen) || ud_post(c, 0, r->size, imm, err, errlen))
				return RP_V_FAIL;
			sq_out[0] += 1;
			res->msgs++;
			res->bytes += r->size;
			continue;
		}
		if (sq_out[0] && reap_send(c, sq_out, NULL, err, errlen) < 0)
			return RP_V_FAIL;
		if ((spins & 1023) == 0 && rp_oob_readable(c->fd))
			break;
	}
	res->t_ns = rp_now_ns() - start;
	return drain_send(c, sq_out, r->stall_ms, err, errlen);
}

int rp_lat_client(struct rp_conn *c, const struct rp_run *r, struct rp_run_result *res, char *err, size_t errlen)
{
	if (c->ud)
		return ud_lat_client(c, r, res, err, errlen);
	enum rp_op op = r->op;
	volatile uint8_t *in = rp_conn_recv_slot(c, 0) + r->size - 1;
	uint8_t *out = rp_conn_send_slot(c, 0) + r->size - 1;
	uint64_t sq_out[1] = {0}; /* unreaped work requests of QP 0 */
	unsigned unsig = 0;
	unsigned div = rp_lat_divisor(op);
	uint64_t start = rp_now_ns(), t1 = start;
	uint64_t deadline = start + r->duration_ns;
	uint64_t i;
	memset(res, 0, sizeof(*res));
	if (rp_op_needs_recv(op) && rp_conn_fill_recvs(c, err, errlen))
		return RP_V_FAIL;

	for (i = 0; r->iters ? i < r->iters : t1 < deadline; i++) {
		uint8_t v = (uint8_t)(i % 254 + 1);
		*out = op == RP_OP_SEND ? 0 : v;
		uint64_t id = lat_wr_id(c, &unsig, op == RP_OP_READ);
		if (keep_room(c, sq_out, r->stall_ms, err, errlen))
			return RP_V_FAIL;
		uint64_t t0 = rp_now_ns();
		if (post(c, 0, op, r->size, id != 0, (uint32_t)i, id, err, errlen))
			return RP_V_FAIL;
		sq_out[0] += 1; /* unsignalled ones retire with their signalled successor */
		if (op == RP_OP_WRITE) {
			for (uint64_t spins = 1; *in != v; spins++) {
				if (sq_out[0] >= c->tx_depth / 2 && reap_send(c, sq_out, NULL, err, errlen) < 0)
					return RP_V_FAIL;
				if ((spins & SPIN_CHECK) == 0 && stalled(t0, r->stall_ms))
					return stall_error("pong", r->stall_ms, err, errlen);
			}
		} else if (op == RP_OP_READ) {
			if (drain_send(c, sq_out, r->stall_ms, err, errlen))
				return RP_V_FAIL;
		} else {
			struct ibv_wc wc;
			if (wait_recv(c, &wc, t0, r->stall_ms, sq_out, err, errlen))
				return RP_V_FAIL;
			if (rp_conn_fill_recvs(c, err, errlen))
				return RP_V_FAIL;
		}
		t1 = rp_now_ns();
		rp_hist_record(r->hist, (t1 - t0) / div);
	}
	res->msgs = i;
	res->bytes = i * r->size;
	res->t_ns = t1 - start;
	if (op != RP_OP_READ) {
		/* Tell the server this run is over: the stop marker. */
		*out = STOP_MARK;
		if (post(c, 0, op, r->size, true, STOP_IMM, (uint64_t)(unsig + 1) << 16, err, errlen))
			return RP_V_FAIL;
		sq_out[0] += 1;
		unsig = 0;
	}
	return drain_send(c, sq_out, r->stall_ms, err, errlen);
}

int rp_lat_server(struct rp_conn *c, const struct rp_run *r, struct rp_run_result *res, char *err, size_t errlen)
{
	if (c->ud)
		return ud_lat_server(c, r, res, err, errlen);
	enum rp_op op = r->op;
	memset(res, 0, sizeof(*res));
	if (op == RP_OP_READ)
		return RP_V_OK; /* reads take no server CPU */
	volatile uint8_t *in = rp_conn_recv_slot(c, 0) + r->size - 1;
	uint8_t *out = rp_conn_send_slot(c, 0) + r->size - 1;
	uint64_t sq_out[1] = {0};
	unsigned unsig = 0;
	uint64_t start = rp_now_ns(), i;
	if (rp_op_needs_recv(op) && rp_conn_fill_recvs(c, err, errlen))
		return RP_V_FAIL;
	for (i = 0;; i++) {
		uint8_t v = (uint8_t)(i % 254 + 1);
		uint64_t t0 = rp_now_ns();
		bool stop;
		if (op == RP_OP_WRITE) {
			uint8_t b;
			for (uint64_t spins = 1; (b = *in) != v && b != STOP_MARK; spins++) {
				if (sq_out[0] >= c->tx_depth / 2 && reap_send(c, sq_out, NULL, err, errlen) < 0)
					return RP_V_FAIL;
				if ((spins & SPIN_CHECK) == 0 && stalled(t0, r->stall_ms))
					return stall_error("ping", r->stall_ms, err, errlen);
			}
			stop = b == STOP_MARK;
		} else {
			struct ibv_wc wc;
			if (wait_recv(c, &wc, t0, r->stall_ms, sq_out, err, errlen))
				return RP_V_FAIL;
			stop = op == RP_OP_WRITE_IMM ? ntohl(wc.imm_data) == STOP_IMM
						     : rp_conn_recv_slot(c, 0)[r->size - 1] == STOP_MARK;
			if (rp_conn_fill_recvs(c, err, errlen))
				return RP_V_FAIL;
		}
		if (stop)
			break;
		*out = op == RP_OP_SEND ? 0 : v;
		uint64_t id = lat_wr_id(c, &unsig, false);
		if (keep_room(c, sq_out, r->stall_ms, err, errlen))
			return RP_V_FAIL;
		if (post(c, 0, op, r->size, id != 0, (uint32_t)i, id, err, errlen))
			return RP_V_FAIL;
		sq_out[0] += 1;
	}
	res->msgs = i;
	res->bytes = i * r->size;
	res->t_ns = rp_now_ns() - start;
	/* An unsignalled tail would stay in the send queue into the next run:
	 * retire it with one signalled zero-length write. */
	if (unsig) {
		if (post(c, 0, RP_OP_WRITE, 0, true, 0, (uint64_t)(unsig + 1) << 16, err, errlen))
			return RP_V_FAIL;
		sq_out[0] += 1;
	}
	return drain_send(c, sq_out, r->stall_ms, err, errlen);
}

int rp_bw_client(struct rp_conn *c, const struct rp_run *r, struct rp_run_result *res, char *err, size_t errlen)
{
	uint64_t outstanding[RP_MAX_QP] = {0}, posted[RP_MAX_QP] = {0};
	unsigned unsig[RP_MAX_QP] = {0};
	uint64_t msgs = 0;
	bool stopping = false;
	uint64_t start = rp_now_ns(), last = start, deadline = start + r->duration_ns;
	memset(res, 0, sizeof(*res));
	for (uint64_t spins = 1;; spins++) {
		if (!r->iters && !stopping && rp_now_ns() >= deadline)
			stopping = true;
		for (unsigned q = 0; q < c->nqp; q++) {
			while (outstanding[q] < c->tx_depth) {
				bool more = r->iters ? posted[q] < r->iters : !stopping;
				/* After the deadline, one signalled request flushes an
				 * unsignalled tail so its completion is seen. */
				if (!more && unsig[q] == 0)
					break;
				bool sig = !more || unsig[q] + 1 >= c->cq_mod || (r->iters && posted[q] + 1 == r->iters);
				uint64_t id = sig ? q | (uint64_t)(unsig[q] + 1) << 16 : 0;
				if (post(c, q, r->op, r->size, sig, (uint32_t)posted[q], id, err, errlen))
					return RP_V_FAIL;
				posted[q]++;
				outstanding[q]++;
				unsig[q] = sig ? 0 : unsig[q] + 1;
			}
		}
		int n = reap_send(c, outstanding, &msgs, err, errlen);
		if (n < 0)
			return RP_V_FAIL;
		if (n > 0) {
			last = rp_now_ns();
			spins = 0;
		}
		bool done = true;
		for (unsigned q = 0; q < c->nqp && done; q++)
			done = outstanding[q] == 0 && (r->iters ? posted[q] >= r->iters : stopping) && unsig[q] == 0;
		if (done)
			break;
		if ((spins & SPIN_CHECK) == 0 && spins && stalled(last, r->stall_ms))
			return stall_error("completion", r->stall_ms, err, errlen);
	}
	res->msgs = msgs;
	res->bytes = msgs * r->size;
	res->t_ns = last - start;
	return RP_V_OK;
}

int rp_bw_server(struct rp_conn *c, const struct rp_run *r, struct rp_run_result *res, char *err, size_t errlen)
{
	memset(res, 0, sizeof(*res));
	if (!rp_op_needs_recv(r->op))
		return RP_V_OK; /* write and read do not involve the server's CPU */
	if (rp_conn_fill_recvs(c, err, errlen))
		return RP_V_FAIL;
	uint64_t first = 0, last = 0;
	bool ending = false;
	unsigned idle_after_end = 0;
	for (uint64_t spins = 1;; spins++) {
		struct ibv_wc wc[16];
		int n = ibv_poll_cq(c->rcq, 16, wc);
		if (n < 0) {
			snprintf(err, errlen, "ibv_poll_cq failed");
			return RP_V_FAIL;
		}
		for (int i = 0; i < n; i++) {
			c->rq_posted[wc[i].wr_id]--;
			if (wc[i].status != IBV_WC_SUCCESS)
				return wc_error(&wc[i], err, errlen);
			res->msgs++;
			res->bytes += r->op == RP_OP_SEND ? wc[i].byte_len : r->size;
		}
		if (n > 0) {
			last = rp_now_ns();
			if (!first)
				first = last;
			if (rp_conn_fill_recvs(c, err, errlen))
				return RP_V_FAIL;
			idle_after_end = 0;
			continue;
		}
		/* The client sends END only after its last message was
		 * acknowledged; a few idle polls catch CQEs still on their way. */
		if (ending && ++idle_after_end > 10000)
			break;
		if (!ending && (spins & 1023) == 0 && rp_oob_readable(c->fd))
			ending = true;
	}
	res->t_ns = last - first;
	return RP_V_OK;
}
