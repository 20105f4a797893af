/* Sequence accounting against counts worked out from how the stream was cut. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "stats/seq.h"

/* Every k-th seq (k = 7) of 10000 dropped: the dropped ones are 6, 13, ...
 * (seq % 7 == 6), floor(10000 / 7) = 1428 of them. */
static void every_kth_dropped(void **state)
{
	(void)state;
	struct rp_seq s;
	rp_seq_init(&s, 0);
	const uint64_t n = 10000, k = 7;
	for (uint64_t i = 0; i < n; i++) {
		if (i % k == k - 1)
			continue;
		rp_seq_rx(&s, i);
	}
	assert_int_equal(s.lost, 1428); /* 9995 is the last dropped; 9996..9999 came */
	rp_seq_finish(&s, true, n);
	assert_int_equal(s.lost, 1428);
	assert_int_equal(s.reordered, 0);
	assert_int_equal(s.duplicates, 0);
}

static void burst_and_lost_tail(void **state)
{
	(void)state;
	struct rp_seq s;
	rp_seq_init(&s, 0);
	for (uint64_t i = 0; i < 5000; i++)
		if (i < 1000 || i >= 1100)
			if (i < 4990) /* the last 10 never arrive: only the sender's count knows */
				rp_seq_rx(&s, i);
	assert_int_equal(s.lost, 100);
	rp_seq_finish(&s, true, 5000);
	assert_int_equal(s.lost, 110);
}

/* 0 1 3 2 4: 2 is late, counted reordered and not lost. */
static void late_arrival_is_reordered_not_lost(void **state)
{
	(void)state;
	struct rp_seq s;
	rp_seq_init(&s, 0);
	const uint64_t order[] = {0, 1, 3, 2, 4, 8, 5, 6, 7};
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		rp_seq_rx(&s, order[i]);
	assert_int_equal(s.lost, 0);
	assert_int_equal(s.reordered, 4); /* 2, then 5 6 7 behind 8 */
	assert_int_equal(s.duplicates, 0);
	assert_int_equal(s.unique, 9);
	rp_seq_finish(&s, true, 9);
	assert_int_equal(s.lost, 0);
}

static void duplicates_counted_once_each(void **state)
{
	(void)state;
	struct rp_seq s;
	rp_seq_init(&s, 0);
	assert_int_equal(rp_seq_rx(&s, 0), RP_SEQ_IN_ORDER);
	assert_int_equal(rp_seq_rx(&s, 1), RP_SEQ_IN_ORDER);
	assert_int_equal(rp_seq_rx(&s, 1), RP_SEQ_DUPLICATE);
	assert_int_equal(rp_seq_rx(&s, 3), RP_SEQ_GAP);
	assert_int_equal(rp_seq_rx(&s, 0), RP_SEQ_DUPLICATE);
	assert_int_equal(rp_seq_rx(&s, 2), RP_SEQ_REORDERED);
	assert_int_equal(rp_seq_rx(&s, 2), RP_SEQ_DUPLICATE);
	assert_int_equal(s.duplicates, 3);
	assert_int_equal(s.received, 7);
	assert_int_equal(s.unique, 4);
	assert_int_equal(s.lost, 0);
	rp_seq_finish(&s, true, 4);
	assert_int_equal(s.lost, 0);
}

