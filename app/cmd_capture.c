/* roceprobe capture: one DPDK port's received frames to pcap, with per-second
 * counts of what matters on a RoCE fabric. */
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

#include "cli.h"
#include "dp/capture.h"
#include "dp/capture_rx.h"
#include "stats/progress.h"
#include "dp/dp.h"
#include "pcap/names.h"

/* getopt_long's short options (rp_cli_bad_option names a bad one). */
static const char SHORTS[] = "p:w:s:f:S:R:F:d:n:r:e:jh";

#define MAX_FRAME 9216 /* jumbo frames arrive whole on a mirror port */

struct capture_opts {
	const char *port;
	const char *path;
	struct rp_capture_cfg cfg;
	double duration_s;
	uint64_t count;
	const char *eal;
	bool no_telemetry;
	bool json;
};

struct capture_run {
	struct rp_dp_port port;
	struct rp_capture *cap;
	bool eal_up;
	struct rp_dp_capture_rx rx; /* the RX loop: received, end_ns */
	struct rp_capture_stats last; /* at the previous progress line */
	struct rp_capture_stats final;
	uint64_t duration_ns; /* --duration (0: none): the progress line's share and time left */
	uint64_t port_missed; /* the port's own drops (imissed + rx_nombuf) */
	char first_file[4200], last_file[4200];
	char write_error[RP_DP_ERRLEN]; /* empty, or why a file write failed */
};

static void usage(FILE *out)
{
	fputs("usage: roceprobe capture --port DEVARGS -w FILE [options]\n"
	      "\n"
	      "Writes the frames a DPDK port receives to pcap (nanosecond timestamps, libpcap\n"
	      "format tshark reads), e.g. a switch mirror port while verbs endpoints or\n"
	      "production jobs run. A writer thread fed by a ring does the file I/O, so the\n"
	      "port is polled at full speed; frames the writer cannot keep up with are\n"
	      "counted as dropped, never lost silently. Once a second stderr shows the RoCE\n"
	      "data, CNP, NAK, CE-marked, PFC and PAUSE frames seen in that second.\n"
	      "\n"
	      "  --port DEVARGS      the DPDK port: a PCI address or a vdev (net_pcap0,rx_pcap=F,\n"
	      "                      net_af_packet0,iface=eth1, ...); frames up to 9216 B, or\n"
	      "                      what the port takes (af_packet, tap: 1514 B; said on stderr)\n"
	      "  -w FILE             the pcap file (with rotation: FILE-0001.pcap, -0002, ...)\n"
	      "  --snaplen N         bytes kept of each frame, 64..65535 (default 128: every\n"
	      "                      RoCEv2 header and the probe fit; 64 keeps up to the BTH\n"
	      "                      over IPv4, IPv6 needs 74, and a RETH 16 more). Wireshark\n"
	      "                      4.0 names a RoCE frame cut before its end \"Invalid Packet\n"
	      "                      Length from LRH! [Malformed Packet]\" (its payload check\n"
	      "                      wants the whole frame; the headers still dissect and the\n"
	      "                      record keeps the wire length): use 65535, or the largest\n"
	      "                      frame (MTU 4096 + RETH over IPv4: 4170), to avoid it\n"
	      "  --filter WHAT       all (default); roce: RoCEv2 and control frames; control:\n"
	      "                      PFC, PAUSE, CNP, NAK, ARP, NS/NA and CE-marked frames only\n"
	      "  --sample N          keep 1 in N data frames (the 1st, N+1th, ...); control\n"
	      "                      frames are always kept (default 1: all)\n"
	      "  --rotate-size SIZE  start a new file before one passes SIZE bytes: 4096,\n"
	      "                      64KiB, 1MiB (1048576), 1MB (1000000); bare K/M/G refused\n"
	      "  --rotate-files N    with --rotate-size: keep the newest N files, delete older\n"
	      "  --duration S        stop after S seconds (or 500ms, 2s, ...)\n"
	      "  --count N           stop after N frames received\n"
	      "  --ring N            frames buffered between the port and the writer\n"
	      "                      (default 65536)\n"
	      "  --eal \"ARGS\"        extra DPDK EAL arguments\n"
	      "  --no-telemetry      no DPDK telemetry socket (on by default: while capture\n"
	      "                      runs, `dpdk-telemetry.py -f rpPID` reads the port)\n"
	      "  --json              the final summary as one JSON object on stdout\n"
	      "\n"
	      "Control frames: PFC (EtherType 0x8808, opcode 0x0101), PAUSE (opcode 0x0001),\n"
	      "CNP (BTH opcode 0x81), NAK (ACK opcode 0x11 with AETH syndrome 011xxxxx) and any\n"
	      "IPv4/IPv6 frame with ECN = CE. RoCE data is every other RoCEv2 frame.\n"
	      "Ctrl-C or SIGTERM stops cleanly: the ring is drained and every file is closed\n"
	      "complete, then the summary is printed. Exit status 0, or 2 with one line on\n"
	      "bad input (port, path, option values). Examples:\n"
	      "  roceprobe capture --port 0000:3b:00.1 -w mirror.pcap --filter control\n"
	      "  roceprobe capture --port net_pcap0,rx_pcap=in.pcap -w out.pcap --duration 1\n",
	      out);
}

