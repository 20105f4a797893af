#include "verbs/cm.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <arpa/inet.h>
#include <rdma/rdma_cma.h>

#include "verbs/device.h"

static uint64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* A CM event's private data, as much as we read of it: a REQ's 56 bytes, a REJ's reason. */
#define PRIV_BUF RP_CM_REJ_MAX

/* The next CM event within timeout_ms (copied, with up to PRIV_BUF bytes of its private data;
 * the original is acked). 0, or -1 with err. */
static int next_event(struct rp_cm *cm, int timeout_ms, struct rdma_cm_event *ev, uint8_t priv[PRIV_BUF],
		      size_t *priv_len, char *err, size_t errlen)
{
	struct rdma_event_channel *ch = cm->ch;
	struct pollfd pfd = {.fd = ch->fd, .events = POLLIN};
	int n = poll(&pfd, 1, timeout_ms);
	if (n <= 0) {
		snprintf(err, errlen, "rdma_cm: no event within %d ms%s", timeout_ms, n < 0 ? " (poll failed)" : "");
		return -1;
	}
	struct rdma_cm_event *e;
	if (rdma_get_cm_event(ch, &e)) {
		snprintf(err, errlen, "rdma_get_cm_event: %s", strerror(errno));
		return -1;
	}
	*ev = *e;
	*priv_len = 0;
	if (priv && e->param.conn.private_data &&
	    (e->event == RDMA_CM_EVENT_CONNECT_REQUEST || e->event == RDMA_CM_EVENT_CONNECT_RESPONSE ||
	     e->event == RDMA_CM_EVENT_ESTABLISHED || e->event == RDMA_CM_EVENT_REJECTED)) {
		*priv_len = e->param.conn.private_data_len < PRIV_BUF ? e->param.conn.private_data_len : PRIV_BUF;
		memcpy(priv, e->param.conn.private_data, *priv_len);
	}
	ev->param.conn.private_data = NULL; /* acked below: only our copy stays */
	rdma_ack_cm_event(e);
	return 0;
}

static int want_event(struct rp_cm *cm, enum rdma_cm_event_type want, int timeout_ms, struct rdma_cm_event *ev,
		      uint8_t priv[PRIV_BUF], size_t *priv_len, char *err, size_t errlen)
{
	if (next_event(cm, timeout_ms, ev, priv, priv_len, err, errlen))
		return -1;
	if (ev->event != want) {
		snprintf(err, errlen, "rdma_cm: %s (status %d) while waiting for %s", rdma_event_str(ev->event),
			 ev->status, rdma_event_str(want));
		return -1;
	}
	return 0;
}

/* rdma_cm routed us to its device; our QPs live on c->dev: they must be the same. */
static int same_device(const struct rdma_cm_id *id, const struct rp_conn *c, char *err, size_t errlen)
{
	const char *name = id->verbs ? ibv_get_device_name(id->verbs->device) : "?";
	if (strcmp(name, c->dev->port.dev_name) != 0) {
		snprintf(err, errlen, "rdma_cm reaches the peer through %s, not %s (open device %s instead)", name,
			 c->dev->port.dev_name, name);
		return -1;
	}
	return 0;
}

