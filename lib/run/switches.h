/* A run's switch counters as time series (issue 25, "Profiles name the
 * switches"): every entry of the profile's `switches:` read once before
 * traffic (an unreachable one: exit 2, or with `optional: true` a warning
 * and its reason), then sampled by lib/counters' sampler, every port of
 * the switch, at T0, every its interval and at the end on the run's
 * timebase. Rank 0 only (one process without a launcher): switches are the
 * fabric's, not a rank's. result.json's counters.switches[]. */
#ifndef RP_RUN_SWITCHES_H
#define RP_RUN_SWITCHES_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "counters/exec.h"
#include "counters/sampler.h"
#include "profile/profile.h"

struct rp_run_switch {
	const struct rp_switch_src *cfg; /* the profile's entry */
	struct rp_cnt_sampler sm;        /* its one series */
	struct rp_exec_map map;          /* exec:: the map file's */
	bool skipped;                    /* optional and unreachable at the check: never sampled */
	char reason[200];                /* why it was not sampled, or stopped ("" none) */
	struct rp_cnt_series *series;    /* after rp_run_switches_stop: [nseries] (0 or 1) */
	size_t nseries;
	FILE *warn;                      /* where "stopped answering" goes (NULL: nowhere) */
};

struct rp_run_switches {
	size_t n;
	struct rp_run_switch *sw;
};

/* Before traffic and before the result directory: every switch's
 * credentials and map loaded, and its source read once. A non-optional
 * switch that cannot be read: -1 with one line in err naming the switch and
 * its source; an optional one: its reason kept and one warning line on
 * warn (NULL: none). A credentials or map file that cannot be read is -1
 * for either. */
int rp_run_switches_check(struct rp_run_switches *w, const struct rp_profile *p, FILE *warn, char *err,
			  size_t errlen);
/* The start sample of each, then a thread per switch at its interval;
 * t_ns = now(arg) - zero_ns. A switch that stops answering: one line on
 * warn, its sampling stops, the reason is kept. */
void rp_run_switches_start(struct rp_run_switches *w, int64_t (*now)(const void *arg), const void *arg,
			   int64_t zero_ns, FILE *warn);
/* The end sample, one interval (the largest of the switches') after the
 * traffic ended, so a switch that refreshes its counters on its own poll
 * (SONiC's COUNTERS_DB about every second, `switch --publish` every
 * --publish-interval) has counted the run's last frames and events (a
 * watchdog's restoration); *stop cuts the wait short. The threads stop; the
 * series are kept for the result. */
void rp_run_switches_stop(struct rp_run_switches *w, const volatile sig_atomic_t *stop);
void rp_run_switches_free(struct rp_run_switches *w);

#endif