static int parse_filter(const char *s, enum rp_capture_filter *f)
{
	if (strcmp(s, "all") == 0)
		*f = RP_CAPTURE_ALL;
	else if (strcmp(s, "roce") == 0)
		*f = RP_CAPTURE_ROCE;
	else if (strcmp(s, "control") == 0)
		*f = RP_CAPTURE_CONTROL;
	else
		return rp_cli_error("capture", "--filter: expected roce, control or all, got '%s'", s);
	return 0;
}

static int parse_one(int c, const char *arg, struct capture_opts *o)
{
	uint64_t v = 0;
	int rc;
	switch (c) {
	case 'p': o->port = arg; return 0;
	case 'w': o->path = arg; return 0;
	case 'e': o->eal = arg; return 0;
	case RP_CLI_OPT_NO_TELEMETRY: o->no_telemetry = true; return 0;
	case 'j': o->json = true; return 0;
	case 'f': return parse_filter(arg, &o->cfg.filter);
	case 's':
		return rp_cli_snaplen("capture", arg, &o->cfg.snaplen);
	case 'S':
		rc = rp_cli_uint("capture", "--sample", arg, 1, UINT_MAX, &v);
		o->cfg.sample_every = (unsigned)v;
		return rc;
	case 'R': return rp_cli_size("capture", "--rotate-size", arg, 1, UINT64_MAX, &o->cfg.rotate_bytes);
	case 'F':
		rc = rp_cli_uint("capture", "--rotate-files", arg, 1, UINT_MAX, &v);
		o->cfg.rotate_files = (unsigned)v;
		return rc;
	case 'n': return rp_cli_uint("capture", "--count", arg, 1, UINT64_MAX, &o->count);
	case 'r':
		rc = rp_cli_uint("capture", "--ring", arg, 2, 1u << 26, &v);
		o->cfg.ring_size = (unsigned)v;
		return rc;
	case 'd': return rp_cli_duration("capture", "--duration", arg, 1e9, &o->duration_s);
	default:
		return rp_cli_bad_option("capture", SHORTS);
	}
}

/* -w names a file the port reads (net_pcap rx_pcap=): the same inode. */
static bool writes_its_input(const char *devargs, const char *out)
{
	struct stat w, in;
	char file[PATH_MAX];
	if (stat(out, &w) != 0)
		return false;
	for (const char *at = NULL; rp_dp_devarg_next(devargs, "rx_pcap", &at, file, sizeof(file));)
		if (stat(file, &in) == 0 && in.st_dev == w.st_dev && in.st_ino == w.st_ino)
			return true;
	return false;
}