/* RTR then RTS with the CM's attributes, our path options on top. */
static int cm_rtr_rts(struct rdma_cm_id *id, struct ibv_qp *qp, const struct rp_conn_path *p, char *err,
		      size_t errlen)
{
	struct ibv_qp_attr a;
	int mask;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	if (rdma_init_qp_attr(id, &a, &mask)) {
		snprintf(err, errlen, "rdma_init_qp_attr(RTR): %s", strerror(errno));
		return -1;
	}
	a.path_mtu = (enum ibv_mtu)p->mtu;
	a.max_dest_rd_atomic = p->rd_atomic ? p->rd_atomic : 1;
	a.min_rnr_timer = 12;
	if (a.ah_attr.is_global) {
		a.ah_attr.grh.traffic_class = (uint8_t)(p->addr.dscp << 2 | (p->addr.ecn & 3));
		a.ah_attr.grh.hop_limit = p->addr.hop_limit ? p->addr.hop_limit : 64;
	} else {
		a.ah_attr.sl = p->addr.sl;
	}
	mask |= IBV_QP_PATH_MTU | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	int rc = ibv_modify_qp(qp, &a, mask);
	if (rc) {
		snprintf(err, errlen, "QP %u INIT->RTR (rdma_cm, peer QP %u): %s", qp->qp_num, a.dest_qp_num,
			 strerror(rc));
		return -1;
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	if (rdma_init_qp_attr(id, &a, &mask)) {
		snprintf(err, errlen, "rdma_init_qp_attr(RTS): %s", strerror(errno));
		return -1;
	}
	a.timeout = p->timeout;
	a.retry_cnt = p->retry_cnt;
	a.rnr_retry = 7;
	a.max_rd_atomic = p->rd_atomic ? p->rd_atomic : 1;
	mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
	rc = ibv_modify_qp(qp, &a, mask);
	if (rc) {
		snprintf(err, errlen, "QP %u RTR->RTS (rdma_cm): %s", qp->qp_num, strerror(rc));
		return -1;
	}
	return 0;
}

/* Our record for QP q, sealed for the session (with its proof when there is a key). */
static size_t local_priv(const struct rp_cm *cm, enum rp_cm_from from, const struct rp_conn *c, unsigned q,
			 uint8_t out[RP_CM_PRIV_MAX])
{
	struct rp_cm_priv pv = {.qp_index = (uint8_t)q,
				.rkey = c->mr->rkey,
				.addr = (uint64_t)(uintptr_t)rp_conn_recv_slot(c, q),
				.len = c->region};
	return rp_cm_priv_seal(&cm->sess, from, &pv, c->qp[q]->qp_num, out);
}

/* The requester as "addr:port (rdma_cm)", from the rdma_cm header of its REQ. */
static void peer_name(struct rdma_cm_id *id, char *out, size_t len)
{
	char host[INET6_ADDRSTRLEN] = "?";
	struct sockaddr *sa = rdma_get_peer_addr(id);
	if (sa && sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *)sa)->sin_addr, host, sizeof(host));
	else if (sa && sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)sa)->sin6_addr, host, sizeof(host));
	snprintf(out, len, "%s:%u (rdma_cm)", host, (unsigned)ntohs(rdma_get_dst_port(id)));
}

/* Rejects a request with "ERR why" in the REJ, and forgets it. */
static void reject(struct rdma_cm_id *id, const char *why)
{
	uint8_t rej[RP_CM_REJ_MAX];
	size_t n = rp_cm_rej_encode(why, rej);
	rdma_reject(id, rej, (uint8_t)n);
}

/* A REJ's reason, ours ("ERR why") or the CM's status. */
static void rejected(const struct rdma_cm_event *ev, const uint8_t *priv, size_t plen, const char *who, char *err,
		     size_t errlen)
{
	char why[RP_CM_REJ_MAX];
	if (rp_cm_rej_decode(priv, plen, why, sizeof(why)) == 0)
		snprintf(err, errlen, "%s refused over rdma_cm: %s", who, why);
	else
		snprintf(err, errlen, "rdma_cm: %s (status %d) while accepting", rdma_event_str(ev->event), ev->status);
}

static void set_remote(struct rp_conn *c, unsigned q, uint32_t qpn, const struct rp_cm_priv *pv)
{
	memset(&c->remote[q], 0, sizeof(c->remote[q]));
	c->remote[q].qpn = qpn;
	c->remote[q].rkey = pv->rkey;
	c->remote[q].addr = pv->addr;
	c->remote[q].len = pv->len;
}

static int resolve(const char *host, uint16_t port, struct sockaddr_in *sa, char *err, size_t errlen)
{
	struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *ai;
	int rc = getaddrinfo(host, NULL, &hints, &ai);
	if (rc) {
		snprintf(err, errlen, "cannot resolve %s: %s", host, gai_strerror(rc));
		return -1;
	}
	*sa = *(struct sockaddr_in *)ai->ai_addr;
	sa->sin_port = htons(port);
	freeaddrinfo(ai);
	return 0;
}

