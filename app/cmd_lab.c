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
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "metrics/metrics.h"
#include "lab/lab.h"
#include "lab/one.h"
#include "lab/report.h"
#include "lab/sweep_run.h"
#include "profile/units.h"
#include "report/doc.h"
#include "report/flowset.h"
#include "report/outdir.h"
#include "report/pairs.h"
#include "report/result.h"
#include "report/result_doc.h"
#include "report/summary.h"
#include "traffic/plan.h"

/* getopt_long's short options (rp_cli_bad_option names a bad one). */
static const char SHORTS[] = "o:s:qh";

#define MAX_SETS 64
#define MAX_SWEEP RP_SWEEP_MAX_AXES

struct lab_opts {
	const char *profile;
	const char *out;
	const char *sets[MAX_SETS];
	size_t nsets;
	const char *sweep[MAX_SWEEP];
	size_t nsweep;
	unsigned jobs;            /* sweep points run at once, each in its own process */
	bool capture, quiet, allow_pause_storm, force;
	const char *mirrors[RP_LAB_MIRRORS_MAX];
	size_t nmirrors;
	uint64_t counters_ns;
	unsigned snaplen;
	uint64_t capture_max, capture_rotate;
	uint64_t bin_ns;
	struct rp_cli_metrics metrics;
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
	      "  --mirror SWITCH:PORT[,...]\n"
	      "                         DIR/mirror-SWITCH-PORT.pcap: what a SPAN port there sees,\n"
	      "                         both directions (in at its last bit, out at its first), as\n"
	      "                         --capture's pcaps (snaplen, budget); names as result.json's\n"
	      "                         switches[]: sw0:3, leaf1:Ethernet2, spine0:0\n"
	      "  --counters DURATION    DIR/counters.jsonl: every switch's and host's counters every\n"
	      "                         DURATION of virtual time (10us, 1ms), as 'roceprobe counters\n"
	      "                         --json --watch' writes them (roceprobe.counters/1, SONiC's\n"
	      "                         names: a switch is lab:SWITCH, its ports Ethernet<p>)\n"
	      "  --bin-us N             time series bin (default 100)\n"
	      "  --allow-pause-storm    accept PFC sources that could hold a port paused\n"
	      "  -q, --quiet            no progress lines (set-up stages once it passes 1 s; the\n"
	      "                         virtual time of the planned end, share and time left)\n"
	      RP_CLI_METRICS_HELP
	      "                         (the stage, virtual time of the planned end, events; once\n"
	      "                         written, every flow (or host pair) and port: not with --sweep)\n"
	      "\n"
	      "SIGINT or SIGTERM stops it within a second in set-up, run or writing, exit 0:\n"
	      "result.json says \"interrupted\": true and where (\"interrupted_in\": \"set-up\",\n"
	      "\"run\" or \"write\"); every file is whole or absent. Beyond 4096 flows a stop leaves\n"
	      "flows.jsonl, pairs.jsonl and the pairs out (\"interrupted_skipped\"). A second\n"
	      "signal ends it at once (exit 128 + the signal), removing the files being written.\n"
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
		{"mirror", required_argument, NULL, 'm'}, {"counters", required_argument, NULL, 'C'},
		RP_CLI_METRICS_OPTIONS,
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
		case 'm': rc = rp_cli_list("lab", "--mirror", optarg, o->mirrors, RP_LAB_MIRRORS_MAX, &o->nmirrors); break;
		case 'C': rc = rp_cli_duration_ns("lab", "--counters", optarg, 1000, 1.0, &o->counters_ns); break;
		case 'F': o->force = true; break;
		case 'q': o->quiet = true; break;
		case RP_CLI_OPT_METRICS:
		case RP_CLI_OPT_METRICS_KEY:
		case RP_CLI_OPT_METRICS_LINGER: rc = rp_cli_metrics_opt("lab", c, optarg, &o->metrics); break;
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
	if (o->metrics.spec && o->nsweep)
		return rp_cli_error("lab", "--metrics serves one run, not a --sweep (each point's own files and sweep.csv say "
					   "what the points did)");
	o->profile = argv[optind];
	return 0;
}

/* result.json's keys after the measured ones: the lab's hosts, switches,
 * where pause went, its totals and headline, the pair matrix. */
