#include "series.h"

#include <stdlib.h>

void rp_series_init(struct rp_series *s, uint32_t nbins, uint64_t bin_ns)
{
	s->bins = NULL;
	s->nbins = bin_ns ? nbins : 0;
	s->bin_ns = bin_ns;
	s->last = 0;
	s->last_lo = 0;
	s->last_hi = s->nbins ? bin_ns : 0;
	s->held = 0;
	s->past_end = false;
}

static void raise_bin(struct rp_series *s, uint32_t b, uint64_t v)
{
	if (s->bins[b] < v)
		s->bins[b] = v;
}

/* Bins after the last change up to b (now_ns's bin) start with the held
 * value in them. */
static uint32_t carry_to(struct rp_series *s, uint64_t b)
{
	if (b >= s->nbins) {
		s->past_end = true;
		b = s->nbins - 1;
		s->last_lo = s->last_hi = 0;
	} else if (b != s->last) {
		s->last_lo = b * s->bin_ns;
		s->last_hi = s->last_lo + s->bin_ns;
	}
	for (uint32_t i = s->last + 1; i <= b; i++)
		raise_bin(s, i, s->held);
	s->last = (uint32_t)b;
	return (uint32_t)b;
}

static uint64_t bin_of(const struct rp_series *s, uint64_t now_ns)
{
	return now_ns >= s->last_lo && now_ns < s->last_hi ? s->last : now_ns / s->bin_ns;
}

void rp_series_fini(struct rp_series *s)
{
	free(s->bins);
	s->bins = NULL;
}

void rp_series_record(struct rp_series *s, uint64_t now_ns, uint64_t v)
{
	if (!s->nbins)
		return;
	if (!s->bins && !(s->bins = calloc(s->nbins, sizeof(*s->bins)))) {
		s->nbins = 0;
		return;
	}
	uint64_t nb = bin_of(s, now_ns);
	bool in_window = nb < s->nbins;
	uint32_t b = carry_to(s, nb);
	if (in_window)
		raise_bin(s, b, v);
	s->held = v;
}

uint32_t rp_series_settle(struct rp_series *s, uint64_t now_ns)
{
	if (!s->nbins || !s->bins)
		return 0;
	return carry_to(s, bin_of(s, now_ns)) + 1;
}
