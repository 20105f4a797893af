/* roceprobe lab: a profile's hosts, switches and links in virtual time
 * (lib/lab); result.json, summary.txt, a queue-depth CSV and optional pcaps
 * in a directory. --sweep runs a grid of --set points and tabulates them. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "lab/lab.h"
#include "lab/report.h"
#include "profile/units.h"
#include "report/doc.h"
#include "report/flowset.h"
#include "report/pairs.h"
#include "traffic/expect.h"
#include "report/result.h"
#include "report/result_doc.h"
#include "report/summary.h"
#include "traffic/plan.h"

/* getopt_long's short options (rp_cli_bad_option names a bad one). */
static const char SHORTS[] = "o:s:qh";

#define MAX_SETS 64
#define MAX_SWEEP 8
#define MAX_POINTS 4096

struct lab_opts {
	const char *profile;
	const char *out;
	const char *sets[MAX_SETS + MAX_SWEEP];
	size_t nsets;
	const char *sweep[MAX_SWEEP];
	size_t nsweep;
	unsigned jobs;            /* sweep points run at once, each in its own process */
	bool capture, quiet, allow_pause_storm, force;
	unsigned snaplen;
	uint64_t capture_max, capture_rotate;
	uint64_t bin_ns;
};

static void usage(FILE *out)
{
	fputs("usage: roceprobe lab PROFILE -o DIR [options]\n"
	      "\n"
	      "Runs the profile's hosts, switches and links in virtual time: a discrete-event\n"
	      "loop in nanoseconds where every link serializes at its rate, so a 100G or 400G\n"
	      "fabric runs faithfully on any machine. Hosts use the same packet source and\n"
	      "accountant as `roceprobe run`; they honour PFC, answer as RoCE receivers (CNP,\n"
	      "ACK) and, with fabric.dcqcn, cut and recover their rate on CNPs. The `fabric:`\n"
	      "section sets topology (single, leaf-spine, 3-tier fat-tree, rail-optimised; ECMP\n"
	      "over the UDP source port at every tier, hashed per switch; a rail fabric puts\n"
	      "NIC r of every host of `nics: R` on rail leaf r, each NIC its own port),\n"
	      "links, buffer, PFC, ECN and DCQCN (docs/lab.md). The same profile gives the same\n"
	      "result.json (bar the environment's wall-clock fields) and the same pcaps.\n"
	      "Writes DIR/result.json (\"schema\":\"roceprobe.result/1\", \"kind\":\"lab\"),\n"
	      "DIR/summary.txt, DIR/qdepth.csv and with --capture DIR/capture-HOST.pcap (one\n"
	      "per NIC: HOST.NIC for a host of several). Beyond 4096 flows the flows and the\n"
	      "pair matrix go to DIR/flows.jsonl and DIR/pairs.jsonl (a line each) and\n"
	      "result.json keeps their totals (flows_summary, docs/results.md), as run's do.\n"
	      "\n"
	      "  -o, --out DIR          result directory (created with its parents; refused\n"
	      "                         when not empty, unless --force)\n"
	      "  --force                reuse a non-empty DIR: its roceprobe files (result,\n"
	      "                         summary, captures, plots, sweep points) are removed first\n"
	      "  --set KEY=VALUE        override a profile key (fabric.pfc.xoff=200KiB)\n"
	      "  --sweep KEY=V1,V2,...  one run per value (several --sweep: the grid); writes\n"
	      "                         DIR/sweep.csv, DIR/sweep.json and DIR/point-N/ per run\n"
	      "  --jobs N               run N sweep points at once, one process each (1..64,\n"
	      "                         default 1); the files are the same as a serial sweep's\n"
	      "  --capture              nanosecond pcaps of every host's wire, virtual time\n"
	      "  --snaplen N            bytes kept per captured frame, 64..65535 (default 128)\n"
	      "  --capture-max SIZE     every pcap of a run together at most SIZE (default 1GiB;\n"
	      "                         0: no limit); at the limit capturing stops, one line says\n"
	      "                         when, the run goes on\n"
	      "  --capture-rotate SIZE  a host's next file (capture-HOST-0001.pcap, -0002, ...)\n"
	      "                         before one passes SIZE (default: one file per host)\n"
	      "  --bin-us N             time series bin (default 100)\n"
	      "  --allow-pause-storm    accept PFC sources that could hold a port paused\n"
	      "  -q, --quiet            no progress lines\n"
	      "\n"
	      "Example: roceprobe lab profiles/incast-8to1.yaml -o results/incast-8to1\n"
	      "         roceprobe lab profiles/incast-8to1.yaml -o results/xoff --sweep fabric.pfc.xoff=100KiB,200KiB\n",
	      out);
}

