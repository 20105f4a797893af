/* 802.1Qbb PFC and 802.3x PAUSE frames, and quanta -> time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check.h"

#include "wire/eth.h"
#include "wire/pfc.h"
#include "wire/wire_err.h"

static const uint8_t src_mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};

/* PFC from 02:00:00:00:00:01 pausing priorities 0, 3 and 7. */
static const uint8_t known_pfc[RP_MACCTL_FRAME_LEN] = {
	0x01, 0x80, 0xc2, 0x00, 0x00, 0x01, /* dst */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01, /* src */
	0x88, 0x08,                         /* MAC control */
	0x01, 0x01,                         /* opcode PFC */
	0x00, 0x89,                         /* class-enable vector: 0, 3, 7 */
	0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, /* quanta 0..3 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x12, 0x34, /* quanta 4..7 */
	/* 26 bytes of zero pad */
};
static const uint16_t known_quanta[RP_PFC_PRIOS] = {1, 0, 0, 0xFFFF, 0, 0, 0, 0x1234};

/* PAUSE from 02:00:00:00:00:01 for 0xffff quanta. */
static const uint8_t known_pause[RP_MACCTL_FRAME_LEN] = {
	0x01, 0x80, 0xc2, 0x00, 0x00, 0x01,
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x88, 0x08,
	0x00, 0x01, /* opcode PAUSE */
	0xff, 0xff, /* quanta */
};

static void test_macctl_dst(void **state)
{
	static const uint8_t want[6] = {0x01, 0x80, 0xC2, 0x00, 0x00, 0x01};

	(void)state;
	assert_memory_equal(rp_macctl_dst, want, 6);
}

static void test_pfc_build_known(void **state)
{
	uint8_t buf[RP_MACCTL_FRAME_LEN + 4];

	(void)state;
	memset(buf, 0xAA, sizeof(buf)); /* the pad must be written, not left over */
	assert_int_equal(rp_pfc_frame_build(buf, sizeof(buf), src_mac, 0x89, known_quanta),
			 RP_MACCTL_FRAME_LEN);
	assert_memory_equal(buf, known_pfc, RP_MACCTL_FRAME_LEN);
	assert_int_equal(buf[RP_MACCTL_FRAME_LEN], 0xAA);
}

static void test_pause_build_known(void **state)
{
	uint8_t buf[RP_MACCTL_FRAME_LEN + 4];

	(void)state;
	memset(buf, 0xAA, sizeof(buf));
	assert_int_equal(rp_pause_frame_build(buf, sizeof(buf), src_mac, 0xFFFF),
			 RP_MACCTL_FRAME_LEN);
	assert_memory_equal(buf, known_pause, RP_MACCTL_FRAME_LEN);
	assert_int_equal(buf[RP_MACCTL_FRAME_LEN], 0xAA);
}

static void test_build_small_cap(void **state)
{
	uint8_t buf[RP_MACCTL_FRAME_LEN];

	(void)state;
	memset(buf, 0xAA, sizeof(buf));
	assert_int_equal(rp_pfc_frame_build(buf, RP_MACCTL_FRAME_LEN - 1, src_mac, 0xFF,
					    known_quanta), 0);
	assert_int_equal(rp_pause_frame_build(buf, RP_MACCTL_FRAME_LEN - 1, src_mac, 1), 0);
	assert_int_equal(rp_pfc_frame_build(buf, 0, src_mac, 0xFF, known_quanta), 0);
	assert_int_equal(rp_pause_frame_build(buf, 0, src_mac, 1), 0);
	for (size_t i = 0; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0xAA);
}

static void test_parse_known_pfc(void **state)
{
	struct rp_macctl m;

	(void)state;
	memset(&m, 0xFF, sizeof(m));
	assert_int_equal(rp_macctl_parse(known_pfc + RP_ETH_HLEN,
					 RP_MACCTL_FRAME_LEN - RP_ETH_HLEN, &m), RP_WIRE_OK);
	assert_int_equal(m.opcode, RP_MACCTL_OP_PFC);
	assert_int_equal(m.enable, 0x89);
	for (int p = 0; p < RP_PFC_PRIOS; p++)
		assert_int_equal(m.quanta[p], known_quanta[p]);
}

static void test_parse_known_pause(void **state)
{
	struct rp_macctl m;

	(void)state;
	memset(&m, 0xFF, sizeof(m));
	assert_int_equal(rp_macctl_parse(known_pause + RP_ETH_HLEN,
					 RP_MACCTL_FRAME_LEN - RP_ETH_HLEN, &m), RP_WIRE_OK);
	assert_int_equal(m.opcode, RP_MACCTL_OP_PAUSE);
	assert_int_equal(m.quanta[0], 0xFFFF);
	assert_int_equal(m.enable, 0);
	for (int p = 1; p < RP_PFC_PRIOS; p++)
		assert_int_equal(m.quanta[p], 0);
}

