/* --jobs N: a sweep's points in child processes (sweep_jobs.h). */
#include "sweep_jobs.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_JOBS 64

struct job {
	pid_t pid;
	int fd;
	size_t point;
};

static int job_start(size_t point, rp_sweep_point_fn fn, void *arg, struct job *j, char *err, size_t errlen)
{
	int p[2];
	if (pipe(p) != 0) {
		snprintf(err, errlen, "--jobs: cannot make a pipe: %s", strerror(errno));
		return -1;
	}
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "--jobs: cannot fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		close(p[0]);
		static struct rp_sweep_job r;
		r = (struct rp_sweep_job){0};
		int rc = fn(arg, point, &r.h, r.err, sizeof(r.err));
		r.status = rc < 0 ? RP_SWEEP_JOB_FAILED : rc > 0 ? RP_SWEEP_JOB_NOT_RUN : RP_SWEEP_JOB_DONE;
		ssize_t w = write(p[1], &r, sizeof(r));
		_exit(w == (ssize_t)sizeof(r) ? 0 : 1);
	}
	close(p[1]);
	*j = (struct job){.pid = pid, .fd = p[0], .point = point};
	return 0;
}

/* Waits for one child; its outcome into res[point]. */
static void job_reap(struct job *jobs, size_t *running, struct rp_sweep_job *res, volatile sig_atomic_t *stop,
		     bool *forwarded)
{
	int st;
	pid_t pid;
	while ((pid = waitpid(-1, &st, WNOHANG)) <= 0) {
		if (pid < 0 && errno == ECHILD) { /* none left to wait for: cannot be, but never spin */
			for (size_t i = 0; i < *running; i++) {
				res[jobs[i].point].status = RP_SWEEP_JOB_FAILED;
				snprintf(res[jobs[i].point].err, sizeof(res[jobs[i].point].err),
					 "sweep point %zu: its process was lost", jobs[i].point);
				close(jobs[i].fd);
			}
			*running = 0;
			return;
		}
		if (stop && *stop && !*forwarded) {
			for (size_t i = 0; i < *running; i++)
				kill(jobs[i].pid, SIGTERM);
			*forwarded = true;
		}
		nanosleep(&(struct timespec){.tv_nsec = 5000000}, NULL);
	}
	for (size_t i = 0; i < *running; i++) {
		if (jobs[i].pid != pid)
			continue;
		struct rp_sweep_job *r = &res[jobs[i].point];
		if (read(jobs[i].fd, r, sizeof(*r)) != (ssize_t)sizeof(*r) || !WIFEXITED(st) || WEXITSTATUS(st)) {
			r->status = RP_SWEEP_JOB_FAILED;
			if (WIFSIGNALED(st))
				snprintf(r->err, sizeof(r->err), "sweep point %zu: its process ended by signal %d, without its result",
					 jobs[i].point, WTERMSIG(st));
			else
				snprintf(r->err, sizeof(r->err), "sweep point %zu: its process ended without its result",
					 jobs[i].point);
		}
		close(jobs[i].fd);
		jobs[i] = jobs[--*running];
		return;
	}
}

int rp_sweep_jobs_run(size_t n, unsigned jobs, rp_sweep_point_fn fn, void *arg, volatile sig_atomic_t *stop,
		      struct rp_sweep_job *res, char *err, size_t errlen)
{
	struct job run[MAX_JOBS];
	size_t running = 0, next = 0;
	bool failed = false, forwarded = false;
	int rc = 0;
	if (jobs > MAX_JOBS)
		jobs = MAX_JOBS;
	for (size_t p = 0; p < n; p++)
		res[p].status = RP_SWEEP_JOB_NOT_RUN;
	while (next < n || running) {
		while (running < jobs && next < n && !failed && !(stop && *stop)) {
			if (job_start(next, fn, arg, &run[running], err, errlen)) {
				failed = true;
				rc = -1;
				break;
			}
			running++;
			next++;
		}
		if (!running)
			break;
		job_reap(run, &running, res, stop, &forwarded);
		for (size_t p = 0; p < n; p++)
			failed |= res[p].status == RP_SWEEP_JOB_FAILED;
	}
	return rc;
}
