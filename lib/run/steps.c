/* A run's steps in order (steps.h): what `roceprobe run` does after its
 * options, shared by the command and the in-process runs (local.c). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dp/dp.h"
#include "engine.h"
#include "report.h"
#include "report/outdir.h"
#include "steps.h"

/* Under a launcher the set-up's first error line is held for the ranks to
 * agree on (held_on); else, and after the set-up, said at once. */
static char held[512]; /* as the command held it (cli.c) */
static bool held_on;

__attribute__((format(printf, 1, 2))) static int say(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (held_on) {
		if (!held[0])
			vsnprintf(held, sizeof(held), fmt, ap);
	} else {
		fprintf(stderr, "roceprobe run: ");
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	}
	va_end(ap);
	return RP_RUN_USAGE;
}

/* A step's error (one line in r->s.err). */
static int said(const struct rp_run *r, int rc)
{
	if (rc && r->s.err[0])
		say("%s", r->s.err);
	return rc;
}

/* Every rank past a step of the set-up, or all stop: the user reads one line,
 * the first failing rank's, from rank 0. A rank stopped meanwhile (Ctrl-C or
 * SIGTERM to the launcher: lib/cluster/guard.c) stops them all as well, before
 * any traffic: nothing was measured, rank 0 says no result was written. */
static bool all_ready(struct rp_run *r, int rc)
{
	if (!r->cl.launched)
		return rc == 0;
	if (r->failed) /* every rank learnt it in the same step and stops asking */
		return false;
	char first[600];
	bool stop = false, all = false;
	if (rp_cluster_agree(&r->cl, rc ? (held[0] ? held : "set-up failed") : "", first, sizeof(first))) {
		if (rp_cluster_any_all(&r->cl, *r->cfg.stop != 0, true, &stop, &all) == 0 && !stop)
			return true;
		rp_cluster_say_stopped(&r->cl, "before the traffic started");
		r->stopped = true;
	} else if (r->cl.rank == 0) {
		fprintf(stderr, "roceprobe run: %s\n", first);
	}
	r->failed = true;
	return false;
}

/* DIR while the set-up runs: a stop the set-up does not act on in time
 * makes lib/cluster's guard exit() the rank (guard.c SETUP_STOP_NS), and
 * "no result written" leaves no DIR either (cluster-run-sigstart saw one:
 * its rank 0 was held 1.5 s in a step under load). */
static struct {
	const char *out;
	bool made;
	int armed;
} setup_dir;

static void setup_dir_left(void)
{
	if (__atomic_exchange_n(&setup_dir.armed, 0, __ATOMIC_SEQ_CST))
		rp_outdir_abandon(setup_dir.out, setup_dir.made);
}

static void setup_dir_arm(const char *out, bool made, bool on)
{
	static bool registered;
	if (on && !registered)
		registered = atexit(setup_dir_left) == 0;
	setup_dir.out = out;
	setup_dir.made = made;
	__atomic_store_n(&setup_dir.armed, on && registered, __ATOMIC_SEQ_CST);
}

/* The result (rank 0) or the rates' warnings (the other ranks); a rank that
 * died mid-run makes it incomplete (exit 3). */
static int finish(struct rp_run *r, const struct rp_run_steps *o, int rc)
{
	char err[4200];
	if (rc == 0 && r->cl.rank == 0 &&
	    rp_run_write_result(r, o->out, o->profile, o->version, rp_dp_version(), err, sizeof(err)))
		rc = say("%s", err);
	if (rc == 0 && r->cl.rank == 0) {
		if (rp_run_write_summary(r, o->out, stdout, err, sizeof(err)) != 0)
			return say("%s", err);
		printf("\nresult: %s/result.json\nsummary: %s/summary.txt\n", o->out, o->out);
		fflush(stdout);
		/* The summary above holds the warnings: again on stderr only where stdout
		 * is not the terminal stderr is (a file, a pipe, a script's capture). */
		if (!isatty(STDOUT_FILENO) || !isatty(STDERR_FILENO))
			rp_session_warn_rates(&r->s, stderr, NULL);
	} else if (rc == 0) {
		rp_session_warn_rates(&r->s, stderr, NULL);
	}
	if (rc == 0 && r->lost) {
		if (r->cl.rank == 0)
			fprintf(stderr, "roceprobe run: a rank died mid-run: %s/result.json is incomplete (exit %d)\n", o->out,
				RP_CLUSTER_EXIT_INCOMPLETE);
		rc = RP_CLUSTER_EXIT_INCOMPLETE;
	}
	return rc;
}

/* The profile, its hosts on ranks, the session with this rank's ports, every
 * host's addresses, the engine: all before DIR is made. */
