/* THE MPI EDGE: many processes, one or more per machine, started by mpirun or
 * srun, run one profile together. MPI is the control plane only (who runs
 * which host, barriers, exchanges, the common start time, clock offsets, the
 * results shipped to rank 0); no packet ever goes through it. mpi.c is the
 * only file that includes mpi.h; binding and clock estimation are pure C,
 * unit-tested without MPI.
 *
 *   mpirun -np 4 roceprobe ...          rank 0 ... rank 3, one process each
 *        |                               |
 *   rp_cluster_init: MPI_Init (only when a launcher started us; a plain run is
 *        |           rank 0 of 1 and never touches MPI)
 *   rp_cluster_bind: profile hosts -> ranks (rank:, node:, else host i on rank i)
 *        |
 *   rp_cluster_clocks: each rank's offset to rank 0, ping-pong, best RTT
 */
#ifndef RP_CLUSTER_CLUSTER_H
#define RP_CLUSTER_CLUSTER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"

#define RP_CLUSTER_ERR_LEN 512

/* Who this process is. */
struct rp_rank_info {
	int rank;
	int local_rank;              /* among the ranks on the same node, by rank */
	char node[RP_NODE_NAME_MAX]; /* hostname */
};

struct rp_cluster {
	bool launched;          /* under mpirun / srun (MPI initialised) */
	const char *launcher;   /* "mpirun", "srun", "pmix", or "none" */
	int rank, size;
	struct rp_rank_info *ranks; /* every rank's info, by rank (size entries) */
	struct rp_watch *watch;     /* watch.c, once rp_cluster_watch_start ran */
	struct rp_guard *guard;     /* guard.c: the launcher's stop, and its death */
};

/* A run that lost a rank: rank 0 wrote what the others measured, with
 * "incomplete" (docs/cluster.md). Also every rank's exit when nothing could
 * be saved (rank 0 died, or a rank died before the traffic). */
#define RP_CLUSTER_EXIT_INCOMPLETE 3

/* True when the environment says a launcher started this process (Open MPI,
 * PMIx, PMI or Slurm variables). */
bool rp_cluster_detect(const char **launcher);

/* Without a launcher: rank 0 of 1, no MPI at all. With one: the guard
 * (below; when stop is not NULL), MPI_Init and the exchange of every rank's
 * node name. 0, or -1 with one line in err (a build without MPI started by
 * mpirun, MPI_Init failing). */
int rp_cluster_init(struct rp_cluster *c, volatile sig_atomic_t *stop, int *argc, char ***argv, char *err,
		    size_t errlen);
/* MPI_Finalize when launched (not after a degraded end, nor once the
 * launcher is gone or ending the job: its PMIx fence would be waited for
 * until the launcher's SIGKILL); frees. */
void rp_cluster_finalize(struct rp_cluster *c);

/* ---- the launcher's guard (guard.c) ----
 * Under a launcher, from before MPI_Init: SIGCONT from this rank's parent
 * (Open MPI's mpirun/orted send it at once when they end a job, SIGTERM only
 * a second later) and the parent's death (a launcher that exited without
 * signalling the ranks it had not registered yet) set *stop; an orphaned
 * rank exits shortly after, and so does one stopped during set-up that the
 * ranks did not act on together in time (docs/cluster.md, "Stopping"). */
/* The traffic starts: a stop now ends in an interrupted result. */
void rp_cluster_guard_run(struct rp_cluster *c);
/* The launcher that started this rank is gone. */
bool rp_cluster_orphaned(const struct rp_cluster *c);
/* ... or is ending the job (its SIGCONT came): no MPI_Finalize then. */
bool rp_cluster_launcher_ending(const struct rp_cluster *c);
/* Rank 0, once per process: "roceprobe run: interrupted WHEN: no result written". */
void rp_cluster_say_stopped(const struct rp_cluster *c, const char *when);

int rp_cluster_barrier(const struct rp_cluster *c);
/* One round on every rank: *any = some rank's any_in, *all = every rank's
 * all_in (MPI_Iallreduce, waited for politely). */
int rp_cluster_any_all(const struct rp_cluster *c, bool any_in, bool all_in, bool *any, bool *all);

