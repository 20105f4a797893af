/* PFC/PAUSE honouring and accounting against hand-computed answers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "stats/pause.h"

#define G100 100000000000ull
#define Q_MAX_NS_100G 335539u /* 65535 * 512 bit / 100 Gbit/s = 335539.2 ns */

static struct rp_macctl pfc(uint8_t enable, unsigned prio_a, uint16_t qa, unsigned prio_b, uint16_t qb)
{
	struct rp_macctl m = {.opcode = RP_MACCTL_OP_PFC, .enable = enable};
	m.quanta[prio_a] = qa;
	m.quanta[prio_b] = qb;
	return m;
}

static void pfc_pauses_exactly_the_named_priorities(void **state)
{
	(void)state;
	struct rp_pause p;
	rp_pause_init(&p, G100);
	struct rp_macctl m = pfc(0x18, 3, 65535, 4, 256);
	rp_pause_rx(&p, 1000, &m);
	assert_int_equal(rp_pause_mask(&p, 1000), 0x18);
	assert_int_equal(rp_pause_mask(&p, 1000 + 1310), 0x08); /* 256 quanta = 1310.72 ns */
	assert_int_equal(rp_pause_mask(&p, 1000 + Q_MAX_NS_100G - 1), 0x08);
	assert_int_equal(rp_pause_mask(&p, 1000 + Q_MAX_NS_100G), 0x00);
	assert_int_equal(rp_pause_paused_ns(&p, 3, 1000000), Q_MAX_NS_100G);
	assert_int_equal(rp_pause_paused_ns(&p, 4, 1000000), 1310);
	assert_int_equal(rp_pause_paused_ns(&p, 0, 1000000), 0);
	assert_int_equal(p.prio[3].first_pause_ns, 1000);
	assert_true(p.prio[0].first_pause_ns == RP_PAUSE_NEVER);
	assert_int_equal(p.prio[3].quanta, 65535);
	assert_int_equal(p.pfc_frames, 1);
}

static void refresh_extends_and_xon_ends(void **state)
{
	(void)state;
	struct rp_pause p;
	rp_pause_init(&p, G100);
	struct rp_macctl xoff = pfc(0x08, 3, 65535, 0, 0), xon = pfc(0x08, 3, 0, 0, 0);
	rp_pause_rx(&p, 0, &xoff);
	rp_pause_rx(&p, 200000, &xoff); /* refreshed before it ran out */
	assert_int_equal(rp_pause_mask(&p, 200000 + Q_MAX_NS_100G - 1), 0x08);
	assert_int_equal(p.prio[3].xoff_to_xon, 0);
	rp_pause_rx(&p, 300000, &xon);
	assert_int_equal(rp_pause_mask(&p, 300000), 0);
	assert_int_equal(rp_pause_paused_ns(&p, 3, 10000000), 300000);
	assert_int_equal(p.prio[3].xoff_to_xon, 1);
	assert_int_equal(p.prio[3].frames, 3);
}

static void expiry_counts_as_a_transition(void **state)
{
	(void)state;
	struct rp_pause p;
	rp_pause_init(&p, 1000000000ull); /* 1G: one quantum is 512 ns */
	struct rp_macctl m = pfc(0x01, 0, 10, 1, 0);
	rp_pause_rx(&p, 0, &m);
	rp_pause_rx(&p, 10000, &m);
	rp_pause_settle(&p, 20000);
	assert_int_equal(p.prio[0].xoff_to_xon, 2);
	assert_int_equal(rp_pause_paused_ns(&p, 0, 20000), 10240);
}

static void pause_frame_stops_every_priority(void **state)
{
	(void)state;
	struct rp_pause p;
	rp_pause_init(&p, G100);
	struct rp_macctl m = {.opcode = RP_MACCTL_OP_PAUSE, .quanta = {65535}};
	rp_pause_rx(&p, 5, &m);
	assert_int_equal(rp_pause_mask(&p, 6), 0xFF);
	for (unsigned i = 0; i < RP_PFC_PRIOS; i++)
		assert_int_equal(rp_pause_paused_ns(&p, i, 1u << 30), Q_MAX_NS_100G);
	assert_int_equal(p.pause_frames, 1);
}

static void xon_while_running_changes_nothing(void **state)
{
	(void)state;
	struct rp_pause p;
	rp_pause_init(&p, G100);
	struct rp_macctl xon = pfc(0xFF, 0, 0, 1, 0);
	rp_pause_rx(&p, 100, &xon);
	assert_int_equal(rp_pause_mask(&p, 100), 0);
	assert_int_equal(rp_pause_paused_ns(&p, 0, 1000), 0);
	assert_int_equal(p.prio[0].xoff_to_xon, 0);
	assert_true(p.prio[0].first_pause_ns == RP_PAUSE_NEVER);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pfc_pauses_exactly_the_named_priorities),
		cmocka_unit_test(refresh_extends_and_xon_ends),
		cmocka_unit_test(expiry_counts_as_a_transition),
		cmocka_unit_test(pause_frame_stops_every_priority),
		cmocka_unit_test(xon_while_running_changes_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
