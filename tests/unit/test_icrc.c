/* RoCEv2 ICRC: known answers computed outside this code, the residue, which
 * bytes are covered and which are masked, and the incremental patches against
 * full recomputation on a million random packets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "wire/bth.h"
#include "wire/crc32.h"
#include "wire/icrc.h"

/* IPv4 (IHL 5, DSCP 26 ECN ECT(0), DF, TTL 64, 192.0.2.1 -> 192.0.2.2),
 * UDP 0xC123 -> 4791 checksum 0, BTH RC_RDMA_WRITE_ONLY (SE, PadCnt 1,
 * P_Key 0xFFFF, DestQP 0x11, AckReq, PSN 0x123456), RETH (VA 0x7f0011223344,
 * R_Key 0xabcd, length 27), a probe (flow 7, seq 0x102, ts 0x123456789), 3
 * more bytes and 1 pad byte. 84 bytes of ICRC region.
 *
 * Its ICRC, 0x0fb25809, was computed two independent ways: a python3 script
 * applying rxe's masks and zlib.crc32 over 8 x 0xFF + masked headers + rest,
 * and Debian's scapy 2.5 (scapy.contrib.roce BTH.compute_icrc) on the same
 * bytes, which put 09 58 b2 0f on the wire. */
static const uint8_t v4_pkt[] = {
	0x45, 0x6a, 0x00, 0x58, 0x12, 0x34, 0x40, 0x00, 0x40, 0x11, 0xa3, 0xf3,
	0xc0, 0x00, 0x02, 0x01, 0xc0, 0x00, 0x02, 0x02, 0xc1, 0x23, 0x12, 0xb7,
	0x00, 0x44, 0x00, 0x00, 0x0a, 0x90, 0xff, 0xff, 0x00, 0x00, 0x00, 0x11,
	0x80, 0x12, 0x34, 0x56, 0x00, 0x00, 0x7f, 0x00, 0x11, 0x22, 0x33, 0x44,
	0x00, 0x00, 0xab, 0xcd, 0x00, 0x00, 0x00, 0x1b, 0x52, 0x50, 0x52, 0x42,
	0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02,
	0x00, 0x00, 0x00, 0x01, 0x23, 0x45, 0x67, 0x89, 0xaa, 0xbb, 0xcc, 0x00,
};
#define V4_ICRC 0x0fb25809u
#define V4_PSN_OFF (20 + 8 + RP_BTH_PSN_OFFSET)

/* IPv6 (TC 0x68, flow label 0x12345, hop limit 64, 2001:db8::1 -> ::2),
 * UDP 0xD00D -> 4791 checksum 0xBEEF, BTH UD_SEND_ONLY (BECN set, DestQP 1,
 * PSN 42), DETH (Q_Key 0x80010000, SrcQP 0xC3), 8 payload bytes. ICRC by the
 * same python3 script (scapy 2.5 has no IPv6 ICRC): 0x87f92a63. */
static const uint8_t v6_pkt[] = {
	0x66, 0x81, 0x23, 0x45, 0x00, 0x28, 0x11, 0x40, 0x20, 0x01, 0x0d, 0xb8,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x02, 0xd0, 0x0d, 0x12, 0xb7, 0x00, 0x28, 0xbe, 0xef,
	0x64, 0x00, 0xff, 0xff, 0x40, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x2a,
	0x80, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc3, 0x30, 0x31, 0x32, 0x33,
	0x34, 0x35, 0x36, 0x37,
};
#define V6_ICRC 0x87f92a63u

/* v4_pkt with IHL 6 and the option NOP NOP NOP EOL after the address: the
 * masks move with the header length. Same python3 script: 0x43adbde2. */
#define V4_OPT_ICRC 0x43adbde2u

static void make_v4_with_option(uint8_t *out, size_t *len)
{
	static const uint8_t opt[4] = { 0x01, 0x01, 0x01, 0x00 };

	memcpy(out, v4_pkt, 20);
	out[0] = 0x46;
	out[3] = (uint8_t)(sizeof(v4_pkt) + 4); /* total length, low byte */
	memcpy(out + 20, opt, 4);
	memcpy(out + 24, v4_pkt + 20, sizeof(v4_pkt) - 20);
	*len = sizeof(v4_pkt) + 4;
}

