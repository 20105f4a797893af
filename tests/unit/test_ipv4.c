/* IPv4 header, RFC 1071 checksum and dotted-quad text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check.h"

#include "wire/ipv4.h"
#include "wire/wire_err.h"

/* The classic example: 192.168.0.1 -> 192.168.0.199, UDP, DF, TTL 64, len 115. */
static const uint8_t known[RP_IPV4_HLEN] = {
	0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
	0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
};

static const struct rp_ipv4 known_hdr = {
	.dscp = 0,
	.ecn = RP_ECN_NOT_ECT,
	.total_len = 0x73,
	.id = 0,
	.df = true,
	.ttl = 64,
	.proto = RP_IPPROTO_UDP,
	.src = 0xC0A80001,
	.dst = 0xC0A800C7,
};

static void test_checksum_known(void **state)
{
	uint8_t h[RP_IPV4_HLEN];

	(void)state;
	memcpy(h, known, sizeof(h));
	h[10] = h[11] = 0;
	assert_int_equal(rp_ipv4_checksum(h, sizeof(h)), 0xb861);
	assert_int_equal(rp_ipv4_checksum(known, sizeof(known)), 0);
}

static void test_checksum_rfc1071_example(void **state)
{
	/* RFC 1071 section 3: these words sum to 0xddf2. */
	static const uint8_t words[] = {0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};
	/* An odd trailing byte counts as the high byte of a zero-padded word. */
	static const uint8_t odd[] = {0x12, 0x34, 0x56};

	(void)state;
	assert_int_equal(rp_ipv4_checksum(words, sizeof(words)), 0x220d);
	assert_int_equal(rp_ipv4_checksum(odd, sizeof(odd)), (uint16_t)~(0x1234 + 0x5600));
	assert_int_equal(rp_ipv4_checksum(odd, 0), 0xFFFF);
}

static void test_build_known(void **state)
{
	uint8_t buf[64];
	struct rp_ipv4 ip = known_hdr;

	(void)state;
	ip.checksum = 0x1234; /* ignored by the builder */
	memset(buf, 0xEE, sizeof(buf));
	assert_int_equal(rp_ipv4_build(buf, sizeof(buf), &ip), RP_IPV4_HLEN);
	assert_memory_equal(buf, known, sizeof(known));
	assert_int_equal(buf[RP_IPV4_HLEN], 0xEE);
}

static void test_build_tos_and_flags(void **state)
{
	/* TOS 0x6a = DSCP 26 (AF31) << 2 | ECT(0); checksum worked by hand. */
	static const uint8_t want[RP_IPV4_HLEN] = {
		0x45, 0x6a, 0x04, 0x00, 0xbe, 0xef, 0x00, 0x00, 0x01, 0x11,
		0x09, 0x60, 0xc0, 0x00, 0x02, 0x01, 0xc6, 0x33, 0x64, 0xff,
	};
	struct rp_ipv4 ip = {
		.dscp = 26, .ecn = RP_ECN_ECT0, .total_len = 1024, .id = 0xbeef, .df = false,
		.ttl = 1, .proto = RP_IPPROTO_UDP, .src = 0xC0000201, .dst = 0xC63364FF,
	};
	uint8_t buf[RP_IPV4_HLEN];

	(void)state;
	assert_int_equal(rp_ipv4_build(buf, sizeof(buf), &ip), RP_IPV4_HLEN);
	assert_memory_equal(buf, want, sizeof(want));
}

static void test_build_small_cap(void **state)
{
	uint8_t buf[RP_IPV4_HLEN];

	(void)state;
	assert_int_equal(rp_ipv4_build(buf, RP_IPV4_HLEN - 1, &known_hdr), 0);
	assert_int_equal(rp_ipv4_build(buf, 0, &known_hdr), 0);
}

static void test_parse_known(void **state)
{
	struct rp_ipv4 ip;

	(void)state;
	memset(&ip, 0xFF, sizeof(ip));
	assert_int_equal(rp_ipv4_parse(known, sizeof(known), &ip), RP_WIRE_OK);
	assert_int_equal(ip.dscp, 0);
	assert_int_equal(ip.ecn, RP_ECN_NOT_ECT);
	assert_int_equal(ip.total_len, 115);
	assert_int_equal(ip.id, 0);
	assert_true(ip.df);
	assert_int_equal(ip.ttl, 64);
	assert_int_equal(ip.proto, RP_IPPROTO_UDP);
	assert_int_equal(ip.checksum, 0xb861);
	assert_int_equal(ip.src, 0xC0A80001);
	assert_int_equal(ip.dst, 0xC0A800C7);
	assert_int_equal(ip.hlen, 20);
	assert_true(ip.checksum_ok);
}

