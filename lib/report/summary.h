/* The one text summary writer (issue 27): summary.txt (and the same text on
 * stdout) of `run` and `lab`, from plain structs the commands fill. The
 * sections, in order:
 *   title                 roceprobe COMMAND: NAME, elapsed (lab: events, hops, wall)
 *   incomplete            run: the ranks that died and when
 *   flows                 a row per flow (the first max_flows), one format for both
 *   lab's headline        loss, pause, latency, goodput, deepest queue, in flight, captures
 *   ports                 run: rx, misdelivered, PFC and paused time per port
 *   fabric, hosts         lab: drops, PFC, pause propagation, victims; multi-NIC hosts
 *   pairs                 the host pairs that stand out (report/pairs.h)
 *   pause order, aggression, round trips, clocks, misdelivered, findings,
 *   rate warnings, next hops, captures      run
 * A number run and lab both show is shown one way (docs/results.md's
 * introduction says how). Nothing printed but to the FILE given. */
#ifndef RP_REPORT_SUMMARY_H
#define RP_REPORT_SUMMARY_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fabric/switch.h"
#include "report/doc.h"
#include "report/pairs.h"
#include "report/rank_env.h"
#include "report/windows.h"
#include "stats/acct.h"

/* The flows table's columns beyond those both show (flow, src, dst, prio,
 * tx, rx, lost, ce, cnp, Gbit/s, p50/p99/max ns). */
#define RP_SUMMARY_IN_FLIGHT 1u /* "flying": sent, in the fabric when the run stopped (lab) */
#define RP_SUMMARY_REORDER 2u   /* "reord", "dup" (run) */
#define RP_SUMMARY_ACTIVE 4u    /* "active ms"; Gbit/s over each flow's active time, with its note (run) */

/* A rank of a run under a launcher, as the clocks section tells it. */
struct rp_summary_rank {
	const char *node;
	bool lost;                 /* it died: left out of the clocks */
	int64_t offset_ns, bound_ns; /* to rank 0, before the run */
	int64_t offset_after_ns, bound_after_ns; /* after it (clocks_after) */
	double drift_ppb, drift_bound_ppb;       /* the same */
	int64_t pclock_err_ns;     /* the packet clock's largest gap to the corrected clock */
	int64_t clock_bound_ns;    /* how far its packet clock can be from rank 0's time */
};

/* A port's capture, written by run's capture threads. */
struct rp_summary_capture {
	const char *host;
	uint64_t offered, written, dropped;
};

/* What a DPDK or verbs run adds. */
struct rp_summary_run {
	/* under a launcher: its ranks, and each host's */
	bool launched;
	int nranks;
	const struct rp_summary_rank *ranks;
	bool clocks_after;            /* offsets measured after the run too */
	size_t nhosts;
	const char *const *host_names; /* the profile's hosts, in order */
	const int *host_rank;          /* host h's rank */
	/* a rank died: how long after the start rank 0 saw it */
	bool lost;
	uint64_t lost_after_ns;
	/* accountant flow i: its side on a rank that died ("sender", "receiver",
	 * "both", NULL), whether its ends ran on two ranks, the one-way bound of
	 * those two clocks (0 on one rank). ctx is the command's. */
	const char *(*lost_side)(void *ctx, size_t i);
	bool (*cross_rank)(void *ctx, size_t i);
	int64_t (*flow_bound)(void *ctx, size_t i);
	void *ctx;
	/* a mixed run's aggression windows and result.json's aggression.pause
	 * entries, a host each (NULL, 0: not mixed) */
	const struct rp_report_window *windows;
	size_t nwindows;
	const json_t *pause;
	/* every rank's facts, for the findings */
	const struct rp_rank_env *envs;
	size_t nenvs;
	/* lines the session wrote (lib/run): flows sent below their rate, each
	 * resolved next hop; NULL: none */
	const char *rate_warnings, *next_hops;
	const struct rp_summary_capture *captures;
	size_t ncaptures;
};

/* What a lab run adds. */
struct rp_summary_lab {
	uint64_t events, hops;
	double wall_s;
	bool truncated; /* stopped at fabric.max_time */
	/* the headline (result.json's "headline") */
	double loss_pct, paused_pct, goodput_gbps;
	uint64_t lost, drops, in_flight, latency_samples, p99_ns, p999_ns, max_queue_bytes;
	uint64_t in_flight_on_links, in_flight_total; /* frames, every flow's (totals) */
	/* captures that stopped early (lab.capture_complete false) */
	bool capture_stopped, capture_failed, capture_room_limited;
	uint64_t capture_stopped_ns;
	const char *capture_error; /* the failed write's */
	const char *capture_max;   /* --capture-max, as a size ("1GiB") */
	/* the switches together */
	uint64_t sw_drops, drop_reasons[RP_DROP_REASONS]; /* by enum rp_switch_drop */
	uint64_t pfc_tx, xoff_sent, refresh_sent, xon_sent;
	/* result.json's pause_propagation (its head: congested, hops, depth) and
	 * its victims and sender-limited flows, an item at a time */
	const json_t *propagation;
	struct rp_report_stream victims, limited;
	size_t victims_kept; /* a stop kept only these in result.json; 0: all */
	/* result.json's hosts, for hosts of several NICs (NULL: none has) */
	const json_t *hosts;
};

struct rp_summary {
	const char *command; /* "run", "lab" */
	const char *name;    /* the profile's */
	uint64_t elapsed_ns;
	bool interrupted;    /* by a signal */
	const struct rp_acct *acct;
	unsigned cols;       /* RP_SUMMARY_* */
	size_t max_flows;    /* rows listed; the rest are counted */
	const struct rp_pairs *pairs; /* NULL: no flows (or a stop left them out) */
	bool files_skipped;  /* a stop left flows.jsonl out (report/flowset.h) */
	const struct rp_summary_run *run; /* one of these */
	const struct rp_summary_lab *lab;
};

void rp_summary_write(FILE *f, const struct rp_summary *s);

/* The sections (summary_*.c), for the writer. */
void rp_summary_flows(FILE *f, const struct rp_summary *s);
void rp_summary_ports(FILE *f, const struct rp_summary *s);
void rp_summary_misdelivered(FILE *f, const struct rp_summary *s);
void rp_summary_headline(FILE *f, const struct rp_summary *s);
void rp_summary_fabric(FILE *f, const struct rp_summary *s);
void rp_summary_hosts(FILE *f, const struct rp_summary_lab *l);
void rp_summary_aggression(FILE *f, const struct rp_summary *s);
void rp_summary_rtt(FILE *f, const struct rp_summary *s);
void rp_summary_clocks(FILE *f, const struct rp_summary *s);

#endif
