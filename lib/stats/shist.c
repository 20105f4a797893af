#include "shist.h"

#include <stdlib.h>
#include <string.h>

#define IDX(e) ((size_t)((e) >> RP_SHIST_COUNT_BITS))
#define CNT(e) ((e) & ((1ull << RP_SHIST_COUNT_BITS) - 1))

void rp_shist_init(struct rp_shist *s)
{
	memset(s, 0, sizeof(*s));
	s->min = UINT64_MAX;
}

void rp_shist_free(struct rp_shist *s)
{
	free(s->e);
	rp_shist_init(s);
}

/* The first entry whose bucket is >= idx. */
static uint32_t lower_bound(const struct rp_shist *s, size_t idx)
{
	uint32_t lo = 0, hi = s->n;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		if (IDX(s->e[mid]) < idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int add_bucket(struct rp_shist *s, size_t idx, uint64_t count)
{
	/* A flow's next latency mostly falls in the bucket of the one before. */
	uint32_t at = s->last < s->n && IDX(s->e[s->last]) == idx ? s->last : lower_bound(s, idx);
	if (at < s->n && IDX(s->e[at]) == idx) {
		s->e[at] += count;
		s->last = at;
		return 0;
	}
	if (s->n == s->cap) {
		uint32_t cap = s->cap ? s->cap * 2 : 4;
		uint64_t *e = realloc(s->e, cap * sizeof(*e));
		if (!e)
			return -1;
		s->e = e;
		s->cap = cap;
	}
	memmove(s->e + at + 1, s->e + at, (s->n - at) * sizeof(*s->e));
	s->e[at] = (uint64_t)idx << RP_SHIST_COUNT_BITS | count;
	s->n++;
	s->last = at;
	return 0;
}

int rp_shist_record_batch(struct rp_shist *s, const struct rp_hist_batch *b)
{
	s->count += b->n;
	if (b->min < s->min)
		s->min = b->min;
	if (b->max > s->max)
		s->max = b->max;
	rp_sums_merge(&s->sums, &b->sums);
	int rc = 0;
	for (uint32_t i = 0, j; i < b->n; i = j) {
		for (j = i + 1; j < b->n && b->idx[j] == b->idx[i]; j++)
			;
		rc |= add_bucket(s, b->idx[i], j - i);
	}
	return rc;
}

int rp_shist_record_n(struct rp_shist *s, const uint64_t *v, size_t n)
{
	int rc = 0;
	for (size_t i = 0; i < n; i += RP_HIST_BATCH) {
		struct rp_hist_batch b;
		rp_hist_batch_of(&b, v + i, n - i < RP_HIST_BATCH ? n - i : RP_HIST_BATCH);
		rc |= rp_shist_record_batch(s, &b);
	}
	return rc;
}

int rp_shist_record(struct rp_shist *s, uint64_t v)
{
	return rp_shist_record_n(s, &v, 1);
}

void rp_shist_expand(const struct rp_shist *s, struct rp_hist *out, const struct rp_shist *prev)
{
	if (prev) {
		for (uint32_t i = 0; i < prev->n; i++)
			out->b[IDX(prev->e[i])] = 0;
	} else {
		memset(out->b, 0, sizeof(out->b));
	}
	out->count = s->count;
	out->min = s->min;
	out->max = s->max;
	out->sums = s->sums;
	for (uint32_t i = 0; i < s->n; i++)
		out->b[IDX(s->e[i])] = CNT(s->e[i]);
}

void rp_shist_merge_into(struct rp_hist *dst, const struct rp_shist *s)
{
	if (s->count == 0)
		return;
	for (uint32_t i = 0; i < s->n; i++)
		dst->b[IDX(s->e[i])] += CNT(s->e[i]);
	rp_hist_merge_moments(dst, s->count, s->min, s->max, &s->sums);
}

int rp_shist_merge(struct rp_shist *dst, const struct rp_shist *src)
{
	if (src->count == 0)
		return 0;
	int rc = 0;
	for (uint32_t i = 0; i < src->n; i++)
		rc |= add_bucket(dst, IDX(src->e[i]), CNT(src->e[i]));
	const struct rp_moments d = {&dst->count, &dst->min, &dst->max, &dst->sums};
	rp_moments_merge(&d, src->count, src->min, src->max, &src->sums);
	return rc;
}

bool rp_shist_next(const struct rp_shist *s, size_t *pos, uint64_t *upper, uint64_t *count)
{
	if (*pos >= s->n)
		return false;
	*upper = rp_hist_bucket_hi(IDX(s->e[*pos]));
	*count = CNT(s->e[*pos]);
	(*pos)++;
	return true;
}

/* s empty with h's count, min, max and moments (its buckets to come). */
static void summary_of(struct rp_shist *s, const struct rp_hist *h)
{
	s->n = 0;
	s->count = h->count;
	s->min = h->min;
	s->max = h->max;
	s->sums = h->sums;
}

int rp_shist_from(struct rp_shist *s, const struct rp_hist *h)
{
	summary_of(s, h);
	size_t pos = 0;
	uint64_t upper, count;
	while (h->count && rp_hist_next(h, &pos, &upper, &count))
		if (add_bucket(s, pos - 1, count))
			return -1;
	return 0;
}

int rp_shist_from_buckets(struct rp_shist *s, const struct rp_hist *h, const uint16_t *idx, uint32_t n)
{
	if (n > s->cap) {
		uint64_t *e = realloc(s->e, n * sizeof(*e));
		if (!e)
			return -1;
		s->e = e;
		s->cap = n;
	}
	summary_of(s, h);
	for (uint32_t i = 0; h->count && i < n; i++)
		s->e[s->n++] = (uint64_t)idx[i] << RP_SHIST_COUNT_BITS | h->b[idx[i]];
	return 0;
}

static bool walk_shist(const void *s, size_t *pos, uint64_t *upper, uint64_t *count)
{
	return rp_shist_next(s, pos, upper, count);
}

void rp_shist_summarize(const struct rp_shist *s, struct rp_hist_summary *out)
{
	rp_hist_summarize_walk(out, s->count, s->min, s->max, &s->sums, walk_shist, s);
}

size_t rp_shist_bytes(const struct rp_shist *s)
{
	return (size_t)s->cap * sizeof(*s->e);
}
