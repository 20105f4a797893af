#include "red.h"

double rp_red_prob(uint64_t depth, uint64_t kmin, uint64_t kmax, double pmax)
{
	if (depth <= kmin)
		return 0.0;
	if (depth > kmax)
		return 1.0;
	return pmax * (double)(depth - kmin) / (double)(kmax - kmin);
}

uint64_t rp_xorshift64s(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1Dull;
}

double rp_rand_unit(uint64_t *state)
{
	return (double)(rp_xorshift64s(state) >> 11) * (1.0 / 9007199254740992.0);
}
