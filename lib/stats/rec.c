/* The binary record codec (rec.h): the checked reads. */
#include "rec.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#define U(x) ((unsigned long long)(x))

bool rp_rec_fail(struct rp_rec_rd *r, const char *fmt, ...)
{
	if (!r->bad) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(r->err, r->errlen, fmt, ap);
		va_end(ap);
	}
	r->bad = true;
	return false;
}

uint64_t rp_rec_get(struct rp_rec_rd *r, unsigned n)
{
	if (r->bad)
		return 0;
	if (r->len - r->off < n) {
		rp_rec_fail(r, "%s truncated at byte %llu of %llu", r->what, U(r->off), U(r->len));
		return 0;
	}
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)r->p[r->off + i] << (8 * i);
	r->off += n;
	return v;
}

double rp_rec_getf(struct rp_rec_rd *r)
{
	uint64_t v = rp_rec_get64(r);
	double d;
	memcpy(&d, &v, 8);
	if (!isfinite(d))
		rp_rec_fail(r, "%s: a non-finite number at byte %llu", r->what, U(r->off - 8));
	return d;
}

bool rp_rec_fits(struct rp_rec_rd *r, uint64_t count, size_t min)
{
	if (!r->bad && count > (r->len - r->off) / min)
		return rp_rec_fail(r, "%s: %llu records cannot fit in %llu bytes", r->what, U(count), U(r->len - r->off));
	return !r->bad;
}
