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
#include "lab/lab.h"
#include "lab/one.h"
#include "lab/report.h"
#include "lab/sweep_run.h"
#include "profile/units.h"
#include "report/doc.h"
#include "report/flowset.h"
#include "report/pairs.h"
#include "report/result.h"
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

/* The run is lib/lab/one.h's; the writers below (result.json, qdepth.csv,
 * summary.txt: moving to lib/report in issue 27's result-builder branch)
 * still name it struct one (until the #undef after them). */
#define one rp_lab_one

static json_t *environment_json(const struct one *r)
{
	char host[256] = "", started[32];
	struct rp_lab_totals t;
	rp_lab_totals(r->lab, &t);
	gethostname(host, sizeof(host) - 1);
	strftime(started, sizeof(started), "%Y-%m-%dT%H:%M:%SZ", gmtime(&r->started));
	return json_pack("{s:s, s:s, s:s, s:f, s:f, s:f}", "roceprobe", RP_VERSION, "hostname", host, "started", started,
			 "wall_s", r->wall, "events_per_s", r->wall > 0 ? (double)t.events / r->wall : 0.0,
			 "virtual_per_wall", r->wall > 0 ? (double)t.end_ns / 1e9 / r->wall : 0.0);
}

/* result.json a piece at a time (report/doc.h): a million flows are GBs as
 * JSON. Beyond RP_REPORT_FLOWS_INLINE flows the flows and the pair matrix go
 * to DIR/flows.jsonl and DIR/pairs.jsonl first, as run's do
 * (report/flowset.h). */
