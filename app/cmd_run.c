/* roceprobe run: the profile's senders and receivers on their DPDK ports in
 * one process; loss, latency, ECN/CNP and PFC accounted; result.json,
 * summary.txt and an optional capture written to a directory. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dp/dp.h"
#include "run/run.h"
#include "run/steps.h"

/* getopt_long's short options (rp_cli_bad_option names a bad one). */
static const char SHORTS[] = "o:d:s:e:cn:f:S:b:AFh";

#define MAX_SETS 64

struct run_opts {
	const char *profile;
	const char *out;
	const char *sets[MAX_SETS];
	size_t nsets;
	double duration_s;
	const char *eal;
	bool no_telemetry;
	enum rp_dp_share share; /* --share / --exclusive */
	enum rp_dp_rx_clock rx_clock; /* --rx-clock */
	enum rp_dp_tx_start tx_start; /* --tx-start */
	bool allow_pause_storm;
	bool capture;
	bool force;
	unsigned snaplen;
	enum rp_capture_filter filter;
	unsigned sample;
	uint64_t bin_ns; /* 0: the default (VERBS_BIN_NS for all-verbs plans, else 100 us) */
	uint64_t neigh_refresh_ns; /* 0: the default; RP_SESSION_NO_REFRESH: off */
	unsigned lcores; /* 0: the profile's `lcores:`, else 1 */
	uint64_t idle_ns; /* --idle-us: a DPDK pass that moved no frame sleeps this long (0: spin) */
	bool no_preflight;
	uint64_t counter_interval_ns; /* --counter-interval: NIC counters sampled this often (0: off) */
	struct rp_cli_metrics metrics;
};

