#include "win.h"

#include <stdlib.h>
#include <string.h>

void rp_win_free(struct rp_win *w)
{
	free(w->bits);
	rp_win_init(w);
}

uint64_t *rp_win_bits(struct rp_win *w, uint64_t next)
{
	if (w->bits)
		return w->bits;
	if (!(w->bits = calloc(RP_WIN_WORDS, sizeof(*w->bits)))) {
		w->nomem = true;
		w->span = 0; /* forgets (later arrivals count as late, not as duplicates) rather than
			      * remember values below a next the caller moves on */
		return NULL;
	}
	for (uint32_t k = 1; k <= w->span; k++) {
		uint64_t v = next - k; /* mod 2^64: RP_WIN_SLOTS divides it, so v's slot is right */
		w->bits[(v % RP_WIN_SLOTS) / 64] |= 1ull << (v % 64);
	}
	w->span = 0;
	return w->bits;
}

int rp_win_copy(struct rp_win *d, const struct rp_win *s)
{
	*d = *s;
	if (!s->bits)
		return 0;
	if (!(d->bits = malloc(RP_WIN_WORDS * sizeof(*d->bits)))) {
		d->nomem = true;
		return -1;
	}
	memcpy(d->bits, s->bits, RP_WIN_WORDS * sizeof(*d->bits));
	return 0;
}
