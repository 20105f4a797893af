/* lib/auth: proof that a peer holds a shared key, never the key on the wire.
 *
 * Plain C over libsodium (HMAC-SHA-256, BLAKE2b, the kernel's getrandom), no
 * MPI, no verbs: the watch socket (lib/cluster) and ep's control exchange
 * (lib/verbs) prove membership the same way.
 *
 * A mutual challenge-response over two fresh nonces:
 *
 *   listener                                   connector
 *   nonce_l  ------------------------------->
 *            <-------------------------------  nonce_c, proof(key, "connector", nonce_l, nonce_c)
 *   check it; then
 *   proof(key, "listener", nonce_c, nonce_l) ->  check it
 *
 * Each side's proof binds its role and both nonces, so a proof cannot be
 * replayed to another connection or reflected back to its sender. */
#ifndef RP_AUTH_H
#define RP_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RP_AUTH_KEY_LEN 32
#define RP_AUTH_NONCE_LEN 32
#define RP_AUTH_PROOF_LEN 32

struct rp_auth_key {
	uint8_t k[RP_AUTH_KEY_LEN];
};

/* libsodium's one-time set-up; 0, or -1 with err. Every other call needs it. */
int rp_auth_init(char *err, size_t errlen);

/* A fresh random key (a job's secret) or nonce, from the kernel's CSPRNG. */
void rp_auth_key_draw(struct rp_auth_key *key);
void rp_auth_nonce(uint8_t nonce[RP_AUTH_NONCE_LEN]);

/* A key from text of any length (a file's contents, ROCEPROBE_KEY): its
 * BLAKE2b-256 digest, so "a long passphrase" and 32 raw bytes both work. Empty
 * text is refused (-1, err). */
int rp_auth_key_from_text(const void *text, size_t len, struct rp_auth_key *key, char *err, size_t errlen);

/* A key from a file (trailing newlines dropped). -1 with err when it cannot be
 * read or is empty; a file that group or others may read leaves a warning in
 * warn (else warn[0] = 0): a secret others can read is no secret. */
int rp_auth_key_load(const char *path, struct rp_auth_key *key, char *warn, size_t warnlen, char *err,
		     size_t errlen);

/* HMAC-SHA-256(key, role || 0x00 || first || second). */
void rp_auth_proof(const struct rp_auth_key *key, const char *role, const uint8_t first[RP_AUTH_NONCE_LEN],
		   const uint8_t second[RP_AUTH_NONCE_LEN], uint8_t out[RP_AUTH_PROOF_LEN]);

/* rp_auth_proof over what the proof is about besides the nonces:
 * HMAC-SHA-256(key, role || 0x00 || first || second || ctx). ep's rdma_cm
 * proof binds the QP's record and number this way (verbs/cm_priv.h). With
 * ctxlen 0 it is rp_auth_proof. */
void rp_auth_proof_ctx(const struct rp_auth_key *key, const char *role, const uint8_t first[RP_AUTH_NONCE_LEN],
		       const uint8_t second[RP_AUTH_NONCE_LEN], const uint8_t *ctx, size_t ctxlen,
		       uint8_t out[RP_AUTH_PROOF_LEN]);

/* A received proof against the one expected, in constant time. */
bool rp_auth_proof_ok(const uint8_t expected[RP_AUTH_PROOF_LEN], const uint8_t got[RP_AUTH_PROOF_LEN]);

/* HMAC-SHA-256 of msg under a key of any length (RFC 2104; what rp_auth_proof
 * is built on, exposed for its known-answer test, RFC 4231). */
void rp_auth_hmac_sha256(const uint8_t *key, size_t keylen, const uint8_t *msg, size_t len, uint8_t out[32]);

#endif
