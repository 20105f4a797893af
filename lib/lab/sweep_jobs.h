/* --jobs N: a sweep's points in child processes, at most N at once.
 * A child runs one point exactly as the serial sweep would (its own process:
 * nothing shared) and sends its outcome and headline back over a pipe; the
 * caller writes the rows in point order, so the files are the serial
 * sweep's. A signal reaches the children too (the same process group): each
 * ends its point as interrupted, and no further point starts; a SIGINT or
 * SIGTERM that reached only this process (*stop set) is passed on to the
 * running points once, as SIGTERM. */
#ifndef RP_LAB_SWEEP_JOBS_H
#define RP_LAB_SWEEP_JOBS_H

#include <signal.h>
#include <stddef.h>

#include "report.h"

enum rp_sweep_job_status {
	RP_SWEEP_JOB_DONE,    /* ran (interrupted or not): h is its headline */
	RP_SWEEP_JOB_FAILED,  /* err says why */
	RP_SWEEP_JOB_NOT_RUN, /* never started: after a failure, or once *stop was set */
};

struct rp_sweep_job {
	int status; /* enum rp_sweep_job_status */
	struct rp_lab_headline h;
	char err[2048]; /* the whole record stays below PIPE_BUF: one write */
};

/* Runs point p (0..n-1): 0 with *h, 1 when a signal stopped it before it
 * ran (RP_SWEEP_JOB_NOT_RUN), or -1 with err. In a child process. */
typedef int (*rp_sweep_point_fn)(void *arg, size_t p, struct rp_lab_headline *h, char *err, size_t errlen);

/* Points 0..n-1 in point order, at most jobs (1..64) at once; res[p] is
 * each one's outcome. No point starts after one failed or *stop was set;
 * the running ones are waited for. 0, or -1 with err when a pipe or a
 * process could not be made (the points started before it are in res). */
int rp_sweep_jobs_run(size_t n, unsigned jobs, rp_sweep_point_fn fn, void *arg, volatile sig_atomic_t *stop,
		      struct rp_sweep_job *res, char *err, size_t errlen);

#endif
