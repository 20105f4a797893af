/* A run (`roceprobe run`): the profile's hosts on this rank's engine (DPDK
 * ports or verbs QPs), accounted per flow and port, every rank's part merged
 * on rank 0. The command keeps its options and the ranks' agreement on one
 * error line; everything else is here:
 *
 *   rp_run_place        the profile (rank 0's text, broadcast) and its hosts on ranks   place.c
 *   rp_run_engine_setup this rank's engine (engine.h: dpdk, verbs) and its ends          engine.c
 *   rp_run_accounting   the accountants (this rank's share of the plan), captures        accounting.c, share.c
 *   rp_run_exchange     the QP records, each to the rank that reads it (verbs plans)     exchange.c, qp_route.c
 *   rp_run_go           clocks, T0, the engine's run, the accounting closed and merged   go.c, merge.c, facts.c
 *   rp_run_close        every resource, in reverse order                                 close.c
 *   rp_run_write_result result.json, rp_run_write_summary summary.txt (report.h)      result.c, summary_view.c
 *   rp_run_steps        all of the above in order, the ranks agreeing (steps.h)         steps.c
 *   rp_run_local        one run in the caller's process, the EAL kept (local.h)         local.c
 *
 * Errors: one line in r->s.err and RP_RUN_USAGE, never printed by a step
 * (under a launcher the ranks agree on one first: rp_run_steps prints it). The field
 * names are those the run's report (report.h) reads. */
#ifndef RP_RUN_RUN_H
#define RP_RUN_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "cluster/cluster.h"
#include "dp/capture.h"
#include "dp/rx.h"
#include "nics.h"
#include "report/rank_env.h"
#include "session.h"
#include "switches.h"
#include "traffic/acct_cfg.h"
#include "txpath.h"

#define RP_RUN_USAGE RP_SESSION_USAGE /* bad input, a failed set-up: exit 2 */
#define RP_RUN_LINGER_NS 20000000ull /* in-flight frames arrive after the last send */
#define RP_RUN_XSTATS 64
/* verbs messages are ms apart on a soft NIC: 100 us bins would be mostly empty */
#define RP_RUN_VERBS_BIN_NS 10000000ull

/* What the command's options ask of the run. */
struct rp_run_cfg {
	const char *out; /* DIR: the captures' files */
	double duration_s; /* 0: until every flow is done */
	bool capture;
	unsigned snaplen;
	enum rp_capture_filter filter;
	unsigned sample;
	uint64_t bin_ns; /* 0: RP_RUN_VERBS_BIN_NS for plans with verbs flows, else 100 us */
	uint64_t idle_ns; /* a DPDK pass that moved no frame sleeps this long (0: spin) */
	uint64_t counter_interval_ns; /* the hosts' NIC counters sampled this often (0: off; nics.h) */
	volatile sig_atomic_t *stop; /* Ctrl-C, SIGTERM, a rank's stop: the run ends cleanly */
	/* The engine's run failed but the run goes on to its result: the
	 * command says so at once (may be NULL). */
	void (*run_failed)(const char *err);
};

struct rp_run_engine;
struct rp_vengine;

struct rp_run {
	struct rp_run_cfg cfg;
	const struct rp_run_engine *eng; /* this rank's (engine.h); NULL before rp_run_engine_setup */
	struct rp_session s;
	struct rp_acct_cfg acfg;
	uint32_t *flow_of; /* accountant flow -> plan flow */
	/* Under a launcher the rank's accountant holds its share of the plan
	 * (share.c); every flow's cfg stays here for rank 0's merge. */
	const struct rp_acct_flow_cfg *all_flows;
	size_t all_nflows;
	uint32_t *all_flow_of;
	const struct rp_acct_port_cfg *all_ports; /* every host's port; the share has its own */
	size_t all_nports;
	unsigned *acct_port; /* [nhosts]: the host's port in this rank's accountant (UINT_MAX: none) */
	struct rp_acct *acct; /* lcore 0's, into which the others' merge at the end */
	struct rp_dp_rx rx[RP_DP_MAX_QUEUES]; /* per lcore (s.nq of them) */
	struct rp_capture_stats cap_stats[RP_DP_MAX_PORTS]; /* by port */
	struct rp_dp_xstat xstats[RP_DP_MAX_PORTS][RP_RUN_XSTATS]; /* before the run */
	struct rp_txpath txpath[RP_DP_MAX_PORTS]; /* by port: what left it, by every count (txpath.h) */
	uint64_t *unsent_by_flow; /* rank 0, [plan.nflows]: flows[].tx_unsent, from every rank's ports */
	unsigned nxstats[RP_DP_MAX_PORTS];
	time_t started;
	/* Under mpirun/srun: this rank, the hosts it runs, its clock. */
	struct rp_cluster cl;
	struct rp_launch_rank *launch; /* [size]: what a host_template expands for */
	bool *mine;          /* [nhosts]: this rank runs the host */
	int *host_rank;      /* [nhosts] */
	struct rp_clock_offset *offsets; /* [size], every rank's to rank 0 */
	struct rp_clock_offset *offsets_after; /* [size], measured again after the run */
	bool clocks_after;   /* offsets_after holds a measurement (not after a degraded end) */
	int64_t t0_ns, skew_ns;
	/* The packet clock minus the corrected clock (corrected_ns - T0) right
	 * after its start and after the run (DPDK ranks; 0 for verbs). */
	int64_t pclock_gap[2];
	int64_t *rank_pclock_err; /* rank 0: [size], each rank's larger gap (its facts') */
	bool failed;         /* a rank's set-up failed: every rank stops */
	bool stopped;        /* a rank was stopped during set-up: every rank stops, no result */
	bool lost;           /* a rank died mid-run: the result is incomplete */
	bool interrupted;    /* SIGINT/SIGTERM (not the stop a dead rank causes) */
	volatile bool tx_done, others_done, gen_over;
	/* This rank's facts (lib/report/rank_env.h), and on rank 0 every rank's
	 * (envs, nenvs of them: &own alone in one process; NULL on other ranks):
	 * result.json's environment, capture, cluster.ranks, verbs, findings. */
	struct rp_run_nics nics; /* its hosts' NIC counters as a time series (nics.h) */
	struct rp_run_switches switches; /* rank 0: the profile's switches' counters (switches.h) */
	struct rp_rank_env own;
	struct rp_rank_env *envs;
	size_t nenvs;
	/* engine: verbs hosts: the plan's verbs flows (nrecs QP records) and this
	 * rank's ends of them (NULL without rdma-core). */
	size_t nrecs;
	struct rp_vengine *ve;
	bool verbs_here;     /* this rank runs verbs hosts: the verbs loop, not DPDK's */
	/* --metrics (lib/metrics; NULL: none): rp_run_go serves the live
	 * numbers from T0, then the merged ones (metrics.c). */
	struct rp_metrics *metrics;
};

