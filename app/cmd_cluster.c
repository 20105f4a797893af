/* roceprobe cluster: before a long run across machines, check the launch
 * itself: every rank, its node, its clock's offset to rank 0 with an error
 * bound, and which rank runs which host of a profile. */
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cluster/cluster.h"
#include "profile/profile.h"

/* getopt_long's short options (rp_cli_bad_option names a bad one). */
static const char SHORTS[] = "jr:h";

struct cluster_opts {
	const char *profile;
	bool json;
	unsigned long rounds;
};

static void usage(FILE *out)
{
	fputs("usage: [mpirun -np N | srun -n N] roceprobe cluster [PROFILE] [--json] [--rounds N]\n"
	      "\n"
	      "Checks a multi-machine launch before any traffic: every rank reports its node\n"
	      "(hostname) and local rank; rank 0 measures each rank's clock offset by ping-pong\n"
	      "over MPI (the round trip with the smallest RTT; the offset is exact within\n"
	      "+- RTT/2, whatever the path's asymmetry) and says what disciplines each clock\n"
	      "(ptp: ptp4l/phc2sys running; ntp: the kernel says synchronised; none).\n"
	      "With a PROFILE it binds hosts to ranks as `run` does: `rank: R`, or `node: NAME`\n"
	      "(the node's ranks in local-rank order, in profile order), else host i on rank i;\n"
	      "a host without a rank or a rank without a host is one line and exit 2. A\n"
	      "host_template is expanded for this launch first (one host per rank).\n"
	      "Without a launcher it is one rank, and a profile that places hosts on other\n"
	      "ranks or nodes is refused.\n"
	      "\n"
	      "  --json        one JSON object on rank 0's stdout\n"
	      "  --rounds N    ping-pongs per rank (default 50)\n"
	      "\n"
	      "Example: mpirun --allow-run-as-root -np 4 roceprobe cluster profiles/incast-8to1.yaml\n",
	      out);
}

static int parse_args(int argc, char **argv, struct cluster_opts *o)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"rounds", required_argument, NULL, 'r'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	*o = (struct cluster_opts){.rounds = 50};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, SHORTS, opts, NULL)) != -1) {
		switch (c) {
		case 'j': o->json = true; break;
		case 'r': {
			uint64_t v;
			if (rp_cli_uint("cluster", "--rounds", optarg, 1, 100000, &v))
				return RP_EXIT_USAGE;
			o->rounds = (unsigned long)v;
			break;
		}
		case 'h': usage(stdout); return -1;
		default: return rp_cli_bad_option("cluster", SHORTS);
		}
	}
	if (optind < argc - 1)
		return rp_cli_error("cluster", "expected at most one profile (try 'roceprobe cluster --help')");
	o->profile = optind == argc - 1 ? argv[optind] : NULL;
	return 0;
}

/* Every rank's clock source, gathered (4 characters each). */
struct rank_clock {
	char source[8];
};

static void print_text(const struct rp_cluster *c, const struct rp_clock_offset *off, const struct rank_clock *src,
		       const struct rp_profile *p, const int *host_rank)
{
	printf("roceprobe cluster: %d rank%s, launcher %s\n\n", c->size, c->size == 1 ? "" : "s", c->launcher);
	printf("%5s %-20s %5s %14s %12s %10s %6s\n", "rank", "node", "local", "offset ns", "+- ns", "rtt ns", "clock");
	for (int r = 0; r < c->size; r++)
		printf("%5d %-20s %5d %14" PRId64 " %12" PRId64 " %10" PRId64 " %6s\n", r, c->ranks[r].node,
		       c->ranks[r].local_rank, off[r].offset_ns, off[r].bound_ns, off[r].rtt_ns, src[r].source);
	if (!p)
		return;
	printf("\n%-16s %5s %s\n", "host", "rank", "node");
	for (size_t h = 0; h < p->nhosts; h++)
		printf("%-16s %5d %s\n", p->hosts[h].name, host_rank[h], c->ranks[host_rank[h]].node);
}