static void test_known_answer_ipv4(void **state)
{
	uint8_t wire[4];

	(void)state;
	assert_int_equal(rp_icrc_compute(v4_pkt, sizeof(v4_pkt)), V4_ICRC);
	rp_icrc_store(wire, V4_ICRC);
	assert_int_equal(wire[0], 0x09);
	assert_int_equal(wire[1], 0x58);
	assert_int_equal(wire[2], 0xb2);
	assert_int_equal(wire[3], 0x0f);
	assert_int_equal(rp_icrc_load(wire), V4_ICRC);
}

static void test_known_answer_ipv6(void **state)
{
	(void)state;
	assert_int_equal(rp_icrc_compute(v6_pkt, sizeof(v6_pkt)), V6_ICRC);
}

static void test_known_answer_ipv4_options(void **state)
{
	uint8_t pkt[sizeof(v4_pkt) + 4];
	size_t len;

	(void)state;
	make_v4_with_option(pkt, &len);
	assert_int_equal(rp_icrc_compute(pkt, len), V4_OPT_ICRC);
	/* The UDP checksum now sits 4 bytes later and is still masked. */
	pkt[24 + 6] ^= 0x5A;
	assert_int_equal(rp_icrc_compute(pkt, len), V4_OPT_ICRC);
	/* The option bytes are covered. */
	pkt[21] ^= 0x01;
	assert_int_not_equal(rp_icrc_compute(pkt, len), V4_OPT_ICRC);
}

/* The residue the lab notes give: CRC-32 over 8 x 0xFF, the masked headers,
 * the rest and the ICRC bytes as sent. Masking here is the test's own. */
static void test_residue(void **state)
{
	uint8_t buf[8 + sizeof(v4_pkt) + 4];

	(void)state;
	memset(buf, 0xFF, 8);
	memcpy(buf + 8, v4_pkt, sizeof(v4_pkt));
	buf[8 + 1] = 0xFF;                       /* TOS */
	buf[8 + 8] = 0xFF;                       /* TTL */
	buf[8 + 10] = buf[8 + 11] = 0xFF;        /* IP checksum */
	buf[8 + 26] = buf[8 + 27] = 0xFF;        /* UDP checksum */
	buf[8 + 32] = 0xFF;                      /* BTH byte 4 */
	rp_icrc_store(buf + 8 + sizeof(v4_pkt), rp_icrc_compute(v4_pkt, sizeof(v4_pkt)));
	assert_int_equal(rp_crc32(0, buf, sizeof(buf)), RP_CRC32_RESIDUE);
}

static void test_verify(void **state)
{
	uint8_t pkt[sizeof(v6_pkt) + 4];

	(void)state;
	memcpy(pkt, v6_pkt, sizeof(v6_pkt));
	rp_icrc_store(pkt + sizeof(v6_pkt), V6_ICRC);
	assert_true(rp_icrc_verify(pkt, sizeof(pkt)));
	for (size_t i = 0; i < 4; i++) {
		pkt[sizeof(v6_pkt) + i] ^= 0x10;
		assert_false(rp_icrc_verify(pkt, sizeof(pkt)));
		pkt[sizeof(v6_pkt) + i] ^= 0x10;
	}
	pkt[sizeof(v6_pkt) - 1] ^= 0x01; /* last payload byte */
	assert_false(rp_icrc_verify(pkt, sizeof(pkt)));
	assert_false(rp_icrc_verify(pkt, 3));
	assert_false(rp_icrc_verify(pkt, 0));
}

static bool v4_masked(size_t i, unsigned bit)
{
	(void)bit;
	return i == 1 || i == 8 || i == 10 || i == 11 || i == 26 || i == 27 || i == 32;
}

static bool v6_masked(size_t i, unsigned bit)
{
	if (i == 0)
		return bit < 4; /* traffic class high nibble; the version is covered */
	return i == 1 || i == 2 || i == 3 || i == 7 || i == 46 || i == 47 || i == 52;
}

/* Every bit of a masked field may change in flight without touching the
 * ICRC; every other byte is covered. */
