/* Ethernet/802.1Q header, MAC address text, and wire error strings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check.h"

#include "wire/eth.h"
#include "wire/wire_err.h"

/* dst 02:00:00:00:00:02, src 02:00:00:00:00:01, IPv4. */
static const uint8_t untagged[RP_ETH_HLEN] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x08, 0x00,
};

/* Same, tagged PCP 3, DEI 1, VID 0x123: TCI = 011 1 0001 0010 0011 = 0x7123. */
static const uint8_t tagged[RP_ETH_HLEN + RP_VLAN_HLEN] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x81, 0x00, 0x71, 0x23, 0x08, 0x00,
};

static const struct rp_eth tagged_hdr = {
	.dst = {0x02, 0, 0, 0, 0, 0x02},
	.src = {0x02, 0, 0, 0, 0, 0x01},
	.has_vlan = true,
	.pcp = 3,
	.dei = true,
	.vid = 0x123,
	.ethertype = RP_ETHERTYPE_IPV4,
};

static void test_build_untagged(void **state)
{
	struct rp_eth e = tagged_hdr;
	uint8_t buf[64];

	(void)state;
	e.has_vlan = false;
	assert_int_equal(rp_eth_hlen(&e), RP_ETH_HLEN);
	assert_int_equal(rp_eth_build(buf, sizeof(buf), &e), RP_ETH_HLEN);
	assert_memory_equal(buf, untagged, sizeof(untagged));
}

static void test_build_tagged(void **state)
{
	uint8_t buf[64];

	(void)state;
	assert_int_equal(rp_eth_hlen(&tagged_hdr), RP_ETH_HLEN + RP_VLAN_HLEN);
	assert_int_equal(rp_eth_build(buf, sizeof(buf), &tagged_hdr), sizeof(tagged));
	assert_memory_equal(buf, tagged, sizeof(tagged));
}

static void test_build_small_cap(void **state)
{
	struct rp_eth e = tagged_hdr;
	uint8_t buf[RP_ETH_HLEN + RP_VLAN_HLEN];

	(void)state;
	assert_int_equal(rp_eth_build(buf, RP_ETH_HLEN + RP_VLAN_HLEN - 1, &e), 0);
	assert_int_equal(rp_eth_build(buf, 0, &e), 0);
	e.has_vlan = false;
	assert_int_equal(rp_eth_build(buf, RP_ETH_HLEN - 1, &e), 0);
	assert_int_equal(rp_eth_build(buf, RP_ETH_HLEN, &e), RP_ETH_HLEN);
}

static void test_parse_untagged(void **state)
{
	struct rp_eth e;
	size_t hlen = 0;

	(void)state;
	memset(&e, 0xFF, sizeof(e));
	assert_int_equal(rp_eth_parse(untagged, sizeof(untagged), &e, &hlen), RP_WIRE_OK);
	assert_int_equal(hlen, RP_ETH_HLEN);
	assert_memory_equal(e.dst, tagged_hdr.dst, 6);
	assert_memory_equal(e.src, tagged_hdr.src, 6);
	assert_false(e.has_vlan);
	assert_int_equal(e.pcp, 0);
	assert_false(e.dei);
	assert_int_equal(e.vid, 0);
	assert_int_equal(e.ethertype, RP_ETHERTYPE_IPV4);
}

static void test_parse_tagged(void **state)
{
	struct rp_eth e;
	size_t hlen = 0;

	(void)state;
	assert_int_equal(rp_eth_parse(tagged, sizeof(tagged), &e, &hlen), RP_WIRE_OK);
	assert_int_equal(hlen, RP_ETH_HLEN + RP_VLAN_HLEN);
	assert_memory_equal(e.dst, tagged_hdr.dst, 6);
	assert_memory_equal(e.src, tagged_hdr.src, 6);
	assert_true(e.has_vlan);
	assert_int_equal(e.pcp, 3);
	assert_true(e.dei);
	assert_int_equal(e.vid, 0x123);
	assert_int_equal(e.ethertype, RP_ETHERTYPE_IPV4);
}

