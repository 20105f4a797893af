/* The verbs engine (engine.h): RC QPs per flow, paced messages carrying the
 * probe, receive completions into the accountant. */
#include "verbs/engine.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/rank_env.h"
#include "stats/acct.h"
#include "stats/hist.h"
#include "verbs/conn.h"
#include "verbs/counters.h"
#include "verbs/device.h"
#include "wire/probe.h"

#define SLOT_ALIGN 64
#define LAG_NS 1000000ull  /* a sender more than 1 ms behind restarts at now (no burst to catch up) */
#define IDLE_NS 100000     /* nothing to do: sleep this long */
#define MAX_WC 32

struct vhost {
	unsigned host;
	struct rp_dev dev;
	struct ibv_pd *pd;
	struct rp_gid_entry gid;
	struct rp_ctr_source src;
	struct rp_ctr_snap *before, *after;
};

/* One end of a flow in this process. */
struct vend {
	const struct rp_flow *f;
	bool send;
	struct vhost *h;
	struct rp_conn conn;
	size_t rec;        /* the flow's first record */
	uint32_t acct;
	size_t slot;       /* bytes per message slot */
	unsigned depth;
	unsigned nqp;
	/* sender */
	struct rp_pace pace;
	struct rp_pace_cfg cfg; /* the plan's, moved on at each rate phase */
	bool done;         /* nothing more to post */
	uint64_t seq;      /* messages posted = the next probe seq */
	uint64_t tx_bytes;
	unsigned next_qp;
	unsigned outstanding[RP_MAX_QP];
	uint64_t posted[RP_MAX_QP];
	uint64_t *post_ns; /* [nqp * depth] */
	/* per QP: messages completed (sender) or received (receiver), their bytes, latencies */
	uint64_t qmsgs[RP_MAX_QP], qbytes[RP_MAX_QP];
	struct rp_hist *lat; /* [nqp]: completion (sender) or one-way (receiver) latency */
	uint64_t bad[RP_MAX_QP]; /* receiver: messages without a valid probe of this flow */
	bool failed;         /* sender: a completion in error (its QP is in the error state): it stops */
	bool abandoned;      /* sender: its receiver's host is gone; what is outstanding is given up */
};

struct rp_vengine {
	struct rp_vengine_cfg cfg;
	struct vhost *hosts;
	size_t nhosts;
	struct vend *ends;
	size_t nends;
	size_t *base; /* [plan->nflows] */
	size_t nrecs;
	char failed[RP_ERR_LEN + 128]; /* the first sender end's completion error ("": none) */
};

bool rp_vengine_is_verbs(const struct rp_plan *plan, size_t i)
{
	const struct rp_flow *f = &plan->flows[i];
	return f->kind == RP_TRAFFIC_RDMA && plan->prof->hosts[f->src].engine.engine == RP_ENGINE_VERBS;
}

static unsigned flow_qps(const struct rp_flow *f)
{
	return f->p.qps ? f->p.qps : 1;
}

size_t rp_vengine_layout(const struct rp_plan *plan, size_t *base)
{
	size_t n = 0;
	for (size_t i = 0; i < plan->nflows; i++) {
		bool v = rp_vengine_is_verbs(plan, i);
		if (base)
			base[i] = v ? n : SIZE_MAX;
		n += v ? 2u * flow_qps(&plan->flows[i]) : 0;
	}
	return n;
}

unsigned rp_vengine_rec_host(const struct rp_plan *plan, size_t r)
{
	size_t n = 0;
	for (size_t i = 0; i < plan->nflows; i++) {
		if (!rp_vengine_is_verbs(plan, i))
			continue;
		size_t k = 2u * flow_qps(&plan->flows[i]);
		if (r < n + k)
			return (r - n) % 2 ? plan->flows[i].dst : plan->flows[i].src;
		n += k;
	}
	return 0;
}

static bool is_mine(const struct rp_vengine *e, unsigned h)
{
	return !e->cfg.mine || e->cfg.mine[h];
}

static uint64_t now_ns(const struct rp_vengine *e)
{
	return e->cfg.clock(e->cfg.clock_arg);
}

