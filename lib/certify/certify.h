/* roceprobe certify: a fabric acceptance suite with verdicts.
 *
 * Nine tests (PFC incast, lossy isolation, ECN before PFC, DSCP to priority,
 * headroom, pause storm, all-to-all, latency under load, ECMP balance), each
 * PASS / FAIL / SKIP with its criteria, the measured values, the evidence
 * (the runs, plots) and, for a FAIL, the likely cause in plain words.
 *
 * The tests are engine-independent: a test states a workload as profile
 * traffic (YAML, the `traffic:` schema every engine reads) plus --set
 * overrides, an engine runs it and hands back a result.json-shaped document
 * (flows, ports, and where the engine sees them, switches), and the test
 * judges that document. The embedded lab is one engine (engine_lab.h); a
 * real fabric under `roceprobe run` is another, with the same interface.
 * No printing: progress goes through a callback. */
#ifndef RP_CERTIFY_CERTIFY_H
#define RP_CERTIFY_CERTIFY_H

#include <jansson.h>
#include <stdio.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric/headroom.h"
#include "profile/profile.h"

#define RP_CERT_NTESTS 9

/* MARGINAL: a test whose workload depends on a seed (the lab's ECMP hash and
 * RED draws) passed with some of RP_CERT_SEEDS seeds and failed with others:
 * not a pass. */
enum rp_cert_verdict { RP_CERT_PASS, RP_CERT_FAIL, RP_CERT_SKIP, RP_CERT_MARGINAL };
const char *rp_cert_verdict_name(enum rp_cert_verdict v); /* "PASS", "FAIL", "SKIP", "MARGINAL" */

#define RP_CERT_SEEDS 5

/* What the engine knows about the switches under test. On a real fabric
 * most of it is unknown (known = false): the tests then judge only what
 * they measure and name causes in general words. */
struct rp_cert_link {
	char what[32];               /* "host link", "uplink" */
	struct rp_headroom_in in;    /* the formula's inputs for this link */
	uint64_t configured;         /* headroom configured per lossless PG, bytes */
};

struct rp_cert_fabric {
	bool known;                  /* the switch settings below are the real ones */
	bool switch_counters;        /* run documents carry the switches' counters (`switches`) */
	bool switch_sources;         /* run documents carry the profile's `switches:` counters (counters.switches[]) */
	bool leaf_spine;
	unsigned leaves, spines, hosts_per_leaf;
	uint64_t host_bps, uplink_bps;
	uint8_t pfc_mask;            /* priorities the switches run PFC on (0: PFC off) */
	uint8_t ecn_mask;            /* priorities the switches ECN-mark */
	uint8_t dscp_to_prio[64];    /* the switches' map */
	bool xoff_dynamic;
	uint64_t xoff_bytes, kmin, kmax, buffer_bytes;
	double pmax;
	bool dcqcn;                  /* hosts cut their rate on CNPs */
	bool watchdog_model;         /* the engine can run a PFC watchdog at all */
	bool watchdog;               /* the switches run one ... */
	uint64_t wd_detect_ns;       /* ... detecting a storm after this */
	struct rp_cert_link links[2];
	size_t nlinks;
};

/* An engine. Both calls take the profile's --set overrides (the user's,
 * then the suggestion's, then the test's: later ones win). */
struct rp_cert_engine {
	const char *name; /* "lab", "run" */
	void *ctx;
	int (*describe)(void *ctx, const char *const *sets, size_t nsets, struct rp_cert_fabric *out, char *err,
			size_t errlen);
	/* One run; *out a result.json-shaped object the caller frees. 0, 1 when
	 * stopped by the signal flag (*out still valid), -1 with err. */
	int (*run)(void *ctx, const char *const *sets, size_t nsets, bool allow_pause_storm, json_t **out, char *err,
		   size_t errlen);
	/* Optional (may be NULL): the run that follows is test `id`'s, described
	 * by label ("priority 3, 2:1 incast"), for an engine that names its runs. */
	void (*begin)(void *ctx, unsigned id, const char *label);
	/* The profile key whose value draws what a seeded test's workload meets
	 * (the lab: "fabric.seed", its switches' ECMP hash and RED); such a test
	 * runs with RP_CERT_SEEDS values of it from the profile's. NULL: the
	 * engine has none to vary, each test runs once. */
	const char *seed_key;
};