static void test_parse_bad_checksum(void **state)
{
	uint8_t h[RP_IPV4_HLEN];
	struct rp_ipv4 ip;

	(void)state;
	memcpy(h, known, sizeof(h));
	h[11] ^= 1;
	assert_int_equal(rp_ipv4_parse(h, sizeof(h), &ip), RP_WIRE_OK);
	assert_false(ip.checksum_ok);
	assert_int_equal(ip.checksum, 0xb860);
}

static void test_round_trip(void **state)
{
	uint8_t buf[RP_IPV4_HLEN];

	(void)state;
	for (unsigned dscp = 0; dscp < 64; dscp++) {
		for (unsigned ecn = 0; ecn < 4; ecn++) {
			struct rp_ipv4 in = {
				.dscp = (uint8_t)dscp, .ecn = (uint8_t)ecn,
				.total_len = (uint16_t)(20 + dscp * 100), .id = (uint16_t)(dscp * 1000 + ecn),
				.df = ecn & 1, .ttl = (uint8_t)(255 - dscp), .proto = RP_IPPROTO_UDP,
				.src = 0x0A000001 + dscp, .dst = 0xFFFFFFFF - ecn,
			};
			struct rp_ipv4 out;

			assert_int_equal(rp_ipv4_build(buf, sizeof(buf), &in), RP_IPV4_HLEN);
			assert_int_equal(rp_ipv4_parse(buf, sizeof(buf), &out), RP_WIRE_OK);
			assert_int_equal(out.dscp, in.dscp);
			assert_int_equal(out.ecn, in.ecn);
			assert_int_equal(out.total_len, in.total_len);
			assert_int_equal(out.id, in.id);
			assert_int_equal(out.df, in.df);
			assert_int_equal(out.ttl, in.ttl);
			assert_int_equal(out.proto, in.proto);
			assert_int_equal(out.src, in.src);
			assert_int_equal(out.dst, in.dst);
			assert_int_equal(out.hlen, RP_IPV4_HLEN);
			assert_true(out.checksum_ok);
		}
	}
}

static void test_parse_truncated(void **state)
{
	struct rp_ipv4 ip;

	(void)state;
	for (size_t n = 0; n < sizeof(known); n++) {
		uint8_t *p = rp_test_dup_exact(known, n);

		assert_int_equal(rp_ipv4_parse(p, n, &ip), RP_WIRE_ETRUNC);
		free(p);
	}
}

static void test_parse_options(void **state)
{
	/* IHL 6: one 4-byte option (four NOPs); the option bytes are checksummed. */
	uint8_t h[24];
	struct rp_ipv4 ip;
	uint16_t c;

	(void)state;
	memcpy(h, known, RP_IPV4_HLEN);
	memset(h + RP_IPV4_HLEN, 0x01, 4);
	h[0] = 0x46;
	h[10] = h[11] = 0;
	c = rp_ipv4_checksum(h, sizeof(h));
	h[10] = (uint8_t)(c >> 8);
	h[11] = (uint8_t)c;
	for (size_t n = 0; n < sizeof(h); n++) {
		uint8_t *p = rp_test_dup_exact(h, n);

		assert_int_equal(rp_ipv4_parse(p, n, &ip), RP_WIRE_ETRUNC);
		free(p);
	}
	assert_int_equal(rp_ipv4_parse(h, sizeof(h), &ip), RP_WIRE_OK);
	assert_int_equal(ip.hlen, 24);
	assert_true(ip.checksum_ok);
	assert_int_equal(ip.src, 0xC0A80001);
	assert_int_equal(ip.dst, 0xC0A800C7);
}

