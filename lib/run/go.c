/* A run from T0 to its merged result (run.h rp_run_go): the common start,
 * this rank's engine, a thread that waits for every rank's senders, the
 * accounting closed and every rank's part on rank 0. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "engine.h"
#include "metrics/metrics.h"
#include "facts.h"
#include "merge.h"

/* While the ports are polled: once this rank's senders are done (or its loop
 * stopped sending: Ctrl-C, --duration), wait for every other rank's in a
 * barrier, then let the run's linger, or the drain, begin everywhere. The
 * only MPI call during the run. */
static void *wait_for_senders(void *arg)
{
	struct rp_run *r = arg;
	/* A plan with verbs flows (the same choice on every rank): every 100 ms
	 * the ranks agree whether one was stopped and whether all senders are
	 * done, which keeps MPI's connections in use through a long run (in the
	 * VM lab a Ctrl-C after 25 quiet seconds met Open MPI's "failed to TCP
	 * connect" at the final barrier, three times). */
	while (r->nrecs) {
		bool stop = false, all = false;
		if (rp_cluster_any_all(&r->cl, *r->cfg.stop != 0, r->tx_done || r->gen_over, &stop, &all) != 0)
			break;
		if (stop)
			*r->cfg.stop = 1;
		if (all) {
			r->others_done = true;
			return NULL;
		}
		struct timespec ts = {.tv_nsec = 100000000};
		nanosleep(&ts, NULL);
	}
	while (!r->tx_done && !r->gen_over) { /* tx_done: sources done, or the loop stopped (Ctrl-C, duration) */
		struct timespec ts = {.tv_nsec = 1000000};
		nanosleep(&ts, NULL);
	}
	rp_cluster_watch_barrier(&r->cl); /* the living ranks' senders */
	r->others_done = true;
	return NULL;
}

/* Clock offsets, then every rank starts at T0 on rank 0's clock. Plan time
 * 0 is T0, after the set-up: the counter readers take their first samples
 * (a NIC's ethtool and sysfs reads, a switch's Redis: ~1-10 ms) before it,
 * while the rank waits, so the loop starts on time (a PFC source's window
 * of a few ms would otherwise be over before its first frame, and skipped).
 * Across ranks T0 is the same instant on every rank's corrected clock,
 * however late this one woke, so one-way latencies between ranks need no
 * correction but the offsets'. */
#define RP_RUN_START_MARGIN_NS 100000000ll      /* under a launcher: + 2 ms a rank */
#define RP_RUN_START_MARGIN_LOCAL_NS 20000000ll /* one process: its own set-up only */

static void start(struct rp_run *r)
{
	r->started = time(NULL);
	rp_run_snapshot_xstats(r);
	r->offsets = calloc((size_t)r->cl.size, sizeof(*r->offsets));
	r->offsets_after = calloc((size_t)r->cl.size, sizeof(*r->offsets_after));
	if (r->cl.launched)
		rp_cluster_clocks(&r->cl, 20, r->offsets);
	if (rp_cluster_start_when(&r->cl, r->cl.launched ? RP_RUN_START_MARGIN_NS + 2000000ll * r->cl.size
							 : RP_RUN_START_MARGIN_LOCAL_NS,
				  &r->t0_ns) != 0)
		r->t0_ns = rp_cluster_now_ns(); /* the ranks' collectives failed: the run's merge says so */
	char err[256];
	if (rp_run_nics_start(&r->nics, &r->s, r->cl.launched ? r->mine : NULL, r->cfg.counter_interval_ns,
			      rp_run_corrected_ns, r, r->t0_ns, err, sizeof(err)) != 0)
		fprintf(stderr, "roceprobe run: %s (the run goes on without NIC counters)\n", err);
	if (r->cl.rank == 0) /* the profile's switches: rank 0's, on the same timebase */
		rp_run_switches_start(&r->switches, rp_run_corrected_ns, r, r->t0_ns, stderr);
	int64_t skew = 0;
	rp_cluster_start_wait(&r->cl, r->cl.launched ? r->offsets : NULL, r->t0_ns, &skew);
	if (r->cl.launched)
		r->skew_ns = skew;
	if (r->eng->start)
		r->eng->start(r);
	rp_cluster_watch_run(&r->cl); /* a death now stops the run, not the job */
	for (unsigned i = 0; i < r->s.nports; i++)
		if (r->rx[0].ports[r->s.tx[i].index].cap)
			rp_capture_clock_restarted(r->rx[0].ports[r->s.tx[i].index].cap);
	r->s.g = (struct rp_dp_gen){.ports = r->s.tx, .n_ports = rp_session_nqueues(&r->s), .n_lcores = r->s.nq,
				    .main_idle = r->s.nq > 1, .who = "run",
				    .duration_ns = (uint64_t)(r->cfg.duration_s * 1e9), .stop = r->cfg.stop,
				    .progress = r->cl.rank == 0 ? rp_session_progress : NULL, .progress_arg = &r->s,
				    .rx = r->rx, .linger_ns = RP_RUN_LINGER_NS + rp_run_max_delay(r->s.prof),
				    .idle_ns = r->cfg.idle_ns};
}

