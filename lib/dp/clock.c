#include <rte_cycles.h>

#include "dp.h"

static uint64_t start_tsc;
static uint64_t ns_per_cycle_q32; /* 2^32 * 1e9 / tsc_hz */

void rp_dp_clock_start(void)
{
	rp_dp_clock_start_ago(0);
}

void rp_dp_clock_start_ago(uint64_t ns)
{
	uint64_t hz = rte_get_tsc_hz();
	ns_per_cycle_q32 = (uint64_t)(((unsigned __int128)1000000000u << 32) / hz);
	start_tsc = rte_rdtsc() - (uint64_t)((unsigned __int128)ns * hz / 1000000000u);
}

/* A multiply and a shift: a 128-bit division here costs more than stamping a
 * packet, and it runs every loop. The product is 128 bits, so it never wraps. */
uint64_t rp_dp_now_ns(void)
{
	unsigned __int128 cycles = rte_rdtsc() - start_tsc;
	return (uint64_t)((cycles * ns_per_cycle_q32) >> 32);
}