static struct vhost *host_of(struct rp_vengine *e, unsigned h)
{
	for (size_t i = 0; i < e->nhosts; i++)
		if (e->hosts[i].host == h)
			return &e->hosts[i];
	return NULL;
}

/* The host's address as a GID: ::ffff:a.b.c.d, or its IPv6 address. */
static void host_gid(const struct rp_host *h, uint8_t gid[16])
{
	memset(gid, 0, 16);
	if (h->has_ipv4) {
		gid[10] = gid[11] = 0xff;
		uint32_t be = htonl(h->ipv4);
		memcpy(gid + 12, &be, 4);
	} else {
		memcpy(gid, h->ipv6, 16);
	}
}

static int open_host(struct rp_vengine *e, unsigned h, char *err, size_t errlen)
{
	const struct rp_host *host = &e->cfg.plan->prof->hosts[h];
	struct vhost *v = &e->hosts[e->nhosts];
	char why[RP_ERR_LEN + 64];
	v->host = h;
	int rc = rp_dev_open(host->engine.device, 1, &v->dev, why, sizeof(why));
	if (rc) {
		snprintf(err, errlen, "host '%s': %s", host->name, why);
		return rc;
	}
	e->nhosts++;
	uint8_t want[16];
	host_gid(host, want);
	if ((rc = rp_dev_pick_gid_addr(&v->dev, host->engine.gid_index, want, &v->gid, why, sizeof(why)))) {
		snprintf(err, errlen, "host '%s': %s", host->name, why);
		return rc;
	}
	if (!(v->pd = ibv_alloc_pd(v->dev.ctx))) {
		snprintf(err, errlen, "host '%s': ibv_alloc_pd on %s failed", host->name, v->dev.port.dev_name);
		return RP_V_FAIL;
	}
	snprintf(v->src.sysfs_root, sizeof(v->src.sysfs_root), "/sys/class/infiniband");
	snprintf(v->src.dev, sizeof(v->src.dev), "%s", v->dev.port.dev_name);
	v->src.port = v->dev.port.port_num;
	snprintf(v->src.netdev, sizeof(v->src.netdev), "%s", v->gid.netdev);
	v->before = calloc(1, sizeof(*v->before));
	v->after = calloc(1, sizeof(*v->after));
	if (!v->before || !v->after) {
		snprintf(err, errlen, "out of memory");
		return RP_V_FAIL;
	}
	return RP_V_OK;
}

static int make_end(struct rp_vengine *e, const struct rp_flow *f, bool send, char *err, size_t errlen)
{
	struct vend *d = &e->ends[e->nends];
	const struct rp_host *host = &e->cfg.plan->prof->hosts[send ? f->src : f->dst];
	d->f = f;
	d->send = send;
	d->h = host_of(e, send ? f->src : f->dst);
	d->rec = e->base[f->id];
	d->acct = e->cfg.acct_of_flow ? e->cfg.acct_of_flow[f->id] : UINT32_MAX;
	d->depth = e->cfg.depth ? e->cfg.depth : RP_VENGINE_DEPTH;
	d->nqp = flow_qps(f);
	d->slot = (f->p.msg_size + SLOT_ALIGN - 1) / SLOT_ALIGN * SLOT_ALIGN;
	if (d->nqp > RP_MAX_QP) {
		snprintf(err, errlen, "flow %u (%s): engine: verbs takes at most %d QPs per flow", f->id, host->name,
			 RP_MAX_QP);
		return RP_V_ENV;
	}
	struct rp_conn_cfg cc = {.nqp = d->nqp, .max_size = 2 * d->depth * d->slot, .tx_depth = send ? d->depth : 1,
				 .rx_depth = send ? 1 : d->depth, .cq_mod = 1,
				 .psn_seed = ((uint64_t)f->id << 1 | send) ^ (uint64_t)time(NULL) * 0x9E3779B97F4A7C15ull};
	char why[RP_ERR_LEN];
	int rc = rp_conn_create(&d->conn, &d->h->dev, d->h->pd, &cc, why, sizeof(why));
	if (rc) {
		snprintf(err, errlen, "host '%s', flow %u: %s", host->name, f->id, why);
		return rc;
	}
	e->nends++;
	d->lat = calloc(d->nqp, sizeof(*d->lat));
	d->post_ns = calloc((size_t)d->nqp * d->depth, sizeof(*d->post_ns));
	if (!d->lat || !d->post_ns) {
		snprintf(err, errlen, "out of memory");
		return RP_V_FAIL;
	}
	for (unsigned q = 0; q < d->nqp; q++)
		rp_hist_init(&d->lat[q]);
	if (send) {
		d->cfg = f->pace;
		rp_pace_init(&d->cfg, &d->pace);
	}
	return RP_V_OK;
}