static void check_coverage(const uint8_t *ref, size_t len, uint32_t icrc, bool (*masked)(size_t, unsigned))
{
	uint8_t pkt[128];

	assert_true(len <= sizeof(pkt));
	memcpy(pkt, ref, len);
	for (size_t i = 0; i < len; i++) {
		for (unsigned bit = 0; bit < 8; bit++) {
			pkt[i] ^= (uint8_t)(1u << bit);
			if (masked(i, bit))
				assert_int_equal(rp_icrc_compute(pkt, len), icrc);
			else
				assert_int_not_equal(rp_icrc_compute(pkt, len), icrc);
			pkt[i] = ref[i];
		}
	}
}

static void test_masked_and_covered_ipv4(void **state)
{
	(void)state;
	check_coverage(v4_pkt, sizeof(v4_pkt), V4_ICRC, v4_masked);
}

static void test_masked_and_covered_ipv6(void **state)
{
	uint8_t pkt[sizeof(v6_pkt)];

	(void)state;
	check_coverage(v6_pkt, sizeof(v6_pkt), V6_ICRC, v6_masked);
	/* Every traffic class value in byte 0's low nibble. */
	memcpy(pkt, v6_pkt, sizeof(pkt));
	for (unsigned tc = 0; tc < 16; tc++) {
		pkt[0] = (uint8_t)(0x60 | tc);
		assert_int_equal(rp_icrc_compute(pkt, sizeof(pkt)), V6_ICRC);
	}
}

static void test_masked_fields_by_name(void **state)
{
	uint8_t pkt[sizeof(v4_pkt)];

	(void)state;
	memcpy(pkt, v4_pkt, sizeof(pkt));
	pkt[1] = (uint8_t)((46 << 2) | 3); /* DSCP 46, CE */
	pkt[8] = 1;                        /* TTL */
	pkt[26] = 0x12;                    /* UDP checksum */
	pkt[27] = 0x34;
	pkt[32] = 0xC0;                    /* FECN and BECN */
	assert_int_equal(rp_icrc_compute(pkt, sizeof(pkt)), V4_ICRC);
}

static void test_invalid_input(void **state)
{
	uint8_t pkt[sizeof(v4_pkt)];

	(void)state;
	memcpy(pkt, v4_pkt, sizeof(pkt));
	assert_int_equal(rp_icrc_compute(pkt, 0), 0);
	assert_int_equal(rp_icrc_compute(pkt, 20 + 8 + 11), 0); /* BTH cut short */
	assert_int_not_equal(rp_icrc_compute(pkt, 20 + 8 + 12), 0);
	assert_int_equal(rp_icrc_compute(v6_pkt, 40 + 8 + 11), 0);
	pkt[0] = 0x55; /* version 5 */
	assert_int_equal(rp_icrc_compute(pkt, sizeof(pkt)), 0);
	pkt[0] = 0x44; /* IHL below 5 */
	assert_int_equal(rp_icrc_compute(pkt, sizeof(pkt)), 0);
	pkt[0] = 0x4F; /* IHL 15: 60 + 8 + 12 = 80 header bytes still fit in 84 */
	assert_int_not_equal(rp_icrc_compute(pkt, sizeof(pkt)), 0);
	assert_int_equal(rp_icrc_compute(pkt, 79), 0);
}

static void test_patch_init_bounds(void **state)
{
	static struct rp_icrc_patch p;

	(void)state;
	assert_int_equal(rp_icrc_patch_init(&p, 10, 0, 100), -1);
	assert_int_equal(rp_icrc_patch_init(&p, 10, 9, 100), -1);
	assert_int_equal(rp_icrc_patch_init(&p, 93, 8, 100), -1);
	assert_int_equal(rp_icrc_patch_init(&p, 101, 1, 100), -1);
	assert_int_equal(rp_icrc_patch_init(&p, (size_t)-1, 2, 100), -1);
	assert_int_equal(rp_icrc_patch_init(&p, 92, 8, 100), 0); /* ends at the region's end */
	assert_int_equal(p.off, 92);
	assert_int_equal(p.len, 8);
	assert_int_equal(rp_icrc_patch_init(&p, 0, 1, 100), 0);
}

