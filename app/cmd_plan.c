/* roceprobe plan: expand a profile and show what a run would send, without
 * touching any port. */
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cluster/cluster.h"
#include "lab/size.h"
#include "profile/profile.h"
#include "report/plan_report.h"
#include "traffic/plan.h"

/* getopt_long's short options (rp_cli_bad_option names a bad one). */
static const char SHORTS[] = "s:jh";

#define MAX_SETS 64

struct plan_args {
	const char *path;
	const char *sets[MAX_SETS];
	size_t nsets;
	bool json;
	bool size;
	bool allow_pause_storm;
	uint64_t ranks, per_node; /* --ranks N, --per-node K: the launch a host_template expands for */
};

/* The launch --ranks N --per-node K stands for: rank r on node "node{r / K}". */
struct launch {
	struct rp_rank_info *info;
	struct rp_launch_rank *ranks;
	int *host_rank; /* [nhosts], with --ranks: as `run` binds */
};

static void usage(FILE *out)
{
	fputs("usage: roceprobe plan PROFILE [--set KEY=VALUE]... [--ranks N [--per-node K]] [--json]\n"
	      "                      [--allow-pause-storm] [--size]\n"
	      "\n"
	      "Reads a YAML profile (docs/profiles.md), expands its host_template and traffic\n"
	      "patterns into hosts and flows and prints what a run would do, without touching\n"
	      "any port:\n"
	      "  hosts      name, rank, MAC, IP addresses, DPDK port, link speed; a `mac: auto`\n"
	      "             or `ipv4: netdev` address is read at start by the rank that runs\n"
	      "             the host: shown as (port's, rank R) / (netdev, rank R); a host of\n"
	      "             several NICs (`nics:`) is one row per NIC, named HOST.NIC\n"
	      "  flows      id, src -> dst (the NICs it uses), QPs (first QPN), opcode,\n"
	      "             message size, MTU,\n"
	      "             DSCP/ECN/priority, VLAN, rate, start, stop, packets and bytes\n"
	      "  pairs      RDMA payload bytes per sender -> receiver\n"
	      "  ports      offered load per port, TX and RX, in Gbit/s and % of the link;\n"
	      "             above 100% is flagged oversubscribed (an incast is, by design)\n"
	      "  schedule   start, stop and bursts of each traffic entry; the phases of an\n"
	      "             all-to-all with their times\n"
	      "Loads are layer 1: every frame counts its length + 24 bytes (FCS 4,\n"
	      "preamble 8, inter-frame gap 12), as rates in profiles do.\n"
	      "\n"
	      "  --set KEY=VALUE      override a profile key before validation; KEY is a dotted\n"
	      "                       path: traffic.0.rate=50G, defaults.mtu=1024,\n"
	      "                       hosts.1.port=net_ring1, 'traffic.0.senders=[h1, h2]'.\n"
	      "                       Repeatable; a missing mapping key is created.\n"
	      "  --ranks N            the launch to expand for: N ranks (mpirun -np N), as a\n"
	      "                       host_template's `count: ranks` and {rank} {local_rank}\n"
	      "                       {node} {node_index} see them; hosts are bound to ranks\n"
	      "                       as `run` binds them (a host or rank left over: exit 2)\n"
	      "  --per-node K         with --ranks: K ranks per machine, named node0, node1, ...\n"
	      "                       (default 1)\n"
	      "  --json               one JSON object (hosts, flows, pairs, ports, phases)\n"
	      "  --allow-pause-storm  accept PFC sources whose quanta x fps keep a priority\n"
	      "                       paused all the time (to test switch PFC watchdogs)\n"
	      "  --size               instead of the plan: the peak memory (maximum resident)\n"
	      "                       `roceprobe lab PROFILE` would take, predicted from the\n"
	      "                       plan and the fabric, part by part (base, hosts,\n"
	      "                       switches, flows, frames held at the peak, time series);\n"
	      "                       docs/lab.md \"Memory\" has the model and its accuracy\n"
	      "                       (a profile the lab refuses: its one line, exit 2)\n"
	      "\n"
	      "examples:\n"
	      "  roceprobe plan profiles/incast-8to1.yaml\n"
	      "  roceprobe plan profiles/all-to-all-8.yaml --set defaults.message_size=1MiB --json\n"
	      "  roceprobe plan profiles/cluster-all2all-64.yaml --ranks 64 --per-node 8\n"
	      "  roceprobe plan profiles/fat-tree-8192.yaml --size\n"
	      "\n"
	      "Exit status: 0 when the profile is valid; 2 with one line\n"
	      "'roceprobe: FILE:LINE:COL: key 'K': ...' when it is not.\n",
	      out);
}