/* A gap longer than the window, then late arrivals from inside and outside it. */
static void long_gap_and_window_edges(void **state)
{
	(void)state;
	struct rp_seq s;
	rp_seq_init(&s, 0);
	rp_seq_rx(&s, 0);
	rp_seq_rx(&s, 10000); /* 9999 lost */
	assert_int_equal(s.lost, 9999);
	rp_seq_rx(&s, 10001 - RP_SEQ_WINDOW);      /* the oldest seq the window holds: late */
	rp_seq_rx(&s, 10001 - RP_SEQ_WINDOW);      /* and now a duplicate */
	rp_seq_rx(&s, 10001 - RP_SEQ_WINDOW - 10); /* older than the window: stale, late */
	assert_int_equal(s.lost, 9997);
	assert_int_equal(s.duplicates, 1);
	assert_int_equal(s.stale, 1);
	assert_int_equal(s.reordered, 2);
	/* the window wraps cleanly over many seqs */
	for (uint64_t i = 10001; i < 30000; i++)
		rp_seq_rx(&s, i);
	rp_seq_rx(&s, 29990);
	assert_int_equal(s.duplicates, 2);
	rp_seq_finish(&s, true, 30000);
	assert_int_equal(s.lost, 30000 - s.unique);
	assert_int_equal(s.lost, 9997);
}

static void start_from_first_seen(void **state)
{
	(void)state;
	struct rp_seq s;
	rp_seq_init_from_first(&s);
	for (uint64_t i = 500; i < 600; i++)
		if (i != 550)
			rp_seq_rx(&s, i);
	assert_int_equal(s.lost, 1);
	assert_int_equal(s.unique, 99);
}

/* The window holds no bitmap while every seq came in order (win.h); what it
 * remembers must not depend on that. 0..4999 in order: the window is the
 * last 4096 (904..4999). 903 is 4097 behind next (5000): stale; 904 exactly
 * 4096 behind: a duplicate. Then 5000 and 5001 skipped (a gap of 2: the
 * bitmap is made here) and 5002 in: 905..4999 and 5002 remembered, so 910
 * is a duplicate still, 906 is 4097 behind 5003 (stale), 5000 late
 * (reordered, one less lost) and then a duplicate. */
static void dense_window_then_bitmap(void **state)
{
	(void)state;
	struct rp_seq s;
	rp_seq_init(&s, 0);
	for (uint64_t i = 0; i < 5000; i++)
		assert_int_equal(rp_seq_rx(&s, i), RP_SEQ_IN_ORDER);
	assert_null(s.win.bits);
	assert_int_equal(rp_seq_rx(&s, 903), RP_SEQ_REORDERED);
	assert_int_equal(s.stale, 1);
	assert_int_equal(rp_seq_rx(&s, 904), RP_SEQ_DUPLICATE);
	assert_int_equal(rp_seq_rx(&s, 4999), RP_SEQ_DUPLICATE);
	assert_null(s.win.bits);
	assert_int_equal(rp_seq_rx(&s, 5002), RP_SEQ_GAP);
	assert_non_null(s.win.bits);
	assert_int_equal(s.lost, 2); /* the gap's (903 came while nothing was lost) */
	assert_int_equal(rp_seq_rx(&s, 910), RP_SEQ_DUPLICATE);
	assert_int_equal(rp_seq_rx(&s, 4999), RP_SEQ_DUPLICATE);
	assert_int_equal(rp_seq_rx(&s, 906), RP_SEQ_REORDERED);
	assert_int_equal(s.stale, 2);
	assert_int_equal(s.lost, 1); /* a stale arrival un-loses one */
	assert_int_equal(rp_seq_rx(&s, 5000), RP_SEQ_REORDERED);
	assert_int_equal(rp_seq_rx(&s, 5000), RP_SEQ_DUPLICATE);
	assert_int_equal(rp_seq_rx(&s, 5001), RP_SEQ_REORDERED);
	assert_int_equal(s.duplicates, 5);
	assert_int_equal(s.unique, 5000 + 1 + 1 + 1 + 1 + 1); /* 0..4999, 903, 5002, 906, 5000, 5001 */
	rp_seq_free(&s);
	assert_null(s.win.bits);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_kth_dropped),
		cmocka_unit_test(burst_and_lost_tail),
		cmocka_unit_test(late_arrival_is_reordered_not_lost),
		cmocka_unit_test(duplicates_counted_once_each),
		cmocka_unit_test(long_gap_and_window_edges),
		cmocka_unit_test(start_from_first_seen),
		cmocka_unit_test(dense_window_then_bitmap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
