#include "verbs/ep.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "verbs/cm.h"
#include "verbs/gid.h"
#include "verbs/oob_auth.h"
#include "verbs/qp.h"

#define LINE_MAX_LEN 512

double rp_ep_gbps(const struct rp_run_result *r)
{
	return r->t_ns ? (double)r->bytes * 8.0 / (double)r->t_ns : 0.0;
}

int rp_ep_hello_encode(const struct rp_ep_cfg *c, size_t max_size, int ll, int mtu_enum, unsigned rd_atomic,
		       char *out, size_t len)
{
	int n = snprintf(out, len,
			 "HELLO 1 %s %s %u %zu %u %u %u %u %" PRIu64 " %" PRIu64 " %d %d %u%s%s\n", rp_op_name(c->op),
			 rp_mode_name(c->mode), c->nqp, max_size, c->tx_depth, c->rx_depth, c->cq_mod, c->inline_size,
			 c->iters, c->duration_ns, ll, mtu_enum, rd_atomic, c->cm ? " cm" : "", c->ud ? " ud" : "");
	return n > 0 && (size_t)n < len ? 0 : -1;
}

int rp_ep_hello_decode(const char *line, struct rp_ep_cfg *c, size_t *max_size, int *ll, int *mtu_enum,
		       unsigned *rd_atomic)
{
	char op[16], mode[16];
	int ver, used = 0;
	if (sscanf(line, "HELLO %d %15s %15s %u %zu %u %u %u %u %" SCNu64 " %" SCNu64 " %d %d %u%n", &ver, op, mode,
		   &c->nqp, max_size, &c->tx_depth, &c->rx_depth, &c->cq_mod, &c->inline_size, &c->iters,
		   &c->duration_ns, ll, mtu_enum, rd_atomic, &used) != 14 ||
	    ver != 1)
		return -1;
	/* Optional words after the 14 fields (older clients send none): "cm", "ud". */
	c->cm = c->ud = false;
	char rest[64];
	snprintf(rest, sizeof(rest), "%s", line + used);
	for (char *save, *w = strtok_r(rest, " \n", &save); w; w = strtok_r(NULL, " \n", &save)) {
		if (strcmp(w, "cm") == 0)
			c->cm = true;
		else if (strcmp(w, "ud") == 0)
			c->ud = true;
		/* other words: a newer client's; it checks our OK line */
	}
	if (rp_op_parse(op, &c->op) || rp_mode_parse(mode, &c->mode))
		return -1;
	if (c->nqp == 0 || c->nqp > RP_MAX_QP || *max_size == 0 || c->tx_depth < 2 || c->rx_depth < 1)
		return -1;
	return 0;
}

/* ---- the local side: device, port, GID, counters ---- */

struct local {
	struct rp_dev dev;
	struct ibv_pd *pd;
	struct rp_gid_entry gid;
	bool has_gid;
	unsigned rd_atomic;
};

static int open_local(const struct rp_ep_cfg *cfg, struct rp_ep_report *rep, struct local *L, char *err,
		      size_t errlen)
{
	memset(L, 0, sizeof(*L));
	int rc = rp_dev_open(cfg->dev_name, cfg->ib_port, &L->dev, err, errlen);
	if (rc)
		return rc;
	rep->port = L->dev.port;
	snprintf(rep->driver, sizeof(rep->driver), "%s", L->dev.driver);
	rep->gid_index = -1;
	if (L->dev.port.link_layer == RP_LL_ETHERNET || cfg->gid_index >= 0) {
		rc = rp_dev_pick_gid(&L->dev, cfg->gid_index, &L->gid, err, errlen);
		if (rc) {
			rep->err_setting = RP_EP_SET_GID;
			return rc;
		}
		L->has_gid = true;
		rep->gid_index = L->gid.index;
		rp_gid_format(L->gid.gid, rep->gid, sizeof(rep->gid));
		snprintf(rep->netdev, sizeof(rep->netdev), "%s", L->gid.netdev);
	}
	L->pd = ibv_alloc_pd(L->dev.ctx);
	if (!L->pd) {
		snprintf(err, errlen, "ibv_alloc_pd failed");
		return RP_V_FAIL;
	}
	/* RDMA reads in flight: what both ends allow, at most 16 (perftest's). */
	unsigned a = (unsigned)L->dev.attr.max_qp_rd_atom, b = (unsigned)L->dev.attr.max_qp_init_rd_atom;
	L->rd_atomic = a < b ? a : b;
	if (L->rd_atomic > 16)
		L->rd_atomic = 16;
	if (L->rd_atomic == 0)
		L->rd_atomic = 1;
	return RP_V_OK;
}

static void close_local(struct local *L)
{
	if (L->pd)
		ibv_dealloc_pd(L->pd);
	rp_dev_close(&L->dev);
}