static void test_parse_malformed(void **state)
{
	uint8_t h[RP_IPV4_HLEN];
	struct rp_ipv4 ip;

	(void)state;
	memcpy(h, known, sizeof(h));
	h[0] = 0x65; /* version 6 */
	assert_int_equal(rp_ipv4_parse(h, sizeof(h), &ip), RP_WIRE_EMALFORMED);
	h[0] = 0x44; /* IHL 4 */
	assert_int_equal(rp_ipv4_parse(h, sizeof(h), &ip), RP_WIRE_EMALFORMED);
	h[0] = 0x40; /* IHL 0 */
	assert_int_equal(rp_ipv4_parse(h, sizeof(h), &ip), RP_WIRE_EMALFORMED);
	h[0] = 0x45;
	h[2] = 0x00;
	h[3] = 19; /* total_len below the header */
	assert_int_equal(rp_ipv4_parse(h, sizeof(h), &ip), RP_WIRE_EMALFORMED);
	h[3] = 20; /* a header with no payload is fine */
	assert_int_equal(rp_ipv4_parse(h, sizeof(h), &ip), RP_WIRE_OK);
	assert_int_equal(ip.total_len, 20);
}

static void test_parse_total_len_below_options(void **state)
{
	uint8_t h[24];
	struct rp_ipv4 ip;

	(void)state;
	memcpy(h, known, RP_IPV4_HLEN);
	memset(h + RP_IPV4_HLEN, 0x01, 4);
	h[0] = 0x46;
	h[2] = 0;
	h[3] = 23;
	assert_int_equal(rp_ipv4_parse(h, sizeof(h), &ip), RP_WIRE_EMALFORMED);
}

static void test_addr_parse(void **state)
{
	uint32_t a = 0;

	(void)state;
	assert_int_equal(rp_ipv4_addr_parse("192.168.0.1", &a), RP_WIRE_OK);
	assert_int_equal(a, 0xC0A80001);
	assert_int_equal(rp_ipv4_addr_parse("192.0.2.1", &a), RP_WIRE_OK);
	assert_int_equal(a, 0xC0000201);
	assert_int_equal(rp_ipv4_addr_parse("0.0.0.0", &a), RP_WIRE_OK);
	assert_int_equal(a, 0);
	assert_int_equal(rp_ipv4_addr_parse("255.255.255.255", &a), RP_WIRE_OK);
	assert_int_equal(a, 0xFFFFFFFF);
}

static void test_addr_parse_malformed(void **state)
{
	static const char *bad[] = {
		"", "1.2.3", "1.2.3.4.5", "256.0.0.1", "1.2.3.4x", " 1.2.3.4", "1.2.3.4 ",
		"1..2.3", "0x1.2.3.4", "1.2.3.-4", "1.2.3.4/24", "::1", "1.2.3.1000", "a.b.c.d",
	};
	uint32_t a = 0x5A5A5A5A;

	(void)state;
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(rp_ipv4_addr_parse(bad[i], &a), RP_WIRE_EMALFORMED);
	assert_int_equal(a, 0x5A5A5A5A);
}

static void test_addr_format(void **state)
{
	char s[16];
	uint32_t back;

	(void)state;
	rp_ipv4_addr_format(0xC0A800C7, s);
	assert_string_equal(s, "192.168.0.199");
	rp_ipv4_addr_format(0xFFFFFFFF, s);
	assert_string_equal(s, "255.255.255.255");
	rp_ipv4_addr_format(0, s);
	assert_string_equal(s, "0.0.0.0");
	rp_ipv4_addr_format(0x0A000102, s);
	assert_int_equal(rp_ipv4_addr_parse(s, &back), RP_WIRE_OK);
	assert_int_equal(back, 0x0A000102);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checksum_known),
		cmocka_unit_test(test_checksum_rfc1071_example),
		cmocka_unit_test(test_build_known),
		cmocka_unit_test(test_build_tos_and_flags),
		cmocka_unit_test(test_build_small_cap),
		cmocka_unit_test(test_parse_known),
		cmocka_unit_test(test_parse_bad_checksum),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_parse_truncated),
		cmocka_unit_test(test_parse_options),
		cmocka_unit_test(test_parse_malformed),
		cmocka_unit_test(test_parse_total_len_below_options),
		cmocka_unit_test(test_addr_parse),
		cmocka_unit_test(test_addr_parse_malformed),
		cmocka_unit_test(test_addr_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
