/* cm_stranger: the stranger of vm-ep-cm, on the CM port of a keyed `ep --server --cm` session.
 * Runs in the client's VM.
 *
 *   roceprobe ep --client 127.0.0.1 --port L --cm --key-file F
 *        |  TCP (relayed line by line, unchanged)
 *   cm_stranger --listen L --server 10.9.0.1:18520 --key-file F
 *        |  TCP                                 \  rdma_cm REQs of its own, before the
 *   roceprobe ep --server --key-file F           \ server's "OK ... cm PORT ADDR" goes on
 *                                                 `-> the session's CM listener ADDR:PORT
 *
 * It reads what anyone on the control channel's path reads (it is authenticated, not
 * encrypted): the key proof's nonces and the CM listener's port. Before it passes the OK line
 * on to the real client, it sends three connection requests for QP 0 from a QP number of its
 * own (no QP behind it), each of which a keyed server must refuse:
 *   no-proof   a version-1 record, as a keyless or older ep sends: no proof at all;
 *   wrong-key  a proof over this session's nonces under another key;
 *   replay     a proof under the right key (--key-file) over another session's nonces: what
 *              a REQ recorded from an earlier session carries.
 * Each must come back as a REJ whose private data says why ("ERR ..."); a REP (the server
 * accepted a stranger) is a failure. Then it relays the OK line and the rest of the session,
 * which must still run. It prints one line per attempt:
 *   cm_stranger: no-proof: refused: no proof of the key (an ep without the rdma_cm proof?)
 *
 * usage: cm_stranger --listen PORT --server HOST:PORT --key-file F [--timeout SEC]
 * Exit: 0 all three refused and the session relayed to its end; 1 one was accepted or the
 * relay failed; 2 usage or setup. */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <poll.h>
#include <rdma/rdma_cma.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auth/auth.h"
#include "verbs/cm_priv.h"
#include "verbs/oob.h"
#include "verbs/oob_auth.h"

#define STRANGER_QPN 0xabcdu

struct relay {
	int from, to;
	char buf[4096];
	size_t n;
};

static int timeout_ms = 30000;

/* One connection request to addr:port with priv; 0 refused (why in out), 1 accepted, -1 error. */
static int attempt(const char *addr, uint16_t port, const uint8_t *priv, size_t plen, char *out, size_t outlen)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *id = NULL;
	struct rdma_cm_event *e;
	int rc = -1;
	struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *ai;
	if (!ch || getaddrinfo(addr, NULL, &hints, &ai)) {
		snprintf(out, outlen, "no event channel or no address %s", addr);
		return -1;
	}
	struct sockaddr_in dst = *(struct sockaddr_in *)ai->ai_addr;
	freeaddrinfo(ai);
	dst.sin_port = htons(port);
	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		goto out;
	enum rdma_cm_event_type want[] = {RDMA_CM_EVENT_ADDR_RESOLVED, RDMA_CM_EVENT_ROUTE_RESOLVED};
	for (int step = 0; step < 3; step++) {
		int r;
		if (step == 0) {
			r = rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, timeout_ms);
		} else if (step == 1) {
			r = rdma_resolve_route(id, timeout_ms);
		} else {
			struct rdma_conn_param cp = {.private_data = priv, .private_data_len = (uint8_t)plen,
						     .responder_resources = 1, .initiator_depth = 1, .retry_count = 7,
						     .rnr_retry_count = 7, .qp_num = STRANGER_QPN};
			r = rdma_connect(id, &cp);
		}
		struct pollfd p = {.fd = ch->fd, .events = POLLIN};
		if (r || poll(&p, 1, timeout_ms) != 1 || rdma_get_cm_event(ch, &e)) {
			snprintf(out, outlen, "rdma_cm step %d: %s", step, r ? strerror(errno) : "no event");
			goto out;
		}
		enum rdma_cm_event_type got = e->event;
		if (step < 2 && got != want[step]) {
			snprintf(out, outlen, "rdma_cm step %d: %s", step, rdma_event_str(got));
			rdma_ack_cm_event(e);
			goto out;
		}
		if (step == 2) {
			if (got == RDMA_CM_EVENT_REJECTED &&
			    rp_cm_rej_decode(e->param.conn.private_data, e->param.conn.private_data_len, out, outlen) == 0) {
				rc = 0;
			} else if (got == RDMA_CM_EVENT_CONNECT_RESPONSE) {
				snprintf(out, outlen, "ACCEPTED: the server answered with a REP");
				rc = 1;
			} else {
				snprintf(out, outlen, "%s (status %d), not a REJ with a reason", rdma_event_str(got),
					 e->status);
			}
		}
		rdma_ack_cm_event(e);
		if (rc == 1)
			rdma_reject(id, NULL, 0); /* our QP does not exist: tell the server at once */
	}
out:
	if (id)
		rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
	return rc;
}

