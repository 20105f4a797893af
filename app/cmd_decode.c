/* roceprobe decode: one line per frame of a pcap or pcapng, ICRC verified. */
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capin.h"
#include "cli.h"
#include "report/frame_line.h"
#include "wire/frame.h"

/* getopt_long's short options (rp_cli_bad_option names a bad one). */
static const char SHORTS[] = "jh";

static void usage(FILE *out)
{
	fputs("usage: roceprobe decode [--json] FILE|-\n"
	      "\n"
	      "Prints one line per frame of a pcap or pcapng capture (Ethernet link type):\n"
	      "RoCEv2 (IPv4/IPv6, UDP 4791) with every BTH field and extended header, CNP,\n"
	      "802.1Qbb PFC, 802.3x PAUSE, other frames, and malformed ones with the reason.\n"
	      "Unlike tshark it verifies the RoCEv2 ICRC of every complete RoCE frame.\n"
	      "A last line counts frames by kind and ICRC failures.\n"
	      "\n"
	      "  --json     one JSON object per line (keys: frame, len, kind, vlan, l3, src, dst,\n"
	      "             dscp, ecn, ttl, udp_sport, udp_dport, bth, reth, aeth, imm,\n"
	      "             payload_len, icrc, icrc_ok; pfc: src_mac, enable, quanta), then\n"
	      "             {\"summary\":true,...}\n"
	      "\n"
	      "FILE '-' reads standard input. A capture cut inside a record (a file still\n"
	      "being written, or cut short) is decoded up to the cut, and one line on stderr\n"
	      "says at which frame it is truncated.\n"
	      "\n"
	      "Exit status: 0 when the file was read (bad frames are reported, not fatal;\n"
	      "so is a truncated capture), 2 when it cannot be read.\n",
	      out);
}

int rp_cmd_decode(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	bool json = false;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, SHORTS, opts, NULL)) != -1) {
		if (c == 'j') {
			json = true;
		} else if (c == 'h') {
			usage(stdout);
			return RP_EXIT_OK;
		} else {
			return rp_cli_bad_option("decode", SHORTS);
		}
	}
	if (optind != argc - 1)
		return rp_cli_error("decode", "expected one capture file (try 'roceprobe decode --help')");
	const char *path = argv[optind];

	struct rp_capin in;
	int rc = rp_capin_open(&in, "decode", path, false);
	if (rc)
		return rc;

	struct rp_frame_totals t = {0};
	struct pcap_pkthdr *h;
	const u_char *data;
	if (!json)
		rp_frame_line_header(stdout);
	while ((rc = rp_capin_next(&in, &h, &data)) == 1) {
		struct rp_frame f;
		enum rp_frame_kind k = rp_frame_parse(data, h->caplen, h->len, &f);
		t.frames++;
		t.kinds[k]++;
		t.icrc_bad += f.icrc_checked && !f.icrc_ok;
		if (json)
			rp_frame_line_json(stdout, t.frames, h->len, &f);
		else
			rp_frame_line_text(stdout, t.frames, h->len, &f);
	}
	rp_frame_totals_print(stdout, &t, json);
	rp_capin_close(&in);
	return rc ? rc : RP_EXIT_OK;
}
