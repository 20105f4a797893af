/* One ep session, read top to bottom like rc_pingpong:
 *
 *   client                                  server (one thread per connection)
 *   open device, port, pick GID             listen (--bind, default 127.0.0.1)
 *   connect TCP  [the key proof, oob_auth.h] a client slot; the device, port and
 *                                            GID opened for the first client
 *             ------ HELLO op mode ... -->  create CQs, MR, QPs
 *             <-- OK mtu rd_atomic + QP recs
 *             --- QP records ------------->
 *   QPs INIT->RTR->RTS                      QPs INIT->RTR->RTS
 *   for each message size:
 *             --- RUN size --------------->  clear slots, post receives,
 *                                            wait for every client (incast)
 *             <-- GO -----------------------
 *   latency / bandwidth loop                 answer pings / count receives
 *             --- END msgs bytes ns ------>
 *             <-- ACK msgs bytes ns --------  (what the server counted)
 *             --- BYE -------------------->
 *
 * With a key on either side, the key proof (verbs/oob_auth.h) comes first,
 * before HELLO: the server admits a connection as a client only once it
 * proved the key, and opens its device for the first client admitted, so a
 * refused connection costs it no device, QP or client slot.
 *
 * Counters are snapshot on both sides before the first run and after the
 * last, and every counter_interval_ms in between when asked. */
#ifndef RP_VERBS_EP_H
#define RP_VERBS_EP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "auth/auth.h"
#include "stats/hist.h"
#include "verbs/conn.h"
#include "verbs/counters.h"
#include "verbs/device.h"
#include "verbs/loops.h"

#define RP_EP_MAX_SIZES 32
#define RP_EP_MAX_CLIENTS 64
#define RP_EP_DEFAULT_PORT 18520

struct rp_ep_cfg {
	/* device and path (both sides) */
	const char *dev_name;   /* NULL: first device */
	unsigned ib_port;       /* 0: 1 */
	int gid_index;          /* -1: pick the RoCE v2 IPv4-mapped GID */
	uint8_t dscp, ecn, sl, hop_limit;
	unsigned mtu;           /* bytes; 0: the port's active MTU */
	uint8_t ack_timeout;    /* 4.096 us * 2^n */
	uint8_t retry_cnt;
	/* control channel */
	const char *host;       /* client: the server */
	const char *bind;       /* server: where it listens; default 127.0.0.1, NULL = any */
	uint16_t tcp_port;
	/* both: the shared key (verbs/oob_auth.h), NULL: none. When either side
	 * has one, both prove it before any other line. */
	const struct rp_auth_key *key;
	/* server: told of each connection refused before it became a client
	 * (peer "host:port", why); NULL: not told */
	void (*on_refused)(const char *peer, const char *why);
	unsigned connect_timeout_ms;
	unsigned stall_ms;
	/* the test (client decides, the server follows its HELLO) */
	enum rp_op op;
	enum rp_mode mode;
	size_t sizes[RP_EP_MAX_SIZES];
	unsigned nsizes;
	uint64_t iters;
	uint64_t duration_ns;
	unsigned nqp, tx_depth, rx_depth, cq_mod, inline_size;
	/* client: connect the QPs with rdma_cm (verbs/cm.h), not QP records */
	bool cm;
	/* UD QPs (`ep --ud`): latency with op send only, messages up to the path
	 * MTU; a probe unanswered after ud_timeout_ms is counted lost */
	bool ud;
	unsigned ud_timeout_ms; /* client; 0: 1000 */
	/* server */
	unsigned clients;
	/* counters */
	unsigned counter_interval_ms; /* 0: before/after only */
	bool no_counters;
};

/* The defaults of every session (port 18520 on 127.0.0.1, 30 s timeouts, one QP, rx
 * depth 512, one client, RC write latency, the GID picked). */
void rp_ep_cfg_init(struct rp_ep_cfg *c);

/* What the user set explicitly; for the rest rp_ep_cfg_settle applies the
 * mode's defaults (perftest's). */
struct rp_ep_given {
	bool server, sweep, sizes, op, iters, duration, tx_depth, cq_mod, inline_size;
};
/* Why a combination of settings cannot run. Codes, not text: the caller
 * words them with its own names for the settings. */
