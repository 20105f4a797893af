#include "verbs/fair.h"

double rp_jain_index(const double *x, size_t n)
{
	double s = 0, s2 = 0;
	for (size_t i = 0; i < n; i++) {
		s += x[i];
		s2 += x[i] * x[i];
	}
	if (n == 0 || s2 == 0)
		return 0.0;
	return s * s / ((double)n * s2);
}
