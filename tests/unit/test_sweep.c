/* lib/lab's sweep (issue 27: out of app/cmd_lab.c): --sweep axes parsed and
 * refused, the grid's point order, a point's --set strings, sweep.csv's
 * rows, the --jobs runner's outcomes in point order (real child processes),
 * and a whole sweep driven with a stand-in for the point's run (its
 * sweep.csv byte for byte). Expected values are literals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lab/sweep.h"
#include "lab/sweep_jobs.h"
#include "lab/sweep_out.h"
#include "lab/sweep_run.h"

static void axis_parses_key_and_values(void **state)
{
	(void)state;
	static struct rp_sweep_axis a;
	char err[256];
	assert_int_equal(rp_sweep_axis_parse("fabric.pfc.xoff=100KiB,200KiB,1MiB", &a, err, sizeof(err)), 0);
	assert_string_equal(a.key, "fabric.pfc.xoff");
	assert_int_equal(a.n, 3);
	assert_string_equal(a.vals[0], "100KiB");
	assert_string_equal(a.vals[1], "200KiB");
	assert_string_equal(a.vals[2], "1MiB");
	assert_int_equal(rp_sweep_axis_parse("seed=7", &a, err, sizeof(err)), 0);
	assert_int_equal(a.n, 1);
	assert_string_equal(a.vals[0], "7");
}

static void axis_refusals_say_which(void **state)
{
	(void)state;
	static struct rp_sweep_axis a;
	char err[256], spec[1300];
	assert_int_equal(rp_sweep_axis_parse("=1,2", &a, err, sizeof(err)), -1);
	assert_string_equal(err, "--sweep '=1,2': key or values too long");
	assert_int_equal(rp_sweep_axis_parse("k=1,,2", &a, err, sizeof(err)), -1);
	assert_string_equal(err, "--sweep 'k=1,,2': 1 to 64 non-empty values");
	assert_int_equal(rp_sweep_axis_parse("k=", &a, err, sizeof(err)), -1);
	assert_string_equal(err, "--sweep 'k=': 1 to 64 non-empty values");
	/* 65 values "1,1,...,1": one too many */
	strcpy(spec, "k=1");
	for (int i = 1; i < 65; i++)
		strcat(spec, ",1");
	assert_int_equal(rp_sweep_axis_parse(spec, &a, err, sizeof(err)), -1);
	assert_non_null(strstr(err, ": 1 to 64 non-empty values"));
	spec[strlen(spec) - 2] = '\0'; /* 64: taken */
	assert_int_equal(rp_sweep_axis_parse(spec, &a, err, sizeof(err)), 0);
	assert_int_equal(a.n, 64);
	/* a key of 128 bytes: at most 127 */
	memset(spec, 'k', 128);
	strcpy(spec + 128, "=1");
	assert_int_equal(rp_sweep_axis_parse(spec, &a, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "': key or values too long"));
}

static void grid_counts_points_and_refuses_too_many(void **state)
{
	(void)state;
	static struct rp_sweep s;
	char err[256], big[200];
	const char *specs[] = {"a=1,2,3", "b=x,y"};
	assert_int_equal(rp_sweep_parse(&s, specs, 2, err, sizeof(err)), 0);
	assert_int_equal(s.npoints, 6); /* 3 x 2 */
	/* 64 x 64 = 4096 points: the limit; 64 x 64 x 2 = 8192: refused */
	strcpy(big, "k=0");
	for (int i = 1; i < 64; i++)
		sprintf(big + strlen(big), ",%d", i);
	const char *fits[] = {big, big};
	assert_int_equal(rp_sweep_parse(&s, fits, 2, err, sizeof(err)), 0);
	assert_int_equal(s.npoints, 4096);
	const char *over[] = {big, big, "c=1,2"};
	assert_int_equal(rp_sweep_parse(&s, over, 3, err, sizeof(err)), -1);
	assert_string_equal(err, "--sweep: 8192 points; at most 4096");
}

