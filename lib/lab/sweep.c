/* A sweep's grid (sweep.h). */
#include "sweep.h"

#include <stdio.h>
#include <string.h>

int rp_sweep_axis_parse(const char *spec, struct rp_sweep_axis *a, char *err, size_t errlen)
{
	const char *eq = strchr(spec, '=');
	size_t kl = (size_t)(eq - spec);
	if (kl == 0 || kl >= sizeof(a->key) || strlen(eq + 1) >= sizeof(a->buf)) {
		snprintf(err, errlen, "--sweep '%s': key or values too long", spec);
		return -1;
	}
	memcpy(a->key, spec, kl);
	a->key[kl] = '\0';
	strcpy(a->buf, eq + 1);
	a->n = 0;
	for (char *s = a->buf, *tok; (tok = strsep(&s, ",")) != NULL;) {
		if (!*tok || a->n == RP_SWEEP_MAX_VALUES) {
			snprintf(err, errlen, "--sweep '%s': 1 to %d non-empty values", spec, RP_SWEEP_MAX_VALUES);
			return -1;
		}
		a->vals[a->n++] = tok;
	}
	return 0;
}

int rp_sweep_parse(struct rp_sweep *s, const char *const *specs, size_t n, char *err, size_t errlen)
{
	s->nax = n;
	s->npoints = 1;
	for (size_t k = 0; k < n; k++) {
		if (rp_sweep_axis_parse(specs[k], &s->ax[k], err, errlen))
			return -1;
		s->npoints *= s->ax[k].n; /* at most 64^8: no overflow */
	}
	if (s->npoints > RP_SWEEP_MAX_POINTS) {
		snprintf(err, errlen, "--sweep: %zu points; at most %d", s->npoints, RP_SWEEP_MAX_POINTS);
		return -1;
	}
	return 0;
}

bool rp_sweep_next(const struct rp_sweep *s, size_t *idx)
{
	for (size_t k = s->nax; k-- > 0;) {
		if (++idx[k] < s->ax[k].n)
			return true;
		idx[k] = 0;
	}
	return false;
}

void rp_sweep_point_sets(const struct rp_sweep *s, const size_t *idx, char sets[][RP_SWEEP_SET_LEN],
			 const char **out)
{
	for (size_t k = 0; k < s->nax; k++) {
		int n = snprintf(sets[k], RP_SWEEP_SET_LEN, "%.127s=", s->ax[k].key);
		snprintf(sets[k] + n, RP_SWEEP_SET_LEN - (size_t)n, "%.1000s", s->ax[k].vals[idx[k]]);
		out[k] = sets[k];
	}
}

json_t *rp_sweep_point_at(const struct rp_sweep *s, const size_t *idx)
{
	json_t *at = json_object();
	for (size_t k = 0; k < s->nax; k++)
		json_object_set_new(at, s->ax[k].key, json_string(s->ax[k].vals[idx[k]]));
	return at;
}
