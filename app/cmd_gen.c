/* roceprobe gen: the profile's senders put RoCEv2 traffic on their DPDK ports. */
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "metrics/metrics.h"
#include "profile/profile.h"
#include "run/session.h"
#include "traffic/plan.h"
#include "traffic/source.h"

/* getopt_long's short options (rp_cli_bad_option names a bad one). */
static const char SHORTS[] = "d:s:e:l:jAh";

#define MAX_SETS 64

struct gen_opts {
	const char *profile;
	const char *sets[MAX_SETS];
	size_t nsets;
	double duration_s;
	const char *eal;
	bool no_telemetry;
	enum rp_dp_share share; /* --share / --exclusive */
	unsigned lcores;
	bool json;
	bool allow_pause_storm;
	bool no_preflight;
	struct rp_cli_metrics metrics;
};

static void usage(FILE *out)
{
	fputs("usage: roceprobe gen PROFILE [options]\n"
	      "\n"
	      "Sends the profile's traffic from every sending host's DPDK port: RoCEv2 RDMA\n"
	      "packets stamped with a unique PSN, probe sequence and TX timestamp and a valid\n"
	      "ICRC, paced per flow from the TSC, and PFC/PAUSE frames for `kind: pfc` entries.\n"
	      "Like a NIC it honours PFC and PAUSE received on the port: paused priorities stop\n"
	      "for quanta x 512 bit times at the host's speed, and paused time is counted.\n"
	      "Next hops without a MAC (gateway: without gateway_mac, mac: auto) are found by\n"
	      "ARP/ND before traffic and asked again every second (a new MAC moves their\n"
	      "flows); the ports answer ARP/ND for their hosts (as in run).\n"
	      "\n"
	      "  --duration S          stop after S seconds, or 500ms, 2s... (default: when\n"
	      "                        every flow is done)\n"
	      "  --set KEY=VALUE       override a profile key, e.g. --set traffic.0.rate=10G\n"
	      "  --eal \"ARGS\"          extra DPDK EAL arguments (ports come from the profile;\n"
	      "                        \"-l N\" picks the cores, default 0..lcores-1)\n"
	      "  --no-telemetry        no DPDK telemetry socket (on by default: while gen runs,\n"
	      "                        `dpdk-telemetry.py -f rpPID` reads its ports' counters)\n"
	      , out);
	rp_cli_share_help(out, 24);
	fputs(
	      "  --lcores N            TX lcores; ports are shared round-robin (default 1)\n"
	      "  --allow-pause-storm   accept PFC sources that could hold a port paused\n"
	      "  --no-preflight        skip doctor's checks at start (a FAIL stops gen with one\n"
	      "                        line, a WARN is a line; docs/doctor.md)\n"
	      "  --json                per-port and per-flow counters as JSON on stdout\n"
	      RP_CLI_METRICS_HELP
	      "\n"
	      "Per flow, Gbit/s L1 is over its active time (first to last packet, active ms);\n"
	      "a flow more than 1% short of its planned rate gets a warning line on stderr with\n"
	      "the likely cause (PFC pause, PMD limit, a TX core shared or overloaded). net_null\n"
	      "ports are opened with no-rx=1 (their RX returns garbage).\n"
	      "Progress goes to stderr once a second (\"gen 3.0s of 10.0s (30%), 7.0 s left | ...\":\n"
	      "the end is --duration, else the profile's last flow end); a set-up that takes\n"
	      "over a second names its stages (\"gen: set-up: ARP/ND (1.2 s in)\"). Ctrl-C stops\n"
	      "cleanly with final counters.\n"
	      "Without hugepages DPDK runs with --no-huge (fine for net_null, net_ring, net_pcap,\n"
	      "net_af_packet, net_af_xdp). Example:\n"
	      "  roceprobe gen profiles/incast-8to1.yaml --duration 2\n"
	      "  roceprobe gen p.yaml --set hosts.0.port=net_pcap0,tx_pcap=/tmp/out.pcap\n",
	      out);
}