static int parse_args(int argc, char **argv, struct lab_opts *o)
{
	static const struct option opts[] = {
		{"out", required_argument, NULL, 'o'},    {"set", required_argument, NULL, 's'},
		{"sweep", required_argument, NULL, 'w'},  {"capture", no_argument, NULL, 'c'},
		{"snaplen", required_argument, NULL, 'n'}, {"bin-us", required_argument, NULL, 'b'},
		{"allow-pause-storm", no_argument, NULL, 'A'}, {"quiet", no_argument, NULL, 'q'},
		{"capture-max", required_argument, NULL, 'M'}, {"capture-rotate", required_argument, NULL, 'R'},
		{"force", no_argument, NULL, 'F'},        {"help", no_argument, NULL, 'h'},
		{"jobs", required_argument, NULL, 'j'},
		{NULL, 0, NULL, 0},
	};
	*o = (struct lab_opts){.bin_ns = 100000, .snaplen = RP_CLI_SNAPLEN_DEFAULT, .capture_max = 1ull << 30, .jobs = 1};
	int c, rc = 0;
	uint64_t v = 0;
	optind = 1;
	while (rc == 0 && (c = getopt_long(argc, argv, SHORTS, opts, NULL)) != -1) {
		switch (c) {
		case 'o': o->out = optarg; break;
		case 's':
			if (o->nsets == MAX_SETS)
				return rp_cli_error("lab", "at most %d --set options", MAX_SETS);
			o->sets[o->nsets++] = optarg;
			break;
		case 'w':
			if (o->nsweep == MAX_SWEEP)
				return rp_cli_error("lab", "at most %d --sweep options", MAX_SWEEP);
			if (!strchr(optarg, '='))
				return rp_cli_error("lab", "--sweep: expected KEY=V1,V2,..., got '%s'", optarg);
			o->sweep[o->nsweep++] = optarg;
			break;
		case 'c': o->capture = true; break;
		case 'n': rc = rp_cli_snaplen("lab", optarg, &o->snaplen); break;
		case 'M': rc = rp_cli_size("lab", "--capture-max", optarg, 0, UINT64_MAX, &o->capture_max); break;
		case 'R': rc = rp_cli_size("lab", "--capture-rotate", optarg, 4096, UINT64_MAX, &o->capture_rotate); break;
		case 'b': rc = rp_cli_uint("lab", "--bin-us", optarg, 1, 10000000, &v); o->bin_ns = v * 1000; break;
		case 'A': o->allow_pause_storm = true; break;
		case 'j': rc = rp_cli_uint("lab", "--jobs", optarg, 1, 64, &v); o->jobs = (unsigned)v; break;
		case 'F': o->force = true; break;
		case 'q': o->quiet = true; break;
		case 'h': usage(stdout); return -1;
		default: return rp_cli_bad_option("lab", SHORTS);
		}
	}
	if (rc)
		return rc;
	if (optind != argc - 1)
		return rp_cli_error("lab", "expected one profile (try 'roceprobe lab --help')");
	if (!o->out)
		return rp_cli_error("lab", "-o DIR is required: where result.json and summary.txt go");
	if (o->jobs > 1 && !o->nsweep)
		return rp_cli_error("lab", "--jobs runs sweep points in parallel: give it a --sweep");
	o->profile = argv[optind];
	return 0;
}

/* A sweep's point-N directories are made inside an -o that was prepared. */
static int make_dir(const char *dir, bool force)
{
	return rp_cli_outdir("lab", dir, force);
}

static double wall_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct progress {
	double t0, last;
	uint64_t last_events;
	bool quiet;
};

