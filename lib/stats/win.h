/* Which of the last RP_WIN_SLOTS values below a stream's next one arrived
 * (rp_seq's probe sequence, rp_psn's PSNs): slot v % RP_WIN_SLOTS is value
 * v's. Sized by use: while the values that arrived are exactly the span of
 * them just below next (a stream that only ever took its next value, the
 * lab's and a clean run's), the window is that count and holds no bitmap;
 * the 512 B bitmap is made, holding the same bits, the first time anything
 * else happens (a gap, a late arrival, a hole). A million flows then carry
 * 16 B of window each instead of 512. The values are unsigned (64-bit seqs,
 * 24-bit PSNs: RP_WIN_SLOTS divides 2^24, so slots survive the wrap). */
#ifndef RP_STATS_WIN_H
#define RP_STATS_WIN_H

#include <stdbool.h>
#include <stdint.h>

#define RP_WIN_SLOTS 4096u
#define RP_WIN_WORDS (RP_WIN_SLOTS / 64)

struct rp_win {
	uint64_t *bits; /* [RP_WIN_WORDS]; NULL: the dense window below */
	uint32_t span;  /* without bits: values next - span .. next - 1 arrived, no others */
	bool nomem;     /* a bitmap could not be made: what needed it was not recorded */
};

/* All zero is an empty window (no bitmap). */
static inline void rp_win_init(struct rp_win *w) { *w = (struct rp_win){0}; }
void rp_win_free(struct rp_win *w);

/* Value v, the next expected, arrived (next moves on to v + 1 in the
 * caller): its slot is set (the one it clears, v - RP_WIN_SLOTS's, is the
 * one it sets). */
static inline void rp_win_take_next(struct rp_win *w, uint64_t v)
{
	if (w->bits)
		w->bits[(v % RP_WIN_SLOTS) / 64] |= 1ull << (v % 64);
	else if (w->span < RP_WIN_SLOTS)
		w->span++;
}

/* Whether value v, back = next - v (1..RP_WIN_SLOTS) below next, arrived. */
static inline bool rp_win_get(const struct rp_win *w, uint64_t v, uint64_t back)
{
	if (w->bits)
		return (w->bits[(v % RP_WIN_SLOTS) / 64] >> (v % 64)) & 1u;
	return back <= w->span;
}

/* The bitmap, made from the dense window below next when there is none
 * yet; NULL when out of memory (nomem set, and the window forgets what it
 * held: its span is 0). */
uint64_t *rp_win_bits(struct rp_win *w, uint64_t next);

/* d = a copy of s (d holds nothing); -1 out of memory (d then has no
 * bitmap, nomem set). */
int rp_win_copy(struct rp_win *d, const struct rp_win *s);

#endif