int rp_vengine_create(const struct rp_vengine_cfg *cfg, struct rp_vengine **out, char *err, size_t errlen)
{
	const struct rp_plan *plan = cfg->plan;
	struct rp_vengine *e = calloc(1, sizeof(*e));
	*out = e;
	if (!e || !(e->base = calloc(plan->nflows ? plan->nflows : 1, sizeof(*e->base))) ||
	    !(e->hosts = calloc(plan->prof->nhosts, sizeof(*e->hosts))) ||
	    !(e->ends = calloc(2 * plan->nflows + 1, sizeof(*e->ends)))) {
		snprintf(err, errlen, "out of memory");
		return RP_V_FAIL;
	}
	e->cfg = *cfg;
	e->nrecs = rp_vengine_layout(plan, e->base);
	int rc = RP_V_OK;
	for (size_t i = 0; rc == RP_V_OK && i < plan->nflows; i++) {
		const struct rp_flow *f = &plan->flows[i];
		if (!rp_vengine_is_verbs(plan, i))
			continue;
		for (int side = 0; rc == RP_V_OK && side < 2; side++) {
			unsigned h = side == 0 ? f->src : f->dst;
			if (!is_mine(e, h))
				continue;
			if (!host_of(e, h))
				rc = open_host(e, h, err, errlen);
			if (rc == RP_V_OK)
				rc = make_end(e, f, side == 0, err, errlen);
		}
	}
	return rc;
}

void rp_vengine_destroy(struct rp_vengine *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->nends; i++) {
		rp_conn_destroy(&e->ends[i].conn);
		free(e->ends[i].lat);
		free(e->ends[i].post_ns);
	}
	for (size_t i = 0; i < e->nhosts; i++) {
		if (e->hosts[i].pd)
			ibv_dealloc_pd(e->hosts[i].pd);
		rp_dev_close(&e->hosts[i].dev);
		free(e->hosts[i].before);
		free(e->hosts[i].after);
	}
	free(e->ends);
	free(e->hosts);
	free(e->base);
	free(e);
}

void rp_vengine_account(struct rp_vengine *e, struct rp_acct *a, const uint32_t *acct_of_flow)
{
	e->cfg.acct = a;
	for (size_t i = 0; i < e->nends; i++)
		e->ends[i].acct = acct_of_flow[e->ends[i].f->id];
}

bool rp_vengine_active(const struct rp_vengine *e)
{
	return e && e->nends > 0;
}

static size_t rec_index(const struct vend *d, unsigned q, bool sender)
{
	return d->rec + 2u * q + (sender ? 0 : 1);
}

void rp_vengine_records(const struct rp_vengine *e, char *table)
{
	for (size_t i = 0; i < e->nends; i++) {
		const struct vend *d = &e->ends[i];
		for (unsigned q = 0; q < d->nqp; q++) {
			struct rp_oob_rec r;
			rp_conn_local_rec(&d->conn, q, d->h->gid.gid, &r);
			char *slot = table + rec_index(d, q, d->send) * RP_VENGINE_REC;
			memset(slot, 0, RP_VENGINE_REC);
			rp_oob_rec_encode(&r, slot);
		}
	}
}

static int post_recv(struct vend *d, unsigned q, unsigned k, char *err, size_t errlen)
{
	struct ibv_sge sge = {.addr = (uintptr_t)(rp_conn_recv_slot(&d->conn, q) + (size_t)k * d->slot),
			      .length = (uint32_t)d->slot, .lkey = d->conn.mr->lkey};
	bool imm = d->f->p.verb == RP_VERB_WRITE_IMM; /* the data goes where the sender wrote it */
	struct ibv_recv_wr wr = {.wr_id = (uint64_t)q << 32 | k, .sg_list = imm ? NULL : &sge, .num_sge = imm ? 0 : 1};
	struct ibv_recv_wr *bad;
	int rc = ibv_post_recv(d->conn.qp[q], &wr, &bad);
	if (rc)
		snprintf(err, errlen, "flow %u: ibv_post_recv (QP %u): %s", d->f->id, d->conn.qp[q]->qp_num, strerror(rc));
	return rc ? RP_V_FAIL : RP_V_OK;
}