static void counters_begin(const struct rp_ep_cfg *cfg, struct rp_ep_report *rep)
{
	rep->t_start_ns = rp_now_ns();
	if (cfg->no_counters)
		return;
	struct rp_ctr_source *s = &rep->ctr_src;
	snprintf(s->dev, sizeof(s->dev), "%s", rep->port.dev_name);
	s->port = rep->port.port_num;
	snprintf(s->netdev, sizeof(s->netdev), "%s", rep->netdev);
	rep->before = malloc(sizeof(*rep->before));
	rep->after = malloc(sizeof(*rep->after));
	if (!rep->before || !rep->after)
		return;
	rp_ctr_snapshot(s, rep->before);
	rep->have_counters = true;
	if (cfg->counter_interval_ms)
		rep->sampler = rp_ctr_sampler_start(s, cfg->counter_interval_ms);
}

static void counters_end(struct rp_ep_report *rep)
{
	rep->t_end_ns = rp_now_ns();
	if (!rep->have_counters)
		return;
	rp_ctr_sampler_stop(rep->sampler);
	rp_ctr_snapshot(&rep->ctr_src, rep->after);
}

void rp_ep_report_free(struct rp_ep_report *rep)
{
	for (unsigned p = 0; p < RP_EP_MAX_CLIENTS; p++)
		for (unsigned s = 0; s < RP_EP_MAX_SIZES; s++) {
			free(rep->peers[p].res[s].hist);
			rep->peers[p].res[s].hist = NULL;
		}
	rp_ctr_sampler_free(rep->sampler);
	rep->sampler = NULL;
	free(rep->before);
	free(rep->after);
	rep->before = rep->after = NULL;
}

/* ---- the QP exchange, shared by both sides ---- */

static int send_recs(struct rp_conn *c, const struct local *L)
{
	for (unsigned q = 0; q < c->nqp; q++) {
		struct rp_oob_rec r;
		char line[RP_OOB_REC_LEN + 1];
		rp_conn_local_rec(c, q, L->has_gid ? L->gid.gid : NULL, &r);
		if (c->ud)
			rp_oob_ud_encode(&r, line);
		else
			rp_oob_rec_encode(&r, line);
		if (rp_oob_send(c->fd, line))
			return -1;
	}
	return 0;
}

static int recv_recs(struct rp_conn *c, unsigned timeout_ms, char *err, size_t errlen)
{
	for (unsigned q = 0; q < c->nqp; q++) {
		char line[LINE_MAX_LEN];
		int n = rp_oob_recv_line(c->fd, line, sizeof(line), (int)timeout_ms, err, errlen);
		if (n < 0)
			return RP_V_FAIL;
		if (c->ud ? rp_oob_ud_decode(line, (size_t)n, &c->remote[q])
			  : rp_oob_rec_decode(line, (size_t)n, &c->remote[q])) {
			snprintf(err, errlen, "peer sent a malformed %s record: '%.60s'", c->ud ? "UD" : "QP", line);
			return RP_V_FAIL;
		}
	}
	return RP_V_OK;
}

static struct rp_conn_path path_of(const struct rp_ep_cfg *cfg, const struct local *L, int mtu, unsigned rd)
{
	struct rp_conn_path p = {
		.addr = {.sgid_index = L->has_gid ? L->gid.index : -1,
			 .dscp = cfg->dscp,
			 .ecn = cfg->ecn,
			 .hop_limit = cfg->hop_limit,
			 .sl = cfg->sl},
		.mtu = mtu,
		.timeout = cfg->ack_timeout ? cfg->ack_timeout : 14,
		.retry_cnt = cfg->retry_cnt ? cfg->retry_cnt : 7,
		.rd_atomic = (uint8_t)rd,
	};
	return p;
}

/* Our GID's IPv4 address ("10.9.0.1") when it is IPv4-mapped: where rdma_cm binds. */
static int gid_ipv4(const struct local *L, char out[INET_ADDRSTRLEN])
{
	static const uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	if (!L->has_gid || memcmp(L->gid.gid, prefix, sizeof(prefix)) != 0)
		return -1;
	return inet_ntop(AF_INET, L->gid.gid + 12, out, INET_ADDRSTRLEN) ? 0 : -1;
}

static size_t max_size_of(const struct rp_ep_cfg *cfg)
{
	size_t m = 1;
	for (unsigned i = 0; i < cfg->nsizes; i++)
		if (cfg->sizes[i] > m)
			m = cfg->sizes[i];
	return m;
}

