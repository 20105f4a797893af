#include <rte_cycles.h>

#include "dp.h"

static uint64_t start_tsc;
static uint64_t tsc_hz;

void rp_dp_clock_start(void)
{
	tsc_hz = rte_get_tsc_hz();
	start_tsc = rte_rdtsc();
}

uint64_t rp_dp_now_ns(void)
{
	/* 128-bit product: cycles * 1e9 overflows 64 bits after ~18 s at 1 GHz. */
	unsigned __int128 cycles = rte_rdtsc() - start_tsc;
	return (uint64_t)(cycles * 1000000000u / tsc_hz);
}
