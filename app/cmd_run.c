/* roceprobe run: the profile's senders and receivers on their DPDK ports in
 * one process; loss, latency, ECN/CNP and PFC accounted; result.json,
 * summary.txt and an optional capture written to a directory. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <rte_version.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "dp/capture.h"
#include "dp/rx.h"
#include "report/result.h"
#include "session.h"
#include "stats/acct.h"
#include "traffic/acct_cfg.h"
#include "traffic/source.h"

#define MAX_SETS 64
#define LINGER_NS 20000000ull
#define RUN_XSTATS 32 /* in-flight frames arrive after the last send */

struct run_opts {
	const char *profile;
	const char *out;
	const char *sets[MAX_SETS];
	size_t nsets;
	double duration_s;
	const char *eal;
	bool allow_pause_storm;
	bool capture;
	bool force;
	unsigned snaplen;
	enum rp_capture_filter filter;
	unsigned sample;
	uint64_t bin_ns;
};

static void usage(FILE *out)
{
	fputs("usage: roceprobe run PROFILE -o DIR [options]\n"
	      "\n"
	      "Runs the profile's generators and receivers on their DPDK ports in one process\n"
	      "(one lcore): senders as in `roceprobe gen`; every port's RX is accounted per flow\n"
	      "(a data frame counts as received only at its destination host's port, else it is\n"
	      "misdelivered: a net_ring port is a loopback; loss exact at the end as sent minus\n"
	      "received after draining what is in flight, reordering, duplicates, CE marks,\n"
	      "latency from the probe's TX timestamp: all ports share one clock), per port and\n"
	      "priority (PFC/PAUSE frames, quanta, paused time, XOFF->XON); hosts with\n"
	      "`respond:` answer as a RoCE NIC (CNP on CE, ACK, NAK on a PSN gap); hosts with\n"
	      "`impair:` drop, mark or delay on purpose. Writes DIR/result.json (atomically,\n"
	      "\"schema\":\"roceprobe.result/1\"), DIR/summary.txt and with --capture\n"
	      "DIR/capture-HOST.pcap per port (its TX and RX, nanosecond timestamps).\n"
	      "Gbit/s per flow is goodput over its active time (first to last frame); a flow\n"
	      "sent more than 1% below its rate gets a warning with the likely cause.\n"
	      "Routed hosts (ipv4: 10.1.0.2/24, gateway:): next hops without gateway_mac (and\n"
	      "on-link hosts with mac: auto) are found by ARP/ND on the port before any traffic\n"
	      "(3 tries in 1 s); every port answers ARP and Neighbour Solicitations for its host,\n"
	      "probes and announces its addresses on a shared wire (a duplicate exits 2).\n"
	      "\n"
	      "  -o, --out DIR          result directory (created with its parents; refused\n"
	      "                         when not empty, unless --force)\n"
	      "  --force                reuse a non-empty DIR: its roceprobe files are removed\n"
	      "  --duration S           stop after S seconds or 500ms, 2s... (default: when\n"
	      "                         every flow is done)\n"
	      "  --set KEY=VALUE        override a profile key\n"
	      "  --eal \"ARGS\"           extra DPDK EAL arguments\n"
	      "  --capture              write DIR/capture-HOST.pcap for every port\n"
	      "  --snaplen N            bytes kept per captured frame (default 128)\n"
	      "  --capture-filter F     all, roce (RoCE + control) or control (default all)\n"
	      "  --sample N             capture 1 in N data frames (control frames always)\n"
	      "  --bin-us N             time series bin (default 100)\n"
	      "  --allow-pause-storm    accept PFC sources that could hold a port paused\n"
	      "\n"
	      "Wire two hosts back to back with `port: pair:LINK:0` and `pair:LINK:1`.\n"
	      "Example: roceprobe run profiles/back-to-back.yaml -o results/back-to-back --capture\n",
	      out);
}

static int parse_filter(const char *s, enum rp_capture_filter *f)
{
	if (!strcmp(s, "all"))
		*f = RP_CAPTURE_ALL;
	else if (!strcmp(s, "roce"))
		*f = RP_CAPTURE_ROCE;
	else if (!strcmp(s, "control"))
		*f = RP_CAPTURE_CONTROL;
	else
		return rp_cli_error("run", "--capture-filter: expected all, roce or control, got '%s'", s);
	return 0;
}