static void grid_steps_last_axis_fastest(void **state)
{
	(void)state;
	static struct rp_sweep s;
	char err[256];
	const char *specs[] = {"a=1,2,3", "b=x,y"};
	assert_int_equal(rp_sweep_parse(&s, specs, 2, err, sizeof(err)), 0);
	/* (a, b) as nested loops, b inside: 00 01 10 11 20 21, then back to 00 */
	static const size_t want[6][2] = {{0, 0}, {0, 1}, {1, 0}, {1, 1}, {2, 0}, {2, 1}};
	size_t idx[RP_SWEEP_MAX_AXES] = {0};
	for (int p = 0; p < 6; p++) {
		assert_int_equal(idx[0], want[p][0]);
		assert_int_equal(idx[1], want[p][1]);
		assert_int_equal(rp_sweep_next(&s, idx), p < 5);
	}
	assert_int_equal(idx[0], 0);
	assert_int_equal(idx[1], 0);
}

static void point_sets_and_at(void **state)
{
	(void)state;
	static struct rp_sweep s;
	static char sets[RP_SWEEP_MAX_AXES][RP_SWEEP_SET_LEN];
	const char *out[RP_SWEEP_MAX_AXES];
	char err[256];
	const char *specs[] = {"fabric.pfc.xoff=100KiB,200KiB", "fabric.seed=1,2,3"};
	assert_int_equal(rp_sweep_parse(&s, specs, 2, err, sizeof(err)), 0);
	const size_t idx[] = {1, 2};
	rp_sweep_point_sets(&s, idx, sets, out);
	assert_string_equal(out[0], "fabric.pfc.xoff=200KiB");
	assert_string_equal(out[1], "fabric.seed=3");
	json_t *at = rp_sweep_point_at(&s, idx);
	char *txt = json_dumps(at, JSON_COMPACT | JSON_PRESERVE_ORDER);
	assert_string_equal(txt, "{\"fabric.pfc.xoff\":\"200KiB\",\"fabric.seed\":\"3\"}");
	free(txt);
	json_decref(at);
}

static const struct rp_lab_headline H1 = {.loss_pct = 0.5, .lost = 3, .drops = 7, .paused_pct = 12.5, .p99_ns = 4200,
					  .p999_ns = 9100, .latency_samples = 10, .goodput_gbps = 99.25,
					  .max_queue_bytes = 65536, .end_ns = 1000000};

static void csv_rows(void **state)
{
	(void)state;
	static struct rp_sweep s;
	char err[256], buf[512] = "";
	const char *specs[] = {"fabric.pfc.xoff=100KiB,200KiB", "fabric.seed=1,2"};
	assert_int_equal(rp_sweep_parse(&s, specs, 2, err, sizeof(err)), 0);
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	assert_non_null(f);
	rp_sweep_csv_header(f, &s);
	const size_t idx[] = {1, 0};
	rp_sweep_csv_row(f, &s, idx, 2, &H1);
	struct rp_lab_headline h0 = H1;
	h0.latency_samples = 0; /* no probe carried a timestamp: empty p99 and p99.9 cells */
	rp_sweep_csv_row(f, &s, idx, 3, &h0);
	fclose(f);
	assert_string_equal(buf,
			    "point,fabric.pfc.xoff,fabric.seed,loss_pct,lost,drops,paused_pct,p99_ns,p999_ns,goodput_gbps,"
			    "max_queue_bytes,virtual_ns\n"
			    "2,200KiB,1,0.500000,3,7,12.5000,4200,9100,99.2500,65536,1000000\n"
			    "3,200KiB,1,0.500000,3,7,12.5000,,,99.2500,65536,1000000\n");
}

/* --jobs: point p's child answers end_ns = 1000 * p + 7 and lost = p;
 * points from fail_at on fail. */
struct fake {
	size_t fail_at;
	pid_t parent;
};

static int fake_point(void *arg, size_t p, struct rp_lab_headline *h, char *err, size_t errlen)
{
	const struct fake *f = arg;
	if (getpid() == f->parent)
		return -1; /* must run in a child */
	if (p >= f->fail_at) {
		snprintf(err, errlen, "point %zu failed on purpose", p);
		return -1;
	}
	*h = (struct rp_lab_headline){.end_ns = 1000 * p + 7, .lost = p};
	return 0;
}

static void jobs_in_children_in_point_order(void **state)
{
	(void)state;
	static struct rp_sweep_job res[10];
	char err[256];
	struct fake f = {.fail_at = 100, .parent = getpid()};
	assert_int_equal(rp_sweep_jobs_run(10, 3, fake_point, &f, NULL, res, err, sizeof(err)), 0);
	for (size_t p = 0; p < 10; p++) {
		assert_int_equal(res[p].status, RP_SWEEP_JOB_DONE);
		assert_int_equal(res[p].h.end_ns, 1000 * p + 7);
		assert_int_equal(res[p].h.lost, p);
	}
}

