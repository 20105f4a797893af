/* The run engine (engine_run.h): one `roceprobe run` per workload, a child
 * under the user's launcher or a call in this process, its result.json
 * judged. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cert_internal.h"
#include "engine_run.h"

#define POLL_NS 20000000L
/* After SIGINT, mpirun waits odls_base_sigkill_timeout (T), sends its ranks
 * SIGTERM, waits T again and SIGKILLs them; certify's last resort comes later. */
#define KILL_AFTER_S 90.0

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

bool rp_cert_profile_has_ports(const struct rp_profile *prof)
{
	for (size_t i = 0; i < prof->nhosts; i++)
		if (prof->hosts[i].port[0])
			return true;
	return false;
}

int rp_cert_run_launcher(struct rp_cert_run *r, const char *text, char *err, size_t errlen)
{
	char word[4096];
	size_t n = 0;
	r->launcher_text = text;
	for (const char *s = text;;) {
		while (*s == ' ' || *s == '\t' || *s == '\n')
			s++;
		if (!*s)
			break;
		size_t k = 0;
		char quote = 0;
		for (; *s && (quote || (*s != ' ' && *s != '\t' && *s != '\n')); s++) {
			if (!quote && (*s == '\'' || *s == '"')) {
				quote = *s;
				continue;
			}
			if (quote && *s == quote) {
				quote = 0;
				continue;
			}
			if (k + 1 < sizeof(word))
				word[k++] = *s;
		}
		if (quote) {
			snprintf(err, errlen, "--launcher: unbalanced %c in '%s'", quote, text);
			return -1;
		}
		word[k] = '\0';
		if (n + 1 >= RP_CERT_RUN_MAX_ARGS) {
			snprintf(err, errlen, "--launcher: more than %d words", RP_CERT_RUN_MAX_ARGS - 1);
			return -1;
		}
		if (!(r->launcher[n++] = strdup(word))) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	}
	r->launcher[n] = NULL;
	r->nlauncher = n;
	if (!n) {
		snprintf(err, errlen, "--launcher: empty (give a command such as \"mpirun -np 4 --host a,b,c,d\")");
		return -1;
	}
	return 0;
}

