/* The packet clock: TSC cycles since its start, in ns at a rate this process
 * measures against CLOCK_MONOTONIC (the clock NTP or PTP disciplines, as it
 * does CLOCK_REALTIME, on which ranks' offsets are measured).
 *
 * Not rte_get_tsc_hz(): DPDK times 100 ms of sleep and rounds to 10 MHz. On
 * a 2096.029 MHz TSC that is 2100 MHz, a clock 1894 ppm slow: 421 us behind
 * after a 222 ms run, and two machines' roundings differ, so a one-way
 * latency between them would be off by ms after seconds, unseen by any
 * bound (docs/lab-notes.md, 2026-12-02). */
#include <time.h>

#include <rte_cycles.h>

#include "dp.h"

#define PAIR_TRIES 64
#define PAIR_WINDOW_NS 1000 /* a reading pair this narrow is taken at once */
#define CALIB_MIN_NS 50000000 /* 50 ms: 100 ns of reading error is 2 ppm */

static uint64_t start_tsc;
static uint64_t epoch_ns, epoch_tsc; /* rp_dp_clock_epoch_ns: for the start at epoch_tsc */
static uint64_t ns_per_cycle_q32; /* 2^32 * 1e9 / tsc_hz */
static struct rp_dp_clock_pair calib0; /* the rate's first reading (rp_dp_clock_calibrate) */

static int64_t monotonic_ns(const void *arg)
{
	(void)arg;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

struct rp_dp_clock_pair rp_dp_clock_read_pair(rp_dp_ref_clock ref, const void *arg)
{
	struct rp_dp_clock_pair best = {.window_ns = INT64_MAX};
	for (int i = 0; i < PAIR_TRIES && best.window_ns > PAIR_WINDOW_NS; i++) {
		int64_t a = ref(arg);
		uint64_t t = rte_rdtsc_precise();
		int64_t b = ref(arg);
		if (b - a < best.window_ns)
			best = (struct rp_dp_clock_pair){.ref_ns = a + (b - a) / 2, .tsc = t, .window_ns = b - a};
	}
	return best;
}

void rp_dp_clock_calibrate(void)
{
	calib0 = rp_dp_clock_read_pair(monotonic_ns, NULL);
}

/* The rate from calib0 to now, at least CALIB_MIN_NS apart (sleeping the
 * rest; calib0 is taken now when it was not yet). */
static void measure_rate(void)
{
	if (!calib0.tsc)
		rp_dp_clock_calibrate();
	struct rp_dp_clock_pair now = rp_dp_clock_read_pair(monotonic_ns, NULL);
	int64_t span = now.ref_ns - calib0.ref_ns;
	if (span < CALIB_MIN_NS) {
		struct timespec ts = {.tv_nsec = CALIB_MIN_NS - span};
		nanosleep(&ts, NULL);
		now = rp_dp_clock_read_pair(monotonic_ns, NULL);
		span = now.ref_ns - calib0.ref_ns;
	}
	ns_per_cycle_q32 = (uint64_t)(((unsigned __int128)span << 32) / (now.tsc - calib0.tsc));
}

void rp_dp_clock_start(void)
{
	measure_rate();
	start_tsc = rte_rdtsc();
}

int64_t rp_dp_clock_start_on(rp_dp_ref_clock ref, const void *arg, int64_t zero_ns)
{
	measure_rate();
	struct rp_dp_clock_pair p = rp_dp_clock_read_pair(ref, arg);
	int64_t late = p.ref_ns - zero_ns;
	/* cycles = ns * 2^32 / ns_per_cycle_q32 */
	uint64_t ago = late > 0 ? (uint64_t)(((unsigned __int128)late << 32) / ns_per_cycle_q32) : 0;
	start_tsc = p.tsc - ago;
	return rp_dp_clock_gap_ns(ref, arg, zero_ns);
}

int64_t rp_dp_clock_gap_ns(rp_dp_ref_clock ref, const void *arg, int64_t zero_ns)
{
	struct rp_dp_clock_pair p = rp_dp_clock_read_pair(ref, arg);
	unsigned __int128 cycles = p.tsc - start_tsc;
	int64_t packet = (int64_t)((cycles * ns_per_cycle_q32) >> 32);
	return packet - (p.ref_ns - zero_ns);
}

/* A multiply and a shift: a 128-bit division here costs more than stamping a
 * packet, and it runs every loop. The product is 128 bits, so it never wraps. */
uint64_t rp_dp_now_ns(void)
{
	unsigned __int128 cycles = rte_rdtsc() - start_tsc;
	return (uint64_t)((cycles * ns_per_cycle_q32) >> 32);
}

int64_t rp_dp_clock_tsc_ns(uint64_t tsc)
{
	__int128 cycles = (__int128)tsc - (__int128)start_tsc;
	return (int64_t)((cycles * (__int128)ns_per_cycle_q32) >> 32);
}

static int64_t realtime_ns(const void *arg)
{
	(void)arg;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

uint64_t rp_dp_clock_epoch_ns(int64_t *window_ns)
{
	static int64_t window;
	if (epoch_tsc != start_tsc || !epoch_ns) {
		struct rp_dp_clock_pair p = rp_dp_clock_read_pair(realtime_ns, NULL);
		epoch_ns = (uint64_t)(p.ref_ns - rp_dp_clock_tsc_ns(p.tsc));
		window = p.window_ns;
		epoch_tsc = start_tsc;
	}
	if (window_ns)
		*window_ns = window;
	return epoch_ns;
}
