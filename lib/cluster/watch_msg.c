/* The watch's wire format (watch_msg.h). */
#include "watch_msg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIRST_CHUNK 65536 /* a body's first allocation; it doubles as bytes arrive */

int rp_watch_msg_cap(uint8_t type, const struct rp_watch_rules *rules, uint32_t *max, bool *exact)
{
	bool r0 = rules->from_rank0;
	*max = 0;
	*exact = true;
	switch (type) {
	case 'T': /* a rank's senders are done; rank 0's answer: all are */
	case 'B': /* goodbye, both ways */
		return 0;
	case 'E': /* a rank's run is over */
		return r0 ? -1 : 0;
	case 'X': /* rank 0: a rank died when nothing could be saved */
		return r0 ? 0 : -1;
	case 'S': /* rank 0: stop, u8 dead[size] */
		*max = (uint32_t)rules->size;
		return r0 && rules->size > 0 ? 0 : -1;
	case 'V': /* rank 0: the verdict, u8 degraded, u8 dead[size] */
		*max = (uint32_t)rules->size + 1;
		return r0 && rules->size > 0 ? 0 : -1;
	case 'D': /* a step of a degraded end's collective */
		*max = RP_WATCH_DATA_MAX;
		*exact = false;
		return rules->degraded ? 0 : -1;
	default: return -1;
	}
}

void rp_watch_hdr_build(uint8_t hdr[RP_WATCH_HDR_LEN], uint8_t type, uint32_t len)
{
	hdr[0] = type;
	for (int i = 0; i < 4; i++)
		hdr[1 + i] = (uint8_t)(len >> (8 * i));
}

int rp_watch_hdr_parse(const uint8_t hdr[RP_WATCH_HDR_LEN], const struct rp_watch_rules *rules, uint8_t *type,
		       uint32_t *len, char *err, size_t errlen)
{
	uint32_t max;
	bool exact;
	*type = hdr[0];
	*len = hdr[1] | (uint32_t)hdr[2] << 8 | (uint32_t)hdr[3] << 16 | (uint32_t)hdr[4] << 24;
	if (rp_watch_msg_cap(*type, rules, &max, &exact) != 0) {
		snprintf(err, errlen, "message type 0x%02x may not come %s%s", *type,
			 rules->from_rank0 ? "from rank 0" : "from a rank",
			 *type == 'D' && !rules->degraded ? " before a rank died" : "");
		return -1;
	}
	if (*len > max || (exact && *len != max)) {
		snprintf(err, errlen, "message '%c' of %u bytes (it holds %s%u)", *type, *len, exact ? "" : "at most ",
			 max);
		return -1;
	}
	return 0;
}

int rp_watch_msg_read(rp_watch_read_fn rd, void *arg, const struct rp_watch_rules *rules,
		      struct rp_watch_msg **out, char *err, size_t errlen)
{
	uint8_t hdr[RP_WATCH_HDR_LEN], type;
	uint32_t len;
	*out = NULL;
	err[0] = 0;
	if (rd(arg, hdr, sizeof(hdr)) != 0)
		return -1;
	if (rp_watch_hdr_parse(hdr, rules, &type, &len, err, errlen) != 0)
		return -1;
	/* Memory follows the bytes that came, not the length that was claimed. */
	size_t cap = len < FIRST_CHUNK ? len : FIRST_CHUNK, got = 0;
	struct rp_watch_msg *m = malloc(sizeof(*m) + cap);
	if (!m) {
		snprintf(err, errlen, "out of memory for a message of %u bytes", len);
		return -1;
	}
	*m = (struct rp_watch_msg){.type = type, .len = len};
	while (got < len) {
		if (got == cap) {
			cap = len - cap < cap ? len : 2 * cap;
			struct rp_watch_msg *g = realloc(m, sizeof(*m) + cap);
			if (!g) {
				free(m);
				snprintf(err, errlen, "out of memory for a message of %u bytes", len);
				return -1;
			}
			m = g;
		}
		if (rd(arg, m->data + got, cap - got) != 0) {
			free(m);
			return -1;
		}
		got = cap;
	}
	*out = m;
	return 0;
}

bool rp_watch_dead_apply(const struct rp_watch_msg *m, bool *dead, int size)
{
	size_t skip = m->type == 'V';
	if ((m->type != 'S' && m->type != 'V') || size <= 0 || m->len != (size_t)size + skip)
		return false;
	for (int k = 0; k < size; k++)
		dead[k] |= m->data[skip + (size_t)k] != 0;
	return m->type == 'S' || m->data[0] != 0;
}

static void role(char *out, size_t n, uint32_t rank, const char *side)
{
	snprintf(out, n, "watch rank %u %s", rank, side);
}

void rp_watch_hello_build(uint8_t hello[RP_WATCH_HELLO_LEN], uint32_t rank, const struct rp_auth_key *key,
			  const uint8_t nonce_l[RP_AUTH_NONCE_LEN])
{
	char r[48];
	uint8_t *nonce_c = hello + 4;
	for (int i = 0; i < 4; i++)
		hello[i] = (uint8_t)(rank >> (8 * i));
	rp_auth_nonce(nonce_c);
	role(r, sizeof(r), rank, "connector");
	rp_auth_proof(key, r, nonce_l, nonce_c, hello + 4 + RP_AUTH_NONCE_LEN);
}

int rp_watch_hello_check(const uint8_t hello[RP_WATCH_HELLO_LEN], int size, const struct rp_auth_key *key,
			 const uint8_t nonce_l[RP_AUTH_NONCE_LEN], uint32_t *rank, uint8_t proof_l[RP_AUTH_PROOF_LEN],
			 char *err, size_t errlen)
{
	char r[48];
	uint8_t want[RP_AUTH_PROOF_LEN];
	const uint8_t *nonce_c = hello + 4;
	*rank = hello[0] | (uint32_t)hello[1] << 8 | (uint32_t)hello[2] << 16 | (uint32_t)hello[3] << 24;
	if (*rank == 0 || *rank >= (uint32_t)size) {
		snprintf(err, errlen, "rank %u is not one of ranks 1..%d", *rank, size - 1);
		return -1;
	}
	role(r, sizeof(r), *rank, "connector");
	rp_auth_proof(key, r, nonce_l, nonce_c, want);
	if (!rp_auth_proof_ok(want, hello + 4 + RP_AUTH_NONCE_LEN)) {
		snprintf(err, errlen, "rank %u's proof of the job's secret is wrong", *rank);
		return -1;
	}
	role(r, sizeof(r), *rank, "listener");
	rp_auth_proof(key, r, nonce_c, nonce_l, proof_l);
	return 0;
}

bool rp_watch_answer_ok(const uint8_t proof_l[RP_AUTH_PROOF_LEN], uint32_t rank, const struct rp_auth_key *key,
			const uint8_t hello[RP_WATCH_HELLO_LEN], const uint8_t nonce_l[RP_AUTH_NONCE_LEN])
{
	char r[48];
	uint8_t want[RP_AUTH_PROOF_LEN];
	role(r, sizeof(r), rank, "listener");
	rp_auth_proof(key, r, hello + 4, nonce_l, want);
	return rp_auth_proof_ok(want, proof_l);
}
