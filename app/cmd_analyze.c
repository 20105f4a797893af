/* roceprobe analyze: explain a RoCEv2 capture (ours, a switch mirror, a NIC
 * dump) with the same accountant a live run uses, in discovery mode: flows
 * come from the traffic. Per QP: PSN gaps, losses, resends, go-back-N, ACK /
 * NAK / CNP timing, CE, message completion times; per priority: the PFC
 * timeline. Text by default, --json with result.json's metric names. */
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capin.h"
#include "cli.h"
#include "report/analyze.h"
#include "stats/acct.h"

/* getopt_long's short options (rp_cli_bad_option names a bad one). */
static const char SHORTS[] = "jb:s:lh";

#define CMD "analyze"

struct analyze_opts {
	const char *path;
	bool json;
	uint64_t bin_ns;
	uint64_t speed_bps;
	bool latency;
};

static void usage(FILE *out)
{
	fputs("usage: roceprobe analyze [--json] [--bin-us N] [--speed RATE] [--latency] PCAP|-\n"
	      "\n"
	      "Explain a RoCEv2 capture (pcap or pcapng; roceprobe's own, a switch mirror, a NIC\n"
	      "dump). Flows are found in the traffic: by the probe's flow id when roceprobe sent\n"
	      "them, else by (source IP, destination IP, destination QP); an RC connection used\n"
	      "both ways is two flows, each with its ACKs; RDMA READ responses count as the\n"
	      "requester's acks and fill the PSNs its READ took. For each flow and QP:\n"
	      "  lost           packets whose PSN (or probe sequence) never showed up\n"
	      "  reordered      late arrivals of a gap; duplicates: seen twice\n"
	      "  retransmissions  packets sent again: all that a go-back-N after a NAK resends,\n"
	      "                 whether they fill a gap or were seen before, and any other\n"
	      "                 duplicate; go_back_n: the NAK -> resend-from-that-PSN episodes\n"
	      "  acks, naks, cnp_rx           with first/last time and NAK -> resend latency\n"
	      "  ce             CE-marked packets; messages and their FIRST -> LAST times\n"
	      "and per priority the PFC / PAUSE timeline (frames, quanta, paused time).\n"
	      "Losses at the end of a QP's stream show only when the sender's count is known\n"
	      "(a live run's result.json); a capture cannot see them.\n"
	      "Bytes and goodput use the wire lengths, so a snaplen-cut capture counts in full.\n"
	      "PCAP '-' reads standard input (copied to $TMPDIR, else /tmp, as it is read\n"
	      "twice). A capture cut inside a record is analysed up to the cut, with one line\n"
	      "on stderr saying at which frame it is truncated.\n"
	      "\n"
	      "options:\n"
	      "  --json          one JSON object (\"schema\": \"roceprobe.analyze/1\") with \"flows\",\n"
	      "                  \"ports\" and \"timeseries\" named as in result.json\n"
	      "  --bin-us N      time series bin width in microseconds (default 100)\n"
	      "  --speed RATE    link speed for pause quanta -> time: quanta x 512 bit times\n"
	      "                  (default 100G). A pause still running at the last frame\n"
	      "                  counts to its expiry, not to the end of the capture\n"
	      "  --latency       latency = capture time - probe TX time (only when the capture\n"
	      "                  was taken with the clock that stamped the probes; a probe that\n"
	      "                  arrives before it was sent, or a delay over 1 s, shows it was\n"
	      "                  not: one line on stderr, exit 2)\n"
	      "\n"
	      "example: roceprobe analyze --json run.pcap | jq '.flows[] | {id, lost, ce}'\n"
	      "exit: 0 analysed, 2 unreadable input or bad option (one line on stderr)\n",
	      out);
}

