#include "progress.h"

#include <math.h>
#include <stdio.h>

void rp_progress_span(double s, char *buf, size_t len)
{
	double r = s > 0 ? floor(s + 0.5) : 0;
	unsigned long long t = r < 1e15 ? (unsigned long long)r : 999999999999999ULL;
	if (t < 60)
		snprintf(buf, len, "%llus", t);
	else if (t < 3600)
		snprintf(buf, len, "%llum%02llus", t / 60, t % 60);
	else /* to the nearest minute */
		snprintf(buf, len, "%lluh%02llum", (t + 30) / 3600, (t + 30) % 3600 / 60);
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
