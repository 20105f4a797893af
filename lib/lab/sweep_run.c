/* A whole sweep (sweep_run.h). */
#include "sweep_run.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/outdir.h"
#include "sweep_jobs.h"
#include "sweep_out.h"

/* A point's options: the user's, its sets followed by the point's. */
struct point {
	struct rp_lab_one_opts one;
	const char **sets;
	char vals[RP_SWEEP_MAX_AXES][RP_SWEEP_SET_LEN];
};

static int point_opts(const struct rp_sweep_run_opts *o, const struct rp_sweep *s, const size_t *idx, struct point *pt)
{
	const struct rp_lab_one_opts *u = o->one;
	if (!(pt->sets = malloc((u->nsets + s->nax) * sizeof(*pt->sets))))
		return -1;
	memcpy(pt->sets, u->sets, u->nsets * sizeof(*pt->sets));
	rp_sweep_point_sets(s, idx, pt->vals, pt->sets + u->nsets);
	pt->one = *u;
	pt->one.sets = pt->sets;
	pt->one.nsets = u->nsets + s->nax;
	return 0;
}

static void point_dir(const struct rp_sweep_run_opts *o, size_t point, char dir[4096])
{
	snprintf(dir, 4096, "%s/point-%zu", o->out, point);
}

/* Every point loads, plans and builds its fabric, before the first runs. */
static int check_all(const struct rp_sweep_run_opts *o, const struct rp_sweep *s, char *err, size_t errlen)
{
	size_t idx[RP_SWEEP_MAX_AXES] = {0};
	int rc = 0;
	do {
		struct point pt;
		if (point_opts(o, s, idx, &pt)) {
			snprintf(err, errlen, "out of memory for a sweep point's --set options");
			return -1;
		}
		rc = rp_lab_one_check(&pt.one, err, errlen);
		free(pt.sets);
	} while (rc == 0 && rp_sweep_next(s, idx));
	return rc;
}

/* The grid in point order, for the runs (serial or in children). */
struct sweep_ctx {
	const struct rp_sweep_run_opts *o;
	const struct rp_sweep *s;
	size_t (*idxs)[RP_SWEEP_MAX_AXES];
};

static int run_point(void *arg, size_t point, struct rp_lab_headline *h, char *err, size_t errlen)
{
	const struct sweep_ctx *c = arg;
	char dir[4096];
	struct point pt;
	point_dir(c->o, point, dir);
	if (point_opts(c->o, c->s, c->idxs[point], &pt)) {
		snprintf(err, errlen, "out of memory for a sweep point's --set options");
		return -1;
	}
	if (c->o->progress)
		fprintf(c->o->progress, "lab: sweep point %zu: %s\n", point, dir);
	int rc = c->o->run(c->o->arg, &pt.one, dir, h, err, errlen);
	free(pt.sets);
	return rc;
}

static void row(const struct sweep_ctx *c, FILE *csv, json_t *rows, size_t point, const struct rp_lab_headline *h)
{
	char dir[4096];
	point_dir(c->o, point, dir);
	rp_sweep_csv_row(csv, c->s, c->idxs[point], point, h);
	json_array_append_new(rows, rp_sweep_json_row(c->s, c->idxs[point], point, dir, h));
}

/* The points one after another, up to the first that fails or a signal. */
static int run_serial(const struct sweep_ctx *c, FILE *csv, json_t *rows, size_t *done, char *err, size_t errlen)
{
	for (size_t p = 0; p < c->s->npoints; p++) {
		struct rp_lab_headline h;
		int rc = run_point((void *)c, p, &h, err, errlen);
		if (rc < 0)
			return -1;
		if (rc > 0) /* a signal in its set-up: it never ran, no row */
			break;
		row(c, csv, rows, p, &h);
		*done = p + 1;
		if (c->o->stop && *c->o->stop) /* a signal: the points so far */
			break;
	}
	return 0;
}

/* The points in children; the rows in order, up to the first that failed
 * or never ran. */
static int run_parallel(const struct sweep_ctx *c, FILE *csv, json_t *rows, size_t *done, char *err, size_t errlen)
{
	size_t n = c->s->npoints;
	struct rp_sweep_job *res = calloc(n, sizeof(*res));
	if (!res) {
		snprintf(err, errlen, "out of memory for %zu sweep points' results", n);
		return -1;
	}
	int rc = rp_sweep_jobs_run(n, c->o->jobs, run_point, (void *)c, c->o->stop, res, err, errlen);
	size_t p = 0;
	for (; p < n && res[p].status == RP_SWEEP_JOB_DONE; p++)
		row(c, csv, rows, p, &res[p].h);
	*done = p;
	if (rc == 0 && p < n && res[p].status == RP_SWEEP_JOB_FAILED) {
		snprintf(err, errlen, "%s", res[p].err);
		rc = -1;
	}
	free(res);
	return rc;
}

int rp_sweep_run(const struct rp_sweep_run_opts *o, const struct rp_sweep *s, size_t *points, char *err,
		 size_t errlen)
{
	char path[4096];
	*points = 0;
	if (check_all(o, s, err, errlen) || rp_outdir_prepare(o->out, o->one->force, err, errlen))
		return -1;
	struct sweep_ctx c = {.o = o, .s = s, .idxs = calloc(s->npoints, sizeof(*c.idxs))};
	if (!c.idxs) {
		snprintf(err, errlen, "out of memory for %zu sweep points", s->npoints);
		return -1;
	}
	size_t idx[RP_SWEEP_MAX_AXES] = {0}, n = 0;
	do
		memcpy(c.idxs[n++], idx, sizeof(idx));
	while (rp_sweep_next(s, idx));
	snprintf(path, sizeof(path), "%s/sweep.csv", o->out);
	FILE *csv = fopen(path, "w");
	if (!csv) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		free(c.idxs);
		return -1;
	}
	rp_sweep_csv_header(csv, s);
	json_t *rows = json_array();
	int rc = o->jobs > 1 ? run_parallel(&c, csv, rows, points, err, errlen)
			     : run_serial(&c, csv, rows, points, err, errlen);
	fclose(csv);
	snprintf(path, sizeof(path), "%s/sweep.json", o->out);
	if (rc == 0)
		rc = rp_sweep_write_json(path, o->one->profile, rows, err, errlen);
	json_decref(rows);
	free(c.idxs);
	return rc;
}
