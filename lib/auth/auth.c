/* Shared-key proofs (auth.h) over libsodium. */
#include "auth.h"

#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define KEY_FILE_MAX 4096 /* a key file is a secret, not a document */

int rp_auth_init(char *err, size_t errlen)
{
	if (sodium_init() < 0) {
		snprintf(err, errlen, "libsodium could not start (no entropy source?)");
		return -1;
	}
	return 0;
}

void rp_auth_key_draw(struct rp_auth_key *key)
{
	randombytes_buf(key->k, sizeof(key->k));
}

void rp_auth_nonce(uint8_t nonce[RP_AUTH_NONCE_LEN])
{
	randombytes_buf(nonce, RP_AUTH_NONCE_LEN);
}

int rp_auth_key_from_text(const void *text, size_t len, struct rp_auth_key *key, char *err, size_t errlen)
{
	if (!len) {
		snprintf(err, errlen, "the key is empty");
		return -1;
	}
	crypto_generichash(key->k, sizeof(key->k), text, len, NULL, 0);
	return 0;
}

int rp_auth_key_load(const char *path, struct rp_auth_key *key, char *warn, size_t warnlen, char *err,
		     size_t errlen)
{
	uint8_t buf[KEY_FILE_MAX + 1];
	struct stat st;
	warn[0] = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "key file %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) == 0 && (st.st_mode & (S_IRWXG | S_IRWXO)))
		snprintf(warn, warnlen, "key file %s may be read by others (mode %03o): chmod 600 %s", path,
			 (unsigned)(st.st_mode & 0777), path);
	size_t n = 0;
	for (ssize_t r; n < sizeof(buf) && (r = read(fd, buf + n, sizeof(buf) - n)) != 0; n += (size_t)r) {
		if (r < 0) {
			if (errno == EINTR) {
				r = 0;
				continue;
			}
			snprintf(err, errlen, "key file %s: %s", path, strerror(errno));
			close(fd);
			return -1;
		}
	}
	close(fd);
	if (n > KEY_FILE_MAX) {
		snprintf(err, errlen, "key file %s is over %d bytes: is it the right file?", path, KEY_FILE_MAX);
		sodium_memzero(buf, sizeof(buf));
		return -1;
	}
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		n--;
	int rc = rp_auth_key_from_text(buf, n, key, err, errlen);
	if (rc)
		snprintf(err, errlen, "key file %s is empty", path);
	sodium_memzero(buf, sizeof(buf));
	return rc;
}

void rp_auth_hmac_sha256(const uint8_t *key, size_t keylen, const uint8_t *msg, size_t len, uint8_t out[32])
{
	crypto_auth_hmacsha256_state st;
	crypto_auth_hmacsha256_init(&st, key, keylen);
	crypto_auth_hmacsha256_update(&st, msg, len);
	crypto_auth_hmacsha256_final(&st, out);
	sodium_memzero(&st, sizeof(st));
}

void rp_auth_proof_ctx(const struct rp_auth_key *key, const char *role, const uint8_t first[RP_AUTH_NONCE_LEN],
		       const uint8_t second[RP_AUTH_NONCE_LEN], const uint8_t *ctx, size_t ctxlen,
		       uint8_t out[RP_AUTH_PROOF_LEN])
{
	static const uint8_t zero;
	crypto_auth_hmacsha256_state st;
	crypto_auth_hmacsha256_init(&st, key->k, sizeof(key->k));
	crypto_auth_hmacsha256_update(&st, (const uint8_t *)role, strlen(role));
	crypto_auth_hmacsha256_update(&st, &zero, 1);
	crypto_auth_hmacsha256_update(&st, first, RP_AUTH_NONCE_LEN);
	crypto_auth_hmacsha256_update(&st, second, RP_AUTH_NONCE_LEN);
	if (ctxlen)
		crypto_auth_hmacsha256_update(&st, ctx, ctxlen);
	crypto_auth_hmacsha256_final(&st, out);
	sodium_memzero(&st, sizeof(st));
}

void rp_auth_proof(const struct rp_auth_key *key, const char *role, const uint8_t first[RP_AUTH_NONCE_LEN],
		   const uint8_t second[RP_AUTH_NONCE_LEN], uint8_t out[RP_AUTH_PROOF_LEN])
{
	rp_auth_proof_ctx(key, role, first, second, NULL, 0, out);
}

bool rp_auth_proof_ok(const uint8_t expected[RP_AUTH_PROOF_LEN], const uint8_t got[RP_AUTH_PROOF_LEN])
{
	return sodium_memcmp(expected, got, RP_AUTH_PROOF_LEN) == 0;
}
