/* The latency histogram against exact answers: the stated 1% bound over
 * 1..1e12, percentiles of a known distribution, stdev against two passes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <math.h>
#include <cmocka.h>

#include "stats/hist.h"
#include "stats/shist.h"

static struct rp_hist *new_hist(void)
{
	struct rp_hist *h = malloc(sizeof(*h));
	assert_non_null(h);
	rp_hist_init(h);
	return h;
}

/* Every value's bucket holds it, and its upper bound is within 1/128 of it. */
static void bucket_bound_holds_from_1_to_1e12(void **state)
{
	(void)state;
	for (uint64_t v = 1; v <= 1000000000000ull; v += v / 97 + 1) {
		size_t i = rp_hist_index(v);
		assert_true(i < RP_HIST_BUCKETS);
		assert_true(rp_hist_bucket_lo(i) <= v && v <= rp_hist_bucket_hi(i));
		double rel = (double)(rp_hist_bucket_hi(i) - v) / (double)v;
		assert_true(rel < 1.0 / 128);
	}
	assert_int_equal(rp_hist_index(UINT64_MAX), RP_HIST_BUCKETS - 1);
	assert_true(rp_hist_bucket_hi(RP_HIST_BUCKETS - 1) == UINT64_MAX);
	for (size_t i = 1; i < RP_HIST_BUCKETS; i++) /* buckets tile the range */
		assert_true(rp_hist_bucket_lo(i) == rp_hist_bucket_hi(i - 1) + 1);
}

/* One sample: every percentile is that sample, within the bound. */
static void single_values_report_within_one_percent(void **state)
{
	(void)state;
	struct rp_hist *h = new_hist();
	for (uint64_t v = 1; v <= 1000000000000ull; v = v * 3 + 7) {
		rp_hist_init(h);
		rp_hist_record(h, v);
		for (unsigned p = 0; p < RP_PCT_COUNT; p++)
			assert_true(rp_hist_percentile(h, rp_hist_pct_ppm[p]) == v); /* clamped to min = max */
	}
	rp_hist_init(h);
	rp_hist_record(h, 1000003);
	rp_hist_record(h, 1000000000);
	uint64_t p50 = rp_hist_percentile(h, 500000);
	assert_true(p50 >= 1000003 && (double)(p50 - 1000003) < 1000003 / 128.0);
	free(h);
}

/* 1..100000 uniform: the k-th smallest is k, so pXX is ceil(n * XX). */
static void uniform_percentiles(void **state)
{
	(void)state;
	struct rp_hist *h = new_hist();
	const uint64_t n = 100000;
	for (uint64_t v = n; v >= 1; v--)
		rp_hist_record(h, v);
	struct rp_hist_summary s;
	rp_hist_summarize(h, &s);
	assert_int_equal(s.count, n);
	assert_int_equal(s.min, 1);
	assert_int_equal(s.max, n); /* the largest sample is counted, not dropped */
	const uint64_t truth[RP_PCT_COUNT] = {50000, 90000, 99000, 99900, 99990, 99999};
	for (unsigned p = 0; p < RP_PCT_COUNT; p++) {
		assert_true(s.pct[p] >= truth[p]);
		assert_true((double)(s.pct[p] - truth[p]) <= 0.01 * (double)truth[p]);
	}
	assert_true(fabs(s.mean - 50000.5) < 1e-6);
	/* population stdev of 1..n: sqrt((n^2 - 1) / 12) */
	assert_true(fabs(s.stdev - sqrt(((double)n * n - 1) / 12.0)) < 1e-6);
	free(h);
}

/* Exact stdev: the exact sums over every sample equals a two-pass computation. */
static void stdev_equals_two_pass(void **state)
{
	(void)state;
	struct rp_hist *h = new_hist();
	enum { N = 20000 };
	static uint64_t v[N];
	uint64_t x = 88172645463325252ull;
	long double sum = 0;
	for (int i = 0; i < N; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		v[i] = 1000 + x % 5000000 + (i % 1000 == 0 ? 900000000 : 0); /* a heavy tail */
		rp_hist_record(h, v[i]);
		sum += v[i];
	}
	long double mean = sum / N, ss = 0;
	for (int i = 0; i < N; i++)
		ss += ((long double)v[i] - mean) * ((long double)v[i] - mean);
	double sd = (double)sqrtl(ss / N);
	assert_true(fabs(rp_hist_stdev(h) - sd) <= 1e-9 * sd);
	assert_true(fabsl(rp_sums_mean(&h->sums, h->count) - mean) <= 1e-9L * mean);
	free(h);
}