static int local_mtu(const struct rp_ep_cfg *cfg, const struct local *L, char *err, size_t errlen)
{
	if (!cfg->mtu)
		return L->dev.port.active_mtu;
	int m = rp_mtu_to_enum(cfg->mtu);
	if (!m) {
		snprintf(err, errlen, "MTU %u: use 256, 512, 1024, 2048 or 4096", cfg->mtu);
		return -1;
	}
	if (m > L->dev.port.active_mtu) {
		snprintf(err, errlen, "MTU %u is above the port's active MTU %u", cfg->mtu,
			 rp_mtu_from_enum(L->dev.port.active_mtu));
		return -1;
	}
	return m;
}

/* Runs one size on either side. */
static int run_one(struct rp_conn *c, const struct rp_ep_cfg *cfg, bool server, struct rp_ep_size_result *sr,
		   char *err, size_t errlen)
{
	struct rp_run r = {.op = cfg->op,
			   .size = sr->size,
			   .iters = cfg->iters,
			   .duration_ns = cfg->duration_ns,
			   .stall_ms = cfg->stall_ms,
			   .hist = sr->hist,
			   .ud_timeout_ms = cfg->ud_timeout_ms};
	if (cfg->mode == RP_MODE_LAT)
		return server ? rp_lat_server(c, &r, &sr->server, err, errlen)
			      : rp_lat_client(c, &r, &sr->client, err, errlen);
	return server ? rp_bw_server(c, &r, &sr->server, err, errlen) : rp_bw_client(c, &r, &sr->client, err, errlen);
}

static void clear_slots(struct rp_conn *c)
{
	/* Stale ping counters or stop markers from the previous size must not
	 * look like a new message. Nothing is in flight between runs. */
	memset(c->buf, 0, 2 * c->nqp * c->region);
}

/* Every size of a UD run must fit one packet of the path MTU. */
static int ud_check_sizes(const struct rp_ep_cfg *cfg, unsigned mtu_bytes, char *err, size_t errlen)
{
	for (unsigned i = 0; i < cfg->nsizes; i++)
		if (rp_ud_check_size(cfg->sizes[i], mtu_bytes, err, errlen))
			return RP_V_ENV;
	return RP_V_OK;
}

/* The connection's resources for one peer over the control socket fd; its
 * start PSNs from a seed of its own (getrandom; the clock if that fails). */
static int open_conn(struct rp_conn *c, const struct rp_ep_cfg *cfg, struct local *L, size_t max_size, int fd,
		     char *err, size_t errlen)
{
	uint64_t seed;
	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != (ssize_t)sizeof(seed)) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		seed = ((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec) ^ ((uint64_t)getpid() << 32);
	}
	struct rp_conn_cfg cc = {.nqp = cfg->nqp, .max_size = max_size, .tx_depth = cfg->tx_depth,
				 .rx_depth = cfg->rx_depth, .cq_mod = cfg->cq_mod, .inline_size = cfg->inline_size,
				 .ud = cfg->ud, .psn_seed = seed};
	int rc = rp_conn_create(c, &L->dev, L->pd, &cc, err, errlen);
	c->fd = fd; /* rp_conn_destroy closes it, also after a failed create */
	return rc;
}

/* The QP records (RC or UD) both ways, the server's first, then the QPs
 * INIT -> RTR -> RTS toward the peer's: the connect step without rdma_cm. */
static int exchange_and_connect(struct rp_conn *c, const struct local *L, bool server, const struct rp_conn_path *p,
				unsigned timeout_ms, char *err, size_t errlen)
{
	if (server ? send_recs(c, L) || recv_recs(c, timeout_ms, err, errlen)
		   : recv_recs(c, timeout_ms, err, errlen) || send_recs(c, L)) {
		if (!err[0])
			snprintf(err, errlen, "the peer closed the control connection during the QP exchange");
		return RP_V_FAIL;
	}
	return rp_conn_connect(c, p, err, errlen);
}

/* ---- client ---- */

/* The client's connect step, after the server's "OK mtu rd [ud | cm PORT ADDR]". */
static int client_connect(struct rp_conn *c, struct rp_cm *cm, const struct rp_ep_cfg *cfg, const struct local *L,
			  const char *ok, const struct rp_conn_path *p, unsigned mtu_bytes, enum rp_ep_setting *setting,
			  char *err, size_t errlen)
{
	if (cfg->ud) {
		/* "OK mtu rd ud": a server that ignored the word would run RC. */
		*setting = RP_EP_SET_UD;
		if (!strstr(ok, " ud")) {
			snprintf(err, errlen, "the server does not do UD (it answered '%.60s'); update it", ok);
			return RP_V_ENV;
		}
		*setting = RP_EP_SET_SIZE;
		int rc = ud_check_sizes(cfg, mtu_bytes, err, errlen);
		if (rc)
			return rc;
		*setting = RP_EP_SET_NONE;
	} else if (cfg->cm) {
		/* "OK mtu rd cm PORT ADDR": the server's rdma_cm listener for this session. */
		unsigned cport;
		char caddr[64], src[INET_ADDRSTRLEN];
		if (sscanf(ok, "OK %*d %*u cm %u %63s", &cport, caddr) != 2 || cport == 0 || cport > 65535) {
			*setting = RP_EP_SET_CM;
			snprintf(err, errlen, "the server does not do rdma_cm (it answered '%.60s'); update it", ok);
			return RP_V_ENV;
		}
		return rp_cm_connect(cm, c, gid_ipv4(L, src) ? NULL : src, strcmp(caddr, "-") ? caddr : cfg->host,
				     (uint16_t)cport, p, (int)cfg->connect_timeout_ms, err, errlen);
	}
	return exchange_and_connect(c, L, false, p, cfg->connect_timeout_ms, err, errlen);
}