static void usage(FILE *out)
{
	fputs("usage: roceprobe run PROFILE -o DIR [options]\n"
	      "\n"
	      "Runs the profile's generators and receivers on their DPDK ports in one process\n"
	      "(one lcore, or --lcores N): senders as in `roceprobe gen`; every port's RX is accounted per flow\n"
	      "(a data frame counts as received only at its destination host's port, else it is\n"
	      "misdelivered: a net_ring port is a loopback; loss exact at the end as sent minus\n"
	      "received after draining what is in flight, reordering, duplicates, CE marks,\n"
	      "latency from the probe's TX timestamp: all ports share one clock), per port and\n"
	      "priority (PFC/PAUSE frames, quanta, paused time, XOFF->XON); hosts with\n"
	      "`respond:` answer as a RoCE NIC (CNP on CE, ACK, NAK on a PSN gap); hosts with\n"
	      "`impair:` drop, mark or delay on purpose. Writes DIR/result.json (atomically,\n"
	      "\"schema\":\"roceprobe.result/1\"), DIR/summary.txt and with --capture\n"
	      "DIR/capture-HOST.pcap per port (its TX and RX, nanosecond timestamps). Beyond\n"
	      "4096 flows the flows and the pair matrix go to DIR/flows.jsonl and DIR/pairs.jsonl\n"
	      "(a line each) and result.json keeps their totals (flows_summary, docs/results.md).\n"
	      "Gbit/s per flow is goodput over its active time (first to last frame); a flow\n"
	      "sent more than 1% below its rate gets a warning with the likely cause.\n"
	      "Routed hosts (ipv4: 10.1.0.2/24, gateway:): next hops without gateway_mac (and\n"
	      "on-link hosts with mac: auto) are found by ARP/ND on the port before any traffic\n"
	      "(3 tries in 1 s); every port answers ARP and Neighbour Solicitations for its host,\n"
	      "probes and announces its addresses on a shared wire (a duplicate exits 2).\n"
	      "During the run each resolved next hop is asked again every second (ARP request,\n"
	      "NS; --neigh-refresh): when it answers from a new MAC its flows move to it\n"
	      "(environment.ports[].neigh.mac_changes and next_hops, and a summary line).\n"
	      "\n"
	      "  -o, --out DIR          result directory (created with its parents; refused\n"
	      "                         when not empty, unless --force)\n"
	      "  --force                reuse a non-empty DIR: its roceprobe files are removed\n"
	      "  --duration S           stop after S seconds or 500ms, 2s... (default: when\n"
	      "                         every flow is done)\n"
	      "  --set KEY=VALUE        override a profile key\n"
	      "  --eal \"ARGS\"           extra DPDK EAL arguments\n"
	      "  --no-telemetry         no DPDK telemetry socket (on by default: while run runs,\n"
	      "                         `dpdk-telemetry.py -f rpPID` reads its ports' counters)\n"
	      , out);
	rp_cli_share_help(out, 25);
	fputs(
	      "  --capture              write DIR/capture-HOST.pcap for every port\n"
	      "  --snaplen N            bytes kept per captured frame (default 128; Wireshark calls a\n"
	      "                         RoCE frame cut short \"Malformed\": 65535 avoids it, capture --help)\n"
	      "  --capture-filter F     all, roce (RoCE + control) or control (default all)\n"
	      "  --sample N             capture 1 in N data frames (control frames always)\n"
	      "  --bin-us N             time series bin (default 100; 10000 when a flow's\n"
	      "                         sender has engine: verbs: messages, not frames)\n"
	      "  --allow-pause-storm    accept PFC sources that could hold a port paused\n"
	      "  --counter-interval D   sample each host's NIC counters (its netdev's ethtool and\n"
	      "                         sysfs statistics, a verbs host's RDMA device) every D\n"
	      "                         (default 100ms, at least 1ms; 0: off) into result.json\n"
	      "                         counters.nics[]\n"
	      "  --no-preflight         skip doctor's checks at start (a FAIL stops the run with\n"
	      "                         one line, a WARN is a line; docs/doctor.md)\n"
	      "  --neigh-refresh S      ask resolved next hops again every S (default 1s; off:\n"
	      "                         never; at least 1ms)\n"
	      "  --lcores N             N polling lcores (1..16; default the profile's lcores:, else 1):\n"
	      "                         every port gets N RX and TX queues, RSS on the UDP source\n"
	      "                         port (pair: links spread frames the same way, so their frames\n"
	      "                         cross between lcores: a test of the multi-queue path, not\n"
	      "                         faster, docs/profiles.md), lcore q sends\n"
	      "                         its share of each host's flows and accounts RX queue q (a\n"
	      "                         PMD with fewer queues: what it has, one-queue ports spread\n"
	      "                         over the lcores, a line says which polls each); the\n"
	      "                         lcores' counts merge exactly at the end, a time bin's\n"
	      "                         percentiles as an upper bound (result.json\n"
	      "                         environment.lcores: each one's packets and busy share);\n"
	      "                         the main thread only sleeps and prints progress; mbufs and\n"
	      "                         pollers on the NUMA node of the (PCI) port (a line when --eal\n"
	      "                         \"-l ...\" puts one elsewhere); --capture still writes one\n"
	      "                         file a port, the lcores' frames merged in time order; a\n"
	      "                         net_af_packet port has one queue (its qpairs= is refused:\n"
	      "                         the kernel's fanout, not RSS, would spread the frames)\n"
	      "  --rx-clock C           when a received frame arrived, for its latency and capture:\n"
	      "                         nic (the PMD's RX timestamp, moved to the run's clock by\n"
	      "                         reading the NIC's clock, or taken as the host's time where\n"
	      "                         the PMD has none to read; net_pcap's rx_pcap=: the file's\n"
	      "                         times, its first frame at time 0), poll (when the poll\n"
	      "                         took it: time in the RX ring counts as latency), auto (nic\n"
	      "                         on a PCI port that has it, poll elsewhere; the default);\n"
	      "                         result.json: environment.ports[].rx_clock, flows[].latency_clock\n"
	      "  --tx-start S           when the first frames leave: host (when each sender's lcore\n"
	      "                         hands them over from T0; the default), nic (every port's\n"
	      "                         NIC holds its first frames until T0 + 100 us on its\n"
	      "                         own clock: senders with PTP-synchronised NICs start at once,\n"
	      "                         not at the ranks' spread; mlx5 tx_pp=500 on a ConnectX-6 Dx,\n"
	      "                         a ConnectX-7 natively; docs/hardware.md); result.json:\n"
	      "                         environment.ports[].tx_start\n"
	      "  --idle-us N            a DPDK poll that moved no frame sleeps N us (default 0:\n"
	      "                         spin); for DPDK ranks that share a CPU with others\n"
	      RP_CLI_METRICS_HELP
	      "                         (under a launcher: each rank its own hosts at PORT + its\n"
	      "                         index on its node; rank 0 the merged final values)\n"
	      "\n"
	      "Wire two hosts back to back with `port: pair:LINK:0` and `pair:LINK:1`.\n"
	      "Hosts with `engine: verbs` (device:, gid_index:) have no DPDK port: their flows\n"
	      "are real RC QPs on the RDMA device (send, send_imm or write_imm messages, each\n"
	      "carrying the probe; QP records exchanged over MPI), accounted by the same code;\n"
	      "result.json adds \"verbs\": per-QP latency and the NIC's counters per host.\n"
	      "A job of both engines (its DPDK hosts on ranks of their own) is a mixed run: the\n"
	      "verbs flows are the workload, each DPDK entry an aggression window; result.json's\n"
	      "\"aggression\" and summary.txt show the workload's latency during / outside the\n"
	      "windows (merged per-bin histograms) and each host's pause, or \"not available\".\n"
	      "Across machines: `mpirun -np N roceprobe run ...` (or srun) runs each rank's hosts\n"
	      "(rank:, node:, else host i on rank i) from a common start; rank 0 writes one\n"
	      "merged result.json (docs/cluster.md; check a launch with `roceprobe cluster`), with\n"
	      "clock offsets before and after the run (drift) and hosts by first pause (pause_order);\n"
	      "a flow with `rtt: auto` (1 in 64 probes across ranks) or `rtt: on` (every probe) has\n"
	      "its receiver echo probes back for a round trip on the sender's clock (rtt_ns), shown\n"
	      "where the one-way p50 is below its clock bound (flows[].latency_shown).\n"
	      "A host_template makes one host per rank; `mac: auto` and `ipv4: netdev` are read\n"
	      "by the rank that runs the host and sent to every rank before any traffic\n"
	      "(result.json \"hosts\"; `roceprobe plan PROFILE --ranks N` shows the expansion).\n"
	      "A rank that dies mid-run stops the others; rank 0 writes result.json with\n"
	      "\"incomplete\": [hosts] and exits 3 (under mpirun add --mca odls_base_sigkill_timeout 10;\n"
	      "srun --mpi=pmix kills every rank at once: no result).\n"
	      "Progress on stderr once a second, with the share done and the time left\n"
	      "(\"run 3.0s of 10.0s (30%), 7.0 s left | ...\"); a set-up over a second names its\n"
	      "stages (\"run: set-up: ARP/ND (1.2 s in)\"; not under a launcher).\n"
	      "What listens: under a launcher, rank 0's watch (one TCP port, ephemeral or\n"
	      "ROCEPROBE_WATCH_PORT) on 127.0.0.1 when a rank shares its node and on its other\n"
	      "IPv4 addresses only when a rank is elsewhere, until every rank joined (at most 20 s);\n"
	      "a rank joins by proving the job's secret, drawn by rank 0 and shared over MPI, never\n"
	      "sent on the socket; others are refused and counted (cluster.watch_refused).\n"
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
		{"neigh-refresh", required_argument, NULL, 'R'}, {"lcores", required_argument, NULL, 'L'},
		{"idle-us", required_argument, NULL, 'I'}, {"rx-clock", required_argument, NULL, 'K'},
		{"tx-start", required_argument, NULL, 'T'},
		{"no-preflight", no_argument, NULL, 'P'}, {"counter-interval", required_argument, NULL, 'C'},
		RP_CLI_METRICS_OPTIONS,
		RP_CLI_NO_TELEMETRY_OPTION,
		RP_CLI_SHARE_OPTIONS,
		{NULL, 0, NULL, 0},
	};
	*o = (struct run_opts){.snaplen = RP_CAPTURE_SNAPLEN_DEFAULT, .sample = 1, .counter_interval_ns = 100000000};
	int c, rc = 0;
	uint64_t v = 0;
	double sec = 0;
	optind = 1;
	while (rc == 0 && (c = getopt_long(argc, argv, SHORTS, opts, NULL)) != -1) {
		if (rp_cli_share("run", c, &o->share, &rc))
			continue;
		switch (c) {
		case 'o': o->out = optarg; break;
		case 'd': rc = rp_cli_duration("run", "--duration", optarg, 1e7, &o->duration_s); break;
		case 's':
			if (o->nsets == MAX_SETS)
				return rp_cli_error("run", "at most %d --set options", MAX_SETS);
			o->sets[o->nsets++] = optarg;
			break;
		case 'e': o->eal = optarg; break;
		case RP_CLI_OPT_NO_TELEMETRY: o->no_telemetry = true; break;
		case 'c': o->capture = true; break;
		case 'n': rc = rp_cli_snaplen("run", optarg, &o->snaplen); break;
		case 'f': rc = parse_filter(optarg, &o->filter); break;
		case 'S': rc = rp_cli_uint("run", "--sample", optarg, 1, 1000000, &v); o->sample = (unsigned)v; break;
		case 'b': rc = rp_cli_uint("run", "--bin-us", optarg, 1, 10000000, &v); o->bin_ns = v * 1000; break;
		case 'A': o->allow_pause_storm = true; break;
		case 'F': o->force = true; break;
		case 'R':
			if (!strcmp(optarg, "off"))
				o->neigh_refresh_ns = RP_SESSION_NO_REFRESH;
			else if ((rc = rp_cli_duration("run", "--neigh-refresh", optarg, 3600, &sec)) == 0)
				o->neigh_refresh_ns = sec * 1e9 < 1e6 ? 1000000 : (uint64_t)(sec * 1e9);
			break;
		case 'L': rc = rp_cli_uint("run", "--lcores", optarg, 1, RP_DP_MAX_QUEUES, &v); o->lcores = (unsigned)v; break;
		case 'K':
			if (!strcmp(optarg, "auto") || !strcmp(optarg, "poll") || !strcmp(optarg, "nic"))
				o->rx_clock = optarg[0] == 'a' ? RP_DP_RXCLK_AUTO : optarg[0] == 'p' ? RP_DP_RXCLK_POLL
												 : RP_DP_RXCLK_NIC;
			else
				rc = rp_cli_error("run", "--rx-clock '%s': auto, poll or nic", optarg);
			break;
		case 'T':
			if (!strcmp(optarg, "host") || !strcmp(optarg, "nic"))
				o->tx_start = optarg[0] == 'n' ? RP_DP_TXSTART_NIC : RP_DP_TXSTART_HOST;
			else
				rc = rp_cli_error("run", "--tx-start '%s': host or nic", optarg);
			break;
		case 'I': rc = rp_cli_uint("run", "--idle-us", optarg, 0, 1000000, &v); o->idle_ns = v * 1000; break;
		case 'P': o->no_preflight = true; break;
		case 'C':
			if (rp_run_nics_interval(optarg, &o->counter_interval_ns) != 0)
				rc = rp_cli_error("run", "--counter-interval: expected a duration of at least 1ms (100ms, 1s), or 0 "
						  "(off), got '%s'", optarg);
			break;
		case RP_CLI_OPT_METRICS:
		case RP_CLI_OPT_METRICS_KEY:
		case RP_CLI_OPT_METRICS_LINGER: rc = rp_cli_metrics_opt("run", c, optarg, &o->metrics); break;
		case 'h': usage(stdout); return -1;
		default: return rp_cli_bad_option("run", SHORTS);
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

/* --metrics around the steps (lib/run/steps.h). */
static void metrics_opened(struct rp_run *r, void *arg)
{
	(void)arg;
	rp_cli_metrics_off_lcores(r->metrics);
}

static void metrics_closing(struct rp_run *r, bool results, void *arg)
{
	const struct run_opts *o = arg;
	rp_cli_metrics_end("run", &o->metrics, r->metrics, results);
}

static void run_failed(const char *err)
{
	fprintf(stderr, "roceprobe run: %s (the run goes on to its result)\n", err);
}

int rp_cmd_run(int argc, char **argv)
{
	struct run_opts o;
	int rc = parse_args(argc, argv, &o);
	if (rc != 0)
		return rc < 0 ? RP_EXIT_OK : rc;
	static struct rp_run r;
	r.cfg = (struct rp_run_cfg){.out = o.out, .duration_s = o.duration_s, .capture = o.capture,
				    .snaplen = o.snaplen, .filter = o.filter, .sample = o.sample, .bin_ns = o.bin_ns,
				    .idle_ns = o.idle_ns, .counter_interval_ns = o.counter_interval_ns,
				    .stop = &rp_cli_stop, .run_failed = run_failed};
	char err[RP_CLUSTER_ERR_LEN], held[512] = "";
	/* Caught from here on: a Ctrl-C during set-up also ends through rp_run_close(). */
	rp_cli_catch_stop();
	if (rp_cluster_init(&r.cl, &rp_cli_stop, &argc, &argv, err, sizeof(err)) != 0)
		return rp_cli_error("run", "%s", err);
	/* A rank that dies from here on is seen by rank 0 (lib/cluster/watch.c). */
	if (rp_cluster_watch_start(&r.cl, &rp_cli_stop, err, sizeof(err)) != 0) {
		if (r.cl.rank == 0)
			rp_cli_error("run", "%s", err);
		rp_cluster_finalize(&r.cl);
		return RP_EXIT_USAGE;
	}
	if (r.cl.launched)
		rp_cli_hold_errors(held, sizeof(held));
	/* Every rank serves its own hosts, at PORT + its index on its node. */
	rc = rp_cli_metrics_start("run", &o.metrics, r.cl.launched ? (unsigned)r.cl.ranks[r.cl.rank].local_rank : 0,
				  &r.metrics);
	rp_cli_hold_errors(NULL, 0); /* the steps hold their own (lib/run/steps.c), from this line on */
	struct rp_run_steps st = {
		.profile = o.profile, .out = o.out, .force = o.force, .version = RP_VERSION,
		.po = {.sets = o.sets, .nsets = o.nsets, .allow_pause_storm = o.allow_pause_storm},
		.so = {.sets = o.sets, .nsets = o.nsets, .allow_pause_storm = o.allow_pause_storm, .receivers = true,
		       .eal = o.eal, .no_telemetry = o.no_telemetry, .share = o.share, .rx_clock = o.rx_clock,
		       .tx_start = o.tx_start, .lcores = 1,
		       .queues = o.lcores, .defer_traffic = true, .neigh_refresh_ns = o.neigh_refresh_ns,
		       .no_preflight = o.no_preflight},
		.opened = metrics_opened, .closing = metrics_closing, .arg = &o};
	return rp_run_steps(&r, &st, rc, held);
}
