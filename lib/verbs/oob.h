/* Out-of-band exchange over TCP: the control channel of an ep session.
 *
 * Two QPs cannot talk before each knows the other's QP number, starting PSN,
 * address (LID or GID) and, for RDMA write/read, the remote buffer's address
 * and rkey. Like perftest and rc_pingpong we send those over a TCP socket.
 * Records are fixed-width text lines: readable in tcpdump, no byte-order or
 * struct-padding questions between hosts, and easy to check strictly.
 *
 *   QP record:  "QP qpn psn lid gid rkey addr len\n", hex, fixed widths:
 *               "QP 00012a 3f00a1 0000 00000000000000000000ffff0a090001 \
 *                0000a1b2 00007f0012340000 0000000000010000\n"
 *
 * The same socket carries the session's other lines (HELLO, RUN, GO, END,
 * BYE); see ep.c. Every blocking call has a timeout so a dead peer ends in a
 * clear error instead of a hang. */
#ifndef RP_VERBS_OOB_H
#define RP_VERBS_OOB_H

#include <stddef.h>
#include <stdint.h>

struct rp_oob_rec {
	uint32_t qpn;  /* 24 bits */
	uint32_t psn;  /* 24 bits */
	uint16_t lid;
	uint8_t gid[16];
	uint32_t rkey;
	uint64_t addr; /* the peer's receive region for this QP */
	uint64_t len;
	uint32_t qkey; /* UD records only */
};

#define RP_OOB_REC_LEN 98 /* including the '\n', excluding the NUL */

/* UD record (`ep --ud`): no buffer keys, no PSN (UD has no connection); the
 * qkey every send to this QP must carry.
 *   "UD qpn qkey lid gid\n":
 *   "UD 00012a 11111111 0000 00000000000000000000ffff0a090001\n" */
#define RP_OOB_UD_LEN 57 /* including the '\n', excluding the NUL */
void rp_oob_ud_encode(const struct rp_oob_rec *r, char out[RP_OOB_UD_LEN + 1]);
/* 0, or -1 when line is not exactly one well-formed UD record. Fills qpn,
 * qkey, lid and gid; zeroes the rest. */
int rp_oob_ud_decode(const char *line, size_t len, struct rp_oob_rec *r);

/* Writes exactly RP_OOB_REC_LEN characters plus a NUL into out. */
void rp_oob_rec_encode(const struct rp_oob_rec *r, char out[RP_OOB_REC_LEN + 1]);
/* 0 on success, -1 when line is not exactly one well-formed record
 * (with or without its trailing newline). */
int rp_oob_rec_decode(const char *line, size_t len, struct rp_oob_rec *r);

/* TCP. Each returns a socket or -1 with a one-line reason in err. */
/* bind_addr is required (an address, or "0.0.0.0" when asked for): never a
 * wildcard by default. */
int rp_oob_listen(const char *bind_addr, uint16_t port, char *err, size_t errlen);
/* timeout_ms < 0: wait forever. */
int rp_oob_accept(int lfd, int timeout_ms, char *peer, size_t peerlen, char *err, size_t errlen);
/* Retries refused connections until timeout_ms, since the server may still
 * be starting; then fails with "peer unreachable: HOST:PORT (reason)". */
int rp_oob_connect(const char *host, uint16_t port, int timeout_ms, char *err, size_t errlen);

/* Sends a whole line (0 / -1). */
int rp_oob_send(int fd, const char *line);
/* Reads one '\n'-terminated line (the newline stripped) into buf.
 * timeout_ms < 0 waits forever. Returns its length, -1 on error or EOF
 * (err says which), -2 on timeout. */
int rp_oob_recv_line(int fd, char *buf, size_t len, int timeout_ms, char *err, size_t errlen);
/* Non-blocking check: is a byte waiting (or the peer gone)? */
int rp_oob_readable(int fd);

#endif