int rp_vengine_connect(struct rp_vengine *e, const char *table, char *err, size_t errlen)
{
	for (size_t i = 0; i < e->nends; i++) {
		struct vend *d = &e->ends[i];
		const struct rp_flow *f = d->f;
		for (unsigned q = 0; q < d->nqp; q++) {
			const char *line = table + rec_index(d, q, !d->send) * RP_VENGINE_REC;
			if (rp_oob_rec_decode(line, strnlen(line, RP_VENGINE_REC), &d->conn.remote[q]) != 0) {
				snprintf(err, errlen, "flow %u QP %u: no valid QP record from host '%s'", f->id, q,
					 e->cfg.plan->prof->hosts[d->send ? f->dst : f->src].name);
				return RP_V_FAIL;
			}
		}
		int mtu = rp_mtu_to_enum(f->p.mtu);
		if (mtu > d->h->dev.port.active_mtu)
			mtu = d->h->dev.port.active_mtu;
		struct rp_conn_path p = {.addr = {.sgid_index = d->h->gid.index, .dscp = f->p.dscp, .ecn = f->p.ecn,
						  .hop_limit = 64},
					 .mtu = mtu, .timeout = 14, .retry_cnt = 7, .rd_atomic = 1};
		char why[RP_ERR_LEN];
		int rc = rp_conn_connect(&d->conn, &p, why, sizeof(why));
		if (rc) {
			snprintf(err, errlen, "host '%s', flow %u: %s", e->cfg.plan->prof->hosts[d->h->host].name, f->id, why);
			return rc;
		}
		for (unsigned q = 0; !d->send && q < d->nqp; q++)
			for (unsigned k = 0; k < d->depth; k++)
				if ((rc = post_recv(d, q, k, err, errlen)))
					return rc;
	}
	for (size_t i = 0; i < e->nhosts; i++)
		rp_ctr_snapshot(&e->hosts[i].src, e->hosts[i].before);
	return RP_V_OK;
}

/* One message of a sender end on its next QP, when the QP has room. */
static int post_message(struct vend *d, uint64_t now, char *err, size_t errlen)
{
	unsigned q = d->next_qp;
	if (d->outstanding[q] >= d->depth)
		return 1; /* full: wait for completions */
	unsigned k = (unsigned)(d->posted[q] % d->depth);
	uint8_t *buf = rp_conn_send_slot(&d->conn, q) + (size_t)k * d->slot;
	struct rp_probe pr = {.flow_id = d->f->id, .seq = d->seq, .tx_ns = now};
	rp_probe_build(buf, d->slot, &pr);
	struct ibv_sge sge = {.addr = (uintptr_t)buf, .length = d->f->p.msg_size, .lkey = d->conn.mr->lkey};
	struct ibv_send_wr wr = {.wr_id = (uint64_t)q << 32 | k, .sg_list = &sge, .num_sge = 1,
				 .send_flags = IBV_SEND_SIGNALED}, *bad;
	switch (d->f->p.verb) {
	case RP_VERB_WRITE_IMM: {
		uint32_t rs = (uint32_t)(d->posted[q] % (2u * d->depth));
		wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
		wr.imm_data = htonl(rs);
		wr.wr.rdma.remote_addr = d->conn.remote[q].addr + (uint64_t)rs * d->slot;
		wr.wr.rdma.rkey = d->conn.remote[q].rkey;
		break;
	}
	case RP_VERB_SEND_IMM:
		wr.opcode = IBV_WR_SEND_WITH_IMM;
		wr.imm_data = htonl(d->f->p.imm);
		break;
	default:
		wr.opcode = IBV_WR_SEND;
		break;
	}
	int rc = ibv_post_send(d->conn.qp[q], &wr, &bad);
	if (rc) {
		snprintf(err, errlen, "flow %u: ibv_post_send (QP %u): %s", d->f->id, d->conn.qp[q]->qp_num, strerror(rc));
		return RP_V_FAIL;
	}
	d->post_ns[(size_t)q * d->depth + k] = now;
	d->outstanding[q]++;
	d->posted[q]++;
	d->seq++;
	d->tx_bytes += d->f->p.msg_size;
	d->next_qp = (q + 1) % d->nqp;
	/* The plan's pacing, packet by packet as the DPDK source steps it. */
	struct rp_pace_cfg *pc = &d->cfg;
	for (uint32_t i = 0; i < (pc->npkts ? pc->npkts : 1) && !d->pace.done; i++) {
		rp_pace_step(pc, &d->pace, rp_pace_kind(pc, &d->pace));
		rp_pace_phase_check(pc, &d->pace);
	}
	d->done = d->pace.done;
	return 0;
}