static int parse_args(int argc, char **argv, struct gen_opts *o)
{
	static const struct option opts[] = {
		{"duration", required_argument, NULL, 'd'}, {"set", required_argument, NULL, 's'},
		{"eal", required_argument, NULL, 'e'},      {"lcores", required_argument, NULL, 'l'},
		{"json", no_argument, NULL, 'j'},           {"allow-pause-storm", no_argument, NULL, 'A'},
		{"help", no_argument, NULL, 'h'},           {"no-preflight", no_argument, NULL, 'P'},
		RP_CLI_METRICS_OPTIONS,
		RP_CLI_NO_TELEMETRY_OPTION,
		RP_CLI_SHARE_OPTIONS,
		{NULL, 0, NULL, 0},
	};
	*o = (struct gen_opts){.lcores = 1};
	int c;
	uint64_t v;
	optind = 1;
	while ((c = getopt_long(argc, argv, SHORTS, opts, NULL)) != -1) {
		int rc = 0;
		if (rp_cli_share("gen", c, &o->share, &rc)) {
			if (rc)
				return rc;
			continue;
		}
		switch (c) {
		case 'd':
			if (rp_cli_duration("gen", "--duration", optarg, 1e7, &o->duration_s))
				return RP_EXIT_USAGE;
			break;
		case 's':
			if (o->nsets == MAX_SETS)
				return rp_cli_error("gen", "at most %d --set options", MAX_SETS);
			o->sets[o->nsets++] = optarg;
			break;
		case 'e':
			o->eal = optarg;
			break;
		case RP_CLI_OPT_NO_TELEMETRY:
			o->no_telemetry = true;
			break;
		case 'l':
			if (rp_cli_uint("gen", "--lcores", optarg, 1, 64, &v))
				return RP_EXIT_USAGE;
			o->lcores = (unsigned)v;
			break;
		case 'j':
			o->json = true;
			break;
		case 'A':
			o->allow_pause_storm = true;
			break;
		case 'P':
			o->no_preflight = true;
			break;
		case RP_CLI_OPT_METRICS:
		case RP_CLI_OPT_METRICS_KEY:
		case RP_CLI_OPT_METRICS_LINGER:
			if (rp_cli_metrics_opt("gen", c, optarg, &o->metrics))
				return RP_EXIT_USAGE;
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			return rp_cli_bad_option("gen", SHORTS);
		}
	}
	if (optind != argc - 1)
		return rp_cli_error("gen", "expected one profile (try 'roceprobe gen --help')");
	o->profile = argv[optind];
	return 0;
}

static json_t *prio_json(const struct rp_pause *p, unsigned prio, uint64_t end_ns)
{
	const struct rp_pause_prio *q = &p->prio[prio];
	json_t *first = q->first_pause_ns == RP_PAUSE_NEVER ? json_null() : json_integer((json_int_t)q->first_pause_ns);
	return json_pack("{s:i, s:I, s:I, s:I, s:I, s:o}", "prio", prio, "pfc_rx", (json_int_t)q->frames,
			 "quanta_rx", (json_int_t)q->quanta, "paused_ns", (json_int_t)rp_pause_paused_ns(p, prio, end_ns),
			 "xoff_to_xon", (json_int_t)q->xoff_to_xon, "first_pause_ns", first);
}

static json_t *port_json(const struct rp_session *r, unsigned i, uint64_t end_ns)
{
	const struct rp_dp_txport *tp = &r->tx[i];
	const struct rp_host *host = &r->prof->hosts[tp->index];
	json_t *prios = json_array();
	for (unsigned p = 0; p < RP_PFC_PRIOS; p++)
		json_array_append_new(prios, prio_json(&tp->pause, p, end_ns));
	return json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:f, s:f, s:I, s:I, s:I, s:I, s:o, s:o}", "node", host->name,
			 "port", tp->port->name, "driver", tp->port->driver, "link_bps", (json_int_t)host->speed_bps,
			 "pmd_link_bps", (json_int_t)tp->port->link_bps, "tx_packets", (json_int_t)tp->tx_packets,
			 "tx_bytes", (json_int_t)tp->tx_bytes, "tx_mpps",
			 end_ns ? (double)tp->tx_packets * 1e3 / (double)end_ns : 0.0, "tx_gbps_l1",
			 rp_l1_gbps(tp->tx_packets, tp->tx_bytes, end_ns), "rx_pfc", (json_int_t)tp->rx_pfc, "rx_pause",
			 (json_int_t)tp->rx_pause, "tx_queue_full", (json_int_t)tp->tx_full, "tx_unsent", (json_int_t)tp->tx_unsent, "prio", prios,
			 "neigh", rp_session_neigh_json(tp));
}

