/* Connecting an rp_conn's QPs with rdma_cm (`roceprobe ep --cm`) instead of QP records.
 *
 * The control channel stays on TCP (HELLO, RUN/GO, END/ACK, BYE); what rdma_cm replaces is
 * the QP exchange and the INIT -> RTR -> RTS steps: the client resolves the server's address
 * and route through the kernel (ARP/neighbour, the routing table, the GID the CM picks), the
 * CM exchanges QPNs and starting PSNs in REQ/REP/RTU MADs on QP1, and each QP moves to RTR and
 * RTS with the attributes rdma_init_qp_attr() gives. The QPs stay ours (created by rp_conn on
 * our own context, "user-managed" QPs in librdmacm's terms): conn_param.qp_num names them, and
 * rdma_establish() sends the RTU once the client's QP is RTS. Our buffer (rkey, address,
 * length) and the QP's index ride in the CM private data (verbs/cm_priv.h): 24 bytes without
 * a key; with one, 56, the record and a proof over the control session's nonces, checked by
 * the server before its QP leaves INIT and by the client before its own does.
 *
 *   client (per QP q)                          server (its own listener, port in OK line)
 *   rdma_resolve_addr/route --> ADDR/ROUTE_RESOLVED
 *   QP q INIT; rdma_connect  --- REQ {q, rkey, addr, len [, proof]} -->  CONNECT_REQUEST:
 *                                                     [proof checked, else REJ "ERR why"]
 *                                                     QP q INIT, RTR, RTS; rdma_accept
 *   CONNECT_RESPONSE         <-- REP {q, rkey, addr, len [, proof]} ---
 *   [proof checked, else REJ]
 *   QP q RTR, RTS; rdma_establish --- RTU ------------------->  ESTABLISHED
 *
 * With a key, a request the server refuses (wrong key, a request of another session, a
 * second one for a QP, no proof) is rejected, counted in refused and told to on_refused, and
 * the server goes on waiting for the session's own requests: a stranger who found the port
 * can neither connect a QP nor end the session. Without a key, a bad request ends the
 * session as it always has.
 *
 * Our path options still apply: traffic class (DSCP/ECN, also given to the CM as the ID's
 * TOS), hop limit, path MTU, ACK timeout and retry count override what the CM proposes. */
#ifndef RP_VERBS_CM_H
#define RP_VERBS_CM_H

#include <stddef.h>
#include <stdint.h>

#include "verbs/cm_priv.h"
#include "verbs/conn.h"

/* Zeroed by the caller, who sets sess (and on_refused) before listening or connecting. */
struct rp_cm {
	struct rp_cm_session sess; /* the key and the control session's nonces */
	/* server: told of each request refused (peer "addr:port (rdma_cm)", why); may be NULL */
	void (*on_refused)(const char *peer, const char *why);
	unsigned refused;         /* server: requests refused (with a key) */
	void *ch;                 /* struct rdma_event_channel * */
	void *listen_id;          /* server */
	void *id[RP_MAX_QP];      /* one connection per QP */
	unsigned nid;
	uint16_t port;            /* server: where it listens */
	char addr[64];            /* server: the address it listens on */
};

/* Server: a listener on bind_addr (never a wildcard) and an ephemeral port (cm->port). */
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