/* Every field position and width on the known packet, including the very
 * last bytes of the region (nothing behind them to shift past). */
static void test_patch_every_position(void **state)
{
	static struct rp_icrc_patch p;
	uint8_t pkt[sizeof(v4_pkt)], old[8], val[8];

	(void)state;
	for (size_t len = 1; len <= 8; len++) {
		for (size_t off = 40; off + len <= sizeof(v4_pkt); off++) {
			memcpy(pkt, v4_pkt, sizeof(pkt));
			assert_int_equal(rp_icrc_patch_init(&p, off, len, sizeof(pkt)), 0);
			memcpy(old, pkt + off, len);
			for (size_t i = 0; i < len; i++)
				val[i] = (uint8_t)(0xA5 ^ (off * 31 + i * 7));
			memcpy(pkt + off, val, len);
			assert_int_equal(rp_icrc_patch_apply(&p, V4_ICRC, old, val), rp_icrc_compute(pkt, sizeof(pkt)));
		}
	}
}

static void test_patch_psn_known(void **state)
{
	static struct rp_icrc_patch p;
	uint8_t pkt[sizeof(v4_pkt)];
	const uint8_t psn[3] = { 0xFE, 0xDC, 0xBA };
	uint32_t icrc;

	(void)state;
	memcpy(pkt, v4_pkt, sizeof(pkt));
	assert_int_equal(rp_icrc_patch_init(&p, V4_PSN_OFF, 3, sizeof(pkt)), 0);
	memcpy(pkt + V4_PSN_OFF, psn, 3);
	icrc = rp_icrc_patch_apply(&p, V4_ICRC, v4_pkt + V4_PSN_OFF, psn);
	assert_int_equal(icrc, rp_icrc_compute(pkt, sizeof(pkt)));
	/* Same bytes back: the original value. */
	assert_int_equal(rp_icrc_patch_apply(&p, icrc, psn, v4_pkt + V4_PSN_OFF), V4_ICRC);
	/* No change: no-op. */
	assert_int_equal(rp_icrc_patch_apply(&p, V4_ICRC, psn, psn), V4_ICRC);
}

/* ---- the randomized cross-check ------------------------------------------ */

#define RAND_PACKETS 1000000u
#define RAND_MAX_LEN 1500

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;

/* xorshift64*: fast, and a fixed seed makes a failure reproducible. */
static uint64_t rnd64(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1Dull;
}

struct layout_patches {
	struct rp_icrc_patch psn, seq, ts;
};

/* One set of patches per (IP version, region length): set up once, reused. */
static struct layout_patches *patch_cache[2][RAND_MAX_LEN + 1];

static const struct layout_patches *patches_for(int v6, size_t len, size_t psn_off, size_t seq_off, size_t ts_off)
{
	struct layout_patches *lp = patch_cache[v6][len];

	if (lp != NULL)
		return lp;
	lp = malloc(sizeof(*lp));
	assert_non_null(lp);
	assert_int_equal(rp_icrc_patch_init(&lp->psn, psn_off, 3, len), 0);
	assert_int_equal(rp_icrc_patch_init(&lp->seq, seq_off, 8, len), 0);
	assert_int_equal(rp_icrc_patch_init(&lp->ts, ts_off, 8, len), 0);
	patch_cache[v6][len] = lp;
	return lp;
}

static void put_random(uint8_t *dst, size_t n)
{
	uint64_t r = rnd64();

	for (size_t i = 0; i < n; i++, r >>= 8)
		dst[i] = (uint8_t)r;
}

