/* The launcher's guard (cluster.h): how a rank learns, beside MPI, that its
 * launcher is ending the job, and that it must not outlive it.
 *
 * Open MPI 4.1's mpirun (orted on other nodes) ends a job, on a Ctrl-C or a
 * SIGTERM to it, by sending every rank it knows SIGCONT at once, SIGTERM
 * odls_base_sigkill_timeout (1 s) later and SIGKILL as long again (measured
 * here, Open MPI 4.1.4: SIGCONT 1 ms after the SIGINT to mpirun, SIGTERM
 * 1.000 s after it, whether the ranks were still in MPI_Init or sending).
 * Waiting for the SIGTERM let the ranks send for a second after the Ctrl-C;
 * a rank the launcher did not know yet got no signal at all, and ran on with
 * parent pid 1 after mpirun had returned. A Ctrl-C while mpirun forks the
 * ranks reaches only those forked already (measured: rank 0 got SIGCONT,
 * ranks 1-3, forked after it, nothing until SIGTERM 0.7 s later); they stop
 * at the next step of the set-up all ranks agree on (cmd_run.c). So, under a
 * launcher:
 *   - SIGCONT sent by this rank's parent (mpirun, orted, slurmstepd) is a stop;
 *   - the parent gone (getppid() changed; polled every GUARD_POLL_NS) is a
 *     stop, and the rank exits ORPHAN_NS later whatever it was doing: nobody
 *     is left to read its lines, and its user has the prompt back;
 *   - a stop seen during set-up (before the traffic) that the ranks have not
 *     acted on together within SETUP_STOP_NS (a rank held up in MPI or a
 *     port's set-up) ends the rank, before the launcher's SIGKILL would;
 *   - a job the launcher ends while the rank is inside MPI_Finalize (after
 *     a failed set-up, when another rank exited first) ends it FINAL_NS later.
 * A rank its launcher is ending leaves MPI_Finalize alone: mpirun no longer
 * serves its PMIx fence (measured: every rank waited in it until the
 * SIGKILL, 2 s after the Ctrl-C).
 * SIGPIPE is ignored: a write to a launcher that is gone fails, it does not
 * kill the rank before it cleaned up. Exits go through exit(), so the EAL's
 * runtime directory is removed (lib/dp/eal.c). No MPI here. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cluster_internal.h"

#define GUARD_POLL_NS 10000000ll    /* 10 ms */
#define ORPHAN_NS 300000000ll       /* the parent gone: exit this long after */
#define SETUP_STOP_NS 1500000000ll  /* a stop in set-up not acted on: exit (mpirun's SIGKILL comes at 2 s) */
#define FINAL_NS 200000000ll        /* ended while in MPI_Finalize: leave this long after */

struct rp_guard {
	const struct rp_cluster *c;
	volatile sig_atomic_t *stop;
	pid_t launcher;
	pthread_t thread;
	bool thread_on;
	volatile bool quit;
	volatile bool setup;    /* before the traffic */
	volatile bool orphaned; /* the launcher is gone */
	volatile bool finalizing; /* rp_cluster_finalize runs: the rank is on its way out */
};

/* The handler's view: one guard per process. */
static volatile sig_atomic_t *guard_stop;
static pid_t guard_launcher;
static volatile sig_atomic_t said_stop, launcher_ending;

static void on_cont(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if (si && si->si_code == SI_USER && si->si_pid == guard_launcher) {
		launcher_ending = 1;
		if (guard_stop)
			*guard_stop = 1;
	}
}

static void catch_cont(void)
{
	struct sigaction sa = {.sa_sigaction = on_cont, .sa_flags = SA_SIGINFO | SA_RESTART};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCONT, &sa, NULL);
}

/* A SIGCONT that comes before its handler is lost (its default action is
 * none): mpirun sends it to every rank it has forked, some of which may be
 * still starting. So the handler goes in before main, as soon as the binary's
 * constructors run (a ms after exec), and rp_cluster_guard_start takes over
 * what it saw. Only under a launcher (rp_cluster_detect's variables). */
__attribute__((constructor)) static void guard_early(void)
{
	if (!rp_cluster_detect(NULL))
		return;
	guard_launcher = getppid();
	catch_cont();
}

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void rp_cluster_say_stopped(const struct rp_cluster *c, const char *when)
{
	if (c->rank != 0 || __atomic_exchange_n(&said_stop, 1, __ATOMIC_SEQ_CST))
		return;
	fprintf(stderr, "roceprobe run: interrupted %s: no result written\n", when);
	fflush(stderr);
}

