/* lib/auth: HMAC-SHA-256 against RFC 4231's known answers, the proof against
 * Python's hmac/hashlib (values below computed with them, not with this code),
 * and the key file's rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "auth/auth.h"

static void hex(const uint8_t *b, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
}

static int setup(void **state)
{
	(void)state;
	char err[128];
	return rp_auth_init(err, sizeof(err));
}

/* RFC 4231 section 4.2 (test case 1) and 4.3 (test case 2). */
static void hmac_rfc4231(void **state)
{
	(void)state;
	uint8_t key[20], mac[32];
	char h[65];
	memset(key, 0x0b, sizeof(key));
	rp_auth_hmac_sha256(key, sizeof(key), (const uint8_t *)"Hi There", 8, mac);
	hex(mac, 32, h);
	assert_string_equal(h, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
	const char *msg = "what do ya want for nothing?";
	rp_auth_hmac_sha256((const uint8_t *)"Jefe", 4, (const uint8_t *)msg, strlen(msg), mac);
	hex(mac, 32, h);
	assert_string_equal(h, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

/* key = blake2b(b'secret', digest_size=32); proof = hmac.new(key, b'listener\0' +
 * bytes(range(32)) + bytes(range(32, 64)), sha256): Python 3.11's hashlib and hmac. */
static void proof_known_answer(void **state)
{
	(void)state;
	struct rp_auth_key k;
	char err[128], h[65];
	uint8_t a[RP_AUTH_NONCE_LEN], b[RP_AUTH_NONCE_LEN], p[RP_AUTH_PROOF_LEN], q[RP_AUTH_PROOF_LEN];
	assert_int_equal(rp_auth_key_from_text("secret", 6, &k, err, sizeof(err)), 0);
	for (int i = 0; i < 32; i++)
		a[i] = (uint8_t)i, b[i] = (uint8_t)(32 + i);
	rp_auth_proof(&k, "listener", a, b, p);
	hex(p, 32, h);
	assert_string_equal(h, "646bed246ce19ede1e20ea7f862d10d3a78eef4c49909cfbfea77f8bf218b066");
	assert_true(rp_auth_proof_ok(p, p));
	/* The role and the nonces' order are bound: neither proof answers for the other. */
	rp_auth_proof(&k, "connector", a, b, q);
	assert_false(rp_auth_proof_ok(p, q));
	rp_auth_proof(&k, "listener", b, a, q);
	assert_false(rp_auth_proof_ok(p, q));
	assert_int_equal(rp_auth_key_from_text("", 0, &k, err, sizeof(err)), -1);
	assert_string_equal(err, "the key is empty");
}

/* What a proof is about besides the nonces (ep's rdma_cm proof binds its QP's record): key as
 * above; hmac.new(key, b'cm listener\0' + bytes(range(32)) + bytes(range(32, 64)) +
 * bytes(range(64, 92)), sha256) in Python 3.11. With no context it is rp_auth_proof. */
static void proof_ctx_known_answer(void **state)
{
	(void)state;
	struct rp_auth_key k;
	char err[128], h[65];
	uint8_t a[RP_AUTH_NONCE_LEN], b[RP_AUTH_NONCE_LEN], ctx[28], p[RP_AUTH_PROOF_LEN], q[RP_AUTH_PROOF_LEN];
	assert_int_equal(rp_auth_key_from_text("secret", 6, &k, err, sizeof(err)), 0);
	for (int i = 0; i < 32; i++)
		a[i] = (uint8_t)i, b[i] = (uint8_t)(32 + i);
	for (int i = 0; i < 28; i++)
		ctx[i] = (uint8_t)(64 + i);
	rp_auth_proof_ctx(&k, "cm listener", a, b, ctx, sizeof(ctx), p);
	hex(p, 32, h);
	assert_string_equal(h, "f0228e60d32ff9a77f16dad9209602758a4ee30237f41caab5246f3bd0e6d210");
	ctx[27] ^= 1; /* one bit of the context: another proof */
	rp_auth_proof_ctx(&k, "cm listener", a, b, ctx, sizeof(ctx), q);
	assert_false(rp_auth_proof_ok(p, q));
	rp_auth_proof_ctx(&k, "listener", a, b, NULL, 0, q);
	hex(q, 32, h);
	assert_string_equal(h, "646bed246ce19ede1e20ea7f862d10d3a78eef4c49909cfbfea77f8bf218b066");
}

/* blake2b(b'a long passphrase', digest_size=32) in Python: the file's trailing newline dropped. */
static void key_file(void **state)
{
	(void)state;
	char path[] = "/tmp/rp-auth-XXXXXX", warn[256], err[256], h[65];
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "a long passphrase\n", 18), 18);
	close(fd);
	struct rp_auth_key k;
	assert_int_equal(chmod(path, 0600), 0);
	assert_int_equal(rp_auth_key_load(path, &k, warn, sizeof(warn), err, sizeof(err)), 0);
	assert_string_equal(warn, "");
	hex(k.k, 32, h);
	assert_string_equal(h, "b4c8d7ae2205b0ed738480649d2e1b4ae56dc48ab93278431ae1e11934286c69");
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(rp_auth_key_load(path, &k, warn, sizeof(warn), err, sizeof(err)), 0);
	assert_non_null(strstr(warn, "may be read by others (mode 644): chmod 600"));
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_int_equal(write(fd, "\n", 1), 1);
	close(fd);
	assert_int_equal(rp_auth_key_load(path, &k, warn, sizeof(warn), err, sizeof(err)), -1);
	assert_non_null(strstr(err, "is empty"));
	unlink(path);
	assert_int_equal(rp_auth_key_load(path, &k, warn, sizeof(warn), err, sizeof(err)), -1);
	assert_non_null(strstr(err, "No such file or directory"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hmac_rfc4231),
		cmocka_unit_test(proof_known_answer),
		cmocka_unit_test(proof_ctx_known_answer),
		cmocka_unit_test(key_file),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
