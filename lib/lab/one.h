/* One lab run, as `roceprobe lab` makes it: the profile (with its --set
 * overrides) loaded and planned, the -o directory made, the world built and
 * run, then the pieces its files are written from (headline, pairs, pause
 * propagation). The world is clock-free and silent (lab.h); a run is not:
 * it times itself on the wall clock, and its progress lines and notes (a
 * capture that stopped early) go to the FILEs the caller gives. Errors are
 * one line in err (the err/errlen convention); nothing is printed for them. */
#ifndef RP_LAB_ONE_H
#define RP_LAB_ONE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "lab.h"
#include "report.h"
#include "report/pairs.h"

/* What `lab --metrics` reads while the lab runs, from the metrics server's
 * thread: each field written with one relaxed atomic store by the run (its
 * progress callbacks, a few thousand events apart) and the command. */
enum rp_lab_stage { RP_LAB_STAGE_SETUP, RP_LAB_STAGE_RUN, RP_LAB_STAGE_WRITE, RP_LAB_STAGE_DONE, RP_LAB_STAGES };
extern const char *const rp_lab_stage_names[RP_LAB_STAGES]; /* "set-up", "run", "write", "done" */
struct rp_lab_live {
	uint64_t virtual_ns, planned_ns, events;
	int stage; /* enum rp_lab_stage */
};
/* The collect callbacks of lib/metrics (arg: the live state; final: the
 * finished rp_lab_one, its accountant's flows and ports besides). */
struct rp_prom;
void rp_lab_metrics_live(struct rp_prom *p, void *live);
struct rp_lab_metrics_final {
	const struct rp_lab_live *live;
	const struct rp_lab_one *one;
};
void rp_lab_metrics_final(struct rp_prom *p, void *arg);

struct rp_lab_one_opts {
	const char *profile;            /* its path */
	const char *const *sets;        /* --set KEY=VALUE overrides */
	size_t nsets;
	bool allow_pause_storm;
	bool force;                     /* reuse a non-empty directory (report/outdir.h) */
	bool capture;                   /* the pcaps into the run's directory */
	unsigned snaplen;
	uint64_t capture_max, capture_rotate, bin_ns; /* lab.h's rp_lab_opts */
	const char *const *mirrors;     /* --mirror SWITCH:PORT (checked before dir is made) */
	size_t nmirrors;
	uint64_t counters_ns;           /* --counters: DIR/counters.jsonl every this much virtual time */
	FILE *progress;                 /* "lab: virtual ..." every 0.5 s of wall time, set-up stages
					 * once it passes 1 s; NULL: none */
	FILE *notes;                    /* a capture that stopped early, said when it did; NULL: none */
	volatile sig_atomic_t *stop;    /* lab.h's: the run ends at its next event; the set-up at
					 * its next stage or few thousand items */
	struct rp_lab_live *live;       /* --metrics: kept up to date (NULL: none) */
};

struct rp_lab_one {
	struct rp_profile *prof;
	struct rp_plan plan;
	bool planned;
	struct rp_lab *lab;
	struct rp_lab_headline head;
	struct rp_lab_propagation *prop; /* built once after the run: result.json and summary.txt share it */
	struct rp_pairs *pairs;          /* the same */
	double wall;                     /* the event loop's wall seconds */
	time_t started;
	/* Where a signal stopped it: NULL (it ran to its end, or to
	 * fabric.max_time), "set-up" (nothing ran: no lab, no pieces), "run",
	 * or "write" (after the run: the caller's writers may set it too). */
	const char *stopped_in;
	/* A stop left the big per-flow pieces out (pairs not built; beyond
	 * RP_REPORT_FLOWS_INLINE flows no flows.jsonl, pairs.jsonl and only the
	 * first RP_REPORT_FLOWS_INLINE victims): what is left is bounded by the
	 * hosts and switches, written in well under a second. */
	bool detail_skipped;
};

/* Longest err line of these functions (a profile's file:line:col message). */
#define RP_LAB_ONE_ERR 4600

/* The profile loaded with o's sets, checked against the lab's limits and
 * planned. r zeroed first by the caller. 0, or -1 with err. */
int rp_lab_one_load(struct rp_lab_one *r, const struct rp_lab_one_opts *o, char *err, size_t errlen);
/* What rp_lab_one_run would refuse before running: the profile loads and
 * plans, and its fabric builds (the fabric's limits are checked there).
 * Nothing is written. 0, or -1 with err. */
int rp_lab_one_check(const struct rp_lab_one_opts *o, char *err, size_t errlen);
/* Loads (rp_lab_one_load: bad input leaves nothing behind), makes dir
 * (report/outdir.h, o->force), builds the world with its captures in dir,
 * runs it and closes the captures; then the headline, pairs and pause
 * propagation the files are written from. 0, or -1 with err. r is freed by
 * rp_lab_one_free either way. A signal (o->stop) in set-up: 0 with
 * r->stopped_in "set-up", r->lab NULL, dir made and empty (its captures
 * removed); in the run or after: 0 with r->stopped_in "run" or "write"
 * (report/outdir.h's stop then taken in: only the small files follow). */
int rp_lab_one_run(struct rp_lab_one *r, const struct rp_lab_one_opts *o, const char *dir, char *err, size_t errlen);
void rp_lab_one_free(struct rp_lab_one *r);

#endif