static int lab_keys(struct rp_result_out *o, void *ctx)
{
	const struct rp_lab_one *r = ctx;
	rp_result_put(o, "hosts", rp_lab_hosts_json(r->lab));
	rp_result_put(o, "switches", rp_lab_switches_json(r->lab));
	struct rp_report_wstream ps[2];
	rp_lab_propagation_streams(r->prop, ps); /* the victims a flow at a time */
	if (r->detail_skipped && ps[0].n > RP_REPORT_FLOWS_INLINE)
		ps[0].n = RP_REPORT_FLOWS_INLINE; /* a stop: the first (the worst) only */
	rp_doc_put_wstreams(rp_result_doc(o), "pause_propagation", json_incref(r->prop->head), ps, 2);
	rp_result_put(o, "lab", rp_lab_totals_json(r->lab));
	rp_result_put(o, "headline", rp_lab_headline_json(&r->head));
	return rp_report_doc_pairs(rp_result_doc(o), rp_result_flowset(o));
}

/* What a stop left out of result.json (its "interrupted_skipped"), NULL
 * when nothing. */
static json_t *skipped_json(const struct rp_lab_one *r)
{
	if (!r->detail_skipped)
		return NULL;
	bool many = rp_acct_nflows(rp_lab_acct(r->lab)) > RP_REPORT_FLOWS_INLINE;
	json_t *a = json_array();
	if (many) {
		json_array_append_new(a, json_string(RP_REPORT_FLOWS_FILE));
		json_array_append_new(a, json_string(RP_REPORT_PAIRS_FILE));
	}
	json_array_append_new(a, json_string("pairs"));
	if (r->prop->nvictims > RP_REPORT_FLOWS_INLINE)
		json_array_append_new(a, json_string("pause_propagation.victims"));
	return a;
}

/* result.json through the one builder (report/result_doc.h): a million
 * flows are GBs as JSON, so beyond RP_REPORT_FLOWS_INLINE flows the flows
 * and the pair matrix go to DIR/flows.jsonl and DIR/pairs.jsonl first, as
 * run's do (report/flowset.h); after a stop (r->detail_skipped) they are
 * left out. 0, or -1 with err. */
static int write_result(struct rp_lab_one *r, const struct lab_opts *o, const char *dir, char *err, size_t errlen)
{
	struct rp_lab_totals t;
	rp_lab_totals(r->lab, &t);
	const struct rp_acct *a = rp_lab_acct(r->lab);
	const struct rp_report_flowset fs = {.acct = a, .write = rp_lab_flow_write, .ctx = (void *)a,
					     .pairs = r->detail_skipped ? NULL : r->pairs,
					     .files_skipped = r->detail_skipped};
	struct rp_result_env env = {
		.version = RP_VERSION, .started = r->started,
		.more = json_pack("{s:f, s:f, s:f}", "wall_s", r->wall, "events_per_s",
				  r->wall > 0 ? (double)t.events / r->wall : 0.0, "virtual_per_wall",
				  r->wall > 0 ? (double)t.end_ns / 1e9 / r->wall : 0.0)};
	struct rp_result_measured m = {.elapsed_ns = t.end_ns, .interrupted = t.truncated || t.stopped || r->stopped_in != NULL,
				       .interrupted_in = r->stopped_in, .interrupted_skipped = skipped_json(r), .fs = &fs,
				       .ports = rp_report_ports(a), .timeseries = rp_report_timeseries(a),
				       .capture = rp_lab_capture_json(r->lab)};
	struct rp_result_pieces p = {.kind = "lab", .profile_name = r->prof->name, .profile_path = o->profile,
				     .env = &env, .measured = &m, .ext = lab_keys, .ctx = r};
	return rp_result_write(dir, &p, err, errlen);
}

/* A stop in set-up: nothing ran. result.json says only that (schema, kind,
 * profile, environment, "interrupted": true, "interrupted_in": "set-up");
 * no other file. */
static int setup_keys(struct rp_result_out *o, void *ctx)
{
	(void)ctx;
	rp_result_put(o, "interrupted", json_true());
	return rp_result_put(o, "interrupted_in", json_string("set-up"));
}

static int write_setup_stop(const struct rp_lab_one *r, const struct lab_opts *o, const char *dir)
{
	struct rp_result_env env = {.version = RP_VERSION, .started = r->started};
	struct rp_result_pieces p = {.kind = "lab", .profile_name = r->prof->name, .profile_path = o->profile,
				     .env = &env, .ext = setup_keys};
	char err[4200];
	if (rp_result_write(dir, &p, err, sizeof(err)))
		return rp_cli_error("lab", "%s", err);
	fprintf(stderr, "roceprobe lab: stopped by a signal in set-up, before the run: %s/result.json says so "
		"(\"interrupted_in\": \"set-up\")\n", dir);
	return 0;
}