/* Returns 0 to run, -1 after --help, else the exit code. */
static int parse_args(int argc, char **argv, struct capture_opts *o)
{
	static const struct option opts[] = {
		{"port", required_argument, NULL, 'p'},        {"write", required_argument, NULL, 'w'},
		{"snaplen", required_argument, NULL, 's'},     {"filter", required_argument, NULL, 'f'},
		{"sample", required_argument, NULL, 'S'},      {"rotate-size", required_argument, NULL, 'R'},
		{"rotate-files", required_argument, NULL, 'F'}, {"duration", required_argument, NULL, 'd'},
		{"count", required_argument, NULL, 'n'},       {"ring", required_argument, NULL, 'r'},
		{"eal", required_argument, NULL, 'e'},         {"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},              RP_CLI_NO_TELEMETRY_OPTION,
		{NULL, 0, NULL, 0},
	};
	*o = (struct capture_opts){0};
	int c, rc;
	optind = 1;
	while ((c = getopt_long(argc, argv, SHORTS, opts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return -1;
		}
		if ((rc = parse_one(c, optarg, o)) != 0)
			return rc;
	}
	if (optind != argc)
		return rp_cli_error("capture", "unexpected argument '%s' (try 'roceprobe capture --help')", argv[optind]);
	if (!o->port)
		return rp_cli_error("capture", "--port DEVARGS is required (try 'roceprobe capture --help')");
	if (!o->path)
		return rp_cli_error("capture", "-w FILE is required (try 'roceprobe capture --help')");
	if (o->cfg.rotate_files && !o->cfg.rotate_bytes)
		return rp_cli_error("capture", "--rotate-files needs --rotate-size");
	if (writes_its_input(o->port, o->path))
		return rp_cli_error("capture", "-w %s is the port's rx_pcap= input: writing would wipe it first; write elsewhere",
				    o->path);
	o->cfg.path = o->path;
	return 0;
}

static int start(struct capture_run *r, const struct capture_opts *o)
{
	char err[RP_DP_ERRLEN];
	const char *devargs[1] = {o->port};
	struct rp_dp_eal_opts eo = {.devargs = devargs, .n_devargs = 1, .user_eal = o->eal,
				    .no_telemetry = o->no_telemetry, .lcores = 1,
				    .who = "capture"};
	if (rp_dp_eal_init(&eo, err, sizeof(err)) != 0)
		return rp_cli_error("capture", "%s", err);
	r->eal_up = true;
	/* A port that takes less than a jumbo frame (net_af_packet, net_tap: 1514 B)
	 * is opened for what it takes. */
	size_t max_frame = MAX_FRAME, port_max = rp_dp_port_max_frame(o->port);
	if (port_max && port_max < max_frame)
		max_frame = port_max;
	if (rp_dp_port_open(o->port, 1, 1, max_frame, NULL, &r->port, err, sizeof(err)) != 0)
		return rp_cli_error("capture", "%s", err);
	if (max_frame < MAX_FRAME) /* said once the port is up: an error is then the only line */
		fprintf(stderr, "roceprobe capture: port %.*s takes frames up to %zu B (without FCS); capturing frames up to that\n",
			(int)strcspn(o->port, ","), o->port, max_frame);
	rp_dp_clock_start();
	r->cap = rp_capture_open(&o->cfg, err, sizeof(err));
	if (!r->cap)
		return rp_cli_error("capture", "%s", err);
	return 0;
}

static void progress(void *arg, uint64_t now)
{
	struct capture_run *r = arg;
	struct rp_capture_stats s;
	rp_capture_stats(r->cap, &s);
	const struct rp_capture_stats *l = &r->last;
	char left[96];
	rp_progress_left((double)now / 1e9, (double)r->duration_ns / 1e9, left, sizeof(left));
#define D(f) (s.f - l->f)
	fprintf(stderr,
		"capture %6.1fs%s | roce %" PRIu64 " cnp %" PRIu64 " nak %" PRIu64 " ce %" PRIu64 " pfc %" PRIu64
		" pause %" PRIu64 " other %" PRIu64 " | kept %" PRIu64 " dropped %" PRIu64 " | %.1f MB in %" PRIu64
		" file%s\n",
		(double)now / 1e9, left, D(kind[RP_CAPK_ROCE]), D(kind[RP_CAPK_CNP]), D(kind[RP_CAPK_NAK]), D(ce),
		D(kind[RP_CAPK_PFC]), D(kind[RP_CAPK_PAUSE]), D(kind[RP_CAPK_OTHER]), D(kept), D(dropped),
		(double)s.bytes / 1e6, s.files, s.files == 1 ? "" : "s");
#undef D
	r->last = s;
}

/* Polls the port until Ctrl-C, --duration or --count (lib/dp/capture_rx.h),
 * a progress line on stderr once a second. */
static void rx_loop(struct capture_run *r, const struct capture_opts *o)
{
	struct rp_dp_capture_rx *rx = &r->rx;
	rx->port = &r->port;
	rx->cap = r->cap;
	rx->snaplen = o->cfg.snaplen;
	rx->duration_ns = r->duration_ns = (uint64_t)(o->duration_s * 1e9);
	rx->count = o->count;
	rx->stop = &rp_cli_stop;
	rx->progress = progress;
	rx->progress_arg = r;
	rp_dp_capture_run(rx);
}

static void port_drops(struct capture_run *r)
{
	struct rp_dp_port_drops d;
	rp_dp_port_read_drops(&r->port, &d);
	r->port_missed = d.missed;
}

static void file_names(struct capture_run *r, const struct capture_opts *o)
{
	bool rot = o->cfg.rotate_bytes != 0;
	rp_pcap_file_name(o->cfg.path, rot, r->final.first_file, r->first_file, sizeof(r->first_file));
	rp_pcap_file_name(o->cfg.path, rot, r->final.files, r->last_file, sizeof(r->last_file));
}

static void report_json(const struct capture_run *r, const struct capture_opts *o)
{
	const struct rp_capture_stats *s = &r->final;
	json_t *kinds = json_object();
	for (unsigned k = 0; k < RP_CAPK_COUNT; k++)
		json_object_set_new(kinds, rp_capture_kind_name(k), json_integer((json_int_t)s->kind[k]));
	json_object_set_new(kinds, "ce", json_integer((json_int_t)s->ce));
	json_t *j = json_pack("{s:s, s:s, s:s, s:f, s:b, s:I, s:I, s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, "
			      "s:I, s:s, s:s}",
			      "schema", "roceprobe.capture/1", "port", r->port.name, "driver", r->port.driver, "elapsed_s",
			      (double)r->rx.end_ns / 1e9, "interrupted", rp_cli_stop != 0, "received",
			      (json_int_t)r->rx.received, "offered", (json_int_t)s->offered, "kinds", kinds, "kept",
			      (json_int_t)s->kept, "filtered_out", (json_int_t)s->filtered_out, "sampled_out",
			      (json_int_t)s->sampled_out, "dropped", (json_int_t)s->dropped, "port_missed",
			      (json_int_t)r->port_missed, "written", (json_int_t)s->written, "write_errors",
			      (json_int_t)s->write_errors, "bytes", (json_int_t)s->bytes, "files", (json_int_t)s->files,
			      "first_file_no", (json_int_t)s->first_file, "first_file", r->first_file, "last_file", r->last_file);
	json_object_set_new(j, "snaplen", json_integer(o->cfg.snaplen ? o->cfg.snaplen : RP_CAPTURE_SNAPLEN_DEFAULT));
	json_object_set_new(j, "error", r->write_error[0] ? json_string(r->write_error) : json_null());
	json_dumpf(j, stdout, JSON_PRESERVE_ORDER | JSON_COMPACT);
	fputc('\n', stdout);
	json_decref(j);
}

static void report_text(const struct capture_run *r)
{
	const struct rp_capture_stats *s = &r->final;
	printf("roceprobe capture: %s (%s), %.3f s%s\n", r->port.name, r->port.driver, (double)r->rx.end_ns / 1e9,
	       rp_cli_stop ? " (interrupted)" : "");
	printf("frames %" PRIu64 ":", s->offered);
	for (unsigned k = 0; k < RP_CAPK_COUNT; k++)
		printf(" %s %" PRIu64 "%s", rp_capture_kind_name(k), s->kind[k], k + 1 < RP_CAPK_COUNT ? "," : "");
	printf("; ce %" PRIu64 "\n", s->ce);
	printf("kept %" PRIu64 ", filtered out %" PRIu64 ", sampled out %" PRIu64 ", dropped (writer behind) %" PRIu64
	       ", missed by the port %" PRIu64 "\n",
	       s->kept, s->filtered_out, s->sampled_out, s->dropped, r->port_missed);
	printf("written %" PRIu64 " frames, %" PRIu64 " bytes, %" PRIu64 " file%s", s->written, s->bytes, s->files,
	       s->files == 1 ? "" : "s");
	uint64_t kept = s->files >= s->first_file ? s->files - s->first_file + 1 : 0;
	if (kept < s->files) /* --rotate-files deleted the oldest: their frames are in the counts above */
		printf("; the newest %" PRIu64 " kept", kept);
	if (kept)
		printf(": %s", r->first_file);
	if (kept > 1)
		printf(" .. %s", r->last_file);
	putchar('\n');
	if (r->write_error[0])
		printf("FILE WRITE FAILED: %s; %" PRIu64 " frames never reached a file (each file is cut back to its "
		       "last whole record: 'written' is what they hold)\n", r->write_error, s->write_errors);
}

/* Drains and closes the capture, then reports what reached the files. */
static int finish(struct capture_run *r, const struct capture_opts *o)
{
	port_drops(r);
	int rc = rp_capture_close(r->cap, &r->final, r->write_error, sizeof(r->write_error));
	if (rc == 0)
		r->write_error[0] = '\0';
	r->cap = NULL;
	file_names(r, o);
	if (o->json)
		report_json(r, o);
	else
		report_text(r);
	fflush(stdout);
	if (rc != 0) {
		fprintf(stderr, "roceprobe capture: %s\n", r->write_error);
		return RP_EXIT_FAIL;
	}
	return RP_EXIT_OK;
}

static void teardown(struct capture_run *r)
{
	char err[RP_DP_ERRLEN];
	if (r->cap)
		rp_capture_close(r->cap, NULL, err, sizeof(err));
	rp_dp_port_close(&r->port);
	if (r->eal_up)
		rp_dp_eal_cleanup();
}

int rp_cmd_capture(int argc, char **argv)
{
	struct capture_opts o;
	int rc = parse_args(argc, argv, &o);
	if (rc != 0)
		return rc < 0 ? RP_EXIT_OK : rc;
	static struct capture_run r;
	rc = start(&r, &o);
	if (rc != 0) {
		teardown(&r);
		return rc;
	}
	rp_cli_catch_stop();
	rx_loop(&r, &o);
	rc = finish(&r, &o);
	teardown(&r);
	return rc;
}
