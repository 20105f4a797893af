/* lib/lab pieces on their own: the event queue's (time, seq) order, the
 * frame pool, and DCQCN's cut and recovery against hand-worked numbers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "lab/dcqcn.h"
#include "lab/evq.h"
#include "lab/pool.h"

static void evq_orders_by_time_then_insertion(void **state)
{
	(void)state;
	struct rp_evq q;
	struct rp_event e;
	static const uint64_t t[] = {50, 10, 30, 10, 50, 0, 30};
	rp_evq_init(&q);
	for (uint32_t i = 0; i < 7; i++)
		assert_int_equal(rp_evq_push(&q, t[i], 0, i, 0, 0), 0);
	static const uint32_t want[] = {5, 1, 3, 2, 6, 0, 4}; /* ties in push order */
	for (int i = 0; i < 7; i++) {
		assert_true(rp_evq_pop(&q, &e));
		assert_int_equal(e.node, want[i]);
	}
	assert_false(rp_evq_pop(&q, &e));
	rp_evq_free(&q);
}

/* At the same t: tie first (0 for plain pushes), then push order. */
static void evq_ties_then_insertion(void **state)
{
	(void)state;
	struct rp_evq q;
	struct rp_event e;
	static const uint64_t t[] = {10, 10, 10, 10, 5, 10};
	static const uint32_t tie[] = {7, 0, 3, 7, 9, 0};
	rp_evq_init(&q);
	for (uint32_t i = 0; i < 6; i++)
		assert_int_equal(rp_evq_push_tie(&q, t[i], tie[i], 0, i, 0, 0), 0);
	static const uint32_t want[] = {4, 1, 5, 2, 0, 3};
	for (int i = 0; i < 6; i++) {
		assert_true(rp_evq_pop(&q, &e));
		assert_int_equal(e.node, want[i]);
	}
	rp_evq_free(&q);
}

static void evq_many(void **state)
{
	(void)state;
	struct rp_evq q;
	struct rp_event e;
	uint64_t x = 88172645463325252ull, last = 0;
	rp_evq_init(&q);
	for (int i = 0; i < 5000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		rp_evq_push(&q, x % 1000, 0, 0, 0, 0);
	}
	for (int i = 0; i < 5000; i++) {
		assert_true(rp_evq_pop(&q, &e));
		assert_true(e.t >= last);
		last = e.t;
	}
	rp_evq_free(&q);
}

static void pool_reuses_slots(void **state)
{
	(void)state;
	struct rp_pool p;
	rp_pool_init(&p, 100);
	uint32_t a = rp_pool_get(&p), b = rp_pool_get(&p);
	assert_int_equal(a, 0);
	assert_int_equal(b, 1);
	assert_true(p.slot_size >= 100);
	rp_pool_put(&p, a);
	assert_int_equal(rp_pool_get(&p), 0);
	for (int i = 0; i < 1000; i++)
		assert_int_not_equal(rp_pool_get(&p), RP_POOL_NONE);
	assert_int_equal(p.in_use, 1002);
	rp_pool_free(&p);
}

static struct rp_dcqcn params(void)
{
	return (struct rp_dcqcn){.enabled = true, .rpg_time_reset_ns = 300000, .rpg_byte_reset = 32767,
				 .rpg_threshold = 1, .rpg_ai_rate_bps = 5000000, .rpg_hai_rate_bps = 50000000,
				 .rpg_min_rate_bps = 1000000, .rpg_min_dec_fac = 50, .dce_tcp_g = 1019,
				 .dce_tcp_rtt_ns = 55000, .rate_reduce_monitor_period_ns = 4000,
				 .initial_alpha_value = 1023};
}

/* alpha starts at 1: the first CNP halves the rate; a second one within the
 * monitor period does nothing; after it, alpha has grown by g(1 - alpha) = 0. */
static void dcqcn_cuts_by_alpha(void **state)
{
	(void)state;
	struct rp_dcqcn p = params();
	struct rp_dcqcn_state s;
	rp_dcqcn_init(&s, &p, 100000000000ull);
	assert_false(s.limited);
	rp_dcqcn_cnp(&s, 1000);
	assert_true(s.limited);
	assert_true(fabs(rp_dcqcn_rate(&s) - 50e9) < 1);
	assert_true(fabs(s.rt - 100e9) < 1);
	rp_dcqcn_cnp(&s, 2000); /* within 4 us */
	assert_true(fabs(rp_dcqcn_rate(&s) - 50e9) < 1);
	assert_int_equal(s.cuts, 1);
	rp_dcqcn_cnp(&s, 6000);
	assert_true(fabs(rp_dcqcn_rate(&s) - 25e9) < 1);
	assert_true(fabs(s.rt - 50e9) < 1);
	/* alpha decays by (1 - 1/g) per 55 us period without a CNP */
	rp_dcqcn_advance(&s, 1000 + 55000 * 3);
	assert_true(s.alpha < 1.0 && s.alpha > 0.99);
}

/* Timer steps: the first is additive (threshold 1 reached by T alone):
 * target += 5 Mbit/s, current halfway to it; recovery ends at line rate. */
static void dcqcn_recovers(void **state)
{
	(void)state;
	struct rp_dcqcn p = params();
	struct rp_dcqcn_state s;
	rp_dcqcn_init(&s, &p, 100000000000ull);
	rp_dcqcn_cnp(&s, 0);
	rp_dcqcn_advance(&s, 300000);
	assert_true(fabs(s.rt - (100e9 + 5e6 > 100e9 ? 100e9 : 100e9 + 5e6)) < 1);
	assert_true(fabs(rp_dcqcn_rate(&s) - 75e9) < 1);
	assert_int_equal(rp_dcqcn_next_change(&s), 600000);
	rp_dcqcn_advance(&s, 300000 * 40);
	assert_false(s.limited);
	assert_int_equal(rp_dcqcn_next_change(&s), UINT64_MAX);
	assert_true(fabs(rp_dcqcn_rate(&s) - 100e9) < 1);
}

static void dcqcn_min_rate_floor(void **state)
{
	(void)state;
	struct rp_dcqcn p = params();
	struct rp_dcqcn_state s;
	p.rpg_min_rate_bps = 10000000000ull;
	rp_dcqcn_init(&s, &p, 100000000000ull);
	for (uint64_t t = 0; t < 20; t++)
		rp_dcqcn_cnp(&s, t * 5000);
	assert_true(fabs(rp_dcqcn_rate(&s) - 10e9) < 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(evq_orders_by_time_then_insertion),
		cmocka_unit_test(evq_ties_then_insertion),
		cmocka_unit_test(evq_many),
		cmocka_unit_test(pool_reuses_slots),
		cmocka_unit_test(dcqcn_cuts_by_alpha),
		cmocka_unit_test(dcqcn_recovers),
		cmocka_unit_test(dcqcn_min_rate_floor),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
