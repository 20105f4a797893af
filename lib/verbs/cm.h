/* Connecting an rp_conn's QPs with rdma_cm (`roceprobe ep --cm`) instead of QP records.
 *
 * The control channel stays on TCP (HELLO, RUN/GO, END/ACK, BYE); what rdma_cm replaces is
 * the QP exchange and the INIT -> RTR -> RTS steps: the client resolves the server's address
 * and route through the kernel (ARP/neighbour, the routing table, the GID the CM picks), the
 * CM exchanges QPNs and starting PSNs in REQ/REP/RTU MADs on QP1, and each QP moves to RTR and
 * RTS with the attributes rdma_init_qp_attr() gives. The QPs stay ours (created by rp_conn on
 * our own context, "user-managed" QPs in librdmacm's terms): conn_param.qp_num names them, and
 * rdma_establish() sends the RTU once the client's QP is RTS. Our buffer (rkey, address,
 * length) and the QP's index ride in the CM private data (24 bytes, big-endian).
 *
 *   client (per QP q)                          server (its own listener, port in OK line)
 *   rdma_resolve_addr/route --> ADDR/ROUTE_RESOLVED
 *   QP q INIT; rdma_connect  --- REQ {q, rkey, addr, len} --->  CONNECT_REQUEST: QP q INIT,
 *                                                               RTR, RTS; rdma_accept
 *   CONNECT_RESPONSE         <-- REP {q, rkey, addr, len} ----
 *   QP q RTR, RTS; rdma_establish --- RTU ------------------->  ESTABLISHED
 *
 * Our path options still apply: traffic class (DSCP/ECN, also given to the CM as the ID's
 * TOS), hop limit, path MTU, ACK timeout and retry count override what the CM proposes. */
#ifndef RP_VERBS_CM_H
#define RP_VERBS_CM_H

#include <stddef.h>
#include <stdint.h>

#include "verbs/conn.h"

#define RP_CM_PRIV_LEN 24

struct rp_cm {
	void *ch;                 /* struct rdma_event_channel * */
	void *listen_id;          /* server */
	void *id[RP_MAX_QP];      /* one connection per QP */
	unsigned nid;
	uint16_t port;            /* server: where it listens */
	char addr[64];            /* server: the address it listens on */
};

/* The private data of REQ and REP: pure, unit-testable. */
struct rp_cm_priv {
	uint8_t version; /* 1 */
	uint8_t qp_index;
	uint32_t rkey;
	uint64_t addr;
	uint64_t len;
};
void rp_cm_priv_encode(const struct rp_cm_priv *p, uint8_t out[RP_CM_PRIV_LEN]);
/* 0, or -1 when len is short or the version is unknown. */
int rp_cm_priv_decode(const uint8_t *buf, size_t len, struct rp_cm_priv *p);

/* Server: a listener on bind_addr (NULL: any) and an ephemeral port (cm->port). */
int rp_cm_listen(struct rp_cm *cm, const char *bind_addr, char *err, size_t errlen);
/* Server: accepts c->nqp connections; returns RP_V_OK / RP_V_FAIL / RP_V_ENV. */
int rp_cm_accept(struct rp_cm *cm, struct rp_conn *c, const struct rp_conn_path *p, int timeout_ms, char *err,
		 size_t errlen);
/* Client: connects c's QPs to host:port, from src (NULL: the kernel's choice). */
int rp_cm_connect(struct rp_cm *cm, struct rp_conn *c, const char *src, const char *host, uint16_t port,
		  const struct rp_conn_path *p, int timeout_ms, char *err, size_t errlen);
/* Disconnects and frees everything (the QPs are left to rp_conn_destroy). */
void rp_cm_destroy(struct rp_cm *cm);

#endif