static int write_result(struct one *r, const struct lab_opts *o, const char *dir)
{
	struct rp_lab_totals t;
	rp_lab_totals(r->lab, &t);
	const struct rp_acct *a = rp_lab_acct(r->lab);
	const struct rp_report_flowset fs = {.acct = a, .write = rp_lab_flow_write, .ctx = (void *)a, .pairs = r->pairs};
	char path[4096], err[4200];
	snprintf(path, sizeof(path), "%s/result.json", dir);
	struct rp_doc *d = NULL;
	int rc = rp_report_flowset_files(&fs, dir, err, sizeof(err));
	if (rc == 0 && !(d = rp_doc_open(path, err, sizeof(err))))
		rc = -1;
	if (rc == 0) {
		rp_doc_put(d, "schema", json_string("roceprobe.result/1"));
		rp_doc_put(d, "kind", json_string("lab"));
		rp_doc_put(d, "profile", json_pack("{s:s, s:s}", "name", r->prof->name, "path", o->profile));
		rp_doc_put(d, "environment", environment_json(r));
		rp_doc_put(d, "elapsed_ns", json_integer((json_int_t)t.end_ns));
		rp_doc_put(d, "interrupted", json_boolean(t.truncated || t.stopped));
		rp_report_doc_flows(d, &fs);
		rp_doc_put(d, "ports", rp_report_ports(a));
		rp_doc_put(d, "timeseries", rp_report_timeseries(a));
		rp_doc_put(d, "capture", rp_lab_capture_json(r->lab));
		rp_doc_put(d, "hosts", rp_lab_hosts_json(r->lab));
		rp_doc_put(d, "switches", rp_lab_switches_json(r->lab));
		struct rp_report_wstream ps[2];
		rp_lab_propagation_streams(r->prop, ps); /* the victims a flow at a time */
		rp_doc_put_wstreams(d, "pause_propagation", json_incref(r->prop->head), ps, 2);
		rp_doc_put(d, "lab", rp_lab_totals_json(r->lab));
		rp_doc_put(d, "headline", rp_lab_headline_json(&r->head));
		rp_report_doc_pairs(d, &fs);
		rc = rp_doc_close(d, false, err, sizeof(err));
	}
	return rc ? rp_cli_error("lab", "%s", err) : 0;
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

static void summary_flows(FILE *f, const struct rp_acct *a)
{
	size_t n = rp_acct_nflows(a);
	fprintf(f, "%-4s %-8s %-8s %4s %9s %9s %7s %7s %6s %6s %8s %9s %9s %9s\n", "flow", "src", "dst", "prio", "tx", "rx",
		"lost", "flying", "ce", "cnp", "Gbit/s", "p50 ns", "p99 ns", "max ns");
	for (size_t i = 0; i < n && i < 40; i++) {
		struct rp_acct_flow_result x;
		rp_acct_flow(a, i, &x);
		char c50[RP_REPORT_CELL], c99[RP_REPORT_CELL], cmax[RP_REPORT_CELL];
		uint64_t k = x.latency_ns.count;
		fprintf(f, "%-4u %-8s %-8s %4u %9" PRIu64 " %9" PRIu64 " %7" PRIu64 " %7" PRIu64 " %6" PRIu64 " %6" PRIu64
			   " %8.3f %9s %9s %9s\n",
			x.id, x.src, x.dst, x.prio, x.tx_packets, x.rx_packets, x.lost, rp_acct_flow_in_flight(a, i), x.ce,
			x.cnp_tx, x.goodput_gbps, rp_report_ns_cell(c50, k, x.latency_ns.pct[0]),
			rp_report_ns_cell(c99, k, x.latency_ns.pct[2]), rp_report_ns_cell(cmax, k, x.latency_ns.max));
	}
	if (n > 40)
		fprintf(f, "... %zu more flows in %s\n", n - 40,
			n > RP_REPORT_FLOWS_INLINE ? RP_REPORT_FLOWS_FILE : "result.json");
}

/* Drops by reason and priority, PFC, where pause went and whom it held up:
 * what the lab profiles exist to show. */
static void summary_fabric(FILE *f, const struct one *r)
{
	struct rp_lab_fabric_sum fs;
	struct rp_lab_totals t;
	const struct rp_acct *a = rp_lab_acct(r->lab);
	rp_lab_fabric_sum(r->lab, &fs);
	rp_lab_totals(r->lab, &t);
	if (t.sw_drops) {
		fprintf(f, "switch drops: %" PRIu64 " by reason:", t.sw_drops);
		for (int d = 1; d < RP_DROP_REASONS; d++)
			if (fs.drops[d])
				fprintf(f, " %s %" PRIu64, rp_switch_drop_name((enum rp_switch_drop)d), fs.drops[d]);
		fputs(", by priority:", f);
		for (unsigned q = 0; q < 8; q++) {
			uint64_t n = 0;
			for (size_t i = 0; i < rp_acct_nports(a); i++) {
				struct rp_acct_port_result p;
				rp_acct_port(a, i, &p);
				n += p.prio[q].drops;
			}
			if (n)
				fprintf(f, " %u: %" PRIu64, q, n);
		}
		fputc('\n', f);
	}
	uint64_t host_pfc = 0;
	for (size_t i = 0; i < rp_acct_nports(a); i++) {
		struct rp_acct_port_result p;
		rp_acct_port(a, i, &p);
		host_pfc += p.pfc_frames + p.pause_frames;
	}
	fprintf(f, "PFC: switches sent %" PRIu64 " frames (XOFF %" PRIu64 ", refresh %" PRIu64 ", XON %" PRIu64
		   "), hosts received %" PRIu64 "\n",
		fs.pfc_tx, fs.xoff_sent, fs.refresh_sent, fs.xon_sent, host_pfc);
	json_t *pp = r->prop->head, *x;
	json_t *where = json_object_get(pp, "congested"), *hops = json_object_get(pp, "hops");
	size_t i;
	if (json_is_object(where))
		fprintf(f, "pause propagation: congestion began at %s port %d at %" PRId64 " ns; %zu ports sent XOFF, depth %d%s",
			json_string_value(json_object_get(where, "switch")), (int)json_integer_value(json_object_get(where, "port")),
			(int64_t)json_integer_value(json_object_get(pp, "congestion_start_ns")), json_array_size(hops),
			(int)json_integer_value(json_object_get(pp, "depth")), json_array_size(hops) ? ":" : "");
	else
		fprintf(f, "pause propagation: no standing queue anywhere%s", json_array_size(hops) ? "; XOFF:" : "");
	json_array_foreach(hops, i, x) {
		if (i == 8) {
			fprintf(f, " ... %zu more", json_array_size(hops) - 8);
			break;
		}
		json_t *after = json_object_get(x, "after_congestion_ns");
		fprintf(f, "%s %s:%d -> %s (hop %d, ", i ? "," : "", json_string_value(json_object_get(x, "switch")),
			(int)json_integer_value(json_object_get(x, "port")), json_string_value(json_object_get(x, "paused")),
			(int)json_integer_value(json_object_get(x, "hop")));
		if (json_is_integer(after))
			fprintf(f, "+%" PRId64 " ns)", (int64_t)json_integer_value(after));
		else
			fprintf(f, "at %" PRId64 " ns)", (int64_t)json_integer_value(json_object_get(x, "first_xoff_ns")));
	}
	fputc('\n', f);
	const struct rp_lab_propagation *P = r->prop;
	if (!P->nvictims)
		fputs("victims: none (no flow to a receiver nobody oversubscribes was paused or late)\n", f);
	for (i = 0; i < P->nvictims; i++) {
		if (i == 20) { /* a million-flow run can have a million: the rest are in result.json */
			fprintf(f, "... %zu more victims in result.json (pause_propagation.victims)\n", P->nvictims - 20);
			break;
		}
		x = rp_lab_victim_item((void *)P, i);
		fprintf(f, "victim: flow %d %s -> %s prio %d, to a receiver nobody oversubscribes:%s%s sender paused %" PRId64
			   " ns, %" PRId64 " ns late\n",
			(int)json_integer_value(json_object_get(x, "flow")), json_string_value(json_object_get(x, "src")),
			json_string_value(json_object_get(x, "dst")), (int)json_integer_value(json_object_get(x, "prio")),
			json_is_true(json_object_get(x, "paused")) ? " paused," : "",
			json_is_true(json_object_get(x, "slowed")) ? " slowed," : "",
			(int64_t)json_integer_value(json_object_get(x, "sender_paused_ns")),
			(int64_t)json_integer_value(json_object_get(x, "late_ns")));
		json_decref(x);
	}
	for (i = 0; i < P->nlimited; i++) {
		if (i == 20) {
			fprintf(f, "... %zu more sender-limited flows in result.json (pause_propagation.sender_limited)\n",
				P->nlimited - 20);
			break;
		}
		x = rp_lab_limited_item((void *)P, i);
		fprintf(f, "sender-limited (not a PFC victim): flow %d %s -> %s prio %d, %" PRId64 " ns late: %s's NIC is "
			   "offered %.3f Gbit/s on %.3f Gbit/s, which makes it %" PRId64 " ns late\n",
			(int)json_integer_value(json_object_get(x, "flow")), json_string_value(json_object_get(x, "src")),
			json_string_value(json_object_get(x, "dst")), (int)json_integer_value(json_object_get(x, "prio")),
			(int64_t)json_integer_value(json_object_get(x, "late_ns")), json_string_value(json_object_get(x, "src")),
			json_real_value(json_object_get(x, "sender_offered_gbps")),
			json_real_value(json_object_get(x, "sender_speed_gbps")),
			(int64_t)json_integer_value(json_object_get(x, "sender_late_ns")));
		json_decref(x);
	}
}

/* Hosts of several NICs: each host's sum, then its NICs and where they plug in. */
static void summary_hosts(FILE *f, const struct one *r)
{
	if (!rp_profile_multi_nic(r->prof))
		return;
	json_t *hosts = rp_lab_hosts_json(r->lab), *h, *n;
	size_t i, k, shown = 0;
	fprintf(f, "\n%-12s %-10s %-6s %12s %14s %12s %14s\n", "host", "nic", "switch", "tx frames", "tx bytes",
		"rx frames", "rx bytes");
#define ROW(name, nic, sw, x)                                                                                         \
	fprintf(f, "%-12s %-10s %-6s %12" PRId64 " %14" PRId64 " %12" PRId64 " %14" PRId64 "\n", name, nic, sw,          \
		(int64_t)json_integer_value(json_object_get(x, "tx_frames")),                                          \
		(int64_t)json_integer_value(json_object_get(x, "tx_bytes")),                                           \
		(int64_t)json_integer_value(json_object_get(x, "rx_frames")),                                          \
		(int64_t)json_integer_value(json_object_get(x, "rx_bytes")))
	json_array_foreach(hosts, i, h) {
		if (shown++ == 8) {
			fprintf(f, "... %zu more hosts in result.json\n", json_array_size(hosts) - 8);
			break;
		}
		ROW(json_string_value(json_object_get(h, "name")), "(all)", "", h);
		json_array_foreach(json_object_get(h, "nics"), k, n) {
			const char *nm = json_string_value(json_object_get(n, "name")), *dot = strchr(nm, '.');
			char sw[32];
			snprintf(sw, sizeof(sw), "%s:%d", json_string_value(json_object_get(n, "switch")),
				 (int)json_integer_value(json_object_get(n, "port")));
			ROW("", dot ? dot + 1 : nm, sw, n);
		}
	}
#undef ROW
	json_decref(hosts);
}

static void summary(FILE *f, const struct one *r)
{
	struct rp_lab_totals t;
	rp_lab_totals(r->lab, &t);
	const struct rp_lab_headline *h = &r->head;
	fprintf(f, "roceprobe lab: %s, %.3f ms virtual%s, %" PRIu64 " events, %" PRIu64 " hops, %.2f s wall\n\n",
		r->prof->name, (double)t.end_ns / 1e6,
		t.stopped ? " (interrupted by a signal)" : t.truncated ? " (stopped at fabric.max_time)" : "", t.events, t.hops,
		r->wall);
	summary_flows(f, rp_lab_acct(r->lab));
	char lat[96] = "latency n/a (no probe carried a timestamp)";
	if (h->latency_samples)
		snprintf(lat, sizeof(lat), "latency p99 %" PRIu64 " ns p99.9 %" PRIu64 " ns", h->p99_ns, h->p999_ns);
	fprintf(f, "\nloss %.4f%% (%" PRIu64 " lost, %" PRIu64 " switch drops), most paused host priority %.2f%%,\n"
		   "%s, goodput %.3f Gbit/s, deepest queue %" PRIu64 " bytes\n",
		h->loss_pct, h->lost, h->drops, h->paused_pct, lat, h->goodput_gbps, h->max_queue_bytes);
	if (h->in_flight) /* a run stopped early: neither received nor lost */
		fprintf(f, "in flight %" PRIu64 " (not lost, not in the loss %%): %" PRIu64 " in switch buffers, %" PRIu64
			   " on links, when the run stopped\n",
			h->in_flight, t.in_flight - t.in_flight_on_links, t.in_flight_on_links);
	if (t.capture_stopped) {
		char sz[32];
		rp_format_size(t.capture_max, sz, sizeof(sz));
		fprintf(f, "captures incomplete: they end at virtual %.3f ms (%s%s%s)\n", (double)t.capture_stopped_ns / 1e6,
			t.capture_failed ? t.capture_error : t.capture_room_limited ? "the disk's room for pcaps, " : "--capture-max ",
			t.capture_failed ? "" : sz, t.capture_failed ? "; each file cut back to its last whole record" : "");
	}
	summary_fabric(f, r);
	summary_hosts(f, r);
	rp_pairs_print(f, r->pairs, 10);
}

static int write_summary(const struct one *r, const char *dir, bool to_stdout)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/summary.txt", dir);
	FILE *f = fopen(path, "w");
	if (!f)
		return rp_cli_error("lab", "cannot write %s: %s", path, strerror(errno));
	summary(f, r);
	if (fclose(f) != 0)
		return rp_cli_error("lab", "cannot write %s: %s", path, strerror(errno));
	if (to_stdout) {
		summary(stdout, r);
		printf("\nresult: %s/result.json\nsummary: %s/summary.txt\nqueue depths: %s/qdepth.csv\n", dir, dir, dir);
	}
	return 0;
}