/* root's len bytes to every rank. */
int rp_cluster_bcast(const struct rp_cluster *c, void *buf, size_t len, int root);
/* Every rank's len bytes, in rank order, into all (size x len) on every rank. */
int rp_cluster_allgather(const struct rp_cluster *c, const void *mine, size_t len, void *all);
/* Each rank's bytes to the ranks that need them, and only those (MPI_Alltoallv):
 * send holds, rank after rank, send_lens[r] bytes for rank r (size entries);
 * *recv (malloc'd) gets what every rank sent this one, rank after rank, with
 * recv_lens[r] (size entries, malloc'd). Every rank calls it. 0 or -1. */
int rp_cluster_alltoallv(const struct rp_cluster *c, const void *send, const size_t *send_lens, uint8_t **recv,
			 size_t **recv_lens);
/* Logical OR of ok over every rank: false when any rank says false. The step
 * every rank takes after its setup, so one rank's failure stops them all
 * before any traffic. */
bool rp_cluster_all_ok(const struct rp_cluster *c, bool ok);
/* v[i] summed (or the maximum taken) over every rank, in place, on every rank. */
int rp_cluster_sum_u64(const struct rp_cluster *c, uint64_t *v, size_t n);
int rp_cluster_max_u64(const struct rp_cluster *c, uint64_t *v, size_t n);
/* Every rank's bytes to rank 0: *all (malloc'd, rank after rank) and lens[r]
 * (size entries, malloc'd) on rank 0; NULL elsewhere. 0 or -1. */
int rp_cluster_gather(const struct rp_cluster *c, const void *mine, size_t len, uint8_t **all, size_t **lens);
/* One line from the first rank that failed its setup, for rank 0 to print:
 * every rank passes its error ("" when fine); true when every rank is fine,
 * else false with "rank R (node N): ERROR" of the lowest failing rank in first. */
bool rp_cluster_agree(const struct rp_cluster *c, const char *my_err, char *first, size_t len);
/* Stops every rank at once (MPI_Abort) after a rank lost its way; exit code rc. */
_Noreturn void rp_cluster_abort(const struct rp_cluster *c, int rc);

/* Every host's `mac: auto` MAC and `ipv4/ipv6: netdev` addresses, as the rank
 * that runs it (host_rank[h]) filled them, into p on every rank: one
 * allgather of fixed records (rp_host_rec, profile.h). Every rank calls it;
 * 0, or -1 with one line in err. Then rp_profile_addrs_check finds duplicates. */
int rp_cluster_host_addrs(const struct rp_cluster *c, struct rp_profile *p, const int *host_rank, char *err,
			  size_t errlen);
/* ---- the watch (watch.c): ranks that die ----
 * A TCP connection from every rank to rank 0, beside MPI: a dead process's
 * socket closes, so rank 0 sees a rank die at once, whatever the launcher
 * does about it (Open MPI 4.1 kills the job a second later, Slurm does not).
 * Before the traffic (or while MPI carries the results) a death ends every
 * rank with one line from rank 0 and RP_CLUSTER_EXIT_INCOMPLETE; while the
 * traffic runs it sets *stop on every living rank, and the end goes over the
 * watch without the dead (rp_cluster_degraded), never through MPI again.
 * Only ranks join it: rank 0 listens on the addresses it announces and each
 * connection proves the job's secret, drawn by rank 0 and broadcast over MPI
 * (watch_join.h, watch_msg.h). */

/* Collective, after rp_cluster_init (a no-op without a launcher). 0, or -1
 * with one line "rank R (node N): ..." in err on every rank. */
int rp_cluster_watch_start(struct rp_cluster *c, volatile sig_atomic_t *stop, char *err, size_t errlen);
/* From here a death stops the run instead of the job, and a stop (guard.c)
 * ends in an interrupted result. */
void rp_cluster_watch_run(struct rp_cluster *c);
/* Every living rank's senders are done (the barrier while ports are polled:
 * a dead rank is not waited for). */
int rp_cluster_watch_barrier(const struct rp_cluster *c);
/* After this rank's run: rank 0's verdict, the same on every rank. true: a
 * rank died, the collectives below (sum, max, gather) go over the watch and
 * the dead ranks give nothing (lens 0); false: all alive, MPI as usual. */