static int parse_opts(int argc, char **argv, struct analyze_opts *o)
{
	static const struct option longopts[] = {
		{"json", no_argument, NULL, 'j'},      {"bin-us", required_argument, NULL, 'b'},
		{"speed", required_argument, NULL, 's'}, {"latency", no_argument, NULL, 'l'},
		{"help", no_argument, NULL, 'h'},      {NULL, 0, NULL, 0},
	};
	*o = (struct analyze_opts){.bin_ns = 100000, .speed_bps = 100000000000ull};
	int c, rc;
	optind = 1;
	while ((c = getopt_long(argc, argv, SHORTS, longopts, NULL)) != -1) {
		switch (c) {
		case 'j': o->json = true; break;
		case 'l': o->latency = true; break;
		case 'h': usage(stdout); return -1;
		default: /* --bin-us, --speed, or a bad option */
			if ((rc = rp_cli_capture_timing(CMD, SHORTS, c, optarg, &o->bin_ns, &o->speed_bps)))
				return rc;
		}
	}
	if (optind + 1 != argc)
		return rp_cli_error(CMD, "give exactly one capture file (try 'roceprobe analyze --help')");
	o->path = argv[optind];
	return 0;
}

/* Pass 1: the time span, so the time series is sized before any frame counts. */
static int scan_span(struct rp_capin *in, struct rp_capture_facts *ci)
{
	struct pcap_pkthdr *h;
	const u_char *data;
	int rc;
	ci->first_ns = UINT64_MAX;
	rp_capin_pass(in, "pass 1 of 2: the time span");
	while ((rc = rp_capin_next(in, &h, &data)) == 1) {
		uint64_t t = rp_capin_ts_ns(h);
		if (t < ci->first_ns)
			ci->first_ns = t;
		if (t > ci->last_ns)
			ci->last_ns = t;
	}
	if (ci->first_ns == UINT64_MAX)
		ci->first_ns = ci->last_ns = 0;
	return rc;
}

/* Pass 2: every frame through the accountant. */
static int feed_all(struct rp_capin *in, struct rp_acct *a, struct rp_capture_facts *ci)
{
	int rc = rp_capin_rewind(in);
	if (rc)
		return rc;
	struct pcap_pkthdr *h;
	const u_char *data;
	rp_capin_pass(in, "pass 2 of 2: accounting");
	while ((rc = rp_capin_next(in, &h, &data)) == 1) {
		enum rp_rx_class c = rp_acct_rx(a, 0, rp_capin_ts_ns(h), data, h->caplen, h->len, NULL);
		ci->classes[c]++;
		ci->frames++;
	}
	ci->truncated = in->truncated;
	return rc;
}

int rp_cmd_analyze(int argc, char **argv)
{
	struct analyze_opts o;
	int rc = parse_opts(argc, argv, &o);
	if (rc)
		return rc < 0 ? RP_EXIT_OK : rc;
	struct rp_capture_facts ci = {0};
	struct rp_capin in;
	if ((rc = rp_capin_open(&in, CMD, o.path, true)))
		return rc;
	if ((rc = scan_span(&in, &ci))) {
		rp_capin_close(&in);
		return rc;
	}
	struct rp_acct_port_cfg port = {.node = "capture", .port = 0, .speed_bps = o.speed_bps};
	struct rp_acct_cfg cfg = {.ports = &port, .nports = 1, .start_ns = ci.first_ns,
				  .run_ns = ci.last_ns - ci.first_ns, .bin_ns = o.bin_ns, .latency = o.latency,
				  .discover = true, .track_psn = true, .seq_from_first = true, .pause_to_expiry = true};
	char err[256];
	struct rp_acct *a = rp_acct_create(&cfg, err, sizeof(err));
	if (!a) {
		rp_capin_close(&in);
		return rp_cli_error(CMD, "%s", err);
	}
	ci.last_ns = ci.first_ns; /* recounted in order below */
	struct rp_capture_facts span = ci;
	rc = feed_all(&in, a, &ci);
	rp_capin_close(&in);
	ci.first_ns = span.first_ns;
	if (rc) {
		rp_acct_destroy(a);
		return rc;
	}
	rp_acct_finish(a, cfg.start_ns + cfg.run_ns, NULL);
	ci.last_ns = cfg.start_ns + cfg.run_ns;
	if (o.latency && rp_analyze_latency_clock(a, err, sizeof(err)) != 0) {
		rc = rp_cli_error(CMD, "%s", err);
		rp_acct_destroy(a);
		return rc;
	}
	if (o.json) {
		json_t *root = rp_analyze_json(o.path, o.latency, a, &ci);
		json_dumpf(root, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
		json_decref(root);
	} else {
		rp_analyze_print_text(stdout, o.path, o.latency, a, &ci);
	}
	rp_acct_destroy(a);
	return RP_EXIT_OK;
}
