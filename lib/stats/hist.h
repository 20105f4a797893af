/* Log-linear latency histogram (HdrHistogram-like), clock-free and
 * allocation-free: a fixed struct the caller places anywhere.
 *
 * Buckets: values 0..255 each have their own bucket (exact). Above, every
 * power-of-two range [2^e, 2^(e+1)) is cut into 128 equal sub-buckets, so a
 * bucket [lo, hi] has hi - lo + 1 = 2^(e-7) <= lo / 128.
 *
 * Stated error bound: a percentile is reported as the upper bound of the
 * bucket that holds the true sample quantile, clamped to the exact [min, max];
 * so reported >= true and reported - true < true / 128, a relative error
 * below 0.79% (< 1%), for every value 0..UINT64_MAX.
 *
 * count, min, max and the mean and standard deviation are exact: they are
 * computed from every recorded sample (the exact integer sum and sum of
 * squares, struct rp_sums), not from the buckets. Nothing is dropped: the largest sample counts too.
 * stdev is the population standard deviation, sqrt(sum((x - mean)^2) / n). */
#ifndef RP_STATS_HIST_H
#define RP_STATS_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RP_HIST_SUB_BITS 7
#define RP_HIST_SUB (1u << RP_HIST_SUB_BITS)               /* 128 sub-buckets per power of two */
#define RP_HIST_LINEAR (2u * RP_HIST_SUB)                 /* 0..255 are exact */
#define RP_HIST_BUCKETS (RP_HIST_LINEAR + (64u - RP_HIST_SUB_BITS - 1u) * RP_HIST_SUB) /* 7424 */

/* The samples' exact sum and sum of squares, in 128 and 192 bits: 2^64
 * samples of up to 2^64 - 1 each cannot overflow them. Integer addition is
 * associative, so every order of recording and merging (sample by sample, a
 * burst at once, rank by rank) gives the same bits; the mean and standard
 * deviation are worked out from them only when read (rp_sums_mean,
 * rp_sums_stdev). Per sample: one 64x64 multiply and five adds, where
 * Welford's update in long double was a chain of x87 operations with a
 * division (15% of rx.sh's per-frame time). */
struct rp_sums {
	uint64_t s[2]; /* the sum, low word first */
	uint64_t q[3]; /* the sum of squares, low word first */
};

static inline void rp_sums_add(struct rp_sums *m, uint64_t v)
{
	unsigned __int128 s = ((unsigned __int128)m->s[1] << 64 | m->s[0]) + v;
	unsigned __int128 sq = (unsigned __int128)v * v;
	unsigned __int128 q = ((unsigned __int128)m->q[1] << 64 | m->q[0]) + sq;
	m->q[2] += q < sq;
	m->s[0] = (uint64_t)s, m->s[1] = (uint64_t)(s >> 64);
	m->q[0] = (uint64_t)q, m->q[1] = (uint64_t)(q >> 64);
}
/* dst += src. */
void rp_sums_merge(struct rp_sums *dst, const struct rp_sums *src);
/* sum / count (0 when count is 0). */
long double rp_sums_mean(const struct rp_sums *m, uint64_t count);
/* The population standard deviation, sqrt((count * sumsq - sum^2)) / count,
 * the numerator worked out exactly in 256 bits (0 when count is 0, or when
 * sums nobody recorded, from a corrupt merge buffer, would make it negative). */
double rp_sums_stdev(const struct rp_sums *m, uint64_t count);

struct rp_hist {
	uint64_t count;
	uint64_t min; /* UINT64_MAX while empty */
	uint64_t max;
	struct rp_sums sums;
	uint64_t b[RP_HIST_BUCKETS];
};

/* The standard percentiles of result.json, in parts per million. */
enum rp_hist_pct { RP_P50, RP_P90, RP_P99, RP_P999, RP_P9999, RP_P99999, RP_PCT_COUNT };
extern const uint32_t rp_hist_pct_ppm[RP_PCT_COUNT]; /* 500000 ... 999990 */

struct rp_hist_summary {
	uint64_t count;
	uint64_t min; /* 0 when empty */
	uint64_t max;
	double mean;
	double stdev;
	uint64_t pct[RP_PCT_COUNT];
};

void rp_hist_init(struct rp_hist *h);
/* The per-packet call: a few shifts, one add and rp_sums_add. */
void rp_hist_record(struct rp_hist *h, uint64_t v);
/* rp_hist_init for a histogram whose samples all went through rp_hist_record
 * or rp_hist_record_counts: only the buckets from min's to max's (where
 * they are) are cleared. */
void rp_hist_clear_used(struct rp_hist *h);
/* dst += src (for aggregates); exact for count/min/max/mean/stdev too. */
void rp_hist_merge(struct rp_hist *dst, const struct rp_hist *src);