static int parse_args(int argc, char **argv, struct run_opts *o)
{
	static const struct option opts[] = {
		{"out", required_argument, NULL, 'o'},      {"duration", required_argument, NULL, 'd'},
		{"set", required_argument, NULL, 's'},      {"eal", required_argument, NULL, 'e'},
		{"capture", no_argument, NULL, 'c'},        {"snaplen", required_argument, NULL, 'n'},
		{"capture-filter", required_argument, NULL, 'f'}, {"sample", required_argument, NULL, 'S'},
		{"bin-us", required_argument, NULL, 'b'},   {"allow-pause-storm", no_argument, NULL, 'A'},
		{"force", no_argument, NULL, 'F'},          {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	*o = (struct run_opts){.snaplen = RP_CAPTURE_SNAPLEN_DEFAULT, .sample = 1, .bin_ns = 100000};
	int c, rc = 0;
	uint64_t v = 0;
	optind = 1;
	while (rc == 0 && (c = getopt_long(argc, argv, "o:d:s:e:cn:f:S:b:AFh", opts, NULL)) != -1) {
		switch (c) {
		case 'o': o->out = optarg; break;
		case 'd': rc = rp_cli_duration("run", "--duration", optarg, 1e7, &o->duration_s); break;
		case 's':
			if (o->nsets == MAX_SETS)
				return rp_cli_error("run", "at most %d --set options", MAX_SETS);
			o->sets[o->nsets++] = optarg;
			break;
		case 'e': o->eal = optarg; break;
		case 'c': o->capture = true; break;
		case 'n': rc = rp_cli_uint("run", "--snaplen", optarg, 64, RP_CAPTURE_SNAPLEN_MAX, &v); o->snaplen = (unsigned)v; break;
		case 'f': rc = parse_filter(optarg, &o->filter); break;
		case 'S': rc = rp_cli_uint("run", "--sample", optarg, 1, 1000000, &v); o->sample = (unsigned)v; break;
		case 'b': rc = rp_cli_uint("run", "--bin-us", optarg, 1, 10000000, &v); o->bin_ns = v * 1000; break;
		case 'A': o->allow_pause_storm = true; break;
		case 'F': o->force = true; break;
		case 'h': usage(stdout); return -1;
		default: return rp_cli_error("run", "bad option (try 'roceprobe run --help')");
		}
	}
	if (rc)
		return rc;
	if (optind != argc - 1)
		return rp_cli_error("run", "expected one profile (try 'roceprobe run --help')");
	if (!o->out)
		return rp_cli_error("run", "-o DIR is required: where result.json and summary.txt go");
	o->profile = argv[optind];
	return 0;
}

struct run {
	struct rp_session s;
	struct rp_acct_cfg acfg;
	uint32_t *flow_of; /* accountant flow -> plan flow */
	struct rp_acct *acct;
	struct rp_dp_rx rx;
	struct rp_capture_stats cap_stats[RP_DP_MAX_PORTS]; /* by port */
	struct rp_dp_xstat xstats[RP_DP_MAX_PORTS][RUN_XSTATS]; /* before the run */
	unsigned nxstats[RP_DP_MAX_PORTS];
	time_t started;
};

static uint64_t max_delay(const struct rp_profile *p)
{
	uint64_t d = 0;
	for (size_t h = 0; h < p->nhosts; h++)
		d = p->hosts[h].impair.delay_ns > d ? p->hosts[h].impair.delay_ns : d;
	return d;
}

static int setup_rx(struct run *r, const struct run_opts *o)
{
	char err[512];
	if (rp_acct_cfg_from_plan(&r->s.plan, &r->acfg, &r->flow_of, err, sizeof(err)) != 0)
		return rp_cli_error("run", "%s", err);
	r->acfg.latency = true;
	r->acfg.track_psn = true;
	r->acfg.dst_port_check = true; /* received = arrived at the destination host's port */
	r->acfg.bin_ns = o->bin_ns;
	if (o->duration_s > 0 && (uint64_t)(o->duration_s * 1e9) < r->acfg.run_ns)
		r->acfg.run_ns = (uint64_t)(o->duration_s * 1e9);
	/* A loaded machine runs late: bins for twice the plan and a second more,
	 * so the series holds the whole run (later events are still counted). */
	r->acfg.run_ns = 2 * (r->acfg.run_ns + LINGER_NS + max_delay(r->s.prof)) + 1000000000ull;
	r->acct = rp_acct_create(&r->acfg, err, sizeof(err));
	if (!r->acct)
		return rp_cli_error("run", "%s", err);
	r->rx.acct = r->acct;
	for (unsigned i = 0; i < r->s.nports; i++) {
		unsigned h = r->s.tx[i].index;
		struct rp_dp_rxport *rp = &r->rx.ports[h];
		rp_impair_init(&rp->impair, &r->s.prof->hosts[h].impair);
		if (rp->impair.cfg.delay_ns && !(rp->hold = calloc(1, sizeof(*rp->hold))))
			return rp_cli_error("run", "out of memory");
	}
	for (unsigned i = 0; o->capture && i < r->s.nports; i++) {
		unsigned h = r->s.tx[i].index;
		char path[4096];
		snprintf(path, sizeof(path), "%s/capture-%s.pcap", o->out, r->s.prof->hosts[h].name);
		struct rp_capture_cfg cc = {.path = path, .snaplen = o->snaplen, .filter = o->filter,
					    .sample_every = o->sample};
		r->rx.ports[h].cap = rp_capture_open(&cc, err, sizeof(err));
		if (!r->rx.ports[h].cap)
			return rp_cli_error("run", "%s", err);
	}
	return 0;
}

/* The accountant learns what each flow sent from the sources. */
static void finish_accounting(struct run *r)
{
	size_t n = rp_acct_nflows(r->acct);
	uint64_t *sent = calloc(n ? n : 1, sizeof(*sent));
	for (size_t i = 0; i < r->s.nports; i++) {
		const struct rp_source *src = r->s.tx[i].src;
		for (size_t k = 0; src && k < rp_source_nflows(src); k++) {
			struct rp_source_flow_stats st;
			rp_source_flow_stats(src, k, &st);
			for (size_t a = 0; a < n; a++)
				if (r->flow_of[a] == st.flow_id) {
					rp_acct_set_tx(r->acct, a, st.probes ? st.probes : st.tx_packets, st.tx_bytes);
					sent[a] = st.probes ? st.probes : st.tx_packets;
				}
		}
	}
	rp_acct_finish(r->acct, r->s.g.end_ns, sent);
	free(sent);
}

static void snapshot_xstats(struct run *r)
{
	for (unsigned i = 0; i < r->s.nports; i++)
		r->nxstats[i] = rp_dp_port_pause_xstats(r->s.tx[i].port, r->xstats[i], RUN_XSTATS);
}

/* The PMD's own pause counters, as changes over the run. */
static json_t *xstats_json(const struct run *r, unsigned i)
{
	struct rp_dp_xstat now[RUN_XSTATS];
	unsigned n = rp_dp_port_pause_xstats(r->s.tx[i].port, now, RUN_XSTATS);
	json_t *o = json_object();
	for (unsigned k = 0; k < n; k++) {
		uint64_t before = 0;
		for (unsigned b = 0; b < r->nxstats[i]; b++)
			if (!strcmp(r->xstats[i][b].name, now[k].name))
				before = r->xstats[i][b].value;
		json_object_set_new(o, now[k].name, json_integer((json_int_t)(now[k].value - before)));
	}
	return o;
}

static json_t *environment_json(const struct run *r)
{
	json_t *ports = json_array();
	for (unsigned i = 0; i < r->s.nports; i++) {
		const struct rp_dp_txport *tp = &r->s.tx[i];
		const struct rp_dp_rxport *rp = &r->rx.ports[tp->index];
		json_array_append_new(
			ports, json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o}", "node",
					 rp_session_host(&r->s, tp), "devargs", tp->port->name, "driver", tp->port->driver,
					 "link_bps", (json_int_t)r->s.prof->hosts[tp->index].speed_bps, "pmd_link_bps",
					 (json_int_t)tp->port->link_bps, "tx_packets", (json_int_t)tp->tx_packets,
					 "tx_bytes", (json_int_t)tp->tx_bytes, "tx_unsent", (json_int_t)tp->tx_unsent,
					 "impair_dropped", (json_int_t)rp->impair.dropped, "impair_marked",
					 (json_int_t)rp->impair.marked, "replies_sent", (json_int_t)rp->replies_sent,
					 "pause_xstats", xstats_json(r, i)));
		json_object_set_new(json_array_get(ports, json_array_size(ports) - 1), "neigh", rp_session_neigh_json(tp));
	}
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	char started[32];
	strftime(started, sizeof(started), "%Y-%m-%dT%H:%M:%SZ", gmtime(&r->started));
	return json_pack("{s:s, s:s, s:s, s:s, s:o}", "roceprobe", RP_VERSION, "dpdk", rte_version(), "hostname", host,
			 "started", started, "ports", ports);
}

