/* libFuzzer harness (issue 33): the lines of ep's control exchange that a
 * stranger can send before it proved anything, and the QP records after.
 *   - every line of the input through the key proof's parser
 *     (rp_oob_auth_parse) and the RC and UD record decoders: no read past
 *     the line; whatever parses formats back to the same bytes;
 *   - the whole input as a connection's bytes to the server's admission
 *     (rp_oob_auth_accept over a socket pair), with and without a key (the
 *     first byte's low bit): it ends admitted or refused, never reads past
 *     what came, and admits a keyed connection never (its nonce is fresh). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "auth/auth.h"
#include "verbs/oob.h"
#include "verbs/oob_auth.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one_line(const char *line, size_t len)
{
	char *copy = malloc(len ? len : 1); /* exactly len bytes: ASan sees a read past it */
	if (!copy)
		abort();
	memcpy(copy, line, len);
	struct rp_oob_auth_msg m;
	if (rp_oob_auth_parse(copy, len, &m) == 0) {
		char out[RP_OOB_AUTH_LINE_MAX + 1];
		size_t n = rp_oob_auth_format(&m, out);
		size_t l = len && copy[len - 1] == '\n' ? len - 1 : len;
		if (n != l + 1 || memcmp(out, copy, l) != 0)
			abort();
	}
	struct rp_oob_rec r;
	if (rp_oob_rec_decode(copy, len, &r) == 0) {
		char out[RP_OOB_REC_LEN + 1];
		rp_oob_rec_encode(&r, out);
		/* hex digits may come in either case: compare case-blind */
		if (strncasecmp(out, copy, RP_OOB_REC_LEN - 1) != 0)
			abort();
	}
	if (rp_oob_ud_decode(copy, len, &r) == 0) {
		char out[RP_OOB_UD_LEN + 1];
		rp_oob_ud_encode(&r, out);
		if (strncasecmp(out, copy, RP_OOB_UD_LEN - 1) != 0)
			abort();
	}
	free(copy);
}

static void admission(const uint8_t *data, size_t size)
{
	static struct rp_auth_key key;
	static bool ready;
	char err[128];
	if (!ready) {
		if (rp_auth_init(err, sizeof(err)) || rp_auth_key_from_text("fuzz", 4, &key, err, sizeof(err)))
			abort();
		ready = true;
	}
	int sv[2];
	if (size > 16384 || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return;
	bool keyed = size && (data[0] & 1);
	if (size && write(sv[0], data, size) != (ssize_t)size)
		abort();
	shutdown(sv[0], SHUT_WR); /* then EOF: no wait on a timeout */
	char first[512], why[256];
	int rc = rp_oob_auth_accept(sv[1], keyed ? &key : NULL, NULL, 1000, first, sizeof(first), why, sizeof(why));
	if (rc == 0 && keyed)
		abort(); /* admitted without the key's proof over a nonce it never saw */
	if (rc == 0 && !keyed && memchr(data, '\n', size) == NULL)
		abort(); /* admitted on a line that never ended */
	close(sv[0]);
	close(sv[1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		one_line(p, len);
		one_line(p, nl ? len - 1 : len);
		p += len;
	}
	admission(data, size);
	return 0;
}
