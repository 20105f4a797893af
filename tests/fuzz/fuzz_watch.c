/* libFuzzer harness (issue 33): the watch's message reader and its join
 * (lib/cluster/watch_msg.c) must survive any bytes a peer can send. The
 * first two bytes set the rules (ranks 1..64; from rank 0 or a rank; the run
 * degraded or not); the next RP_WATCH_HELLO_LEN bytes are a hello checked
 * against a fixed secret and challenge; the rest is a stream of messages,
 * read until it ends or breaks a rule, each 'S' and 'V' applied to the dead
 * list. Every message read must hold what its type can hold. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/watch_msg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct stream {
	const uint8_t *p;
	size_t len, off;
};

static int rd(void *arg, void *buf, size_t len)
{
	struct stream *s = arg;
	if (len > s->len - s->off)
		return -1;
	memcpy(buf, s->p + s->off, len);
	s->off += len;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rp_auth_key key;
	static const uint8_t nonce_l[RP_AUTH_NONCE_LEN] = {1, 2, 3};
	static bool ready;
	char err[160];
	if (!ready) {
		if (rp_auth_init(err, sizeof(err)) != 0 || rp_auth_key_from_text("job", 3, &key, err, sizeof(err)) != 0)
			abort();
		ready = true;
	}
	if (size < 2)
		return 0;
	struct rp_watch_rules rules = {.size = 1 + data[0] % 64, .from_rank0 = data[1] & 1, .degraded = data[1] & 2};
	data += 2, size -= 2;
	if (size >= RP_WATCH_HELLO_LEN) {
		uint8_t answer[RP_AUTH_PROOF_LEN];
		uint32_t rank;
		if (rp_watch_hello_check(data, rules.size, &key, nonce_l, &rank, answer, err, sizeof(err)) == 0)
			abort(); /* a proof under a secret the input cannot know */
		data += RP_WATCH_HELLO_LEN, size -= RP_WATCH_HELLO_LEN;
	}
	struct stream s = {.p = data, .len = size};
	bool dead[64] = {false};
	struct rp_watch_msg *m;
	while (rp_watch_msg_read(rd, &s, &rules, &m, err, sizeof(err)) == 0) {
		uint32_t max;
		bool exact;
		if (rp_watch_msg_cap(m->type, &rules, &max, &exact) != 0 || m->len > max || (exact && m->len != max))
			abort();
		if (m->len)
			dead[0] |= m->data[m->len - 1] == 0xff; /* every byte of the body is there */
		rp_watch_dead_apply(m, dead, rules.size);
		free(m);
	}
	return 0;
}
