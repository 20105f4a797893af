/* A run's steps in order, from the profile to result.json, for `roceprobe
 * run` (app/cmd_run.c) and for a run in the caller's process (local.h):
 * under a launcher every rank takes each set-up step and the ranks agree
 * before the next (one error line, the first failing rank's, said by rank 0);
 * without one a step's error is said at once. Errors are printed here, as
 * "roceprobe run: LINE" on stderr (held until the ranks agree under a
 * launcher); the summary goes to stdout. */
#ifndef RP_RUN_STEPS_H
#define RP_RUN_STEPS_H

#include "run.h"

struct rp_run_steps {
	const char *profile;
	const char *out;         /* -o DIR */
	bool force;              /* --force */
	const char *version;     /* result.json's roceprobe version */
	struct rp_profile_opts po;
	/* The command's session options; what the launch decides (the profile's
	 * text, this rank's hosts and ranks, the stop, the first core, a shared
	 * node) is set here from the placement. */
	struct rp_session_opts so;
	/* The caller's (--metrics; each may be NULL): once the session is open
	 * (its listener off the lcores), and before the run is closed (results:
	 * the result was written). */
	void (*opened)(struct rp_run *r, void *arg);
	void (*closing)(struct rp_run *r, bool results, void *arg);
	void *arg;
};

/* The run with r->cfg and r->cl set (rp_cluster_init, and under a launcher
 * its watch): placement, session, addresses, engine, DIR, accountants,
 * ARP/ND, QP records, T0 to the merged result, result.json and summary.txt,
 * everything closed. rc0 and held0: a step the caller took first failed (its
 * exit code and, under a launcher, its line, for the ranks to agree on).
 * Returns the exit code: 0, 2 (RP_RUN_USAGE: bad input, a failed set-up, or
 * the engine's run failed), 3 (RP_CLUSTER_EXIT_INCOMPLETE: a rank died, or
 * the ranks stopped before the traffic). */
int rp_run_steps(struct rp_run *r, const struct rp_run_steps *o, int rc0, const char *held0);

#endif
