/* A sweep's grid: --sweep KEY=V1,V2,... axes, their points in order (the
 * last axis steps fastest, as nested loops would) and each point's --set
 * KEY=VALUE strings. No I/O: sweep_out.h writes the files, sweep_jobs.h runs
 * points in parallel, sweep_run.h drives a whole sweep. */
#ifndef RP_LAB_SWEEP_H
#define RP_LAB_SWEEP_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define RP_SWEEP_MAX_AXES 8
#define RP_SWEEP_MAX_VALUES 64
#define RP_SWEEP_MAX_POINTS 4096
/* A point's KEY=VALUE: a key of at most 127 bytes, a value of at most 1000. */
#define RP_SWEEP_SET_LEN 1200

struct rp_sweep_axis {
	char key[128];
	char *vals[RP_SWEEP_MAX_VALUES]; /* into buf */
	size_t n;
	char buf[1024];
};

struct rp_sweep {
	struct rp_sweep_axis ax[RP_SWEEP_MAX_AXES];
	size_t nax;
	size_t npoints; /* the product of the axes' value counts */
};

/* One axis from "KEY=V1,V2,..." (spec holds a '='; the caller checked):
 * 1 to 64 non-empty values, a key of 1..127 bytes. 0, or -1 with err
 * ("--sweep 'SPEC': ..."). */
int rp_sweep_axis_parse(const char *spec, struct rp_sweep_axis *a, char *err, size_t errlen);
/* Every axis (1..RP_SWEEP_MAX_AXES specs) and the point count, at most
 * RP_SWEEP_MAX_POINTS. 0, or -1 with err. */
int rp_sweep_parse(struct rp_sweep *s, const char *const *specs, size_t n, char *err, size_t errlen);
/* idx (one index per axis, all 0 for the first point) stepped to the next
 * point; false after the last one (idx back to all 0). */
bool rp_sweep_next(const struct rp_sweep *s, size_t *idx);
/* The point's KEY=VALUE strings into sets[k], one per axis, with pointers
 * to them appended to out (room for s->nax). */
void rp_sweep_point_sets(const struct rp_sweep *s, const size_t *idx, char sets[][RP_SWEEP_SET_LEN],
			 const char **out);
/* sweep.json's "at": {"KEY": "VALUE", ...} in axis order. */
json_t *rp_sweep_point_at(const struct rp_sweep *s, const size_t *idx);

#endif
