/* roceprobe run: the profile's senders and receivers on their DPDK ports in
 * one process; loss, latency, ECN/CNP and PFC accounted; result.json,
 * summary.txt and an optional capture written to a directory. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
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
#include "run/engine.h"
#include "run/nics.h"
#include "run/run.h"
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

/* A step's error (lib/run: one line in r->s.err) said as every error of
 * this command is: printed, or held for the ranks to agree on. */
static int said(const struct rp_run *r, int rc)
{
	if (rc && r->s.err[0])
		rp_cli_error("run", "%s", r->s.err);
	return rc;
}

/* Every flow's sender has engine: verbs. */
static bool all_verbs(const struct rp_session *s)
{
	for (size_t i = 0; i < s->plan.nflows; i++)
		if (s->prof->hosts[s->plan.flows[i].src].engine.engine != RP_ENGINE_VERBS)
			return false;
	return s->plan.nflows > 0;
}


/* result.json's "verbs" (docs/results.md): every verbs host with its rank,
 * device, GID and NIC counters, and one row per QP of every verbs flow, its
 * sender's half and its receiver's half (from two ranks) joined. */
static json_t *verbs_json(const struct rp_run *r)
{
	return rp_env_verbs_json(r->envs, r->nenvs);
}

/* Every rank's ports. */
static json_t *all_ports_env(const struct rp_run *r)
{
	return rp_env_ports_json(r->envs, r->nenvs);
}

/* result.json's "cluster": the launch, and per rank its node, hosts, clock
 * offset to rank 0 with its bound, and how late it started. */
static json_t *cluster_json(const struct rp_run *r)
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
		int64_t b = rp_run_rank_clock_bound(r, k);
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
static json_t *capture_json(const struct rp_run *r, const struct run_opts *o)
{
	return o->capture ? rp_env_captures_json(r->envs, r->nenvs) : json_null();
}

/* result.json's "hosts": every host's addresses as the run used them, the
 * ones its rank read at start (mac: auto, ipv4/ipv6: netdev) included. */
static json_t *hosts_json(const struct rp_run *r)
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
static const char *lost_side(const struct rp_run *r, uint32_t f)
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
	const struct rp_run *r = ctx;
	json_t *f = rp_report_flow_item(r->acct, i);
	struct rp_acct_flow_result x;
	rp_acct_flow(r->acct, i, &x);
	json_object_set_new(f, "latency_shown", json_string(rp_report_latency_shown(&x, rp_run_flow_clock_bound(r, i), NULL, 0)));
	json_object_set_new(f, "tx_unsent",
			    json_integer(r->unsent_by_flow ? (json_int_t)r->unsent_by_flow[r->flow_of[i]] : 0));
	const struct rp_flow *pf = &r->s.plan.flows[r->flow_of[i]];
	if (r->cl.launched && r->host_rank[pf->src] != r->host_rank[pf->dst]) {
		/* Across ranks the one-way latency carries both clocks' errors; below that it
		 * says nothing, and the round trip (rtt_ns, echoes) is the figure to read. */
		int64_t bound = rp_run_flow_clock_bound(r, i);
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
	const struct rp_run *r = ctx;
	return r->lost && lost_side(r, r->flow_of[i]);
}

/* The ports; after a rank died, its hosts' ports (nothing measured: zeros)
 * say so. */
static json_t *ports_json(const struct rp_run *r)
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
static json_t *lost_hosts_json(const struct rp_run *r)
{
	json_t *a = json_array();
	for (size_t h = 0; h < r->s.prof->nhosts; h++)
		if (rp_cluster_rank_lost(&r->cl, r->host_rank[h]))
			json_array_append_new(a, json_string(r->s.prof->hosts[h].name));
	return a;
}

/* A mixed run's aggression windows (rp_plan_aggression: at most one per
 * traffic entry), named by their entries; *w is the caller's to free. */
static size_t aggression_windows(const struct rp_run *r, struct rp_report_window **w)
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

static bool host_in_plan(const struct rp_run *r, unsigned h)
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
static json_t *pause_json(const struct rp_run *r, unsigned h, json_t *vhosts, const struct rp_report_window *w, size_t n)
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
static json_t *aggression_json(const struct rp_run *r, json_t *verbs)
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
	const struct rp_run *r = ctx;
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
static int write_result(const struct rp_run *r, const struct run_opts *o)
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
	const struct rp_run *r = ctx;
	return lost_side(r, r->flow_of[i]);
}

