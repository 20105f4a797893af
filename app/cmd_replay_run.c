/* roceprobe replay run: an inferred incident (replay infer's DIR) run again,
 * captured at the same points, measured by the same code, and judged
 * symptom by symptom (lib/replay/fidelity.h, docs/replay.md). OUT is built
 * as OUT.part-PID and renamed into place whole: complete or absent. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "certify/engine_run.h"
#include "cli.h"
#include "cluster/cluster.h"
#include "lab/one.h"
#include "profile/profile.h"
#include "replay/fidelity.h"
#include "report/outdir.h"
#include "report/result.h"
#ifdef RP_HAVE_DPDK
#include "run/local.h"
#endif

#define CMD "replay run"
#define MAX_SETS 64
#define MAX_CAPS 64

static const char SHORTS[] = "o:s:t:e:n:l:qh";

struct run_opts {
	const char *dir, *out, *engine, *launcher;
	const char *sets[MAX_SETS];
	size_t nsets;
	struct rp_replay_tol tol;
	unsigned snaplen;
	bool quiet;
};

static void usage(FILE *out)
{
	fputs("usage: roceprobe replay run DIR [--engine lab|run [--launcher CMD]] [--set KEY=VALUE]...\n"
	      "                          [--tolerance SYMPTOM=X]... -o OUT\n"
	      "\n"
	      "Run an incident's reproduction and judge it: DIR is what 'replay infer' wrote\n"
	      "(profile.yaml, incident.json). The profile runs in the lab (in this process, as\n"
	      "'roceprobe lab' runs it; --engine run: as 'roceprobe run' does, on its hosts'\n"
	      "ports) with --capture at the incident's capture points; its\n"
	      "captures go through the code 'replay infer' ran on the evidence, so both sides\n"
	      "are measured the same way. Each symptom, original vs reproduction:\n"
	      "  goodput          per flow, the largest relative error |r - o| / o\n"
	      "  ce_fraction, cnp_rate, loss, retransmissions, pfc_frames   relative error\n"
	      "  paused_timeline  paused fraction per bin per capture point and priority:\n"
	      "                   normalised L1, sum |o - r| / (sum o + sum r)\n"
	      "  victims, pause_order   1 - Jaccard of the sets (victim flows; points paused\n"
	      "                   and who was paused a bin or more before whom)\n"
	      "REPRODUCED within its tolerance, PARTLY within twice it, else NOT; the run is\n"
	      "REPRODUCED when every symptom is, NOT when none the incident showed is, else\n"
	      "PARTLY. Writes OUT/result.json (\"roceprobe.replay/1\", docs/results.md),\n"
	      "OUT/report.md, OUT/report.html (both timelines overlaid, inline SVG),\n"
	      "OUT/incident.json (the reproduction's symptoms, \"roceprobe.incident/1\") and\n"
	      "OUT/reproduction/capture-HOST.pcap (its evidence).\n"
	      "\n"
	      "options:\n"
	      "  -o, --out OUT            the directory to write (it must not hold files)\n"
	      "  --engine lab|run         lab (default), or run: the run 'roceprobe run' makes, in\n"
	      "                           this process (DPDK; the hosts' port: on this machine)\n"
	      "  --launcher \"CMD\"        --engine run: 'roceprobe run --capture' started under CMD\n"
	      "                           (\"mpirun --allow-run-as-root -np 4 --host a,b,c,d\", srun\n"
	      "                           ...), as certify's run engine starts it: a fabric's hosts\n"
	      "                           on their own machines; its output in OUT/reproduction.log\n"
	      "                           (mpirun itself listens on every address: docs/security.md)\n"
	      "  --set KEY=VALUE          override a key of DIR/profile.yaml (traffic.0.rate=50%,\n"
	      "                           fabric.pfc.xoff=64KiB), as lab --set does\n"
	      "  --tolerance SYMPTOM=X    a symptom's tolerance (distance, 0.1 or 10%); defaults:\n"
	      "                           goodput 0.1, paused_timeline 0.2, victims and\n"
	      "                           pause_order 0.34, the rest 0.25 (docs/replay.md)\n"
	      "  --snaplen N              the reproduction's capture snaplen (default 128)\n"
	      "  -q, --quiet              no progress lines\n"
	      "\n"
	      "SIGINT or SIGTERM stops it: OUT is not made (exit 130; a second signal ends it at\n"
	      "once and may leave OUT.part-PID, the reproduction's files so far).\n"
	      "Rates in DIR/profile.yaml are what the senders achieved; a sender PFC held back\n"
	      "offered more (its comment says so): give that rate with --set.\n"
	      "example: roceprobe lab profiles/incast-8to1.yaml -o inc --capture\n"
	      "         roceprobe replay infer inc/capture-*.pcap --fabric profiles/incast-8to1.yaml -o rep\n"
	      "         roceprobe replay run rep -o again          # PARTLY: goodput, not the PFC storm\n"
	      "         roceprobe replay run rep --set traffic.0.rate=100% -o again2   # REPRODUCED\n"
	      "exit: 0 REPRODUCED, 1 PARTLY or NOT, 2 bad input (one line on stderr; OUT not made)\n",
	      out);
}

static int parse_opts(int argc, char **argv, struct run_opts *o)
{
	static const struct option longopts[] = {
		{"out", required_argument, NULL, 'o'},       {"set", required_argument, NULL, 's'},
		{"tolerance", required_argument, NULL, 't'}, {"engine", required_argument, NULL, 'e'},
		{"snaplen", required_argument, NULL, 'n'},   {"quiet", no_argument, NULL, 'q'},
		{"launcher", required_argument, NULL, 'l'},
		{"help", no_argument, NULL, 'h'},            {NULL, 0, NULL, 0},
	};
	char err[512];
	int c, rc;
	*o = (struct run_opts){.engine = "lab", .snaplen = RP_CLI_SNAPLEN_DEFAULT};
	rp_replay_tol_default(&o->tol);
	rp_cli_args(argc, argv); /* argv[0] is "run": a bad option is named from here */
	optind = 1;
	while ((c = getopt_long(argc, argv, SHORTS, longopts, NULL)) != -1) {
		switch (c) {
		case 'o': o->out = optarg; break;
		case 's':
			if (o->nsets == MAX_SETS)
				return rp_cli_error(CMD, "at most %d --set options", MAX_SETS);
			if (!strchr(optarg, '='))
				return rp_cli_error(CMD, "--set: expected KEY=VALUE, got '%s'", optarg);
			o->sets[o->nsets++] = optarg;
			break;
		case 't':
			if (rp_replay_tol_parse(&o->tol, optarg, err, sizeof(err)))
				return rp_cli_error(CMD, "%s", err);
			break;
		case 'e': o->engine = optarg; break;
		case 'l': o->launcher = optarg; break;
		case 'n':
			if ((rc = rp_cli_snaplen(CMD, optarg, &o->snaplen)))
				return rc;
			break;
		case 'q': o->quiet = true; break;
		case 'h': usage(stdout); return -1;
		default: return rp_cli_bad_option(CMD, SHORTS);
		}
	}
	if (strcmp(o->engine, "lab") != 0 && strcmp(o->engine, "run") != 0)
		return rp_cli_error(CMD, "--engine: expected lab or run, got '%s'", o->engine);