/* A capture write failed (a full disk): said at once, the run goes on. */
static void on_capture_failed(const char *msg, uint64_t now_ns, void *arg)
{
	(void)arg;
	fprintf(stderr,
		"roceprobe lab: capture stopped at virtual %.3f ms: %s; every pcap keeps its whole records up to there, "
		"the run goes on uncaptured (result.json: lab.capture_complete false)\n",
		(double)now_ns / 1e6, msg);
}

static void on_progress(uint64_t now_ns, uint64_t events, void *arg)
{
	struct progress *p = arg;
	double t = wall_s();
	if (p->quiet || t - p->last < 0.5)
		return;
	fprintf(stderr, "lab: virtual %.3f ms, %.2f M events/s\n", (double)now_ns / 1e6,
		(double)(events - p->last_events) / (t - p->last) / 1e6);
	p->last = t;
	p->last_events = events;
}

/* ---- one run ---- */

struct one {
	struct rp_profile *prof;
	struct rp_plan plan;
	bool planned;
	struct rp_lab *lab;
	struct rp_lab_headline head;
	struct rp_lab_propagation *prop; /* built once after the run: result.json and summary.txt share it */
	struct rp_pairs *pairs;          /* the same */
	double wall;
	time_t started;
};

/* result.json's keys after the measured ones: the lab's hosts, switches,
 * where pause went, its totals and headline, the pair matrix. */
static int lab_keys(struct rp_result_out *o, void *ctx)
{
	const struct one *r = ctx;
	rp_result_put(o, "hosts", rp_lab_hosts_json(r->lab));
	rp_result_put(o, "switches", rp_lab_switches_json(r->lab));
	struct rp_report_wstream ps[2];
	rp_lab_propagation_streams(r->prop, ps); /* the victims a flow at a time */
	rp_doc_put_wstreams(rp_result_doc(o), "pause_propagation", json_incref(r->prop->head), ps, 2);
	rp_result_put(o, "lab", rp_lab_totals_json(r->lab));
	rp_result_put(o, "headline", rp_lab_headline_json(&r->head));
	return rp_report_doc_pairs(rp_result_doc(o), rp_result_flowset(o));
}

/* result.json through the one builder (report/result_doc.h): a million
 * flows are GBs as JSON, so beyond RP_REPORT_FLOWS_INLINE flows the flows
 * and the pair matrix go to DIR/flows.jsonl and DIR/pairs.jsonl first, as
 * run's do (report/flowset.h). */
static int write_result(struct one *r, const struct lab_opts *o, const char *dir)
{
	struct rp_lab_totals t;
	rp_lab_totals(r->lab, &t);
	const struct rp_acct *a = rp_lab_acct(r->lab);
	const struct rp_report_flowset fs = {.acct = a, .write = rp_lab_flow_write, .ctx = (void *)a, .pairs = r->pairs};
	struct rp_result_env env = {
		.version = RP_VERSION, .started = r->started,
		.more = json_pack("{s:f, s:f, s:f}", "wall_s", r->wall, "events_per_s",
				  r->wall > 0 ? (double)t.events / r->wall : 0.0, "virtual_per_wall",
				  r->wall > 0 ? (double)t.end_ns / 1e9 / r->wall : 0.0)};
	struct rp_result_measured m = {.elapsed_ns = t.end_ns, .interrupted = t.truncated || t.stopped, .fs = &fs,
				       .ports = rp_report_ports(a), .timeseries = rp_report_timeseries(a),
				       .capture = rp_lab_capture_json(r->lab)};
	struct rp_result_pieces p = {.kind = "lab", .profile_name = r->prof->name, .profile_path = o->profile,
				     .env = &env, .measured = &m, .ext = lab_keys, .ctx = r};
	char err[4200];
	return rp_result_write(dir, &p, err, sizeof(err)) ? rp_cli_error("lab", "%s", err) : 0;
}

/* DIR/qdepth.csv from the lab's switches (lib/lab/report.h). */
static int write_qdepth(struct one *r, const char *dir)
{
	char path[4096], err[4200];
	snprintf(path, sizeof(path), "%s/qdepth.csv", dir);
	if (rp_lab_write_qdepth_csv(r->lab, path, err, sizeof(err)) != 0)
		return rp_cli_error("lab", "%s", err);
	return 0;
}