static int open_channel(struct rp_cm *cm, char *err, size_t errlen)
{
	cm->ch = rdma_create_event_channel();
	if (!cm->ch) {
		snprintf(err, errlen, "rdma_create_event_channel: %s (is rdma_ucm loaded? /dev/infiniband/rdma_cm)",
			 strerror(errno));
		return RP_V_ENV;
	}
	return RP_V_OK;
}

int rp_cm_listen(struct rp_cm *cm, const char *bind_addr, char *err, size_t errlen)
{
	int rc = open_channel(cm, err, errlen);
	if (rc)
		return rc;
	struct rdma_cm_id *id;
	if (rdma_create_id(cm->ch, &id, NULL, RDMA_PS_TCP)) {
		snprintf(err, errlen, "rdma_create_id: %s", strerror(errno));
		return RP_V_ENV;
	}
	cm->listen_id = id;
	struct sockaddr_in sa = {.sin_family = AF_INET};
	if (!bind_addr || !*bind_addr) { /* never every address by default (docs/security.md) */
		snprintf(err, errlen, "rdma_cm: no address to listen on (ep --bind ADDR)");
		return RP_V_ENV;
	}
	if (resolve(bind_addr, 0, &sa, err, errlen))
		return RP_V_ENV;
	if (rdma_bind_addr(id, (struct sockaddr *)&sa) || rdma_listen(id, RP_MAX_QP)) {
		snprintf(err, errlen, "rdma_cm cannot listen on %s: %s", bind_addr,
			 strerror(errno));
		return RP_V_ENV;
	}
	cm->port = ntohs(rdma_get_src_port(id));
	snprintf(cm->addr, sizeof(cm->addr), "%s", bind_addr ? bind_addr : "-");
	return RP_V_OK;
}

/* A request for one of our QPs: 0 with pv, or -1 with why (for the log and the REJ). */
static int check_request(const struct rp_cm *cm, const struct rp_conn *c, const uint8_t *priv, size_t plen,
			 uint32_t qpn, struct rp_cm_priv *pv, char *why, size_t whylen)
{
	if (rp_cm_priv_open(&cm->sess, RP_CM_FROM_CLIENT, priv, plen, qpn, pv, why, whylen))
		return -1;
	if (pv->qp_index >= c->nqp) {
		snprintf(why, whylen, "QP index %u, the session has %u QPs", pv->qp_index, c->nqp);
		return -1;
	}
	if (cm->id[pv->qp_index]) {
		snprintf(why, whylen, "a second request for QP %u (replayed?)", pv->qp_index);
		return -1;
	}
	return 0;
}

