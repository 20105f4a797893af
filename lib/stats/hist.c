#include "hist.h"

#include <math.h>
#include <string.h>

const uint32_t rp_hist_pct_ppm[RP_PCT_COUNT] = {500000, 900000, 990000, 999000, 999900, 999990};

void rp_hist_init(struct rp_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

uint64_t rp_hist_bucket_lo(size_t idx)
{
	if (idx < RP_HIST_LINEAR)
		return idx;
	size_t k = idx - RP_HIST_LINEAR;
	unsigned shift = (unsigned)(k / RP_HIST_SUB) + 1;
	return (uint64_t)(RP_HIST_SUB + k % RP_HIST_SUB) << shift;
}

uint64_t rp_hist_bucket_hi(size_t idx)
{
	if (idx < RP_HIST_LINEAR)
		return idx;
	unsigned shift = (unsigned)((idx - RP_HIST_LINEAR) / RP_HIST_SUB) + 1;
	return rp_hist_bucket_lo(idx) + ((1ull << shift) - 1);
}

void rp_hist_record(struct rp_hist *h, uint64_t v)
{
	rp_hist_record_counts(h, v);
	long double d = (long double)v - h->mean;
	h->mean += d / (long double)h->count;
	h->m2 += d * ((long double)v - h->mean);
}

void rp_hist_clear_used(struct rp_hist *h)
{
	if (h->count) {
		size_t lo = rp_hist_index(h->min), hi = rp_hist_index(h->max);
		memset(&h->b[lo], 0, (hi - lo + 1) * sizeof(h->b[0]));
	}
	h->count = 0;
	h->min = UINT64_MAX;
	h->max = 0;
	h->mean = h->m2 = 0;
}

/* Chan et al.'s pairwise combination of two Welford states. */
void rp_moments_merge(const struct rp_moments *dst, uint64_t count, uint64_t min, uint64_t max, long double mean,
		      long double m2)
{
	long double na = (long double)*dst->count, nb = (long double)count, n = na + nb;
	long double d = mean - *dst->mean;
	*dst->mean += d * nb / n;
	*dst->m2 += m2 + d * d * na * nb / n;
	*dst->count += count;
	if (min < *dst->min)
		*dst->min = min;
	if (max > *dst->max)
		*dst->max = max;
}

void rp_hist_merge_moments(struct rp_hist *dst, uint64_t count, uint64_t min, uint64_t max, long double mean,
			   long double m2)
{
	const struct rp_moments d = {&dst->count, &dst->min, &dst->max, &dst->mean, &dst->m2};
	rp_moments_merge(&d, count, min, max, mean, m2);
}

static void merge_moments(struct rp_hist *dst, const struct rp_hist *src)
{
	rp_hist_merge_moments(dst, src->count, src->min, src->max, src->mean, src->m2);
}

void rp_hist_merge(struct rp_hist *dst, const struct rp_hist *src)
{
	if (src->count == 0)
		return;
	for (size_t i = 0; i < RP_HIST_BUCKETS; i++)
		dst->b[i] += src->b[i];
	merge_moments(dst, src);
}

void rp_hist_merge_sparse(struct rp_hist *dst, const struct rp_hist *src, const uint16_t *idx, size_t n)
{
	if (src->count == 0)
		return;
	for (size_t i = 0; i < n; i++)
		dst->b[idx[i]] += src->b[idx[i]];
	merge_moments(dst, src);
}

/* ceil(n * ppm / 1e6) without overflowing 64 bits. */
uint64_t rp_hist_rank(uint64_t n, uint32_t ppm)
{
	uint64_t whole = n / 1000000u * ppm, rest = n % 1000000u * ppm;
	uint64_t r = whole + rest / 1000000u + (rest % 1000000u != 0);
	return r ? r : 1;
}

/* A bucket's upper bound as reported: clamped to the exact [min, max]. */
static uint64_t reported(uint64_t upper, uint64_t min, uint64_t max)
{
	return upper > max ? max : upper < min ? min : upper;
}

uint64_t rp_hist_percentile(const struct rp_hist *h, uint32_t ppm)
{
	if (h->count == 0)
		return 0;
	uint64_t rank = rp_hist_rank(h->count, ppm), seen = 0;
	for (size_t i = rp_hist_index(h->min); i < RP_HIST_BUCKETS; i++) { /* none below min's bucket */
		seen += h->b[i];
		if (seen >= rank)
			return reported(rp_hist_bucket_hi(i), h->min, h->max);
	}
	return h->max;
}

static double stdev_of(uint64_t count, long double m2)
{
	long double var = count ? m2 / (long double)count : 0;
	return var > 0 ? (double)sqrtl(var) : 0.0;
}

double rp_hist_stdev(const struct rp_hist *h)
{
	return stdev_of(h->count, h->m2);
}

void rp_hist_summarize_walk(struct rp_hist_summary *s, uint64_t count, uint64_t min, uint64_t max, long double mean,
			    long double m2, rp_hist_walk_fn next, const void *h)
{
	memset(s, 0, sizeof(*s));
	if (count == 0)
		return;
	s->count = count;
	s->min = min;
	s->max = max;
	s->mean = (double)mean;
	s->stdev = stdev_of(count, m2);
	/* rp_hist_pct_ppm ascends, so one walk meets every rank in turn. */
	size_t pos = 0;
	uint64_t upper, n, seen = 0;
	unsigned k = 0;
	while (k < RP_PCT_COUNT && next(h, &pos, &upper, &n)) {
		seen += n;
		for (; k < RP_PCT_COUNT && seen >= rp_hist_rank(count, rp_hist_pct_ppm[k]); k++)
			s->pct[k] = reported(upper, min, max);
	}
	for (; k < RP_PCT_COUNT; k++)
		s->pct[k] = max;
}

static bool walk_hist(const void *h, size_t *pos, uint64_t *upper, uint64_t *count)
{
	return rp_hist_next(h, pos, upper, count);
}

void rp_hist_summarize(const struct rp_hist *h, struct rp_hist_summary *s)
{
	rp_hist_summarize_walk(s, h->count, h->min, h->max, h->mean, h->m2, walk_hist, h);
}

bool rp_hist_next(const struct rp_hist *h, size_t *pos, uint64_t *upper, uint64_t *count)
{
	for (size_t i = *pos; i < RP_HIST_BUCKETS; i++) {
		if (h->b[i]) {
			*upper = rp_hist_bucket_hi(i);
			*count = h->b[i];
			*pos = i + 1;
			return true;
		}
	}
	*pos = RP_HIST_BUCKETS;
	return false;
}
