/* The key proof on ep's control connection (issue 33), before any other line.
 *
 * lib/auth's mutual challenge-response in four text lines, the connector (the
 * ep client) speaking first, so a server without a key still reads a keyless
 * client's HELLO as its first line, as it always has:
 *
 *   client (connector)                          server (listener)
 *   "AUTH 1"                      ------------>
 *                                 <------------  "CHALLENGE" nonce_l
 *   "PROOF" nonce_c proof_c       ------------>  check proof_c; else "ERR wrong key", close
 *                                 <------------  "PROVEN" proof_l
 *   check proof_l; then HELLO as without a key
 *
 * nonces and proofs are 64 lower-case hex digits; proof_c = rp_auth_proof(key,
 * "connector", nonce_l, nonce_c), proof_l = rp_auth_proof(key, "listener",
 * nonce_c, nonce_l). The key never crosses the wire, nor anything a listener
 * could replay to another connection.
 *
 * When either side has a key, both must prove it: a keyed server answers any
 * other first line (a keyless client's HELLO) with "ERR ..." and closes; a
 * server without a key answers "AUTH" the same way. Plain sockets and text,
 * no verbs: fuzzed (tests/fuzz/fuzz_ep_exchange.c). */
#ifndef RP_VERBS_OOB_AUTH_H
#define RP_VERBS_OOB_AUTH_H

#include <stddef.h>
#include <stdint.h>

#include "auth/auth.h"

enum rp_oob_auth_type {
	RP_OOB_AUTH_OFFER = 1, /* "AUTH 1": the client has a key */
	RP_OOB_AUTH_CHALLENGE, /* "CHALLENGE nonce_l" */
	RP_OOB_AUTH_PROOF,     /* "PROOF nonce_c proof_c" */
	RP_OOB_AUTH_PROVEN,    /* "PROVEN proof_l" */
};

struct rp_oob_auth_msg {
	enum rp_oob_auth_type type;
	uint8_t nonce[RP_AUTH_NONCE_LEN]; /* CHALLENGE, PROOF */
	uint8_t proof[RP_AUTH_PROOF_LEN]; /* PROOF, PROVEN */
};

/* The longest line, "PROOF " + 64 + " " + 64 + "\n". */
#define RP_OOB_AUTH_LINE_MAX 136

/* Exactly one well-formed line (with or without its '\n'): 0, else -1. */
int rp_oob_auth_parse(const char *line, size_t len, struct rp_oob_auth_msg *m);
/* The line with its '\n' and a NUL; its length. */
size_t rp_oob_auth_format(const struct rp_oob_auth_msg *m, char out[RP_OOB_AUTH_LINE_MAX + 1]);

/* A proven session's two nonces, as its key proof used them: what ep's
 * rdma_cm proof binds (verbs/cm_priv.h), so that a CM request proves it
 * belongs to this session, and no other. */
struct rp_oob_auth_nonces {
	uint8_t l[RP_AUTH_NONCE_LEN]; /* the listener's (the server drew it) */
	uint8_t c[RP_AUTH_NONCE_LEN]; /* the connector's (the client drew it) */
};

/* The client's side, right after connecting. key NULL: nothing is sent, 0.
 * Else 0 once both proofs are checked (the session's nonces in *nonces when
 * not NULL), or -1 with one line in err: the server refused (its reason),
 * did not prove the key, or went away. */
int rp_oob_auth_connect(int fd, const struct rp_auth_key *key, struct rp_oob_auth_nonces *nonces, int timeout_ms,
			char *err, size_t errlen);

/* The server's side, on an accepted connection: reads the first line.
 * 0: admitted; first holds the line that follows the proof when there was
 * none (without a key, the client's HELLO), else first[0] = 0.
 * With a key, the session's nonces in *nonces when not NULL.
 * -1: refused: "ERR reason" was sent to the client, why says it for the
 * server's log ("no key (it sent 'HELLO 1 ...')", "wrong key", ...). The
 * caller closes fd. */
int rp_oob_auth_accept(int fd, const struct rp_auth_key *key, struct rp_oob_auth_nonces *nonces, int timeout_ms,
		       char *first, size_t firstlen, char *why, size_t whylen);

#endif
