/* One ep session, read top to bottom like rc_pingpong:
 *
 *   client                                  server (one thread per client)
 *   open device, port, pick GID             open device, port, pick GID
 *   connect TCP ------ HELLO op mode ... -->  create CQs, MR, QPs
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
 * Counters are snapshot on both sides before the first run and after the
 * last, and every counter_interval_ms in between when asked. */
#ifndef RP_VERBS_EP_H
#define RP_VERBS_EP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
	const char *bind;       /* server: NULL = any */
	uint16_t tcp_port;
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

struct rp_ep_report {
	bool server;
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