bool rp_cluster_run_over(struct rp_cluster *c);
bool rp_cluster_degraded(const struct rp_cluster *c);
bool rp_cluster_rank_lost(const struct rp_cluster *c, int rank);
/* Rank 0's clock (rp_cluster_now_ns) when it saw the first death; 0 elsewhere. */
int64_t rp_cluster_fault_ns(const struct rp_cluster *c);
/* Rank 0: the connections its watch closed during set-up without taking them
 * as a rank (no proof of the job's secret, a wrong one, too slow, a rank that
 * had joined already: watch_join.h); 0 elsewhere. */
unsigned rp_cluster_watch_refused(const struct rp_cluster *c);
/* Part of rp_cluster_finalize: goodbye to rank 0; after a degraded end a
 * rank waits for rank 0's (it writes the result first). */
void rp_cluster_watch_stop(struct rp_cluster *c);

/* ---- binding (pure) ---- */

/* The ranks as a profile's host_template sees them (rp_profile_opts.ranks):
 * out[r] points into ranks[r]. */
void rp_cluster_launch_ranks(const struct rp_rank_info *ranks, size_t n, struct rp_launch_rank *out);

/* host_rank[h] for each of p's hosts. Rules: a host's `rank: R` is rank R; the
 * hosts naming `node: N` take N's ranks in local-rank order, in profile order;
 * any other host i is rank i (hosts as the profile lists them: a host's NICs,
 * `nics:`, share its rank). Every host gets a rank that exists, and every
 * rank runs at least one host, or -1 with one line in err naming the host or
 * the rank (and its node) and what to change. */
int rp_cluster_bind(const struct rp_profile *p, const struct rp_rank_info *ranks, size_t nranks, int *host_rank,
		    char *err, size_t errlen);
/* Without a launcher a profile runs in one process, unless it places hosts
 * elsewhere (a rank above 0, a node other than this one): then -1 and one
 * line that says to start it with mpirun or srun. */
int rp_cluster_check_single(const struct rp_profile *p, const char *this_node, char *err, size_t errlen);
/* The profile as this launch runs it: loaded with its host_template expanded
 * for c's ranks (po's sets and the rest kept), then its hosts bound to ranks
 * (rp_cluster_bind; without a launcher every host is rank 0's, after
 * rp_cluster_check_single). *host_rank: malloc'd, one rank per host. 0, or -1
 * with one line in err (*p may be set: the caller frees it). */
int rp_cluster_profile_bind(const struct rp_cluster *c, const char *path, struct rp_profile_opts po,
			    struct rp_profile **p, int **host_rank, char *err, size_t errlen);

/* ---- clocks (estimation pure, exchange over MPI) ---- */

/* One ping-pong from rank 0: t0 (rank 0 sends), tr (the rank's clock when it
 * answered), t1 (rank 0 receives), all ns on each side's own clock. */
struct rp_clock_sample {
	int64_t t0, tr, t1;
};

/* A rank's clock minus rank 0's: from the sample with the smallest RTT, the
 * offset is tr - (t0 + t1) / 2 and the truth lies within +- bound = RTT / 2
 * (whatever the asymmetry of the two directions). */
struct rp_clock_offset {
	int64_t offset_ns;
	int64_t bound_ns;
	int64_t rtt_ns;
	int64_t at_ns; /* rank 0's time of the chosen sample's midpoint */
};
int rp_clock_estimate(const struct rp_clock_sample *s, size_t n, struct rp_clock_offset *o);
/* Drift between two estimates, in ns per second (parts per billion). */
double rp_clock_drift_ppb(const struct rp_clock_offset *before, const struct rp_clock_offset *after);
/* How far that drift can be off: (both bounds) / the time between them, ns/s. */
double rp_clock_drift_bound_ppb(const struct rp_clock_offset *before, const struct rp_clock_offset *after);
/* How far this rank's clock, corrected by before's offset, can be from rank
 * 0's at any time between the two estimates: before's bound, plus how far
 * the true offset can have moved (|after - before| and both bounds). */
int64_t rp_clock_run_bound_ns(const struct rp_clock_offset *before, const struct rp_clock_offset *after);

