/* lib/cluster/watch_msg.c without MPI or sockets: each message type's cap,
 * a body allocated as its bytes arrive (never from the length alone), the
 * dead-rank lists, and the join's proofs against Python's hmac/hashlib. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cluster/watch_msg.h"

static int setup(void **state)
{
	(void)state;
	char err[128];
	return rp_auth_init(err, sizeof(err));
}

static void hex(const uint8_t *b, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
}

/* What each type can hold, and where it may come from (4 ranks). */
static void caps(void **state)
{
	(void)state;
	const struct rp_watch_rules from_r = {.from_rank0 = false, .size = 4},
				    from_0 = {.from_rank0 = true, .size = 4},
				    degraded = {.from_rank0 = false, .size = 4, .degraded = true};
	uint32_t max;
	bool exact;
	for (const char *t = "TB"; *t; t++) {
		assert_int_equal(rp_watch_msg_cap((uint8_t)*t, &from_r, &max, &exact), 0);
		assert_int_equal(max, 0);
		assert_int_equal(rp_watch_msg_cap((uint8_t)*t, &from_0, &max, &exact), 0);
	}
	assert_int_equal(rp_watch_msg_cap('E', &from_r, &max, &exact), 0);
	assert_int_equal(rp_watch_msg_cap('E', &from_0, &max, &exact), -1);
	for (const char *t = "XSV"; *t; t++) /* rank 0's alone */
		assert_int_equal(rp_watch_msg_cap((uint8_t)*t, &from_r, &max, &exact), -1);
	assert_int_equal(rp_watch_msg_cap('S', &from_0, &max, &exact), 0);
	assert_true(max == 4 && exact); /* u8 dead[4] */
	assert_int_equal(rp_watch_msg_cap('V', &from_0, &max, &exact), 0);
	assert_true(max == 5 && exact); /* u8 degraded, u8 dead[4] */
	assert_int_equal(rp_watch_msg_cap('D', &from_r, &max, &exact), -1); /* not before a death */
	assert_int_equal(rp_watch_msg_cap('D', &degraded, &max, &exact), 0);
	assert_true(max == 2147483647u && !exact);
	assert_int_equal(rp_watch_msg_cap('Q', &from_0, &max, &exact), -1);
	assert_int_equal(rp_watch_msg_cap(0, &degraded, &max, &exact), -1);
}

static void headers(void **state)
{
	(void)state;
	const struct rp_watch_rules from_0 = {.from_rank0 = true, .size = 4},
				    degraded = {.from_rank0 = false, .size = 4, .degraded = true};
	uint8_t h[RP_WATCH_HDR_LEN], type;
	uint32_t len;
	char err[160];
	rp_watch_hdr_build(h, 'V', 5);
	assert_memory_equal(h, "V\x05\x00\x00\x00", 5); /* little-endian length */
	assert_int_equal(rp_watch_hdr_parse(h, &from_0, &type, &len, err, sizeof(err)), 0);
	assert_true(type == 'V' && len == 5);
	rp_watch_hdr_build(h, 'S', 3);
	assert_int_equal(rp_watch_hdr_parse(h, &from_0, &type, &len, err, sizeof(err)), -1);
	assert_string_equal(err, "message 'S' of 3 bytes (it holds 4)");
	rp_watch_hdr_build(h, 'T', 1);
	assert_int_equal(rp_watch_hdr_parse(h, &from_0, &type, &len, err, sizeof(err)), -1);
	/* The old reader took any length below 2^31 for any type, and allocated it. */
	rp_watch_hdr_build(h, 'B', 0x7fffffffu);
	assert_int_equal(rp_watch_hdr_parse(h, &from_0, &type, &len, err, sizeof(err)), -1);
	assert_string_equal(err, "message 'B' of 2147483647 bytes (it holds 0)");
	rp_watch_hdr_build(h, 'D', 0x80000000u);
	assert_int_equal(rp_watch_hdr_parse(h, &degraded, &type, &len, err, sizeof(err)), -1);
	assert_string_equal(err, "message 'D' of 2147483648 bytes (it holds at most 2147483647)");
	rp_watch_hdr_build(h, 'D', 8);
	assert_int_equal(rp_watch_hdr_parse(h, &from_0, &type, &len, err, sizeof(err)), -1);
	assert_string_equal(err, "message type 0x44 may not come from rank 0 before a rank died");
}