/* The count, min, max and sums of a histogram, wherever they live (rp_hist
 * and rp_shist share the merge, so both merge to the same bits). */
struct rp_moments {
	uint64_t *count, *min, *max;
	struct rp_sums *sums;
};
void rp_moments_merge(const struct rp_moments *dst, uint64_t count, uint64_t min, uint64_t max,
		      const struct rp_sums *sums);
/* The moments part of rp_hist_merge: dst takes in a histogram of count
 * samples with these min, max and sums (its buckets added by the caller). */
void rp_hist_merge_moments(struct rp_hist *dst, uint64_t count, uint64_t min, uint64_t max,
			   const struct rp_sums *sums);
/* The rank rp_hist_percentile looks for: ceil(n * ppm / 1e6), at least 1. */
uint64_t rp_hist_rank(uint64_t n, uint32_t ppm);

/* Which bucket v falls in (inline: a clz, a shift and an add, per sample),
 * and a bucket's inclusive bounds. */
static inline size_t rp_hist_index(uint64_t v)
{
	if (v < RP_HIST_LINEAR)
		return (size_t)v;
	unsigned e = 63u - (unsigned)__builtin_clzll(v); /* >= 8 */
	size_t sub = (size_t)(v >> (e - RP_HIST_SUB_BITS)) - RP_HIST_SUB;
	return RP_HIST_LINEAR + (size_t)(e - RP_HIST_SUB_BITS - 1) * RP_HIST_SUB + sub;
}
uint64_t rp_hist_bucket_lo(size_t idx);
uint64_t rp_hist_bucket_hi(size_t idx);

/* Up to RP_HIST_BATCH samples' arithmetic, worked once for every histogram
 * they go into (a flow's latency and its time bin's): their buckets, min,
 * max and exact sums. The sums are exact integers, so adding a batch's
 * total is, bit for bit, adding its samples one by one. */
#define RP_HIST_BATCH 32
struct rp_hist_batch {
	uint32_t n;
	uint64_t min; /* UINT64_MAX when n is 0 */
	uint64_t max;
	struct rp_sums sums;
	uint16_t idx[RP_HIST_BATCH]; /* each sample's bucket, in order */
};
_Static_assert(RP_HIST_BUCKETS <= UINT16_MAX + 1u, "a bucket index fits 16 bits");

/* b = the first n (<= RP_HIST_BATCH) of v. */
static inline void rp_hist_batch_of(struct rp_hist_batch *b, const uint64_t *v, size_t n)
{
	uint64_t min = UINT64_MAX, max = 0;
	struct rp_sums m = {{0, 0}, {0, 0, 0}};
	for (size_t i = 0; i < n; i++) {
		if (v[i] < min)
			min = v[i];
		if (v[i] > max)
			max = v[i];
		rp_sums_add(&m, v[i]);
		b->idx[i] = (uint16_t)rp_hist_index(v[i]);
	}
	b->n = (uint32_t)n, b->min = min, b->max = max, b->sums = m;
}

/* Buckets, count, min and max only, no moments: all rp_hist_percentile
 * reads, for a histogram whose mean and stdev nobody asks for (a time
 * series' open bin: inline, per sample). */
static inline void rp_hist_record_counts(struct rp_hist *h, uint64_t v)
{
	h->b[rp_hist_index(v)]++;
	h->count++;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

/* The value at quantile ppm/1e6: the ceil(n * ppm / 1e6)-th smallest sample
 * (at least the first), reported as described above. 0 when empty. */
uint64_t rp_hist_percentile(const struct rp_hist *h, uint32_t ppm);
double rp_hist_stdev(const struct rp_hist *h);
void rp_hist_summarize(const struct rp_hist *h, struct rp_hist_summary *s);

/* The one summary walk, for any store of rp_hist's buckets (rp_hist, rp_shist):
 * count, min, max and the exact sums as kept, and next walking the
 * non-empty buckets in value order as rp_hist_next does. Every percentile is
 * rp_hist_percentile's answer, found in a single pass. */
typedef bool (*rp_hist_walk_fn)(const void *h, size_t *pos, uint64_t *upper, uint64_t *count);
void rp_hist_summarize_walk(struct rp_hist_summary *s, uint64_t count, uint64_t min, uint64_t max,
			    const struct rp_sums *sums, rp_hist_walk_fn next, const void *h);

/* Walks the non-empty buckets in value order: start with *pos = 0; returns
 * false at the end. upper is the bucket's inclusive upper bound. */
bool rp_hist_next(const struct rp_hist *h, size_t *pos, uint64_t *upper, uint64_t *count);

/* rp_hist_merge when src's non-empty buckets are known (idx, n of them):
 * the same result in n steps instead of RP_HIST_BUCKETS. */
void rp_hist_merge_sparse(struct rp_hist *dst, const struct rp_hist *src, const uint16_t *idx, size_t n);

#endif
