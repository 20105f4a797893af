/* The packet clock (lib/dp/clock.c) against the kernel's CLOCK_MONOTONIC:
 * it must count the system clock's nanoseconds, not DPDK's rounded TSC
 * rate (rte_get_tsc_hz: 2100 MHz for a 2096.029 MHz TSC, 1894 ppm, which
 * is 379 us over the 200 ms below), and start where it is told to. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include "dp/dp.h"

static int64_t mono_ns(const void *arg)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec + (arg ? *(const int64_t *)arg : 0);
}

static void sleep_ms(long ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000};
	while (nanosleep(&ts, &ts) != 0)
		;
}

/* 200 ms of CLOCK_MONOTONIC: the packet clock counts them within 20 us
 * (100 ppm; what it measures is within a few ppm). */
static void test_rate(void **state)
{
	(void)state;
	rp_dp_clock_calibrate();
	rp_dp_clock_start();
	struct rp_dp_clock_pair a = rp_dp_clock_read_pair(mono_ns, NULL);
	uint64_t p0 = rp_dp_now_ns();
	sleep_ms(200);
	struct rp_dp_clock_pair b = rp_dp_clock_read_pair(mono_ns, NULL);
	uint64_t p1 = rp_dp_now_ns();
	int64_t mono = b.ref_ns - a.ref_ns, packet = (int64_t)(p1 - p0);
	print_message("200 ms: CLOCK_MONOTONIC %lld ns, packet clock %lld ns\n", (long long)mono, (long long)packet);
	assert_true(mono >= 200000000);
	assert_true(packet - mono < 20000 && mono - packet < 20000);
}

/* Started on another clock (CLOCK_MONOTONIC 5 s ahead) at a zero 3 ms in
 * its past: it reads that clock's time since zero (3 ms and the 50 ms the
 * rate's measurement waits after a first reading), its gap is a few us at
 * most, and stays so 100 ms on. A zero in the future starts it at 0. */
static void test_start_on(void **state)
{
	(void)state;
	const int64_t ahead = 5000000000;
	rp_dp_clock_calibrate();
	int64_t zero = mono_ns(&ahead) - 3000000;
	int64_t gap = rp_dp_clock_start_on(mono_ns, &ahead, zero);
	uint64_t now = rp_dp_now_ns();
	int64_t since = mono_ns(&ahead) - zero;
	print_message("3 ms ago: packet clock %llu, reference %lld, gap %lld ns\n", (unsigned long long)now,
		      (long long)since, (long long)gap);
	assert_true(gap < 5000 && gap > -5000);
	assert_true(now >= 3000000 && (int64_t)now <= since + 5000);
	sleep_ms(100);
	gap = rp_dp_clock_gap_ns(mono_ns, &ahead, zero);
	assert_true(gap < 10000 && gap > -10000);
	rp_dp_clock_start_on(mono_ns, &ahead, mono_ns(&ahead) + 1000000000);
	assert_true(rp_dp_now_ns() < 1000000);
}

/* A pair: the TSC read between two readings of the reference that are
 * close together, the midpoint between them. */
static void test_pair(void **state)
{
	(void)state;
	struct rp_dp_clock_pair p = rp_dp_clock_read_pair(mono_ns, NULL);
	int64_t after = mono_ns(NULL);
	assert_true(p.window_ns >= 0 && p.window_ns < 1000000);
	assert_true(p.ref_ns <= after && p.tsc != 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pair),
		cmocka_unit_test(test_rate),
		cmocka_unit_test(test_start_on),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
