/* The watch's wire format (watch.c): how a rank joins rank 0's watch, and
 * the messages after that. Plain C over a byte source, no sockets, no MPI:
 * unit-tested (tests/unit/test_watch_msg.c) and fuzzed (tests/fuzz/fuzz_watch.c).
 *
 * Joining: a proof of the job's secret (lib/auth's challenge-response; the
 * secret rank 0 drew and broadcast over MPI before it listened), never the
 * secret itself:
 *
 *   rank 0 (listener)                            rank r (connector)
 *   nonce_l [32]  ------------------------------>
 *                 <------------------------------  hello: u32 r (LE), nonce_c [32],
 *                                                   proof(key, "watch rank r connector", nonce_l, nonce_c) [32]
 *   checks r and the proof; a connection that fails is closed (and counted)
 *   proof(key, "watch rank r listener", nonce_c, nonce_l) [32] -->  checks it
 *
 * The claimed rank is inside both proofs: a proof for one rank does not
 * answer for another.
 *
 * Messages: u8 type, u32 length (LE), that many bytes. Each type has the one
 * direction it travels and the length it can hold (rp_watch_msg_cap): nothing
 * for 'T', 'E', 'B', 'X'; a rank count (+1) for 'S' and 'V'; and for 'D' (a
 * step of a degraded end's collective, accepted only once the run is degraded)
 * what the MPI collective it stands in for can hold (below 2^31 B). A body
 * is allocated as its bytes arrive, never from the length alone. */
#ifndef RP_CLUSTER_WATCH_MSG_H
#define RP_CLUSTER_WATCH_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "auth/auth.h"

#define RP_WATCH_HDR_LEN 5
#define RP_WATCH_HELLO_LEN (4 + RP_AUTH_NONCE_LEN + RP_AUTH_PROOF_LEN)
/* A 'D' body: at most what an MPI collective's int count carries. */
#define RP_WATCH_DATA_MAX ((uint32_t)INT32_MAX)

struct rp_watch_msg {
	struct rp_watch_msg *next; /* the watch's queue of 'D' messages */
	uint8_t type;
	uint32_t len;
	uint8_t data[];
};

/* What may arrive: from rank 0 (read on rank r: from_rank0) or from rank r
 * (read on rank 0); size ranks; degraded: a rank died, the end goes over the
 * watch. */
struct rp_watch_rules {
	bool from_rank0;
	int size;
	bool degraded;
};

/* The largest body a message of type may carry under rules, and whether it
 * must be exactly that long; -1 when such a message may not arrive at all
 * (an unknown type, the wrong direction, 'D' before the run is degraded). */
int rp_watch_msg_cap(uint8_t type, const struct rp_watch_rules *rules, uint32_t *max, bool *exact);

/* A header against the rules: 0 with *type and *len, or -1 with err. */
int rp_watch_hdr_parse(const uint8_t hdr[RP_WATCH_HDR_LEN], const struct rp_watch_rules *rules, uint8_t *type,
		       uint32_t *len, char *err, size_t errlen);
void rp_watch_hdr_build(uint8_t hdr[RP_WATCH_HDR_LEN], uint8_t type, uint32_t len);

/* Reads exactly len bytes into buf: 0, or -1 (the stream ended or failed). */
typedef int (*rp_watch_read_fn)(void *arg, void *buf, size_t len);

/* One message from rd: 0 with *out (malloc'd), -1 when the stream ended
 * (a peer gone: err empty) or the message broke the rules (-1, err says how;
 * nothing read past its header). */
int rp_watch_msg_read(rp_watch_read_fn rd, void *arg, const struct rp_watch_rules *rules,
		      struct rp_watch_msg **out, char *err, size_t errlen);

/* 'S' (a rank died: stop) or 'V' (the verdict: u8 degraded, then one byte per
 * rank) from rank 0, of the length rp_watch_msg_cap requires: the dead ranks
 * OR'd into dead[size]; true when the run is degraded. */
bool rp_watch_dead_apply(const struct rp_watch_msg *m, bool *dead, int size);

/* The connector's hello for rank, answering the listener's nonce. */
void rp_watch_hello_build(uint8_t hello[RP_WATCH_HELLO_LEN], uint32_t rank, const struct rp_auth_key *key,
			  const uint8_t nonce_l[RP_AUTH_NONCE_LEN]);
/* A hello on rank 0 (size ranks): 0 with *rank (1 .. size - 1) and the
 * listener's answer in proof_l, or -1 with err (a rank out of range, a proof
 * that does not hold: the peer does not have the job's secret). */
int rp_watch_hello_check(const uint8_t hello[RP_WATCH_HELLO_LEN], int size, const struct rp_auth_key *key,
			 const uint8_t nonce_l[RP_AUTH_NONCE_LEN], uint32_t *rank, uint8_t proof_l[RP_AUTH_PROOF_LEN],
			 char *err, size_t errlen);
/* On rank r: rank 0's answer to its hello (nonce_c: the one in it). */
bool rp_watch_answer_ok(const uint8_t proof_l[RP_AUTH_PROOF_LEN], uint32_t rank, const struct rp_auth_key *key,
			const uint8_t hello[RP_WATCH_HELLO_LEN], const uint8_t nonce_l[RP_AUTH_NONCE_LEN]);

#endif