static void print_json(const struct rp_cluster *c, const struct rp_clock_offset *off, const struct rank_clock *src,
		       const struct rp_profile *p, const int *host_rank)
{
	json_t *ranks = json_array(), *hosts = p ? json_array() : json_null();
	for (int r = 0; r < c->size; r++)
		json_array_append_new(ranks, json_pack("{s:i, s:s, s:i, s:I, s:I, s:I, s:s}", "rank", r, "node",
						       c->ranks[r].node, "local_rank", c->ranks[r].local_rank,
						       "clock_offset_ns", (json_int_t)off[r].offset_ns, "clock_bound_ns",
						       (json_int_t)off[r].bound_ns, "rtt_ns", (json_int_t)off[r].rtt_ns,
						       "clock_source", src[r].source));
	for (size_t h = 0; p && h < p->nhosts; h++)
		json_array_append_new(hosts, json_pack("{s:s, s:i, s:s}", "host", p->hosts[h].name, "rank", host_rank[h],
						       "node", c->ranks[host_rank[h]].node));
	json_t *root = json_pack("{s:s, s:s, s:i, s:o, s:o}", "schema", "roceprobe.cluster/1", "launcher", c->launcher,
				 "size", c->size, "ranks", ranks, "hosts", hosts);
	json_dumpf(root, stdout, JSON_INDENT(2));
	fputc('\n', stdout);
	json_decref(root);
}

/* The profile loaded and bound on every rank (each rank reads the same file);
 * 0, or an error line printed by rank 0 only. */
static int bind_profile(const struct rp_cluster *c, const char *path, struct rp_profile **p, int **host_rank)
{
	char err[RP_PROFILE_ERR_LEN > RP_CLUSTER_ERR_LEN ? RP_PROFILE_ERR_LEN : RP_CLUSTER_ERR_LEN];
	int rc = rp_cluster_profile_bind(c, path, (struct rp_profile_opts){0}, p, host_rank, err, sizeof(err));
	/* Each rank found the same answer from the same inputs; rank 0 says it. */
	if (!rp_cluster_all_ok(c, rc == 0))
		return c->rank == 0 ? rp_cli_error("cluster", "%s", err) : RP_EXIT_USAGE;
	return 0;
}

int rp_cmd_cluster(int argc, char **argv)
{
	struct cluster_opts o;
	struct rp_cluster c;
	char err[RP_CLUSTER_ERR_LEN];
	int rc = parse_args(argc, argv, &o);
	if (rc != 0)
		return rc < 0 ? RP_EXIT_OK : rc;
	if (rp_cluster_init(&c, NULL, &argc, &argv, err, sizeof(err)) != 0)
		return rp_cli_error("cluster", "%s", err);
	struct rp_profile *p = NULL;
	int *host_rank = NULL;
	struct rp_clock_offset *off = calloc((size_t)c.size, sizeof(*off));
	struct rank_clock mine = {{0}}, *src = calloc((size_t)c.size, sizeof(*src));
	snprintf(mine.source, sizeof(mine.source), "%s", rp_cluster_clock_source());
	if (!off || !src)
		rc = rp_cli_error("cluster", "out of memory");
	if (rc == 0 && o.profile)
		rc = bind_profile(&c, o.profile, &p, &host_rank);
	if (rc == 0 && (rp_cluster_allgather(&c, &mine, sizeof(mine), src) != 0 ||
			rp_cluster_clocks(&c, (unsigned)o.rounds, off) != 0))
		rc = rp_cli_error("cluster", "the clock exchange between ranks failed");
	if (rc == 0 && c.rank == 0)
		(o.json ? print_json : print_text)(&c, off, src, p, host_rank);
	free(host_rank);
	rp_profile_free(p);
	free(src);
	free(off);
	rp_cluster_finalize(&c);
	return rc;
}
