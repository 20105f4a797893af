/* libFuzzer harness (issue 33): the private data a stranger can put in an rdma_cm REQ or REJ
 * to `ep --cm` (lib/verbs/cm_priv.h), the counterpart of fuzz_ep_exchange's control lines.
 *   - the whole input as a REQ's and a REP's private data (exactly its bytes: ASan sees a
 *     read past them), against a keyless session and a keyed one with fresh nonces:
 *     a keyed session accepts nothing (the input never saw its nonces); what a keyless one
 *     accepts seals back to the same 24 bytes (the two reserved bytes aside);
 *   - the input as a REJ's private data: a reason that decodes is printable, fits, and
 *     encodes and decodes back to itself (cut to what a REJ holds). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "auth/auth.h"
#include "verbs/cm_priv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void as_priv(const uint8_t *buf, size_t len)
{
	static struct rp_auth_key key;
	static bool ready;
	char err[128], why[256];
	if (!ready) {
		if (rp_auth_init(err, sizeof(err)) || rp_auth_key_from_text("fuzz", 4, &key, err, sizeof(err)))
			abort();
		ready = true;
	}
	struct rp_cm_session none = {.key = NULL}, keyed = {.key = &key};
	rp_auth_nonce(keyed.nonces.l);
	rp_auth_nonce(keyed.nonces.c);
	uint32_t qpn = len >= 4 ? (uint32_t)buf[len - 4] << 24 | (uint32_t)buf[len - 3] << 16 | buf[len - 2] << 8 | buf[len - 1] : 0;
	for (int from = RP_CM_FROM_CLIENT; from <= RP_CM_FROM_SERVER; from++) {
		struct rp_cm_priv p;
		if (rp_cm_priv_open(&keyed, (enum rp_cm_from)from, buf, len, qpn, &p, why, sizeof(why)) == 0)
			abort(); /* a proof over nonces it never saw */
		if (rp_cm_priv_open(&none, (enum rp_cm_from)from, buf, len, qpn, &p, why, sizeof(why)) == 0) {
			uint8_t out[RP_CM_PRIV_MAX];
			if (rp_cm_priv_seal(&none, (enum rp_cm_from)from, &p, qpn, out) != RP_CM_REC_LEN || out[0] != buf[0] ||
			    out[1] != buf[1] || memcmp(out + 4, buf + 4, RP_CM_REC_LEN - 4) != 0)
				abort();
		} else if (!why[0] || !memchr(why, 0, sizeof(why))) {
			abort(); /* a refusal says why */
		}
	}
}

static void as_rej(const uint8_t *buf, size_t len)
{
	char out[RP_CM_REJ_MAX], again[RP_CM_REJ_MAX];
	uint8_t rej[RP_CM_REJ_MAX];
	if (rp_cm_rej_decode(buf, len, out, sizeof(out)))
		return;
	size_t n = strlen(out);
	if (!n || n >= sizeof(out))
		abort();
	for (size_t i = 0; i < n; i++)
		if (out[i] < 0x20 || out[i] > 0x7e)
			abort();
	size_t m = rp_cm_rej_encode(out, rej);
	if (m > RP_CM_REJ_MAX || rp_cm_rej_decode(rej, m, again, sizeof(again)) ||
	    strncmp(out, again, strlen(again)) != 0)
		abort();
	if (n + 5 <= RP_CM_REJ_MAX && strcmp(out, again) != 0) /* "ERR " + text + NUL fits whole */
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return 0;
	uint8_t *copy = malloc(size ? size : 1); /* exactly size bytes */
	if (!copy)
		abort();
	memcpy(copy, data, size);
	as_priv(copy, size);
	as_rej(copy, size);
	free(copy);
	return 0;
}
