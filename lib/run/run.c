/* What every step of a run shares: its error line and its clocks. */
#include <stdarg.h>
#include <stdio.h>

#include "run.h"

int rp_run_fail(struct rp_run *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->s.err, sizeof(r->s.err), fmt, ap);
	va_end(ap);
	return RP_RUN_USAGE;
}

int64_t rp_run_corrected_ns(const void *arg)
{
	const struct rp_run *r = arg;
	return rp_cluster_now_ns() - (r->cl.launched ? r->offsets[r->cl.rank].offset_ns : 0);
}

uint64_t rp_run_max_delay(const struct rp_profile *p)
{
	uint64_t d = 0;
	for (size_t h = 0; h < p->nhosts; h++)
		d = p->hosts[h].impair.delay_ns > d ? p->hosts[h].impair.delay_ns : d;
	return d;
}