/* A stream of bytes, and the largest single read asked of it. */
struct stream {
	const uint8_t *p;
	size_t len, off, biggest, asked;
};

static int rd(void *arg, void *buf, size_t len)
{
	struct stream *s = arg;
	s->biggest = len > s->biggest ? len : s->biggest;
	s->asked += len;
	if (len > s->len - s->off)
		return -1;
	memcpy(buf, s->p + s->off, len);
	s->off += len;
	return 0;
}

static void reads(void **state)
{
	(void)state;
	const struct rp_watch_rules from_0 = {.from_rank0 = true, .size = 3},
				    degraded = {.from_rank0 = false, .size = 3, .degraded = true};
	struct rp_watch_msg *m;
	char err[160];
	/* 'V' (degraded, rank 2 dead) then 'B', then the end. */
	static const uint8_t two[] = {'V', 4, 0, 0, 0, 1, 0, 0, 1, 'B', 0, 0, 0, 0};
	struct stream s = {.p = two, .len = sizeof(two)};
	bool dead[3] = {false, false, false};
	assert_int_equal(rp_watch_msg_read(rd, &s, &from_0, &m, err, sizeof(err)), 0);
	assert_true(m->type == 'V' && m->len == 4);
	assert_true(rp_watch_dead_apply(m, dead, 3));
	assert_true(!dead[0] && !dead[1] && dead[2]);
	free(m);
	assert_int_equal(rp_watch_msg_read(rd, &s, &from_0, &m, err, sizeof(err)), 0);
	assert_true(m->type == 'B' && m->len == 0);
	assert_false(rp_watch_dead_apply(m, dead, 3));
	free(m);
	assert_int_equal(rp_watch_msg_read(rd, &s, &from_0, &m, err, sizeof(err)), -1);
	assert_string_equal(err, ""); /* the stream's end: a peer gone, not a broken rule */
	assert_null(m);

	/* A 'D' that claims 1 GiB and brings 200 000 bytes: memory follows the
	 * bytes; reads of 65536, 65536, 131072 (the buffer doubling) ask for
	 * 262144 bytes in all, never the 1 GiB the header claimed. */
	size_t n = RP_WATCH_HDR_LEN + 200000;
	uint8_t *big = calloc(1, n);
	rp_watch_hdr_build(big, 'D', 1u << 30);
	s = (struct stream){.p = big, .len = n};
	assert_int_equal(rp_watch_msg_read(rd, &s, &degraded, &m, err, sizeof(err)), -1);
	assert_null(m);
	assert_int_equal(s.biggest, 131072);
	assert_int_equal(s.asked, RP_WATCH_HDR_LEN + 65536 + 65536 + 131072);
	/* The same 200 000 bytes as a whole message: 65536 + 65536 + 68928. */
	rp_watch_hdr_build(big, 'D', 200000);
	big[n - 1] = 0xab;
	s = (struct stream){.p = big, .len = n};
	assert_int_equal(rp_watch_msg_read(rd, &s, &degraded, &m, err, sizeof(err)), 0);
	assert_true(m->len == 200000 && m->data[199999] == 0xab);
	assert_int_equal(s.biggest, 68928);
	free(m);
	free(big);
	/* A rule broken: nothing read past the header. */
	static const uint8_t bad[] = {'S', 9, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1};
	s = (struct stream){.p = bad, .len = sizeof(bad)};
	assert_int_equal(rp_watch_msg_read(rd, &s, &from_0, &m, err, sizeof(err)), -1);
	assert_string_equal(err, "message 'S' of 9 bytes (it holds 3)");
	assert_int_equal(s.off, RP_WATCH_HDR_LEN);
}