static json_t *capture_json(const struct run *r, const struct run_opts *o)
{
	if (!o->capture)
		return json_null();
	json_t *files = json_array();
	for (unsigned i = 0; i < r->s.nports; i++) {
		const struct rp_capture_stats *c = &r->cap_stats[i];
		char name[128];
		snprintf(name, sizeof(name), "capture-%s.pcap", rp_session_host(&r->s, &r->s.tx[i]));
		json_array_append_new(files, json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I}", "node",
						       rp_session_host(&r->s, &r->s.tx[i]), "path", name, "offered",
						       (json_int_t)c->offered, "written", (json_int_t)c->written,
						       "dropped", (json_int_t)c->dropped, "sampled_out",
						       (json_int_t)c->sampled_out, "files", (json_int_t)c->files));
	}
	return files;
}

static int write_result(const struct run *r, const struct run_opts *o)
{
	json_t *prof = json_pack("{s:s, s:s}", "name", r->s.prof->name, "path", o->profile);
	json_t *root = json_pack("{s:s, s:s, s:o, s:o, s:I, s:b, s:o, s:o, s:o, s:o}", "schema", "roceprobe.result/1",
				 "kind", "dpdk", "profile", prof, "environment", environment_json(r), "elapsed_ns",
				 (json_int_t)r->s.g.end_ns, "interrupted", rp_cli_stop, "flows",
				 rp_report_flows(r->acct), "ports", rp_report_ports(r->acct), "timeseries",
				 rp_report_timeseries(r->acct), "capture", capture_json(r, o));
	char path[4096], err[512];
	snprintf(path, sizeof(path), "%s/result.json", o->out);
	int rc = rp_report_write_atomic(path, root, err, sizeof(err));
	json_decref(root);
	return rc ? rp_cli_error("run", "%s", err) : 0;
}