/* The three strangers' requests against the session's listener; 0 when all were refused. */
static int strangers(const char *addr, uint16_t port, const struct rp_oob_auth_nonces *seen,
		     const struct rp_auth_key *key)
{
	struct rp_auth_key wrong;
	char err[128];
	if (rp_auth_key_from_text("a stranger's key", 16, &wrong, err, sizeof(err)))
		return 1;
	struct rp_cm_priv rec = {.qp_index = 0, .rkey = 0x1234, .addr = 0x10000, .len = 4096};
	struct rp_cm_session none = {.key = NULL}, wrong_key = {.key = &wrong, .nonces = *seen},
			     other = {.key = key, .nonces = *seen};
	rp_auth_nonce(other.nonces.l); /* an earlier session's: another listener nonce */
	const struct {
		const char *name;
		const struct rp_cm_session *s;
	} tries[] = {{"no-proof", &none}, {"wrong-key", &wrong_key}, {"replay", &other}};
	int bad = 0;
	for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
		uint8_t priv[RP_CM_PRIV_MAX];
		char why[RP_CM_REJ_MAX];
		size_t n = rp_cm_priv_seal(tries[i].s, RP_CM_FROM_CLIENT, &rec, STRANGER_QPN, priv);
		int rc = attempt(addr, port, priv, n, why, sizeof(why));
		printf("cm_stranger: %s: %s: %s\n", tries[i].name, rc == 0 ? "refused" : rc == 1 ? "accepted" : "error",
		       why);
		fflush(stdout);
		bad |= rc != 0;
	}
	return bad;
}

/* Moves whole lines from r->from to r->to; watches them for the nonces and the OK line, and
 * sends the strangers before the OK line goes on. 0 on progress, 1 at EOF, -1 on error. */
static int pump(struct relay *r, bool to_client, struct rp_oob_auth_nonces *seen, const struct rp_auth_key *key,
		int *result)
{
	ssize_t got = read(r->from, r->buf + r->n, sizeof(r->buf) - r->n);
	if (got <= 0)
		return got == 0 ? 1 : -1;
	r->n += (size_t)got;
	char *nl;
	while ((nl = memchr(r->buf, '\n', r->n))) {
		size_t len = (size_t)(nl - r->buf) + 1;
		struct rp_oob_auth_msg m;
		unsigned port;
		char addr[64];
		if (rp_oob_auth_parse(r->buf, len, &m) == 0 && m.type == RP_OOB_AUTH_CHALLENGE)
			memcpy(seen->l, m.nonce, sizeof(seen->l));
		if (rp_oob_auth_parse(r->buf, len, &m) == 0 && m.type == RP_OOB_AUTH_PROOF)
			memcpy(seen->c, m.nonce, sizeof(seen->c));
		if (to_client && sscanf(r->buf, "OK %*d %*u cm %u %63s", &port, addr) == 2)
			*result = strangers(addr, (uint16_t)port, seen, key);
		for (size_t off = 0; off < len;) {
			ssize_t w = write(r->to, r->buf + off, len - off);
			if (w <= 0)
				return -1;
			off += (size_t)w;
		}
		memmove(r->buf, r->buf + len, r->n - len);
		r->n -= len;
	}
	return r->n == sizeof(r->buf) ? -1 : 0;
}

int main(int argc, char **argv)
{
	const char *server = NULL, *key_file = NULL;
	unsigned listen_port = 0;
	static const struct option opts[] = {{"listen", required_argument, NULL, 'l'},
					     {"server", required_argument, NULL, 's'},
					     {"key-file", required_argument, NULL, 'k'},
					     {"timeout", required_argument, NULL, 't'},
					     {NULL, 0, NULL, 0}};
	for (int c; (c = getopt_long(argc, argv, "", opts, NULL)) != -1;) {
		if (c == 'l')
			listen_port = (unsigned)atoi(optarg);
		else if (c == 's')
			server = optarg;
		else if (c == 'k')
			key_file = optarg;
		else if (c == 't')
			timeout_ms = atoi(optarg) * 1000;
		else
			return 2;
	}
	char host[64], err[256], warn[256], peer[64];
	unsigned sport;
	struct rp_auth_key key;
	if (!listen_port || listen_port > 65535 || !server || !key_file ||
	    sscanf(server, "%63[^:]:%u", host, &sport) != 2 || sport > 65535) {
		fprintf(stderr, "usage: cm_stranger --listen PORT --server HOST:PORT --key-file F [--timeout SEC]\n");
		return 2;
	}
	if (rp_auth_init(err, sizeof(err)) || rp_auth_key_load(key_file, &key, warn, sizeof(warn), err, sizeof(err))) {
		fprintf(stderr, "cm_stranger: %s\n", err);
		return 2;
	}
	int lfd = rp_oob_listen("127.0.0.1", (uint16_t)listen_port, err, sizeof(err));
	int cfd = lfd < 0 ? -1 : rp_oob_accept(lfd, timeout_ms, peer, sizeof(peer), err, sizeof(err));
	int sfd = cfd < 0 ? -1 : rp_oob_connect(host, (uint16_t)sport, timeout_ms, err, sizeof(err));
	if (sfd < 0) {
		fprintf(stderr, "cm_stranger: %s\n", err);
		return 2;
	}
	close(lfd);
	struct relay up = {.from = cfd, .to = sfd}, down = {.from = sfd, .to = cfd};
	struct rp_oob_auth_nonces seen;
	memset(&seen, 0, sizeof(seen));
	int result = -1, rc = 0;
	while (rc == 0) {
		struct pollfd p[2] = {{.fd = cfd, .events = POLLIN}, {.fd = sfd, .events = POLLIN}};
		if (poll(p, 2, timeout_ms * 4) <= 0) {
			fprintf(stderr, "cm_stranger: the session went quiet\n");
			return 1;
		}
		if (p[0].revents)
			rc = pump(&up, false, &seen, &key, &result);
		if (rc == 0 && p[1].revents)
			rc = pump(&down, true, &seen, &key, &result);
	}
	close(cfd);
	close(sfd);
	if (result == -1)
		fprintf(stderr, "cm_stranger: no 'OK ... cm PORT ADDR' line came from the server\n");
	return result == 0 && rc == 1 ? 0 : 1;
}
