/* The probe payload: known bytes, round trip, truncation, foreign payloads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check.h"

#include "wire/probe.h"
#include "wire/wire_err.h"

static const uint8_t known[RP_PROBE_LEN] = {
	'R', 'P', 'R', 'B',                             /* magic 0x52505242 */
	0x00, 0x0A, 0x0B, 0x0C,                         /* flow_id */
	0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, /* seq */
	0x17, 0x6D, 0x1E, 0x2F, 0x3A, 0x4B, 0x5C, 0x6D, /* tx_ns */
};
static const struct rp_probe known_probe = {
	.flow_id = 0x000A0B0C, .seq = 0x0102030405060708ull, .tx_ns = 0x176D1E2F3A4B5C6Dull,
};

static void test_build_known(void **state)
{
	uint8_t buf[RP_PROBE_LEN + 1];

	(void)state;
	buf[RP_PROBE_LEN] = 0xEE;
	assert_int_equal(rp_probe_build(buf, sizeof(buf), &known_probe), RP_PROBE_LEN);
	assert_memory_equal(buf, known, RP_PROBE_LEN);
	assert_int_equal(buf[RP_PROBE_LEN], 0xEE);
	/* The stamping offsets point at the fields the builder wrote. */
	assert_memory_equal(buf + RP_PROBE_SEQ_OFFSET, known + 8, 8);
	assert_memory_equal(buf + RP_PROBE_TS_OFFSET, known + 16, 8);
}

static void test_parse_known(void **state)
{
	struct rp_probe p;

	(void)state;
	assert_int_equal(rp_probe_parse(known, sizeof(known), &p), RP_WIRE_OK);
	assert_int_equal(p.flow_id, known_probe.flow_id);
	assert_true(p.seq == known_probe.seq);
	assert_true(p.tx_ns == known_probe.tx_ns);
}

static void test_round_trip(void **state)
{
	uint8_t buf[RP_PROBE_LEN];
	struct rp_probe in, out;

	(void)state;
	for (uint64_t i = 0; i < 1000; i++) {
		in.flow_id = (uint32_t)(i * 2654435761u);
		in.seq = i * 0x9E3779B97F4A7C15ull;
		in.tx_ns = ~i * 0xC2B2AE3D27D4EB4Full;
		assert_int_equal(rp_probe_build(buf, sizeof(buf), &in), RP_PROBE_LEN);
		assert_int_equal(rp_probe_parse(buf, sizeof(buf), &out), RP_WIRE_OK);
		assert_int_equal(out.flow_id, in.flow_id);
		assert_true(out.seq == in.seq && out.tx_ns == in.tx_ns);
	}
}

static void test_truncated(void **state)
{
	uint8_t out[RP_PROBE_LEN];
	struct rp_probe p;

	(void)state;
	for (size_t len = 0; len < RP_PROBE_LEN; len++) {
		uint8_t *buf = rp_test_dup_exact(known, len);
		assert_int_equal(rp_probe_parse(buf, len, &p), RP_WIRE_ETRUNC);
		free(buf);
		assert_int_equal(rp_probe_build(out, len, &known_probe), 0);
	}
}

static void test_foreign_payload(void **state)
{
	uint8_t buf[RP_PROBE_LEN];
	struct rp_probe p = { .flow_id = 7, .seq = 8, .tx_ns = 9 };

	(void)state;
	for (int i = 0; i < 4; i++) {
		memcpy(buf, known, sizeof(buf));
		buf[i] ^= 0x01;
		assert_int_equal(rp_probe_parse(buf, sizeof(buf), &p), RP_WIRE_EMALFORMED);
		/* Not ours: nothing was written. */
		assert_int_equal(p.flow_id, 7);
		assert_true(p.seq == 8 && p.tx_ns == 9);
	}
	/* Longer buffers are fine: the probe is only the start of the payload. */
	{
		uint8_t big[100] = { 0 };

		memcpy(big, known, sizeof(known));
		assert_int_equal(rp_probe_parse(big, sizeof(big), &p), RP_WIRE_OK);
		assert_int_equal(p.flow_id, known_probe.flow_id);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_known),
		cmocka_unit_test(test_parse_known),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_foreign_payload),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