/* DIR/qdepth.csv from the lab's switches (lib/lab/report.h). */
static int write_qdepth(struct rp_lab_one *r, const char *dir)
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
static void summary_view(const struct rp_lab_one *r, struct rp_summary *s, struct rp_summary_lab *l,
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
	if (r->detail_skipped && l->victims.n > RP_REPORT_FLOWS_INLINE)
		l->victims_kept = RP_REPORT_FLOWS_INLINE;
	*s = (struct rp_summary){.command = "lab", .name = r->prof->name, .elapsed_ns = t->end_ns,
				 .interrupted = t->stopped, .acct = rp_lab_acct(r->lab), .cols = RP_SUMMARY_IN_FLIGHT,
				 .max_flows = 40, .pairs = r->detail_skipped ? NULL : r->pairs,
				 .files_skipped = r->detail_skipped, .lab = l};
}

static void summary_body(FILE *f, void *s)
{
	rp_summary_write(f, s);
}

static int write_summary(const struct rp_lab_one *r, const char *dir, bool to_stdout)
{
	char path[4096], capmax[32], err[4200];
	struct rp_summary s;
	struct rp_summary_lab l;
	struct rp_lab_totals t;
	snprintf(path, sizeof(path), "%s/summary.txt", dir);
	summary_view(r, &s, &l, &t, capmax);
	int rc = rp_outdir_write_text(path, summary_body, &s, err, sizeof(err)); /* whole or absent */
	if (rc == 0 && to_stdout) {
		rp_summary_write(stdout, &s);
		printf("\nresult: %s/result.json\nsummary: %s/summary.txt\nqueue depths: %s/qdepth.csv\n", dir, dir, dir);
	}
	json_decref((json_t *)l.hosts);
	return rc ? rp_cli_error("lab", "%s", err) : 0;
}

/* What lib/lab runs for the options given. */
/* --metrics (one run): the listener, and what the run keeps up to date for it. */
static struct rp_metrics *metrics;
static struct rp_lab_live lab_live;

/* The final values (every flow and port: result.json's) served from here on,
 * for the linger when files were written; then the listener closes. r: NULL
 * when nothing ran. */
static void metrics_end(const struct lab_opts *o, const struct rp_lab_one *r, bool written)
{
	if (!metrics)
		return;
	struct rp_lab_metrics_final fin = {.live = &lab_live, .one = r};
	__atomic_store_n(&lab_live.stage, RP_LAB_STAGE_DONE, __ATOMIC_RELAXED);
	rp_metrics_collect(metrics, rp_lab_metrics_final, &fin);
	rp_cli_metrics_end("lab", &o->metrics, metrics, written);
	metrics = NULL;
}

static struct rp_lab_one_opts one_opts(const struct lab_opts *o)
{
	return (struct rp_lab_one_opts){.profile = o->profile, .sets = o->sets, .nsets = o->nsets,
					.allow_pause_storm = o->allow_pause_storm, .force = o->force,
					.capture = o->capture, .snaplen = o->snaplen, .capture_max = o->capture_max,
					.capture_rotate = o->capture_rotate, .bin_ns = o->bin_ns,
					.mirrors = o->mirrors, .nmirrors = o->nmirrors, .counters_ns = o->counters_ns,
					.progress = o->quiet ? NULL : stderr, .notes = stderr, .stop = &rp_cli_stop,
					.live = o->metrics.spec ? &lab_live : NULL};
}

/* The files of a stopped write that result.json no longer names. */
static void remove_detail(const char *dir)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, RP_REPORT_FLOWS_FILE);
	unlink(path);
	snprintf(path, sizeof(path), "%s/%s", dir, RP_REPORT_PAIRS_FILE);
	unlink(path);
}

/* result.json, and when a signal comes while it (or flows.jsonl,
 * pairs.jsonl) is written: the file given up and removed, then result.json
 * again without the big pieces (it says "interrupted_in": "write"). */
static int write_result_or_less(struct rp_lab_one *r, const struct lab_opts *o, const char *dir)
{
	char err[4200];
	int rc = write_result(r, o, dir, err, sizeof(err));
	if (rc && rp_outdir_cancelled()) {
		rp_outdir_stop_taken(); /* from here the small files only, each whole */
		r->stopped_in = r->stopped_in ? r->stopped_in : "write";
		r->detail_skipped = true;
		remove_detail(dir);
		rc = write_result(r, o, dir, err, sizeof(err));
	}
	return rc ? rp_cli_error("lab", "%s", err) : 0;
}

