/* One lab run: load, make the directory, build, run, then the pieces the
 * files are written from (one.h). */
#include "one.h"

#include <stdlib.h>
#include <string.h>

#include "profile/units.h"
#include "report/outdir.h"
#include "traffic/expect.h"

static double wall_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The progress callbacks' state: rp_lab_one_run's, for its run. */
struct progress {
	double t0, last;
	uint64_t last_events;
	const struct rp_lab_one_opts *o;
};

/* A capture write failed (a full disk): said at once, the run goes on. */
static void on_capture_failed(const char *msg, uint64_t now_ns, void *arg)
{
	const struct progress *p = arg;
	if (p->o->notes)
		fprintf(p->o->notes,
			"roceprobe lab: capture stopped at virtual %.3f ms: %s; every pcap keeps its whole records up to "
			"there, the run goes on uncaptured (result.json: lab.capture_complete false)\n",
			(double)now_ns / 1e6, msg);
}

static void on_progress(uint64_t now_ns, uint64_t events, void *arg)
{
	struct progress *p = arg;
	double t = wall_s();
	if (!p->o->progress || t - p->last < 0.5)
		return;
	fprintf(p->o->progress, "lab: virtual %.3f ms, %.2f M events/s\n", (double)now_ns / 1e6,
		(double)(events - p->last_events) / (t - p->last) / 1e6);
	p->last = t;
	p->last_events = events;
}

/* Capture that stopped at --capture-max or at the disk's room (a failed
 * write was said when it happened). */
static void capture_note(const struct rp_lab_one *r, const struct rp_lab_one_opts *o, const char *dir)
{
	struct rp_lab_totals t;
	rp_lab_totals(r->lab, &t);
	if (!o->notes || !t.capture_stopped || t.capture_failed)
		return;
	char sz[32];
	rp_format_size(t.capture_max, sz, sizeof(sz));
	if (t.capture_room_limited)
		fprintf(o->notes,
			"roceprobe lab: capture stopped at virtual %.3f ms: %s has room for %s of pcaps (the rest is kept "
			"for result.json); the run went on uncaptured (free space, or lower --snaplen)\n",
			(double)t.capture_stopped_ns / 1e6, dir, sz);
	else
		fprintf(o->notes,
			"roceprobe lab: capture stopped at virtual %.3f ms: the pcaps reached --capture-max %s; the run went "
			"on uncaptured (raise --capture-max or lower --snaplen)\n",
			(double)t.capture_stopped_ns / 1e6, sz);
}

/* The time series' bins end before the run did (a DCQCN run slowed past
 * the length they were sized for): its last events are in the totals only. */
static void series_note(const struct rp_lab_one *r, const struct rp_lab_one_opts *o)
{
	const struct rp_ts *ts = rp_acct_timeseries(rp_lab_acct(r->lab));
	struct rp_lab_totals t;
	rp_lab_totals(r->lab, &t);
	if (!o->notes || !ts || !ts->outside)
		return;
	fprintf(o->notes,
		"roceprobe lab: the time series stops at virtual %.3f ms (%zu bins); the run went on to %.3f ms: "
		"%llu events after it are in the totals, not in timeseries (result.json timeseries.outside)\n",
		(double)(ts->end_ns - ts->cfg.start_ns) / 1e6, ts->cfg.nbins, (double)t.end_ns / 1e6,
		(unsigned long long)ts->outside);
}

int rp_lab_one_load(struct rp_lab_one *r, const struct rp_lab_one_opts *o, char *err, size_t errlen)
{
	const struct rp_profile_opts po = {.sets = o->sets, .nsets = o->nsets, .allow_pause_storm = o->allow_pause_storm};
	if (!(r->prof = rp_profile_load(o->profile, &po, err, errlen)))
		return -1;
	if (rp_lab_check_fit(r->prof, err, errlen) || rp_plan_build(r->prof, &r->plan, err, errlen))
		return -1;
	r->planned = true;
	return rp_lab_check_plan(&r->plan, err, errlen) ? -1 : 0;
}

int rp_lab_one_check(const struct rp_lab_one_opts *o, char *err, size_t errlen)
{
	struct rp_lab_one r = {0};
	int rc = rp_lab_one_load(&r, o, err, errlen);
	if (rc == 0) { /* the fabric is built too (its limits are checked there), no files */
		const struct rp_lab_opts lo = {.bin_ns = o->bin_ns};
		if (!(r.lab = rp_lab_create(r.prof, &r.plan, &lo, err, errlen)))
			rc = -1;
	}
	rp_lab_one_free(&r);
	return rc;
}

/* After the run: the pieces result.json and summary.txt share. */
static int finish(struct rp_lab_one *r, char *err, size_t errlen)
{
	rp_lab_headline(r->lab, &r->head);
	const struct rp_acct *a = rp_lab_acct(r->lab);
	double *expect = rp_plan_expect_goodput(&r->plan, NULL, rp_acct_nflows(a));
	const struct rp_pairs_plan pp = {expect, rp_plan_lossless(r->prof)};
	r->pairs = rp_pairs_build(a, &pp);
	free(expect);
	if (!(r->prop = rp_lab_propagation(r->lab)) || !r->pairs) {
		snprintf(err, errlen, "out of memory for the pause propagation and pairs of %zu flows", rp_acct_nflows(a));
		return -1;
	}
	return 0;
}

int rp_lab_one_run(struct rp_lab_one *r, const struct rp_lab_one_opts *o, const char *dir, char *err, size_t errlen)
{
	struct progress pg = {.o = o};
	/* The profile is checked before dir is made: bad input leaves nothing behind. */
	if (rp_lab_one_load(r, o, err, errlen) || rp_outdir_prepare(dir, o->force, err, errlen))
		return -1;
	const struct rp_lab_opts lo = {.capture_dir = o->capture ? dir : NULL, .snaplen = o->snaplen,
				       .capture_max = o->capture_max, .capture_rotate = o->capture_rotate,
				       .bin_ns = o->bin_ns, .progress = on_progress, .progress_arg = &pg, .stop = o->stop,
				       .capture_failed = on_capture_failed};
	if (!(r->lab = rp_lab_create(r->prof, &r->plan, &lo, err, errlen)))
		return -1;
	r->started = time(NULL);
	pg.t0 = pg.last = wall_s();
	int rc = rp_lab_run(r->lab, err, errlen) || rp_lab_close_captures(r->lab, err, errlen) ? -1 : 0;
	r->wall = wall_s() - pg.t0;
	if (rc == 0) {
		capture_note(r, o, dir);
		series_note(r, o);
	}
	return rc ? rc : finish(r, err, errlen);
}

void rp_lab_one_free(struct rp_lab_one *r)
{
	rp_lab_propagation_free(r->prop);
	rp_pairs_free(r->pairs);
	rp_lab_destroy(r->lab);
	if (r->planned)
		rp_plan_free(&r->plan);
	rp_profile_free(r->prof);
	*r = (struct rp_lab_one){0};
}