/* summary.txt's view of this lab run (report/summary.h): the accountant,
 * the totals and headline, the fabric's sums, where pause went and whom it
 * held up, the multi-NIC hosts. hosts (result.json's) is the caller's to
 * free. */
static void summary_view(const struct one *r, struct rp_summary *s, struct rp_summary_lab *l,
			 struct rp_lab_totals *t, char capmax[32])
{
	struct rp_lab_fabric_sum fs;
	const struct rp_lab_headline *h = &r->head;
	rp_lab_totals(r->lab, t);
	rp_lab_fabric_sum(r->lab, &fs);
	rp_format_size(t->capture_max, capmax, 32);
	*l = (struct rp_summary_lab){
		.events = t->events, .hops = t->hops, .wall_s = r->wall, .truncated = t->truncated,
		.loss_pct = h->loss_pct, .paused_pct = h->paused_pct, .goodput_gbps = h->goodput_gbps, .lost = h->lost,
		.drops = h->drops, .in_flight = h->in_flight, .latency_samples = h->latency_samples, .p99_ns = h->p99_ns,
		.p999_ns = h->p999_ns, .max_queue_bytes = h->max_queue_bytes, .in_flight_on_links = t->in_flight_on_links,
		.in_flight_total = t->in_flight, .capture_stopped = t->capture_stopped,
		.capture_failed = t->capture_failed, .capture_room_limited = t->capture_room_limited,
		.capture_stopped_ns = t->capture_stopped_ns, .capture_error = t->capture_error, .capture_max = capmax,
		.sw_drops = t->sw_drops, .pfc_tx = fs.pfc_tx, .xoff_sent = fs.xoff_sent, .refresh_sent = fs.refresh_sent,
		.xon_sent = fs.xon_sent, .propagation = r->prop->head,
		.victims = {NULL, r->prop->nvictims, rp_lab_victim_item, r->prop},
		.limited = {NULL, r->prop->nlimited, rp_lab_limited_item, r->prop},
		.hosts = rp_profile_multi_nic(r->prof) ? rp_lab_hosts_json(r->lab) : NULL};
	memcpy(l->drop_reasons, fs.drops, sizeof(l->drop_reasons));
	*s = (struct rp_summary){.command = "lab", .name = r->prof->name, .elapsed_ns = t->end_ns,
				 .interrupted = t->stopped, .acct = rp_lab_acct(r->lab), .cols = RP_SUMMARY_IN_FLIGHT,
				 .max_flows = 40, .pairs = r->pairs, .lab = l};
}

static int write_summary(const struct one *r, const char *dir, bool to_stdout)
{
	char path[4096], capmax[32];
	struct rp_summary s;
	struct rp_summary_lab l;
	struct rp_lab_totals t;
	snprintf(path, sizeof(path), "%s/summary.txt", dir);
	FILE *f = fopen(path, "w");
	if (!f)
		return rp_cli_error("lab", "cannot write %s: %s", path, strerror(errno));
	summary_view(r, &s, &l, &t, capmax);
	rp_summary_write(f, &s);
	int rc = fclose(f), e = errno;
	if (rc == 0 && to_stdout) {
		rp_summary_write(stdout, &s);
		printf("\nresult: %s/result.json\nsummary: %s/summary.txt\nqueue depths: %s/qdepth.csv\n", dir, dir, dir);
	}
	json_decref((json_t *)l.hosts);
	return rc ? rp_cli_error("lab", "cannot write %s: %s", path, strerror(e)) : 0;
}

static void one_free(struct one *r)
{
	rp_lab_propagation_free(r->prop);
	rp_pairs_free(r->pairs);
	rp_lab_destroy(r->lab);
	if (r->planned)
		rp_plan_free(&r->plan);
	rp_profile_free(r->prof);
}

static int one_load(struct one *r, const struct lab_opts *o)
{
	char err[RP_PROFILE_ERR_LEN];
	struct rp_profile_opts po = {.sets = o->sets, .nsets = o->nsets, .allow_pause_storm = o->allow_pause_storm};
	if (!(r->prof = rp_profile_load(o->profile, &po, err, sizeof(err))))
		return rp_cli_error("lab", "%s", err);
	if (rp_lab_check_fit(r->prof, err, sizeof(err)) || rp_plan_build(r->prof, &r->plan, err, sizeof(err)))
		return rp_cli_error("lab", "%s", err);
	r->planned = true;
	if (rp_lab_check_plan(&r->plan, err, sizeof(err)))
		return rp_cli_error("lab", "%s", err);
	return 0;
}

