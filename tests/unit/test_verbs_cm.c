/* ep --cm's private data and its key proof (lib/verbs/cm_priv.h), without an RDMA device.
 *
 * The sessions: key = blake2b(b'k', digest_size=32); nonce_l = bytes(range(32)), nonce_c =
 * bytes(range(32, 64)); the record: QP index 1, rkey 0x1234, address 0x7f0000001000, 65536
 * bytes; the client's QP 0x11, the server's 0x22. Expected bytes from Python 3.11:
 *   rec = bytes([2, 1, 0, 0]) + struct.pack('>IQQ', 0x1234, 0x7f0000001000, 65536)
 *   REQ = rec + hmac.new(key, b'cm connector\0' + nonce_l + nonce_c + rec + struct.pack('>I', 0x11), sha256)
 *   REP = rec + hmac.new(key, b'cm listener\0' + nonce_c + nonce_l + rec + struct.pack('>I', 0x22), sha256) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "verbs/cm_priv.h"

static const char req_hex[] = "020100000000123400007f00000010000000000000010000"
			      "c85f6b61b55249705b19d1b6ccfbaf1dd90238ea631499973cb32d68971c1631";
static const char rep_hex[] = "020100000000123400007f00000010000000000000010000"
			      "bb1813a201d9d22171c476dd7b1d945e40a93912f5b58d677f9a3e277a6fb82e";
/* Without a key: the 24 bytes ep --cm has always sent (version 1). */
static const char rec1_hex[] = "010100000000123400007f00000010000000000000010000";

static struct rp_auth_key key, other_key;
static const struct rp_cm_priv rec = {.qp_index = 1, .rkey = 0x1234, .addr = 0x7f0000001000ull, .len = 65536};

static void hex(const uint8_t *b, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
}

static struct rp_cm_session session(const struct rp_auth_key *k, uint8_t l0)
{
	struct rp_cm_session s = {.key = k};
	for (int i = 0; i < 32; i++) {
		s.nonces.l[i] = (uint8_t)(l0 + i);
		s.nonces.c[i] = (uint8_t)(32 + i);
	}
	return s;
}

static int setup(void **state)
{
	(void)state;
	char err[128];
	if (rp_auth_init(err, sizeof(err)) || rp_auth_key_from_text("k", 1, &key, err, sizeof(err)) ||
	    rp_auth_key_from_text("not k", 5, &other_key, err, sizeof(err)))
		return -1;
	return 0;
}

/* The client seals, the server opens: the bytes Python computed, the record back. */
static void good_proof(void **state)
{
	(void)state;
	struct rp_cm_session s = session(&key, 0);
	uint8_t buf[RP_CM_PRIV_MAX];
	char h[2 * RP_CM_PRIV_MAX + 1], why[128] = "";
	assert_int_equal(RP_CM_PRIV_MAX, 56); /* rdma_connect(3): 56 bytes for RDMA_PS_TCP */
	assert_int_equal(rp_cm_priv_seal(&s, RP_CM_FROM_CLIENT, &rec, 0x11, buf), 56);
	hex(buf, 56, h);
	assert_string_equal(h, req_hex);
	struct rp_cm_priv got;
	memset(&got, 0, sizeof(got));
	assert_int_equal(rp_cm_priv_open(&s, RP_CM_FROM_CLIENT, buf, 56, 0x11, &got, why, sizeof(why)), 0);
	assert_int_equal(got.version, 2);
	assert_int_equal(got.qp_index, 1);
	assert_int_equal(got.rkey, 0x1234);
	assert_true(got.addr == 0x7f0000001000ull);
	assert_true(got.len == 65536);
	/* The REP: the other role, the nonces the other way round; it arrives padded to 196. */
	uint8_t rep[196];
	memset(rep, 0, sizeof(rep));
	assert_int_equal(rp_cm_priv_seal(&s, RP_CM_FROM_SERVER, &rec, 0x22, rep), 56);
	hex(rep, 56, h);
	assert_string_equal(h, rep_hex);
	assert_int_equal(rp_cm_priv_open(&s, RP_CM_FROM_SERVER, rep, sizeof(rep), 0x22, &got, why, sizeof(why)), 0);
}

