/* roceprobe run: the profile's senders and receivers on their DPDK ports in
 * one process; loss, latency, ECN/CNP and PFC accounted; result.json,
 * summary.txt and an optional capture written to a directory. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cluster/cluster.h"
#include "dp/capture.h"
#include "dp/rx.h"
#include "report/doc.h"
#include "report/flowset.h"
#include "report/outdir.h"
#include "report/env_json.h"
#include "report/pairs.h"
#include "report/rank_env.h"
#include "report/rank_nics.h"
#include "traffic/expect.h"
#include "report/pause_order.h"
#include "report/result.h"
#include "report/result_doc.h"
#include "report/summary.h"
#include "report/windows.h"
#include "run/nics.h"
#include "run/session.h"
#include "run/txpath.h"
#include "stats/acct.h"
#include "stats/acct_pack.h"
#include "traffic/acct_cfg.h"
#include "traffic/source.h"
#include "wire/eth.h"
#include "wire/ipv4.h"
#include "wire/ipv6.h"
#ifdef RP_HAVE_VERBS
#include "verbs/device.h"
#include "verbs/engine.h"
#endif

/* getopt_long's short options (rp_cli_bad_option names a bad one). */
static const char SHORTS[] = "o:d:s:e:cn:f:S:b:AFh";

#define MAX_SETS 64
#define LINGER_NS 20000000ull
#define RUN_XSTATS 64 /* in-flight frames arrive after the last send */
#define VERBS_BIN_NS 10000000ull /* verbs messages are ms apart on a soft NIC: 100 us bins would be mostly empty */
/* Beyond RP_REPORT_FLOWS_INLINE flows (64 hosts all-to-all is 4032)
 * result.json keeps totals and outliers, and the per-flow detail goes to
 * files of its own, a line each (report/flowset.h, docs/results.md "Large
 * runs"); the summary lists the first RUN_SUMMARY_FLOWS flows. */
#define RUN_SUMMARY_FLOWS 40

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
	uint64_t bin_ns; /* 0: the default (VERBS_BIN_NS for all-verbs plans, else 100 us) */
	uint64_t neigh_refresh_ns; /* 0: the default; RP_SESSION_NO_REFRESH: off */
	unsigned lcores; /* 0: the profile's `lcores:`, else 1 */
	uint64_t idle_ns; /* --idle-us: a DPDK pass that moved no frame sleeps this long (0: spin) */
	bool no_preflight;
	uint64_t counter_interval_ns; /* --counter-interval: NIC counters sampled this often (0: off) */
};

/* The session's set-up error (lib/run: one line in s->err) said as every
 * error of this command is: printed, or held for the ranks to agree on. */
