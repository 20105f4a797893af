/* Jain's fairness index of per-client goodputs in an incast:
 *   J(x) = (sum x)^2 / (n * sum x^2)
 * 1.0 when every client got the same, 1/n when one client got everything.
 * Pure; 0.0 for n == 0 or all-zero input (undefined: nobody got anything). */
#ifndef RP_VERBS_FAIR_H
#define RP_VERBS_FAIR_H

#include <stddef.h>

double rp_jain_index(const double *x, size_t n);

#endif
