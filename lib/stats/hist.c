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
	rp_sums_add(&h->sums, v);
}

/* d[0..n) += s[0..n), words low first. */
static void add_words(uint64_t *d, const uint64_t *s, unsigned n)
{
	unsigned c = 0;
	for (unsigned i = 0; i < n; i++) {
		uint64_t x = d[i] + s[i], y = x + c;
		c = (x < s[i]) + (y < x);
		d[i] = y;
	}
}

void rp_sums_merge(struct rp_sums *dst, const struct rp_sums *src)
{
	add_words(dst->s, src->s, 2);
	add_words(dst->q, src->q, 3);
}

/* A number of n 64-bit words, low first, as a long double. */
static long double words_ld(const uint64_t *w, unsigned n)
{
	long double x = 0;
	for (unsigned i = n; i-- > 0;)
		x = x * 18446744073709551616.0L + (long double)w[i];
	return x;
}

/* The whole part and the rest apart: a mean below 2^64 is then as exact as a
 * long double holds it (the sum alone may need more than its 64 bits). */
long double rp_sums_mean(const struct rp_sums *m, uint64_t count)
{
	if (!count)
		return 0;
	unsigned __int128 s = (unsigned __int128)m->s[1] << 64 | m->s[0];
	unsigned __int128 whole = s / count;
	return (long double)whole + (long double)(uint64_t)(s % count) / (long double)count;
}

/* r[0..na+nb) = a * b, words low first. */
static void mul_words(const uint64_t *a, unsigned na, const uint64_t *b, unsigned nb, uint64_t *r)
{
	memset(r, 0, (na + nb) * sizeof(*r));
	for (unsigned i = 0; i < na; i++) {
		uint64_t carry = 0;
		for (unsigned j = 0; j < nb; j++) {
			unsigned __int128 t = (unsigned __int128)a[i] * b[j] + r[i + j] + carry;
			r[i + j] = (uint64_t)t;
			carry = (uint64_t)(t >> 64);
		}
		r[i + nb] = carry;
	}
}

double rp_sums_stdev(const struct rp_sums *m, uint64_t count)
{
	if (count == 0)
		return 0.0;
	uint64_t nq[4], ss[4], d[4], borrow = 0;
	mul_words(&count, 1, m->q, 3, nq); /* count * sumsq */
	mul_words(m->s, 2, m->s, 2, ss);   /* sum^2 */
	for (unsigned i = 0; i < 4; i++) {
		uint64_t x = nq[i] - ss[i], y = x - borrow;
		borrow = (nq[i] < ss[i]) + (x < borrow);
		d[i] = y;
	}
	if (borrow) /* count * sumsq >= sum^2 for any samples: these sums are no samples' */
		return 0.0;
	long double var = words_ld(d, 4) / (long double)count / (long double)count;
	return var > 0 ? (double)sqrtl(var) : 0.0;
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
	memset(&h->sums, 0, sizeof(h->sums));
}

void rp_moments_merge(const struct rp_moments *dst, uint64_t count, uint64_t min, uint64_t max,
		      const struct rp_sums *sums)
{
	rp_sums_merge(dst->sums, sums);
	*dst->count += count;
	if (min < *dst->min)
		*dst->min = min;
	if (max > *dst->max)
		*dst->max = max;
}

void rp_hist_merge_moments(struct rp_hist *dst, uint64_t count, uint64_t min, uint64_t max,
			   const struct rp_sums *sums)
{
	const struct rp_moments d = {&dst->count, &dst->min, &dst->max, &dst->sums};
	rp_moments_merge(&d, count, min, max, sums);
}

static void merge_moments(struct rp_hist *dst, const struct rp_hist *src)
{
	rp_hist_merge_moments(dst, src->count, src->min, src->max, &src->sums);
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

double rp_hist_stdev(const struct rp_hist *h)
{
	return rp_sums_stdev(&h->sums, h->count);
}

void rp_hist_summarize_walk(struct rp_hist_summary *s, uint64_t count, uint64_t min, uint64_t max,
			    const struct rp_sums *sums, rp_hist_walk_fn next, const void *h)
{
	memset(s, 0, sizeof(*s));
	if (count == 0)
		return;
	s->count = count;
	s->min = min;
	s->max = max;
	s->mean = (double)rp_sums_mean(sums, count);
	s->stdev = rp_sums_stdev(sums, count);
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
	rp_hist_summarize_walk(s, h->count, h->min, h->max, &h->sums, walk_hist, h);
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