/* Posts what is due; returns how many, or RP_V_FAIL. */
static int send_due(struct vend *d, uint64_t now, bool stopping, char *err, size_t errlen)
{
	int n = 0;
	if (stopping)
		d->done = true;
	while (!d->done) {
		rp_pace_catch_up(&d->cfg, &d->pace, now, LAG_NS);
		rp_pace_phase_check(&d->cfg, &d->pace);
		if (d->pace.done) {
			d->done = true;
			break;
		}
		if (d->pace.due_ns > now)
			break;
		int rc = post_message(d, now, err, errlen);
		if (rc < 0)
			return rc;
		if (rc > 0)
			break;
		n++;
	}
	return n;
}

static const char *flow_host(const struct rp_vengine *e, const struct vend *d)
{
	return e->cfg.plan->prof->hosts[d->h->host].name;
}

static int poll_send(struct rp_vengine *e, struct vend *d, char *err, size_t errlen)
{
	struct ibv_wc wc[MAX_WC];
	int n = ibv_poll_cq(d->conn.scq, MAX_WC, wc);
	if (n < 0) {
		snprintf(err, errlen, "host '%s', flow %u: ibv_poll_cq failed", flow_host(e, d), d->f->id);
		return RP_V_FAIL;
	}
	uint64_t now = n ? now_ns(e) : 0;
	for (int i = 0; i < n; i++) {
		unsigned q = (unsigned)(wc[i].wr_id >> 32), k = (unsigned)(wc[i].wr_id & 0xffffffffu);
		if (wc[i].status != IBV_WC_SUCCESS) {
			/* Its peer is gone (a rank that died: retries exceeded) or broke: this end
			 * stops (the rest of its posts flush in error), every other end goes on. */
			if (!d->failed && !e->failed[0])
				snprintf(e->failed, sizeof(e->failed), "host '%s', flow %u QP %u: send completion %s (vendor "
					 "error 0x%x)", flow_host(e, d), d->f->id, d->conn.qp[q]->qp_num,
					 ibv_wc_status_str(wc[i].status), wc[i].vendor_err);
			d->failed = d->done = true;
			continue;
		}
		d->outstanding[q]--;
		d->qmsgs[q]++;
		d->qbytes[q] += d->f->p.msg_size;
		uint64_t t = d->post_ns[(size_t)q * d->depth + k];
		rp_hist_record(&d->lat[q], now > t ? now - t : 0);
	}
	return n;
}