static bool sum_cross_rank(void *ctx, size_t i)
{
	const struct rp_run *r = ctx;
	const struct rp_flow *pf = &r->s.plan.flows[r->flow_of[i]];
	return r->cl.launched && r->host_rank[pf->src] != r->host_rank[pf->dst];
}

static int64_t sum_flow_bound(void *ctx, size_t i)
{
	return rp_run_flow_clock_bound(ctx, i);
}

/* What the session printed (lib/run: rate warnings, next hops), as text the
 * summary holds; NULL when it printed nothing. */
static char *session_text(const struct rp_run *r, bool hops)
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
static int sum_ranks(const struct rp_run *r, struct sum_parts *p)
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
			.clock_bound_ns = rp_run_rank_clock_bound(r, k)};
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
static int sum_aggression(const struct rp_run *r, struct sum_parts *p)
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

static int summary_view(const struct rp_run *r, struct rp_summary *s, struct sum_parts *p)
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

static int write_summary(const struct rp_run *r, const struct run_opts *o)
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

/* Every rank past a step of the set-up, or all stop: the user reads one line,
 * the first failing rank's, from rank 0. A rank stopped meanwhile (Ctrl-C or
 * SIGTERM to the launcher: lib/cluster/guard.c) stops them all as well, before
 * any traffic: nothing was measured, rank 0 says no result was written. */
static bool all_ready(struct rp_run *r, int rc, const char *held)
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

/* The result (rank 0) or the rates' warnings (the other ranks); a rank that
 * died mid-run makes it incomplete (exit 3). */
static int finish(struct rp_run *r, const struct run_opts *o, int rc)
{
	if (rc == 0 && r->cl.rank == 0)
		rc = write_result(r, o);
	if (rc == 0 && r->cl.rank == 0)
		rc = write_summary(r, o);
	else if (rc == 0)
		rp_session_warn_rates(&r->s, stderr, NULL);
	if (rc == 0 && r->lost) {
		if (r->cl.rank == 0)
			fprintf(stderr, "roceprobe run: a rank died mid-run: %s/result.json is incomplete (exit %d)\n", o->out,
				RP_CLUSTER_EXIT_INCOMPLETE);
		rc = RP_CLUSTER_EXIT_INCOMPLETE;
	}
	return rc;
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
	char err[RP_CLUSTER_ERR_LEN], held[512] = "", *text = NULL;
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
	struct rp_profile_opts po = {.sets = o.sets, .nsets = o.nsets, .allow_pause_storm = o.allow_pause_storm};
	rc = said(&r, rp_run_place(&r, o.profile, &po, &text));
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
		rc = said(&r, rp_session_open(&r.s, "run", o.profile, &so));
	/* Every rank learns every host's addresses (mac: auto, ipv4: netdev) from the
	 * rank that runs it, before any frame: duplicates stop the run here. */
	if (all_ready(&r, rc, held)) {
		if (r.cl.launched && rp_cluster_host_addrs(&r.cl, r.s.prof, r.host_rank, err, sizeof(err)) != 0)
			rc = rp_cli_error("run", "%s", err);
		if (rc == 0)
			rc = said(&r, rp_session_addresses(&r.s));
	}
	if (rc == 0)
		rc = said(&r, rp_run_engine_setup(&r));
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
	if (rc == 0 && !r.failed)
		rc = said(&r, rp_run_accounting(&r));
	if (rc == 0 && !r.failed && r.eng->account)
		rc = said(&r, r.eng->account(&r));
	/* ARP/ND before traffic, into the captures too (a rank stopped meanwhile
	 * stops with the others at the next step instead). */
	if (rc == 0 && !r.failed && r.eng->prepare && !(r.cl.launched && rp_cli_stop))
		rc = said(&r, r.eng->prepare(&r));
	bool ready = all_ready(&r, rc, held);
	if (ready && r.nrecs) { /* QP records, then every QP at RTS, before T0 */
		rc = said(&r, rp_run_connect(&r));
		ready = all_ready(&r, rc, held);
	}
	rp_cli_hold_errors(NULL, 0);
	if (!ready) {
		rp_run_close(&r);
		if (out_prepared) /* a gateway that never answered: no empty DIR, no header-only captures */
			rp_outdir_abandon(o.out, out_made);
		free(text);
		return rc ? rc : r.stopped ? RP_CLUSTER_EXIT_INCOMPLETE : RP_EXIT_USAGE;
	}
	int vrc = 0;
	rc = said(&r, rp_run_go(&r, &vrc));
	rc = finish(&r, &o, rc);
	rp_run_close(&r);
	free(text);
	return rc ? rc : vrc;
}
