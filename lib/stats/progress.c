#include "progress.h"

#include <math.h>
#include <stdio.h>

void rp_progress_span(double s, char *buf, size_t len)
{
	if (!(s > 0))
		s = 0;
	if (s < 9.95)
		snprintf(buf, len, "%.1f s", s);
	else if (s < 119.5)
		snprintf(buf, len, "%.0f s", s);
	else if (s < 7200)
		snprintf(buf, len, "%.0f min", s / 60);
	else
		snprintf(buf, len, "%.1f h", s / 3600);
}

void rp_progress_left(double done_s, double total_s, char *buf, size_t len)
{
	if (!(total_s > 0)) {
		if (len)
			buf[0] = '\0';
		return;
	}
	/* within 50 ms of the end is the end (the line that prints "3.0s of 3.0s" runs a few
	 * microseconds before a flow's last packet) */
	double d = done_s < 0 ? 0 : done_s > total_s - 0.05 ? total_s : done_s;
	char left[32];
	rp_progress_span(total_s - d, left, sizeof(left));
	snprintf(buf, len, " of %.1fs (%.0f%%), %s left", total_s, floor(100.0 * d / total_s), left);
}