static void summary(FILE *f, const struct run *r)
{
	fprintf(f, "roceprobe run: %s, %.3f s%s\n\n", r->s.prof->name, (double)r->s.g.end_ns / 1e9,
		rp_cli_stop ? " (interrupted)" : "");
	fprintf(f, "%-4s %-8s %-8s %4s %10s %10s %8s %6s %6s %6s %6s %9s %10s %10s %10s %10s\n", "flow", "src", "dst",
		"prio", "tx", "rx", "lost", "reord", "dup", "ce", "cnp", "Gbit/s", "active ms", "p50 ns", "p99 ns",
		"max ns");
	for (size_t i = 0; i < rp_acct_nflows(r->acct); i++) {
		struct rp_acct_flow_result x;
		rp_acct_flow(r->acct, i, &x);
		fprintf(f, "%-4u %-8s %-8s %4u %10" PRIu64 " %10" PRIu64 " %8" PRIu64 " %6" PRIu64 " %6" PRIu64 " %6" PRIu64
			   " %6" PRIu64 " %9.3f %10.3f %10" PRIu64 " %10" PRIu64 " %10" PRIu64 "\n",
			x.id, x.src, x.dst, x.prio, x.tx_packets, x.rx_packets, x.lost, x.reordered, x.duplicates, x.ce,
			x.cnp_tx, x.goodput_active_gbps, (double)x.active_ns / 1e6, x.latency_ns.pct[0],
			x.latency_ns.pct[2], x.latency_ns.max);
	}
	fputs("(Gbit/s: unique payload over the flow's active time, its first to last frame received)\n", f);
	fprintf(f, "\n%-8s %10s %10s %8s %8s %12s %s\n", "port", "rx", "misdeliv", "PFC rx", "PFC tx", "paused ns",
		"(by priority: paused ns)");
	uint64_t misdelivered = 0;
	for (size_t i = 0; i < rp_acct_nports(r->acct); i++) {
		struct rp_acct_port_result p;
		rp_acct_port(r->acct, i, &p);
		misdelivered += p.misdelivered;
		if (!p.rx_frames && !p.pfc_frames)
			continue;
		uint64_t paused = 0, pfc_tx = 0, pfc_rx = 0;
		for (int q = 0; q < 8; q++) {
			paused = p.prio[q].paused_ns > paused ? p.prio[q].paused_ns : paused;
			pfc_tx += p.prio[q].pfc_tx;
			pfc_rx += p.prio[q].pfc_rx;
		}
		fprintf(f, "%-8s %10" PRIu64 " %10" PRIu64 " %8" PRIu64 " %8" PRIu64 " %12" PRIu64 " ", p.node, p.rx_frames,
			p.misdelivered, pfc_rx, pfc_tx, paused);
		for (int q = 0; q < 8; q++)
			fprintf(f, "%s%" PRIu64, q ? "/" : "", p.prio[q].paused_ns);
		fputc('\n', f);
	}
	if (misdelivered)
		fprintf(f, "\nMISDELIVERED: %" PRIu64 " data frames arrived at a port that is not their destination "
			   "host's and count as lost (misdeliv above): a loopback port (net_ring) or a fabric that "
			   "misroutes\n", misdelivered);
	if (rp_session_warn_rates(&r->s, NULL) > 0) {
		fputc('\n', f);
		rp_session_warn_rates(&r->s, f);
	}
	for (unsigned i = 0; i < r->s.nports; i++)
		if (r->cap_stats[i].offered)
			fprintf(f, "%scapture-%s.pcap: %" PRIu64 " frames written, %" PRIu64 " dropped by the writer\n",
				i ? "" : "\n", rp_session_host(&r->s, &r->s.tx[i]), r->cap_stats[i].written,
				r->cap_stats[i].dropped);
}