static void wrong_key(void **state)
{
	(void)state;
	struct rp_cm_session client = session(&other_key, 0), server = session(&key, 0);
	uint8_t buf[RP_CM_PRIV_MAX];
	char why[128];
	struct rp_cm_priv got = {.qp_index = 77};
	rp_cm_priv_seal(&client, RP_CM_FROM_CLIENT, &rec, 0x11, buf);
	assert_int_equal(rp_cm_priv_open(&server, RP_CM_FROM_CLIENT, buf, 56, 0x11, &got, why, sizeof(why)), -1);
	assert_string_equal(why, "wrong key, or a request of another session");
	assert_int_equal(got.qp_index, 77); /* untouched */
	/* and a server with the wrong key, seen from the client */
	rp_cm_priv_seal(&client, RP_CM_FROM_SERVER, &rec, 0x22, buf);
	assert_int_equal(rp_cm_priv_open(&server, RP_CM_FROM_SERVER, buf, 56, 0x22, &got, why, sizeof(why)), -1);
}

/* A REQ seen on the wire, sent again: into another session (another nonce_l), from another
 * QP, with one bit of its record changed, or reflected back as the server's REP. */
static void replayed_request(void **state)
{
	(void)state;
	struct rp_cm_session a = session(&key, 0), b = session(&key, 100);
	uint8_t buf[RP_CM_PRIV_MAX];
	char why[128];
	struct rp_cm_priv got;
	rp_cm_priv_seal(&a, RP_CM_FROM_CLIENT, &rec, 0x11, buf);
	assert_int_equal(rp_cm_priv_open(&a, RP_CM_FROM_CLIENT, buf, 56, 0x11, &got, why, sizeof(why)), 0);
	assert_int_equal(rp_cm_priv_open(&b, RP_CM_FROM_CLIENT, buf, 56, 0x11, &got, why, sizeof(why)), -1);
	assert_string_equal(why, "wrong key, or a request of another session");
	assert_int_equal(rp_cm_priv_open(&a, RP_CM_FROM_CLIENT, buf, 56, 0x12, &got, why, sizeof(why)), -1);
	assert_int_equal(rp_cm_priv_open(&a, RP_CM_FROM_SERVER, buf, 56, 0x11, &got, why, sizeof(why)), -1);
	buf[7] ^= 1; /* the rkey's last bit */
	assert_int_equal(rp_cm_priv_open(&a, RP_CM_FROM_CLIENT, buf, 56, 0x11, &got, why, sizeof(why)), -1);
}

static void truncated_private_data(void **state)
{
	(void)state;
	struct rp_cm_session s = session(&key, 0), none = {.key = NULL};
	uint8_t buf[RP_CM_PRIV_MAX];
	char why[128];
	struct rp_cm_priv got;
	rp_cm_priv_seal(&s, RP_CM_FROM_CLIENT, &rec, 0x11, buf);
	assert_int_equal(rp_cm_priv_open(&s, RP_CM_FROM_CLIENT, buf, 55, 0x11, &got, why, sizeof(why)), -1);
	assert_string_equal(why, "truncated private data (55 of 56 bytes)");
	assert_int_equal(rp_cm_priv_open(&s, RP_CM_FROM_CLIENT, buf, 24, 0x11, &got, why, sizeof(why)), -1);
	assert_string_equal(why, "truncated private data (24 of 56 bytes)");
	assert_int_equal(rp_cm_priv_open(&s, RP_CM_FROM_CLIENT, buf, 0, 0x11, &got, why, sizeof(why)), -1);
	assert_string_equal(why, "not a roceprobe ep record (no private data)");
	assert_int_equal(rp_cm_priv_open(&s, RP_CM_FROM_CLIENT, NULL, 56, 0x11, &got, why, sizeof(why)), -1);
	rp_cm_priv_seal(&none, RP_CM_FROM_CLIENT, &rec, 0x11, buf);
	assert_int_equal(rp_cm_priv_open(&none, RP_CM_FROM_CLIENT, buf, 23, 0x11, &got, why, sizeof(why)), -1);
	assert_string_equal(why, "truncated private data (23 of 24 bytes)");
}

