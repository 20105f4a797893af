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

/* A batch (hist.h) is its samples one by one: 64 samples 1000 + 37 i ns
 * (i < 64) in bin 0, as two batches of 32 and as 64 calls. By hand: sum
 * 64 x 1000 + 37 x (63 x 64 / 2) = 64000 + 74592 = 138592, min 1000, max
 * 1000 + 37 x 63 = 3331; a batch of 3 past the last bin counts 3 outside. */
static void batch_is_its_samples(void **state)
{
	(void)state;
	struct rp_ts_cfg cfg = {.start_ns = 0, .bin_ns = 100000, .nbins = 2, .nports = 1};
	struct rp_ts *one = rp_ts_create(&cfg), *batched = rp_ts_create(&cfg);
	assert_non_null(one);
	assert_non_null(batched);
	uint64_t v[64];
	for (int i = 0; i < 64; i++) {
		v[i] = 1000 + 37 * (uint64_t)i;
		rp_ts_latency(one, 500, v[i]);
	}
	struct rp_hist_batch b;
	for (int k = 0; k < 2; k++) {
		rp_hist_batch_of(&b, v + 32 * k, 32);
		rp_ts_latency_batch(batched, 500, &b);
	}
	rp_hist_batch_of(&b, v, 3);
	rp_ts_latency_batch(batched, 250000, &b);
	rp_ts_flush(one);
	rp_ts_flush(batched);
	const struct rp_ts_bin *x = rp_ts_get(one, 0), *y = rp_ts_get(batched, 0);
	assert_int_equal(y->lat_count, 64);
	assert_int_equal(y->lat_min, 1000);
	assert_int_equal(y->lat_max, 3331);
	assert_int_equal(y->lat_sums.s[0], 138592);
	assert_memory_equal(&x->lat_sums, &y->lat_sums, sizeof(x->lat_sums));
	assert_memory_equal(x->lat_pct, y->lat_pct, sizeof(x->lat_pct));
	assert_int_equal(batched->outside, 3);
	rp_ts_destroy(one);
	rp_ts_destroy(batched);
}

/* A merged result's sparse port cells (cfg.sparse_ports) hold what the
 * dense arrays hold. Start 0, 100 us bins, 3 ports x 8 priorities x 10 bins;
 * by hand: port 2 prio 3 paused [150, 420) us = bin 1 50 us, bins 2 and 3
 * 100 us, bin 4 20 us; PFC frames at 10 and 20 us (bin 0) and 950 us (bin 9);
 * port 0 prio 7 one cell of 5 frames and 7 ns added in bin 6 (the merge's add). */
static void sparse_ports_equal_dense(void **state)
{
	(void)state;
	struct rp_ts_cfg cfg = {.start_ns = 0, .bin_ns = 100000, .nbins = 10, .nports = 3};
	struct rp_ts *d = rp_ts_create(&cfg);
	cfg.sparse_ports = true;
	struct rp_ts *s = rp_ts_create(&cfg);
	assert_non_null(d);
	assert_non_null(s);
	assert_null(s->pfc);
	for (int k = 0; k < 2; k++) {
		struct rp_ts *t = k ? s : d;
		rp_ts_paused(t, 2, 3, 150000, 420000);
		rp_ts_pfc(t, 10000, 2, 3);
		rp_ts_pfc(t, 20000, 2, 3);
		rp_ts_pfc(t, 950000, 2, 3);
		assert_int_equal(rp_ts_port_add(t, 6, 0, 7, 5, 7), 0);
		assert_int_equal(rp_ts_port_add(t, 5, 1, 1, 0, 0), 0); /* nothing: no cell */
	}
	static const uint64_t paused[10] = {0, 50000, 100000, 100000, 20000, 0, 0, 0, 0, 0};
	static const uint64_t frames[10] = {2, 0, 0, 0, 0, 0, 0, 0, 0, 1};
	for (size_t b = 0; b < 10; b++) {
		assert_int_equal(rp_ts_paused_ns(s, b, 2, 3), paused[b]);
		assert_int_equal(rp_ts_pfc_frames(s, b, 2, 3), frames[b]);
		for (size_t p = 0; p < 3; p++)
			for (unsigned q = 0; q < 8; q++) {
				assert_int_equal(rp_ts_pfc_frames(s, b, p, q), rp_ts_pfc_frames(d, b, p, q));
				assert_int_equal(rp_ts_paused_ns(s, b, p, q), rp_ts_paused_ns(d, b, p, q));
			}
	}
	assert_int_equal(rp_ts_pfc_frames(s, 6, 0, 7), 5);
	assert_int_equal(rp_ts_paused_ns(s, 6, 0, 7), 7);
	assert_int_equal(s->ncells, 7); /* bins 0..4 and 9 of port 2 prio 3, bin 6 of port 0 prio 7 */
	assert_null(rp_ts_cell_find(s, 5, 1, 1));
	for (size_t p = 0; p < 3; p++)
		for (unsigned q = 0; q < 8; q++)
			assert_int_equal(rp_ts_port_used(s, p, q), rp_ts_port_used(d, p, q));
	assert_true(rp_ts_port_used(s, 2, 3) && rp_ts_port_used(s, 0, 7) && !rp_ts_port_used(s, 1, 1));
	assert_int_equal(rp_ts_used_bins(s), 10);
	assert_int_equal(rp_ts_used_bins(d), 10);
	/* every cell (240: the hash grows past its first 256 slots at 128) gets 1000 b + 10 p + q + 1 */
	for (size_t b = 0; b < 10; b++)
		for (size_t p = 0; p < 3; p++)
			for (unsigned q = 0; q < 8; q++) {
				assert_int_equal(rp_ts_port_add(s, b, p, q, 1000 * b + 10 * p + q + 1, 1), 0);
				assert_int_equal(rp_ts_port_add(d, b, p, q, 1000 * b + 10 * p + q + 1, 1), 0);
			}
	assert_int_equal(s->ncells, 240);
	for (size_t b = 0; b < 10; b++)
		for (size_t p = 0; p < 3; p++)
			for (unsigned q = 0; q < 8; q++) {
				assert_int_equal(rp_ts_pfc_frames(s, b, p, q), rp_ts_pfc_frames(d, b, p, q));
				assert_int_equal(rp_ts_paused_ns(s, b, p, q), rp_ts_paused_ns(d, b, p, q));
			}
	assert_int_equal(rp_ts_pfc_frames(s, 9, 2, 7), 9000 + 20 + 7 + 1 + 0); /* bin 9 port 2 prio 7: no frame before */
	assert_int_equal(rp_ts_pfc_frames(s, 9, 2, 3), 9000 + 20 + 3 + 1 + 1); /* and the PFC frame at 950 us */
	rp_ts_destroy(d);
	rp_ts_destroy(s);
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
		cmocka_unit_test(batch_is_its_samples),
		cmocka_unit_test(sparse_ports_equal_dense),
		cmocka_unit_test(next_bin_starts_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