#ifndef RP_HAVE_DPDK
	if (!strcmp(o->engine, "run"))
		return rp_cli_error(CMD, "--engine run: this roceprobe was built without DPDK (use --engine lab)");
#endif
	if (rp_cluster_detect(NULL))
		return rp_cli_error(CMD, "not under a launcher: --engine run --launcher \"CMD\" starts the reproduction's "
				    "ranks under it");
	if (o->launcher && strcmp(o->engine, "run") != 0)
		return rp_cli_error(CMD, "--launcher starts 'roceprobe run' under it: it needs --engine run");
	if (optind != argc - 1)
		return rp_cli_error(CMD, "give one incident directory, what 'replay infer' wrote (try 'roceprobe replay "
				    "run --help')");
	if (!o->out)
		return rp_cli_error(CMD, "give the output directory: -o OUT (try 'roceprobe replay run --help')");
	o->dir = argv[optind];
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static void rm_tree(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* The reproduction's capture files at the incident's capture points
 * (capture-NODE.pcap, capture-NODE-0001.pcap, ...); all of them when no
 * file is of one of those points (the evidence was a mirror's). */
static size_t pick_captures(const glob_t *g, const json_t *inc, const char **out)
{
	size_t nn, n = 0;
	const char **nodes = rp_replay_incident_nodes(inc, &nn);
	for (size_t i = 0; i < g->gl_pathc && n < MAX_CAPS; i++) {
		const char *base = strrchr(g->gl_pathv[i], '/');
		base = base ? base + 9 : g->gl_pathv[i] + 8; /* after "/capture-" */
		size_t len = strlen(base) - 5;               /* less ".pcap" */
		for (size_t k = 0; nodes && k < nn; k++) {
			size_t l = strlen(nodes[k]);
			if (l <= len && !strncmp(base, nodes[k], l) && (l == len || (base[l] == '-' && len - l == 5))) {
				out[n++] = g->gl_pathv[i];
				break;
			}
		}
	}
	free(nodes);
	if (n == 0)
		for (size_t i = 0; i < g->gl_pathc && i < MAX_CAPS; i++)
			out[n++] = g->gl_pathv[i];
	return n;
}

struct run_state {
	const struct run_opts *o;
	char tmp[4096], path[4400];
	json_t *orig, *repro, *res;
	const char *caps[MAX_CAPS];
	size_t ncaps;
};

#ifdef RP_HAVE_DPDK
/* --engine run: the run `roceprobe run PROFILE --set ... --capture -o dir`
 * makes, in this process (lib/run/local.h, as certify's run engine without a
 * launcher), its summary to stderr (-q: nowhere) so that stdout is replay's.
 * 0 (it ran; its result.json there), 1 (stopped), or its exit code (its own
 * line said why). */
static int run_engine(const struct run_opts *o, const char *prof, const char *dir)
{
	struct rp_run_local l = {.profile = prof, .sets = o->sets, .nsets = o->nsets, .out = dir, .capture = true,
				 .snaplen = o->snaplen, .stop = &rp_cli_stop, .version = RP_VERSION,
				 .allow_pause_storm = true /* the incident's storm, inferred */};
	fflush(stdout);
	int saved = dup(1), to = o->quiet ? open("/dev/null", O_WRONLY | O_CLOEXEC) : 2;
	if (saved >= 0 && to >= 0)
		dup2(to, 1);
	int rc = rp_run_local(&l);
	rp_run_local_end();
	fflush(stdout);
	if (saved >= 0) {
		dup2(saved, 1);
		close(saved);
	}
	if (o->quiet && to >= 0)
		close(to);
	if (rp_cli_stop)
		return 1;
	return rc == RP_EXIT_OK || rc == RP_EXIT_FAIL ? 0 : rc;
}
#endif

/* --engine run --launcher: `LAUNCHER roceprobe run PROFILE --set ... --capture
 * -o dir` as a child, started and stopped as certify's run engine starts its
 * runs (lib/certify/engine_run.h: its one way to run under a launcher); its
 * output to OUT/reproduction.log. 0 (it ran), 1 (stopped), or an exit code. */
static int launcher_run(const struct run_opts *o, const char *prof, const char *tmp, const char *dir)
{
	struct rp_cert_run cr = {.profile_path = prof, .dir = tmp, .stop = &rp_cli_stop, .capture = true,
				 .snaplen = o->snaplen};
	char err[4600], path[4400], log[4400];
	struct rp_cert_engine eng;
	json_t *doc = NULL;
	int rc;
	if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
		return rp_cli_error(CMD, "cannot make %s: %s", tmp, strerror(errno));
	if (rp_cert_run_launcher(&cr, o->launcher, err, sizeof(err)))
		return rp_cli_error(CMD, "--launcher: %s", err);
	rp_cert_run_engine(&cr, &eng);
	rc = eng.run(eng.ctx, o->sets, o->nsets, true, &doc, err, sizeof(err));
	json_decref(doc);
	snprintf(path, sizeof(path), "%s/runs/test-1", tmp);
	snprintf(log, sizeof(log), "%s/reproduction.log", tmp);
	strcat(path, ".log");
	rename(path, log);
	path[strlen(path) - 4] = '\0';
	if (rc < 0)
		rc = rp_cli_error(CMD, "the reproduction: %s", err);
	else if (rc == 1 || rp_cli_stop)
		rc = 1;
	else if (rename(path, dir) != 0)
		rc = rp_cli_error(CMD, "cannot make %s: %s", dir, strerror(errno));
	snprintf(path, sizeof(path), "%s/runs", tmp);
	rmdir(path);
	rp_cert_run_free(&cr);
	return rc;
}

/* The reproduction's profile for measuring it (its hosts name the captures'): DIR's with the --sets. */
static struct rp_profile *load_profile(const struct run_opts *o, const char *prof)
{
	char err[RP_LAB_ONE_ERR];
	struct rp_profile_opts po = {.sets = o->sets, .nsets = o->nsets, .allow_pause_storm = true};
	struct rp_profile *p = rp_profile_load(prof, &po, err, sizeof(err));
	if (!p)
		rp_cli_error(CMD, "%s", err);
	return p;
}

/* The reproduction into tmp/reproduction, measured at the incident's points. 0, 1 (stopped), or an exit code. */
static int reproduce(struct run_state *s)
{
	const struct run_opts *o = s->o;
	char err[RP_LAB_ONE_ERR], prof[4200], dir[4300];
	snprintf(prof, sizeof(prof), "%s/profile.yaml", o->dir);
	snprintf(dir, sizeof(dir), "%s/reproduction", s->tmp);
	uint64_t bin_ns = (uint64_t)json_integer_value(json_object_get(s->orig, "bin_ns"));
	json_int_t speed = json_integer_value(json_object_get(s->orig, "speed_bps"));
	struct rp_lab_one_opts lo = {.profile = prof, .sets = o->sets, .nsets = o->nsets, .capture = true,
				     .allow_pause_storm = true, /* a storm the evidence showed is the incident's */
				     .snaplen = o->snaplen, .capture_max = 1ull << 30, .bin_ns = bin_ns,
				     .progress = o->quiet ? NULL : stderr, .notes = stderr, .stop = &rp_cli_stop};
	struct rp_lab_one r = {0};
	struct rp_profile *fab = NULL;
	glob_t g = {0};
	int rc = RP_EXIT_USAGE;
	if (!strcmp(o->engine, "lab")) {
		if (rp_lab_one_run(&r, &lo, dir, err, sizeof(err))) {
			rp_cli_error(CMD, "the reproduction: %s", err);
			goto out;
		}
		if (r.stopped_in || rp_cli_stop) {
			rc = 1;
			goto out;
		}
		fab = r.prof;
	} else {
		if (o->launcher)
			rc = launcher_run(o, prof, s->tmp, dir);
#ifdef RP_HAVE_DPDK
		else
			rc = run_engine(o, prof, dir);
#endif
		if (rc != 0 || !(fab = load_profile(o, prof))) {
			rc = rc ? rc : RP_EXIT_USAGE;
			goto out;
		}
		rc = RP_EXIT_USAGE;
	}
	snprintf(s->path, sizeof(s->path), "%s/capture-*.pcap", dir);
	if (glob(s->path, 0, NULL, &g) != 0) {
		rp_cli_error(CMD, "the reproduction left no capture in %s", dir);
		goto out;
	}
	size_t n = pick_captures(&g, s->orig, s->caps);
	for (s->ncaps = 0; s->ncaps < n; s->ncaps++) /* kept past the glob */
		if (!(s->caps[s->ncaps] = strdup(s->caps[s->ncaps]))) {
			rp_cli_error(CMD, "out of memory");
			goto out;
		}
	s->repro = rp_replay_measure(s->caps, s->ncaps, fab, bin_ns, speed > 0 ? (uint64_t)speed : 100000000000ull,
				     err, sizeof(err));
	if (!s->repro) {
		rp_cli_error(CMD, "measuring the reproduction: %s", err);
		goto out;
	}
	rc = 0;
out:
	globfree(&g);
	if (fab && fab != r.prof)
		rp_profile_free(fab);
	rp_lab_one_free(&r);
	return rc;
}

static json_t *result_doc(struct run_state *s)
{
	const struct run_opts *o = s->o;
	json_t *res = rp_replay_fidelity(s->orig, s->repro, &o->tol), *sets = json_array(), *caps = json_array();
	json_t *tol = json_object();
	for (size_t i = 0; i < o->nsets; i++)
		json_array_append_new(sets, json_string(o->sets[i]));
	for (size_t i = 0; i < s->ncaps; i++)
		json_array_append_new(caps, json_string(s->caps[i] + strlen(s->tmp) + 1)); /* as in OUT */
	for (unsigned k = 0; k < RP_SYM_N; k++)
		json_object_set_new(tol, rp_replay_symptom_name(k), json_real(o->tol.t[k]));
	json_t *doc = json_pack("{s:s, s:s, s:s, s:s, s:o, s:o, s:I, s:{s:s, s:o, s:s}}", "schema", "roceprobe.replay/1",
				"verdict", json_string_value(json_object_get(res, "verdict")), "incident", o->dir, "engine",
				o->engine, "sets", sets, "tolerances", tol, "bin_ns",
				json_integer_value(json_object_get(s->orig, "bin_ns")), "reproduction", "dir",
				"reproduction", "captures", caps, "incident", "incident.json");
	json_object_set(doc, "symptoms", json_object_get(res, "symptoms"));
	json_decref(res);
	return doc;
}

static void md_body(FILE *f, void *res)
{
	rp_replay_report_md(f, res);
}

static void html_body(FILE *f, void *res)
{
	rp_replay_report_html(f, res);
}

/* tmp's files, then tmp renamed to OUT (an empty OUT removed first). 0 or an exit code. */
static int write_out(struct run_state *s)
{
	char err[4600];
	snprintf(s->path, sizeof(s->path), "%s/incident.json", s->tmp);
	int rc = rp_report_write_atomic(s->path, s->repro, err, sizeof(err));
	if (!rc) {
		snprintf(s->path, sizeof(s->path), "%s/result.json", s->tmp);
		rc = rp_report_write_atomic(s->path, s->res, err, sizeof(err));
	}
	if (!rc) {
		snprintf(s->path, sizeof(s->path), "%s/report.md", s->tmp);
		rc = rp_outdir_write_text(s->path, md_body, s->res, err, sizeof(err));
	}
	if (!rc) {
		snprintf(s->path, sizeof(s->path), "%s/report.html", s->tmp);
		rc = rp_outdir_write_text(s->path, html_body, s->res, err, sizeof(err));
	}
	if (rc)
		return rp_cli_error(CMD, "%s", err);
	if (rp_cli_stop)
		return 1;
	rmdir(s->o->out); /* empty (checked): the rename takes its place */
	if (rename(s->tmp, s->o->out) != 0)
		return rp_cli_error(CMD, "cannot make %s: %s", s->o->out, strerror(errno));
	return 0;
}

/* DIR's profile (with the --sets) and incident. 0 or an exit code. */
static int load_incident(struct run_state *s)
{
	const struct run_opts *o = s->o;
	char err[RP_LAB_ONE_ERR], prof[4200];
	struct stat st;
	if (stat(o->dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return rp_cli_error(CMD, "%s: not a directory (give what 'replay infer -o DIR' wrote)", o->dir);
	snprintf(s->path, sizeof(s->path), "%s/incident.json", o->dir);
	json_error_t jerr;
	if (!(s->orig = json_load_file(s->path, 0, &jerr)))
		return rp_cli_error(CMD, "%s: %s", s->path, jerr.text);
	if (rp_replay_incident_check(s->orig, err, sizeof(err)))
		return rp_cli_error(CMD, "%s: %s", s->path, err);
	snprintf(prof, sizeof(prof), "%s/profile.yaml", o->dir);
	struct rp_lab_one_opts lo = {.profile = prof, .sets = o->sets, .nsets = o->nsets, .allow_pause_storm = true};
	if (!strcmp(o->engine, "lab") && rp_lab_one_check(&lo, err, sizeof(err)))
		return rp_cli_error(CMD, "%s", err);
	if (!strcmp(o->engine, "run")) {
		struct rp_profile *p = load_profile(o, prof);
		bool ports = p && rp_cert_profile_has_ports(p);
		if (p)
			rp_profile_free(p);
		if (!p)
			return RP_EXIT_USAGE;
		if (!ports)
			return rp_cli_error(CMD, "--engine run: no host in %s has a `port:` (the lab needs none: --engine lab)",
					    prof);
	}
	if (rp_outdir_check(o->out, false, err, sizeof(err)))
		return rp_cli_error(CMD, "%s", err);
	return 0;
}

int rp_cmd_replay_run(int argc, char **argv)
{
	static struct run_opts o;
	static struct run_state s;
	rp_cli_catch_stop();
	int rc = parse_opts(argc, argv, &o);
	if (rc)
		return rc < 0 ? RP_EXIT_OK : rc;
	s.o = &o;
	size_t len = strlen(o.out);
	while (len > 1 && o.out[len - 1] == '/')
		len--;
	snprintf(s.tmp, sizeof(s.tmp), "%.*s.part-%d", (int)len, o.out, (int)getpid());
	if ((rc = load_incident(&s)) == 0 && (rc = reproduce(&s)) == 0 && !rp_cli_stop) {
		s.res = result_doc(&s);
		rc = write_out(&s);
	}
	if (rc == 1 || (rc == 0 && !s.res)) {
		fprintf(stderr, "roceprobe %s: stopped by a signal: %s not written\n", CMD, o.out);
		rc = 130;
	}
	if (rc)
		rm_tree(s.tmp);
	else {
		const char *v = json_string_value(json_object_get(s.res, "verdict"));
		printf("%s: %s/result.json, report.md, report.html\n", v, o.out);
		rc = strcmp(v, "REPRODUCED") ? RP_EXIT_FAIL : RP_EXIT_OK;
	}
	for (size_t i = 0; i < s.ncaps; i++)
		free((char *)s.caps[i]);
	json_decref(s.orig);
	json_decref(s.repro);
	json_decref(s.res);
	return rc;
}