static int session_said(const struct rp_session *s, int rc)
{
	if (rc && s->err[0])
		rp_cli_error("run", "%s", s->err);
	return rc;
}

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
	      "  --idle-us N            a DPDK poll that moved no frame sleeps N us (default 0:\n"
	      "                         spin); for DPDK ranks that share a CPU with others\n"
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
		{"neigh-refresh", required_argument, NULL, 'R'},
		{"idle-us", required_argument, NULL, 'I'},
		{"no-preflight", no_argument, NULL, 'P'}, {"counter-interval", required_argument, NULL, 'C'},
		{NULL, 0, NULL, 0},
	};
	*o = (struct run_opts){.snaplen = RP_CAPTURE_SNAPLEN_DEFAULT, .sample = 1, .counter_interval_ns = 100000000};
	int c, rc = 0;
	uint64_t v = 0;
	double sec = 0;
	optind = 1;
	while (rc == 0 && (c = getopt_long(argc, argv, SHORTS, opts, NULL)) != -1) {
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
		case 'I': rc = rp_cli_uint("run", "--idle-us", optarg, 0, 1000000, &v); o->idle_ns = v * 1000; break;
		case 'P': o->no_preflight = true; break;
		case 'C':
			if (rp_run_nics_interval(optarg, &o->counter_interval_ns) != 0)
				rc = rp_cli_error("run", "--counter-interval: expected a duration of at least 1ms (100ms, 1s), or 0 "
						  "(off), got '%s'", optarg);
			break;
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

struct run {
	struct rp_session s;
	struct rp_acct_cfg acfg;
	uint32_t *flow_of; /* accountant flow -> plan flow */
	/* Under a launcher the rank's accountant holds its share of the plan
	 * (share_flows); every flow's cfg stays here for rank 0's merge. */
	const struct rp_acct_flow_cfg *all_flows;
	size_t all_nflows;
	uint32_t *all_flow_of;
	const struct rp_acct_port_cfg *all_ports; /* every host's port; the share has its own */
	size_t all_nports;
	unsigned *acct_port; /* [nhosts]: the host's port in this rank's accountant (UINT_MAX: none) */
	struct rp_acct *acct; /* lcore 0's, into which the others' merge at the end */
	struct rp_dp_rx rx[RP_DP_MAX_QUEUES]; /* per lcore (s.nq of them) */
	struct rp_capture_stats cap_stats[RP_DP_MAX_PORTS]; /* by port */
	struct rp_dp_xstat xstats[RP_DP_MAX_PORTS][RUN_XSTATS]; /* before the run */
	struct rp_txpath txpath[RP_DP_MAX_PORTS]; /* by port: what left it, by every count (txpath.h) */
	uint64_t *unsent_by_flow; /* rank 0, [plan.nflows]: flows[].tx_unsent, from every rank's ports */
	unsigned nxstats[RP_DP_MAX_PORTS];
	time_t started;
	/* Under mpirun/srun: this rank, the hosts it runs, its clock. */
	struct rp_cluster cl;
	struct rp_launch_rank *launch; /* [size]: what a host_template expands for */
	bool *mine;          /* [nhosts]: this rank runs the host */
	int *host_rank;      /* [nhosts] */
	struct rp_clock_offset *offsets; /* [size], every rank's to rank 0 */
	struct rp_clock_offset *offsets_after; /* [size], measured again after the run */
	bool clocks_after;   /* offsets_after holds a measurement (not after a degraded end) */
	int64_t t0_ns, skew_ns;
	/* The packet clock minus the corrected clock (corrected_ns - T0) right
	 * after its start and after the run (DPDK ranks; 0 for verbs). */
	int64_t pclock_gap[2];
	int64_t *rank_pclock_err; /* rank 0: [size], each rank's larger gap (its facts') */
	bool failed;         /* a rank's set-up failed: every rank stops */
	bool stopped;        /* a rank was stopped during set-up: every rank stops, no result */
	bool lost;           /* a rank died mid-run: the result is incomplete */
	bool interrupted;    /* SIGINT/SIGTERM (not the stop a dead rank causes) */
	volatile bool tx_done, others_done, gen_over;
	/* This rank's facts (lib/report/rank_env.h), and on rank 0 every rank's
	 * (envs, nenvs of them: &own alone in one process; NULL on other ranks):
	 * result.json's environment, capture, cluster.ranks, verbs, findings. */
	struct rp_rank_env own;
	struct rp_rank_env *envs;
	size_t nenvs;
	/* engine: verbs hosts: the plan's verbs flows (nrecs QP records) and this
	 * rank's ends of them (NULL without rdma-core). */
	size_t nrecs;
	struct rp_vengine *ve;
	bool verbs_here;     /* this rank runs verbs hosts: the verbs loop, not DPDK's */
	struct rp_run_nics nics; /* its hosts' NIC counters as a time series (lib/run/nics.h) */
};

/* This rank's clock corrected by its offset to rank 0 before the run: rank
 * 0's timebase, on which T0 is fixed. */
static int64_t corrected_ns(const void *arg)
{
	const struct run *r = arg;
	return rp_cluster_now_ns() - (r->cl.launched ? r->offsets[r->cl.rank].offset_ns : 0);
}

#ifdef RP_HAVE_VERBS
/* The verbs engine's clock: ns since T0 on rank 0's timebase (this rank's
 * clock corrected by its offset), as the DPDK ranks' packet clock counts. */
static uint64_t verbs_clock(void *arg)
{
	const struct run *r = arg;
	int64_t t = corrected_ns(r) - r->t0_ns;
	return t > 0 ? (uint64_t)t : 0;
}
#endif

static uint64_t max_delay(const struct rp_profile *p)
{
	uint64_t d = 0;
	for (size_t h = 0; h < p->nhosts; h++)
		d = p->hosts[h].impair.delay_ns > d ? p->hosts[h].impair.delay_ns : d;
	return d;
}

/* Every flow's sender has engine: verbs. */
static bool all_verbs(const struct rp_session *s)
{
	for (size_t i = 0; i < s->plan.nflows; i++)
		if (s->prof->hosts[s->plan.flows[i].src].engine.engine != RP_ENGINE_VERBS)
			return false;
	return s->plan.nflows > 0;
}

/* rtt: auto: a sample of the probes of every DPDK flow between two ranks is
 * echoed (rtt: on, every probe, is the plan's: lib/traffic/acct_cfg.c). */
static void auto_echoes(struct run *r)
{
	struct rp_acct_flow_cfg *fc = (struct rp_acct_flow_cfg *)r->acfg.flows;
	for (size_t i = 0; r->cl.launched && i < r->acfg.nflows; i++) {
		const struct rp_flow *pf = &r->s.plan.flows[r->flow_of[i]];
		const struct rp_host *src = &r->s.prof->hosts[pf->src], *dst = &r->s.prof->hosts[pf->dst];
		if (pf->p.rtt == RP_RTT_AUTO && r->host_rank[pf->src] != r->host_rank[pf->dst] &&
		    src->engine.engine == RP_ENGINE_DPDK && dst->engine.engine == RP_ENGINE_DPDK)
			fc[i].echo_every = RP_RTT_AUTO_EVERY;
	}
}

/* ... and only its own hosts' ports (each port's time series is nbins x 8
 * priorities x 16 bytes: 3.8 MB for a 3 s run, 3.9 GB for 1024 hosts): port
 * k is its k-th host; a flow it only sends has no destination port here (a
 * frame of it arriving is misdelivered, as on any port but the receiver's).
 * A verbs rank keeps every port (lib/verbs names the receiver's host). */
static int share_ports(struct run *r)
{
	size_t nh = r->s.prof->nhosts, k = 0;
	if (r->verbs_here)
		return 0;
	struct rp_acct_port_cfg *mine = calloc(nh ? nh : 1, sizeof(*mine));
	r->acct_port = calloc(nh ? nh : 1, sizeof(*r->acct_port));
	if (!mine || !r->acct_port) {
		free(mine);
		return rp_cli_error("run", "out of memory for %zu ports", nh);
	}
	for (size_t h = 0; h < nh; h++) {
		r->acct_port[h] = r->mine[h] ? (unsigned)k : UINT_MAX;
		if (r->mine[h])
			mine[k++] = r->acfg.ports[h];
	}
	struct rp_acct_flow_cfg *fc = (struct rp_acct_flow_cfg *)r->acfg.flows;
	for (size_t i = 0; i < r->acfg.nflows; i++)
		fc[i].dst_port = r->acct_port[fc[i].dst_port];
	r->all_ports = r->acfg.ports;
	r->all_nports = r->acfg.nports;
	r->acfg.ports = mine;
	r->acfg.nports = k;
	for (unsigned k = 0; k < RP_DP_MAX_QUEUES; k++) /* every lcore's RX finds the host's port in its share */
		r->rx[k].acct_port = r->acct_port;
	return 0;
}

/* Under a launcher this rank's accountant holds only its share of the plan:
 * the flows its hosts receive (accounted here) or send (their ACKs, CNPs and
 * echoes arrive here). At 1024 hosts all-to-all that is 2046 flows of
 * 1,047,552 (docs/cluster.md, "Scale"). Rank 0 merges their results into a
 * results_only accountant of all of them. */
static int share_flows(struct run *r)
{
	size_t n = r->acfg.nflows, k = 0;
	struct rp_acct_flow_cfg *mine = calloc(n ? n : 1, sizeof(*mine));
	uint32_t *of = calloc(n ? n : 1, sizeof(*of));
	if (!mine || !of) {
		free(mine);
		free(of);
		return rp_cli_error("run", "out of memory for %zu flows", n);
	}
	for (size_t i = 0; i < n; i++) {
		const struct rp_flow *pf = &r->s.plan.flows[r->flow_of[i]];
		if (r->mine[pf->src] || r->mine[pf->dst]) {
			mine[k] = r->acfg.flows[i];
			of[k++] = r->flow_of[i];
		}
	}
	r->all_flows = r->acfg.flows;
	r->all_nflows = n;
	r->all_flow_of = r->flow_of;
	r->acfg.flows = mine;
	r->acfg.nflows = k;
	r->flow_of = of;
	return share_ports(r);
}

static int setup_rx(struct run *r, const struct run_opts *o)
{
	char err[512];
	if (rp_acct_cfg_from_plan(&r->s.plan, &r->acfg, &r->flow_of, err, sizeof(err)) != 0)
		return rp_cli_error("run", "%s", err);
	r->acfg.latency = true;
	r->acfg.track_psn = true;
	auto_echoes(r);
	r->acfg.dst_port_check = true; /* received = arrived at the destination host's port */
	r->acfg.bin_ns = o->bin_ns ? o->bin_ns : r->nrecs ? VERBS_BIN_NS : 100000; /* verbs or mixed */
	if (o->duration_s > 0 && (uint64_t)(o->duration_s * 1e9) < r->acfg.run_ns)
		r->acfg.run_ns = (uint64_t)(o->duration_s * 1e9);
	/* A loaded machine runs late: bins for twice the plan and a second more,
	 * so the series holds the whole run (later events are still counted). */
	r->acfg.run_ns = 2 * (r->acfg.run_ns + LINGER_NS + max_delay(r->s.prof)) + 1000000000ull;
	if (r->cl.launched && share_flows(r) != 0)
		return RP_EXIT_USAGE;
	/* One accountant per lcore (no shared line on the per-packet path). */
	for (unsigned k = 0; k < r->s.nq; k++) {
		r->rx[k].acct = rp_acct_create(&r->acfg, err, sizeof(err));
		if (k == 0)
			r->acct = r->rx[0].acct; /* owned from here: the cleanup frees it */
		if (!r->rx[k].acct)
			return rp_cli_error("run", "%s", err);
	}
	for (unsigned k = 0; k < r->s.nq; k++)
		for (unsigned i = 0; i < r->s.nports; i++) {
			unsigned h = r->s.tx[i].index;
			struct rp_dp_rxport *rp = &r->rx[k].ports[h];
			rp_impair_init(&rp->impair, &r->s.prof->hosts[h].impair);
			rp->shared = r->s.nq > 1 ? &r->rx[0].ports[h].impair : NULL; /* the link's one count */
			if (rp->impair.cfg.delay_ns && !(rp->hold = calloc(1, sizeof(*rp->hold))))
				return rp_cli_error("run", "out of memory");
		}
	for (unsigned i = 0; o->capture && i < r->s.nports; i++) {
		unsigned h = r->s.tx[i].index;
		char path[4096];
		snprintf(path, sizeof(path), "%s/capture-%s.pcap", o->out, r->s.prof->hosts[h].name);
		/* One lane per lcore, merged into the port's one file in time order. */
		struct rp_capture_cfg cc = {.path = path, .snaplen = o->snaplen, .filter = o->filter,
					    .sample_every = o->sample, .lanes = r->s.nq};
		r->rx[0].ports[h].cap = rp_capture_open(&cc, err, sizeof(err));
		if (!r->rx[0].ports[h].cap)
			return rp_cli_error("run", "%s", err);
		for (unsigned k = 1; k < r->s.nq; k++)
			r->rx[k].ports[h].cap = rp_capture_lane(r->rx[0].ports[h].cap, k);
	}
	return 0;
}

/* The lcores' accountants into lcore 0's, before the one finish: loss,
 * goodput and percentiles then come out as from one lcore. */
static int merge_lcores(struct run *r)
{
	int rc = 0;
	for (unsigned k = 1; k < r->s.nq; k++) {
		if (rc == 0 && rp_acct_absorb(r->acct, r->rx[k].acct) != 0)
			rc = rp_cli_error("run", "out of memory merging lcore %u's accounting", k);
		rp_acct_destroy(r->rx[k].acct);
		r->rx[k].acct = NULL;
	}
	return rc;
}

/* The accountant learns what each flow sent from the sources. */
static void finish_accounting(struct run *r)
{
	size_t n = rp_acct_nflows(r->acct);
	uint64_t *sent = calloc(n ? n : 1, sizeof(*sent));
#ifdef RP_HAVE_VERBS
	if (r->ve) { /* what the QPs sent: rp_acct_set_tx of every local sender end */
		rp_vengine_finish(r->ve, r->acct);
		for (size_t a = 0; a < n; a++) {
			struct rp_acct_flow_result x;
			rp_acct_flow(r->acct, a, &x);
			sent[a] = x.tx_packets;
		}
	}
#endif
	for (size_t i = 0; i < rp_session_nqueues(&r->s); i++) {
		const struct rp_source *src = r->s.tx[i].src;
		for (size_t k = 0; src && k < rp_source_nflows(src); k++) {
			struct rp_source_flow_stats st;
			rp_source_flow_stats(src, k, &st);
			/* What the PMD took and did not count as errors: the frames given up
			 * after the queue refused them, and its errors where they are known to
			 * be this flow's, were stamped but never sent (tx_unsent). */
			uint64_t stamped = st.probes ? st.probes : st.tx_packets;
			uint64_t unsent = rp_txpath_flow_unsent(&r->txpath[i % r->s.nports], &r->s, (unsigned)i, k);
			uint64_t tx = stamped > unsent ? stamped - unsent : 0;
			uint64_t bytes = st.tx_packets ? st.tx_bytes - st.tx_bytes / st.tx_packets * (stamped - tx) : 0;
			for (size_t a = 0; a < n; a++)
				if (r->flow_of[a] == st.flow_id) {
					rp_acct_set_tx(r->acct, a, tx, bytes);
					sent[a] = tx;
				}
		}
	}
	if (r->cl.launched) { /* the senders' counts come from their ranks, to the receivers' */
		uint64_t end;
		int *dst_rank = calloc(n ? n : 1, sizeof(*dst_rank));
		if (!dst_rank) { /* every rank takes the same path: none may fall back alone */
			fprintf(stderr, "roceprobe run: rank %d is out of memory for %zu flows\n", r->cl.rank, n);
			rp_cluster_abort(&r->cl, RP_EXIT_USAGE);
		}
		for (size_t a = 0; a < n; a++)
			dst_rank[a] = r->host_rank[r->s.plan.flows[r->flow_of[a]].dst];
		rp_cluster_acct_finish(&r->cl, r->acct, r->s.plan.nflows, dst_rank, r->s.g.end_ns, &end);
		free(dst_rank);
		r->s.g.end_ns = end;
	} else {
		rp_acct_finish(r->acct, r->s.g.end_ns, sent);
	}
	free(sent);
}

static void snapshot_xstats(struct run *r)
{
	for (unsigned i = 0; i < r->s.nports; i++)
		r->nxstats[i] = rp_dp_port_pause_xstats(r->s.tx[i].port, r->xstats[i], RUN_XSTATS);
}

/* The PMD's own pause counters, as changes over the run. */
static int xstats_facts(const struct run *r, unsigned i, struct rp_env_port *p)
{
	struct rp_dp_xstat now[RUN_XSTATS];
	unsigned n = rp_dp_port_pause_xstats(r->s.tx[i].port, now, RUN_XSTATS);
	if (n && !(p->xstats = calloc(n, sizeof(*p->xstats))))
		return -1;
	for (unsigned k = 0; k < n; k++) {
		uint64_t before = 0;
		for (unsigned b = 0; b < r->nxstats[i]; b++)
			if (!strcmp(r->xstats[i][b].name, now[k].name))
				before = r->xstats[i][b].value;
		p->xstats[k] = (struct rp_env_count){rp_env_strdup(now[k].name), now[k].value - before};
		p->nxstats = k + 1;
		if (!p->xstats[k].name)
			return -1;
	}
	return 0;
}

/* This process's ports: environment.ports[]. */
static int ports_facts(const struct run *r, struct rp_rank_env *e)
{
	if (r->s.nports && !(e->ports = calloc(r->s.nports, sizeof(*e->ports))))
		return -1;
	for (unsigned i = 0; i < r->s.nports; i++) {
		const struct rp_dp_txport *tp = &r->s.tx[i];
		const struct rp_dp_rxport *rp = &r->rx[0].ports[tp->index];
		struct rp_env_port *p = &e->ports[e->nports++];
		struct rp_session_port_totals t;
		rp_session_port_totals(&r->s, i, &t);
		uint64_t replies = 0;
		for (unsigned k = 0; k < r->s.nq; k++)
			replies += r->rx[k].ports[tp->index].replies_sent;
		p->node = rp_env_strdup(rp_session_host(&r->s, tp));
		p->devargs = rp_env_strdup(tp->port->name);
		p->driver = rp_env_strdup(tp->port->driver);
		p->link_bps = r->s.prof->hosts[tp->index].speed_bps;
		p->pmd_link_bps = tp->port->link_bps;
		p->tx_bytes = t.tx_bytes;
		p->impair_dropped = rp->impair.dropped;
		p->impair_marked = rp->impair.marked;
		p->replies_sent = replies;
		rp_txpath_port_facts(&r->txpath[i], &r->s, i, replies, p); /* tx_packets, tx_unsent and the path's */
		if (!p->node || !p->devargs || !p->driver || xstats_facts(r, i, p) ||
		    rp_session_neigh_facts(tp, &p->neigh))
			return -1;
	}
	return 0;
}

/* This process's capture files (capture[]). */
static int capture_facts(const struct run *r, const struct run_opts *o, struct rp_rank_env *e)
{
	if (!o->capture || !r->s.nports)
		return 0;
	if (!(e->captures = calloc(r->s.nports, sizeof(*e->captures))))
		return -1;
	for (unsigned i = 0; i < r->s.nports; i++) {
		const struct rp_capture_stats *c = &r->cap_stats[i];
		struct rp_env_capture *f = &e->captures[e->ncaptures++];
		char name[128];
		snprintf(name, sizeof(name), "capture-%s.pcap", rp_session_host(&r->s, &r->s.tx[i]));
		*f = (struct rp_env_capture){rp_env_strdup(rp_session_host(&r->s, &r->s.tx[i])), rp_env_strdup(name),
					     c->offered, c->written, c->dropped, c->sampled_out, c->files};
		if (!f->node || !f->path)
			return -1;
	}
	return 0;
}

/* This process's polling lcores: each one's packets (received + sent over
 * its queues) and its passes over them, and those that found work (their
 * share near 1: that core is the bottleneck). */
static int lcores_facts(const struct run *r, struct rp_rank_env *e)
{
	const struct rp_dp_gen *g = &r->s.g;
	unsigned n = r->verbs_here ? 0 : g->n_lcores < RP_DP_MAX_LCORES ? g->n_lcores : RP_DP_MAX_LCORES;
	if (n && !(e->lcores = calloc(n, sizeof(*e->lcores))))
		return -1;
	for (unsigned k = 0; k < n; k++) {
		const struct rp_dp_lcore_stats *ls = &g->lcore[k];
		struct rp_env_lcore *l = &e->lcores[e->nlcores++];
		*l = (struct rp_env_lcore){.lcore = k, .lcore_id = ls->lcore_id, .socket = ls->socket,
					   .polls = ls->passes, .busy_polls = ls->busy};
		for (unsigned i = 0; i < rp_session_nqueues(&r->s); i++)
			if (r->s.tx[i].lcore == k) {
				l->rx_packets += r->s.tx[i].rx_frames;
				l->tx_packets += r->s.tx[i].tx_packets;
			}
	}
	return 0;
}

/* This rank's facts: its part of result.json's environment, capture and
 * verbs, and where it ran (rank 0 builds them into result.json; under a
 * launcher every rank ships its own, packed). 0, or -1 out of memory. */
static int rank_facts(const struct run *r, const struct run_opts *o, struct rp_rank_env *e)
{
	*e = (struct rp_rank_env){.present = true, .rank = r->cl.rank};
	if (!(e->node = rp_env_strdup(r->cl.ranks[r->cl.rank].node)) ||
	    !(e->clock_source = rp_env_strdup(r->cl.launched ? rp_cluster_clock_source() : ""))) /* cluster.ranks' */
		return -1;
	for (size_t h = 0; h < r->s.prof->nhosts; h++)
		e->nhosts += r->mine[h];
	if (e->nhosts && !(e->hosts = calloc(e->nhosts, sizeof(*e->hosts))))
		return -1;
	e->nhosts = 0;
	for (size_t h = 0; h < r->s.prof->nhosts; h++)
		if (r->mine[h] && !(e->hosts[e->nhosts++] = rp_env_strdup(r->s.prof->hosts[h].name)))
			return -1;
	/* What this rank's accountant held: the flows its hosts receive (accounted
	 * here) and all it held (those and the ones its hosts only send). */
	size_t held = r->acct ? rp_acct_nflows(r->acct) : 0, received = 0;
	for (size_t i = 0; i < held; i++)
		received += r->mine[r->s.plan.flows[r->flow_of[i]].dst];
	const struct rp_clock_offset none = {0}, *off = r->offsets ? &r->offsets[r->cl.rank] : &none;
	e->clock_offset_ns = off->offset_ns;
	e->clock_bound_ns = off->bound_ns;
	e->start_skew_ns = r->skew_ns;
	e->pclock_gap[0] = r->pclock_gap[0];
	e->pclock_gap[1] = r->pclock_gap[1];
	e->flows_accounted = received;
	e->flows_held = held;
	if (ports_facts(r, e) || capture_facts(r, o, e) || lcores_facts(r, e))
		return -1;
#ifdef RP_HAVE_VERBS
	if (r->ve && !(e->verbs = rp_vengine_facts(r->ve)))
		return -1;
#endif
	return 0;
}

/* result.json's "verbs" (docs/results.md): every verbs host with its rank,
 * device, GID and NIC counters, and one row per QP of every verbs flow, its
 * sender's half and its receiver's half (from two ranks) joined. */
static json_t *verbs_json(const struct run *r)
{
	return rp_env_verbs_json(r->envs, r->nenvs);
}

/* Every rank's ports. */
static json_t *all_ports_env(const struct run *r)
{
	return rp_env_ports_json(r->envs, r->nenvs);
}

/* How far rank k's packet clock can be from rank 0's time during the run:
 * its corrected clock's error (the offset's bound, and with a measurement
 * after the run what drift can add), plus how far the packet clock was from
 * the corrected clock at its start or after the run, the larger (the TSC and
 * the system clock each run at a steady rate: the gap moves in a line). */
static int64_t rank_clock_bound(const struct run *r, int k)
{
	int64_t pclock = r->rank_pclock_err ? r->rank_pclock_err[k] : 0;
	if (k == 0)
		return pclock;
	return pclock +
	       (r->clocks_after ? rp_clock_run_bound_ns(&r->offsets[k], &r->offsets_after[k]) : r->offsets[k].bound_ns);
}

/* Accountant flow i's one-way error: both ranks' clock errors (0 on one rank). */
static int64_t flow_clock_bound(const struct run *r, size_t i)
{
	if (!r->cl.launched)
		return 0;
	const struct rp_flow *pf = &r->s.plan.flows[r->flow_of[i]];
	int a = r->host_rank[pf->src], b = r->host_rank[pf->dst];
	return a == b ? 0 : rank_clock_bound(r, a) + rank_clock_bound(r, b);
}

/* result.json's "cluster": the launch, and per rank its node, hosts, clock
 * offset to rank 0 with its bound, and how late it started. */
static json_t *cluster_json(const struct run *r)
{
	json_t *ranks = json_array();
	int64_t worst = 0;
	for (int k = 0; r->envs && k < r->cl.size && (size_t)k < r->nenvs; k++) {
		json_t *e;
		if (!r->envs[k].present || rp_cluster_rank_lost(&r->cl, k)) { /* died mid-run: what rank 0 knows of it */
			json_t *hosts = json_array();
			for (size_t h = 0; h < r->s.prof->nhosts; h++)
				if (r->host_rank[h] == k)
					json_array_append_new(hosts, json_string(r->s.prof->hosts[h].name));
			e = json_pack("{s:i, s:s, s:o, s:b}", "rank", k, "node", r->cl.ranks[k].node, "hosts", hosts, "lost",
				      1);
		} else {
			e = rp_env_rank_json(&r->envs[k]);
		}
		if (r->clocks_after) {
			const struct rp_clock_offset *b = &r->offsets[k], *a = &r->offsets_after[k];
			json_object_set_new(e, "clock_offset_after_ns", json_integer(a->offset_ns));
			json_object_set_new(e, "clock_bound_after_ns", json_integer(a->bound_ns));
			json_object_set_new(e, "clock_drift_ppb", json_real(rp_clock_drift_ppb(b, a)));
			json_object_set_new(e, "clock_drift_bound_ppb", json_real(rp_clock_drift_bound_ppb(b, a)));
		}
		int64_t b = rank_clock_bound(r, k);
		worst = b > worst ? b : worst;
		json_array_append_new(ranks, e);
	}
	/* Every rank's packet clock counts from T0 on its corrected clock (however late it
	 * woke): a one-way latency between two ranks is off by at most both ranks' errors. */
	json_t *c = json_pack("{s:s, s:i, s:I, s:I, s:o}", "launcher", r->cl.launcher, "size", r->cl.size, "start_ns",
			      (json_int_t)r->t0_ns, "latency_bound_ns", (json_int_t)(2 * worst), "ranks", ranks);
	/* Connections to rank 0's watch closed during set-up without being a rank. */
	json_object_set_new(c, "watch_refused", json_integer(rp_cluster_watch_refused(&r->cl)));
	if (r->lost) /* when rank 0 saw the first death, after T0 on its clock */
		json_object_set_new(c, "lost_at_ns", json_integer(rp_cluster_fault_ns(&r->cl) - r->t0_ns));
	return c;
}

/* Every rank's captures, each on its own machine; null without --capture. */
static json_t *capture_json(const struct run *r, const struct run_opts *o)
{
	return o->capture ? rp_env_captures_json(r->envs, r->nenvs) : json_null();
}

/* result.json's "hosts": every host's addresses as the run used them, the
 * ones its rank read at start (mac: auto, ipv4/ipv6: netdev) included. */
static json_t *hosts_json(const struct run *r)
{
	json_t *arr = json_array();
	const struct rp_profile *p = r->s.prof;
	for (size_t h = 0; h < p->nhosts; h++) {
		const struct rp_host *H = &p->hosts[h];
		char mac[18], ip4[16], ip6[46];
		rp_mac_format(H->mac, mac);
		rp_ipv4_addr_format(H->ipv4, ip4);
		rp_ipv6_addr_format(H->ipv6, ip6);
		int rank = r->cl.launched ? r->host_rank[h] : 0;
		json_t *o = json_pack("{s:s, s:i, s:s, s:s?, s:s?, s:s, s:s?, s:o, s:s?, s:o, s:s}", "name", H->name, "rank",
				      rank, "node", r->cl.ranks[rank].node, "port", H->port[0] ? H->port : NULL, "mac",
				      H->mac_known ? mac : NULL, "mac_from", H->mac_auto ? "port" : "profile", "ipv4",
				      H->has_ipv4 ? ip4 : NULL, "ipv4_prefix",
				      H->has_ipv4 && H->ipv4_plen != RP_PLEN_NONE ? json_integer(H->ipv4_plen) : json_null(),
				      "ipv6", H->has_ipv6 ? ip6 : NULL, "ipv6_prefix",
				      H->has_ipv6 && H->ipv6_plen != RP_PLEN_NONE ? json_integer(H->ipv6_plen) : json_null(),
				      "ip_from", H->ipv4_netdev || H->ipv6_netdev ? "netdev" : "profile");
		/* a NIC of a host of several (nics:): which host, which NIC, as plan --json says */
		json_object_set_new(o, "host", json_string(p->servers[H->server].name));
		json_object_set_new(o, "nic", json_integer(H->nic));
		json_array_append_new(arr, o);
	}
	return arr;
}

/* Which side of plan flow f ran on a rank that died: "sender", "receiver",
 * "both", or NULL. */
static const char *lost_side(const struct run *r, uint32_t f)
{
	const struct rp_flow *pf = &r->s.plan.flows[f];
	bool s = rp_cluster_rank_lost(&r->cl, r->host_rank[pf->src]);
	bool d = rp_cluster_rank_lost(&r->cl, r->host_rank[pf->dst]);
	return s && d ? "both" : s ? "sender" : d ? "receiver" : NULL;
}

/* Flow i of result.json (written a flow at a time: rp_report_stream); after
 * a rank died, each flow of its hosts says which side is missing, and its
 * loss is unknown (null). */
static json_t *flow_item(void *ctx, size_t i)
{
	const struct run *r = ctx;
	json_t *f = rp_report_flow_item(r->acct, i);
	struct rp_acct_flow_result x;
	rp_acct_flow(r->acct, i, &x);
	json_object_set_new(f, "latency_shown", json_string(rp_report_latency_shown(&x, flow_clock_bound(r, i), NULL, 0)));
	json_object_set_new(f, "tx_unsent",
			    json_integer(r->unsent_by_flow ? (json_int_t)r->unsent_by_flow[r->flow_of[i]] : 0));
	const struct rp_flow *pf = &r->s.plan.flows[r->flow_of[i]];
	if (r->cl.launched && r->host_rank[pf->src] != r->host_rank[pf->dst]) {
		/* Across ranks the one-way latency carries both clocks' errors; below that it
		 * says nothing, and the round trip (rtt_ns, echoes) is the figure to read. */
		int64_t bound = flow_clock_bound(r, i);
		json_t *lat = json_object_get(f, "latency_ns");
		json_int_t p50 = json_integer_value(json_object_get(lat, "p50"));
		json_object_set_new(f, "latency_bound_ns", json_integer(bound));
		json_object_set_new(f, "latency_below_bound",
				    json_boolean(json_integer_value(json_object_get(lat, "count")) > 0 && p50 < bound));
	}
	const char *side = r->lost ? lost_side(r, r->flow_of[i]) : NULL;
	if (side) {
		json_object_set_new(f, "incomplete", json_string(side));
		json_object_set_new(f, "lost", json_null());
	}
	return f;
}

/* Flow i's loss is unknown: a side of it ran on a rank that died
 * (report/flowset.h's flows_summary counts it as incomplete). */
static bool flow_incomplete(void *ctx, size_t i)
{
	const struct run *r = ctx;
	return r->lost && lost_side(r, r->flow_of[i]);
}

/* The ports; after a rank died, its hosts' ports (nothing measured: zeros)
 * say so. */
static json_t *ports_json(const struct run *r)
{
	json_t *ports = rp_report_ports(r->acct);
	for (size_t i = 0; r->lost && i < json_array_size(ports); i++) {
		json_t *p = json_array_get(ports, i);
		const char *node = json_string_value(json_object_get(p, "node"));
		for (size_t h = 0; node && h < r->s.prof->nhosts; h++)
			if (!strcmp(r->s.prof->hosts[h].name, node) && rp_cluster_rank_lost(&r->cl, r->host_rank[h]))
				json_object_set_new(p, "incomplete", json_true());
	}
	return ports;
}

/* The hosts of the ranks that died, in profile order. */
static json_t *lost_hosts_json(const struct run *r)
{
	json_t *a = json_array();
	for (size_t h = 0; h < r->s.prof->nhosts; h++)
		if (rp_cluster_rank_lost(&r->cl, r->host_rank[h]))
			json_array_append_new(a, json_string(r->s.prof->hosts[h].name));
	return a;
}

/* A mixed run's aggression windows (rp_plan_aggression: at most one per
 * traffic entry), named by their entries; *w is the caller's to free. */
static size_t aggression_windows(const struct run *r, struct rp_report_window **w)
{
	size_t max = r->s.prof->ntraffic;
	struct rp_plan_window *pw = calloc(max ? max : 1, sizeof(*pw));
	*w = calloc(max ? max : 1, sizeof(**w));
	size_t n = pw && *w ? rp_plan_aggression(&r->s.plan, pw, max) : 0;
	for (size_t k = 0; k < n; k++)
		(*w)[k] = (struct rp_report_window){.name = r->s.prof->traffic[pw[k].traffic].name,
						    .start_ns = pw[k].start_ns, .end_ns = pw[k].end_ns};
	free(pw);
	return n;
}

static const char *str_or(const json_t *s, const char *dflt)
{
	return json_is_string(s) ? json_string_value(s) : dflt;
}

static bool host_in_plan(const struct run *r, unsigned h)
{
	for (size_t i = 0; i < r->s.plan.nflows; i++)
		if (r->s.plan.flows[i].src == h || (r->s.plan.flows[i].kind == RP_TRAFFIC_RDMA && r->s.plan.flows[i].dst == h))
			return true;
	return false;
}

/* The pause a host saw during the aggression, where it can be known: a DPDK
 * host's PFC/PAUSE frames as its port received them (every frame parsed), a
 * verbs host's NIC pause counters (pause_*, over the whole run: read before
 * and after). A NIC without pause counters (rxe on virtio) says so: never 0. */
static json_t *pause_json(const struct run *r, unsigned h, json_t *vhosts, const struct rp_report_window *w, size_t n)
{
	const struct rp_host *H = &r->s.prof->hosts[h];
	json_t *o = json_pack("{s:s, s:s}", "host", H->name, "engine", rp_engine_name(H->engine.engine));
	if (rp_cluster_rank_lost(&r->cl, r->cl.launched ? r->host_rank[h] : 0)) {
		json_object_set_new(o, "pause", json_string("not available"));
		json_object_set_new(o, "why", json_string("its rank died"));
		return o;
	}
	if (H->engine.engine != RP_ENGINE_VERBS) {
		uint64_t frames, ns;
		rp_report_window_pause(r->acct, h, w, n, &frames, &ns);
		json_object_set_new(o, "source", json_string("PFC/PAUSE frames received at its port, during the windows"));
		json_object_set_new(o, "pfc_frames", json_integer((json_int_t)frames));
		json_object_set_new(o, "paused_ns", json_integer((json_int_t)ns));
		return o;
	}
	size_t i;
	json_t *x, *found = NULL;
	json_array_foreach(vhosts, i, x)
		if (!strcmp(str_or(json_object_get(x, "host"), ""), H->name))
			found = x;
	json_t *delta = json_object_get(json_object_get(found, "counters"), "delta"), *pause = json_object(), *v;
	const char *k;
	json_object_foreach(delta, k, v)
		if (!strncmp(k, "pause_", 6))
			json_object_set(pause, k, v);
	if (json_object_size(pause)) {
		json_object_set_new(o, "source", json_string("the NIC's pause counters, over the whole run"));
		json_object_set_new(o, "counters", pause);
		return o;
	}
	json_decref(pause);
	char why[256];
	snprintf(why, sizeof(why), "%s (driver %s, netdev %s) has no pause counters",
		 str_or(json_object_get(found, "device"), "its device"), str_or(json_object_get(found, "driver"), "?"),
		 str_or(json_object_get(found, "netdev"), "none"));
	json_object_set_new(o, "pause", json_string("not available"));
	json_object_set_new(o, "why", json_string(why));
	return o;
}

/* result.json's "aggression" (docs/cluster.md, "Mixed runs"): the windows,
 * the workload's latency during and outside them from the merged per-bin
 * histograms, and each host's pause. NULL when the run is not mixed. */
static json_t *aggression_json(const struct run *r, json_t *verbs)
{
	struct rp_report_window *w;
	size_t n = aggression_windows(r, &w);
	json_t *o = n ? rp_report_windows(r->acct, w, n) : NULL;
	if (o) {
		json_t *pause = json_array();
		for (unsigned h = 0; h < r->s.prof->nhosts; h++)
			if (host_in_plan(r, h))
				json_array_append_new(pause, pause_json(r, h, json_object_get(verbs, "hosts"), w, n));
		json_object_set_new(o, "pause", pause);
	}
	free(w);
	return o;
}

/* result.json's keys after the measured ones: the pair matrix, hosts,
 * pause order, findings, verbs, a mixed run's aggression, the cluster. */
static int run_keys(struct rp_result_out *o, void *ctx)
{
	const struct run *r = ctx;
	rp_report_doc_pairs(rp_result_doc(o), rp_result_flowset(o));
	rp_result_put(o, "hosts", hosts_json(r));
	rp_result_put(o, "pause_order", rp_report_pause_order(r->acct));
	rp_result_put(o, "findings", rp_env_findings_json(r->envs, r->nenvs));
	rp_result_put(o, "counters", rp_env_counters_json(r->envs, r->nenvs));
	if (r->nrecs) {
		json_t *v = verbs_json(r), *ag = aggression_json(r, v);
		rp_result_put(o, "verbs", v);
		if (ag)
			rp_result_put(o, "aggression", ag);
	}
	if (r->cl.launched)
		rp_result_put(o, "cluster", cluster_json(r));
	if (r->lost)
		rp_result_put(o, "incomplete", lost_hosts_json(r));
	return 0;
}

/* result.json through the one builder (report/result_doc.h), a flow, a
 * pair and a port's series at a time (a million flows are GBs as JSON).
 * Beyond RP_REPORT_FLOWS_INLINE flows the flows and the pair matrix go to
 * DIR/flows.jsonl and DIR/pairs.jsonl (written first), and result.json
 * keeps their totals, the outlying pairs, hosts, ports (report/flowset.h,
 * docs/results.md). */
static int write_result(const struct run *r, const struct run_opts *o)
{
	size_t nf = rp_acct_nflows(r->acct);
	double *expect = rp_plan_expect_goodput(&r->s.plan, r->flow_of, nf);
	const struct rp_pairs_plan pp = {expect, rp_plan_lossless(r->s.prof)};
	const struct rp_report_flowset fs = {.acct = r->acct, .item = flow_item, .ctx = (void *)r,
					     .pairs = rp_pairs_build(r->acct, &pp), .incomplete = flow_incomplete};
	free(expect);
	if (!fs.pairs && nf)
		return rp_cli_error("run", "out of memory for the pairs of %zu flows", nf);
	json_t *tports = NULL;
	struct rp_result_env env = {.version = RP_VERSION, .dpdk = rp_dp_version(), .started = r->started,
				    .more = json_pack("{s:o, s:o}", "ports", all_ports_env(r), "lcores",
						      rp_env_lcores_json(&r->own))};
	struct rp_result_measured m = {.elapsed_ns = r->s.g.end_ns, .interrupted = r->interrupted, .fs = &fs,
				       .ports = ports_json(r), .timeseries = rp_report_timeseries_apart(r->acct, &tports),
				       .capture = capture_json(r, o)};
	const struct rp_report_stream tp = {tports, rp_acct_nports(r->acct), rp_report_port_series_item, r->acct};
	m.ts_streams = &tp; /* a port at a time */
	m.nts = 1;
	struct rp_result_pieces p = {.kind = !r->nrecs ? "dpdk" : all_verbs(&r->s) ? "verbs" : "mixed",
				     .profile_name = r->s.prof->name, .profile_path = o->profile, .env = &env,
				     .measured = &m, .ext = run_keys, .ctx = (void *)r};
	char err[4200];
	int rc = rp_result_write(o->out, &p, err, sizeof(err));
	rp_pairs_free(fs.pairs);
	return rc ? rp_cli_error("run", "%s", err) : 0;
}

/* summary.txt's view of the run (report/summary.h): flow i (the
 * accountant's) as the summary needs it. */
static const char *sum_lost_side(void *ctx, size_t i)
{
	const struct run *r = ctx;
	return lost_side(r, r->flow_of[i]);
}

static bool sum_cross_rank(void *ctx, size_t i)
{
	const struct run *r = ctx;
	const struct rp_flow *pf = &r->s.plan.flows[r->flow_of[i]];
	return r->cl.launched && r->host_rank[pf->src] != r->host_rank[pf->dst];
}

static int64_t sum_flow_bound(void *ctx, size_t i)
{
	return flow_clock_bound(ctx, i);
}

/* What the session printed (lib/run: rate warnings, next hops), as text the
 * summary holds; NULL when it printed nothing. */
static char *session_text(const struct run *r, bool hops)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		return NULL;
	if (!hops) {
		rp_session_warn_rates(&r->s, m, "\n");
	} else {
		bool kept = false;
		for (unsigned i = 0; i < r->s.nports; i++)
			kept |= r->s.tx[i].refresh.n != 0;
		if (kept) {
			fputc('\n', m);
			rp_session_print_next_hops(&r->s, m);
		}
	}
	if (fclose(m) != 0 || !len) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* What the view points to that the run does not hold. */
struct sum_parts {
	struct rp_summary_run run;
	struct rp_summary_rank *ranks;
	const char **host_names;
	struct rp_summary_capture captures[RP_DP_MAX_PORTS];
	struct rp_report_window *windows;
	json_t *pause, *verbs;
	char *warnings, *hops;
	struct rp_pairs *pairs;
};

static void sum_parts_free(struct sum_parts *p)
{
	free(p->ranks);
	free(p->host_names);
	free(p->windows);
	json_decref(p->pause);
	json_decref(p->verbs);
	free(p->warnings);
	free(p->hops);
	rp_pairs_free(p->pairs);
}

/* Each rank's clock against rank 0's, before and after the run. */
static int sum_ranks(const struct run *r, struct sum_parts *p)
{
	int n = r->cl.launched ? r->cl.size : 0;
	if (n && !(p->ranks = calloc((size_t)n, sizeof(*p->ranks))))
		return -1;
	for (int k = 0; k < n; k++) {
		const struct rp_clock_offset none = {0}, *b = r->offsets ? &r->offsets[k] : &none,
						 *a = r->offsets_after ? &r->offsets_after[k] : &none;
		p->ranks[k] = (struct rp_summary_rank){
			.node = r->cl.ranks[k].node, .lost = rp_cluster_rank_lost(&r->cl, k), .offset_ns = b->offset_ns,
			.bound_ns = b->bound_ns, .offset_after_ns = a->offset_ns, .bound_after_ns = a->bound_ns,
			.pclock_err_ns = r->rank_pclock_err ? r->rank_pclock_err[k] : 0,
			.clock_bound_ns = rank_clock_bound(r, k)};
		if (r->clocks_after) {
			p->ranks[k].drift_ppb = rp_clock_drift_ppb(b, a);
			p->ranks[k].drift_bound_ppb = rp_clock_drift_bound_ppb(b, a);
		}
	}
	p->run.nranks = n;
	p->run.ranks = p->ranks;
	return 0;
}

/* A mixed run's windows and each host's pause (result.json's aggression.pause). */
static int sum_aggression(const struct run *r, struct sum_parts *p)
{
	size_t n = aggression_windows(r, &p->windows);
	if (!p->windows)
		return -1;
	if (!n)
		return 0;
	p->verbs = r->nrecs ? verbs_json(r) : NULL;
	if (!(p->pause = json_array()))
		return -1;
	for (unsigned h = 0; h < r->s.prof->nhosts; h++)
		if (host_in_plan(r, h))
			json_array_append_new(p->pause, pause_json(r, h, json_object_get(p->verbs, "hosts"), p->windows, n));
	p->run.windows = p->windows;
	p->run.nwindows = n;
	p->run.pause = p->pause;
	return 0;
}

static int summary_view(const struct run *r, struct rp_summary *s, struct sum_parts *p)
{
	const struct rp_profile *prof = r->s.prof;
	size_t nflows = rp_acct_nflows(r->acct);
	*p = (struct sum_parts){.run = {.launched = r->cl.launched, .clocks_after = r->clocks_after,
					.nhosts = prof->nhosts, .host_rank = r->host_rank, .lost = r->lost,
					.lost_side = sum_lost_side, .cross_rank = sum_cross_rank,
					.flow_bound = sum_flow_bound, .ctx = (void *)r, .envs = r->envs,
					.nenvs = r->nenvs, .ncaptures = r->s.nports}};
	if (r->lost)
		p->run.lost_after_ns = (uint64_t)(rp_cluster_fault_ns(&r->cl) - r->t0_ns);
	if (!(p->host_names = calloc(prof->nhosts ? prof->nhosts : 1, sizeof(*p->host_names))))
		return -1;
	for (size_t h = 0; h < prof->nhosts; h++)
		p->host_names[h] = prof->hosts[h].name;
	p->run.host_names = p->host_names;
	for (unsigned i = 0; i < r->s.nports; i++)
		p->captures[i] = (struct rp_summary_capture){rp_session_host(&r->s, &r->s.tx[i]), r->cap_stats[i].offered,
							     r->cap_stats[i].written, r->cap_stats[i].dropped};
	p->run.captures = p->captures;
	if (sum_ranks(r, p) || sum_aggression(r, p))
		return -1;
	p->run.rate_warnings = p->warnings = session_text(r, false);
	p->run.next_hops = p->hops = session_text(r, true);
	double *expect = rp_plan_expect_goodput(&r->s.plan, r->flow_of, nflows);
	const struct rp_pairs_plan pp = {expect, rp_plan_lossless(prof)};
	p->pairs = nflows ? rp_pairs_build(r->acct, &pp) : NULL;
	free(expect);
	if (nflows && !p->pairs)
		return -1;
	/* Beyond RP_REPORT_FLOWS_INLINE flows the first RUN_SUMMARY_FLOWS */
	*s = (struct rp_summary){.command = "run", .name = prof->name, .elapsed_ns = r->s.g.end_ns,
				 .interrupted = r->interrupted, .acct = r->acct,
				 .cols = RP_SUMMARY_REORDER | RP_SUMMARY_ACTIVE,
				 .max_flows = nflows > RP_REPORT_FLOWS_INLINE ? RUN_SUMMARY_FLOWS : nflows,
				 .pairs = p->pairs, .run = &p->run};
	return 0;
}

static int write_summary(const struct run *r, const struct run_opts *o)
{
	char path[4096], tmp[4200];
	struct rp_summary s;
	struct sum_parts parts;
	if (summary_view(r, &s, &parts)) {
		sum_parts_free(&parts);
		return rp_cli_error("run", "out of memory for the summary of %zu flows", rp_acct_nflows(r->acct));
	}
	snprintf(path, sizeof(path), "%s/summary.txt", o->out);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	int rc = 0;
	if (!f)
		rc = rp_cli_error("run", "cannot write %s: %s", tmp, strerror(errno));
	if (f)
		rp_summary_write(f, &s);
	if (f && (fclose(f) != 0 || rename(tmp, path) != 0))
		rc = rp_cli_error("run", "cannot write %s: %s", path, strerror(errno));
	if (rc == 0) {
		rp_summary_write(stdout, &s);
		printf("\nresult: %s/result.json\nsummary: %s/summary.txt\n", o->out, o->out);
		fflush(stdout);
		/* The summary above holds the warnings: again on stderr only where stdout
		 * is not the terminal stderr is (a file, a pipe, a script's capture). */
		if (!isatty(STDOUT_FILENO) || !isatty(STDERR_FILENO))
			rp_session_warn_rates(&r->s, stderr, NULL);
	}
	sum_parts_free(&parts);
	return rc;
}

/* Flushed and closed before result.json is written, so its counts are final. */
static void close_captures(struct run *r)
{
	for (unsigned i = 0; i < r->s.nports; i++) {
		struct rp_dp_rxport *rp = &r->rx[0].ports[r->s.tx[i].index];
		if (rp->cap) {
			char err[256];
			rp_capture_close(rp->cap, &r->cap_stats[i], err, sizeof(err));
			for (unsigned k = 0; k < r->s.nq; k++) /* its lanes */
				r->rx[k].ports[r->s.tx[i].index].cap = NULL;
		}
	}
}

static void cleanup(struct run *r)
{
	close_captures(r);
#ifdef RP_HAVE_VERBS
	rp_vengine_destroy(r->ve);
	r->ve = NULL;
#endif
	if (r->envs != &r->own)
		rp_cluster_rank_envs_free(&r->cl, r->envs);
	r->envs = NULL;
	rp_rank_env_free(&r->own);
	free(r->unsent_by_flow);
	r->unsent_by_flow = NULL;
	free(r->rank_pclock_err);
	free(r->launch);
	free(r->offsets);
	free(r->offsets_after);
	free(r->mine);
	free(r->host_rank);
	for (unsigned k = 0; k < RP_DP_MAX_QUEUES; k++) {
		for (unsigned i = 0; i < RP_DP_MAX_PORTS; i++)
			free(r->rx[k].ports[i].hold);
		if (k > 0) /* lcore 0's is r->acct (or was, before the ranks' merge) */
			rp_acct_destroy(r->rx[k].acct);
	}
	rp_acct_destroy(r->acct);
	rp_acct_cfg_free(&r->acfg);
	free(r->flow_of);
	free((void *)r->all_flows);
	free(r->all_flow_of);
	free((void *)r->all_ports);
	free(r->acct_port);
	rp_session_close(&r->s);
	rp_cluster_finalize(&r->cl);
}

/* Under a launcher rank 0 reads the profile and sends its text to every rank
 * (no shared file system needed); every rank binds hosts to ranks the same
 * way (lib/cluster). Without one, every host runs here, unless the profile
 * places hosts on other ranks or nodes. *text: what the session loads, or NULL. */
static int place_hosts(struct run *r, const struct run_opts *o, char **text)
{
	char err[RP_PROFILE_ERR_LEN];
	uint64_t len = 0;
	*text = NULL;
	if (r->cl.launched) {
		FILE *f = r->cl.rank == 0 ? fopen(o->profile, "r") : NULL;
		char *t = NULL;
		if (f) {
			fseek(f, 0, SEEK_END);
			long n = ftell(f);
			rewind(f);
			t = n >= 0 ? malloc((size_t)n + 1) : NULL;
			len = t && fread(t, 1, (size_t)n, f) == (size_t)n ? (uint64_t)n : UINT64_MAX;
			fclose(f);
		} else if (r->cl.rank == 0) {
			len = UINT64_MAX;
		}
		if (rp_cluster_bcast(&r->cl, &len, sizeof(len), 0) != 0 || len == UINT64_MAX) {
			free(t);
			return rp_cli_error("run", "cannot read %s on rank 0 (node %s): %s", o->profile, r->cl.ranks[0].node,
					    strerror(errno));
		}
		if (r->cl.rank != 0 && !(t = malloc(len + 1)))
			return rp_cli_error("run", "out of memory");
		rp_cluster_bcast(&r->cl, t, len, 0);
		t[len] = '\0';
		*text = t;
	}
	r->launch = calloc((size_t)r->cl.size, sizeof(*r->launch));
	if (!r->launch)
		return rp_cli_error("run", "out of memory");
	rp_cluster_launch_ranks(r->cl.ranks, (size_t)r->cl.size, r->launch);
	struct rp_profile_opts po = {.sets = o->sets, .nsets = o->nsets, .allow_pause_storm = o->allow_pause_storm,
				     .nranks = (size_t)r->cl.size, .ranks = r->launch};
	struct rp_profile *p = *text ? rp_profile_load_string(o->profile, *text, &po, err, sizeof(err))
				     : rp_profile_load(o->profile, &po, err, sizeof(err));
	if (!p)
		return rp_cli_error("run", "%s", err);
	r->mine = calloc(p->nhosts, sizeof(*r->mine));
	r->host_rank = calloc(p->nhosts, sizeof(*r->host_rank));
	int rc = r->mine && r->host_rank ? 0 : rp_cli_error("run", "out of memory");
	if (rc == 0 && !r->cl.launched && rp_cluster_check_single(p, r->cl.ranks[0].node, err, sizeof(err)))
		rc = rp_cli_error("run", "%s", err);
	if (rc == 0 && r->cl.launched && rp_cluster_bind(p, r->cl.ranks, (size_t)r->cl.size, r->host_rank, err, sizeof(err)))
		rc = rp_cli_error("run", "%s", err);
	for (size_t h = 0; rc == 0 && h < p->nhosts; h++)
		r->mine[h] = r->host_rank[h] == r->cl.rank;
	rp_profile_free(p);
	return rc;
}

/* Every rank past a step of the set-up, or all stop: the user reads one line,
 * the first failing rank's, from rank 0. A rank stopped meanwhile (Ctrl-C or
 * SIGTERM to the launcher: lib/cluster/guard.c) stops them all as well, before
 * any traffic: nothing was measured, rank 0 says no result was written. */
static bool all_ready(struct run *r, int rc, const char *held)
{
	if (!r->cl.launched)
		return rc == 0;
	if (r->failed) /* every rank learnt it in the same step and stops asking */
		return false;
	char first[600];
	bool stop = false, all = false;
	if (rp_cluster_agree(&r->cl, rc ? (held[0] ? held : "set-up failed") : "", first, sizeof(first))) {
		if (rp_cluster_any_all(&r->cl, rp_cli_stop != 0, true, &stop, &all) == 0 && !stop)
			return true;
		rp_cluster_say_stopped(&r->cl, "before the traffic started");
		r->stopped = true;
	} else if (r->cl.rank == 0) {
		fprintf(stderr, "roceprobe run: %s\n", first);
	}
	r->failed = true;
	return false;
}

/* While the ports are polled: once this rank's senders are done (or its loop
 * stopped sending: Ctrl-C, --duration), wait for every other rank's in a
 * barrier, then let the run's linger, or the drain, begin everywhere. The
 * only MPI call during the run. */
static void *wait_for_senders(void *arg)
{
	struct run *r = arg;
	/* A plan with verbs flows (the same choice on every rank): every 100 ms
	 * the ranks agree whether one was stopped and whether all senders are
	 * done, which keeps MPI's connections in use through a long run (in the
	 * VM lab a Ctrl-C after 25 quiet seconds met Open MPI's "failed to TCP
	 * connect" at the final barrier, three times). */
	while (r->nrecs) {
		bool stop = false, all = false;
		if (rp_cluster_any_all(&r->cl, rp_cli_stop != 0, r->tx_done || r->gen_over, &stop, &all) != 0)
			break;
		if (stop)
			rp_cli_stop = 1;
		if (all) {
			r->others_done = true;
			return NULL;
		}
		struct timespec ts = {.tv_nsec = 100000000};
		nanosleep(&ts, NULL);
	}
	while (!r->tx_done && !r->gen_over) { /* tx_done: sources done, or the loop stopped (Ctrl-C, duration) */
		struct timespec ts = {.tv_nsec = 1000000};
		nanosleep(&ts, NULL);
	}
	rp_cluster_watch_barrier(&r->cl); /* the living ranks' senders */
	r->others_done = true;
	return NULL;
}

/* A rank's packet_clock_gap_ns, the larger in size; 0 when it has none
 * (verbs ranks, a lost rank). */
static int64_t packet_clock_err(const struct rp_rank_env *e)
{
	int64_t worst = 0;
	for (unsigned i = 0; e->present && i < 2; i++) {
		int64_t v = e->pclock_gap[i] < 0 ? -e->pclock_gap[i] : e->pclock_gap[i];
		worst = v > worst ? v : worst;
	}
	return worst;
}

/* Rank 0 gets one accountant holding every rank's flows and ports: their
 * results only (docs/cluster.md, "Scale": ~0.95 KB a flow at 1024 hosts). */
static int merge_ranks(struct run *r, const struct run_opts *o)
{
	char err[512], eerr[512] = "";
	(void)o; /* the facts are this rank's (rank_facts) */
	int rc = rp_cluster_rank_envs(&r->cl, &r->own, &r->envs, eerr, sizeof(eerr));
	r->nenvs = r->envs ? (size_t)r->cl.size : 0;
	if (r->envs && (r->rank_pclock_err = calloc((size_t)r->cl.size, sizeof(int64_t))))
		for (int k = 0; k < r->cl.size; k++)
			r->rank_pclock_err[k] = packet_clock_err(&r->envs[k]);
	size_t n = rp_acct_nflows(r->acct);
	bool *own_flow = calloc(n ? n : 1, sizeof(*own_flow));
	/* A flow whose receiver's rank died is its sender's rank's to ship: its
	 * accountant has the senders' combined counts (and nothing received). */
	for (size_t i = 0; own_flow && i < n; i++) {
		const struct rp_flow *pf = &r->s.plan.flows[r->flow_of[i]];
		own_flow[i] = r->mine[pf->dst] || (r->mine[pf->src] && rp_cluster_rank_lost(&r->cl, r->host_rank[pf->dst]));
	}
	/* The merged series covers what happened, not the plan's generous span: after
	 * Ctrl-C mpirun gives the ranks a second before it kills them. */
	struct rp_acct_cfg mc = r->acfg;
	if (r->all_flows) { /* every flow of the plan */
		mc.flows = r->all_flows;
		mc.nflows = r->all_nflows;
	}
	if (r->all_ports) { /* every host's port */
		mc.ports = r->all_ports;
		mc.nports = r->all_nports;
	}
	uint64_t used = r->s.g.end_ns + LINGER_NS + max_delay(r->s.prof) + 10000000ull;
	mc.run_ns = used < mc.run_ns ? used : mc.run_ns;
	mc.results_only = true; /* rows and sparse histograms, the ports' non-zero cells: bounded (acct.h) */
	struct rp_acct *merged = r->cl.rank == 0 ? rp_acct_create(&mc, err, sizeof(err)) : NULL;
	const bool *own_port = r->all_ports ? NULL : r->mine; /* a share's ports are all its own */
	if (rp_cluster_acct_merge(&r->cl, r->acct, own_flow, own_port, merged, err, sizeof(err)) != 0)
		rc = r->cl.rank == 0 ? rp_cli_error("run", "%s", err) : RP_EXIT_USAGE;
	else if (rc != 0) /* a rank's facts missing or bad */
		rc = r->cl.rank == 0 ? rp_cli_error("run", "%s", eerr) : RP_EXIT_USAGE;
	free(own_flow);
	if (r->cl.rank == 0) {
		rp_acct_destroy(r->acct);
		r->acct = merged;
		if (r->all_flow_of) { /* the merged accountant's flows are the plan's */
			free(r->flow_of);
			r->flow_of = r->all_flow_of;
			r->all_flow_of = NULL;
		}
	}
	uint64_t stop = rp_cli_stop; /* one rank interrupted: the run was */
	rp_cluster_max_u64(&r->cl, &stop, 1);
	rp_cli_stop = (sig_atomic_t)stop;
	return rc;
}

/* Plan time 0 at T0 on this rank's corrected clock: the packet clock starts
 * as many ns ago as the rank is late now, from one reading of both clocks
 * (rp_dp_clock_start_on: a reader the CPU is taken from retries). How far
 * it started off is kept, and again after the run how far it has gone
 * (the TSC's rate against the system clock's): both enter the bound. */
static void start_packet_clock(struct run *r)
{
	r->pclock_gap[0] = rp_dp_clock_start_on(corrected_ns, r, r->t0_ns);
}

/* The plan's verbs flows (every rank counts them the same way) and this
 * rank's ends of them: devices, GIDs, QPs. Right after the session opened,
 * before DIR is made: a missing device leaves nothing behind, as a missing
 * port does. */
static int setup_verbs(struct run *r)
{
#ifdef RP_HAVE_VERBS
	r->nrecs = rp_vengine_layout(&r->s.plan, NULL);
	r->verbs_here = r->s.verbs_hosts > 0;
	if (r->verbs_here && r->s.nports)
		return rp_cli_error("run", "rank %d (node %s) runs hosts of both engines (dpdk and verbs): give each engine's "
				    "hosts their own ranks (rank: or node:)", r->cl.rank, r->cl.ranks[r->cl.rank].node);
	if (!r->verbs_here)
		return 0;
	struct rp_vengine_cfg vc = {.plan = &r->s.plan, .mine = r->cl.launched ? r->mine : NULL, .clock = verbs_clock,
				    .clock_arg = r};
	char err[RP_ERR_LEN + 128];
	int rc = rp_vengine_create(&vc, &r->ve, err, sizeof(err));
	return rc ? rp_cli_error("run", "%s", err) : 0;
#else
	for (size_t i = 0; i < r->s.plan.nflows; i++)
		if (r->s.prof->hosts[r->s.plan.flows[i].src].engine.engine == RP_ENGINE_VERBS)
			return rp_cli_error("run", "%s: host '%s' has engine: verbs, but this roceprobe was built without "
					    "rdma-core (libibverbs-dev, librdmacm-dev)", r->s.profile_path,
					    r->s.prof->hosts[r->s.plan.flows[i].src].name);
	return 0;
#endif
}

#ifdef RP_HAVE_VERBS
/* The verbs receivers' messages go to the run's accountant (after setup_rx). */
static int account_verbs(struct run *r)
{
	size_t n = r->s.plan.nflows;
	uint32_t *acct_of = calloc(n ? n : 1, sizeof(*acct_of));
	if (!acct_of)
		return rp_cli_error("run", "out of memory");
	for (size_t i = 0; i < n; i++)
		acct_of[i] = UINT32_MAX;
	for (size_t a = 0; a < rp_acct_nflows(r->acct); a++)
		acct_of[r->flow_of[a]] = (uint32_t)a;
	rp_vengine_account(r->ve, r->acct, acct_of);
	free(acct_of); /* each end keeps its index */
	return 0;
}

/* The QP records (over MPI: rp_cluster_alltoallv), each only to the rank that
 * needs it: record r (sender's of a QP at an even index, receiver's at the odd
 * one after it) is filled by the rank of its host and read by the rank of its
 * peer's, r ^ 1. Then this rank's QPs go to RTS toward their peers. Every
 * rank takes part, verbs hosts or not. A rank sends and receives 2 records
 * per QP it has an end of, not the whole table (1024 hosts all-to-all: 2046
 * of 2,095,104 records, 200 KB instead of an allgather of 200 MB x 1024). */
/* Every record entry's host, in one pass over the layout: flow i's entries
 * run from base[i] to the next verbs flow's base, its sender's at even
 * offsets (QP q: base + 2q) and its receiver's at odd ones. */
static unsigned *rec_hosts(const struct rp_plan *plan, size_t nrecs)
{
	size_t *base = calloc(plan->nflows ? plan->nflows : 1, sizeof(*base));
	unsigned *host = calloc(nrecs ? nrecs : 1, sizeof(*host));
	if (!base || !host) {
		free(base);
		free(host);
		return NULL;
	}
	rp_vengine_layout(plan, base);
	size_t prev = SIZE_MAX; /* the verbs flow before i: its entries end where i's begin */
	for (size_t i = 0; i <= plan->nflows; i++) {
		if (i < plan->nflows && base[i] == SIZE_MAX)
			continue;
		size_t end = i < plan->nflows ? base[i] : nrecs;
		for (size_t e = prev != SIZE_MAX ? base[prev] : end; e < end && e < nrecs; e++)
			host[e] = (e - base[prev]) % 2 ? plan->flows[prev].dst : plan->flows[prev].src;
		prev = i;
	}
	free(base);
	return host;
}

static int exchange_verbs(struct run *r)
{
	size_t len = r->nrecs * RP_VENGINE_REC, size = (size_t)r->cl.size, nsend = 0;
	char *table = calloc(1, len), err[RP_ERR_LEN + 128];
	size_t *counts = calloc(size, sizeof(*counts)), *at = calloc(size, sizeof(*at)), *rlens = NULL;
	if (!counts || !at) { /* the exchange below needs a count for every rank */
		rp_cli_error("run", "out of memory for %zu ranks' QP records", size);
		rp_cluster_abort(&r->cl, RP_EXIT_USAGE);
	}
	unsigned *host = rec_hosts(&r->s.plan, r->nrecs);
	int rc = table && host ? 0 : rp_cli_error("run", "out of memory for %zu QP records", r->nrecs);
	if (table && r->ve)
		rp_vengine_records(r->ve, table);
	/* Out: (u32 record index, record) to the peer's rank, rank after rank. */
	const size_t one = 4 + RP_VENGINE_REC;
	for (size_t i = 0; rc == 0 && i < r->nrecs; i++) {
		unsigned h = host[i], peer = host[i ^ 1];
		if (r->cl.launched && r->host_rank[h] == r->cl.rank && r->host_rank[peer] != r->cl.rank) {
			counts[r->host_rank[peer]] += one;
			nsend++;
		}
	}
	uint8_t *out = calloc(nsend ? nsend : 1, one), *in = NULL;
	if (!out && rc == 0)
		rc = rp_cli_error("run", "out of memory for %zu QP records", nsend);
	for (size_t k = 1; rc == 0 && k < size; k++)
		at[k] = at[k - 1] + counts[k - 1];
	for (size_t i = 0; rc == 0 && i < r->nrecs; i++) {
		unsigned h = host[i], peer = host[i ^ 1];
		if (!r->cl.launched || r->host_rank[h] != r->cl.rank || r->host_rank[peer] == r->cl.rank)
			continue;
		uint8_t *o = out + at[r->host_rank[peer]];
		at[r->host_rank[peer]] += one;
		uint32_t idx = (uint32_t)i;
		memcpy(o, &idx, 4);
		memcpy(o + 4, table + i * RP_VENGINE_REC, RP_VENGINE_REC);
	}
	if (rc != 0) /* this rank has nothing to say, but says it */
		memset(counts, 0, size * sizeof(*counts));
	if (rp_cluster_alltoallv(&r->cl, out ? out : (const uint8_t *)"", counts, &in, &rlens) != 0 && rc == 0)
		rc = rp_cli_error("run", "the ranks could not exchange their QP records");
	size_t total = 0;
	for (size_t k = 0; rc == 0 && k < size; k++)
		total += rlens[k];
	for (size_t o = 0; rc == 0 && o + one <= total; o += one) {
		uint32_t idx;
		memcpy(&idx, in + o, 4);
		if (idx >= r->nrecs || r->host_rank[host[idx ^ 1]] != r->cl.rank)
			rc = rp_cli_error("run", "a QP record for entry %u that is not this rank's to read", idx);
		else
			memcpy(table + (size_t)idx * RP_VENGINE_REC, in + o + 4, RP_VENGINE_REC);
	}
	if (rc == 0 && r->ve && rp_vengine_connect(r->ve, table, err, sizeof(err)) != 0)
		rc = rp_cli_error("run", "%s", err);
	free(out);
	free(in);
	free(rlens);
	free(counts);
	free(at);
	free(host);
	free(table);
	return rc;
}

/* Whether host h's rank died (the watch). */
static bool verbs_host_lost(void *arg, unsigned h)
{
	const struct run *r = arg;
	return rp_cluster_rank_lost(&r->cl, r->host_rank[h]);
}

/* This rank's verbs ends from T0 until every rank's senders are done. */
static int run_verbs(struct run *r, const struct run_opts *o)
{
	struct rp_vengine_run vr = {.stop = &rp_cli_stop, .duration_ns = (uint64_t)(o->duration_s * 1e9),
				    .tx_done = &r->tx_done, .others_done = r->cl.launched ? &r->others_done : NULL,
				    .host_lost = r->cl.launched ? verbs_host_lost : NULL, .host_lost_arg = r};
	char err[RP_ERR_LEN + 128];
	uint64_t end = 0;
	int rc = rp_vengine_run(r->ve, &vr, &end, err, sizeof(err));
	r->tx_done = true;
	r->s.g.end_ns = end;
	if (rc)
		fprintf(stderr, "roceprobe run: %s (the run goes on to its result)\n", err);
	return rc ? RP_EXIT_USAGE : 0;
}
#endif

int rp_cmd_run(int argc, char **argv)
{
	struct run_opts o;
	int rc = parse_args(argc, argv, &o);
	if (rc != 0)
		return rc < 0 ? RP_EXIT_OK : rc;
	static struct run r;
	char err[RP_CLUSTER_ERR_LEN], held[512] = "", *text = NULL;
	/* Caught from here on: a Ctrl-C during set-up also ends through cleanup(). */
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
	rc = place_hosts(&r, &o, &text);
	struct rp_session_opts so = {.sets = o.sets, .nsets = o.nsets, .allow_pause_storm = o.allow_pause_storm,
				     .receivers = true, .eal = o.eal, .lcores = 1, .queues = o.lcores, .profile_text = text,
				     .hosts = r.cl.launched ? r.mine : NULL, .defer_traffic = true,
				     .host_rank = r.cl.launched ? r.host_rank : NULL,
				     .nranks = (size_t)r.cl.size, .ranks = r.launch,
				     .neigh_refresh_ns = o.neigh_refresh_ns, .no_preflight = o.no_preflight,
				     .stop = r.cl.launched ? &rp_cli_stop : NULL};
	/* Ranks on one machine poll on different CPUs (as many as there are). */
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (r.cl.launched && ncpu > 0)
		so.first_core = (unsigned)(r.cl.ranks[r.cl.rank].local_rank % ncpu);
	/* The profile is checked before DIR is made: bad input leaves nothing behind. */
	if (rc == 0 && r.cl.rank == 0)
		rc = rp_cli_outdir_check("run", o.out, o.force);
	if (rc == 0)
		rc = session_said(&r.s, rp_session_open(&r.s, "run", o.profile, &so));
	/* Every rank learns every host's addresses (mac: auto, ipv4: netdev) from the
	 * rank that runs it, before any frame: duplicates stop the run here. */
	if (all_ready(&r, rc, held)) {
		if (r.cl.launched && rp_cluster_host_addrs(&r.cl, r.s.prof, r.host_rank, err, sizeof(err)) != 0)
			rc = rp_cli_error("run", "%s", err);
		if (rc == 0)
			rc = session_said(&r.s, rp_session_addresses(&r.s));
	}
	if (rc == 0)
		rc = setup_verbs(&r);
	/* Rank 0 makes (or clears) DIR, then the others make theirs (another machine's). */
	struct stat out_st;
	bool out_made = stat(o.out, &out_st) != 0, out_prepared = false; /* DIR ready for this run's files */
	if (all_ready(&r, rc, held) && r.cl.rank == 0) {
		rc = rp_cli_outdir("run", o.out, o.force);
		out_prepared = rc == 0;
	}
	if (r.cl.launched && all_ready(&r, rc, held) && r.cl.rank != 0) {
		rc = rp_outdir_mkdirs(o.out, held, sizeof(held)) == 0 ? 0 : RP_EXIT_USAGE;
		out_prepared = rc == 0;
	}
	if (rc == 0 && !r.failed) {
		if (!r.s.verbs_hosts)
			rp_dp_clock_start();
		rc = setup_rx(&r, &o);
	}
#ifdef RP_HAVE_VERBS
	if (rc == 0 && !r.failed && r.ve)
		rc = account_verbs(&r);
#endif
	/* ARP/ND before traffic, into the captures too (a rank stopped meanwhile
	 * stops with the others at the next step instead). */
	if (rc == 0 && !r.failed && !r.verbs_here && !(r.cl.launched && rp_cli_stop)) {
		struct rp_capture *caps[RP_DP_MAX_PORTS];
		for (unsigned i = 0; i < r.s.nports; i++) {
			caps[i] = r.rx[0].ports[r.s.tx[i].index].cap;
			rp_txpath_begin(&r.txpath[i], &r.s, i); /* before its first frame, ARP/ND included */
		}
		rc = session_said(&r.s, rp_session_traffic(&r.s, caps));
	}
	bool ready = all_ready(&r, rc, held);
#ifdef RP_HAVE_VERBS
	if (ready && r.nrecs) { /* QP records, then every QP at RTS, before T0 */
		rc = exchange_verbs(&r);
		ready = all_ready(&r, rc, held);
	}
#endif
	rp_cli_hold_errors(NULL, 0);
	if (!ready) {
		cleanup(&r);
		if (out_prepared) /* a gateway that never answered: no empty DIR, no header-only captures */
			rp_outdir_abandon(o.out, out_made);
		free(text);
		return rc ? rc : r.stopped ? RP_CLUSTER_EXIT_INCOMPLETE : RP_EXIT_USAGE;
	}
	r.started = time(NULL);
	snapshot_xstats(&r);
	r.offsets = calloc((size_t)r.cl.size, sizeof(*r.offsets));
	r.offsets_after = calloc((size_t)r.cl.size, sizeof(*r.offsets_after));
	if (r.cl.launched) {
		/* Clock offsets, then every rank starts at T0 on rank 0's clock. */
		rp_cluster_clocks(&r.cl, 20, r.offsets);
		rp_cluster_start_at(&r.cl, r.offsets, 100000000 + 2000000ll * r.cl.size, &r.t0_ns, &r.skew_ns);
	} else {
		r.t0_ns = rp_cluster_now_ns();
	}
	/* Plan time 0 is now, not before the set-up (opening captures takes ~50 ms:
	 * a PFC source's first frames would be that late and skipped). Across ranks
	 * it is T0 on every rank's corrected clock, however late this one woke, so
	 * one-way latencies between ranks need no correction but the offsets'. */
	if (!r.verbs_here)
		start_packet_clock(&r);
	if (rp_run_nics_start(&r.nics, &r.s, r.cl.launched ? r.mine : NULL, o.counter_interval_ns, corrected_ns, &r, r.t0_ns,
			      err, sizeof(err)) != 0)
		fprintf(stderr, "roceprobe run: %s (the run goes on without NIC counters)\n", err);
	rp_cluster_watch_run(&r.cl); /* a death now stops the run, not the job */
	for (unsigned i = 0; i < r.s.nports; i++)
		if (r.rx[0].ports[r.s.tx[i].index].cap)
			rp_capture_clock_restarted(r.rx[0].ports[r.s.tx[i].index].cap);
	r.s.g = (struct rp_dp_gen){.ports = r.s.tx, .n_ports = rp_session_nqueues(&r.s), .n_lcores = r.s.nq,
				   .main_idle = r.s.nq > 1, .who = "run",
				   .duration_ns = (uint64_t)(o.duration_s * 1e9), .stop = &rp_cli_stop,
				   .progress = r.cl.rank == 0 ? rp_session_progress : NULL, .progress_arg = &r.s,
				   .rx = r.rx, .linger_ns = LINGER_NS + max_delay(r.s.prof), .idle_ns = o.idle_ns};
	pthread_t waiter;
	bool waiting = false;
	if (r.cl.launched) {
		r.s.g.tx_done = &r.tx_done;
		r.s.g.others_done = &r.others_done;
		waiting = pthread_create(&waiter, NULL, wait_for_senders, &r) == 0;
		if (!waiting)
			r.others_done = true;
	}
	int vrc = 0;
#ifdef RP_HAVE_VERBS
	if (r.verbs_here)
		vrc = run_verbs(&r, &o);
	else
#endif
		if (rp_dp_gen_run(&r.s.g) != 0)
			vrc = RP_EXIT_USAGE;
	for (unsigned i = 0; !r.verbs_here && i < r.s.nports; i++)
		rp_txpath_end(&r.txpath[i], &r.s, i);
	r.gen_over = true;
	if (waiting)
		pthread_join(waiter, NULL);
	/* Every living rank agrees whether one died (then the end avoids MPI). */
	r.lost = rp_cluster_run_over(&r.cl);
	/* The offsets again: their change over the run is each clock's drift. */
	if (r.cl.launched && !r.lost && r.offsets_after)
		r.clocks_after = rp_cluster_clocks(&r.cl, 20, r.offsets_after) == 0;
	if (r.cl.launched && !r.verbs_here)
		r.pclock_gap[1] = rp_dp_clock_gap_ns(corrected_ns, &r, r.t0_ns);
	int lrc = merge_lcores(&r) != 0 ? RP_EXIT_USAGE : 0; /* kept: the ranks' merge is collective */
	finish_accounting(&r);
	close_captures(&r);
	/* This rank's facts, while its ports are still open (their PMD counters);
	 * out of memory, a rank ships none and rank 0 says which. */
	bool facts = rank_facts(&r, &o, &r.own) == 0;
	rp_run_nics_facts(&r.nics, facts ? &r.own : NULL); /* the end sample, after the last frame */
	if (!facts)
		rp_rank_env_free(&r.own);
	if (r.cl.launched) {
		rc = merge_ranks(&r, &o);
	} else {
		r.envs = &r.own;
		r.nenvs = 1;
		if (!facts)
			rc = rp_cli_error("run", "out of memory for the run's environment");
	}
	if (lrc)
		rc = lrc;
	r.interrupted = rp_cli_stop && !r.lost; /* a dead rank's stop is no interruption */
	if (rc == 0 && r.cl.rank == 0) {
		r.unsent_by_flow = rp_rank_env_unsent_by_flow(r.envs, r.nenvs, r.s.plan.nflows);
	}
	if (rc == 0 && r.cl.rank == 0)
		rc = write_result(&r, &o);
	if (rc == 0 && r.cl.rank == 0)
		rc = write_summary(&r, &o);
	else if (rc == 0)
		rp_session_warn_rates(&r.s, stderr, NULL);
	if (rc == 0 && r.lost) {
		if (r.cl.rank == 0)
			fprintf(stderr, "roceprobe run: a rank died mid-run: %s/result.json is incomplete (exit %d)\n", o.out,
				RP_CLUSTER_EXIT_INCOMPLETE);
		rc = RP_CLUSTER_EXIT_INCOMPLETE;
	}
	cleanup(&r);
	free(text);
	return rc ? rc : vrc;
}
