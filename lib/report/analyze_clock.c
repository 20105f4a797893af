/* Whether analyze --latency's one-way delays mean anything (analyze.h). */
#include <inttypes.h>
#include <stdio.h>

#include "analyze.h"

/* No fabric holds a packet for a second (PFC watchdogs drop long before): a
 * longer one-way delay, or a probe that arrived before it was sent, means the
 * probes were stamped by another clock than the capture's. */
#define MAX_ONE_WAY_NS 1000000000ull

int rp_analyze_latency_clock(const struct rp_acct *a, char *err, size_t errlen)
{
	uint64_t skew = 0, n = 0;
	for (size_t i = 0; i < rp_acct_nflows(a); i++) {
		struct rp_acct_flow_result r;
		rp_acct_flow(a, i, &r);
		skew += r.clock_skew;
	}
	struct rp_hist_summary s;
	rp_hist_summarize(rp_acct_latency(a), &s);
	n = s.count + skew;
	if (skew) {
		snprintf(err, errlen, "--latency: %" PRIu64 " of %" PRIu64 " probes arrived before their TX time: the "
			 "capture's clock is not the one that stamped the probes; drop --latency", skew, n);
		return -1;
	}
	if (s.count && s.max > MAX_ONE_WAY_NS) {
		snprintf(err, errlen, "--latency: one-way delays up to %.3g s (min %.3g s): the capture's clock is not "
			 "the one that stamped the probes; drop --latency", (double)s.max / 1e9, (double)s.min / 1e9);
		return -1;
	}
	return 0;
}