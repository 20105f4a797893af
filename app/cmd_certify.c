/* roceprobe certify: the fabric acceptance suite (lib/certify) on the
 * embedded lab or on a real fabric (`roceprobe run` children, under a
 * launcher); verdicts to DIR/result.json, report.md and report.html. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "certify/certify.h"
#include "certify/engine_lab.h"
#include "certify/engine_pick.h"
#include "certify/engine_run.h"
#ifdef RP_HAVE_DPDK
#include "run/local.h"
#endif
#include "cli.h"
#include "metrics/metrics.h"
#include "doctor/doctor.h"
#include "lab/lab.h"
#include "report/result.h"
#include "report/result_doc.h"

/* getopt_long's short options (rp_cli_bad_option names a bad one). */
static const char SHORTS[] = "o:s:qh";

#define MAX_SETS 64

struct certify_opts {
	const char *profile, *out;
	const char *sets[MAX_SETS];
	size_t nsets;
	unsigned only;
	bool suggest, allow_pause_storm, force, quiet;
	const char *engine;   /* "lab", "run", NULL: by the profile */
	const char *launcher; /* run: the command the children start under */
	bool no_preflight;    /* run: no doctor checks at start (here and in the children) */
	bool no_telemetry;    /* run: the children's EAL without its telemetry socket */
	double run_timeout_s;
	struct rp_cli_metrics metrics;
};

static void usage(FILE *out)
{
	fputs("usage: roceprobe certify PROFILE -o DIR [--only T,...] [--suggest] [options]\n"
	      "\n"
	      "Is this fabric ready? Runs an acceptance suite on the profile's hosts, in the\n"
	      "embedded lab or on their real ports (below), each test with a verdict PASS, FAIL\n"
	      "or SKIP (with the reason), its criteria, the measured values and, for a FAIL, the\n"
	      "likely cause in plain words:\n"
	      "  1 pfc-incast       N:1 at line rate, N = 2, 4, ... hosts - 1, each lossless\n"
	      "                     priority: zero loss, zero NAK, PFC at every sender\n"
	      "  2 lossy-isolation  lossy incast beside a lossless one: lossy drops, lossless\n"
	      "                     does not, no PFC for the lossy priority\n"
	      "  3 ecn-before-pfc   with DCQCN: CE and CNPs before any XOFF; PFC frames within\n"
	      "                     certify.ecn.pfc_per_min (100); queue at first CE and XOFF\n"
	      "  4 dscp-priority    each DSCP the hosts send is queued and paused on its priority\n"
	      "  5 headroom         no headroom drops; configured >= the formula, term by term\n"
	      "  6 pause-storm      (only with --allow-pause-storm) a host pausing without end is\n"
	      "                     contained; healthy paths lose nothing and are not held\n"
	      "  7 all-to-all       goodput per host >= 90% of line, Jain's fairness >= 0.9\n"
	      "  8 latency          probe p99 on an unloaded priority beside an incast within\n"
	      "                     5x of idle\n"
	      "  9 ecmp             permutation: each uplink's share within 25% of 1/k (SKIP on\n"
	      "                     one switch)\n"
	      "Engines: `lab` runs each workload in the embedded lab (the profile's `fabric:`);\n"
	      "`run` runs it on the profile's real ports as a `roceprobe run` writing\n"
	      "DIR/runs/TEST-N/: without --launcher in this process (one DPDK for every test;\n"
	      "a PCI port or a verbs host: a child), with it a child (this binary) under the\n"
	      "launcher (how a fabric's hosts take part: mpirun, srun). Default: run when a\n"
	      "host has a `port:`, else lab.\n"
	      "On a real fabric nothing is known of the switches: 1, 2, 4, 7 and 8 are judged\n"
	      "from what the hosts measure (loss, NAKs, PFC received, goodput, latency); 3, 5,\n"
	      "6 and 9 need the switches' own counters and are SKIPs saying so. Each run's\n"
	      "result is DIR/runs/TEST-N/result.json (its output in DIR/runs/TEST-N.log);\n"
	      "SIGINT stops the run in process, or is forwarded to the child (mpirun:\n"
	      "OMPI_MCA_odls_base_sigkill_timeout 10 unless set); the interrupted result is\n"
	      "kept. --suggest needs the lab.\n"
	      "Thresholds and intent (lossless, lossy, dscp) come from the profile's `certify:`\n"
	      "section (docs/certify.md). Writes DIR/result.json (\"kind\":\"certify\"), report.md\n"
	      "and report.html (self-contained, plots inline). One progress line per test on\n"
	      "stderr (\"3 of 9 done\"; after the first second also a line as each test starts,\n"
	      "and about how long the rest takes). Tests 7 and 9 run with 5 seeds in the lab\n"
	      "(fabric.seed and the next four: the ECMP hash and RED draws) and are MARGINAL\n"
	      "when the seeds disagree.\n"
	      "Exit 0 only when certified: test 1 (or every test --only names) got a verdict\n"
	      "and every verdict is PASS; 1 otherwise (a FAIL, a MARGINAL, interrupted, or\n"
	      "\"not certified: N of 9 tests judged\"), 2 on bad input. SIGINT/SIGTERM: stops,\n"
	      "writes the tests done.\n"
	      "\n"
	      "  -o, --out DIR         result directory (created; refused when not empty,\n"
	      "                        unless --force)\n"
	      "  --force               reuse a non-empty DIR (its roceprobe files are replaced)\n"
	      "  --only T,...          run only these tests (numbers or names: 1,3,ecmp)\n"
	      "  --suggest             for each failing test, sweep the knobs behind its cause\n"
	      "                        (xoff, headroom, kmin/kmax/pmax, DCQCN, DSCP map, uplink\n"
	      "                        speed, buffer) and propose the nearest setting with which\n"
	      "                        every test passes, with the numbers before and after\n"
	      "  --set KEY=VALUE       override a profile key, as `lab` does\n"
	      "  --allow-pause-storm   run test 6 (a host that never stops pausing)\n"
	      "  --engine lab|run      where the workloads run (default: run when a host has a\n"
	      "                        `port:`, else lab)\n"
	      "  --launcher \"CMD\"      run: start each child under CMD, e.g. \"mpirun\n"
	      "                        --allow-run-as-root -np 4 --host a,b,c,d\" or \"srun\n"
	      "                        --mpi=pmix -n 4\" (rank 0 must write DIR: run it here, or\n"
	      "                        give DIR on a shared file system)\n"
	      "  --no-preflight        run: skip doctor's checks at start (without --launcher\n"
	      "                        certify checks every host before DIR is made: a FAIL is\n"
	      "                        one line and exit 2; the children check too)\n"
	      "  --no-telemetry        run: the children run with --no-telemetry (no DPDK\n"
	      "                        telemetry socket; on by default, `dpdk-telemetry.py -f\n"
	      "                        rpPID` attaches to a child)\n"
	      "  --run-timeout S       run: stop a run still running after S s (default 600)\n"
	      "  -q, --quiet           no progress lines\n"
	      RP_CLI_METRICS_HELP
	      "                         (the tests asked and done, the one under way, each\n"
	      "                         finished test's verdict: 1 PASS, 0 FAIL, -1 not judged)\n"
	      "\n"
	      "Example: roceprobe certify profiles/certify-good.yaml -o results/cert\n"
	      "         roceprobe certify fabric.yaml -o results/fab --only 1,2,7 \\\n"
	      "             --launcher \"mpirun --allow-run-as-root -np 4 --host a,b,c,d\"\n"
	      "         roceprobe certify profiles/certify-good.yaml -o results/c2 --set fabric.pfc.headroom=8KiB --suggest\n",
	      out);
}