static int one_setup(struct one *r, const struct lab_opts *o, const char *dir, struct progress *pg)
{
	char err[RP_PROFILE_ERR_LEN];
	struct rp_lab_opts lo = {.capture_dir = o->capture ? dir : NULL, .snaplen = o->snaplen,
				 .capture_max = o->capture_max, .capture_rotate = o->capture_rotate, .bin_ns = o->bin_ns,
				 .progress = on_progress, .progress_arg = pg, .stop = &rp_cli_stop,
				 .capture_failed = on_capture_failed};
	if (!(r->lab = rp_lab_create(r->prof, &r->plan, &lo, err, sizeof(err))))
		return rp_cli_error("lab", "%s", err);
	return 0;
}

/* One lab run into dir; the headline numbers in *head. */
static int run_one(const struct lab_opts *o, const char *dir, bool print, struct rp_lab_headline *head)
{
	struct one r = {0};
	struct progress pg = {.quiet = o->quiet};
	char err[512];
	/* The profile is checked before dir is made: bad input leaves nothing behind. */
	int rc = one_load(&r, o);
	if (rc == 0)
		rc = make_dir(dir, o->force);
	if (rc == 0)
		rc = one_setup(&r, o, dir, &pg);
	if (rc == 0) {
		r.started = time(NULL);
		pg.t0 = pg.last = wall_s();
		if (rp_lab_run(r.lab, err, sizeof(err)) || rp_lab_close_captures(r.lab, err, sizeof(err)))
			rc = rp_cli_error("lab", "%s", err);
		r.wall = wall_s() - pg.t0;
		struct rp_lab_totals t;
		rp_lab_totals(r.lab, &t);
		if (rc == 0 && t.capture_stopped && !t.capture_failed) { /* a failed write was said when it happened */
			char sz[32];
			rp_format_size(t.capture_max, sz, sizeof(sz));
			if (t.capture_room_limited)
				fprintf(stderr,
					"roceprobe lab: capture stopped at virtual %.3f ms: %s has room for %s of pcaps (the rest "
					"is kept for result.json); the run went on uncaptured (free space, or lower --snaplen)\n",
					(double)t.capture_stopped_ns / 1e6, dir, sz);
			else
				fprintf(stderr,
					"roceprobe lab: capture stopped at virtual %.3f ms: the pcaps reached --capture-max %s; the "
					"run went on uncaptured (raise --capture-max or lower --snaplen)\n",
					(double)t.capture_stopped_ns / 1e6, sz);
		}
	}
	if (rc == 0) {
		rp_lab_headline(r.lab, &r.head);
		const struct rp_acct *a = rp_lab_acct(r.lab);
		double *expect = rp_plan_expect_goodput(&r.plan, NULL, rp_acct_nflows(a));
		const struct rp_pairs_plan pp = {expect, rp_plan_lossless(r.prof)};
		r.pairs = rp_pairs_build(a, &pp);
		free(expect);
		if (!(r.prop = rp_lab_propagation(r.lab)) || !r.pairs)
			rc = rp_cli_error("lab", "out of memory for the pause propagation and pairs of %zu flows",
					  rp_acct_nflows(a));
		if (rc == 0)
			rc = write_result(&r, o, dir);
		if (rc == 0)
			rc = write_qdepth(&r, dir);
		if (rc == 0)
			rc = write_summary(&r, dir, print);
		if (head)
			*head = r.head;
	}
	one_free(&r);
	return rc;
}

/* ---- sweep ---- */

struct axis {
	char key[128];
	char *vals[64];
	size_t n;
	char buf[1024];
};

static int parse_axis(const char *spec, struct axis *a)
{
	const char *eq = strchr(spec, '=');
	size_t kl = (size_t)(eq - spec);
	if (kl == 0 || kl >= sizeof(a->key) || strlen(eq + 1) >= sizeof(a->buf))
		return rp_cli_error("lab", "--sweep '%s': key or values too long", spec);
	memcpy(a->key, spec, kl);
	a->key[kl] = '\0';
	strcpy(a->buf, eq + 1);
	a->n = 0;
	for (char *s = a->buf, *tok; (tok = strsep(&s, ",")) != NULL;) {
		if (!*tok || a->n == 64)
			return rp_cli_error("lab", "--sweep '%s': 1 to 64 non-empty values", spec);
		a->vals[a->n++] = tok;
	}
	return 0;
}

