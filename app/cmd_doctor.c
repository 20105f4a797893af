/* roceprobe doctor: is this machine ready for a profile's hosts? The checks
 * are lib/doctor's; this is usage, options and main. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cluster/cluster.h"
#include "doctor/doctor.h"
#include "traffic/plan.h"

/* getopt_long's short options (rp_cli_bad_option names a bad one). */
static const char SHORTS[] = "h";

#define DOCTOR_MAX_SETS 64

struct doctor_opts {
	const char *profile;
	bool json;
	const char *sets[DOCTOR_MAX_SETS];
	size_t nsets;
};

static void usage(FILE *out)
{
	fputs("usage: roceprobe doctor PROFILE [--json] [--set KEY=VALUE]...\n"
	      "\n"
	      "Before a run: is this machine ready for the profile's hosts (the ones this\n"
	      "process runs; under mpirun/srun each rank checks its own)? Reads /sys, /proc,\n"
	      "the ethtool ioctl and netlink; starts no DPDK poller and changes nothing.\n"
	      "Per host's port:\n"
	      "  port, driver, pci  what the port is, its netdev, driver and firmware (ethtool -i),\n"
	      "                     PCI address and NUMA node\n"
	      "  binding            vfio-pci, a bifurcated mlx5 or af_xdp on the kernel driver\n"
	      "  link, speed        the speed the port reports (ethtool) and the kernel's (sysfs);\n"
	      "                     a NIC's link is the truth: a profile speed above it FAILs, one\n"
	      "                     below it WARNs; a virtual port's speed is made up, the\n"
	      "                     profile's stays the truth\n"
	      "  mtu                the netdev's MTU against the profile's longest frame\n"
	      "  rate               the profile's offered load against the speed\n"
	      "  dcb                PFC-enabled priorities and DSCP trust (as dcb pfc show reads\n"
	      "                     them), or \"not offered\" where the driver has no DCB\n"
	      "  roce               mlx5's devlink enable_roce (\"not applicable\" elsewhere)\n"
	      "  rdma               the RDMA device on the netdev and its RoCE v2 GID\n"
	      "  ptp                the PTP hardware clock, and whether ptp4l/phc2sys run\n"
	      "For the machine: hugepages (and hugetlbfs), IOMMU groups.\n"
	      "Each finding is PASS, INFO, WARN or FAIL, with the command that fixes it.\n"
	      "\n"
	      "  --json             one JSON object (\"schema\": \"roceprobe.doctor/1\", docs/doctor.md)\n"
	      "  --set KEY=VALUE    override a profile key, as plan/run do\n"
	      "\n"
	      "example:\n"
	      "  roceprobe doctor profiles/back-to-back.yaml\n"
	      "  mpirun -np 4 roceprobe doctor profiles/cluster-all2all-64.yaml --json\n"
	      "\n"
	      "Exit status: 0 when nothing FAILs, 1 when something does, 2 with one line on bad input.\n",
	      out);
}

static int parse_args(int argc, char **argv, struct doctor_opts *o)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"set", required_argument, NULL, 's'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;
	memset(o, 0, sizeof(*o));
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, SHORTS, opts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return -1;
		} else if (c == 'j') {
			o->json = true;
		} else if (c == 's') {
			if (o->nsets == DOCTOR_MAX_SETS)
				return rp_cli_error("doctor", "more than %d --set options", DOCTOR_MAX_SETS);
			o->sets[o->nsets++] = optarg;
		} else {
			return rp_cli_bad_option("doctor", SHORTS);
		}
	}
	if (optind >= argc)
		return rp_cli_error("doctor", "a PROFILE is required (try 'roceprobe doctor --help')");
	if (optind + 1 != argc)
		return rp_cli_error("doctor", "unexpected argument '%s' (try 'roceprobe doctor --help')", argv[optind + 1]);
	o->profile = argv[optind];
	return 0;
}

/* The profile, loaded as run loads it (a host_template expanded for this
 * launch), and the hosts this rank runs. 0, or the error line's exit. */
static int load(const struct rp_cluster *c, const struct doctor_opts *o, struct rp_profile **p, bool **want)
{
	char err[RP_PROFILE_ERR_LEN > RP_CLUSTER_ERR_LEN ? RP_PROFILE_ERR_LEN : RP_CLUSTER_ERR_LEN];
	int *host_rank = NULL;
	struct rp_profile_opts po = {.sets = o->sets, .nsets = o->nsets};
	int rc = rp_cluster_profile_bind(c, o->profile, po, p, &host_rank, err, sizeof(err));
	if (rc == 0 && !(*want = calloc((*p)->nhosts, sizeof(bool)))) {
		snprintf(err, sizeof(err), "out of memory");
		rc = -1;
	}
	for (size_t h = 0; rc == 0 && h < (*p)->nhosts; h++)
		(*want)[h] = host_rank[h] == c->rank;
	free(host_rank);
	if (!rp_cluster_all_ok(c, rc == 0))
		return c->rank == 0 ? rp_cli_error("doctor", "%s", err) : RP_EXIT_USAGE;
	return 0;
}

int rp_cmd_doctor(int argc, char **argv)
{
	struct doctor_opts o;
	struct rp_cluster c;
	char err[RP_CLUSTER_ERR_LEN];
	int rc = parse_args(argc, argv, &o);
	if (rc != 0)
		return rc < 0 ? RP_EXIT_OK : rc;
	if (rp_cluster_init(&c, NULL, &argc, &argv, err, sizeof(err)) != 0)
		return rp_cli_error("doctor", "%s", err);
	struct rp_profile *p = NULL;
	bool *want = NULL;
	struct rp_plan plan;
	struct rp_doctor d = {0};
	struct rp_doctor_sys sys;
	memset(&plan, 0, sizeof(plan));
	rp_doctor_sys_real(&sys);
	if ((rc = load(&c, &o, &p, &want)) == 0 && rp_plan_build(p, &plan, err, sizeof(err)) != 0)
		rc = rp_cli_error("doctor", "%s: %s", o.profile, err);
	if (rc == 0 && rp_doctor_run(&sys, p, &plan, want, &d, err, sizeof(err)) != 0)
		rc = rp_cli_error("doctor", "%s", err);
	/* Under a launcher the ranks print in turn. */
	for (int r = 0; r < c.size; r++) {
		if (c.launched)
			rp_cluster_barrier(&c);
		if (r != c.rank || rc != 0)
			continue;
		if (c.launched && !o.json)
			printf("rank %d (node %s)\n", c.rank, c.ranks[c.rank].node);
		if (o.json)
			rp_doctor_print_json(&d, o.profile, stdout);
		else
			rp_doctor_print_text(&d, o.profile, stdout);
		fflush(stdout);
		rc = rp_doctor_worst(&d) == RP_DOCTOR_FAIL ? RP_EXIT_FAIL : RP_EXIT_OK;
	}
	rp_doctor_free(&d);
	if (p)
		rp_plan_free(&plan);
	rp_profile_free(p);
	free(want);
	rp_cluster_finalize(&c);
	return rc;
}
