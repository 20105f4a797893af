/* CRC-32: known answers, every table entry against a bit-at-a-time reference,
 * chunking, alignment, linearity of the raw form and the residue. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "wire/crc32.h"

/* Bit-at-a-time definition, independent of the tables under test. */
static uint32_t ref_crc32_raw(uint32_t crc, const uint8_t *p, size_t len)
{
	while (len--) {
		crc ^= *p++;
		for (int i = 0; i < 8; i++)
			crc = (crc & 1) ? (crc >> 1) ^ 0xEDB88320u : crc >> 1;
	}
	return crc;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint8_t rnd8(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint8_t)(rng_state >> 24);
}

static void test_check_value(void **state)
{
	(void)state;
	assert_int_equal(rp_crc32(0, "123456789", 9), 0xCBF43926u);
	assert_int_equal(rp_crc32(0, "The quick brown fox jumps over the lazy dog", 43), 0x414FA339u);
	assert_int_equal(rp_crc32(0, "", 0), 0);
	assert_int_equal(rp_crc32_raw(0x12345678u, "", 0), 0x12345678u);
	/* 8 bytes of 0xFF: the masked LRH of RoCEv2 (rxe's raw seed 0xdebb20e3). */
	assert_int_equal(rp_crc32(0, "\xff\xff\xff\xff\xff\xff\xff\xff", 8), 0x2144DF1Cu);
	assert_int_equal(rp_crc32_raw(0xFFFFFFFFu, "\xff\xff\xff\xff\xff\xff\xff\xff", 8), 0xDEBB20E3u);
}

/* A block that is zero except byte j = v, fed raw from 0, yields exactly one
 * entry of the slicing table for that position; this reaches all 8 x 256. */
static void test_every_table_entry(void **state)
{
	uint8_t blk[8];

	(void)state;
	for (int j = 0; j < 8; j++) {
		for (int v = 0; v < 256; v++) {
			memset(blk, 0, sizeof(blk));
			blk[j] = (uint8_t)v;
			assert_int_equal(rp_crc32_raw(0, blk, 8), ref_crc32_raw(0, blk, 8));
		}
	}
}

static void test_matches_reference_any_length_and_alignment(void **state)
{
	uint8_t buf[600];

	(void)state;
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = rnd8();
	for (size_t off = 0; off < 8; off++) {
		for (size_t len = 0; len + off <= sizeof(buf); len += (len < 40 ? 1 : 37)) {
			uint32_t want = ~ref_crc32_raw(~0u, buf + off, len);

			assert_int_equal(rp_crc32(0, buf + off, len), want);
			assert_int_equal(rp_crc32_raw(0xA5A5A5A5u, buf + off, len),
					 ref_crc32_raw(0xA5A5A5A5u, buf + off, len));
		}
	}
}

static void test_running_form_resumes(void **state)
{
	uint8_t buf[200];
	uint32_t whole;

	(void)state;
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = rnd8();
	whole = rp_crc32(0, buf, sizeof(buf));
	for (size_t cut = 0; cut <= sizeof(buf); cut++) {
		uint32_t c = rp_crc32(0, buf, cut);

		assert_int_equal(rp_crc32(c, buf + cut, sizeof(buf) - cut), whole);
		c = rp_crc32_raw(0x1u, buf, cut);
		assert_int_equal(rp_crc32_raw(c, buf + cut, sizeof(buf) - cut), rp_crc32_raw(0x1u, buf, sizeof(buf)));
	}
}

static void test_raw_is_linear(void **state)
{
	uint8_t a[300], b[300], x[300];

	(void)state;
	for (size_t len = 0; len <= sizeof(a); len += 7) {
		for (size_t i = 0; i < len; i++) {
			a[i] = rnd8();
			b[i] = rnd8();
			x[i] = a[i] ^ b[i];
		}
		assert_int_equal(rp_crc32(0, a, len) ^ rp_crc32(0, b, len), rp_crc32_raw(0, x, len));
	}
}

static void test_residue(void **state)
{
	uint8_t buf[64 + 4];

	(void)state;
	for (size_t len = 0; len <= 64; len++) {
		uint32_t c;

		for (size_t i = 0; i < len; i++)
			buf[i] = rnd8();
		c = rp_crc32(0, buf, len);
		buf[len] = (uint8_t)c;
		buf[len + 1] = (uint8_t)(c >> 8);
		buf[len + 2] = (uint8_t)(c >> 16);
		buf[len + 3] = (uint8_t)(c >> 24);
		assert_int_equal(rp_crc32(0, buf, len + 4), RP_CRC32_RESIDUE);
	}
}