/* Build -> rp_eth_parse -> rp_macctl_parse, as the RX classifier sees it. */
static void test_pfc_round_trip(void **state)
{
	uint8_t buf[RP_MACCTL_FRAME_LEN];

	(void)state;
	for (unsigned en = 0; en < 256; en++) {
		uint16_t q[RP_PFC_PRIOS];
		struct rp_eth e;
		struct rp_macctl m;
		size_t hlen;

		for (int p = 0; p < RP_PFC_PRIOS; p++)
			q[p] = (uint16_t)(en * 257 + (unsigned)p * 0x1111);
		assert_int_equal(rp_pfc_frame_build(buf, sizeof(buf), src_mac, (uint8_t)en, q),
				 RP_MACCTL_FRAME_LEN);
		assert_int_equal(rp_eth_parse(buf, sizeof(buf), &e, &hlen), RP_WIRE_OK);
		assert_int_equal(hlen, RP_ETH_HLEN);
		assert_int_equal(e.ethertype, RP_ETHERTYPE_MACCTL);
		assert_memory_equal(e.dst, rp_macctl_dst, 6);
		assert_memory_equal(e.src, src_mac, 6);
		assert_int_equal(rp_macctl_parse(buf + hlen, sizeof(buf) - hlen, &m), RP_WIRE_OK);
		assert_int_equal(m.opcode, RP_MACCTL_OP_PFC);
		assert_int_equal(m.enable, en);
		assert_memory_equal(m.quanta, q, sizeof(q));
	}
}

static void test_pause_round_trip(void **state)
{
	static const uint16_t qs[] = {0, 1, 0x00FF, 0xFF00, 0xFFFF};
	uint8_t buf[RP_MACCTL_FRAME_LEN];

	(void)state;
	for (unsigned i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		struct rp_eth e;
		struct rp_macctl m;
		size_t hlen;

		assert_int_equal(rp_pause_frame_build(buf, sizeof(buf), src_mac, qs[i]),
				 RP_MACCTL_FRAME_LEN);
		assert_int_equal(rp_eth_parse(buf, sizeof(buf), &e, &hlen), RP_WIRE_OK);
		assert_int_equal(e.ethertype, RP_ETHERTYPE_MACCTL);
		assert_int_equal(rp_macctl_parse(buf + hlen, sizeof(buf) - hlen, &m), RP_WIRE_OK);
		assert_int_equal(m.opcode, RP_MACCTL_OP_PAUSE);
		assert_int_equal(m.quanta[0], qs[i]);
	}
}

static void test_parse_truncated(void **state)
{
	/* PFC needs opcode + vector + 8 quanta; PAUSE opcode + quanta. */
	const size_t pfc_need = 2 + 2 + 2 * RP_PFC_PRIOS, pause_need = 4;
	struct rp_macctl m;

	(void)state;
	for (size_t n = 0; n < pfc_need; n++) {
		uint8_t *p = rp_test_dup_exact(known_pfc + RP_ETH_HLEN, n);

		assert_int_equal(rp_macctl_parse(p, n, &m), RP_WIRE_ETRUNC);
		free(p);
	}
	for (size_t n = 0; n < pause_need; n++) {
		uint8_t *p = rp_test_dup_exact(known_pause + RP_ETH_HLEN, n);

		assert_int_equal(rp_macctl_parse(p, n, &m), RP_WIRE_ETRUNC);
		free(p);
	}
	/* Exactly enough, on the heap, parses. */
	{
		uint8_t *p = rp_test_dup_exact(known_pfc + RP_ETH_HLEN, pfc_need);

		assert_int_equal(rp_macctl_parse(p, pfc_need, &m), RP_WIRE_OK);
		assert_int_equal(m.quanta[7], 0x1234);
		free(p);
		p = rp_test_dup_exact(known_pause + RP_ETH_HLEN, pause_need);
		assert_int_equal(rp_macctl_parse(p, pause_need, &m), RP_WIRE_OK);
		assert_int_equal(m.quanta[0], 0xFFFF);
		free(p);
	}
}

static void test_parse_other_opcode(void **state)
{
	static const uint8_t gate[2] = {0x00, 0x02}; /* 802.3 GATE (EPON), just an opcode */
	struct rp_macctl m;
	uint8_t *p = rp_test_dup_exact(gate, sizeof(gate));

	(void)state;
	memset(&m, 0xFF, sizeof(m));
	assert_int_equal(rp_macctl_parse(p, sizeof(gate), &m), RP_WIRE_OK);
	assert_int_equal(m.opcode, 0x0002);
	assert_int_equal(m.enable, 0);
	for (int i = 0; i < RP_PFC_PRIOS; i++)
		assert_int_equal(m.quanta[i], 0);
	free(p);
}

static void test_pause_quanta_ns(void **state)
{
	(void)state;
	/* 65535 * 512 bit / 100 Gb/s = 335539.2 ns, truncated. */
	assert_int_equal(rp_pause_quanta_ns(65535, 100000000000ull), 335539);
	assert_int_equal(rp_pause_quanta_ns(1, 1000000000ull), 512);
	assert_int_equal(rp_pause_quanta_ns(65535, 1000000000ull), 33553920);
	assert_int_equal(rp_pause_quanta_ns(65535, 25000000000ull), 1342156);
	assert_int_equal(rp_pause_quanta_ns(65535, 400000000000ull), 83884);
	assert_int_equal(rp_pause_quanta_ns(0, 100000000000ull), 0);
	assert_int_equal(rp_pause_quanta_ns(100, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_macctl_dst),
		cmocka_unit_test(test_pfc_build_known),
		cmocka_unit_test(test_pause_build_known),
		cmocka_unit_test(test_build_small_cap),
		cmocka_unit_test(test_parse_known_pfc),
		cmocka_unit_test(test_parse_known_pause),
		cmocka_unit_test(test_pfc_round_trip),
		cmocka_unit_test(test_pause_round_trip),
		cmocka_unit_test(test_parse_truncated),
		cmocka_unit_test(test_parse_other_opcode),
		cmocka_unit_test(test_pause_quanta_ns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
