/* A whole sweep (`roceprobe lab --sweep`): every point of the grid checked
 * before the first one runs (a bad value leaves nothing behind), the -o
 * directory made, each point run into DIR/point-N (in order, or --jobs at
 * once: sweep_jobs.h) by the caller's function, then DIR/sweep.csv and
 * DIR/sweep.json (sweep_out.h). A signal (*stop) ends the sweep after the
 * points so far, whose rows are written. */
#ifndef RP_LAB_SWEEP_RUN_H
#define RP_LAB_SWEEP_RUN_H

#include <signal.h>
#include <stdio.h>

#include "one.h"
#include "sweep.h"

struct rp_sweep_run_opts {
	const char *out;                  /* -o DIR */
	const struct rp_lab_one_opts *one; /* the profile, the user's --set and what a point's run takes */
	unsigned jobs;                    /* points at once: 1 serial, else child processes */
	FILE *progress;                   /* "lab: sweep point N: DIR" before each; NULL: none */
	volatile sig_atomic_t *stop;
	/* Runs one point into dir with these sets (the user's, then the
	 * point's): 0 with its headline, 1 when a signal stopped it in its
	 * set-up (it never ran: no row), or -1 with err. */
	int (*run)(void *arg, const struct rp_lab_one_opts *one, const char *dir, struct rp_lab_headline *h, char *err,
		   size_t errlen);
	void *arg;
};

/* 0 with the number of points that ran in *points, or -1 with err. */
int rp_sweep_run(const struct rp_sweep_run_opts *o, const struct rp_sweep *s, size_t *points, char *err,
		 size_t errlen);

#endif