/* key = blake2b(b'secret', digest_size=32); nonce_l = bytes(range(32)),
 * nonce_c = bytes(range(100, 132)); with Python 3.11's hmac/hashlib:
 *   hmac(key, b"watch rank 1 connector\0" + nonce_l + nonce_c, sha256) = 338179...18e37
 *   hmac(key, b"watch rank 1 listener\0" + nonce_c + nonce_l, sha256) = ce3971...b1b27 */
static void join_known_answer(void **state)
{
	(void)state;
	struct rp_auth_key key, other;
	uint8_t nl[RP_AUTH_NONCE_LEN], hello[RP_WATCH_HELLO_LEN], answer[RP_AUTH_PROOF_LEN];
	char err[160], h[65];
	uint32_t rank = 99;
	assert_int_equal(rp_auth_key_from_text("secret", 6, &key, err, sizeof(err)), 0);
	for (int i = 0; i < 32; i++)
		nl[i] = (uint8_t)i, hello[4 + i] = (uint8_t)(100 + i);
	memcpy(hello, "\x01\x00\x00\x00", 4);
	static const uint8_t proof_c[32] = {0x33, 0x81, 0x79, 0x22, 0x69, 0x04, 0xb7, 0xed, 0x6b, 0x21, 0x22,
					    0xe9, 0x2f, 0x76, 0xf6, 0x18, 0xfb, 0xfc, 0xc9, 0xec, 0xfd, 0x8a,
					    0x50, 0xee, 0xae, 0x42, 0x37, 0xd4, 0x21, 0xa1, 0x8e, 0x37};
	memcpy(hello + 36, proof_c, 32);
	assert_int_equal(rp_watch_hello_check(hello, 4, &key, nl, &rank, answer, err, sizeof(err)), 0);
	assert_int_equal(rank, 1);
	hex(answer, 32, h);
	assert_string_equal(h, "ce3971d85a72d8e975f8e74bacdb6070ae5abeb6609d9454ddbe5ef8f39b1b27");
	assert_true(rp_watch_answer_ok(answer, 1, &key, hello, nl));
	/* The rank is bound: rank 1's proof does not let a connection join as rank 2. */
	hello[0] = 2;
	assert_int_equal(rp_watch_hello_check(hello, 4, &key, nl, &rank, answer, err, sizeof(err)), -1);
	assert_string_equal(err, "rank 2's proof of the job's secret is wrong");
	hello[0] = 4;
	assert_int_equal(rp_watch_hello_check(hello, 4, &key, nl, &rank, answer, err, sizeof(err)), -1);
	assert_string_equal(err, "rank 4 is not one of ranks 1..3");
	hello[0] = 0;
	assert_int_equal(rp_watch_hello_check(hello, 4, &key, nl, &rank, answer, err, sizeof(err)), -1);

	/* A hello built here joins; with another key (a stranger's guess), or
	 * answering another challenge (a replay), it does not. */
	rp_watch_hello_build(hello, 3, &key, nl);
	assert_int_equal(rp_watch_hello_check(hello, 4, &key, nl, &rank, answer, err, sizeof(err)), 0);
	assert_int_equal(rank, 3);
	assert_true(rp_watch_answer_ok(answer, 3, &key, hello, nl));
	assert_false(rp_watch_answer_ok(answer, 2, &key, hello, nl));
	rp_auth_key_draw(&other);
	assert_false(rp_watch_answer_ok(answer, 3, &other, hello, nl));
	nl[0] ^= 1;
	assert_int_equal(rp_watch_hello_check(hello, 4, &key, nl, &rank, answer, err, sizeof(err)), -1);
	nl[0] ^= 1;
	rp_watch_hello_build(hello, 3, &other, nl);
	assert_int_equal(rp_watch_hello_check(hello, 4, &key, nl, &rank, answer, err, sizeof(err)), -1);
	assert_string_equal(err, "rank 3's proof of the job's secret is wrong");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(caps),
		cmocka_unit_test(headers),
		cmocka_unit_test(reads),
		cmocka_unit_test(join_known_answer),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