/* Every implementation the CPU offers (the 512-bit fold, the 256-bit one,
 * the 128-bit one, the tables) against the bit-at-a-time reference, every
 * length up to 4200 B (the 512-bit loop's 256-byte and 64-byte steps, the
 * 256-bit loop's 128-byte steps, the 64-byte steps, the 16-byte folds and
 * the table tail all end at each possible place), plain and with an OR
 * mask over the head. */
static void test_every_level_every_length(void **state)
{
	static uint8_t buf[4200 + 8], masked[4200 + 8];
	uint8_t mask[RP_CRC32_MASK_LEN];
	static const char *const levels[] = {"vpclmul512", "vpclmul", "clmul", "table"};

	(void)state;
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = rnd8();
	for (size_t i = 0; i < sizeof(mask); i++)
		mask[i] = (i % 3) ? 0 : rnd8();
	for (unsigned l = 0; l < 4; l++) {
		const char *got = rp_crc32_force(levels[l]);
		print_message("crc32 level %s (asked %s)\n", got, levels[l]);
		for (size_t len = 0; len + 3 <= sizeof(buf); len += len < 600 ? 1 : 13) {
			const uint8_t *p = buf + (len & 3);
			memcpy(masked, p, len);
			for (size_t i = 0; i < len && i < sizeof(mask); i++)
				masked[i] |= mask[i];
			assert_int_equal(rp_crc32_raw(0x5A5A5A5Au, p, len), ref_crc32_raw(0x5A5A5A5Au, p, len));
			assert_int_equal(rp_crc32_masked(0x1234u, p, len, mask), ~ref_crc32_raw(~0x1234u, masked, len));
		}
	}
	rp_crc32_force("vpclmul512");
}

/* Several buffers at once (rp_crc32_masked_n: pairs side by side, two
 * pairs interleaved, a lone one alone), each against the bit-at-a-time
 * reference, every length up to 4200 B, 1 to 5 buffers with masks on some,
 * at every level. */
static void test_n_every_length(void **state)
{
	static uint8_t b[5][4200 + 8], masked[5][4200];
	uint8_t masks[5][RP_CRC32_MASK_LEN];
	static const char *const levels[] = {"vpclmul512", "vpclmul", "clmul", "table"};

	(void)state;
	for (unsigned k = 0; k < 5; k++) {
		for (size_t i = 0; i < sizeof(b[k]); i++)
			b[k][i] = rnd8();
		for (size_t i = 0; i < RP_CRC32_MASK_LEN; i++)
			masks[k][i] = (i % (3 + k)) ? 0 : rnd8();
	}
	for (unsigned l = 0; l < 4; l++) {
		rp_crc32_force(levels[l]);
		for (size_t len = 0; len + 8 <= sizeof(b[0]); len += len < 600 ? 1 : 13) {
			for (unsigned n = 1; n <= 5; n++) {
				const void *buf[5];
				const uint8_t *mask[5];
				uint32_t out[5];
				for (unsigned k = 0; k < n; k++) {
					buf[k] = b[k] + ((len + k) & 7);
					mask[k] = (k + len) % 3 ? masks[k] : NULL;
					memcpy(masked[k], buf[k], len);
					for (size_t i = 0; mask[k] && i < len && i < RP_CRC32_MASK_LEN; i++)
						masked[k][i] |= mask[k][i];
				}
				rp_crc32_masked_n(0x1234u, buf, mask, n, len, out);
				for (unsigned k = 0; k < n; k++)
					assert_int_equal(out[k], ~ref_crc32_raw(~0x1234u, masked[k], len));
			}
		}
	}
	rp_crc32_force("vpclmul512");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_value),
		cmocka_unit_test(test_every_table_entry),
		cmocka_unit_test(test_matches_reference_any_length_and_alignment),
		cmocka_unit_test(test_running_form_resumes),
		cmocka_unit_test(test_raw_is_linear),
		cmocka_unit_test(test_residue),
		cmocka_unit_test(test_every_level_every_length),
		cmocka_unit_test(test_n_every_length),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