static void csv_row(FILE *f, const struct axis *ax, size_t nax, const size_t *idx, size_t point,
		    const struct rp_lab_headline *h)
{
	fprintf(f, "%zu", point);
	for (size_t k = 0; k < nax; k++)
		fprintf(f, ",%s", ax[k].vals[idx[k]]);
	char c99[RP_REPORT_CELL] = "", c999[RP_REPORT_CELL] = ""; /* no sample: empty cells */
	if (h->latency_samples) {
		rp_report_ns_cell(c99, h->latency_samples, h->p99_ns);
		rp_report_ns_cell(c999, h->latency_samples, h->p999_ns);
	}
	fprintf(f, ",%.6f,%" PRIu64 ",%" PRIu64 ",%.4f,%s,%s,%.4f,%" PRIu64 ",%" PRIu64 "\n", h->loss_pct, h->lost,
		h->drops, h->paused_pct, c99, c999, h->goodput_gbps, h->max_queue_bytes, h->end_ns);
}

/* The point's --set KEY=VALUE strings appended to o->sets (o->nsets restored by the caller). */
static void point_sets(struct lab_opts *o, const struct axis *ax, size_t nax, const size_t *idx,
		       char sets[MAX_SWEEP][1200], json_t *at)
{
	for (size_t k = 0; k < nax; k++) {
		int n = snprintf(sets[k], sizeof(sets[k]), "%.127s=", ax[k].key);
		snprintf(sets[k] + n, sizeof(sets[k]) - (size_t)n, "%.1000s", ax[k].vals[idx[k]]);
		o->sets[o->nsets++] = sets[k];
		if (at)
			json_object_set_new(at, ax[k].key, json_string(ax[k].vals[idx[k]]));
	}
}

/* The profile with this point's values loads and plans: checked for every
 * point before the first one runs, so a bad value leaves nothing behind. */
static int sweep_check(struct lab_opts *o, const struct axis *ax, size_t nax, const size_t *idx)
{
	char sets[MAX_SWEEP][1200];
	size_t base = o->nsets;
	struct one r = {0};
	point_sets(o, ax, nax, idx, sets, NULL);
	int rc = one_load(&r, o);
	if (rc == 0) { /* the fabric is built too (its limits are checked there), no files */
		char err[RP_PROFILE_ERR_LEN];
		struct rp_lab_opts lo = {.bin_ns = o->bin_ns};
		if (!(r.lab = rp_lab_create(r.prof, &r.plan, &lo, err, sizeof(err))))
			rc = rp_cli_error("lab", "%s", err);
	}
	one_free(&r);
	o->nsets = base;
	return rc;
}

/* Runs one point into DIR/point-N; its headline in *h. */
static int point_run(struct lab_opts *o, const struct axis *ax, size_t nax, const size_t *idx, size_t point,
		     struct rp_lab_headline *h)
{
	char sets[MAX_SWEEP][1200], dir[4096];
	size_t base = o->nsets;
	point_sets(o, ax, nax, idx, sets, NULL);
	snprintf(dir, sizeof(dir), "%s/point-%zu", o->out, point);
	if (!o->quiet)
		fprintf(stderr, "lab: sweep point %zu: %s\n", point, dir);
	int rc = run_one(o, dir, false, h);
	o->nsets = base;
	return rc;
}

/* sweep.json's row of a point that ran. */
static void point_row(struct lab_opts *o, const struct axis *ax, size_t nax, const size_t *idx, size_t point,
		      const struct rp_lab_headline *h, json_t *rows)
{
	char sets[MAX_SWEEP][1200], dir[4096];
	size_t base = o->nsets;
	json_t *at = json_object();
	point_sets(o, ax, nax, idx, sets, at);
	o->nsets = base;
	snprintf(dir, sizeof(dir), "%s/point-%zu", o->out, point);
	json_array_append_new(rows, json_pack("{s:I, s:s, s:o, s:o}", "point", (json_int_t)point, "dir", dir, "at", at,
					      "headline", rp_lab_headline_json(h)));
}

