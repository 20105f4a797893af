/* UDP source port policies. The Linux answers were worked out separately
 * (python3, from rdma_calc_flow_label / rdma_flow_label_to_udp_sport in
 * include/rdma/ib_verbs.h), not by running the code under test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "wire/sport.h"

struct fl_case {
	uint32_t lqpn, rqpn;
	uint32_t flow_label;
	uint16_t sport;
};

static const struct fl_case fl_cases[] = {
	{ 0x11, 0x12, 0x00132, 0xC132 },
	{ 0x1234, 0xABCDEF, 0x061FA, 0xE1FB },
	{ 0xFFFFFF, 0xFFFFFF, 0xFFF1E, 0xFF21 },
	{ 0xFFFFFFFF, 0xFFFFFFFF, 0x01FF1, 0xDFF1 }, /* full 64-bit product */
	{ 0x1, 0x0, 0x00000, 0xC000 },
	{ 0x100, 0x200, 0x20000, 0xC008 },
	{ 0x11, 1000003, 0x36663, 0xE66E },
};

static void test_linux_known_answers(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(fl_cases) / sizeof(fl_cases[0]); i++) {
		const struct fl_case *c = &fl_cases[i];

		assert_int_equal(rp_flow_label(c->lqpn, c->rqpn), c->flow_label);
		assert_int_equal(rp_flow_label_to_sport(c->flow_label), c->sport);
		assert_int_equal(rp_sport_select(RP_SPORT_LINUX, c->lqpn, c->rqpn, 4791, 99), c->sport);
	}
}

static void test_linux_stays_in_range(void **state)
{
	(void)state;
	for (uint32_t q = 0; q < 100000; q += 7) {
		uint16_t s = rp_sport_select(RP_SPORT_LINUX, q, q * 3 + 1, 0, 0);

		assert_true(s >= 0xC000);
		assert_true(rp_flow_label(q, 0xFFFFFF - q) <= 0xFFFFF);
	}
	/* Folding: the top 6 label bits land on the bottom 6 port bits. */
	assert_int_equal(rp_flow_label_to_sport(0xFC000), 0xC03F);
	assert_int_equal(rp_flow_label_to_sport(0x03FFF), 0xFFFF);
	assert_int_equal(rp_flow_label_to_sport(0xFFFFF), 0xFFC0);
}

static void test_fixed(void **state)
{
	(void)state;
	assert_int_equal(rp_sport_select(RP_SPORT_FIXED, 1, 2, 4791, 0), 4791);
	assert_int_equal(rp_sport_select(RP_SPORT_FIXED, 3, 4, 0xC123, 77), 0xC123);
}

static void test_per_qp(void **state)
{
	(void)state;
	assert_int_equal(rp_sport_select(RP_SPORT_PER_QP, 0, 0, 0xC000, 0), 0xC000);
	assert_int_equal(rp_sport_select(RP_SPORT_PER_QP, 0, 0, 0xC000, 5), 0xC005);
	assert_int_equal(rp_sport_select(RP_SPORT_PER_QP, 0, 0, 0xFFFE, 1), 0xFFFF);
	assert_int_equal(rp_sport_select(RP_SPORT_PER_QP, 0, 0, 0xFFFE, 2), 0xC000);
	assert_int_equal(rp_sport_select(RP_SPORT_PER_QP, 0, 0, 0xFFFE, 5), 0xC003);
	assert_int_equal(rp_sport_select(RP_SPORT_PER_QP, 0, 0, 0xD000, 0x4000), 0xD000);
	assert_int_equal(rp_sport_select(RP_SPORT_PER_QP, 0, 0, 0xC000, 0xFFFFFFFFu), 0xFFFF);
	for (uint32_t i = 0; i < 70000; i += 13)
		assert_true(rp_sport_select(RP_SPORT_PER_QP, 0, 0, 0xE000, i) >= 0xC000);
}

static void test_parse(void **state)
{
	(void)state;
	assert_int_equal(rp_sport_policy_parse("linux"), RP_SPORT_LINUX);
	assert_int_equal(rp_sport_policy_parse("fixed"), RP_SPORT_FIXED);
	assert_int_equal(rp_sport_policy_parse("per-qp"), RP_SPORT_PER_QP);
	assert_int_equal(rp_sport_policy_parse("per_qp"), -1);
	assert_int_equal(rp_sport_policy_parse("Linux"), -1);
	assert_int_equal(rp_sport_policy_parse(""), -1);
	assert_int_equal(rp_sport_policy_parse(NULL), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_linux_known_answers),
		cmocka_unit_test(test_linux_stays_in_range),
		cmocka_unit_test(test_fixed),
		cmocka_unit_test(test_per_qp),
		cmocka_unit_test(test_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
