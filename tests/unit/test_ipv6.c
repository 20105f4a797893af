/* IPv6 fixed header and address text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check.h"

#include "wire/ipv4.h" /* RP_ECN_*, RP_IPPROTO_UDP */
#include "wire/ipv6.h"
#include "wire/wire_err.h"

/* 2001:db8::1 -> 2001:db8::2, TC 0x6a (DSCP 26, ECT(0)), flow 0x12345,
 * payload 32, UDP, hop limit 64. */
static const uint8_t known[RP_IPV6_HLEN] = {
	0x66, 0xa1, 0x23, 0x45, 0x00, 0x20, 0x11, 0x40,
	0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01,
	0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02,
};

static const struct rp_ipv6 known_hdr = {
	.dscp = 26,
	.ecn = RP_ECN_ECT0,
	.flow_label = 0x12345,
	.payload_len = 32,
	.next_header = RP_IPPROTO_UDP,
	.hop_limit = 64,
	.src = {0x20, 0x01, 0x0d, 0xb8, [15] = 0x01},
	.dst = {0x20, 0x01, 0x0d, 0xb8, [15] = 0x02},
};

static void assert_ipv6_equal(const struct rp_ipv6 *a, const struct rp_ipv6 *b)
{
	assert_int_equal(a->dscp, b->dscp);
	assert_int_equal(a->ecn, b->ecn);
	assert_int_equal(a->flow_label, b->flow_label);
	assert_int_equal(a->payload_len, b->payload_len);
	assert_int_equal(a->next_header, b->next_header);
	assert_int_equal(a->hop_limit, b->hop_limit);
	assert_memory_equal(a->src, b->src, 16);
	assert_memory_equal(a->dst, b->dst, 16);
}

static void test_build_known(void **state)
{
	uint8_t buf[64];

	(void)state;
	memset(buf, 0xEE, sizeof(buf));
	assert_int_equal(rp_ipv6_build(buf, sizeof(buf), &known_hdr), RP_IPV6_HLEN);
	assert_memory_equal(buf, known, sizeof(known));
	assert_int_equal(buf[RP_IPV6_HLEN], 0xEE);
}

static void test_build_masks_flow_label(void **state)
{
	struct rp_ipv6 ip = known_hdr;
	uint8_t buf[RP_IPV6_HLEN];

	(void)state;
	ip.dscp = 0;
	ip.ecn = 0;
	ip.flow_label = 0xFFFFFFFF; /* bits above 20 must not reach the version */
	assert_int_equal(rp_ipv6_build(buf, sizeof(buf), &ip), RP_IPV6_HLEN);
	assert_int_equal(buf[0], 0x60);
	assert_int_equal(buf[1], 0x0F);
	assert_int_equal(buf[2], 0xFF);
	assert_int_equal(buf[3], 0xFF);
}

static void test_build_small_cap(void **state)
{
	uint8_t buf[RP_IPV6_HLEN];

	(void)state;
	assert_int_equal(rp_ipv6_build(buf, RP_IPV6_HLEN - 1, &known_hdr), 0);
	assert_int_equal(rp_ipv6_build(buf, 0, &known_hdr), 0);
}

static void test_parse_known(void **state)
{
	struct rp_ipv6 ip;

	(void)state;
	memset(&ip, 0xFF, sizeof(ip));
	assert_int_equal(rp_ipv6_parse(known, sizeof(known), &ip), RP_WIRE_OK);
	assert_ipv6_equal(&ip, &known_hdr);
}

static void test_round_trip(void **state)
{
	static const uint32_t flows[] = {0, 1, 0x12345, 0x80000, 0xFFFFF};
	uint8_t buf[RP_IPV6_HLEN];

	(void)state;
	for (unsigned dscp = 0; dscp < 64; dscp++) {
		for (unsigned ecn = 0; ecn < 4; ecn++) {
			struct rp_ipv6 in = known_hdr, out;

			in.dscp = (uint8_t)dscp;
			in.ecn = (uint8_t)ecn;
			in.flow_label = flows[(dscp + ecn) % 5];
			in.payload_len = (uint16_t)(dscp * 1000 + ecn);
			in.hop_limit = (uint8_t)(255 - dscp);
			in.src[15] = (uint8_t)dscp;
			in.dst[0] = (uint8_t)(0xfe + (ecn & 1));
			assert_int_equal(rp_ipv6_build(buf, sizeof(buf), &in), RP_IPV6_HLEN);
			assert_int_equal(rp_ipv6_parse(buf, sizeof(buf), &out), RP_WIRE_OK);
			assert_ipv6_equal(&out, &in);
		}
	}
}

