/* RED as switches use it for ECN: the marking probability from the queue
 * depth, and the deterministic random numbers that decide each packet. */
#ifndef RP_FABRIC_RED_H
#define RP_FABRIC_RED_H

#include <stdint.h>

/* 0 at or below kmin, pmax * (q - kmin) / (kmax - kmin) up to kmax, 1 above
 * kmax (the DCQCN convention: mark everything past kmax). */
double rp_red_prob(uint64_t depth, uint64_t kmin, uint64_t kmax, double pmax);

/* xorshift64* (Vigna): a fixed seed gives the same marks every run, which is
 * what a known-answer test needs; state must not be 0. */
uint64_t rp_xorshift64s(uint64_t *state);
/* Uniform in [0, 1) from the top 53 bits. */
double rp_rand_unit(uint64_t *state);

#endif
