/* Extended transport headers: hand-assembled bytes both ways, round trips,
 * truncation at every length, short builder buffers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check.h"

#include "wire/ext.h"
#include "wire/wire_err.h"

static const uint8_t reth_bytes[RP_RETH_LEN] = {
	0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF, /* VA */
	0xDE, 0xAD, 0xBE, 0xEF,                         /* R_Key */
	0x00, 0x01, 0x00, 0x02,                         /* DMA length */
};
static const struct rp_reth reth_hdr = { .va = 0x0123456789ABCDEFull, .rkey = 0xDEADBEEF, .dma_len = 0x00010002 };

static void test_reth(void **state)
{
	uint8_t buf[RP_RETH_LEN];
	struct rp_reth h;

	(void)state;
	assert_int_equal(rp_reth_build(buf, sizeof(buf), &reth_hdr), RP_RETH_LEN);
	assert_memory_equal(buf, reth_bytes, RP_RETH_LEN);
	memset(&h, 0, sizeof(h));
	assert_int_equal(rp_reth_parse(reth_bytes, sizeof(reth_bytes), &h), RP_WIRE_OK);
	assert_true(h.va == reth_hdr.va);
	assert_int_equal(h.rkey, reth_hdr.rkey);
	assert_int_equal(h.dma_len, reth_hdr.dma_len);
	for (size_t len = 0; len < RP_RETH_LEN; len++) {
		uint8_t *p = rp_test_dup_exact(reth_bytes, len);

		assert_int_equal(rp_reth_parse(p, len, &h), RP_WIRE_ETRUNC);
		assert_int_equal(rp_reth_build(buf, len, &reth_hdr), 0);
		free(p);
	}
}

static const uint8_t aeth_bytes[RP_AETH_LEN] = { 0x61, 0xAB, 0xCD, 0xEF };

static void test_aeth(void **state)
{
	struct rp_aeth in = { .syndrome = 0x61, .msn = 0xABCDEF }, h;
	uint8_t buf[RP_AETH_LEN];

	(void)state;
	assert_int_equal(rp_aeth_build(buf, sizeof(buf), &in), RP_AETH_LEN);
	assert_memory_equal(buf, aeth_bytes, RP_AETH_LEN);
	assert_int_equal(rp_aeth_parse(aeth_bytes, sizeof(aeth_bytes), &h), RP_WIRE_OK);
	assert_int_equal(h.syndrome, 0x61);
	assert_int_equal(h.msn, 0xABCDEF);
	/* 0x61 = 011 00001: NAK, invalid request. */
	assert_int_equal(rp_aeth_kind(h.syndrome), RP_AETH_NAK);
	assert_int_equal(rp_aeth_value(h.syndrome), RP_NAK_INVALID_REQ);
	assert_int_equal(rp_aeth_syndrome(RP_AETH_NAK, RP_NAK_INVALID_REQ), 0x61);
	assert_int_equal(rp_aeth_syndrome(RP_AETH_ACK, 0x1F), 0x1F);
	assert_int_equal(rp_aeth_syndrome(RP_AETH_RNR_NAK, 0x0E), 0x2E);
	/* MSN is 24 bits: wider values lose their top byte. */
	in.msn = 0xFF000001u;
	assert_int_equal(rp_aeth_build(buf, sizeof(buf), &in), RP_AETH_LEN);
	assert_int_equal(rp_aeth_parse(buf, sizeof(buf), &h), RP_WIRE_OK);
	assert_int_equal(h.msn, 1);
	for (size_t len = 0; len < RP_AETH_LEN; len++) {
		uint8_t *p = rp_test_dup_exact(aeth_bytes, len);

		assert_int_equal(rp_aeth_parse(p, len, &h), RP_WIRE_ETRUNC);
		assert_int_equal(rp_aeth_build(buf, len, &in), 0);
		free(p);
	}
}