int rp_cm_accept(struct rp_cm *cm, struct rp_conn *c, const struct rp_conn_path *p, int timeout_ms, char *err,
		 size_t errlen)
{
	uint64_t end = mono_ms() + (uint64_t)timeout_ms;
	unsigned established = 0;
	while (established < c->nqp) {
		int left = (int)(end - mono_ms());
		struct rdma_cm_event ev;
		uint8_t priv[PRIV_BUF];
		size_t plen;
		if (left <= 0 || next_event(cm, left, &ev, priv, &plen, err, errlen)) {
			if (left <= 0)
				snprintf(err, errlen, "rdma_cm: %u of %u QPs connected within %d ms", established, c->nqp,
					 timeout_ms);
			return RP_V_FAIL;
		}
		if (ev.event == RDMA_CM_EVENT_ESTABLISHED) {
			established++;
			continue;
		}
		if (ev.event == RDMA_CM_EVENT_REJECTED) { /* the client did not take our REP */
			rejected(&ev, priv, plen, "the client", err, errlen);
			return RP_V_FAIL;
		}
		if (ev.event != RDMA_CM_EVENT_CONNECT_REQUEST) {
			snprintf(err, errlen, "rdma_cm: %s (status %d) while accepting", rdma_event_str(ev.event),
				 ev.status);
			return RP_V_FAIL;
		}
		struct rdma_cm_id *id = ev.id;
		struct rp_cm_priv pv;
		char why[RP_ERR_LEN];
		if (check_request(cm, c, priv, plen, ev.param.conn.qp_num, &pv, why, sizeof(why))) {
			if (!cm->sess.key) { /* no key: as before the proof, the session ends */
				rdma_reject(id, NULL, 0);
				rdma_destroy_id(id);
				snprintf(err, errlen, "rdma_cm: a connection request without a valid QP index (not a roceprobe ep client with rdma_cm?)");
				return RP_V_FAIL;
			}
			/* With a key: refused before any QP moves or any record goes out; the
			 * session goes on waiting for its own requests until the timeout. */
			char peer[96];
			peer_name(id, peer, sizeof(peer));
			reject(id, why);
			rdma_destroy_id(id);
			cm->refused++;
			if (cm->on_refused)
				cm->on_refused(peer, why);
			continue;
		}
		unsigned q = pv.qp_index;
		cm->id[q] = id;
		cm->nid++;
		if (same_device(id, c, err, errlen))
			return RP_V_ENV;
		set_remote(c, q, ev.param.conn.qp_num, &pv);
		if (cm_rtr_rts(id, c->qp[q], p, err, errlen))
			return RP_V_FAIL;
		uint8_t mine[RP_CM_PRIV_MAX];
		size_t mlen = local_priv(cm, RP_CM_FROM_SERVER, c, q, mine);
		struct rdma_conn_param cp = {.private_data = mine,
					     .private_data_len = (uint8_t)mlen,
					     .responder_resources = p->rd_atomic ? p->rd_atomic : 1,
					     .initiator_depth = p->rd_atomic ? p->rd_atomic : 1,
					     .rnr_retry_count = 7,
					     .qp_num = c->qp[q]->qp_num};
		if (rdma_accept(id, &cp)) {
			snprintf(err, errlen, "rdma_accept (QP %u): %s", c->qp[q]->qp_num, strerror(errno));
			return RP_V_FAIL;
		}
	}
	return RP_V_OK;
}

