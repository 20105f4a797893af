/* The private data of `ep --cm`'s REQ, REP and REJ (verbs/cm.h): each QP's buffer record
 * and, when the session has a key, the proof that the record comes from the peer that proved
 * the key on this session's control channel. Pure C over bytes, no verbs: unit-tested
 * (test_verbs_cm) and fuzzed (fuzz_ep_cm).
 *
 * The room (rdma-core's librdmacm, man 3): rdma_connect(3) "The length of the private data
 * provided by the user is limited to 56 bytes for RDMA_PS_TCP" on InfiniBand and RoCE, what
 * is left of the CM REQ's 92 bytes after rdma_cm's own 36-byte header (the kernel's
 * cma_connect_ib puts cma_user_data_offset() bytes first); rdma_accept(3) "limited to 196
 * bytes for RDMA_PS_TCP" (the whole REP's); a REJ carries 148. The passive side is handed
 * the REQ's 56 bytes and the active side the REP's 196, zero-padded past what was sent.
 *
 *   version 1 (no key), 24 bytes:  version qp_index 0 0 | rkey | addr | len    (big-endian)
 *   version 2 (a key),  56 bytes:  the same 24 bytes, version 2 | proof (32)
 *
 *   REQ proof = rp_auth_proof_ctx(key, "cm connector", nonce_l, nonce_c, rec || qpn)
 *   REP proof = rp_auth_proof_ctx(key, "cm listener",  nonce_c, nonce_l, rec || qpn)
 *
 * nonce_l and nonce_c are the two nonces of the control channel's key proof (oob_auth.h),
 * fresh for each session; rec is the 24 bytes before the proof, qpn the sender's QP number as
 * the CM header carries it (big-endian). Why this shape and not another:
 *
 *   - The server's check must come before it spends or shows anything: its REP carries the
 *     buffer's rkey and address, and accepting moves a QP to RTR/RTS toward the sender. So
 *     the REQ itself must prove the key, and a REQ is the first CM message: a nonce of the
 *     server's cannot reach the client through the CM before it. It does not need to: the
 *     control channel the client proved the key on already gave both sides two fresh nonces,
 *     and the CM listener exists for that one session. Binding them makes a REQ good for one
 *     session only: a REQ replayed into another session (another nonce_l) fails, a REQ of
 *     this session replayed for a QP already connected is refused as a second request for
 *     it (cm.c), and one re-sent with another QPN or another record fails its proof.
 *   - The 56 bytes hold the record (24) and one whole HMAC-SHA-256 (32) and nothing more:
 *     no room for a 32-byte nonce as well, and no need to cut the proof short, since the
 *     nonces are the channel's. A proof exchange as the first messages on the new QPs
 *     instead would connect the QPs (RTR/RTS, rkey and address sent) before anything is
 *     proven.
 *   - The REP's proof has the other role and the nonces the other way round, so a REQ's
 *     proof reflected back is no REP proof; the client checks it before its QP leaves INIT
 *     (and rejects the REP otherwise).
 * Not covered: someone on the path who can drop the real REQ and send its bytes first, from
 * the client's address, wins that QP's place (as with any proof without encryption); the
 * control channel has the same limit (docs/security.md). */
#ifndef RP_VERBS_CM_PRIV_H
#define RP_VERBS_CM_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include "auth/auth.h"
#include "verbs/oob_auth.h"

#define RP_CM_REC_LEN 24                                  /* version 1: the record alone */
#define RP_CM_PRIV_MAX (RP_CM_REC_LEN + RP_AUTH_PROOF_LEN) /* version 2: 56, a REQ's whole room */
#define RP_CM_REJ_MAX 148                                 /* a REJ's private data (IB CM) */

struct rp_cm_priv {
	uint8_t version; /* 1 without a key, 2 with its proof */
	uint8_t qp_index;
	uint32_t rkey;
	uint64_t addr;
	uint64_t len;
};

/* What one session's CM messages are checked against. */
struct rp_cm_session {
	const struct rp_auth_key *key;    /* NULL: no key, records without proofs */
	struct rp_oob_auth_nonces nonces; /* with a key: the control channel's proof's */
};

enum rp_cm_from {
	RP_CM_FROM_CLIENT, /* a REQ: role "cm connector" */
	RP_CM_FROM_SERVER, /* a REP: role "cm listener" */
};

/* The bytes to send for record p (its version is set here) from the QP qpn: 24 without a
 * key, RP_CM_PRIV_MAX with one. Returns the length. */
size_t rp_cm_priv_seal(const struct rp_cm_session *s, enum rp_cm_from from, const struct rp_cm_priv *p,
		       uint32_t qpn, uint8_t out[RP_CM_PRIV_MAX]);

/* A peer's private data (len bytes as the CM handed them; bytes past the record, or past
 * the proof, are padding) from its QP qpn. 0 with p, or -1 with why ("wrong key ...",
 * "no proof ...", "truncated ...") and p untouched. Never reads past len. */
int rp_cm_priv_open(const struct rp_cm_session *s, enum rp_cm_from from, const uint8_t *buf, size_t len,
		    uint32_t qpn, struct rp_cm_priv *p, char *why, size_t whylen);

/* A refusal's REJ private data: "ERR why", NUL-padded, at most RP_CM_REJ_MAX bytes.
 * Returns the length. */
size_t rp_cm_rej_encode(const char *why, uint8_t out[RP_CM_REJ_MAX]);
/* The reason in a REJ's private data: 0 with the text (printable ASCII only, cut to fit
 * out), or -1 when it is not one of ours (another CM consumer, or none). */
int rp_cm_rej_decode(const uint8_t *buf, size_t len, char *out, size_t outlen);

#endif