static int sweep_point(struct lab_opts *o, const struct axis *ax, size_t nax, const size_t *idx, size_t point,
		       struct rp_lab_headline *h, json_t *rows)
{
	int rc = point_run(o, ax, nax, idx, point, h);
	if (rc == 0)
		point_row(o, ax, nax, idx, point, h, rows);
	return rc;
}

/* ---- --jobs N: points in child processes ----
 * A child runs one point exactly as the serial sweep would (its own
 * process: nothing shared) and sends its exit code and headline back over a
 * pipe; the parent writes the rows in point order, so sweep.csv, sweep.json
 * and every point-N/ are the serial sweep's. A signal reaches the children
 * too (the same process group): each ends its point as interrupted, and no
 * further point starts. */
struct job_result {
	int rc;
	struct rp_lab_headline h;
};

struct job {
	pid_t pid;
	int fd;
	size_t point;
};

static int job_start(struct lab_opts *o, const struct axis *ax, size_t nax, const size_t *idx, size_t point,
		     struct job *j)
{
	int p[2];
	if (pipe(p) != 0)
		return rp_cli_error("lab", "--jobs: cannot make a pipe: %s", strerror(errno));
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return rp_cli_error("lab", "--jobs: cannot fork: %s", strerror(errno));
	}
	if (pid == 0) {
		close(p[0]);
		struct job_result r = {0};
		r.rc = point_run(o, ax, nax, idx, point, &r.h);
		ssize_t w = write(p[1], &r, sizeof(r));
		_exit(w == (ssize_t)sizeof(r) ? 0 : 1);
	}
	close(p[1]);
	*j = (struct job){.pid = pid, .fd = p[0], .point = point};
	return 0;
}

/* Waits for one child; its result into res[point]. A SIGINT/SIGTERM that
 * reached only this process is passed on to the running points once. */
static void job_reap(struct job *jobs, size_t *running, struct job_result *res, bool *forwarded)
{
	int st;
	pid_t pid;
	while ((pid = waitpid(-1, &st, WNOHANG)) <= 0) {
		if (pid < 0 && errno != EINTR)
			return;
		if (rp_cli_stop && !*forwarded) {
			for (size_t i = 0; i < *running; i++)
				kill(jobs[i].pid, SIGTERM);
			*forwarded = true;
		}
		nanosleep(&(struct timespec){.tv_nsec = 5000000}, NULL);
	}
	for (size_t i = 0; i < *running; i++) {
		if (jobs[i].pid != pid)
			continue;
		struct job_result r = {.rc = RP_EXIT_USAGE};
		if (read(jobs[i].fd, &r, sizeof(r)) != (ssize_t)sizeof(r) || !WIFEXITED(st) || WEXITSTATUS(st))
			r.rc = r.rc ? r.rc : RP_EXIT_USAGE;
		close(jobs[i].fd);
		res[jobs[i].point] = r;
		jobs[i] = jobs[--*running];
		return;
	}
}

/* Every point (their indices in idxs), at most o->jobs at once. res[p].rc is
 * -1 for points that never started. */
static void run_parallel(struct lab_opts *o, const struct axis *ax, size_t nax, const size_t (*idxs)[MAX_SWEEP],
			 size_t npoints, struct job_result *res)
{
	struct job jobs[64];
	size_t running = 0, next = 0;
	bool failed = false, forwarded = false;
	for (size_t p = 0; p < npoints; p++)
		res[p].rc = -1;
	while (next < npoints || running) {
		while (running < o->jobs && next < npoints && !failed && !rp_cli_stop) {
			if (job_start(o, ax, nax, idxs[next], next, &jobs[running])) {
				failed = true;
				break;
			}
			running++;
			next++;
		}
		if (!running)
			break;
		job_reap(jobs, &running, res, &forwarded);
		for (size_t p = 0; p < npoints; p++)
			failed |= res[p].rc > 0;
	}
}

static bool next_index(size_t *idx, const struct axis *ax, size_t nax)
{
	for (size_t k = nax; k-- > 0;) {
		if (++idx[k] < ax[k].n)
			return true;
		idx[k] = 0;
	}
	return false;
}