int rp_cm_connect(struct rp_cm *cm, struct rp_conn *c, const char *src, const char *host, uint16_t port,
		  const struct rp_conn_path *p, int timeout_ms, char *err, size_t errlen)
{
	err[0] = '\0';
	int rc = open_channel(cm, err, errlen);
	if (rc)
		return rc;
	struct sockaddr_in dst, sa;
	if (resolve(host, port, &dst, err, errlen) || (src && resolve(src, 0, &sa, err, errlen)))
		return RP_V_ENV;
	uint8_t tos = (uint8_t)(p->addr.dscp << 2 | (p->addr.ecn & 3));
	for (unsigned q = 0; q < c->nqp; q++) {
		struct rdma_cm_id *id;
		struct rdma_cm_event ev;
		uint8_t priv[PRIV_BUF];
		size_t plen;
		char why[RP_ERR_LEN];
		if (rdma_create_id(cm->ch, &id, NULL, RDMA_PS_TCP)) {
			snprintf(err, errlen, "rdma_create_id: %s", strerror(errno));
			return RP_V_FAIL;
		}
		cm->id[q] = id;
		cm->nid++;
		rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, sizeof(tos));
		if (rdma_resolve_addr(id, src ? (struct sockaddr *)&sa : NULL, (struct sockaddr *)&dst, timeout_ms) ||
		    want_event(cm, RDMA_CM_EVENT_ADDR_RESOLVED, timeout_ms + 1000, &ev, NULL, &plen, err, errlen)) {
			if (!err[0])
				snprintf(err, errlen, "rdma_resolve_addr %s: %s", host, strerror(errno));
			return RP_V_ENV;
		}
		if (same_device(id, c, err, errlen))
			return RP_V_ENV;
		if (rdma_resolve_route(id, timeout_ms) ||
		    want_event(cm, RDMA_CM_EVENT_ROUTE_RESOLVED, timeout_ms + 1000, &ev, NULL, &plen, err, errlen)) {
			if (!err[0])
				snprintf(err, errlen, "rdma_resolve_route %s: %s", host, strerror(errno));
			return RP_V_ENV;
		}
		uint8_t mine[RP_CM_PRIV_MAX];
		size_t mlen = local_priv(cm, RP_CM_FROM_CLIENT, c, q, mine);
		struct rdma_conn_param cp = {.private_data = mine,
					     .private_data_len = (uint8_t)mlen,
					     .responder_resources = p->rd_atomic ? p->rd_atomic : 1,
					     .initiator_depth = p->rd_atomic ? p->rd_atomic : 1,
					     .retry_count = p->retry_cnt > 7 ? 7 : p->retry_cnt,
					     .rnr_retry_count = 7,
					     .qp_num = c->qp[q]->qp_num};
		if (rdma_connect(id, &cp)) {
			snprintf(err, errlen, "rdma_connect %s: %s", host, strerror(errno));
			return RP_V_FAIL;
		}
		/* No QP attached to the ID: the CM reports the REP and waits for rdma_establish. */
		if (next_event(cm, timeout_ms, &ev, priv, &plen, err, errlen))
			return RP_V_FAIL;
		if (ev.event == RDMA_CM_EVENT_REJECTED && rp_cm_rej_decode(priv, plen, why, sizeof(why)) == 0) {
			snprintf(err, errlen, "server refused over rdma_cm: %s", why);
			return RP_V_ENV;
		}
		if (ev.event == RDMA_CM_EVENT_REJECTED && cm->sess.key) {
			/* rejected without our reason: an ep from before the proof refuses version 2 */
			snprintf(err, errlen, "rdma_cm: the server rejected our proven request without a reason (status %d): is "
					      "it a roceprobe ep server of this version?", ev.status);
			return RP_V_ENV;
		}
		if (ev.event != RDMA_CM_EVENT_CONNECT_RESPONSE) {
			snprintf(err, errlen, "rdma_cm: %s (status %d) while waiting for %s", rdma_event_str(ev.event),
				 ev.status, rdma_event_str(RDMA_CM_EVENT_CONNECT_RESPONSE));
			return RP_V_FAIL;
		}
		struct rp_cm_priv pv;
		int bad = rp_cm_priv_open(&cm->sess, RP_CM_FROM_SERVER, priv, plen, ev.param.conn.qp_num, &pv, why,
					  sizeof(why));
		if (!bad && pv.qp_index != q) {
			bad = -1;
			snprintf(why, sizeof(why), "a reply for QP %u, not %u", pv.qp_index, q);
		}
		if (bad) {
			if (!cm->sess.key) {
				snprintf(err, errlen, "rdma_cm: the server's reply has no valid buffer record (not ep?)");
				return RP_V_FAIL;
			}
			/* Our QP is still in INIT: nothing of the reply is used; the REJ tells the
			 * server, whose accept ends with it. */
			reject(id, "the server's reply did not prove the key");
			snprintf(err, errlen, "rdma_cm: the server's reply does not prove the key: %s", why);
			return RP_V_ENV;
		}
		set_remote(c, q, ev.param.conn.qp_num, &pv);
		if (cm_rtr_rts(id, c->qp[q], p, err, errlen))
			return RP_V_FAIL;
		if (rdma_establish(id)) {
			snprintf(err, errlen, "rdma_establish: %s", strerror(errno));
			return RP_V_FAIL;
		}
	}
	return RP_V_OK;
}

void rp_cm_destroy(struct rp_cm *cm)
{
	for (unsigned q = 0; q < RP_MAX_QP; q++)
		if (cm->id[q]) {
			rdma_disconnect(cm->id[q]);
			rdma_destroy_id(cm->id[q]);
			cm->id[q] = NULL;
		}
	if (cm->listen_id)
		rdma_destroy_id(cm->listen_id);
	cm->listen_id = NULL;
	if (cm->ch)
		rdma_destroy_event_channel(cm->ch);
	cm->ch = NULL;
}