/* This rank's engine from T0 until every rank's senders are done; then the
 * ranks agree whether one died (the end then avoids MPI) and measure their
 * clocks again (their change over the run is each clock's drift). */
static int run(struct rp_run *r)
{
	char err[512] = "";
	pthread_t waiter;
	bool waiting = false;
	if (r->cl.launched) {
		r->s.g.tx_done = &r->tx_done;
		r->s.g.others_done = &r->others_done;
		waiting = pthread_create(&waiter, NULL, wait_for_senders, r) == 0;
		if (!waiting)
			r->others_done = true;
	}
	int rc = r->eng->run(r, err, sizeof(err));
	if (rc && r->cfg.run_failed)
		r->cfg.run_failed(err);
	if (r->eng->stop)
		r->eng->stop(r);
	r->gen_over = true;
	if (waiting)
		pthread_join(waiter, NULL);
	r->lost = rp_cluster_run_over(&r->cl);
	if (r->cl.launched && !r->lost && r->offsets_after)
		r->clocks_after = rp_cluster_clocks(&r->cl, 20, r->offsets_after) == 0;
	if (r->eng->after)
		r->eng->after(r);
	return rc;
}

int rp_run_go(struct rp_run *r, int *run_rc)
{
	r->s.err[0] = '\0';
	rp_metrics_collect(r->metrics, rp_run_metrics_live, r);
	start(r);
	*run_rc = run(r);
	rp_metrics_collect(r->metrics, NULL, NULL); /* no scrape reads the accountants the merges free */
	int lrc = rp_run_merge_lcores(r); /* kept: the ranks' merge is collective */
	char lerr[sizeof(r->s.err)];
	snprintf(lerr, sizeof(lerr), "%s", r->s.err);
	rp_run_finish_accounting(r);
	rp_run_close_captures(r);
	/* This rank's facts, while its ports are still open (their PMD counters);
	 * out of memory, a rank ships none and rank 0 says which. */
	bool facts = rp_run_rank_facts(r, &r->own) == 0;
	rp_run_nics_facts(&r->nics, facts ? &r->own : NULL); /* the end sample, after the last frame */
	rp_run_switches_stop(&r->switches, r->cfg.stop);     /* theirs too, an interval on */
	if (!facts)
		rp_rank_env_free(&r->own);
	int rc = 0;
	if (r->cl.launched) {
		rc = rp_run_merge_ranks(r);
	} else {
		r->envs = &r->own;
		r->nenvs = 1;
		if (!facts)
			rc = rp_run_fail(r, "out of memory for the run's environment");
	}
	if (lrc) { /* the lcores' merge failed first: its line is the one said */
		snprintf(r->s.err, sizeof(r->s.err), "%s", lerr);
		rc = lrc;
	}
	r->interrupted = *r->cfg.stop && !r->lost; /* a dead rank's stop is no interruption */
	if (rc == 0 && r->cl.rank == 0)
		r->unsent_by_flow = rp_rank_env_unsent_by_flow(r->envs, r->nenvs, r->s.plan.nflows);
	if (rc == 0)
		rp_metrics_collect(r->metrics, rp_run_metrics_final, r);
	return rc;
}