static int poll_recv(struct rp_vengine *e, struct vend *d, char *err, size_t errlen)
{
	struct ibv_wc wc[MAX_WC];
	int n = ibv_poll_cq(d->conn.rcq, MAX_WC, wc);
	if (n < 0) {
		snprintf(err, errlen, "host '%s', flow %u: ibv_poll_cq failed", flow_host(e, d), d->f->id);
		return RP_V_FAIL;
	}
	uint64_t now = n ? now_ns(e) : 0;
	for (int i = 0; i < n; i++) {
		unsigned q = (unsigned)(wc[i].wr_id >> 32), k = (unsigned)(wc[i].wr_id & 0xffffffffu);
		if (wc[i].status != IBV_WC_SUCCESS) {
			snprintf(err, errlen, "host '%s', flow %u QP %u: receive completion %s", flow_host(e, d), d->f->id,
				 d->conn.qp[q]->qp_num, ibv_wc_status_str(wc[i].status));
			return RP_V_FAIL;
		}
		unsigned s = wc[i].opcode == IBV_WC_RECV_RDMA_WITH_IMM ? ntohl(wc[i].imm_data) % (2u * d->depth) : k;
		const uint8_t *buf = rp_conn_recv_slot(&d->conn, q) + (size_t)s * d->slot;
		size_t len = wc[i].byte_len < d->slot ? wc[i].byte_len : d->slot;
		struct rp_probe pr;
		d->qmsgs[q]++;
		d->qbytes[q] += wc[i].byte_len;
		if (rp_probe_parse(buf, len, &pr) != 0 || pr.flow_id != d->f->id) {
			d->bad[q]++;
		} else {
			if (e->cfg.acct && d->acct != UINT32_MAX)
				rp_acct_message(e->cfg.acct, d->acct, d->f->dst, now, &pr, wc[i].byte_len);
			if (now >= pr.tx_ns)
				rp_hist_record(&d->lat[q], now - pr.tx_ns);
		}
		int rc = post_recv(d, q, k, err, errlen);
		if (rc)
			return rc;
	}
	return n;
}

static bool sender_idle(const struct vend *d)
{
	if (d->failed || d->abandoned)
		return true;
	if (!d->done)
		return false;
	for (unsigned q = 0; q < d->nqp; q++)
		if (d->outstanding[q])
			return false;
	return true;
}

/* One pass over every end; returns the work done, or RP_V_FAIL. *busy: a
 * sender still has messages to post or to complete. */
static int pass(struct rp_vengine *e, uint64_t now, bool stopping, bool *busy, char *err, size_t errlen)
{
	int work = 0, rc;
	*busy = false;
	for (size_t i = 0; i < e->nends; i++) {
		struct vend *d = &e->ends[i];
		if (d->send) {
			if ((rc = send_due(d, now, stopping, err, errlen)) < 0)
				return RP_V_FAIL;
			work += rc;
			if ((rc = poll_send(e, d, err, errlen)) < 0)
				return RP_V_FAIL;
			*busy |= !sender_idle(d);
		} else if ((rc = poll_recv(e, d, err, errlen)) < 0) {
			return RP_V_FAIL;
		}
		work += rc;
	}
	return work;
}

int rp_vengine_run(struct rp_vengine *e, const struct rp_vengine_run *r, uint64_t *end_ns, char *err, size_t errlen)
{
	bool stopping = false, busy = true, told = false;
	uint64_t stop_at = 0, now;
	int rc = RP_V_OK;
	for (;;) {
		now = now_ns(e);
		if (!stopping && ((r->stop && *r->stop) || (r->duration_ns && now >= r->duration_ns))) {
			stopping = true;
			stop_at = now;
		}
		int work = pass(e, now, stopping, &busy, err, errlen);
		if (work < 0) {
			rc = RP_V_FAIL;
			break;
		}
		if (stopping && busy && now - stop_at > RP_VENGINE_DRAIN_NS)
			busy = false; /* outstanding messages that never complete are given up */
		for (size_t i = 0; stopping && busy && r->host_lost && i < e->nends; i++) {
			struct vend *d = &e->ends[i];
			if (d->send && !d->abandoned && r->host_lost(r->host_lost_arg, d->f->dst))
				d->abandoned = true; /* seen as idle from the next pass */
		}
		if (!busy && !told) {
			told = true;
			if (r->tx_done)
				*r->tx_done = true;
		}
		if (told && (!r->others_done || *r->others_done))
			break;
		if (work == 0) {
			struct timespec ts = {.tv_nsec = IDLE_NS};
			nanosleep(&ts, NULL);
		}
	}
	/* Every sender has its completions, so every message is in its receiver's CQ. */
	for (int k = 0; rc == RP_V_OK && k < 3; k++) {
		bool b;
		if (pass(e, now_ns(e), true, &b, err, errlen) < 0)
			rc = RP_V_FAIL;
		struct timespec ts = {.tv_nsec = 1000000};
		nanosleep(&ts, NULL);
	}
	*end_ns = now_ns(e);
	if (rc == RP_V_OK && e->failed[0]) {
		snprintf(err, errlen, "%s", e->failed);
		rc = RP_V_FAIL;
	}
	return rc;
}

