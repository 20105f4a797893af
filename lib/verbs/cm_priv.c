/* ep --cm's private data and its proof (cm_priv.h). */
#include "verbs/cm_priv.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static void put_be(uint8_t *p, uint64_t v, int n)
{
	for (int i = n - 1; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

static uint64_t get_be(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* The proof over the record's 24 bytes and the sender's QPN, in from's role. */
static void proof(const struct rp_cm_session *s, enum rp_cm_from from, const uint8_t rec[RP_CM_REC_LEN],
		  uint32_t qpn, uint8_t out[RP_AUTH_PROOF_LEN])
{
	uint8_t ctx[RP_CM_REC_LEN + 4];
	memcpy(ctx, rec, RP_CM_REC_LEN);
	put_be(ctx + RP_CM_REC_LEN, qpn, 4);
	if (from == RP_CM_FROM_CLIENT)
		rp_auth_proof_ctx(s->key, "cm connector", s->nonces.l, s->nonces.c, ctx, sizeof(ctx), out);
	else
		rp_auth_proof_ctx(s->key, "cm listener", s->nonces.c, s->nonces.l, ctx, sizeof(ctx), out);
}

size_t rp_cm_priv_seal(const struct rp_cm_session *s, enum rp_cm_from from, const struct rp_cm_priv *p,
		       uint32_t qpn, uint8_t out[RP_CM_PRIV_MAX])
{
	memset(out, 0, RP_CM_PRIV_MAX);
	out[0] = s->key ? 2 : 1;
	out[1] = p->qp_index;
	put_be(out + 4, p->rkey, 4);
	put_be(out + 8, p->addr, 8);
	put_be(out + 16, p->len, 8);
	if (!s->key)
		return RP_CM_REC_LEN;
	proof(s, from, out, qpn, out + RP_CM_REC_LEN);
	return RP_CM_PRIV_MAX;
}

int rp_cm_priv_open(const struct rp_cm_session *s, enum rp_cm_from from, const uint8_t *buf, size_t len,
		    uint32_t qpn, struct rp_cm_priv *p, char *why, size_t whylen)
{
	if (!buf || len < 1 || (buf[0] != 1 && buf[0] != 2)) {
		snprintf(why, whylen, "not a roceprobe ep record (%s)",
			 !buf || !len ? "no private data" : "unknown version");
		return -1;
	}
	if (s->key && buf[0] == 1) {
		snprintf(why, whylen, "no proof of the key (an ep without the rdma_cm proof?)");
		return -1;
	}
	if (!s->key && buf[0] == 2) {
		snprintf(why, whylen, "a proof of a key this end does not have");
		return -1;
	}
	size_t want = s->key ? RP_CM_PRIV_MAX : RP_CM_REC_LEN;
	if (len < want) {
		snprintf(why, whylen, "truncated private data (%zu of %zu bytes)", len, want);
		return -1;
	}
	if (s->key) {
		uint8_t expect[RP_AUTH_PROOF_LEN];
		proof(s, from, buf, qpn, expect);
		if (!rp_auth_proof_ok(expect, buf + RP_CM_REC_LEN)) {
			snprintf(why, whylen, "wrong key, or a request of another session");
			return -1;
		}
	}
	p->version = buf[0];
	p->qp_index = buf[1];
	p->rkey = (uint32_t)get_be(buf + 4, 4);
	p->addr = get_be(buf + 8, 8);
	p->len = get_be(buf + 16, 8);
	return 0;
}

size_t rp_cm_rej_encode(const char *why, uint8_t out[RP_CM_REJ_MAX])
{
	memset(out, 0, RP_CM_REJ_MAX);
	int n = snprintf((char *)out, RP_CM_REJ_MAX, "ERR %s", why);
	return n < 0 ? 0 : (size_t)n + 1 < RP_CM_REJ_MAX ? (size_t)n + 1 : RP_CM_REJ_MAX; /* with its NUL */
}

int rp_cm_rej_decode(const uint8_t *buf, size_t len, char *out, size_t outlen)
{
	if (!buf || len < 5 || memcmp(buf, "ERR ", 4) != 0 || !outlen)
		return -1;
	size_t n = 0;
	for (size_t i = 4; i < len && buf[i] && n + 1 < outlen; i++)
		out[n++] = buf[i] >= 0x20 && buf[i] < 0x7f ? (char)buf[i] : '?';
	out[n] = '\0';
	return n ? 0 : -1;
}