static int parse_args(int argc, char **argv, struct certify_opts *o)
{
	static const struct option opts[] = {
		{"out", required_argument, NULL, 'o'},         {"set", required_argument, NULL, 's'},
		{"only", required_argument, NULL, 'O'},        {"suggest", no_argument, NULL, 'S'},
		{"allow-pause-storm", no_argument, NULL, 'A'}, {"force", no_argument, NULL, 'F'},
		{"quiet", no_argument, NULL, 'q'},             {"help", no_argument, NULL, 'h'},
		{"engine", required_argument, NULL, 'E'},      {"launcher", required_argument, NULL, 'L'},
		{"run-timeout", required_argument, NULL, 'T'}, {"no-preflight", no_argument, NULL, 'P'},
		RP_CLI_NO_TELEMETRY_OPTION,                       RP_CLI_METRICS_OPTIONS,
		{NULL, 0, NULL, 0},
	};
	char err[512];
	int c;
	*o = (struct certify_opts){.run_timeout_s = 600};
	optind = 1;
	while ((c = getopt_long(argc, argv, SHORTS, opts, NULL)) != -1) {
		switch (c) {
		case 'o': o->out = optarg; break;
		case 's':
			if (o->nsets == MAX_SETS)
				return rp_cli_error("certify", "at most %d --set options", MAX_SETS);
			o->sets[o->nsets++] = optarg;
			break;
		case 'O':
			if (rp_cert_parse_only(optarg, &o->only, err, sizeof(err)))
				return rp_cli_error("certify", "%s", err);
			break;
		case 'S': o->suggest = true; break;
		case 'A': o->allow_pause_storm = true; break;
		case 'F': o->force = true; break;
		case 'q': o->quiet = true; break;
		case 'E':
			if (strcmp(optarg, "lab") != 0 && strcmp(optarg, "run") != 0)
				return rp_cli_error("certify", "--engine: expected lab or run, got '%s'", optarg);
			o->engine = optarg;
			break;
		case 'L': o->launcher = optarg; break;
		case 'T':
			if (rp_cli_duration("certify", "--run-timeout", optarg, 1e6, &o->run_timeout_s))
				return RP_EXIT_USAGE;
			break;
		case 'P': o->no_preflight = true; break;
		case RP_CLI_OPT_NO_TELEMETRY: o->no_telemetry = true; break;
		case RP_CLI_OPT_METRICS:
		case RP_CLI_OPT_METRICS_KEY:
		case RP_CLI_OPT_METRICS_LINGER:
			if (rp_cli_metrics_opt("certify", c, optarg, &o->metrics))
				return RP_EXIT_USAGE;
			break;
		case 'h': usage(stdout); return -1;
		default: return rp_cli_bad_option("certify", SHORTS);
		}
	}
	if (optind != argc - 1)
		return rp_cli_error("certify", "expected one profile (try 'roceprobe certify --help')");
	if (!o->out)
		return rp_cli_error("certify", "-o DIR is required: where result.json and the reports go");
	o->profile = argv[optind];
	return 0;
}

