/* Time series bins: exact counters and per-bin latency percentiles. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "stats/timeseries.h"

static void per_bin_percentiles(void **state)
{
	(void)state;
	struct rp_ts_cfg cfg = {.start_ns = 1000, .bin_ns = 100000, .nbins = 4, .nports = 1};
	struct rp_ts *t = rp_ts_create(&cfg);
	assert_non_null(t);
	/* bin 0: 1..1000 ns; bin 1: nothing; bin 2: 5000 samples of 70000 ns; bin 3: 1 us and 1 ms */
	for (uint64_t v = 1; v <= 1000; v++)
		rp_ts_latency(t, 1000 + v * 10, v);
	for (int i = 0; i < 5000; i++)
		rp_ts_latency(t, 1000 + 200000 + (uint64_t)i, 70000);
	rp_ts_latency(t, 1000 + 300000, 1000);
	rp_ts_latency(t, 1000 + 300001, 1000000);
	rp_ts_latency(t, 1000 + 400000, 5); /* past the last bin: outside */
	rp_ts_flush(t);
	const struct rp_ts_bin *b0 = rp_ts_get(t, 0), *b1 = rp_ts_get(t, 1), *b2 = rp_ts_get(t, 2), *b3 = rp_ts_get(t, 3);
	assert_int_equal(b0->lat_count, 1000);
	/* values under 256 are exact, above within 1/128 and never below the true one */
	assert_true(b0->lat_pct[0] >= 500 && b0->lat_pct[0] <= 504);
	assert_true(b0->lat_pct[2] >= 990 && b0->lat_pct[2] <= 998);
	assert_true(b0->lat_pct[3] >= 999 && b0->lat_pct[3] <= 1000);
	assert_int_equal(b1->lat_count, 0);
	assert_int_equal(b1->lat_pct[0], 0);
	for (int k = 0; k < RP_TS_PCTS; k++)
		assert_int_equal(b2->lat_pct[k], 70000); /* one value: clamped to the exact min/max */
	assert_true(b3->lat_pct[0] >= 1000 && b3->lat_pct[0] <= 1008); /* the bucket of 1000 */
	assert_int_equal(b3->lat_pct[3], 1000000);
	assert_int_equal(t->outside, 1);
	rp_ts_destroy(t);
}

/* The open bin's histogram is emptied when the next bin opens: a bin's
 * percentiles are its own samples' only. Values under 256 have exact
 * buckets, so the answers are the sorted samples' ranks, worked by hand. */
static void next_bin_starts_empty(void **state)
{
	(void)state;
	struct rp_ts_cfg cfg = {.start_ns = 0, .bin_ns = 1000, .nbins = 3, .nports = 1};
	struct rp_ts *t = rp_ts_create(&cfg);
	assert_non_null(t);
	/* bin 0: 100 x 5 ns and one 10 s; bin 1: 50 x 3 ns, 50 x 200 ns */
	for (int i = 0; i < 100; i++)
		rp_ts_latency(t, 10, 5);
	rp_ts_latency(t, 20, 10000000000ull);
	for (int i = 0; i < 50; i++) {
		rp_ts_latency(t, 1000, 3);
		rp_ts_latency(t, 1001, 200);
	}
	rp_ts_flush(t);
	const struct rp_ts_bin *b0 = rp_ts_get(t, 0), *b1 = rp_ts_get(t, 1), *b2 = rp_ts_get(t, 2);
	assert_int_equal(b0->lat_pct[0], 5);           /* rank 51 of 101: a 5 */
	assert_int_equal(b0->lat_pct[2], 5);           /* p99: rank ceil(101 * 0.99) = 100, still a 5 */
	assert_int_equal(b0->lat_pct[3], 10000000000ull); /* p99.9: rank ceil(100.899) = 101, the 10 s (its bucket clamped to max) */
	assert_int_equal(b1->lat_pct[0], 3);           /* rank 50 of 100: the last 3 (a 5 left over would not matter here) */
	assert_int_equal(b1->lat_pct[1], 200);         /* rank 90: a 200 (a 5 left over from bin 0 would give 5) */
	assert_int_equal(b1->lat_pct[3], 200);
	assert_int_equal(b2->lat_pct[0], 0);
	rp_ts_destroy(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(per_bin_percentiles),
		cmocka_unit_test(next_bin_starts_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
