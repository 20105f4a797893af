/* ICMP fragmentation needed / ICMPv6 Packet Too Big, and the RoCE MTU for a path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check.h"

#include "wire/icmp.h"
#include "wire/wire_err.h"

/* A Linux router (10.1.0.1) to h1 (10.1.0.2): type 3 code 4, next-hop MTU
 * 1500 (0x05dc), quoting h1's IPv4 packet of 4156 B (0x103c: 20 + 8 UDP +
 * 12 BTH + 16 RETH + 4096 + 4 ICRC) to UDP port 4791 (0x12b7), DF set. */
static const uint8_t v4[] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x22, 0x27, 0x4d, 0xd7, 0xd2, 0xa6, 0x08, 0x00, /* Ethernet */
	0x45, 0xc0, 0x00, 0x38, 0x12, 0x34, 0x00, 0x00, 0x40, 0x01, 0x00, 0x00, /* IPv4, proto 1 */
	0x0a, 0x01, 0x00, 0x01, 0x0a, 0x01, 0x00, 0x02,
	0x03, 0x04, 0x00, 0x00, 0x00, 0x00, 0x05, 0xdc, /* ICMP 3/4, MTU 1500 */
	0x45, 0x68, 0x10, 0x3c, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, /* the quoted packet */
	0x0a, 0x01, 0x00, 0x02, 0x0a, 0x02, 0x00, 0x02,
	0xc0, 0x00, 0x12, 0xb7, 0x10, 0x28, 0x00, 0x00, /* its UDP header: dport 4791 */
};

/* A router to fd00:1::2 over a VLAN tag: ICMPv6 Packet Too Big, MTU 1280
 * (0x00000500), quoting an IPv6 packet of payload length 4136 (0x1028: 8 UDP
 * + 12 + 16 + 4096 + 4), i.e. 4176 B, to UDP port 4791. */
static const uint8_t v6[] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x22, 0x27, 0x4d, 0xd7, 0xd2, 0xa6, 0x81, 0x00, 0x00, 0x07,
	0x86, 0xdd, /* Ethernet + 802.1Q + IPv6 */
	0x60, 0x00, 0x00, 0x00, 0x00, 0x38, 0x3a, 0x40, /* payload 56, next header 58 */
	0xfd, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01,
	0xfd, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02,
	0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x00, /* type 2 code 0, MTU 1280 */
	0x60, 0x00, 0x00, 0x00, 0x10, 0x28, 0x11, 0x40, /* the quoted packet, UDP */
	0xfd, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02,
	0xfd, 0x00, 0x00, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02,
	0xc0, 0x00, 0x12, 0xb7, 0x10, 0x28, 0x00, 0x00,
};

static void test_v4(void **state)
{
	(void)state;
	struct rp_icmp_too_big t;
	assert_int_equal(rp_icmp_too_big_parse(v4, sizeof(v4), &t), RP_WIRE_OK);
	assert_int_equal(t.l3, 4);
	assert_int_equal(t.mtu, 1500);
	assert_int_equal(t.quoted_len, 4156);
	assert_int_equal(t.quoted_proto, 17);
	assert_int_equal(t.quoted_dport, 4791);
}

static void test_v6_vlan(void **state)
{
	(void)state;
	struct rp_icmp_too_big t;
	assert_int_equal(rp_icmp_too_big_parse(v6, sizeof(v6), &t), RP_WIRE_OK);
	assert_int_equal(t.l3, 6);
	assert_int_equal(t.mtu, 1280);
	assert_int_equal(t.quoted_len, 4176);
	assert_int_equal(t.quoted_proto, 17);
	assert_int_equal(t.quoted_dport, 4791);
}

/* Every prefix of both: never read past it (an exact heap copy), never OK
 * before the ICMP header is whole (14 + 20 + 8 = 42; 18 + 40 + 8 = 66), and
 * the quoted fields only once their bytes are there. */