void rp_vengine_finish(struct rp_vengine *e, struct rp_acct *a)
{
	for (size_t i = 0; i < e->nends; i++) {
		const struct vend *d = &e->ends[i];
		if (d->send && a && d->acct != UINT32_MAX)
			rp_acct_set_tx(a, d->acct, d->seq, d->tx_bytes);
	}
	for (size_t i = 0; i < e->nhosts; i++)
		rp_ctr_snapshot(&e->hosts[i].src, e->hosts[i].after);
}

static struct rp_env_count *ctr_counts(const struct rp_ctr *c, size_t n, uint32_t *nout)
{
	struct rp_env_count *o = calloc(n ? n : 1, sizeof(*o));
	*nout = 0;
	for (size_t i = 0; o && i < n; i++) {
		o[i].name = rp_env_strdup(c[i].name);
		o[i].value = c[i].value;
		*nout = (uint32_t)(i + 1);
	}
	return o;
}

static void host_facts(const struct rp_vengine *e, const struct vhost *v, struct rp_env_vhost *o)
{
	static struct rp_ctr delta[RP_CTR_MAX], norm[RP_CTR_MAX];
	size_t nd = rp_ctr_delta(v->before, v->after, delta, RP_CTR_MAX);
	size_t nn = rp_ctr_fold(delta, nd, norm, RP_CTR_MAX);
	char gid[46];
	rp_gid_format(v->gid.gid, gid, sizeof(gid));
	o->host = rp_env_strdup(e->cfg.plan->prof->hosts[v->host].name);
	o->device = rp_env_strdup(v->dev.port.dev_name);
	o->driver = rp_env_strdup(v->dev.driver);
	o->port = (int32_t)v->dev.port.port_num;
	o->gid_index = v->gid.index;
	o->gid = rp_env_strdup(gid);
	o->netdev = rp_env_strdup(v->gid.netdev);
	o->elapsed_ns = v->after->t_ns - v->before->t_ns;
	o->delta = ctr_counts(norm, nn, &o->ndelta);
	o->raw = ctr_counts(delta, nd, &o->nraw);
}

static void qp_facts(const struct rp_vengine *e, const struct vend *d, unsigned q, struct rp_env_vqp *o)
{
	const struct rp_profile *p = e->cfg.plan->prof;
	uint32_t mine = d->conn.qp[q]->qp_num, peer = d->conn.remote[q].qpn;
	o->flow = d->f->id;
	o->qp = (int32_t)q;
	o->src = rp_env_strdup(p->hosts[d->f->src].name);
	o->dst = rp_env_strdup(p->hosts[d->f->dst].name);
	o->src_qpn = d->send ? mine : peer;
	o->dst_qpn = d->send ? peer : mine;
	o->send = d->send;
	if (d->send) {
		o->v[0] = d->posted[q];
		o->v[1] = d->qmsgs[q];
		o->v[2] = d->qbytes[q];
	} else {
		o->v[0] = d->qmsgs[q];
		o->v[1] = d->qbytes[q];
		o->v[2] = d->bad[q];
	}
	if ((o->lat = malloc(sizeof(*o->lat))) != NULL)
		*o->lat = d->lat[q];
}

struct rp_env_verbs *rp_vengine_facts(const struct rp_vengine *e)
{
	struct rp_env_verbs *v = calloc(1, sizeof(*v));
	size_t nqps = 0;
	for (size_t i = 0; e && i < e->nends; i++)
		nqps += e->ends[i].nqp;
	if (!v)
		return NULL;
	if (e && e->nhosts && (v->hosts = calloc(e->nhosts, sizeof(*v->hosts))))
		for (size_t i = 0; i < e->nhosts; i++)
			host_facts(e, &e->hosts[i], &v->hosts[v->nhosts++]);
	if (e && nqps && (v->qps = calloc(nqps, sizeof(*v->qps))))
		for (size_t i = 0; i < e->nends; i++)
			for (unsigned q = 0; q < e->ends[i].nqp; q++)
				qp_facts(e, &e->ends[i], q, &v->qps[v->nqps++]);
	return v;
}