static void progress(const char *line, void *arg)
{
	if (!*(bool *)arg)
		fprintf(stderr, "certify: %s\n", line);
}

static double wall_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static json_t *intent_json(const struct rp_profile *p)
{
	const struct rp_certify_cfg *c = &p->certify;
	return json_pack("{s:b, s:f, s:f, s:f, s:f, s:f, s:I, s:I, s:i, s:i}", "section", c->present, "pfc_per_min",
			 c->pfc_per_min, "goodput_share", c->goodput_share, "jain", c->jain, "p99_factor", c->p99_factor,
			 "ecmp_tolerance", c->ecmp_tolerance, "storm_detect_ns", (json_int_t)c->storm_detect_ns,
			 "storm_recover_ns", (json_int_t)c->storm_recover_ns, "messages", (int)c->messages, "max_incast",
			 (int)c->max_incast);
}

/* The engine's side of `environment`: the lab's runs and virtual time, or the
 * run engine's children (launcher, each child's directory, command, exit). */
static json_t *engine_env(const struct rp_cert_engine *eng, const struct rp_cert_lab *lab,
			  const struct rp_cert_run *run)
{
	if (strcmp(eng->name, "lab") == 0)
		return json_pack("{s:i, s:f}", "lab_runs", (int)lab->runs, "virtual_s", lab->virtual_s);
	return json_pack("{s:i, s:s?, s:O}", "runs", (int)run->runs, "launcher", run->launcher_text, "children",
			 run->log ? run->log : json_array());
}

/* What the certify document says beyond the builder's common pieces. */
struct cert_doc {
	const struct certify_opts *o;
	const struct rp_profile *p;
	const struct rp_cert_engine *eng;
	json_t *tests, *suggest; /* stolen by cert_keys */
	bool interrupted;
};

/* result.json's keys before the environment: the engine, the --set's. */
static int cert_pre(struct rp_result_out *out, void *ctx)
{
	const struct cert_doc *c = ctx;
	json_t *sets = json_array();
	for (size_t i = 0; sets && i < c->o->nsets; i++)
		json_array_append_new(sets, json_string(c->o->sets[i]));
	rp_result_put(out, "engine", json_string(c->eng->name));
	return rp_result_put(out, "sets", sets);
}

/* After it: the verdict, its counts, the thresholds, the tests, --suggest's. */
static int cert_keys(struct rp_result_out *out, void *ctx)
{
	struct cert_doc *c = ctx;
	unsigned pass, fail, skip, marginal, judged, asked;
	rp_cert_count(c->tests, &pass, &fail, &skip, &marginal);
	bool certified = rp_cert_certified(c->tests, c->o->only, c->interrupted, &judged, &asked);
	const char *verdict = fail ? "FAIL" : c->interrupted ? "INCOMPLETE" : marginal ? "MARGINAL" : certified ? "PASS"
												       : "INCOMPLETE";
	rp_result_put(out, "interrupted", json_boolean(c->interrupted));
	rp_result_put(out, "verdict", json_string(verdict));
	rp_result_put(out, "counts", json_pack("{s:i, s:i, s:i, s:i}", "pass", (int)pass, "fail", (int)fail, "skip",
					       (int)skip, "marginal", (int)marginal));
	rp_result_put(out, "thresholds", intent_json(c->p));
	rp_result_put(out, "tests", c->tests);
	rp_result_put(out, "suggest", c->suggest ? c->suggest : json_null());
	c->tests = c->suggest = NULL;
	rp_result_put(out, "certified", json_boolean(certified));
	rp_result_put(out, "judged", json_integer((int)judged));
	return rp_result_put(out, "asked", json_integer((int)asked));
}