#undef one /* the writers' name for the run, above */

/* What lib/lab runs for the options given. */
static struct rp_lab_one_opts one_opts(const struct lab_opts *o)
{
	return (struct rp_lab_one_opts){.profile = o->profile, .sets = o->sets, .nsets = o->nsets,
					.allow_pause_storm = o->allow_pause_storm, .force = o->force,
					.capture = o->capture, .snaplen = o->snaplen, .capture_max = o->capture_max,
					.capture_rotate = o->capture_rotate, .bin_ns = o->bin_ns,
					.progress = o->quiet ? NULL : stderr, .notes = stderr, .stop = &rp_cli_stop};
}

/* One lab run into dir and its files; the headline numbers in *head. */
static int run_one(const struct lab_opts *o, const struct rp_lab_one_opts *lo, const char *dir, bool print,
		   struct rp_lab_headline *head)
{
	struct rp_lab_one r = {0};
	char err[RP_LAB_ONE_ERR];
	int rc = rp_lab_one_run(&r, lo, dir, err, sizeof(err)) ? rp_cli_error("lab", "%s", err) : 0;
	if (rc == 0)
		rc = write_result(&r, o, dir);
	if (rc == 0)
		rc = write_qdepth(&r, dir);
	if (rc == 0)
		rc = write_summary(&r, dir, print);
	if (rc == 0 && head)
		*head = r.head;
	rp_lab_one_free(&r);
	return rc;
}

/* A sweep's point (lib/lab/sweep_run.h): run_one, its error line kept in
 * err for the sweep to say. */
static int sweep_point(void *arg, const struct rp_lab_one_opts *lo, const char *dir, struct rp_lab_headline *h,
		       char *err, size_t errlen)
{
	rp_cli_hold_errors(err, errlen);
	int rc = run_one(arg, lo, dir, false, h);
	rp_cli_hold_errors(NULL, 0);
	return rc ? -1 : 0;
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
	if (o.nsweep)
		return run_sweep(&o);
	const struct rp_lab_one_opts lo = one_opts(&o);
	return run_one(&o, &lo, o.out, true, NULL);
}
