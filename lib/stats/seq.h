/* Per-flow sequence accounting from the probe's seq: loss, reordering and
 * duplicates, clock-free; its window (win.h) takes memory only once a seq
 * arrives out of order.
 *
 * The window remembers which of the last RP_SEQ_WINDOW seqs below the next
 * expected one arrived. A jump forward counts the skipped seqs as lost; a
 * late arrival of one of them turns it from lost into reordered (never both);
 * a seq seen before is a duplicate. An arrival older than the window cannot
 * be told apart: it is counted as reordered (un-losing one seq) and in
 * `stale`, since a late packet is far likelier than an ancient duplicate.
 *
 * At the end, when the sender's count is known, lost = sent - unique exactly
 * (that also covers a lost tail, which no gap reveals). */
#ifndef RP_STATS_SEQ_H
#define RP_STATS_SEQ_H

#include <stdbool.h>
#include <stdint.h>

#include "win.h"

#define RP_SEQ_WINDOW RP_WIN_SLOTS

struct rp_seq {
	uint64_t next;       /* highest seq seen + 1 (or the first expected) */
	uint64_t received;   /* every arrival, duplicates included */
	uint64_t unique;
	uint64_t lost;       /* gaps not (yet) filled; exact after rp_seq_finish */
	uint64_t reordered;
	uint64_t duplicates;
	uint64_t stale;      /* arrivals older than the window */
	bool started;
	bool from_first;     /* the first arrival sets the start (no loss before it) */
	uint64_t low;        /* the lowest seq arrived off the in-order path, or set by the caller
			      * for the first arrival (UINT64_MAX: none) */
	struct rp_win win;   /* seq s arrived: slot s % W (win.h) */
};

enum rp_seq_verdict { RP_SEQ_IN_ORDER, RP_SEQ_GAP, RP_SEQ_REORDERED, RP_SEQ_DUPLICATE };

/* Sequences start at first (0 for roceprobe's probes). Both inits take a
 * seq that holds no memory (new, or freed: rp_seq_free). */
void rp_seq_init(struct rp_seq *s, uint64_t first);
/* Sequences start at whatever arrives first (a capture that starts mid-run). */
void rp_seq_init_from_first(struct rp_seq *s);
/* The window's memory (a seq that saw a gap or a late arrival holds 512 B). */
void rp_seq_free(struct rp_seq *s);
/* Any arrival (rp_seq_rx takes the next expected seq itself, inline). */
enum rp_seq_verdict rp_seq_rx_any(struct rp_seq *s, uint64_t seq);
static inline enum rp_seq_verdict rp_seq_rx(struct rp_seq *s, uint64_t seq)
{
	if (!s->started || seq != s->next)
		return rp_seq_rx_any(s, seq);
	/* rx_ahead with no gap: the one slot it clears is the one it sets. */
	s->received++;
	rp_win_take_next(&s->win, seq);
	s->next = seq + 1;
	s->unique++;
	return RP_SEQ_IN_ORDER;
}
/* A frame that carried seq but arrived unusable (a wrong ICRC: a NIC drops
 * it). When seq is the next expected one (the stream started), it holds its
 * place: skipped, counted lost as a gap would be, and a later arrival of it
 * is late (un-losing it); true then. Any other seq is not trusted (the
 * corruption may be in it): false, nothing counted. */
bool rp_seq_hole(struct rp_seq *s, uint64_t seq);
/* With the sender's count: lost = sent - unique (0 if fewer were sent than
 * arrived, which means a corrupt count). Without (sent_known false) the
 * gap count stays. */
void rp_seq_finish(struct rp_seq *s, bool sent_known, uint64_t sent);

#endif