/* The writers' progress (report/outdir.h): once writing has taken a
 * second, a line a second naming the file and how far it is. */
static double write_t0, write_last;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void write_progress(const char *path, size_t done, size_t total, void *arg)
{
	(void)arg;
	double t = now_s();
	if (t - write_t0 < 1.0 || t - write_last < 1.0)
		return;
	const char *base = strrchr(path, '/');
	if (total)
		fprintf(stderr, "lab: writing %s: %zu of %zu lines (%.0f%%)\n", base ? base + 1 : path, done, total,
			100.0 * (double)done / (double)total);
	else
		fprintf(stderr, "lab: writing %s\n", base ? base + 1 : path);
	write_last = t;
}

/* One lab run into dir and its files; the headline numbers in *head.
 * *ran false: a signal stopped it in set-up (result.json says so). */
static int run_one(const struct lab_opts *o, const struct rp_lab_one_opts *lo, const char *dir, bool print,
		   struct rp_lab_headline *head, bool *ran)
{
	struct rp_lab_one r = {0};
	char err[RP_LAB_ONE_ERR];
	*ran = false;
	int rc = rp_lab_one_run(&r, lo, dir, err, sizeof(err)) ? rp_cli_error("lab", "%s", err) : 0;
	if (rc == 0 && !r.lab) {
		rc = write_setup_stop(&r, o, dir);
		metrics_end(o, NULL, rc == 0);
		rp_lab_one_free(&r);
		return rc;
	}
	*ran = true;
	write_t0 = write_last = now_s();
	if (rc == 0)
		rc = write_result_or_less(&r, o, dir);
	if (rc == 0)
		rc = write_qdepth(&r, dir);
	if (rc == 0)
		rc = write_summary(&r, dir, print);
	if (rc == 0 && head)
		*head = r.head;
	metrics_end(o, rc == 0 ? &r : NULL, rc == 0);
	/* After a signal the process ends: freeing a million flows one by one
	 * took 1 s of fat-tree-1024's stop. Kept reachable (no leak reported)
	 * for the exit to reclaim at once. */
	static struct rp_lab_one kept;
	if (r.stopped_in && !kept.lab)
		kept = r;
	else
		rp_lab_one_free(&r);
	return rc;
}

/* A sweep's point (lib/lab/sweep_run.h): run_one, its error line kept in
 * err for the sweep to say. */
static int sweep_point(void *arg, const struct rp_lab_one_opts *lo, const char *dir, struct rp_lab_headline *h,
		       char *err, size_t errlen)
{
	bool ran;
	rp_cli_hold_errors(err, errlen);
	int rc = run_one(arg, lo, dir, false, h, &ran);
	rp_cli_hold_errors(NULL, 0);
	return rc ? -1 : ran ? 0 : 1;
}

static int run_sweep(const struct lab_opts *o)
{
	static struct rp_sweep s;
	char err[RP_LAB_ONE_ERR], path[4096];
	size_t points = 0;
	const struct rp_lab_one_opts lo = one_opts(o);
	const struct rp_sweep_run_opts so = {.out = o->out, .one = &lo, .jobs = o->jobs,
					     .progress = o->quiet ? NULL : stderr, .stop = &rp_cli_stop,
					     .run = sweep_point, .arg = (void *)o};
	if (rp_sweep_parse(&s, o->sweep, o->nsweep, err, sizeof(err)) || rp_sweep_run(&so, &s, &points, err, sizeof(err)))
		return rp_cli_error("lab", "%s", err);
	snprintf(path, sizeof(path), "%s/sweep.csv", o->out); /* the table on stdout too */
	FILE *in = fopen(path, "r");
	int ch;
	while (in && (ch = fgetc(in)) != EOF)
		putchar(ch);
	if (in)
		fclose(in);
	printf("\nsweep: %s/sweep.csv and %s/sweep.json (%zu points)\n", o->out, o->out, points);
	return 0;
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
	/* The writers watch the flag too: a long file is given up at a signal. */
	rp_outdir_watch(&(const struct rp_outdir_watch){.stop = &rp_cli_stop, .progress = o.quiet ? NULL : write_progress});
	if (o.nsweep)
		return run_sweep(&o);
	if ((rc = rp_cli_metrics_start("lab", &o.metrics, 0, &metrics)) != 0)
		return rc;
	rp_metrics_collect(metrics, rp_lab_metrics_live, &lab_live);
	const struct rp_lab_one_opts lo = one_opts(&o);
	bool ran;
	return run_one(&o, &lo, o.out, true, NULL, &ran);
}