/* tx_gbps_l1: a flow's rate from its planned start to the end of the run
 * (idle time after its last packet included); active_gbps_l1: over its
 * first to last packet. */
static json_t *flow_json(const struct rp_session *r, const struct rp_source_flow_stats *st, uint64_t end_ns)
{
	const struct rp_flow *f = &r->plan.flows[st->flow_id];
	uint64_t start = f->p.start_ns, active = end_ns > start ? end_ns - start : 0;
	json_t *o = json_pack("{s:I, s:s, s:s, s:s, s:i, s:i, s:i, s:I, s:I, s:I, s:I, s:I, s:f, s:f, s:b}", "id",
			 (json_int_t)f->id, "kind", f->kind == RP_TRAFFIC_PFC ? "pfc" : "rdma", "src",
			 r->prof->hosts[f->src].name, "dst", f->kind == RP_TRAFFIC_PFC ? "" : r->prof->hosts[f->dst].name,
			 "dscp", f->p.dscp, "ecn", f->p.ecn, "prio", f->prio, "qpn", (json_int_t)f->rqpn, "tx_packets",
			 (json_int_t)st->tx_packets, "tx_bytes", (json_int_t)st->tx_bytes, "tx_messages",
			 (json_int_t)st->tx_messages, "tx_payload", (json_int_t)st->tx_payload, "target_gbps",
			 (double)f->rate_bps / 1e9, "tx_gbps_l1", rp_l1_gbps(st->tx_packets, st->tx_bytes, active), "done",
			 st->done);
	/* Over the flow's own active time, first to last packet, and what the plan
	 * asks over it (the rate times the duty cycle of bursts or phases). */
	json_object_set_new(o, "first_tx_ns", json_integer((json_int_t)st->first_tx_ns));
	json_object_set_new(o, "last_tx_ns", json_integer((json_int_t)st->last_tx_ns));
	json_object_set_new(o, "active_ns", json_integer((json_int_t)rp_flow_active_ns(st)));
	json_object_set_new(o, "active_gbps_l1", json_real(rp_flow_active_gbps(st)));
	json_object_set_new(o, "planned_gbps_l1", json_real(rp_flow_planned_gbps(f, st)));
	return o;
}

static void report_json(const struct rp_session *r)
{
	uint64_t end = r->g.end_ns;
	json_t *ports = json_array(), *flows = json_array();
	for (unsigned i = 0; i < r->nports; i++) {
		json_array_append_new(ports, port_json(r, i, end));
		for (size_t k = 0; r->tx[i].src && k < rp_source_nflows(r->tx[i].src); k++) {
			struct rp_source_flow_stats st;
			rp_source_flow_stats(r->tx[i].src, k, &st);
			json_array_append_new(flows, flow_json(r, &st, end));
		}
	}
	json_t *o = json_pack("{s:s, s:s, s:I, s:b, s:o, s:o}", "schema", "roceprobe.gen/1", "profile",
			      r->prof->name, "elapsed_ns", (json_int_t)end, "interrupted", rp_cli_stop, "ports",
			      ports, "flows", flows);
	json_dumpf(o, stdout, JSON_PRESERVE_ORDER | JSON_INDENT(1));
	fputc('\n', stdout);
	json_decref(o);
}