static void jobs_stop_starting_after_a_failure(void **state)
{
	(void)state;
	static struct rp_sweep_job res[40];
	char err[256];
	struct fake f = {.fail_at = 5, .parent = getpid()};
	assert_int_equal(rp_sweep_jobs_run(40, 2, fake_point, &f, NULL, res, err, sizeof(err)), 0);
	for (size_t p = 0; p < 5; p++)
		assert_int_equal(res[p].status, RP_SWEEP_JOB_DONE);
	assert_int_equal(res[5].status, RP_SWEEP_JOB_FAILED);
	assert_string_equal(res[5].err, "point 5 failed on purpose");
	/* at most 2 run at once: once 5 failed, 6 at most had started; none past 7 */
	for (size_t p = 8; p < 40; p++)
		assert_int_equal(res[p].status, RP_SWEEP_JOB_NOT_RUN);
}

static void jobs_none_start_once_stopped(void **state)
{
	(void)state;
	static struct rp_sweep_job res[4];
	char err[256];
	volatile sig_atomic_t stop = 1;
	struct fake f = {.fail_at = 100, .parent = getpid()};
	assert_int_equal(rp_sweep_jobs_run(4, 2, fake_point, &f, &stop, res, err, sizeof(err)), 0);
	for (size_t p = 0; p < 4; p++)
		assert_int_equal(res[p].status, RP_SWEEP_JOB_NOT_RUN);
}

static int crash_point(void *arg, size_t p, struct rp_lab_headline *h, char *err, size_t errlen)
{
	(void)arg, (void)h, (void)err, (void)errlen;
	if (p == 1)
		abort();
	return 0;
}

/* A point's process that dies without its result is a failure with a line. */
static void jobs_a_dead_child_is_a_failure(void **state)
{
	(void)state;
	static struct rp_sweep_job res[2];
	char err[256];
	assert_int_equal(rp_sweep_jobs_run(2, 2, crash_point, NULL, NULL, res, err, sizeof(err)), 0);
	assert_int_equal(res[0].status, RP_SWEEP_JOB_DONE);
	assert_int_equal(res[1].status, RP_SWEEP_JOB_FAILED);
	assert_string_equal(res[1].err, "sweep point 1: its process ended by signal 6, without its result"); /* SIGABRT */
}

/* A whole sweep over a shipped profile (every point checked by lib/lab),
 * its runs stood in for: the headline is H1 with lost = the calls so far.
 * No cmocka assert here: it may run in a child (--jobs). */
struct stand {
	size_t calls;
	size_t fail_at;
};

static int stand_in(void *arg, const struct rp_lab_one_opts *one, const char *dir, struct rp_lab_headline *h,
		    char *err, size_t errlen)
{
	struct stand *st = arg;
	/* the user's --set first, then the point's */
	if (one->nsets != 2 || strcmp(one->sets[0], "fabric.seed=9") != 0 ||
	    strncmp(one->sets[1], "fabric.pfc.xoff=", 16) != 0 || !strstr(dir, "/point-")) {
		snprintf(err, errlen, "unexpected point options");
		return -1;
	}
	*h = H1;
	h->lost = st->calls++;
	if (h->lost == st->fail_at) {
		snprintf(err, errlen, "point failed on purpose");
		return -1;
	}
	return 0;
}

static void slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
}

