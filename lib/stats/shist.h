/* A sparse latency histogram: the buckets of rp_hist (hist.h) that hold
 * samples, nothing else. A flow's latencies fall in a few dozen of rp_hist's
 * 7424 buckets, so a flow keeps tens of bytes instead of 58 KiB, which is
 * what lets one accountant hold a million flows. Expands to exactly the
 * rp_hist the same samples would have made (buckets, count, min, max, and
 * the exact sums), and summarises to the same numbers. */
#ifndef RP_STATS_SHIST_H
#define RP_STATS_SHIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hist.h"

#define RP_SHIST_COUNT_BITS 51 /* an entry: bucket index << 51 | count (7424 < 2^13) */

struct rp_shist {
	uint64_t count;
	uint64_t min; /* UINT64_MAX while empty */
	uint64_t max;
	uint32_t last; /* the entry the last sample went to: a hint, checked before use */
	struct rp_sums sums;
	uint64_t *e; /* [n] entries sorted by bucket */
	uint32_t n, cap;
};

void rp_shist_init(struct rp_shist *s);
void rp_shist_free(struct rp_shist *s);
/* 0, or -1 when memory for a new bucket runs out (the sample then counts in
 * count/min/max/mean but in no bucket). */
int rp_shist_record(struct rp_shist *s, uint64_t v);
/* n samples: exactly n rp_shist_record calls (the same sums). */
int rp_shist_record_n(struct rp_shist *s, const uint64_t *v, size_t n);
/* A batch's samples (hist.h): the same as rp_shist_record_n of them, with
 * their arithmetic already done; neighbours in one bucket are added to it
 * at once. */
int rp_shist_record_batch(struct rp_shist *s, const struct rp_hist_batch *b);
/* out = the full histogram. When out already holds prev's expansion (and
 * nothing else), only prev's buckets are cleared first: cheap for a scratch
 * reused flow after flow. prev may be NULL (out is cleared whole). */
void rp_shist_expand(const struct rp_shist *s, struct rp_hist *out, const struct rp_shist *prev);
/* dst += s, exactly as rp_hist_merge(dst, expansion of s). */
void rp_shist_merge_into(struct rp_hist *dst, const struct rp_shist *s);
/* dst += src, as rp_hist_merge does; -1 when out of memory. */
int rp_shist_merge(struct rp_shist *dst, const struct rp_shist *src);
/* Walks the entries in value order as rp_hist_next does: start at *pos = 0. */
bool rp_shist_next(const struct rp_shist *s, size_t *pos, uint64_t *upper, uint64_t *count);
/* s = h (s's old buckets dropped); -1 when out of memory. */
int rp_shist_from(struct rp_shist *s, const struct rp_hist *h);
/* The same when h's non-empty buckets are known: idx[0..n), increasing (the
 * merge's scratch keeps them), in n steps instead of a walk of h; s's
 * entries then take exactly n slots. */
int rp_shist_from_buckets(struct rp_shist *s, const struct rp_hist *h, const uint16_t *idx, uint32_t n);
/* rp_hist_summarize of the expansion, without expanding. */
void rp_shist_summarize(const struct rp_shist *s, struct rp_hist_summary *out);
/* Heap bytes it holds (its entries). */
size_t rp_shist_bytes(const struct rp_shist *s);

#endif