static int write_summary(const struct run *r, const struct run_opts *o)
{
	char path[4096], tmp[4200];
	snprintf(path, sizeof(path), "%s/summary.txt", o->out);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f)
		return rp_cli_error("run", "cannot write %s: %s", tmp, strerror(errno));
	summary(f, r);
	if (fclose(f) != 0 || rename(tmp, path) != 0)
		return rp_cli_error("run", "cannot write %s: %s", path, strerror(errno));
	summary(stdout, r);
	printf("\nresult: %s/result.json\nsummary: %s/summary.txt\n", o->out, o->out);
	fflush(stdout);
	rp_session_warn_rates(&r->s, stderr);
	return 0;
}

/* Flushed and closed before result.json is written, so its counts are final. */
static void close_captures(struct run *r)
{
	for (unsigned i = 0; i < r->s.nports; i++) {
		struct rp_dp_rxport *rp = &r->rx.ports[r->s.tx[i].index];
		if (rp->cap) {
			char err[256];
			rp_capture_close(rp->cap, &r->cap_stats[i], err, sizeof(err));
			rp->cap = NULL;
		}
	}
}

static void cleanup(struct run *r)
{
	close_captures(r);
	for (unsigned i = 0; i < RP_DP_MAX_PORTS; i++)
		free(r->rx.ports[i].hold);
	rp_acct_destroy(r->acct);
	rp_acct_cfg_free(&r->acfg);
	free(r->flow_of);
	rp_session_close(&r->s);
}

int rp_cmd_run(int argc, char **argv)
{
	struct run_opts o;
	int rc = parse_args(argc, argv, &o);
	if (rc != 0)
		return rc < 0 ? RP_EXIT_OK : rc;
	static struct run r;
	struct rp_session_opts so = {.sets = o.sets, .nsets = o.nsets, .allow_pause_storm = o.allow_pause_storm,
				     .receivers = true, .eal = o.eal, .lcores = 1, .defer_traffic = true};
	/* Caught from here on: a Ctrl-C during set-up also ends through cleanup(). */
	rp_cli_catch_stop();
	/* The profile is checked before DIR is made: bad input leaves nothing behind. */
	rc = rp_cli_outdir_check("run", o.out, o.force);
	if (rc == 0)
		rc = rp_session_open(&r.s, "run", o.profile, &so);
	if (rc == 0)
		rc = rp_cli_outdir("run", o.out, o.force);
	if (rc == 0) {
		rp_dp_clock_start();
		rc = setup_rx(&r, &o);
	}
	if (rc == 0) { /* ARP/ND before traffic, into the captures too */
		struct rp_capture *caps[RP_DP_MAX_PORTS];
		for (unsigned i = 0; i < r.s.nports; i++)
			caps[i] = r.rx.ports[r.s.tx[i].index].cap;
		rc = rp_session_traffic(&r.s, caps);
	}
	if (rc != 0) {
		cleanup(&r);
		return rc;
	}
	r.started = time(NULL);
	snapshot_xstats(&r);
	/* Plan time 0 is now, not before the set-up (opening captures takes ~50 ms:
	 * a PFC source's first frames would be that late and skipped). */
	rp_dp_clock_start();
	for (unsigned i = 0; i < r.s.nports; i++)
		if (r.rx.ports[r.s.tx[i].index].cap)
			rp_capture_clock_restarted(r.rx.ports[r.s.tx[i].index].cap);
	r.s.g = (struct rp_dp_gen){.ports = r.s.tx, .n_ports = r.s.nports, .n_lcores = 1,
				   .duration_ns = (uint64_t)(o.duration_s * 1e9), .stop = &rp_cli_stop,
				   .progress = rp_session_progress, .progress_arg = &r.s, .rx = &r.rx,
				   .linger_ns = LINGER_NS + max_delay(r.s.prof)};
	rp_dp_gen_run(&r.s.g);
	finish_accounting(&r);
	close_captures(&r);
	rc = write_result(&r, &o);
	if (rc == 0)
		rc = write_summary(&r, &o);
	cleanup(&r);
	return rc;
}
