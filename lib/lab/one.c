/* One lab run: load, make the directory, build, run, then the pieces the
 * files are written from (one.h). */
#include "one.h"
#include "metrics/flows.h"
#include "metrics/prom.h"

#include <stdlib.h>
#include <string.h>

#include "profile/units.h"
#include "report/flowset.h"
#include "report/outdir.h"
#include "stats/progress.h"
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
	uint64_t planned_ns;  /* rp_lab_planned_ns */
	double setup_t0;      /* when the set-up began */
	bool setup_said;      /* a stage line is out: every next stage is said as it starts */
	char stage[128];      /* the set-up stage under way */
	const struct rp_lab_one_opts *o;
};

/* Set-up stages are said once the set-up has taken a second (a short one
 * says nothing): the stage under way then, and each next one as it starts.
 * Non-zero: a signal, stop. */
static int on_setup(const char *stage, void *arg)
{
	struct progress *p = arg;
	if (stage)
		snprintf(p->stage, sizeof(p->stage), "%s", stage);
	if (p->o->progress && ((stage && p->setup_said) || (!p->setup_said && wall_s() - p->setup_t0 >= 1.0))) {
		fprintf(p->o->progress, "lab: set-up: %s\n", p->stage);
		p->setup_said = true;
	}
	return p->o->stop && *p->o->stop;
}

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

/* "about 12 s left", "about 3 min left": the rest of the planned virtual
 * time at the virtual-time rate so far (the span as run's and certify's
 * progress say it, lib/stats/progress.h). */
static void time_left(char *buf, size_t len, double left_s)
{
	char span[32];
	rp_progress_span(left_s, span, sizeof(span));
	snprintf(buf, len, "about %s left", span);
}