int rp_ep_client(const struct rp_ep_cfg *cfg, struct rp_ep_report *rep, char *err, size_t errlen)
{
	struct local L;
	struct rp_conn c;
	struct rp_cm cm;
	memset(&c, 0, sizeof(c));
	memset(&cm, 0, sizeof(cm));
	c.fd = -1;
	rep->server = false;
	rep->cfg = *cfg;
	int rc = open_local(cfg, rep, &L, err, errlen);
	if (rc)
		goto out;
	int mtu = local_mtu(cfg, &L, err, errlen);
	if (mtu < 0) {
		rep->err_setting = RP_EP_SET_MTU;
		rc = RP_V_ENV;
		goto out;
	}
	if (cfg->ud && (rc = ud_check_sizes(cfg, rp_mtu_from_enum(mtu), err, errlen))) {
		rep->err_setting = RP_EP_SET_SIZE;
		goto out;
	}
	/* Control connection first: an unreachable peer is the likeliest error. */
	int fd = rp_oob_connect(cfg->host, cfg->tcp_port, (int)cfg->connect_timeout_ms, err, errlen);
	if (fd < 0) {
		rc = RP_V_ENV;
		goto out;
	}
	/* The key proof before anything about us goes out (HELLO, QP records); its nonces
	 * are what rdma_cm's proof binds (verbs/cm_priv.h). */
	cm.sess.key = cfg->key;
	if (rp_oob_auth_connect(fd, cfg->key, &cm.sess.nonces, (int)cfg->connect_timeout_ms, err, errlen)) {
		close(fd);
		rc = RP_V_ENV;
		goto out;
	}
	size_t max_size = max_size_of(cfg);
	rc = open_conn(&c, cfg, &L, max_size, fd, err, errlen);
	if (rc)
		goto out;
	rep->max_inline = c.max_inline;

	char line[LINE_MAX_LEN];
	rc = RP_V_FAIL;
	if (rp_ep_hello_encode(cfg, max_size, L.dev.port.link_layer, mtu, L.rd_atomic, line, sizeof(line)) ||
	    rp_oob_send(c.fd, line)) {
		snprintf(err, errlen, "cannot send to the server");
		goto out;
	}
	if (rp_oob_recv_line(c.fd, line, sizeof(line), (int)cfg->connect_timeout_ms, err, errlen) < 0)
		goto out;
	int smtu;
	unsigned srd;
	if (strncmp(line, "ERR ", 4) == 0) {
		snprintf(err, errlen, "server refused: %s", line + 4);
		rc = RP_V_ENV;
		goto out;
	}
	if (sscanf(line, "OK %d %u", &smtu, &srd) != 2) {
		snprintf(err, errlen, "server answered '%.60s' (is it a roceprobe ep server?)", line);
		goto out;
	}
	rep->mtu = rp_mtu_from_enum(smtu);
	struct rp_conn_path p = path_of(cfg, &L, smtu, srd);
	rc = client_connect(&c, &cm, cfg, &L, line, &p, rep->mtu, &rep->err_setting, err, errlen);
	if (rc)
		goto out;

	rep->npeers = 1;
	struct rp_ep_peer *peer = &rep->peers[0];
	snprintf(peer->name, sizeof(peer->name), "%s:%u", cfg->host, cfg->tcp_port);
	counters_begin(cfg, rep);
	rc = RP_V_FAIL;
	for (unsigned s = 0; s < cfg->nsizes; s++) {
		struct rp_ep_size_result *sr = &peer->res[s];
		sr->size = cfg->sizes[s];
		if (cfg->mode == RP_MODE_LAT) {
			sr->hist = malloc(sizeof(*sr->hist));
			if (!sr->hist)
				goto out_counters;
			rp_hist_init(sr->hist);
		}
		clear_slots(&c);
		snprintf(line, sizeof(line), "RUN %zu\n", sr->size);
		if (rp_oob_send(c.fd, line) ||
		    rp_oob_recv_line(c.fd, line, sizeof(line), (int)cfg->connect_timeout_ms * 4, err, errlen) < 0)
			goto out_counters;
		if (strcmp(line, "GO") != 0) {
			snprintf(err, errlen, "server: %.200s", strncmp(line, "ERR ", 4) ? line : line + 4);
			goto out_counters;
		}
		if (run_one(&c, cfg, false, sr, err, errlen))
			goto out_counters;
		snprintf(line, sizeof(line), "END %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", sr->client.msgs,
			 sr->client.bytes, sr->client.t_ns);
		if (rp_oob_send(c.fd, line) || rp_oob_recv_line(c.fd, line, sizeof(line), -1, err, errlen) < 0)
			goto out_counters;
		if (sscanf(line, "ACK %" SCNu64 " %" SCNu64 " %" SCNu64, &sr->server.msgs, &sr->server.bytes,
			   &sr->server.t_ns) != 3) {
			snprintf(err, errlen, "server: %.200s", strncmp(line, "ERR ", 4) ? line : line + 4);
			goto out_counters;
		}
		peer->nsizes = s + 1;
	}
	rp_oob_send(c.fd, "BYE\n");
	rc = RP_V_OK;
out_counters:
	counters_end(rep);
out:
	rp_cm_destroy(&cm);
	rp_conn_destroy(&c);
	close_local(&L);
	return rc;
}