/* merge(a, b) is the histogram of all samples: same buckets, same stdev. */
static void merge_equals_recording_everything(void **state)
{
	(void)state;
	struct rp_hist *a = new_hist(), *b = new_hist(), *all = new_hist();
	for (uint64_t i = 0; i < 5000; i++) {
		uint64_t va = 1000 + i * 7, vb = 50000 + i * i;
		rp_hist_record(a, va);
		rp_hist_record(all, va);
		rp_hist_record(b, vb);
		rp_hist_record(all, vb);
	}
	rp_hist_merge(a, b);
	assert_int_equal(a->count, all->count);
	assert_int_equal(a->min, all->min);
	assert_int_equal(a->max, all->max);
	assert_true(fabs(rp_hist_stdev(a) - rp_hist_stdev(all)) <= 1e-9 * rp_hist_stdev(all));
	for (unsigned p = 0; p < RP_PCT_COUNT; p++)
		assert_int_equal(rp_hist_percentile(a, rp_hist_pct_ppm[p]), rp_hist_percentile(all, rp_hist_pct_ppm[p]));
	free(a);
	free(b);
	free(all);
}

static void iteration_visits_nonempty_buckets_in_order(void **state)
{
	(void)state;
	struct rp_hist *h = new_hist();
	rp_hist_record(h, 5);
	rp_hist_record(h, 5);
	rp_hist_record(h, 1000);
	rp_hist_record(h, 1000000);
	size_t pos = 0;
	uint64_t up, cnt, total = 0, prev = 0;
	unsigned n = 0;
	while (rp_hist_next(h, &pos, &up, &cnt)) {
		assert_true(up > prev || n == 0);
		prev = up;
		total += cnt;
		n++;
	}
	assert_int_equal(n, 3);
	assert_int_equal(total, 4);
	assert_int_equal(prev, rp_hist_bucket_hi(rp_hist_index(1000000)));
	free(h);
}

/* {100, 300} merged with {200, 200, 200} through their non-empty buckets
 * only: count 5, min 100, max 300, mean 200, stdev sqrt((100^2 + 100^2) / 5)
 * = sqrt(4000) = 63.2456, p50 (the 3rd) 200; buckets as rp_hist_merge's. */
static void sparse_merge_equals_merge(void **state)
{
	(void)state;
	struct rp_hist *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b)), *full = malloc(sizeof(*full));
	rp_hist_init(a);
	rp_hist_init(b);
	rp_hist_record(a, 100);
	rp_hist_record(a, 300);
	for (int i = 0; i < 3; i++)
		rp_hist_record(b, 200);
	*full = *a;
	rp_hist_merge(full, b);
	uint16_t idx[1] = {200}; /* 200 < 256: its own bucket */
	rp_hist_merge_sparse(a, b, idx, 1);
	struct rp_hist_summary s;
	rp_hist_summarize(a, &s);
	assert_int_equal(s.count, 5);
	assert_int_equal(s.min, 100);
	assert_int_equal(s.max, 300);
	assert_true(fabs(s.mean - 200.0) < 1e-9);
	assert_true(fabs(s.stdev - 63.2455532) < 1e-6);
	assert_int_equal(s.pct[RP_P50], 200);
	assert_memory_equal(a->b, full->b, sizeof(a->b));
	free(a);
	free(b);
	free(full);
}

static void empty_histogram_summarizes_to_zero(void **state)
{
	(void)state;
	struct rp_hist *h = new_hist();
	struct rp_hist_summary s;
	rp_hist_summarize(h, &s);
	assert_int_equal(s.count, 0);
	assert_int_equal(s.min, 0);
	assert_int_equal(s.pct[RP_P99], 0);
	free(h);
}

static void same_hist(const struct rp_hist *a, const struct rp_hist *b)
{
	assert_int_equal(a->count, b->count);
	assert_int_equal(a->min, b->min);
	assert_int_equal(a->max, b->max);
	assert_memory_equal(&a->sums, &b->sums, sizeof(a->sums)); /* exact sums: bit for bit */
	for (size_t i = 0; i < RP_HIST_BUCKETS; i++)
		assert_int_equal(a->b[i], b->b[i]);
}

/* The sparse form against the full one on the same samples (a spread of
 * 5000 values over 1..1e9 and a tight cluster): expansion, summary and
 * merge are exactly what rp_hist gives; it holds only the buckets used. */