static const uint8_t deth_bytes[RP_DETH_LEN] = { 0x80, 0x01, 0x00, 0x00, 0x00, 0x12, 0x34, 0x56 };

static void test_deth(void **state)
{
	struct rp_deth in = { .qkey = 0x80010000, .src_qp = 0x123456 }, h;
	uint8_t buf[RP_DETH_LEN], odd[RP_DETH_LEN];

	(void)state;
	memset(buf, 0xEE, sizeof(buf));
	assert_int_equal(rp_deth_build(buf, sizeof(buf), &in), RP_DETH_LEN);
	assert_memory_equal(buf, deth_bytes, RP_DETH_LEN); /* reserved byte zeroed */
	assert_int_equal(rp_deth_parse(deth_bytes, sizeof(deth_bytes), &h), RP_WIRE_OK);
	assert_int_equal(h.qkey, 0x80010000);
	assert_int_equal(h.src_qp, 0x123456);
	memcpy(odd, deth_bytes, sizeof(odd));
	odd[4] = 0xFF; /* reserved: ignored */
	assert_int_equal(rp_deth_parse(odd, sizeof(odd), &h), RP_WIRE_OK);
	assert_int_equal(h.src_qp, 0x123456);
	for (size_t len = 0; len < RP_DETH_LEN; len++) {
		uint8_t *p = rp_test_dup_exact(deth_bytes, len);

		assert_int_equal(rp_deth_parse(p, len, &h), RP_WIRE_ETRUNC);
		assert_int_equal(rp_deth_build(buf, len, &in), 0);
		free(p);
	}
}

static const uint8_t atomic_bytes[RP_ATOMIC_ETH_LEN] = {
	0x00, 0x00, 0x7F, 0xFF, 0x12, 0x34, 0x50, 0x00, /* VA */
	0x00, 0xC0, 0xFF, 0xEE,                         /* R_Key */
	0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, /* Swap/Add */
	0xF0, 0xE1, 0xD2, 0xC3, 0xB4, 0xA5, 0x96, 0x87, /* Compare */
};

static void test_atomic_eth(void **state)
{
	struct rp_atomic_eth in = {
		.va = 0x00007FFF12345000ull, .rkey = 0x00C0FFEE,
		.swap_add = 0x1122334455667788ull, .compare = 0xF0E1D2C3B4A59687ull,
	};
	struct rp_atomic_eth h;
	uint8_t buf[RP_ATOMIC_ETH_LEN];

	(void)state;
	assert_int_equal(rp_atomic_eth_build(buf, sizeof(buf), &in), RP_ATOMIC_ETH_LEN);
	assert_memory_equal(buf, atomic_bytes, RP_ATOMIC_ETH_LEN);
	assert_int_equal(rp_atomic_eth_parse(atomic_bytes, sizeof(atomic_bytes), &h), RP_WIRE_OK);
	assert_true(h.va == in.va);
	assert_int_equal(h.rkey, in.rkey);
	assert_true(h.swap_add == in.swap_add);
	assert_true(h.compare == in.compare);
	for (size_t len = 0; len < RP_ATOMIC_ETH_LEN; len++) {
		uint8_t *p = rp_test_dup_exact(atomic_bytes, len);

		assert_int_equal(rp_atomic_eth_parse(p, len, &h), RP_WIRE_ETRUNC);
		assert_int_equal(rp_atomic_eth_build(buf, len, &in), 0);
		free(p);
	}
}