static void test_patch_random_million(void **state)
{
	static uint8_t pkt[RAND_MAX_LEN];
	struct timespec t0, t1;

	(void)state;
	for (size_t i = 0; i < sizeof(pkt); i++)
		pkt[i] = (uint8_t)rnd64();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (uint32_t n = 0; n < RAND_PACKETS; n++) {
		int v6 = (int)(rnd64() & 1);
		size_t hlen = v6 ? 40 : 20;
		size_t payload_off = hlen + 8 + RP_BTH_LEN;
		size_t min_len = payload_off + 24; /* a probe: 64 bytes for IPv4 */
		size_t len = min_len + (size_t)(rnd64() % (RAND_MAX_LEN - min_len + 1));
		size_t psn_off = hlen + 8 + RP_BTH_PSN_OFFSET;
		size_t seq_off = payload_off + 8, ts_off = payload_off + 16;
		const struct layout_patches *lp;
		uint8_t old_psn[3], old_seq[8], old_ts[8];
		uint32_t icrc, full;

		pkt[0] = v6 ? (uint8_t)(0x60 | (pkt[0] & 0x0F)) : 0x45;
		/* New content somewhere in every packet, not just the patched fields. */
		pkt[1 + rnd64() % (len - 1)] = (uint8_t)rnd64();
		pkt[1 + rnd64() % (len - 1)] = (uint8_t)rnd64();
		icrc = rp_icrc_compute(pkt, len);
		lp = patches_for(v6, len, psn_off, seq_off, ts_off);

		memcpy(old_psn, pkt + psn_off, 3);
		memcpy(old_seq, pkt + seq_off, 8);
		memcpy(old_ts, pkt + ts_off, 8);
		put_random(pkt + psn_off, 3);
		put_random(pkt + seq_off, 8);
		put_random(pkt + ts_off, 8);
		icrc = rp_icrc_patch_apply(&lp->psn, icrc, old_psn, pkt + psn_off);
		icrc = rp_icrc_patch_apply(&lp->seq, icrc, old_seq, pkt + seq_off);
		icrc = rp_icrc_patch_apply(&lp->ts, icrc, old_ts, pkt + ts_off);
		full = rp_icrc_compute(pkt, len);
		if (icrc != full)
			fail_msg("packet %u (IPv%d, %zu bytes): incremental 0x%08x, full 0x%08x", n, v6 ? 6 : 4, len,
				 icrc, full);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("[ INFO     ] %u random packets in %.2f s\n", RAND_PACKETS,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	for (int v = 0; v < 2; v++)
		for (size_t l = 0; l <= RAND_MAX_LEN; l++)
			free(patch_cache[v][l]);
}

/* The integer-delta forms the generator stamps with agree with the byte form. */
static void test_patch_delta_forms(void **state)
{
	(void)state;
	static struct rp_icrc_patch p3, p8;
	assert_int_equal(rp_icrc_patch_init(&p3, 29, 3, 120), 0);
	assert_int_equal(rp_icrc_patch_init(&p8, 60, 8, 120), 0);
	uint64_t x = 0x9E3779B97F4A7C15ull;
	for (int i = 0; i < 100000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		uint8_t zero[8] = {0}, be[8];
		for (int k = 0; k < 8; k++)
			be[k] = (uint8_t)(x >> (56 - 8 * k));
		assert_int_equal(rp_icrc_patch_delta64(&p8, x), rp_icrc_patch_apply(&p8, 0, zero, be));
		assert_int_equal(rp_icrc_patch_delta(&p8, x), rp_icrc_patch_apply(&p8, 0, zero, be));
		uint32_t v = (uint32_t)x & 0xFFFFFF;
		assert_int_equal(rp_icrc_patch_delta24(&p3, v), rp_icrc_patch_apply(&p3, 0, zero, be + 5));
		assert_int_equal(rp_icrc_patch_delta(&p3, v), rp_icrc_patch_apply(&p3, 0, zero, be + 5));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_answer_ipv4),
		cmocka_unit_test(test_known_answer_ipv6),
		cmocka_unit_test(test_known_answer_ipv4_options),
		cmocka_unit_test(test_residue),
		cmocka_unit_test(test_verify),
		cmocka_unit_test(test_masked_and_covered_ipv4),
		cmocka_unit_test(test_masked_and_covered_ipv6),
		cmocka_unit_test(test_masked_fields_by_name),
		cmocka_unit_test(test_invalid_input),
		cmocka_unit_test(test_patch_init_bounds),
		cmocka_unit_test(test_patch_every_position),
		cmocka_unit_test(test_patch_psn_known),
		cmocka_unit_test(test_patch_random_million),
		cmocka_unit_test(test_patch_delta_forms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
