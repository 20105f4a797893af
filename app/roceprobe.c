/* roceprobe: subcommand dispatch only. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

struct subcommand {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

/* In the order a user meets them: try it in the lab, run it on ports, read captures,
 * then the tools around those. */
static const struct subcommand subcommands[] = {
	{"lab", rp_cmd_lab, "run a profile's hosts, switches and links in virtual time -> result.json, pcap"},
	{"certify", rp_cmd_certify, "is the fabric ready? nine acceptance tests with verdicts, causes, --suggest"},
#ifdef RP_HAVE_DPDK
	{"run", rp_cmd_run, "send and receive a profile on DPDK ports: loss, latency, CE/CNP, PFC -> result.json"},
	{"gen", rp_cmd_gen, "send a profile's RoCEv2 / PFC traffic on DPDK ports, honouring PFC"},
	{"capture", rp_cmd_capture, "write a DPDK port's frames to pcap; RoCE, CNP, NAK, CE, PFC counts per second"},
	{"switch", rp_cmd_switch, "the emulated PFC/ECN switch in real time between DPDK ports (veth, tap, NICs)"},
#endif
	{"analyze", rp_cmd_analyze, "explain a RoCEv2 capture: loss, resends, go-back-N, CNP/ACK/NAK timing, CE, PFC timeline"},
	{"replay", rp_cmd_replay, "infer: an incident's captures -> a profile and its symptoms; run: reproduce it, judged symptom by symptom"},
	{"decode", rp_cmd_decode, "print every frame of a pcap/pcapng, RoCEv2 ICRC checked"},
	{"plan", rp_cmd_plan, "expand a profile: hosts, flows, bytes per pair, offered load, schedule"},
	{"headroom", rp_cmd_headroom, "PFC headroom a link needs, term by term"},
	{"counters", rp_cmd_counters, "a NIC's counters (ethtool, sysfs, RDMA, saved dumps) in one vocabulary; --watch"},
	{"doctor", rp_cmd_doctor, "before a run: driver, link speed, MTU, hugepages, DCB/PFC, RoCE, GID, PTP; PASS/WARN/FAIL + fix"},
	{"cluster", rp_cmd_cluster, "under mpirun/srun: every rank, its node and clock offset; hosts -> ranks"},
#ifdef RP_HAVE_VERBS
	{"ep", rp_cmd_ep, "verbs endpoint: RC/UD latency (p50..p99.999), bandwidth, incast fairness, counters"},
#endif
};

static void usage(FILE *out)
{
	fputs("usage: roceprobe COMMAND [ARGS]\n"
	      "\n"
	      "RoCEv2 / InfiniBand fabric prober: craft RoCEv2 traffic with DPDK, measure loss,\n"
	      "PFC pause and tail latency, and read captures with the ICRC checked.\n"
	      "\n"
	      "commands:\n",
	      out);
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		fprintf(out, "  %-10s %s\n", subcommands[i].name, subcommands[i].summary);
	fputs("\n'roceprobe COMMAND --help' explains each command.\n", out);
}

/* What a command printed must have reached its file: a full disk or a
 * closed pipe under `> out.json` is one line and exit 1, not a cut file
 * and success. */
static int stdout_written(const char *cmd, int rc)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return rc;
	fprintf(stderr, "roceprobe %s: writing standard output failed: %s\n", cmd, strerror(errno ? errno : EIO));
	return rc == RP_EXIT_OK ? RP_EXIT_FAIL : rc;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return RP_EXIT_USAGE;
	}
	if (rp_cli_is_help(argv[1]) || strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return RP_EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("roceprobe %s\n", RP_VERSION);
		return RP_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		if (strcmp(argv[1], subcommands[i].name) == 0) {
			rp_cli_args(argc - 1, argv + 1);
			return stdout_written(argv[1], subcommands[i].run(argc - 1, argv + 1));
		}
	fprintf(stderr, "roceprobe: unknown command '%s' (try 'roceprobe --help')\n", argv[1]);
	return RP_EXIT_USAGE;
}