static void *guard_thread(void *arg)
{
	struct rp_guard *g = arg;
	int64_t stop_at = 0, orphan_at = 0, ended_at = 0;
	while (!g->quit) {
		struct timespec ts = {.tv_nsec = GUARD_POLL_NS};
		nanosleep(&ts, NULL);
		int64_t now = mono_ns();
		if (!g->orphaned && getppid() != g->launcher) {
			g->orphaned = true;
			orphan_at = now;
			*g->stop = 1;
		}
		if (*g->stop && !stop_at)
			stop_at = now;
		/* The launcher ended the job while this rank was already in
		 * MPI_Finalize (a rank that failed its set-up, as every rank
		 * did, and exited first: mpirun then ends the others), whose
		 * fence it no longer serves. Its files are written, its EAL
		 * gone: leave quietly (not exit(): MPI's own handlers would
		 * wait as well). */
		if (g->finalizing && (g->orphaned || launcher_ending) && !ended_at)
			ended_at = now;
		if (ended_at && now - ended_at >= FINAL_NS) {
			fflush(NULL);
			_exit(RP_CLUSTER_EXIT_INCOMPLETE);
		}
		if (g->orphaned && now - orphan_at >= ORPHAN_NS) {
			/* Nobody reads this (the launcher held our stderr), but a log might. */
			fprintf(stderr, "roceprobe run: rank %d: its launcher (pid %ld) is gone: stopped, no result written\n",
				g->c->rank, (long)g->launcher);
			exit(RP_CLUSTER_EXIT_INCOMPLETE);
		}
		if (stop_at && g->setup && now - stop_at >= SETUP_STOP_NS) {
			rp_cluster_say_stopped(g->c, "before the traffic started");
			exit(RP_CLUSTER_EXIT_INCOMPLETE);
		}
	}
	return NULL;
}

int rp_cluster_guard_start(struct rp_cluster *c, volatile sig_atomic_t *stop)
{
	struct rp_guard *g = calloc(1, sizeof(*g));
	if (!g)
		return -1;
	/* The parent the constructor saw: the launcher (it may be gone since). */
	*g = (struct rp_guard){.c = c, .stop = stop, .launcher = guard_launcher ? guard_launcher : getppid(), .setup = true};
	/* Which rank this is, before MPI_Init says (only rank 0 prints the stop). */
	const char *r = getenv("OMPI_COMM_WORLD_RANK");
	r = r ? r : getenv("PMIX_RANK");
	r = r ? r : getenv("PMI_RANK");
	c->rank = r ? atoi(r) : -1;
	guard_launcher = g->launcher;
	guard_stop = stop;
	catch_cont();
	if (launcher_ending) /* its SIGCONT came before this */
		*stop = 1;
	signal(SIGPIPE, SIG_IGN);
	if (g->launcher == 1 || getppid() != g->launcher) { /* orphaned before we looked */
		g->orphaned = true;
		*stop = 1;
	}
	if (pthread_create(&g->thread, NULL, guard_thread, g) == 0)
		g->thread_on = true;
	c->guard = g;
	return 0;
}

void rp_cluster_guard_run(struct rp_cluster *c)
{
	if (c->guard)
		c->guard->setup = false;
}

void rp_cluster_guard_finalizing(struct rp_cluster *c)
{
	if (c->guard) {
		c->guard->setup = false;
		c->guard->finalizing = true;
	}
}

bool rp_cluster_guard_stopped(const struct rp_cluster *c)
{
	return c->guard && *c->guard->stop;
}

bool rp_cluster_orphaned(const struct rp_cluster *c)
{
	return c->guard && c->guard->orphaned;
}

bool rp_cluster_launcher_ending(const struct rp_cluster *c)
{
	return c->guard && (c->guard->orphaned || launcher_ending);
}

void rp_cluster_guard_stop(struct rp_cluster *c)
{
	struct rp_guard *g = c->guard;
	if (!g)
		return;
	g->quit = true;
	if (g->thread_on)
		pthread_join(g->thread, NULL);
	free(g);
	c->guard = NULL;
}