static int open_session(struct rp_run *r, const struct rp_run_steps *o, int rc, char **text)
{
	char err[4600];
	if (rc == 0)
		rc = said(r, rp_run_place(r, o->profile, &o->po, text));
	struct rp_session_opts so = o->so;
	so.profile_text = *text;
	so.hosts = r->cl.launched ? r->mine : NULL;
	so.host_rank = r->cl.launched ? r->host_rank : NULL;
	so.nranks = (size_t)r->cl.size;
	so.ranks = r->launch;
	so.stop = r->cl.launched ? r->cfg.stop : NULL;
	/* Ranks on one machine poll on different CPUs (as many as there are). */
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (r->cl.launched && ncpu > 0)
		so.first_core = (unsigned)(r->cl.ranks[r->cl.rank].local_rank % ncpu);
	so.node_shared = r->cl.launched && r->cl.ranks[r->cl.rank].local_rank != 0;
	/* The profile is checked before DIR is made: bad input leaves nothing behind. */
	if (rc == 0 && r->cl.rank == 0 && rp_outdir_check(o->out, o->force, err, sizeof(err)) != 0)
		rc = say("%s", err);
	if (rc == 0)
		rc = said(r, rp_session_open(&r->s, "run", o->profile, &so));
	if (rc == 0 && o->opened)
		o->opened(r, o->arg);
	/* Every rank learns every host's addresses (mac: auto, ipv4: netdev) from the
	 * rank that runs it, before any frame: duplicates stop the run here. */
	if (all_ready(r, rc)) {
		if (r->cl.launched && rp_cluster_host_addrs(&r->cl, r->s.prof, r->host_rank, err, sizeof(err)) != 0)
			rc = say("%s", err);
		if (rc == 0)
			rc = said(r, rp_session_addresses(&r->s));
	}
	if (rc == 0)
		rc = said(r, rp_run_engine_setup(r));
	/* The profile's switches answer before DIR is made (rank 0 reads them). */
	if (rc == 0 && !r->failed && r->cl.rank == 0 &&
	    rp_run_switches_check(&r->switches, r->s.prof, stderr, err, sizeof(err)) != 0)
		rc = say("%s", err);
	return rc;
}

int rp_run_steps(struct rp_run *r, const struct rp_run_steps *o, int rc0, const char *held0)
{
	char *text = NULL;
	snprintf(held, sizeof(held), "%s", held0 ? held0 : "");
	held_on = r->cl.launched;
	int rc = open_session(r, o, rc0, &text);
	/* Rank 0 makes (or clears) DIR, then the others make theirs (another machine's). */
	struct stat out_st;
	bool out_made = stat(o->out, &out_st) != 0, out_prepared = false; /* DIR ready for this run's files */
	char err[4600];
	if (all_ready(r, rc) && r->cl.rank == 0) {
		rc = rp_outdir_prepare(o->out, o->force, err, sizeof(err)) ? say("%s", err) : 0;
		out_prepared = rc == 0;
	}
	if (r->cl.launched && all_ready(r, rc) && r->cl.rank != 0) {
		rc = rp_outdir_mkdirs(o->out, held, sizeof(held)) == 0 ? 0 : RP_RUN_USAGE;
		out_prepared = rc == 0;
	}
	setup_dir_arm(o->out, out_made, out_prepared && r->cl.launched);
	if (rc == 0 && !r->failed) {
		rp_session_stage(&r->s, "accounting");
		rc = said(r, rp_run_accounting(r));
	}
	if (rc == 0 && !r->failed && r->eng->account)
		rc = said(r, r->eng->account(r));
	/* ARP/ND before traffic, into the captures too (a rank stopped meanwhile
	 * stops with the others at the next step instead). */
	if (rc == 0 && !r->failed && r->eng->prepare && !(r->cl.launched && *r->cfg.stop))
		rc = said(r, r->eng->prepare(r));
	bool ready = all_ready(r, rc);
	if (ready && r->nrecs) { /* QP records, then every QP at RTS, before T0 */
		rp_session_stage(&r->s, "QP connect");
		rc = said(r, rp_run_connect(r));
		ready = all_ready(r, rc);
	}
	held_on = false;
	setup_dir_arm(o->out, out_made, false); /* from here the run's own paths keep DIR right */
	if (!ready) {
		if (o->closing)
			o->closing(r, false, o->arg);
		rp_run_close(r);
		if (out_prepared) /* a gateway that never answered: no empty DIR, no header-only captures */
			rp_outdir_abandon(o->out, out_made);
		free(text);
		return rc ? rc : r->stopped ? RP_CLUSTER_EXIT_INCOMPLETE : RP_RUN_USAGE;
	}
	int vrc = 0;
	rc = said(r, rp_run_go(r, &vrc));
	rc = finish(r, o, rc);
	/* result.json is written (rank 0; the others have their rates): the final values are its */
	if (o->closing)
		o->closing(r, rc == 0 || rc == RP_CLUSTER_EXIT_INCOMPLETE, o->arg);
	rp_run_close(r);
	free(text);
	return rc ? rc : vrc;
}
