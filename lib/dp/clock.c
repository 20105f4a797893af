#include <rte_cycles.h>

#include "dp.h"

static uint64_t start_tsc;
static uint64_t ns_per_cycle_q32; /* 2^32 * 1e9 / tsc_hz */

void rp_dp_clock_start(void)
{
	ns_per_cycle_q32 = (uint64_t)(((unsigned __int128)1000000000u << 32) / rte_get_tsc_hz());
	start_tsc = rte_rdtsc();
}

/* A multiply and a shift: a 128-bit division here costs more than stamping a
 * packet, and it runs every loop. The product is 128 bits, so it never wraps. */
uint64_t rp_dp_now_ns(void)
{
	unsigned __int128 cycles = rte_rdtsc() - start_tsc;
	return (uint64_t)((cycles * ns_per_cycle_q32) >> 32);
}
