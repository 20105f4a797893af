/* UDP header. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check.h"

#include "wire/udp.h"
#include "wire/wire_err.h"

/* 49152 -> 4791 (RoCEv2), length 48, no checksum. */
static const uint8_t known[RP_UDP_HLEN] = {0xc0, 0x00, 0x12, 0xb7, 0x00, 0x30, 0x00, 0x00};

static const struct rp_udp known_hdr = {
	.sport = 49152, .dport = RP_ROCEV2_UDP_PORT, .len = 48, .checksum = 0,
};

static void test_build_known(void **state)
{
	uint8_t buf[16];

	(void)state;
	memset(buf, 0xEE, sizeof(buf));
	assert_int_equal(rp_udp_build(buf, sizeof(buf), &known_hdr), RP_UDP_HLEN);
	assert_memory_equal(buf, known, sizeof(known));
	assert_int_equal(buf[RP_UDP_HLEN], 0xEE);
}

static void test_build_small_cap(void **state)
{
	uint8_t buf[RP_UDP_HLEN];

	(void)state;
	assert_int_equal(rp_udp_build(buf, RP_UDP_HLEN - 1, &known_hdr), 0);
	assert_int_equal(rp_udp_build(buf, 0, &known_hdr), 0);
}

static void test_parse_known(void **state)
{
	struct rp_udp u;

	(void)state;
	memset(&u, 0xFF, sizeof(u));
	assert_int_equal(rp_udp_parse(known, sizeof(known), &u), RP_WIRE_OK);
	assert_int_equal(u.sport, 49152);
	assert_int_equal(u.dport, 4791);
	assert_int_equal(u.len, 48);
	assert_int_equal(u.checksum, 0);
}

static void test_round_trip(void **state)
{
	static const struct rp_udp cases[] = {
		{.sport = 0, .dport = 0, .len = 8, .checksum = 0},
		{.sport = 0xFFFF, .dport = 0xFFFF, .len = 0xFFFF, .checksum = 0xFFFF},
		{.sport = 0x1234, .dport = RP_ROCEV2_UDP_PORT, .len = 0x0102, .checksum = 0xA55A},
	};
	uint8_t buf[RP_UDP_HLEN];

	(void)state;
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rp_udp out;

		assert_int_equal(rp_udp_build(buf, sizeof(buf), &cases[i]), RP_UDP_HLEN);
		assert_int_equal(rp_udp_parse(buf, sizeof(buf), &out), RP_WIRE_OK);
		assert_int_equal(out.sport, cases[i].sport);
		assert_int_equal(out.dport, cases[i].dport);
		assert_int_equal(out.len, cases[i].len);
		assert_int_equal(out.checksum, cases[i].checksum);
	}
}

static void test_parse_truncated(void **state)
{
	struct rp_udp u;

	(void)state;
	for (size_t n = 0; n < sizeof(known); n++) {
		uint8_t *p = rp_test_dup_exact(known, n);

		assert_int_equal(rp_udp_parse(p, n, &u), RP_WIRE_ETRUNC);
		free(p);
	}
}

static void test_parse_malformed(void **state)
{
	uint8_t h[RP_UDP_HLEN];
	struct rp_udp u;

	(void)state;
	memcpy(h, known, sizeof(h));
	for (unsigned l = 0; l < RP_UDP_HLEN; l++) {
		h[5] = (uint8_t)l;
		assert_int_equal(rp_udp_parse(h, sizeof(h), &u), RP_WIRE_EMALFORMED);
	}
	h[5] = 8;
	assert_int_equal(rp_udp_parse(h, sizeof(h), &u), RP_WIRE_OK);
	assert_int_equal(u.len, 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_known),
		cmocka_unit_test(test_build_small_cap),
		cmocka_unit_test(test_parse_known),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_parse_truncated),
		cmocka_unit_test(test_parse_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