static int write_sweep_json(const struct lab_opts *o, json_t *rows)
{
	char path[4096], err[512];
	json_t *root = json_pack("{s:s, s:s, s:O}", "schema", "roceprobe.sweep/1", "profile", o->profile, "points", rows);
	snprintf(path, sizeof(path), "%s/sweep.json", o->out);
	int rc = rp_report_write_atomic(path, root, err, sizeof(err));
	json_decref(root);
	return rc ? rp_cli_error("lab", "%s", err) : 0;
}

static int run_sweep(struct lab_opts *o)
{
	static struct axis ax[MAX_SWEEP];
	size_t idx[MAX_SWEEP] = {0}, points = 1, point = 0;
	char path[4096];
	int rc = 0;
	for (size_t k = 0; rc == 0 && k < o->nsweep; k++) {
		rc = parse_axis(o->sweep[k], &ax[k]);
		points *= ax[k].n;
	}
	if (rc == 0 && points > MAX_POINTS)
		rc = rp_cli_error("lab", "--sweep: %zu points; at most %d", points, MAX_POINTS);
	do
		rc = rc ? rc : sweep_check(o, ax, o->nsweep, idx);
	while (rc == 0 && next_index(idx, ax, o->nsweep));
	if (rc == 0)
		rc = make_dir(o->out, o->force);
	if (rc)
		return rc;
	snprintf(path, sizeof(path), "%s/sweep.csv", o->out);
	FILE *f = fopen(path, "w");
	if (!f)
		return rp_cli_error("lab", "cannot write %s: %s", path, strerror(errno));
	fputs("point", f);
	for (size_t k = 0; k < o->nsweep; k++)
		fprintf(f, ",%s", ax[k].key);
	fputs(",loss_pct,lost,drops,paused_pct,p99_ns,p999_ns,goodput_gbps,max_queue_bytes,virtual_ns\n", f);
	json_t *rows = json_array();
	if (o->jobs > 1) {
		static size_t idxs[MAX_POINTS][MAX_SWEEP];
		static struct job_result res[MAX_POINTS];
		size_t n = 0;
		do
			memcpy(idxs[n++], idx, sizeof(idx));
		while (next_index(idx, ax, o->nsweep));
		run_parallel(o, ax, o->nsweep, (const size_t(*)[MAX_SWEEP])idxs, n, res);
		for (; point < n && res[point].rc == 0; point++) { /* in order, up to the first that failed or never ran */
			csv_row(f, ax, o->nsweep, idxs[point], point, &res[point].h);
			point_row(o, ax, o->nsweep, idxs[point], point, &res[point].h, rows);
		}
		if (point < n && res[point].rc > 0)
			rc = res[point].rc;
	} else {
		do {
			struct rp_lab_headline h;
			rc = sweep_point(o, ax, o->nsweep, idx, point, &h, rows);
			if (rc == 0)
				csv_row(f, ax, o->nsweep, idx, point, &h);
			point++;
		} while (rc == 0 && !rp_cli_stop && next_index(idx, ax, o->nsweep)); /* a signal: the points so far */
	}
	fclose(f);
	rc = rc ? rc : write_sweep_json(o, rows);
	if (rc == 0) {
		snprintf(path, sizeof(path), "%s/sweep.csv", o->out);
		FILE *in = fopen(path, "r");
		int ch;
		while (in && (ch = fgetc(in)) != EOF)
			putchar(ch);
		if (in)
			fclose(in);
		printf("\nsweep: %s/sweep.csv and %s/sweep.json (%zu points)\n", o->out, o->out, point);
	}
	json_decref(rows);
	return rc;
}

int rp_cmd_lab(int argc, char **argv)
{
	static struct lab_opts o;
	/* First thing: from here on SIGINT/SIGTERM only set the flag, and every
	 * run stops at its next event with whole files and "interrupted": true. */
	rp_cli_catch_stop();
	int rc = parse_args(argc, argv, &o);
	if (rc != 0)
		return rc < 0 ? RP_EXIT_OK : rc;
	if (o.nsweep)
		return run_sweep(&o);
	return run_one(&o, o.out, true, NULL);
}