/* Without a key: the same 24 bytes as before the proof, read back as before (padding past
 * them ignored); a keyed end refuses them, a keyless end refuses a proof. */
static void without_a_key(void **state)
{
	(void)state;
	struct rp_cm_session none = {.key = NULL}, s = session(&key, 0);
	uint8_t buf[56];
	char h[2 * RP_CM_PRIV_MAX + 1], why[128];
	struct rp_cm_priv got;
	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(rp_cm_priv_seal(&none, RP_CM_FROM_CLIENT, &rec, 0x11, buf), 24);
	hex(buf, 24, h);
	assert_string_equal(h, rec1_hex);
	assert_int_equal(rp_cm_priv_open(&none, RP_CM_FROM_CLIENT, buf, 56, 0x99, &got, why, sizeof(why)), 0);
	assert_int_equal(got.version, 1);
	assert_int_equal(got.rkey, 0x1234);
	assert_int_equal(rp_cm_priv_open(&s, RP_CM_FROM_CLIENT, buf, 56, 0x11, &got, why, sizeof(why)), -1);
	assert_string_equal(why, "no proof of the key (an ep without the rdma_cm proof?)");
	rp_cm_priv_seal(&s, RP_CM_FROM_CLIENT, &rec, 0x11, buf);
	assert_int_equal(rp_cm_priv_open(&none, RP_CM_FROM_CLIENT, buf, 56, 0x11, &got, why, sizeof(why)), -1);
	assert_string_equal(why, "a proof of a key this end does not have");
	buf[0] = 3;
	assert_int_equal(rp_cm_priv_open(&s, RP_CM_FROM_CLIENT, buf, 56, 0x11, &got, why, sizeof(why)), -1);
	assert_string_equal(why, "not a roceprobe ep record (unknown version)");
}

/* The REJ's reason: ours round-trips; the CM's own (zeros) or another consumer's is not ours;
 * what is not printable is not printed; a reason too long is cut with its NUL kept. */
static void reject_reason(void **state)
{
	(void)state;
	uint8_t rej[RP_CM_REJ_MAX];
	char out[RP_CM_REJ_MAX];
	assert_int_equal(rp_cm_rej_encode("wrong key", rej), 14); /* "ERR wrong key" and its NUL */
	assert_int_equal(rp_cm_rej_decode(rej, sizeof(rej), out, sizeof(out)), 0);
	assert_string_equal(out, "wrong key");
	assert_int_equal(rp_cm_rej_decode(rej, 6, out, sizeof(out)), 0);
	assert_string_equal(out, "wr");
	memset(rej, 0, sizeof(rej));
	assert_int_equal(rp_cm_rej_decode(rej, sizeof(rej), out, sizeof(out)), -1);
	assert_int_equal(rp_cm_rej_decode((const uint8_t *)"ERR ", 4, out, sizeof(out)), -1);
	assert_int_equal(rp_cm_rej_decode((const uint8_t *)"NVMe", 4, out, sizeof(out)), -1);
	assert_int_equal(rp_cm_rej_decode((const uint8_t *)"ERR a\nb\033", 8, out, sizeof(out)), 0);
	assert_string_equal(out, "a?b?");
	char longwhy[300];
	memset(longwhy, 'x', sizeof(longwhy) - 1);
	longwhy[sizeof(longwhy) - 1] = 0;
	assert_int_equal(rp_cm_rej_encode(longwhy, rej), RP_CM_REJ_MAX);
	assert_int_equal(rej[RP_CM_REJ_MAX - 1], 0);
	assert_int_equal(rp_cm_rej_decode(rej, sizeof(rej), out, 8), 0);
	assert_string_equal(out, "xxxxxxx");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(good_proof),	  cmocka_unit_test(wrong_key),	   cmocka_unit_test(replayed_request),
		cmocka_unit_test(truncated_private_data), cmocka_unit_test(without_a_key), cmocka_unit_test(reject_reason),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