void rp_cert_run_free(struct rp_cert_run *r)
{
	for (size_t i = 0; i < r->nlauncher; i++)
		free(r->launcher[i]);
	r->nlauncher = 0;
	json_decref(r->log);
	r->log = NULL;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

void rp_cert_run_discard(struct rp_cert_run *r)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/runs", r->dir);
	if (r->made_runs_dir)
		nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static int describe(void *ctx, const char *const *sets, size_t nsets, struct rp_cert_fabric *out, char *err,
		    size_t errlen)
{
	struct rp_cert_run *r = ctx;
	(void)sets, (void)nsets, (void)err, (void)errlen;
	memset(out, 0, sizeof(*out)); /* the switches are not ours to read: nothing known */
	out->host_bps = r->prof->nhosts ? r->prof->hosts[0].speed_bps : r->prof->default_speed_bps;
	out->hosts_per_leaf = (unsigned)r->prof->nhosts;
	/* The profile's `switches:`: every child run samples them (the same
	 * profile, counters.switches[]); a test whose counter no source has
	 * says so when it reads the run (res_switch.c). */
	out->switch_sources = r->prof->nswitches > 0;
	return 0;
}

static void begin(void *ctx, unsigned id, const char *label)
{
	struct rp_cert_run *r = ctx;
	if (id != r->test)
		r->n_in_test = 0;
	r->test = id;
	snprintf(r->label, sizeof(r->label), "%s", label);
}

static void say(const struct rp_cert_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const struct rp_cert_run *r, const char *fmt, ...)
{
	char line[RP_CERT_LINE * 2];
	va_list ap;
	if (!r->progress)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	r->progress(line, r->progress_arg);
}

/* The child's command: [launcher...] EXE run PROFILE --set S... -o DIR [--force] [--allow-pause-storm]
 * [--no-preflight] [--no-telemetry] [--capture --snaplen N]. */
static char **command(const struct rp_cert_run *r, const char *exe, const char *const *sets, size_t nsets,
		      const char *out, bool storm)
{
	size_t n = r->nlauncher + 4 + 2 * nsets + 2 + 8, k = 0;
	static char snaplen[16];
	char **argv = calloc(n, sizeof(*argv));
	if (!argv)
		return NULL;
	for (size_t i = 0; i < r->nlauncher; i++)
		argv[k++] = r->launcher[i];
	argv[k++] = (char *)exe;
	argv[k++] = "run";
	argv[k++] = (char *)r->profile_path;
	for (size_t i = 0; i < nsets; i++) {
		argv[k++] = "--set";
		argv[k++] = (char *)sets[i];
	}
	argv[k++] = "-o";
	argv[k++] = (char *)out;
	if (r->force)
		argv[k++] = "--force";
	if (storm)
		argv[k++] = "--allow-pause-storm";
	if (r->no_preflight)
		argv[k++] = "--no-preflight";
	if (r->no_telemetry)
		argv[k++] = "--no-telemetry";
	if (r->capture) {
		snprintf(snaplen, sizeof(snaplen), "%u", r->snaplen);
		argv[k++] = "--capture";
		argv[k++] = "--snaplen";
		argv[k++] = snaplen;
	}
	argv[k] = NULL;
	return argv;
}

static json_t *command_json(char **argv)
{
	json_t *a = json_array();
	for (size_t i = 0; argv[i]; i++)
		json_array_append_new(a, json_string(argv[i]));
	return a;
}

/* Starts argv with stdin /dev/null, stdout and stderr to log, in its own
 * process group (a terminal's Ctrl-C reaches certify alone, which forwards
 * it once, to that group). *pid, or -1 with err (the exec's errno comes back
 * on a pipe). */
static int spawn(char **argv, const char *log, pid_t *pid, char *err, size_t errlen)
{
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	int lfd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (lfd < 0) {
		snprintf(err, errlen, "cannot write %.*s: %s", (int)(errlen / 2), log, strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	fflush(NULL);
	pid_t p = fork();
	if (p < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		close(lfd);
		return -1;
	}
	if (p == 0) {
		setpgid(0, 0);
		/* mpirun's SIGKILL follows its SIGTERM to the ranks after T = 1 s by default:
		 * too soon for them to drain, merge and write (docs/cluster.md); 10 s, unless
		 * the user set it. */
		setenv("OMPI_MCA_odls_base_sigkill_timeout", "10", 0);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		int nul = open("/dev/null", O_RDONLY);
		if (nul >= 0)
			dup2(nul, 0);
		dup2(lfd, 1);
		dup2(lfd, 2);
		execvp(argv[0], argv);
		int e = errno;
		if (write(fds[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(fds[1]);
	close(lfd);
	int e = 0;
	ssize_t got = read(fds[0], &e, sizeof(e));
	close(fds[0]);
	if (got == (ssize_t)sizeof(e)) {
		waitpid(p, NULL, 0);
		snprintf(err, errlen, "cannot start '%s': %s", argv[0], strerror(e));
		return -1;
	}
	*pid = p;
	return 0;
}

/* Waits for the child, forwarding a stop (SIGINT, once) and bounding it in
 * time. The exit status, or -1 when it ran past the timeout (stopped then). */
static int wait_child(struct rp_cert_run *r, pid_t pid, bool *forwarded, bool *timed_out)
{
	double t0 = now_s(), sent_at = 0;
	int status = 0;
	*forwarded = *timed_out = false;
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			return -1;
		double t = now_s();
		if (!sent_at && ((r->stop && *r->stop) || (r->timeout_s > 0 && t - t0 > r->timeout_s))) {
			*timed_out = !(r->stop && *r->stop);
			*forwarded = true;
			kill(-pid, SIGINT); /* as a terminal's Ctrl-C would: the launcher (its ranks have their own groups) */
			sent_at = t;
		}
		if (sent_at && t - sent_at > KILL_AFTER_S) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
		}
		struct timespec ts = {0, POLL_NS};
		nanosleep(&ts, NULL);
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* A run in this process, bounded as a child is: certify's stop or the
 * timeout sets the run's own stop flag (it ends as at a Ctrl-C). */
struct watch {
	const struct rp_cert_run *r;
	volatile sig_atomic_t stop;
	volatile bool done, timed_out;
};

static void *watch_main(void *arg)
{
	struct watch *w = arg;
	double t0 = now_s();
	while (!w->done) {
		bool stop = w->r->stop && *w->r->stop;
		if (!w->stop && (stop || (w->r->timeout_s > 0 && now_s() - t0 > w->r->timeout_s))) {
			w->timed_out = !stop;
			w->stop = 1;
		}
		struct timespec ts = {0, POLL_NS};
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/* The run as a call of r->in_process with this process's stdout and stderr
 * on log, as a child's were (its first line says it ran here). Its exit
 * code, or -1 with err when it could not start. */
static int call(struct rp_cert_run *r, char **argv, const struct rp_cert_run_call *c0, const char *log,
		bool *forwarded, bool *timed_out, char *err, size_t errlen)
{
	int saved[2] = {-1, -1}, code = -1, lfd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	struct watch w = {.r = r};
	pthread_t t;
	if (lfd < 0) {
		snprintf(err, errlen, "cannot write %.*s: %s", (int)(errlen / 2), log, strerror(errno));
		return -1;
	}
	fflush(NULL);
	if ((saved[0] = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3)) < 0 ||
	    (saved[1] = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3)) < 0) {
		snprintf(err, errlen, "dup: %s", strerror(errno));
		goto out_fds;
	}
	if (pthread_create(&t, NULL, watch_main, &w) != 0) {
		snprintf(err, errlen, "cannot start a thread for the run's timeout");
		goto out_fds;
	}
	dup2(lfd, STDOUT_FILENO);
	dup2(lfd, STDERR_FILENO);
	fprintf(stderr, "-- in process %ld (no child):", (long)getpid());
	for (size_t i = 0; argv[i]; i++)
		fprintf(stderr, " %s", argv[i]);
	fputc('\n', stderr);
	struct rp_cert_run_call c = *c0;
	c.stop = &w.stop;
	code = r->in_process(&c);
	fflush(NULL);
	dup2(saved[0], STDOUT_FILENO);
	dup2(saved[1], STDERR_FILENO);
	w.done = true;
	pthread_join(t, NULL);
	*forwarded = w.stop;
	*timed_out = w.timed_out;
out_fds:
	for (int i = 0; i < 2; i++)
		if (saved[i] >= 0)
			close(saved[i]);
	close(lfd);
	return code;
}

/* A run here rather than a child: no launcher, lib/run linked, and ports a
 * kept EAL hot-plugs (virtual ones; no verbs host: its QPs are not). */
static bool fits_in_process(const struct rp_cert_run *r)
{
	if (r->nlauncher || !r->in_process)
		return false;
	for (size_t i = 0; i < r->prof->nhosts; i++)
		if (r->prof->hosts[i].port_is_pci || r->prof->hosts[i].engine.engine == RP_ENGINE_VERBS)
			return false;
	return true;
}

/* What the child said went wrong: its first `roceprobe ...` line that is no
 * notice (hugepages) nor warning, else its last line (a launcher's own). */
static void last_words(const char *log, char *buf, size_t len)
{
	FILE *f = fopen(log, "r");
	char line[2048], any[2048] = "";
	buf[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!line[0] || line[0] == '-')
			continue;
		if (!buf[0] && strncmp(line, "roceprobe ", 10) == 0 && !strstr(line, "hugepages") && !strstr(line, "warning:"))
			snprintf(buf, len, "%.*s", (int)(len - 1), line);
		memcpy(any, line, sizeof(any));
	}
	fclose(f);
	if (!buf[0])
		snprintf(buf, len, "%.*s", (int)(len - 1), any);
}

/* A run keeps its ports open LINGER after the last send and drains: its
 * goodput_gbps is over that span. The tests mean goodput over the traffic,
 * as the lab gives it: each flow's is rescaled to the span from the start to
 * the end of the last time series bin with a frame received (bin_ns wide),
 * the run's own kept as goodput_run_gbps. */
static void traffic_span(json_t *doc)
{
	json_t *ts = json_object_get(doc, "timeseries"), *rx = json_object_get(ts, "rx_packets"), *f;
	uint64_t bin = (uint64_t)json_integer_value(json_object_get(ts, "bin_ns")), elapsed = rp_cert_elapsed_ns(doc);
	uint64_t start = (uint64_t)json_integer_value(json_object_get(ts, "start_ns"));
	size_t last = 0, i;
	for (i = 0; i < json_array_size(rx); i++)
		if (json_integer_value(json_array_get(rx, i)) > 0)
			last = i + 1;
	uint64_t span = last * bin;
	if (!bin || !last || elapsed <= start || span >= elapsed - start)
		return;
	double k = (double)(elapsed - start) / (double)span;
	json_array_foreach(json_object_get(doc, "flows"), i, f) {
		double g = rp_cert_jnum(f, "goodput_gbps");
		json_object_set_new(f, "goodput_run_gbps", json_real(g));
		json_object_set_new(f, "goodput_gbps", json_real(g * k));
	}
	json_object_set_new(doc, "traffic_ns", json_integer((json_int_t)span));
}

static int mkdir_runs(struct rp_cert_run *r, char *err, size_t errlen)
{
	char path[4096];
	struct stat st;
	snprintf(path, sizeof(path), "%s/runs", r->dir);
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return 0;
	if (mkdir(path, 0755) != 0) {
		snprintf(err, errlen, "cannot make %s: %s", path, strerror(errno));
		return -1;
	}
	r->made_runs_dir = true;
	return 0;
}

static void note(struct rp_cert_run *r, const char *name, const char *out, char **argv, bool here, int code,
		 bool interrupted, double wall)
{
	if (!r->log)
		r->log = json_array();
	json_array_append_new(r->log, json_pack("{s:i, s:s, s:s, s:s, s:o, s:b, s:i, s:b, s:f}", "test", (int)r->test,
						"name", name, "label", r->label, "dir", out, "command",
						command_json(argv), "in_process", here, "exit", code, "interrupted",
						interrupted, "wall_s", wall));
}

static int run(void *ctx, const char *const *sets, size_t nsets, bool storm, json_t **out, char *err, size_t errlen)
{
	struct rp_cert_run *r = ctx;
	const char *name = rp_cert_test_name(r->test) ?: "test";
	char dir[4096], log[4200], path[4300], exe[4096], why[1024] = "";
	*out = NULL;
	if (mkdir_runs(r, err, errlen))
		return -1;
	r->n_in_test++;
	snprintf(dir, sizeof(dir), "%s/runs/%s-%u", r->dir, name, r->n_in_test);
	snprintf(log, sizeof(log), "%s.log", dir);
	if (r->exe) {
		snprintf(exe, sizeof(exe), "%s", r->exe);
	} else {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (n <= 0) {
			snprintf(err, errlen, "cannot find this program (/proc/self/exe): %s", strerror(errno));
			return -1;
		}
		exe[n] = '\0';
	}
	char **argv = command(r, exe, sets, nsets, dir, storm);
	if (!argv) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	bool here = fits_in_process(r), forwarded = false, timed_out = false;
	say(r, "test %u %s: run %u (%s): %s%sroceprobe run%s -> %s", r->test, name, r->n_in_test, r->label,
	    r->nlauncher ? r->launcher_text : "", r->nlauncher ? " " : "", here ? " (in process)" : "", dir);
	double t0 = now_s();
	pid_t pid;
	int code;
	if (here) {
		struct rp_cert_run_call c = {.profile = r->profile_path, .sets = sets, .nsets = nsets, .out = dir,
					     .force = r->force, .allow_pause_storm = storm, .no_preflight = r->no_preflight,
					     .no_telemetry = r->no_telemetry};
		code = call(r, argv, &c, log, &forwarded, &timed_out, why, sizeof(why));
	} else {
		code = spawn(argv, log, &pid, why, sizeof(why)) ? -1 : wait_child(r, pid, &forwarded, &timed_out);
	}
	if (code < 0 && !timed_out && why[0]) {
		snprintf(err, errlen, "test %u %s: run %u (%s): %s", r->test, name, r->n_in_test, r->label, why);
		free(argv);
		return -1;
	}
	double wall = now_s() - t0;
	r->runs++;
	snprintf(path, sizeof(path), "%s/result.json", dir);
	json_error_t jerr;
	json_t *doc = access(path, F_OK) == 0 ? json_load_file(path, 0, &jerr) : NULL;
	bool interrupted = doc && json_is_true(json_object_get(doc, "interrupted"));
	note(r, name, dir, argv, here, code, interrupted, wall);
	free(argv);
	if (timed_out) {
		snprintf(err, errlen, "test %u %s: run %u (%s) still running after %.0f s (--run-timeout): stopped; its "
				      "output: %s",
			 r->test, name, r->n_in_test, r->label, r->timeout_s, log);
		json_decref(doc);
		return -1;
	}
	if (!doc) {
		last_words(log, why, sizeof(why));
		snprintf(err, errlen, "test %u %s: run %u (%s) failed (exit %d%s): %s", r->test, name, r->n_in_test, r->label,
			 code, forwarded ? ", stopped" : "", why[0] ? why : "no output");
		return forwarded ? 1 : -1;
	}
	json_t *dead = json_object_get(doc, "incomplete"); /* ranks that died (docs/results.md) */
	if (json_array_size(dead)) {
		char names[256] = "";
		size_t i, k = 0;
		json_t *h;
		json_array_foreach(dead, i, h)
			if (k < sizeof(names))
				k += (size_t)snprintf(names + k, sizeof(names) - k, "%s%s", i ? ", " : "", json_string_value(h) ?: "?");
		snprintf(err, errlen, "test %u %s: run %u (%s): the ranks of %s died (exit %d): an incomplete run cannot be "
				      "judged",
			 r->test, name, r->n_in_test, r->label, names, code);
		json_decref(doc);
		return -1;
	}
	traffic_span(doc);
	json_object_set_new(doc, "dir", json_string(dir));
	struct rp_cert_flows f;
	rp_cert_sum_flows(doc, -1, NULL, &f);
	say(r, "test %u %s: run %u: exit %d%s, %llu packets sent, %llu lost, %llu PFC frames at hosts (%.1f s)", r->test,
	    name, r->n_in_test, code, interrupted ? ", interrupted" : "", (unsigned long long)f.tx,
	    (unsigned long long)f.lost, (unsigned long long)rp_cert_host_pfc_rx(doc, NULL, -1), wall);
	*out = doc;
	/* A child stopped by a signal (ours, or its launcher's): the test is not judged. */
	return interrupted || forwarded ? 1 : 0;
}

void rp_cert_run_engine(struct rp_cert_run *r, struct rp_cert_engine *eng)
{
	*eng = (struct rp_cert_engine){.name = "run", .ctx = r, .describe = describe, .run = run, .begin = begin};
}
