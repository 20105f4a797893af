/* A depth time series in fixed bins: each bin keeps the largest value seen
 * in it. Values only change at events, so a value held across bins with no
 * event is carried into them when the next event (or a read) comes. The
 * bins are allocated at the first change (a queue that never held anything
 * costs none: a fabric has many); rp_series_fini frees them. */
#ifndef RP_FABRIC_SERIES_H
#define RP_FABRIC_SERIES_H

#include <stdbool.h>
#include <stdint.h>

struct rp_series {
	uint64_t *bins; /* nbins once the first value came; NULL before */
	uint32_t nbins;
	uint64_t bin_ns;
	uint32_t last;  /* bin of the last change */
	uint64_t last_lo, last_hi; /* its time span [lo, hi) while inside the window (else empty): a change
				      in the same bin needs no division */
	uint64_t held;  /* value since the last change */
	bool past_end;  /* a change came after the last bin */
};

void rp_series_init(struct rp_series *s, uint32_t nbins, uint64_t bin_ns);
void rp_series_fini(struct rp_series *s);
/* The value became v at now_ns (out of memory for the bins: the series
 * stays empty). */
void rp_series_record(struct rp_series *s, uint64_t now_ns, uint64_t v);
/* Carries the held value up to now_ns; returns the bins now covered (0
 * while nothing was recorded). */
uint32_t rp_series_settle(struct rp_series *s, uint64_t now_ns);

#endif