static void report_text(const struct rp_session *r)
{
	uint64_t end = r->g.end_ns;
	printf("roceprobe gen: %s, %.3f s%s\n", r->prof->name, (double)end / 1e9, rp_cli_stop ? " (interrupted)" : "");
	printf("%-10s %-16s %14s %16s %9s %10s %8s %s\n", "host", "port", "tx packets", "tx bytes", "Mpps",
	       "Gbit/s L1", "PFC rx", "paused ns by prio");
	for (unsigned i = 0; i < r->nports; i++) {
		const struct rp_dp_txport *tp = &r->tx[i];
		printf("%-10s %-16s %14" PRIu64 " %16" PRIu64 " %9.3f %10.3f %8" PRIu64 " ",
		       rp_session_host(r, tp), tp->port->name, tp->tx_packets, tp->tx_bytes,
		       end ? (double)tp->tx_packets * 1e3 / (double)end : 0.0, rp_l1_gbps(tp->tx_packets, tp->tx_bytes, end),
		       tp->rx_pfc + tp->rx_pause);
		for (unsigned p = 0; p < RP_PFC_PRIOS; p++)
			printf("%s%" PRIu64, p ? "/" : "", rp_pause_paused_ns(&tp->pause, p, end));
		putchar('\n');
	}
	printf("\n%-5s %-10s %-10s %4s %4s %14s %16s %10s %10s %10s\n", "flow", "src", "dst", "prio", "dscp",
	       "tx packets", "tx bytes", "target", "Gbit/s L1", "active ms");
	for (unsigned i = 0; i < r->nports; i++)
		for (size_t k = 0; r->tx[i].src && k < rp_source_nflows(r->tx[i].src); k++) {
			struct rp_source_flow_stats st;
			rp_source_flow_stats(r->tx[i].src, k, &st);
			const struct rp_flow *f = &r->plan.flows[st.flow_id];
			printf("%-5u %-10s %-10s %4u %4u %14" PRIu64 " %16" PRIu64 " %10.3f %10.3f %10.3f\n", f->id,
			       r->prof->hosts[f->src].name, f->kind == RP_TRAFFIC_PFC ? "(pfc)" : r->prof->hosts[f->dst].name,
			       f->prio, f->p.dscp, st.tx_packets, st.tx_bytes, (double)f->rate_bps / 1e9,
			       rp_flow_active_gbps(&st), (double)rp_flow_active_ns(&st) / 1e6);
		}
	printf("(Gbit/s L1 per flow: over its active time, first to last packet; the port rows: over the run)\n");
	for (unsigned i = 0; i < r->nports; i++)
		if (r->tx[i].refresh.n) {
			putchar('\n');
			rp_session_print_next_hops(r, stdout);
			break;
		}
}

int rp_cmd_gen(int argc, char **argv)
{
	struct gen_opts o;
	int rc = parse_args(argc, argv, &o);
	if (rc != 0)
		return rc < 0 ? RP_EXIT_OK : rc;

	static struct rp_session r;
	struct rp_session_opts so = {.sets = o.sets, .nsets = o.nsets, .allow_pause_storm = o.allow_pause_storm,
				     .eal = o.eal, .no_telemetry = o.no_telemetry, .share = o.share, .lcores = o.lcores,
				     .no_preflight = o.no_preflight};
	/* Caught from here on: a Ctrl-C during set-up also ends through rp_session_close. */
	rp_cli_catch_stop();
	struct rp_metrics *mx;
	if ((rc = rp_cli_metrics_start("gen", &o.metrics, 0, &mx)) != 0)
		return rc;
	rc = rp_session_open(&r, "gen", o.profile, &so);
	if (rc != 0) {
		if (r.err[0])
			rp_cli_error("gen", "%s", r.err);
		rp_cli_metrics_end("gen", &o.metrics, mx, false);
		rp_session_close(&r);
		return rc;
	}
	r.g = (struct rp_dp_gen){.ports = r.tx, .n_ports = r.nports, .n_lcores = o.lcores,
				 .duration_ns = (uint64_t)(o.duration_s * 1e9), .stop = &rp_cli_stop,
				 .progress = rp_session_progress, .progress_arg = &r, .who = "gen"};
	rp_dp_clock_start();
	rp_cli_metrics_off_lcores(mx);
	rp_metrics_collect(mx, rp_session_metrics, &r);
	if (rp_dp_gen_run(&r.g) != 0) { /* fewer lcores than asked (said on stderr): nothing sent */
		rp_cli_metrics_end("gen", &o.metrics, mx, false);
		rp_session_close(&r);
		return RP_EXIT_USAGE;
	}

	if (o.json)
		report_json(&r);
	else
		report_text(&r);
	fflush(stdout);
	rp_session_warn_rates(&r, stderr, NULL);
	rp_cli_metrics_end("gen", &o.metrics, mx, true); /* the counts above, final */
	rp_session_close(&r);
	return RP_EXIT_OK;
}
