/* The share done and the time left of a command's progress line (run, gen,
 * certify, lab): one wording for all of them. No clocks: the caller says how far
 * it is and where it ends. */
#ifndef RP_STATS_PROGRESS_H
#define RP_STATS_PROGRESS_H

#include <stddef.h>

/* A span of seconds as a progress line says it: "1.3 s" (below 10 s), "12 s",
 * "3 min" (from 2 min), "2.5 h" (from 2 h). */
void rp_progress_span(double s, char *buf, size_t len);

/* " of 10.0s (30%), 7.0 s left" after the elapsed time a line already printed
 * (done_s), for a run that ends at total_s; done past the end, or within
 * 50 ms of it, says 100% and 0s left. total_s <= 0 (the end is not known):
 * "" (elapsed only). */
void rp_progress_left(double done_s, double total_s, char *buf, size_t len);

#endif