/* The document as a tree through the one builder (report/result_doc.h):
 * report.md and report.html are rendered from it. */
static json_t *document(const struct certify_opts *o, const struct rp_profile *p, json_t *tests, json_t *suggest,
			bool interrupted, double wall, time_t started, const struct rp_cert_engine *eng, json_t *env)
{
	json_t *more = json_pack("{s:f}", "wall_s", wall);
	if (more)
		json_object_update(more, env);
	json_decref(env);
	struct cert_doc c = {o, p, eng, tests, suggest, interrupted};
	struct rp_result_env e = {.version = RP_VERSION, .started = started, .more = more};
	struct rp_result_pieces pc = {.kind = "certify", .profile_name = p->name, .profile_path = o->profile,
				      .pre = cert_pre, .env = &e, .ext = cert_keys, .ctx = &c};
	json_t *doc = rp_result_tree(&pc);
	json_decref(c.tests); /* when the builder gave up before taking them */
	json_decref(c.suggest);
	return doc;
}

/* prepared: DIR was made before the tests (the run engine's children write into it). */
static int write_all(const struct certify_opts *o, json_t *doc, bool prepared)
{
	char path[4096], err[4200];
	if (!prepared && rp_cli_outdir("certify", o->out, o->force))
		return RP_EXIT_USAGE;
	snprintf(path, sizeof(path), "%s/result.json", o->out);
	if (rp_report_write_atomic(path, doc, err, sizeof(err)))
		return rp_cli_error("certify", "%s", err);
	snprintf(path, sizeof(path), "%s/report.md", o->out);
	if (rp_cert_write_md(doc, path, err, sizeof(err)))
		return rp_cli_error("certify", "%s", err);
	snprintf(path, sizeof(path), "%s/report.html", o->out);
	if (rp_cert_write_html(doc, path, err, sizeof(err)))
		return rp_cli_error("certify", "%s", err);
	return 0;
}

static void dir_existed(const char *dir, bool *existed)
{
	struct stat st;
	*existed = stat(dir, &st) == 0;
}

static int certify(struct certify_opts *op, struct rp_cert_live *live);

#ifdef RP_HAVE_DPDK
/* The run engine without a launcher: each run lib/run's, in this process. */
static int run_here(const struct rp_cert_run_call *c)
{
	struct rp_run_local l = {.profile = c->profile, .sets = c->sets, .nsets = c->nsets, .out = c->out,
				 .force = c->force, .allow_pause_storm = c->allow_pause_storm,
				 .no_preflight = c->no_preflight, .no_telemetry = c->no_telemetry, .stop = c->stop,
				 .version = RP_VERSION};
	return rp_run_local(&l);
}
#endif

int rp_cmd_certify(int argc, char **argv)
{
	static struct certify_opts o;
	rp_cli_catch_stop();
	int rc = parse_args(argc, argv, &o);
	if (rc != 0)
		return rc < 0 ? RP_EXIT_OK : rc;
	if (rp_cli_outdir_check("certify", o.out, o.force))
		return RP_EXIT_USAGE;
	static struct rp_cert_live live;
	struct rp_metrics *mx;
	rp_cert_live_init(&live);
	if ((rc = rp_cli_metrics_start("certify", &o.metrics, 0, &mx)) != 0)
		return rc;
	rp_metrics_collect(mx, rp_cert_metrics, &live);
	rc = certify(&o, mx ? &live : NULL);
#ifdef RP_HAVE_DPDK
	rp_run_local_end(); /* the EAL the in-process runs kept */
#endif
	rp_cli_metrics_end("certify", &o.metrics, mx, rc != RP_EXIT_USAGE); /* the verdicts written */
	return rc;
}