/* This rank's clock: CLOCK_REALTIME (what NTP/PTP discipline, common to every
 * machine) plus ROCEPROBE_CLOCK_SKEW_NS from the environment, a test hook that
 * puts an offset on one rank on purpose, and ROCEPROBE_CLOCK_DRIFT_PPM, one
 * that makes it run fast (or slow, negative) by that many parts per million
 * from its first reading on. */
int64_t rp_cluster_now_ns(void);
/* Every rank's offset to rank 0 (offsets[0] is zero), measured with rounds
 * ping-pongs each; every rank gets the whole array. 0 or -1. */
int rp_cluster_clocks(const struct rp_cluster *c, unsigned rounds, struct rp_clock_offset *offsets);
/* The common start (start.c), in two steps so a rank's own set-up (its
 * counter readers' first samples) happens before T0, not after it: rank 0
 * fixes T0 = its clock + margin_ns and tells every rank (0 or -1; without a
 * launcher T0 is this process's clock + margin_ns); then each waits until
 * its clock, corrected by its offset to rank 0 (offsets NULL: none),
 * reaches T0 (sleeping, then spinning for the last 200 us) and returns how
 * late it woke (its start skew, ns; a set-up that outlasted the margin makes
 * it late); a stop (the guard) ends the wait early, skew 0. */
int rp_cluster_start_when(const struct rp_cluster *c, int64_t margin_ns, int64_t *t0);
void rp_cluster_start_wait(const struct rp_cluster *c, const struct rp_clock_offset *offsets, int64_t t0,
			   int64_t *skew_ns);

/* ---- results (ship.c): every rank's accountant -> one on rank 0 ----
 * Each rank's accountant holds its share of the plan (the flows its hosts
 * send or receive, matched by id; its own hosts' ports) and is fed by those
 * ports only (lib/stats/acct_pack.h); rank 0 merges into every flow and port. */
struct rp_acct;
/* Closes a on every rank: the senders' counts of every flow summed over the
 * ranks (each flow has one sender) and installed, so lost = sent - received
 * exactly at the receiver's rank; every rank closes at the latest rank's
 * end_ns (returned in *end). nflows: the plan's flow count (ids below it).
 * dst_rank[i] (a's flows; may be NULL): the rank of flow i's receiver: the
 * counts then go to that rank only (an alltoallv of 60 B per flow a rank
 * holds, not an allreduce of 56 B per flow of the plan), and only the flows
 * a rank receives get them. After a rank died (rp_cluster_degraded), or with
 * dst_rank NULL, every rank gets every flow's, as a reduction (the watch's
 * star when degraded: a dead receiver's flows are shipped by their sender). */
int rp_cluster_acct_finish(const struct rp_cluster *c, struct rp_acct *a, size_t nflows, const int *dst_rank,
			   uint64_t end_ns, uint64_t *end);
/* Rank 0's merged (created by the caller with the same cfg, results_only
 * at scale; NULL on other ranks) gets every rank's own flows (own_flow:
 * this rank hosts the receiver) and own ports, gathered in rounds of 64
 * ranks (rank 0 holds one round's packed results at a time), then
 * rp_acct_merge_done. 0, or -1 with one line in err (on rank 0). */
int rp_cluster_acct_merge(const struct rp_cluster *c, const struct rp_acct *a, const bool *own_flow,
			  const bool *own_port, struct rp_acct *merged, char *err, size_t errlen);
/* Each rank's facts (lib/report/rank_env.h), packed, to rank 0: *all (size
 * entries, calloc'd; free with rp_cluster_rank_envs_free) on rank 0, NULL
 * elsewhere. A rank that died sends nothing: its entry is not present. 0, or
 * -1 with one line in err (on rank 0: a rank's record that is missing or
 * bad, naming the rank; *all still holds the others). */
struct rp_rank_env;
int rp_cluster_rank_envs(const struct rp_cluster *c, const struct rp_rank_env *mine, struct rp_rank_env **all,
			 char *err, size_t errlen);
void rp_cluster_rank_envs_free(const struct rp_cluster *c, struct rp_rank_env *all);

/* What disciplines this host's clock: "ptp" (ptp4l or phc2sys running),
 * "ntp" (the kernel says synchronised), or "none". */
const char *rp_cluster_clock_source(void);

#endif