/* What `certify --metrics` serves while it runs (live.c): the tests asked,
 * those done, each one's verdict and the one under way; the run updates it
 * under its lock as a test starts and ends, the metrics thread reads it. */
struct rp_cert_live {
	pthread_mutex_t lock;
	unsigned ntests, ndone, running; /* running: the id under way, 0 none */
	int verdict[RP_CERT_NTESTS + 1]; /* by id: 1 PASS, 0 FAIL, -1 not judged (SKIP, MARGINAL), -2 not yet */
};
void rp_cert_live_init(struct rp_cert_live *l);
/* lib/metrics' collect callback (arg: the live state). */
struct rp_prom;
void rp_cert_metrics(struct rp_prom *p, void *live);

struct rp_cert_opts {
	const struct rp_cert_engine *eng;
	const char *const *sets; /* the user's --set (and a suggestion's) */
	size_t nsets;
	unsigned only;           /* bit (1 << id) per test to run; 0: all */
	bool allow_pause_storm;  /* test 6 runs only with it */
	volatile sig_atomic_t *stop;
	void (*progress)(const char *line, void *arg); /* one line per test; may be NULL */
	void *progress_arg;
	struct rp_cert_live *live; /* --metrics (NULL: none) */
};

/* Test names by id 1..9 ("pfc-incast", ...); NULL out of range. */
const char *rp_cert_test_name(unsigned id);
const char *rp_cert_test_title(unsigned id);
/* "1,3,ecmp" -> a bit mask of ids; 0, or -1 with err naming the bad one. */
int rp_cert_parse_only(const char *list, unsigned *mask, char *err, size_t errlen);

/* Runs the tests: *tests an array with one object per test run (docs/certify.md:
 * id, name, title, verdict, reason, criteria, measured, evidence, cause,
 * blocked_by), *interrupted when the stop flag ended it early. prof is the
 * profile loaded with opts->sets. 0, or -1 with err (an engine failure). */
int rp_certify_run(const struct rp_profile *prof, const struct rp_cert_opts *o, json_t **tests, bool *interrupted,
		   char *err, size_t errlen);

/* Counts of each verdict in a tests array. */
void rp_cert_count(const json_t *tests, unsigned *pass, unsigned *fail, unsigned *skip, unsigned *marginal);

/* Certified: not interrupted, every verdict PASS (no FAIL, no MARGINAL), and
 * test 1 judged, or with only (rp_cert_opts.only) every test it names. The
 * tests judged (any verdict but SKIP) in *judged, of *asked run. */
bool rp_cert_certified(const json_t *tests, unsigned only, bool interrupted, unsigned *judged, unsigned *asked);

/* --suggest: for each failing test, the knobs behind its cause swept (one
 * --set per point, nearest first) until one setting passes every test.
 * *out: {"found": bool, "sets": [...], "steps": [{test, cause, key, tried:
 * [{value, verdicts}], chosen, before, after}]}. 0, or -1 with err. */
int rp_certify_suggest(const struct rp_profile *prof, const struct rp_cert_opts *o, const json_t *tests, json_t **out,
		       char *err, size_t errlen);

/* report.md and report.html (self-contained: inline CSS, inline SVG plots)
 * from the certify result document. 0, or -1 with err. */
int rp_cert_write_md(const json_t *result, const char *path, char *err, size_t errlen);
int rp_cert_write_html(const json_t *result, const char *path, char *err, size_t errlen);
/* The text summary (what `certify` prints): "VERDICT ID NAME reason or
 * cause" per test, the --suggest outcome, "certify: VERDICT", why it is not
 * certified when it is not, and where DIR's files are. */
void rp_cert_print_summary(FILE *f, const json_t *result, const char *dir);

#endif