static void sparse_equals_full(void **state)
{
	(void)state;
	struct rp_hist *h = new_hist(), *e = new_hist(), *m1 = new_hist(), *m2 = new_hist();
	struct rp_shist s;
	rp_shist_init(&s);
	uint64_t x = 88172645463325252ull;
	for (int i = 0; i < 5000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		uint64_t v = i % 2 ? 1 + x % 1000000000ull : 20000 + x % 300;
		rp_hist_record(h, v);
		assert_int_equal(rp_shist_record(&s, v), 0);
	}
	rp_shist_expand(&s, e, NULL);
	same_hist(h, e);
	struct rp_hist_summary a, b;
	rp_hist_summarize(h, &a);
	rp_shist_summarize(&s, &b);
	assert_int_equal(a.count, b.count);
	assert_true(a.mean == b.mean && a.stdev == b.stdev);
	for (unsigned i = 0; i < RP_PCT_COUNT; i++)
		assert_int_equal(a.pct[i], b.pct[i]);
	rp_hist_record(m1, 7);
	rp_hist_record(m2, 7);
	rp_hist_merge(m1, h);
	rp_shist_merge_into(m2, &s);
	same_hist(m1, m2);
	size_t used = 0;
	for (size_t i = 0; i < RP_HIST_BUCKETS; i++)
		used += h->b[i] != 0;
	assert_int_equal(s.n, used);
	assert_true(rp_shist_bytes(&s) <= 2 * used * sizeof(uint64_t) + 32);
	/* Reusing the scratch: a second, smaller histogram expanded over the first. */
	struct rp_shist t;
	rp_shist_init(&t);
	rp_shist_record(&t, 500);
	struct rp_hist *f = new_hist();
	rp_hist_record(f, 500);
	rp_shist_expand(&t, e, &s);
	same_hist(f, e);
	struct rp_shist u;
	rp_shist_init(&u);
	assert_int_equal(rp_shist_from(&u, h), 0);
	rp_shist_expand(&u, e, &t);
	same_hist(h, e);
	rp_shist_free(&s);
	rp_shist_free(&t);
	rp_shist_free(&u);
	free(h), free(e), free(m1), free(m2), free(f);
}

/* The sums are exact, so mean and stdev are too where long double's Welford
 * update was not. 10^15 and 10^15 + 1 alternating, 10^6 samples: mean
 * 10^15 + 0.5, stdev 0.5 exactly (n * sumsq - sum^2 = n^2 / 4, exact in 256
 * bits, var = 1/4). 0 and 2^64 - 1: mean and stdev (2^64 - 1) / 2 =
 * 9223372036854775807.5, and the sum of squares past 128 bits (3 samples of
 * 2^64 - 1: 3 * (2^128 - 2^65 + 1), word 2 = 2). Recorded one by one, as a
 * batch, or in two halves merged: the same bits. */
static void sums_exact(void **state)
{
	(void)state;
	struct rp_hist *h = new_hist();
	for (int i = 0; i < 1000000; i++)
		rp_hist_record(h, 1000000000000000ull + (uint64_t)(i % 2));
	struct rp_hist_summary s;
	rp_hist_summarize(h, &s);
	assert_true(s.stdev == 0.5);
	assert_true(rp_sums_mean(&h->sums, h->count) == 1000000000000000.5L);
	rp_hist_init(h);
	rp_hist_record(h, 0);
	rp_hist_record(h, UINT64_MAX);
	rp_hist_summarize(h, &s);
	assert_true(fabs(s.stdev - 9223372036854775807.5) <= 1e-15 * 9223372036854775807.5);
	assert_true(fabs(s.mean - 9223372036854775807.5) <= 1e-15 * 9223372036854775807.5);
	rp_hist_record(h, UINT64_MAX);
	rp_hist_record(h, UINT64_MAX);
	/* 3 (2^64 - 1)^2 = 3 * 2^128 - 6 * 2^64 + 3: words 3, 2^64 - 6, 2 */
	assert_int_equal(h->sums.q[0], 3);
	assert_int_equal(h->sums.q[1], UINT64_MAX - 5);
	assert_int_equal(h->sums.q[2], 2);
	/* sum 3 (2^64 - 1) = 2 * 2^64 + 2^64 - 3 */
	assert_int_equal(h->sums.s[0], UINT64_MAX - 2);
	assert_int_equal(h->sums.s[1], 2);
	uint64_t v[64];
	for (unsigned i = 0; i < 64; i++)
		v[i] = (uint64_t)i * i * 7919u + (i % 3 ? 0 : 1ull << 62);
	struct rp_shist one, batch, lo, hi;
	rp_shist_init(&one), rp_shist_init(&batch), rp_shist_init(&lo), rp_shist_init(&hi);
	for (unsigned i = 0; i < 64; i++)
		rp_shist_record(&one, v[i]);
	rp_shist_record_n(&batch, v, 64);
	rp_shist_record_n(&hi, v + 40, 24);
	rp_shist_record_n(&lo, v, 40);
	assert_int_equal(rp_shist_merge(&hi, &lo), 0);
	assert_memory_equal(&one.sums, &batch.sums, sizeof(one.sums));
	assert_memory_equal(&one.sums, &hi.sums, sizeof(one.sums));
	rp_shist_free(&one), rp_shist_free(&batch), rp_shist_free(&lo), rp_shist_free(&hi);
	free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bucket_bound_holds_from_1_to_1e12),
		cmocka_unit_test(single_values_report_within_one_percent),
		cmocka_unit_test(uniform_percentiles),
		cmocka_unit_test(stdev_equals_two_pass),
		cmocka_unit_test(merge_equals_recording_everything),
		cmocka_unit_test(iteration_visits_nonempty_buckets_in_order),
		cmocka_unit_test(empty_histogram_summarizes_to_zero),
		cmocka_unit_test(sparse_merge_equals_merge),
		cmocka_unit_test(sparse_equals_full),
		cmocka_unit_test(sums_exact),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
