/* Clock offsets from ping-pong samples (see cluster.h): pure, no MPI. */
#include "cluster.h"

int rp_clock_estimate(const struct rp_clock_sample *s, size_t n, struct rp_clock_offset *o)
{
	size_t best = n;
	for (size_t i = 0; i < n; i++)
		if (s[i].t1 >= s[i].t0 && (best == n || s[i].t1 - s[i].t0 < s[best].t1 - s[best].t0))
			best = i;
	if (best == n)
		return -1;
	const struct rp_clock_sample *b = &s[best];
	/* Midpoint without overflow: t0 + (t1 - t0) / 2. */
	int64_t rtt = b->t1 - b->t0, mid = b->t0 + rtt / 2;
	*o = (struct rp_clock_offset){
		.offset_ns = b->tr - mid,
		.bound_ns = (rtt + 1) / 2,
		.rtt_ns = rtt,
		.at_ns = mid,
	};
	return 0;
}

double rp_clock_drift_ppb(const struct rp_clock_offset *before, const struct rp_clock_offset *after)
{
	int64_t dt = after->at_ns - before->at_ns;
	if (dt <= 0)
		return 0;
	return (double)(after->offset_ns - before->offset_ns) / (double)dt * 1e9;
}

double rp_clock_drift_bound_ppb(const struct rp_clock_offset *before, const struct rp_clock_offset *after)
{
	int64_t dt = after->at_ns - before->at_ns;
	if (dt <= 0)
		return 0;
	return (double)(before->bound_ns + after->bound_ns) / (double)dt * 1e9;
}

int64_t rp_clock_run_bound_ns(const struct rp_clock_offset *before, const struct rp_clock_offset *after)
{
	int64_t moved = after->offset_ns - before->offset_ns;
	return before->bound_ns + (moved < 0 ? -moved : moved) + before->bound_ns + after->bound_ns;
}