enum rp_ep_cfg_err {
	RP_EPC_OK,
	RP_EPC_UD_SERVER,  /* UD is chosen by the client; the server follows */
	RP_EPC_UD_READ,    /* UD has no RDMA read */
	RP_EPC_UD_WRITE,   /* UD has no RDMA write */
	RP_EPC_UD_MODE,    /* UD measures latency only */
	RP_EPC_UD_CM,      /* UD QPs are not connected: no rdma_cm */
	RP_EPC_UD_SWEEP,   /* the sweep goes past any path MTU */
	RP_EPC_UD_SIZE,    /* *bad_size is above the largest MTU, 4096 B */
	RP_EPC_UD_TIMEOUT, /* a UD timeout without UD */
	RP_EPC_ITERS_AND_DURATION,
	RP_EPC_ITERS_ZERO,
	RP_EPC_TX_DEPTH,   /* below 4 */
	RP_EPC_RX_DEPTH,   /* 0 */
	RP_EPC_QPS,        /* 0 */
	RP_EPC_LAT_QPS,    /* latency runs on one QP */
};
/* Fills in the defaults that depend on the mode (sizes, iterations, tx
 * depth, cq moderation, inline), the sweep's sizes and UD's op and timeout;
 * then checks the combination. duration_ns is set by the caller. */
enum rp_ep_cfg_err rp_ep_cfg_settle(struct rp_ep_cfg *c, const struct rp_ep_given *g, size_t *bad_size);

/* What one message size gave. */
struct rp_ep_size_result {
	size_t size;
	struct rp_run_result client; /* measured by the client */
	struct rp_run_result server; /* counted by the server (send/write_imm) */
	struct rp_hist *hist;        /* client, latency mode */
};

/* One connected peer (the server keeps one per client). */
struct rp_ep_peer {
	char name[64]; /* host:port */
	unsigned nsizes;
	struct rp_ep_size_result res[RP_EP_MAX_SIZES];
	int status;
	char err[RP_ERR_LEN];
};

/* The setting an error is about, when one is (an MTU above the port's, a
 * UD size above the path MTU, no GID to pick, a server without UD or
 * rdma_cm): lib/verbs words its errors without option names, and the
 * caller adds its own (ep: --mtu, --size, --gid-index, --ud, --cm). */
enum rp_ep_setting { RP_EP_SET_NONE, RP_EP_SET_MTU, RP_EP_SET_SIZE, RP_EP_SET_GID, RP_EP_SET_UD, RP_EP_SET_CM };

struct rp_ep_report {
	bool server;
	enum rp_ep_setting err_setting; /* what a failed run's err is about */
	struct rp_ep_cfg cfg; /* as run: the server's holds the client's HELLO */
	struct rp_port_attr port;
	char driver[32];
	int gid_index;
	char gid[64];
	char netdev[32];
	unsigned mtu;        /* path MTU used, bytes */
	unsigned max_inline; /* granted */
	unsigned npeers;
	struct rp_ep_peer peers[RP_EP_MAX_CLIENTS];
	/* server: connections refused before they became clients (no key, a
	 * wrong key, a key this server does not have, silence) */
	unsigned refused;
	/* counters */
	bool have_counters;
	struct rp_ctr_source ctr_src;
	struct rp_ctr_snap *before, *after;
	struct rp_ctr_sampler *sampler;
	uint64_t t_start_ns, t_end_ns;
};

/* Both return RP_V_OK, RP_V_ENV (user can fix: exit 2) or RP_V_FAIL, with
 * one line in err. The report is filled as far as the run got. */
int rp_ep_client(const struct rp_ep_cfg *cfg, struct rp_ep_report *rep, char *err, size_t errlen);
int rp_ep_server(const struct rp_ep_cfg *cfg, struct rp_ep_report *rep, char *err, size_t errlen);
void rp_ep_report_free(struct rp_ep_report *rep);

/* The HELLO line: the client's test parameters, so the server needs none. */
int rp_ep_hello_encode(const struct rp_ep_cfg *cfg, size_t max_size, int ll, int mtu_enum, unsigned rd_atomic,
		       char *out, size_t len);
int rp_ep_hello_decode(const char *line, struct rp_ep_cfg *cfg, size_t *max_size, int *ll, int *mtu_enum,
		       unsigned *rd_atomic);

/* Goodput of a result in Gbit/s (payload bits over its time). */
double rp_ep_gbps(const struct rp_run_result *r);

#endif