static void test_parse_truncated(void **state)
{
	struct rp_ipv6 ip;

	(void)state;
	for (size_t n = 0; n < sizeof(known); n++) {
		uint8_t *p = rp_test_dup_exact(known, n);

		assert_int_equal(rp_ipv6_parse(p, n, &ip), RP_WIRE_ETRUNC);
		free(p);
	}
}

static void test_parse_malformed(void **state)
{
	uint8_t h[RP_IPV6_HLEN];
	struct rp_ipv6 ip;

	(void)state;
	memcpy(h, known, sizeof(h));
	h[0] = 0x46; /* version 4 */
	assert_int_equal(rp_ipv6_parse(h, sizeof(h), &ip), RP_WIRE_EMALFORMED);
	h[0] = 0x06; /* version 0 */
	assert_int_equal(rp_ipv6_parse(h, sizeof(h), &ip), RP_WIRE_EMALFORMED);
	h[0] = 0xF6;
	assert_int_equal(rp_ipv6_parse(h, sizeof(h), &ip), RP_WIRE_EMALFORMED);
}

static void test_addr_parse(void **state)
{
	static const uint8_t loop[16] = {[15] = 1};
	static const uint8_t zero[16] = {0};
	static const uint8_t mapped[16] = {[10] = 0xff, [11] = 0xff, 192, 0, 2, 1};
	uint8_t a[16];

	(void)state;
	assert_int_equal(rp_ipv6_addr_parse("2001:db8::1", a), RP_WIRE_OK);
	assert_memory_equal(a, known_hdr.src, 16);
	assert_int_equal(rp_ipv6_addr_parse("2001:0DB8:0:0:0:0:0:2", a), RP_WIRE_OK);
	assert_memory_equal(a, known_hdr.dst, 16);
	assert_int_equal(rp_ipv6_addr_parse("::1", a), RP_WIRE_OK);
	assert_memory_equal(a, loop, 16);
	assert_int_equal(rp_ipv6_addr_parse("::", a), RP_WIRE_OK);
	assert_memory_equal(a, zero, 16);
	assert_int_equal(rp_ipv6_addr_parse("::ffff:192.0.2.1", a), RP_WIRE_OK);
	assert_memory_equal(a, mapped, 16);
}

static void test_addr_parse_malformed(void **state)
{
	static const char *bad[] = {
		"", "1.2.3.4", "2001:db8:::1", "2001:db8::1::2", "gggg::1", "2001:db8::1 ",
		" ::1", "1:2:3:4:5:6:7:8:9", "12345::1", "2001:db8::1/64", ":",
	};
	uint8_t a[16];

	(void)state;
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(rp_ipv6_addr_parse(bad[i], a), RP_WIRE_EMALFORMED);
}

static void test_addr_format(void **state)
{
	static const uint8_t full[16] = {
		0xfe, 0x80, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc,
		0xde, 0xf0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	};
	char s[46];
	uint8_t back[16];

	(void)state;
	rp_ipv6_addr_format(known_hdr.src, s);
	assert_string_equal(s, "2001:db8::1");
	rp_ipv6_addr_format(full, s);
	assert_string_equal(s, "fe80:1234:5678:9abc:def0:ffff:ffff:ffff");
	assert_int_equal(rp_ipv6_addr_parse(s, back), RP_WIRE_OK);
	assert_memory_equal(back, full, 16);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_known),
		cmocka_unit_test(test_build_masks_flow_label),
		cmocka_unit_test(test_build_small_cap),
		cmocka_unit_test(test_parse_known),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_parse_truncated),
		cmocka_unit_test(test_parse_malformed),
		cmocka_unit_test(test_addr_parse),
		cmocka_unit_test(test_addr_parse_malformed),
		cmocka_unit_test(test_addr_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