static void on_progress(uint64_t now_ns, uint64_t events, void *arg)
{
	struct progress *p = arg;
	if (p->o->live) {
		__atomic_store_n(&p->o->live->virtual_ns, now_ns, __ATOMIC_RELAXED);
		__atomic_store_n(&p->o->live->events, events, __ATOMIC_RELAXED);
	}
	double t = wall_s();
	if (!p->o->progress || t - p->last < 0.5)
		return;
	double rate = (double)(events - p->last_events) / (t - p->last) / 1e6;
	if (now_ns > 0 && now_ns < p->planned_ns) {
		char left[48];
		time_left(left, sizeof(left), (double)(p->planned_ns - now_ns) * (t - p->t0) / (double)now_ns);
		fprintf(p->o->progress, "lab: virtual %.3f of %.3f ms (%.0f%%), %.2f M events/s, %s\n",
			(double)now_ns / 1e6, (double)p->planned_ns / 1e6, 100.0 * (double)now_ns / (double)p->planned_ns,
			rate, left);
	} else {
		fprintf(p->o->progress, "lab: virtual %.3f ms (planned %.3f ms: past it, the fabric slowed it), "
			"%.2f M events/s\n", (double)now_ns / 1e6, (double)p->planned_ns / 1e6, rate);
	}
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
	if (rp_lab_check_fit(r->prof, err, errlen) ||
	    rp_lab_mirror_check(r->prof, o->mirrors, o->nmirrors, err, errlen) ||
	    rp_plan_build(r->prof, &r->plan, err, errlen))
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

/* After the run: the pieces result.json and summary.txt share. A run
 * stopped by a signal leaves the pairs out beyond RP_REPORT_FLOWS_INLINE
 * flows (seconds for a million); a signal while they are built does too. */
static int finish(struct rp_lab_one *r, char *err, size_t errlen)
{
	rp_lab_headline(r->lab, &r->head);
	const struct rp_acct *a = rp_lab_acct(r->lab);
	bool many = rp_acct_nflows(a) > RP_REPORT_FLOWS_INLINE;
	if (r->stopped_in && many) {
		r->detail_skipped = true;
	} else {
		double *expect = rp_plan_expect_goodput(&r->plan, NULL, rp_acct_nflows(a));
		const struct rp_pairs_plan pp = {.expect_gbps = expect, .lossless = rp_plan_lossless(r->prof)};
		r->pairs = rp_pairs_build(a, &pp);
		free(expect);
		if (!r->pairs && rp_outdir_cancelled()) {
			rp_outdir_stop_taken();
			r->stopped_in = "write";
			r->detail_skipped = true;
		}
	}
	if (!(r->prop = rp_lab_propagation(r->lab)) || (!r->pairs && !r->detail_skipped)) {
		snprintf(err, errlen, "out of memory for the pause propagation and pairs of %zu flows", rp_acct_nflows(a));
		return -1;
	}
	return 0;
}

int rp_lab_one_run(struct rp_lab_one *r, const struct rp_lab_one_opts *o, const char *dir, char *err, size_t errlen)
{
	struct progress pg = {.o = o, .setup_t0 = wall_s()};
	r->started = time(NULL);
	on_setup("profile and plan", &pg);
	/* The profile is checked before dir is made: bad input leaves nothing behind. */
	if (rp_lab_one_load(r, o, err, errlen) || rp_outdir_prepare(dir, o->force, err, errlen))
		return -1;
	const struct rp_lab_opts lo = {.capture_dir = o->capture ? dir : NULL, .snaplen = o->snaplen,
				       .capture_max = o->capture_max, .capture_rotate = o->capture_rotate,
				       .bin_ns = o->bin_ns, .evidence_dir = dir, .mirrors = o->mirrors,
				       .nmirrors = o->nmirrors, .counters_ns = o->counters_ns, .progress = on_progress, .progress_arg = &pg, .stop = o->stop,
				       .capture_failed = on_capture_failed, .setup = on_setup};
	if (on_setup(NULL, &pg) || !(r->lab = rp_lab_create(r->prof, &r->plan, &lo, err, errlen))) {
		if (!(o->stop && *o->stop))
			return -1;
		rp_outdir_abandon(dir, false); /* the pcaps the hosts made so far: nothing ran */
		r->stopped_in = "set-up";
		return 0;
	}
	r->started = time(NULL);
	pg.planned_ns = rp_lab_planned_ns(r->lab);
	pg.t0 = pg.last = wall_s();
	if (o->live) {
		__atomic_store_n(&o->live->planned_ns, pg.planned_ns, __ATOMIC_RELAXED);
		__atomic_store_n(&o->live->stage, RP_LAB_STAGE_RUN, __ATOMIC_RELAXED);
	}
	int rc = rp_lab_run(r->lab, err, errlen) || rp_lab_close_captures(r->lab, err, errlen) ? -1 : 0;
	if (o->live) {
		struct rp_lab_totals tot;
		rp_lab_totals(r->lab, &tot);
		__atomic_store_n(&o->live->virtual_ns, tot.end_ns, __ATOMIC_RELAXED);
		__atomic_store_n(&o->live->events, tot.events, __ATOMIC_RELAXED);
		__atomic_store_n(&o->live->stage, RP_LAB_STAGE_WRITE, __ATOMIC_RELAXED);
	}
	r->wall = wall_s() - pg.t0;
	struct rp_lab_totals t;
	rp_lab_totals(r->lab, &t);
	if (rc == 0 && t.stopped) { /* from here only what is small is written (report/outdir.h) */
		r->stopped_in = "run";
		rp_outdir_stop_taken();
	}
	if (rc == 0) {
		capture_note(r, o, dir);
		series_note(r, o);
	}
	size_t nflows = rp_acct_nflows(rp_lab_acct(r->lab));
	if (rc == 0 && o->progress && r->wall >= 1.0 && nflows > RP_REPORT_FLOWS_INLINE && !r->stopped_in)
		fprintf(o->progress, "lab: pairs and pause propagation of %zu flows\n", nflows); /* seconds for a million */
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

const char *const rp_lab_stage_names[RP_LAB_STAGES] = {"set-up", "run", "write", "done"};

void rp_lab_metrics_live(struct rp_prom *p, void *arg)
{
	const struct rp_lab_live *l = arg;
	int stage = __atomic_load_n(&l->stage, __ATOMIC_RELAXED);
	rp_prom_family(p, "roceprobe_lab_stage", "gauge", "1 for the stage under way: set-up, run, write or done.");
	for (int k = 0; k < RP_LAB_STAGES; k++) {
		const struct rp_prom_label lb[] = {{"stage", rp_lab_stage_names[k]}};
		rp_prom_u64(p, "roceprobe_lab_stage", lb, 1, k == stage);
	}
	rp_prom_family(p, "roceprobe_lab_virtual_seconds", "gauge", "The virtual time the lab has reached.");
	rp_prom_ns(p, "roceprobe_lab_virtual_seconds", NULL, 0, __atomic_load_n(&l->virtual_ns, __ATOMIC_RELAXED));
	rp_prom_family(p, "roceprobe_lab_planned_seconds", "gauge",
		       "The virtual time the run should end at (the plan's last message or the slowest drain).");
	rp_prom_ns(p, "roceprobe_lab_planned_seconds", NULL, 0, __atomic_load_n(&l->planned_ns, __ATOMIC_RELAXED));
	rp_prom_family(p, "roceprobe_lab_events_total", "counter", "Events the lab has run.");
	rp_prom_u64(p, "roceprobe_lab_events_total", NULL, 0, __atomic_load_n(&l->events, __ATOMIC_RELAXED));
}

void rp_lab_metrics_final(struct rp_prom *p, void *arg)
{
	const struct rp_lab_metrics_final *f = arg;
	rp_lab_metrics_live(p, (void *)f->live);
	if (f->one && f->one->lab)
		rp_metrics_acct(p, rp_lab_acct(f->one->lab));
}