static void test_prefixes(void **state)
{
	(void)state;
	for (size_t n = 0; n <= sizeof(v4); n++) {
		uint8_t *p = rp_test_dup_exact(v4, n);
		struct rp_icmp_too_big t;
		int rc = rp_icmp_too_big_parse(p, n, &t);
		assert_true(n >= 42 ? rc == RP_WIRE_OK : rc != RP_WIRE_OK);
		if (rc == RP_WIRE_OK) {
			assert_int_equal(t.mtu, 1500);
			assert_int_equal(t.quoted_len, n >= 42 + 20 ? 4156 : 0);
			assert_int_equal(t.quoted_dport, n >= 42 + 24 ? 4791 : 0);
		}
		free(p);
	}
	for (size_t n = 0; n <= sizeof(v6); n++) {
		uint8_t *p = rp_test_dup_exact(v6, n);
		struct rp_icmp_too_big t;
		int rc = rp_icmp_too_big_parse(p, n, &t);
		assert_true(n >= 66 ? rc == RP_WIRE_OK : rc != RP_WIRE_OK);
		if (rc == RP_WIRE_OK) {
			assert_int_equal(t.mtu, 1280);
			assert_int_equal(t.quoted_len, n >= 66 + 40 ? 4176 : 0);
		}
		free(p);
	}
}

/* Other ICMP and other frames are not Packet Too Big. */
static void test_others(void **state)
{
	(void)state;
	uint8_t f[sizeof(v4)];
	struct rp_icmp_too_big t;
	memcpy(f, v4, sizeof(f));
	f[35] = 3; /* port unreachable */
	assert_int_equal(rp_icmp_too_big_parse(f, sizeof(f), &t), -1);
	memcpy(f, v4, sizeof(f));
	f[34] = 8; /* echo request */
	f[35] = 0;
	assert_int_equal(rp_icmp_too_big_parse(f, sizeof(f), &t), -1);
	memcpy(f, v4, sizeof(f));
	f[23] = 17; /* UDP */
	assert_int_equal(rp_icmp_too_big_parse(f, sizeof(f), &t), -1);
	memcpy(f, v4, sizeof(f));
	f[20] = 0x00;
	f[21] = 0xb9; /* a later fragment (offset 185 x 8): no ICMP header of its own */
	assert_int_equal(rp_icmp_too_big_parse(f, sizeof(f), &t), -1);
	memcpy(f, v4, sizeof(f));
	f[12] = 0x08;
	f[13] = 0x06; /* ARP */
	assert_int_equal(rp_icmp_too_big_parse(f, sizeof(f), &t), -1);
	uint8_t g[sizeof(v6)];
	memcpy(g, v6, sizeof(g));
	g[58] = 1; /* ICMPv6 destination unreachable */
	assert_int_equal(rp_icmp_too_big_parse(g, sizeof(g), &t), -1);
	memcpy(g, v6, sizeof(g));
	g[58] = 135; /* neighbour solicitation */
	assert_int_equal(rp_icmp_too_big_parse(g, sizeof(g), &t), -1);
}

static void test_roce_mtu(void **state)
{
	(void)state;
	/* IPv4 WRITE ONLY at 4096: 4156 B, headers and ICRC 60 B. 1500: 60 + 1024 = 1084 fits,
	 * 60 + 2048 = 2108 does not. */
	assert_int_equal(rp_roce_mtu_for_path(1500, 4156, 4096), 1024);
	/* IPv6: 40 + 8 + 12 + 16 + 4 = 80; 1280: 80 + 1024 = 1104 fits. */
	assert_int_equal(rp_roce_mtu_for_path(1280, 4176, 4096), 1024);
	/* 2108 exactly takes 2048; one less does not. */
	assert_int_equal(rp_roce_mtu_for_path(2108, 4156, 4096), 2048);
	assert_int_equal(rp_roce_mtu_for_path(2107, 4156, 4096), 1024);
	assert_int_equal(rp_roce_mtu_for_path(9000, 4156, 4096), 4096);
	/* 60 + 256 = 316: the smallest that fits; 315 takes none. */
	assert_int_equal(rp_roce_mtu_for_path(316, 4156, 4096), 256);
	assert_int_equal(rp_roce_mtu_for_path(315, 4156, 4096), 0);
	/* A flow at mtu 1024 (1084 B) on a 576 B path: 60 + 512 = 572. */
	assert_int_equal(rp_roce_mtu_for_path(576, 1084, 1024), 512);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v4),      cmocka_unit_test(test_v6_vlan),  cmocka_unit_test(test_prefixes),
		cmocka_unit_test(test_others),  cmocka_unit_test(test_roce_mtu),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