static void whole_sweep_serial_and_jobs(void **state)
{
	(void)state;
	static struct rp_sweep s;
	char err[RP_LAB_ONE_ERR], tmpl[] = "/tmp/test_sweep.XXXXXX", dir[256], path[300], buf[2048];
	assert_non_null(mkdtemp(tmpl));
	const char *specs[] = {"fabric.pfc.xoff=100KiB,200KiB"}, *user[] = {"fabric.seed=9"};
	assert_int_equal(rp_sweep_parse(&s, specs, 1, err, sizeof(err)), 0);
	const struct rp_lab_one_opts one = {.profile = RP_PROFILES_DIR "/incast-8to1.yaml", .sets = user, .nsets = 1,
					    .bin_ns = 100000};
	for (unsigned jobs = 1; jobs <= 2; jobs++) {
		struct stand st = {.fail_at = 99};
		size_t points = 0;
		snprintf(dir, sizeof(dir), "%s/j%u", tmpl, jobs);
		const struct rp_sweep_run_opts o = {.out = dir, .one = &one, .jobs = jobs, .run = stand_in, .arg = &st};
		assert_int_equal(rp_sweep_run(&o, &s, &points, err, sizeof(err)), 0);
		assert_int_equal(points, 2);
		snprintf(path, sizeof(path), "%s/sweep.csv", dir);
		slurp(path, buf, sizeof(buf));
		/* lost is the call count: 0 and 1 serially; in children each
		 * starts from the parent's 0 */
		assert_string_equal(buf, jobs == 1 ? "point,fabric.pfc.xoff,loss_pct,lost,drops,paused_pct,p99_ns,p999_ns,"
						     "goodput_gbps,max_queue_bytes,virtual_ns\n"
						     "0,100KiB,0.500000,0,7,12.5000,4200,9100,99.2500,65536,1000000\n"
						     "1,200KiB,0.500000,1,7,12.5000,4200,9100,99.2500,65536,1000000\n"
						   : "point,fabric.pfc.xoff,loss_pct,lost,drops,paused_pct,p99_ns,p999_ns,"
						     "goodput_gbps,max_queue_bytes,virtual_ns\n"
						     "0,100KiB,0.500000,0,7,12.5000,4200,9100,99.2500,65536,1000000\n"
						     "1,200KiB,0.500000,0,7,12.5000,4200,9100,99.2500,65536,1000000\n");
		snprintf(path, sizeof(path), "%s/sweep.json", dir);
		json_t *j = json_load_file(path, 0, NULL);
		assert_non_null(j);
		assert_string_equal(json_string_value(json_object_get(j, "schema")), "roceprobe.sweep/1");
		json_t *p1 = json_array_get(json_object_get(j, "points"), 1);
		snprintf(path, sizeof(path), "%s/point-1", dir);
		assert_string_equal(json_string_value(json_object_get(p1, "dir")), path);
		assert_string_equal(json_string_value(json_object_get(json_object_get(p1, "at"), "fabric.pfc.xoff")), "200KiB");
		json_decref(j);
	}
	/* point 1 fails (serially: the second call): its line, point 0's row, no sweep.json */
	struct stand st = {.fail_at = 1};
	size_t points = 0;
	snprintf(dir, sizeof(dir), "%s/fail", tmpl);
	const struct rp_sweep_run_opts of = {.out = dir, .one = &one, .jobs = 1, .run = stand_in, .arg = &st};
	assert_int_equal(rp_sweep_run(&of, &s, &points, err, sizeof(err)), -1);
	assert_string_equal(err, "point failed on purpose");
	snprintf(path, sizeof(path), "%s/sweep.csv", dir);
	slurp(path, buf, sizeof(buf));
	assert_non_null(strstr(buf, "\n0,100KiB,"));
	assert_null(strstr(buf, "\n1,"));
	snprintf(path, sizeof(path), "%s/sweep.json", dir);
	assert_int_equal(access(path, F_OK), -1);
	/* a value the profile refuses: no call, nothing made */
	const char *bad[] = {"fabric.pfc.xoff=100KiB,lots"};
	assert_int_equal(rp_sweep_parse(&s, bad, 1, err, sizeof(err)), 0);
	st = (struct stand){.fail_at = 99};
	snprintf(dir, sizeof(dir), "%s/bad", tmpl);
	const struct rp_sweep_run_opts o = {.out = dir, .one = &one, .jobs = 1, .run = stand_in, .arg = &st};
	assert_int_equal(rp_sweep_run(&o, &s, &points, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "lots"));
	assert_int_equal(st.calls, 0);
	assert_int_equal(access(dir, F_OK), -1);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpl);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(axis_parses_key_and_values),
		cmocka_unit_test(axis_refusals_say_which),
		cmocka_unit_test(grid_counts_points_and_refuses_too_many),
		cmocka_unit_test(grid_steps_last_axis_fastest),
		cmocka_unit_test(point_sets_and_at),
		cmocka_unit_test(csv_rows),
		cmocka_unit_test(jobs_in_children_in_point_order),
		cmocka_unit_test(jobs_stop_starting_after_a_failure),
		cmocka_unit_test(jobs_none_start_once_stopped),
		cmocka_unit_test(jobs_a_dead_child_is_a_failure),
		cmocka_unit_test(whole_sweep_serial_and_jobs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
