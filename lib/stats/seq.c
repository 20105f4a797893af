#include "seq.h"

#include <string.h>

#define WORDS RP_WIN_WORDS

void rp_seq_init(struct rp_seq *s, uint64_t first)
{
	memset(s, 0, sizeof(*s));
	s->next = first;
	s->started = true;
	s->low = UINT64_MAX;
}

void rp_seq_init_from_first(struct rp_seq *s)
{
	memset(s, 0, sizeof(*s));
	s->from_first = true;
	s->low = UINT64_MAX;
}

void rp_seq_free(struct rp_seq *s) { rp_win_free(&s->win); }

static void bit_set(uint64_t *bits, uint64_t seq)
{
	uint64_t i = seq % RP_SEQ_WINDOW;
	bits[i / 64] |= 1ull << (i % 64);
}

/* Forget seqs [from, to): their slots are reused for the new seqs. Whole
 * words at a time, so a long gap costs at most WORDS stores. */
static void clear_range(uint64_t *bits, uint64_t from, uint64_t to)
{
	if (to - from >= RP_SEQ_WINDOW) {
		memset(bits, 0, WORDS * sizeof(*bits));
		return;
	}
	while (from < to) {
		uint64_t i = from % RP_SEQ_WINDOW, w = i / 64, b = i % 64;
		uint64_t n = 64 - b;
		if (n > to - from)
			n = to - from;
		uint64_t mask = n == 64 ? ~0ull : ((1ull << n) - 1) << b;
		bits[w] &= ~mask;
		from += n;
	}
}

static enum rp_seq_verdict rx_ahead(struct rp_seq *s, uint64_t seq)
{
	uint64_t gap = seq - s->next;
	if (!gap) {
		rp_win_take_next(&s->win, seq);
	} else {
		uint64_t *bits = rp_win_bits(&s->win, s->next);
		if (bits) {
			clear_range(bits, s->next, seq + 1);
			bit_set(bits, seq);
		}
	}
	s->lost += gap;
	s->next = seq + 1;
	s->unique++;
	return gap ? RP_SEQ_GAP : RP_SEQ_IN_ORDER;
}

/* A seq below next: late (it was counted lost) or a duplicate. */
static enum rp_seq_verdict rx_behind(struct rp_seq *s, uint64_t seq)
{
	if (s->next - seq > RP_SEQ_WINDOW) {
		s->stale++;
	} else if (rp_win_get(&s->win, seq, s->next - seq)) {
		s->duplicates++;
		return RP_SEQ_DUPLICATE;
	} else {
		uint64_t *bits = rp_win_bits(&s->win, s->next);
		if (bits)
			bit_set(bits, seq);
	}
	s->unique++;
	s->reordered++;
	if (s->lost)
		s->lost--;
	return RP_SEQ_REORDERED;
}

enum rp_seq_verdict rp_seq_rx_any(struct rp_seq *s, uint64_t seq)
{
	if (!s->started) {
		s->started = true;
		s->next = seq;
	}
	s->received++;
	if (seq < s->low)
		s->low = seq;
	return seq >= s->next ? rx_ahead(s, seq) : rx_behind(s, seq);
}

bool rp_seq_hole(struct rp_seq *s, uint64_t seq)
{
	if (!s->started || seq != s->next)
		return false;
	uint64_t *bits = rp_win_bits(&s->win, s->next);
	if (bits)
		clear_range(bits, seq, seq + 1);
	s->next = seq + 1;
	s->lost++;
	return true;
}

void rp_seq_finish(struct rp_seq *s, bool sent_known, uint64_t sent)
{
	if (sent_known)
		s->lost = sent > s->unique ? sent - s->unique : 0;
}