static void test_round_trip(void **state)
{
	static const uint16_t types[] = {RP_ETHERTYPE_IPV4, RP_ETHERTYPE_IPV6, RP_ETHERTYPE_MACCTL};
	uint8_t buf[64];

	(void)state;
	for (unsigned t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
		for (unsigned pcp = 0; pcp < 8; pcp++) {
			struct rp_eth in = tagged_hdr, out;
			size_t n, hlen;

			in.ethertype = types[t];
			in.pcp = (uint8_t)pcp;
			in.dei = pcp & 1;
			in.vid = (uint16_t)(pcp == 7 ? 4095 : pcp * 500);
			n = rp_eth_build(buf, sizeof(buf), &in);
			assert_int_equal(n, 18);
			assert_int_equal(rp_eth_parse(buf, n, &out, &hlen), RP_WIRE_OK);
			assert_int_equal(hlen, n);
			assert_memory_equal(out.dst, in.dst, 6);
			assert_memory_equal(out.src, in.src, 6);
			assert_true(out.has_vlan);
			assert_int_equal(out.pcp, in.pcp);
			assert_int_equal(out.dei, in.dei);
			assert_int_equal(out.vid, in.vid);
			assert_int_equal(out.ethertype, in.ethertype);
		}
	}
}

static void test_parse_truncated(void **state)
{
	struct rp_eth e;
	size_t hlen;

	(void)state;
	for (size_t n = 0; n < sizeof(untagged); n++) {
		uint8_t *p = rp_test_dup_exact(untagged, n);

		assert_int_equal(rp_eth_parse(p, n, &e, &hlen), RP_WIRE_ETRUNC);
		free(p);
	}
	for (size_t n = 0; n < sizeof(tagged); n++) {
		uint8_t *p = rp_test_dup_exact(tagged, n);

		assert_int_equal(rp_eth_parse(p, n, &e, &hlen), RP_WIRE_ETRUNC);
		free(p);
	}
}

static void test_mac_parse(void **state)
{
	static const uint8_t want[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
	static const uint8_t mixed[6] = {0xaa, 0xBB, 0x0c, 0xD0, 0xef, 0xFF};
	uint8_t mac[6];

	(void)state;
	assert_int_equal(rp_mac_parse("02:00:00:00:00:01", mac), RP_WIRE_OK);
	assert_memory_equal(mac, want, 6);
	assert_int_equal(rp_mac_parse("aa:BB:0c:D0:ef:FF", mac), RP_WIRE_OK);
	assert_memory_equal(mac, mixed, 6);
}

static void test_mac_parse_malformed(void **state)
{
	static const char *bad[] = {
		"", "02", "02:00:00:00:00", "02:00:00:00:00:01:", "02:00:00:00:00:01:02",
		"2:00:00:00:00:01", "02:00:00:00:00:1", "02-00-00-00-00-01", "0200.0000.0001",
		"02:00:00:00:00:0g", " 02:00:00:00:00:01", "02:00:00:00:00:01 ",
		"02:00:00:00:00:001", "020:00:00:00:00:01", "02::00:00:00:00:01",
	};
	uint8_t mac[6];

	(void)state;
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(mac, 0x5A, sizeof(mac));
		assert_int_equal(rp_mac_parse(bad[i], mac), RP_WIRE_EMALFORMED);
	}
}

static void test_mac_format(void **state)
{
	static const uint8_t mac[6] = {0xAA, 0xBB, 0x0C, 0xD0, 0xEF, 0x01};
	char s[18];
	uint8_t back[6];

	(void)state;
	memset(s, 'x', sizeof(s));
	rp_mac_format(mac, s);
	assert_string_equal(s, "aa:bb:0c:d0:ef:01");
	assert_int_equal(rp_mac_parse(s, back), RP_WIRE_OK);
	assert_memory_equal(back, mac, 6);
}

static void test_strerror(void **state)
{
	(void)state;
	assert_string_equal(rp_wire_strerror(RP_WIRE_OK), "ok");
	assert_string_equal(rp_wire_strerror(RP_WIRE_ETRUNC), "truncated");
	assert_string_equal(rp_wire_strerror(RP_WIRE_EMALFORMED), "malformed");
	assert_string_equal(rp_wire_strerror(RP_WIRE_ENOSPC), "no space");
	assert_non_null(rp_wire_strerror(-99));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_untagged),
		cmocka_unit_test(test_build_tagged),
		cmocka_unit_test(test_build_small_cap),
		cmocka_unit_test(test_parse_untagged),
		cmocka_unit_test(test_parse_tagged),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_parse_truncated),
		cmocka_unit_test(test_mac_parse),
		cmocka_unit_test(test_mac_parse_malformed),
		cmocka_unit_test(test_mac_format),
		cmocka_unit_test(test_strerror),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
