/* A binary record in little-endian fields, the one codec of every record
 * roceprobe ships between processes (lib/stats/acct_pack.c: the accountant's;
 * lib/report/rank_env.c: a rank's facts).
 *
 * Writing counts every byte and stores those that fit, so a first pass with
 * buf NULL sizes the record. Reading checks every field against len, keeps the
 * first error (named after the record: "merge buffer truncated at byte 12 of
 * 10") and returns 0 after it, so a decoder reads on and checks r->bad once. */
#ifndef RP_STATS_REC_H
#define RP_STATS_REC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct rp_rec_wr {
	uint8_t *buf;
	size_t cap, len;
};

struct rp_rec_rd {
	const uint8_t *p;
	size_t len, off;
	char *err;
	size_t errlen;
	bool bad;
	const char *what; /* the record's name in messages: "merge buffer", "rank record" */
};

static inline void rp_rec_put(struct rp_rec_wr *w, uint64_t v, unsigned n)
{
	if (w->buf && w->len + n <= w->cap)
		for (unsigned i = 0; i < n; i++)
			w->buf[w->len + i] = (uint8_t)(v >> (8 * i));
	w->len += n;
}
static inline void rp_rec_put8(struct rp_rec_wr *w, uint64_t v) { rp_rec_put(w, v, 1); }
static inline void rp_rec_put16(struct rp_rec_wr *w, uint64_t v) { rp_rec_put(w, v, 2); }
static inline void rp_rec_put32(struct rp_rec_wr *w, uint64_t v) { rp_rec_put(w, v, 4); }
static inline void rp_rec_put64(struct rp_rec_wr *w, uint64_t v) { rp_rec_put(w, v, 8); }
static inline void rp_rec_puti(struct rp_rec_wr *w, int64_t v) { rp_rec_put(w, (uint64_t)v, 8); }
static inline void rp_rec_putf(struct rp_rec_wr *w, double d)
{
	uint64_t v;
	memcpy(&v, &d, 8);
	rp_rec_put64(w, v);
}

/* The record's first error (printf-style); false, for `return rp_rec_fail(...)`. */
__attribute__((format(printf, 2, 3))) bool rp_rec_fail(struct rp_rec_rd *r, const char *fmt, ...);

/* n bytes (1..8) as a number; 0 once the record is bad or too short. */
uint64_t rp_rec_get(struct rp_rec_rd *r, unsigned n);
static inline uint8_t rp_rec_get8(struct rp_rec_rd *r) { return (uint8_t)rp_rec_get(r, 1); }
static inline uint16_t rp_rec_get16(struct rp_rec_rd *r) { return (uint16_t)rp_rec_get(r, 2); }
static inline uint32_t rp_rec_get32(struct rp_rec_rd *r) { return (uint32_t)rp_rec_get(r, 4); }
static inline int32_t rp_rec_geti32(struct rp_rec_rd *r) { return (int32_t)rp_rec_get(r, 4); }
static inline uint64_t rp_rec_get64(struct rp_rec_rd *r) { return rp_rec_get(r, 8); }
static inline int64_t rp_rec_geti(struct rp_rec_rd *r) { return (int64_t)rp_rec_get(r, 8); }
/* A double; a NaN or infinity makes the record bad. */
double rp_rec_getf(struct rp_rec_rd *r);
/* A list of count records of at least min bytes each must fit in what is left. */
bool rp_rec_fits(struct rp_rec_rd *r, uint64_t count, size_t min);

#endif