static int parse_args(int argc, char **argv, struct plan_args *a)
{
	static const struct option opts[] = {
		{"set", required_argument, NULL, 's'},
		{"json", no_argument, NULL, 'j'},
		{"allow-pause-storm", no_argument, NULL, 'A'},
		{"size", no_argument, NULL, 'z'},
		{"ranks", required_argument, NULL, 'r'},
		{"per-node", required_argument, NULL, 'k'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, SHORTS, opts, NULL)) != -1) {
		if (c == 's' && a->nsets < MAX_SETS)
			a->sets[a->nsets++] = optarg;
		else if (c == 'j')
			a->json = true;
		else if (c == 'A')
			a->allow_pause_storm = true;
		else if (c == 'z')
			a->size = true;
		else if (c == 'r' && rp_cli_uint("plan", "--ranks", optarg, 1, RP_MAX_RANKS, &a->ranks))
			return RP_EXIT_USAGE;
		else if (c == 'k' && rp_cli_uint("plan", "--per-node", optarg, 1, RP_MAX_RANKS, &a->per_node))
			return RP_EXIT_USAGE;
		else if (c == 'r' || c == 'k')
			continue;
		else if (c == 'h')
			return 1;
		else if (c == 's')
			return rp_cli_error("plan", "at most %d --set options", MAX_SETS);
		else
			return rp_cli_bad_option("plan", SHORTS);
	}
	if (optind != argc - 1)
		return rp_cli_error("plan", "expected one profile file (try 'roceprobe plan --help')");
	if (a->size && a->json)
		return rp_cli_error("plan", "--size prints text; drop --json");
	if (a->per_node && !a->ranks)
		return rp_cli_error("plan", "--per-node K needs --ranks N");
	a->path = argv[optind];
	return 0;
}

static void mib(const char *what, uint64_t bytes, const char *how)
{
	printf("  %-10s %12llu B %9.1f MiB%s%s\n", what, (unsigned long long)bytes, (double)bytes / (1 << 20),
	       *how ? "  " : "", how);
}

/* --size: the lab run's predicted peak resident memory (lib/lab/size.h). */
static int print_size(const struct plan_args *a, const struct rp_plan *pl)
{
	struct rp_lab_size z;
	char err[RP_PROFILE_ERR_LEN], how[160];
	if (rp_lab_size(pl, &z, err, sizeof(err))) {
		fprintf(stderr, "roceprobe plan: %s\n", err);
		return RP_EXIT_USAGE;
	}
	printf("size of `roceprobe lab %s`: predicted peak resident memory (docs/lab.md \"Memory\")\n", a->path);
	mib("total", z.total, "");
	mib("base", z.base, "the binary and its libraries");
	snprintf(how, sizeof(how), "%zu hosts", z.hosts);
	mib("hosts", z.host_bytes, how);
	snprintf(how, sizeof(how), "%zu switches, %zu ports", z.switches, z.ports);
	mib("switches", z.switch_bytes, how);
	snprintf(how, sizeof(how), "%zu flows", z.flows);
	mib("flows", z.flow_bytes, how);
	snprintf(how, sizeof(how), "%llu frames held at the peak (%.2f of the fabric's room; %llu sent)",
		 (unsigned long long)z.frames_flying, z.fill, (unsigned long long)z.packets);
	mib("frames", z.frame_bytes, how);
	snprintf(how, sizeof(how), "%llu bins of each host (and flow, in a run of a few)", (unsigned long long)z.bins);
	mib("series", z.series_bytes, how);
	mib("plan", z.plan_bytes, "host-pair matrices: the pages the flows touch");
	return RP_EXIT_OK;
}

static int print_json(const struct plan_args *a, const struct rp_plan *pl, const struct launch *l)
{
	json_t *root = rp_plan_json(a->path, pl, l->host_rank);
	if (!root)
		return rp_cli_error("plan", "cannot build the JSON output");
	json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', stdout);
	json_decref(root);
	return RP_EXIT_OK;
}

int rp_cmd_plan(int argc, char **argv)
{
	struct plan_args a = {0};
	int rc = parse_args(argc, argv, &a);
	if (rc == 1) {
		usage(stdout);
		return RP_EXIT_OK;
	}
	if (rc)
		return rc;
	char err[RP_PROFILE_ERR_LEN];
	struct launch l = {0};
	if (a.ranks && !(l.info = calloc(a.ranks, sizeof(*l.info))))
		return rp_cli_error("plan", "out of memory");
	uint64_t k = a.per_node ? a.per_node : 1;
	for (uint64_t r = 0; r < a.ranks; r++) {
		l.info[r].rank = (int)r;
		l.info[r].local_rank = (int)(r % k);
		snprintf(l.info[r].node, sizeof(l.info[r].node), "node%" PRIu64, r / k);
	}
	l.ranks = a.ranks ? calloc(a.ranks, sizeof(*l.ranks)) : NULL;
	if (a.ranks && l.ranks)
		rp_cluster_launch_ranks(l.info, a.ranks, l.ranks);
	struct rp_profile_opts o = {.sets = a.sets, .nsets = a.nsets, .allow_pause_storm = a.allow_pause_storm,
				    .nranks = l.ranks ? a.ranks : 0, .ranks = l.ranks};
	struct rp_profile *p = rp_profile_load(a.path, &o, err, sizeof(err));
	struct rp_plan pl;
	rc = RP_EXIT_USAGE;
	if (!p) {
		fprintf(stderr, "roceprobe: %s\n", err);
	} else if (a.ranks && (!(l.host_rank = calloc(p->nhosts, sizeof(int))) ||
			       rp_cluster_bind(p, l.info, a.ranks, l.host_rank, err, sizeof(err)) != 0)) {
		fprintf(stderr, "roceprobe plan: %s\n", l.host_rank ? err : "out of memory");
	} else if (rp_plan_build(p, &pl, err, sizeof(err))) {
		fprintf(stderr, "roceprobe: %s: %s\n", a.path, err);
	} else {
		rc = RP_EXIT_OK;
		if (a.size)
			rc = print_size(&a, &pl);
		else if (a.json)
			rc = print_json(&a, &pl, &l);
		else
			rp_plan_print_text(stdout, a.path, &pl, l.host_rank);
		rp_plan_free(&pl);
	}
	rp_profile_free(p);
	free(l.info);
	free(l.ranks);
	free(l.host_rank);
	return rc;
}