/* One line in r->s.err (the step's error: the command says it at once); returns RP_RUN_USAGE. */
__attribute__((format(printf, 2, 3))) int rp_run_fail(struct rp_run *r, const char *fmt, ...);

/* The profile as this launch runs it (place.c). Under a launcher rank 0
 * reads the file and sends its text to every rank (no shared file system
 * needed; *text: malloc'd, what the session loads), every rank binds hosts to
 * ranks the same way (lib/cluster); without one every host runs here, unless
 * the profile places hosts on other ranks or nodes (*text NULL). Sets
 * r->launch, r->mine, r->host_rank. 0, or RP_RUN_USAGE with r->s.err. */
int rp_run_place(struct rp_run *r, const char *path, const struct rp_profile_opts *po, char **text);
/* The binding alone, pure (every rank computes it from the same text):
 * text NULL reads path. */
int rp_run_bind(struct rp_run *r, const char *path, const char *text, const struct rp_profile_opts *po);

/* The plan's flows and ports this rank accounts (share.c): under a launcher
 * only its share (the flows its hosts send or receive; a DPDK rank only its
 * own hosts' ports). 0, or RP_RUN_USAGE with r->s.err. */
int rp_run_share_flows(struct rp_run *r);
/* rtt: auto between two DPDK ranks: a sample of the probes echoed. */
void rp_run_auto_echoes(struct rp_run *r);

/* The accountants (one per lcore), the receivers' impairments and the
 * captures (accounting.c). 0, or RP_RUN_USAGE with r->s.err. */
int rp_run_accounting(struct rp_run *r);

/* The QP records, each to the rank that reads it, then every local QP at
 * RTS (exchange.c, built with rdma-core; every rank of a plan with verbs
 * flows takes part). rp_run_connect (engine.c) does it when the plan has
 * QP records, and nothing otherwise. */
int rp_run_exchange(struct rp_run *r);
int rp_run_connect(struct rp_run *r);

/* From T0 to the merged result (go.c): clock offsets and the common start
 * under a launcher, the engine's run, the lcores' and ranks' accounting
 * merged, this rank's facts, every rank's on rank 0. Returns 0, or
 * RP_RUN_USAGE with r->s.err (a rank's merge error on rank 0 only: the
 * others have nothing to say); *run_rc: the engine's own result
 * (RP_RUN_USAGE, its error given to cfg.run_failed, the run going on to its
 * result). */
int rp_run_go(struct rp_run *r, int *run_rc);

/* The --metrics collect callbacks (metrics.c; arg: the run): live from the
 * lcores' accountants and the sources, and once merged and closed. */
struct rp_prom;
void rp_run_metrics_live(struct rp_prom *p, void *arg);
void rp_run_metrics_final(struct rp_prom *p, void *arg);

/* This rank's clock corrected by its offset to rank 0 before the run (rank
 * 0's timebase, on which T0 is fixed); arg: the run. */
int64_t rp_run_corrected_ns(const void *arg);
/* The profile's longest `impair: delay`. */
uint64_t rp_run_max_delay(const struct rp_profile *p);

/* How far rank k's packet clock can be from rank 0's time during the run
 * (bound.c), and accountant flow i's one-way latency error (both ranks'). */
int64_t rp_run_rank_clock_bound(const struct rp_run *r, int k);
int64_t rp_run_flow_clock_bound(const struct rp_run *r, size_t i);
/* A rank's packet_clock_gap_ns, the larger in size; 0 when it has none. */
int64_t rp_run_packet_clock_err(const struct rp_rank_env *e);

/* The captures closed (their stats in cap_stats), and everything freed, in
 * the reverse order of its making; the cluster finalized. */
void rp_run_close_captures(struct rp_run *r);
void rp_run_close(struct rp_run *r);

#endif