/* ---- server ---- */

/* A barrier that gives up: an incast run starts when every client asked
 * for it, but a client that died must not hang the others forever. */
struct gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned n, waiting, generation;
	bool broken;
};

static int gate_wait(struct gate *g, unsigned timeout_ms)
{
	if (g->n <= 1)
		return 0;
	pthread_mutex_lock(&g->lock);
	unsigned gen = g->generation;
	if (++g->waiting == g->n) {
		g->waiting = 0;
		g->generation++;
		pthread_cond_broadcast(&g->cond);
		pthread_mutex_unlock(&g->lock);
		return 0;
	}
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += timeout_ms / 1000 + 1;
	while (gen == g->generation && !g->broken)
		if (pthread_cond_timedwait(&g->cond, &g->lock, &until)) {
			g->broken = true;
			pthread_cond_broadcast(&g->cond);
		}
	int rc = gen == g->generation ? -1 : 0;
	pthread_mutex_unlock(&g->lock);
	return rc;
}

static void gate_break(struct gate *g)
{
	pthread_mutex_lock(&g->lock);
	g->broken = true;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

struct server;

/* One accepted connection: proving the key, then (admitted) a client. */
struct serve_arg {
	struct server *S;
	struct local *L;
	const struct rp_ep_cfg *cfg; /* the server's own options */
	struct rp_ep_report *rep;
	struct rp_ep_peer *peer;     /* NULL until admitted */
	struct gate *gate;
	pthread_mutex_t *rep_lock;
	int fd;
	char name[64];               /* host:port */
	char first[LINE_MAX_LEN];    /* the HELLO the admission read (no key) */
	struct rp_oob_auth_nonces nonces; /* the key proof's (with a key), for rdma_cm's */
	pthread_t th;
	bool used, done;
};

/* Clients, and connections still proving the key: a stranger who keeps one
 * open holds an entry for --connect-timeout at most, never a client slot. */
#define MAX_CONNS (RP_EP_MAX_CLIENTS + 16)

struct server {
	const struct rp_ep_cfg *cfg;
	struct rp_ep_report *rep;
	struct local L;        /* opened for the first client admitted */
	pthread_mutex_t lock;  /* the fields below, the report's shared ones, conns' fd and done */
	bool opened, stop;
	int open_rc;
	char open_err[RP_ERR_LEN];
	unsigned n, taken;
	struct gate gate;
	struct serve_arg conns[MAX_CONNS];
};

static void refuse(int fd, const char *why)
{
	char line[LINE_MAX_LEN];
	snprintf(line, sizeof(line), "ERR %s\n", why);
	rp_oob_send(fd, line);
}

/* The client's HELLO against what this end can do: the test (into cfg),
 * the path MTU and reads in flight both ends allow. */
static int negotiate(const struct serve_arg *a, const char *hello, struct rp_ep_cfg *cfg, size_t *max_size, int *mtu,
		     unsigned *rd, char *err, size_t errlen)
{
	const struct local *L = a->L;
	int ll, cmtu;
	unsigned crd;
	if (rp_ep_hello_decode(hello, cfg, max_size, &ll, &cmtu, &crd)) {
		snprintf(err, errlen, "not a roceprobe ep client (it sent '%.40s')", hello);
		return RP_V_FAIL;
	}
	if (ll != (int)L->dev.port.link_layer) {
		snprintf(err, errlen, "client's link layer is %s, ours is %s", rp_link_layer_name((enum rp_link_layer)ll),
			 rp_link_layer_name(L->dev.port.link_layer));
		return RP_V_ENV;
	}
	*mtu = local_mtu(a->cfg, L, err, errlen);
	if (*mtu < 0)
		return RP_V_ENV;
	if (cmtu < *mtu)
		*mtu = cmtu; /* the path MTU both ends can do */
	*rd = crd < L->rd_atomic ? crd : L->rd_atomic;
	if (cfg->ud) {
		if (cfg->mode != RP_MODE_LAT || cfg->op != RP_OP_SEND || cfg->cm) {
			snprintf(err, errlen, "UD runs latency with SEND only");
			return RP_V_ENV;
		}
		if (rp_ud_check_size(*max_size, rp_mtu_from_enum(*mtu), err, errlen))
			return RP_V_ENV;
	}
	return RP_V_OK;
}

/* The device, opened once, for the first client admitted; its failure ends
 * the server (every later client is told the same). */
static int server_open(struct server *S, char *err, size_t errlen)
{
	pthread_mutex_lock(&S->lock);
	if (!S->opened) {
		S->opened = true;
		S->open_rc = open_local(S->cfg, S->rep, &S->L, S->open_err, sizeof(S->open_err));
		if (S->open_rc)
			S->stop = true;
		else
			counters_begin(S->cfg, S->rep);
	}
	int rc = S->open_rc;
	if (rc)
		snprintf(err, errlen, "%s", S->open_err);
	pthread_mutex_unlock(&S->lock);
	return rc;
}

/* The first client's test is the report's. */
static void report_test(const struct serve_arg *a, const struct rp_ep_cfg *cfg, int mtu, unsigned max_inline)
{
	pthread_mutex_lock(a->rep_lock);
	if (a->peer == &a->rep->peers[0]) {
		struct rp_ep_cfg *r = &a->rep->cfg;
		r->op = cfg->op;
		r->mode = cfg->mode;
		r->nqp = cfg->nqp;
		r->tx_depth = cfg->tx_depth;
		r->rx_depth = cfg->rx_depth;
		r->cq_mod = cfg->cq_mod;
		r->inline_size = cfg->inline_size;
		r->iters = cfg->iters;
		r->duration_ns = cfg->duration_ns;
		r->cm = cfg->cm;
		r->ud = cfg->ud;
		a->rep->mtu = rp_mtu_from_enum(mtu);
		a->rep->max_inline = max_inline;
	}
	pthread_mutex_unlock(a->rep_lock);
}

/* The server's connect step: "OK mtu rd [ud | cm PORT ADDR]", then the
 * record exchange or rdma_cm's accept (on the listener serve opened). */
static int server_connect(struct rp_conn *c, struct rp_cm *cm, const struct serve_arg *a, const struct rp_ep_cfg *cfg,
			  int mtu, unsigned rd, char *err, size_t errlen)
{
	struct rp_conn_path p = path_of(a->cfg, a->L, mtu, rd);
	char line[LINE_MAX_LEN];
	if (cfg->cm)
		snprintf(line, sizeof(line), "OK %d %u cm %u %s\n", mtu, rd, cm->port, cm->addr);
	else
		snprintf(line, sizeof(line), "OK %d %u%s\n", mtu, rd, cfg->ud ? " ud" : "");
	if (rp_oob_send(c->fd, line)) {
		snprintf(err, errlen, "cannot answer the client");
		return RP_V_FAIL;
	}
	if (cfg->cm)
		return rp_cm_accept(cm, c, &p, (int)cfg->connect_timeout_ms, err, errlen);
	return exchange_and_connect(c, a->L, true, &p, cfg->connect_timeout_ms, err, errlen);
}

static int serve(struct serve_arg *a, char *err, size_t errlen)
{
	struct rp_ep_cfg cfg = *a->cfg;
	char line[LINE_MAX_LEN];
	int fd = a->fd;
	struct rp_conn c;
	struct rp_cm cm;
	memset(&c, 0, sizeof(c));
	memset(&cm, 0, sizeof(cm));
	/* rdma_cm's requests prove the key over this session's nonces (verbs/cm_priv.h); one
	 * that does not is refused like a connection without the key, and counted. */
	cm.sess.key = a->cfg->key;
	cm.sess.nonces = a->nonces;
	cm.on_refused = a->cfg->on_refused;
	c.fd = fd;
	size_t max_size;
	int mtu;
	unsigned rd;
	if (a->first[0])
		snprintf(line, sizeof(line), "%s", a->first);
	else if (rp_oob_recv_line(fd, line, sizeof(line), (int)cfg.connect_timeout_ms, err, errlen) < 0) {
		rp_conn_destroy(&c);
		return RP_V_FAIL;
	}
	/* Until the OK line, every failure is told to the client (ERR why). */
	int rc = server_open(a->S, err, errlen);
	if (!rc)
		rc = negotiate(a, line, &cfg, &max_size, &mtu, &rd, err, errlen);
	if (!rc)
		rc = open_conn(&c, &cfg, a->L, max_size, fd, err, errlen);
	if (!rc && cfg.cm) {
		/* The client asked for rdma_cm: a listener of this session's own, on our GID's
		 * address (so the CM picks our device), its port in the OK line. */
		char bind[INET_ADDRSTRLEN];
		rc = rp_cm_listen(&cm, gid_ipv4(a->L, bind) ? a->cfg->bind : bind, err, errlen);
	}
	if (rc) {
		refuse(fd, err[0] ? err : "refused");
		goto out;
	}
	report_test(a, &cfg, mtu, c.max_inline);
	rc = server_connect(&c, &cm, a, &cfg, mtu, rd, err, errlen);
	if (rc)
		goto out;
	rc = RP_V_FAIL;
	for (unsigned s = 0;; s++) {
		if (rp_oob_recv_line(fd, line, sizeof(line), -1, err, errlen) < 0)
			goto out;
		if (strcmp(line, "BYE") == 0)
			break;
		size_t size;
		if (sscanf(line, "RUN %zu", &size) != 1 || size == 0 || size > max_size || s >= RP_EP_MAX_SIZES) {
			snprintf(err, errlen, "unexpected control line '%.40s'", line);
			goto out;
		}
		struct rp_ep_size_result *sr = &a->peer->res[s];
		sr->size = size;
		clear_slots(&c);
		if (rp_op_needs_recv(cfg.op) && rp_conn_fill_recvs(&c, err, errlen))
			goto out;
		if (gate_wait(a->gate, cfg.connect_timeout_ms * 4)) {
			snprintf(err, errlen, "another client of the incast did not start its run");
			refuse(fd, err);
			goto out;
		}
		if (rp_oob_send(fd, "GO\n"))
			goto out;
		if (run_one(&c, &cfg, true, sr, err, errlen)) {
			gate_break(a->gate);
			goto out;
		}
		if (rp_oob_recv_line(fd, line, sizeof(line), -1, err, errlen) < 0)
			goto out;
		if (sscanf(line, "END %" SCNu64 " %" SCNu64 " %" SCNu64, &sr->client.msgs, &sr->client.bytes,
			   &sr->client.t_ns) != 3) {
			snprintf(err, errlen, "unexpected control line '%.40s'", line);
			goto out;
		}
		snprintf(line, sizeof(line), "ACK %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", sr->server.msgs,
			 sr->server.bytes, sr->server.t_ns);
		if (rp_oob_send(fd, line))
			goto out;
		a->peer->nsizes = s + 1;
	}
	rc = RP_V_OK;
out:
	if (rc)
		gate_break(a->gate);
	if (cm.refused) {
		pthread_mutex_lock(a->rep_lock);
		a->rep->refused += cm.refused;
		pthread_mutex_unlock(a->rep_lock);
	}
	rp_cm_destroy(&cm);
	rp_conn_destroy(&c);
	return rc;
}

/* A connection's thread: the key proof (or, without a key, its HELLO), a
 * client slot, the session. A refused connection ends here, told why, and
 * leaves no trace but the server's count and its line. */
static void *conn_main(void *arg)
{
	struct serve_arg *a = arg;
	struct server *S = a->S;
	char why[RP_ERR_LEN];
	int rc = rp_oob_auth_accept(a->fd, S->cfg->key, &a->nonces, (int)S->cfg->connect_timeout_ms, a->first,
				    sizeof(a->first), why, sizeof(why));
	pthread_mutex_lock(&S->lock);
	if (rc == 0 && (S->taken == S->n || S->stop)) {
		refuse(a->fd, "this server has all its clients");
		snprintf(why, sizeof(why), "the server has all its clients");
		rc = -1;
	}
	if (rc == 0) {
		a->peer = &S->rep->peers[S->taken++];
		S->rep->npeers = S->taken;
		snprintf(a->peer->name, sizeof(a->peer->name), "%s", a->name);
	} else {
		S->rep->refused++;
		close(a->fd);
		a->fd = -1;
	}
	pthread_mutex_unlock(&S->lock);
	if (rc) {
		if (S->cfg->on_refused)
			S->cfg->on_refused(a->name, why);
	} else {
		a->peer->status = serve(a, a->peer->err, sizeof(a->peer->err));
	}
	pthread_mutex_lock(&S->lock);
	a->done = true;
	pthread_mutex_unlock(&S->lock);
	return NULL;
}

/* The connections whose threads ended give their entries back. */
static void reap(struct server *S)
{
	for (unsigned i = 0; i < MAX_CONNS; i++) {
		struct serve_arg *a = &S->conns[i];
		pthread_mutex_lock(&S->lock);
		bool done = a->used && a->done;
		pthread_mutex_unlock(&S->lock);
		if (done) {
			pthread_join(a->th, NULL);
			a->used = false;
		}
	}
}

static struct serve_arg *free_entry(struct server *S)
{
	for (unsigned i = 0; i < MAX_CONNS; i++)
		if (!S->conns[i].used)
			return &S->conns[i];
	return NULL;
}

static bool server_full(struct server *S)
{
	pthread_mutex_lock(&S->lock);
	bool full = S->taken == S->n || S->stop;
	pthread_mutex_unlock(&S->lock);
	return full;
}

/* Accepts until n connections became clients (or the device failed), each
 * in its own thread from its first byte: one that never proves the key
 * holds nobody up. */
static int accept_clients(struct server *S, int lfd, char *err, size_t errlen)
{
	while (!server_full(S)) {
		reap(S);
		struct serve_arg *a = free_entry(S);
		struct pollfd p = {.fd = lfd, .events = POLLIN};
		if (!a || poll(&p, 1, 100) <= 0) {
			if (!a)
				usleep(100 * 1000);
			continue;
		}
		char name[64] = "?";
		int fd = rp_oob_accept(lfd, -1, name, sizeof(name), err, errlen);
		if (fd < 0)
			return RP_V_FAIL;
		*a = (struct serve_arg){.S = S, .L = &S->L, .cfg = S->cfg, .rep = S->rep, .gate = &S->gate,
					.rep_lock = &S->lock, .fd = fd, .used = true};
		snprintf(a->name, sizeof(a->name), "%s", name);
		if (pthread_create(&a->th, NULL, conn_main, a)) {
			close(fd);
			a->used = false;
			snprintf(err, errlen, "cannot start a thread for a connection");
			return RP_V_FAIL;
		}
	}
	return RP_V_OK;
}

int rp_ep_server(const struct rp_ep_cfg *cfg, struct rp_ep_report *rep, char *err, size_t errlen)
{
	rep->server = true;
	rep->cfg = *cfg;
	unsigned n = cfg->clients ? cfg->clients : 1;
	if (n > RP_EP_MAX_CLIENTS) {
		snprintf(err, errlen, "at most %d clients", RP_EP_MAX_CLIENTS);
		return RP_V_ENV;
	}
	/* The listener first, the device at the first client admitted: a bad
	 * address or a busy port is told at once; a stranger costs nothing. */
	int lfd = rp_oob_listen(cfg->bind, cfg->tcp_port, err, errlen);
	if (lfd < 0)
		return RP_V_ENV;
	struct server *S = calloc(1, sizeof(*S));
	if (!S) {
		close(lfd);
		snprintf(err, errlen, "out of memory");
		return RP_V_FAIL;
	}
	S->cfg = cfg;
	S->rep = rep;
	S->n = n;
	S->gate.n = n;
	pthread_mutex_init(&S->lock, NULL);
	pthread_mutex_init(&S->gate.lock, NULL);
	pthread_cond_init(&S->gate.cond, NULL);
	int rc = accept_clients(S, lfd, err, errlen);
	close(lfd);
	if (rc)
		gate_break(&S->gate);
	/* Connections still proving the key when the clients are all in (or the
	 * run broke) are ended now, not at their timeout. */
	pthread_mutex_lock(&S->lock);
	for (unsigned i = 0; i < MAX_CONNS; i++)
		if (S->conns[i].used && !S->conns[i].peer && S->conns[i].fd >= 0)
			shutdown(S->conns[i].fd, SHUT_RDWR);
	pthread_mutex_unlock(&S->lock);
	for (unsigned i = 0; i < MAX_CONNS; i++)
		if (S->conns[i].used)
			pthread_join(S->conns[i].th, NULL);
	if (S->opened && !S->open_rc)
		counters_end(rep);
	if (S->open_rc) {
		rc = S->open_rc;
		snprintf(err, errlen, "%s", S->open_err);
	}
	for (unsigned i = 0; i < S->taken && rc == RP_V_OK; i++)
		if (rep->peers[i].status) {
			rc = rep->peers[i].status;
			snprintf(err, errlen, "client %s: %s", rep->peers[i].name, rep->peers[i].err);
		}
	pthread_mutex_destroy(&S->gate.lock);
	pthread_cond_destroy(&S->gate.cond);
	pthread_mutex_destroy(&S->lock);
	if (S->opened)
		close_local(&S->L);
	free(S);
	return rc;
}