static void test_be32_be64(void **state)
{
	static const uint8_t b32[4] = { 0xCA, 0xFE, 0xBA, 0xBE };
	static const uint8_t b64[8] = { 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01 };
	uint8_t buf[8];
	uint32_t v32;
	uint64_t v64;

	(void)state;
	assert_int_equal(rp_be32_build(buf, sizeof(buf), 0xCAFEBABE), 4);
	assert_memory_equal(buf, b32, 4);
	assert_int_equal(rp_be32_parse(b32, 4, &v32), RP_WIRE_OK);
	assert_int_equal(v32, 0xCAFEBABE);
	assert_int_equal(rp_be64_build(buf, sizeof(buf), 0x8000000000000001ull), 8);
	assert_memory_equal(buf, b64, 8);
	assert_int_equal(rp_be64_parse(b64, 8, &v64), RP_WIRE_OK);
	assert_true(v64 == 0x8000000000000001ull);
	for (size_t len = 0; len < 8; len++) {
		uint8_t *p = rp_test_dup_exact(b64, len);

		if (len < 4) {
			assert_int_equal(rp_be32_parse(p, len, &v32), RP_WIRE_ETRUNC);
			assert_int_equal(rp_be32_build(buf, len, 1), 0);
		}
		assert_int_equal(rp_be64_parse(p, len, &v64), RP_WIRE_ETRUNC);
		assert_int_equal(rp_be64_build(buf, len, 1), 0);
		free(p);
	}
}

static uint64_t rng = 0x0123456789ABCDEFull;

static uint64_t rnd64(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void test_round_trips(void **state)
{
	uint8_t buf[RP_ATOMIC_ETH_LEN];

	(void)state;
	for (int i = 0; i < 2000; i++) {
		struct rp_reth r = { rnd64(), (uint32_t)rnd64(), (uint32_t)rnd64() }, r2;
		struct rp_aeth a = { (uint8_t)rnd64(), (uint32_t)rnd64() & 0xFFFFFF }, a2;
		struct rp_deth d = { (uint32_t)rnd64(), (uint32_t)rnd64() & 0xFFFFFF }, d2;
		struct rp_atomic_eth x = { rnd64(), (uint32_t)rnd64(), rnd64(), rnd64() }, x2;
		uint32_t v32 = (uint32_t)rnd64(), w32;
		uint64_t v64 = rnd64(), w64;

		assert_int_equal(rp_reth_build(buf, sizeof(buf), &r), RP_RETH_LEN);
		assert_int_equal(rp_reth_parse(buf, RP_RETH_LEN, &r2), RP_WIRE_OK);
		assert_true(r.va == r2.va && r.rkey == r2.rkey && r.dma_len == r2.dma_len);
		assert_int_equal(rp_aeth_build(buf, sizeof(buf), &a), RP_AETH_LEN);
		assert_int_equal(rp_aeth_parse(buf, RP_AETH_LEN, &a2), RP_WIRE_OK);
		assert_true(a.syndrome == a2.syndrome && a.msn == a2.msn);
		assert_int_equal(rp_deth_build(buf, sizeof(buf), &d), RP_DETH_LEN);
		assert_int_equal(rp_deth_parse(buf, RP_DETH_LEN, &d2), RP_WIRE_OK);
		assert_true(d.qkey == d2.qkey && d.src_qp == d2.src_qp);
		assert_int_equal(rp_atomic_eth_build(buf, sizeof(buf), &x), RP_ATOMIC_ETH_LEN);
		assert_int_equal(rp_atomic_eth_parse(buf, RP_ATOMIC_ETH_LEN, &x2), RP_WIRE_OK);
		assert_true(x.va == x2.va && x.rkey == x2.rkey && x.swap_add == x2.swap_add && x.compare == x2.compare);
		assert_int_equal(rp_be32_build(buf, sizeof(buf), v32), 4);
		assert_int_equal(rp_be32_parse(buf, 4, &w32), RP_WIRE_OK);
		assert_int_equal(v32, w32);
		assert_int_equal(rp_be64_build(buf, sizeof(buf), v64), 8);
		assert_int_equal(rp_be64_parse(buf, 8, &w64), RP_WIRE_OK);
		assert_true(v64 == w64);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reth),
		cmocka_unit_test(test_aeth),
		cmocka_unit_test(test_deth),
		cmocka_unit_test(test_atomic_eth),
		cmocka_unit_test(test_be32_be64),
		cmocka_unit_test(test_round_trips),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