/* The certify itself, its files written; live: --metrics' state (or NULL). */
static int certify(struct certify_opts *op, struct rp_cert_live *live)
{
	struct certify_opts o = *op;
	int rc;
	char err[4600]; /* a profile's line, or one naming its path */
	struct rp_profile_opts po = {.sets = o.sets, .nsets = o.nsets, .allow_pause_storm = o.allow_pause_storm};
	struct rp_profile *prof = rp_profile_load(o.profile, &po, err, sizeof(err));
	if (!prof)
		return rp_cli_error("certify", "%s", err);
	if (rp_cert_pick_engine(o.engine, o.launcher, o.suggest, prof, o.profile, &o.engine, err, sizeof(err))) {
		rp_profile_free(prof);
		return rp_cli_error("certify", "%s", err);
	}
	struct rp_cert_lab lab = {.profile_path = o.profile, .stop = &rp_cli_stop};
	static struct rp_cert_run run;
	run = (struct rp_cert_run){.profile_path = o.profile, .prof = prof, .dir = o.out, .force = o.force,
				   .timeout_s = o.run_timeout_s, .stop = &rp_cli_stop, .progress = progress,
				   .progress_arg = &o.quiet, .no_preflight = o.no_preflight,
				   .no_telemetry = o.no_telemetry};
#ifdef RP_HAVE_DPDK
	run.in_process = run_here;
#endif
	struct rp_cert_engine eng;
	bool is_run = strcmp(o.engine, "run") == 0, existed = true;
	/* Without a launcher every host runs here: doctor's checks before DIR (with
	 * one, each child's ranks check their own). */
	if (is_run && !o.launcher && !o.no_preflight &&
	    (rc = rp_doctor_preflight_profile(prof, "certify", stderr, err, sizeof(err))) != 0) {
		rp_profile_free(prof);
		return rp_cli_error("certify", "%s", err);
	}
	if (is_run) {
		if (o.launcher && rp_cert_run_launcher(&run, o.launcher, err, sizeof(err))) {
			rp_cert_run_free(&run);
			rp_profile_free(prof);
			return rp_cli_error("certify", "%s", err);
		}
		/* The children write into DIR/runs/ as they go: DIR is made first. */
		dir_existed(o.out, &existed);
		if (rp_cli_outdir("certify", o.out, o.force)) {
			rp_cert_run_free(&run);
			rp_profile_free(prof);
			return RP_EXIT_USAGE;
		}
		rp_cert_run_engine(&run, &eng);
	} else {
		rp_cert_lab_engine(&lab, &eng);
	}
	struct rp_cert_opts co = {.eng = &eng, .sets = o.sets, .nsets = o.nsets, .only = o.only,
				  .allow_pause_storm = o.allow_pause_storm, .stop = &rp_cli_stop, .progress = progress,
				  .progress_arg = &o.quiet, .live = live};
	json_t *tests = NULL, *suggest = NULL;
	bool interrupted = false;
	time_t started = time(NULL);
	double w0 = wall_s();
	if (rp_certify_run(prof, &co, &tests, &interrupted, err, sizeof(err))) {
		if (is_run) { /* no partial output: the runs made, and DIR when certify made it */
			rp_cert_run_discard(&run);
			if (!existed)
				rmdir(o.out);
		}
		rp_cert_run_free(&run);
		rp_profile_free(prof);
		return rp_cli_error("certify", "%s", err);
	}
	unsigned pass, fail, skip, marginal, judged, asked;
	rp_cert_count(tests, &pass, &fail, &skip, &marginal);
	co.live = NULL; /* --suggest's sweeps are not the tests the metrics count */
	if (o.suggest && (fail || marginal) && !interrupted) {
		if (!o.quiet)
			fprintf(stderr, "certify: --suggest: sweeping the knobs behind %u failing test%s\n", fail + marginal,
				fail + marginal > 1 ? "s" : "");
		if (rp_certify_suggest(prof, &co, tests, &suggest, err, sizeof(err))) {
			json_decref(tests);
			rp_profile_free(prof);
			return rp_cli_error("certify", "%s", err);
		}
		interrupted = interrupted || rp_cli_stop;
	}
	json_t *doc = document(&o, prof, tests, suggest, interrupted, wall_s() - w0, started, &eng,
			       engine_env(&eng, &lab, &run));
	rc = doc ? write_all(&o, doc, is_run) : rp_cli_error("certify", "out of memory for result.json");
	if (rc == 0)
		rp_cert_print_summary(stdout, doc, o.out);
	/* Exit 0 only when certified: every verdict a PASS, and test 1 (or each
	 * test --only asked for) judged; a SKIP or a MARGINAL is not a pass. */
	bool certified = rp_cert_certified(json_object_get(doc, "tests"), o.only, interrupted, &judged, &asked);
	json_decref(doc);
	rp_cert_run_free(&run);
	rp_profile_free(prof);
	if (rc)
		return rc;
	return certified ? RP_EXIT_OK : RP_EXIT_FAIL;
}
