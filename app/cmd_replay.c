/* roceprobe replay infer: an incident's captures -> a profile that reproduces
 * its workload and the symptoms it showed (lib/replay, docs/replay.md). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "lab/lab.h"
#include "profile/profile.h"
#include "replay/counters_in.h"
#include "replay/replay.h"
#include "report/outdir.h"
#include "report/result.h"

#define CMD "replay"

static const char SHORTS[] = "o:f:b:s:n:h";

static void usage(FILE *out)
{
	fputs("usage: roceprobe replay infer [--fabric PROFILE] [--sampled N] [--bin-us N] [--speed RATE] -o DIR\n"
	      "                             EVIDENCE...\n"
	      "       roceprobe replay run DIR [--set KEY=VALUE]... [--tolerance SYMPTOM=X]... -o OUT\n"
	      "                          (the reproduction judged: 'roceprobe replay run --help')\n"
	      "\n"
	      "Turn an incident's evidence into a profile that makes its workload happen again,\n"
	      "and the symptoms it showed. Evidence: captures, pcap or pcapng, as they come (a\n"
	      "host's tcpdump, 'roceprobe lab --capture', 'roceprobe run --capture', a mirror\n"
	      "port, 'lab --mirror'), and counter series (roceprobe.counters/1 lines: 'roceprobe\n"
	      "counters --json --watch', 'lab --counters'), told apart by content. Captures\n"
	      "of one incident may overlap: a RoCE frame is (source IP,\n"
	      "destination IP, DestQP, PSN, opcode), and its k-th copy in one capture is the\n"
	      "k-th copy in every other, so a frame seen at its sender and at its receiver counts\n"
	      "once, and the same PSN twice at one point is a resend. Writes:\n"
	      "  DIR/profile.yaml   hosts (MAC, addresses from the frames, named h0, h1, ... in\n"
	      "                     MAC order; with --fabric the fabric's hosts and fabric:),\n"
	      "                     one traffic entry per flow (src, dst, qps, opcode, dscp, ecn,\n"
	      "                     message_size from the RETH DMA length or the FIRST..LAST\n"
	      "                     span, mtu, rate achieved over its active time, start,\n"
	      "                     messages), pattern: incast, all-to-all or permutation where\n"
	      "                     they fit; every value with a comment saying where it\n"
	      "                     comes from\n"
	      "  DIR/incident.json  \"roceprobe.incident/1\": per capture point and priority the\n"
	      "                     paused fraction per time bin, the order ports were first\n"
	      "                     paused, congested hosts and victim flows, CE and CNP rates,\n"
	      "                     loss, resends and goodput per flow (docs/results.md); from\n"
	      "                     counter series (\"counters\"): per switch or NIC port and\n"
	      "                     priority the PFC frames sent and received per time bin,\n"
	      "                     drops, ECN marks and queue watermarks. Counters of another\n"
	      "                     fabric than --fabric's, or of another time than the\n"
	      "                     captures': one line, exit 2\n"
	      "Counted by the accountant 'analyze' uses. A mirror's ERSPAN (type I, II, III)\n"
	      "copies are read as the frames they carry (type III: timed by the mirror's clock);\n"
	      "each ERSPAN session is a capture point of its own. The files' clocks are aligned\n"
	      "from frames two of them saw (NTP-style, both directions: offset and residual in\n"
	      "the profile's header and incident.json); captures with no frame in common whose\n"
	      "times do not overlap are one line, exit 2. \n"
	      "\n"
	      "options:\n"
	      "  -o, --out DIR      the directory to write (made; it must not hold files)\n"
	      "  --fabric PROFILE   take hosts and fabric: from this profile (the lab's, or the\n"
	      "                     real fabric's); a host of the evidence that is none of its\n"
	      "                     hosts (by MAC or address) is one line, exit 2. With it,\n"
	      "                     'roceprobe lab DIR/profile.yaml' runs the reproduction\n"
	      "  --sampled N        the captures hold 1 in N of the frames (a sampling mirror):\n"
	      "                     counts and rates x N, each rate with its 2-sigma bound\n"
	      "                     2 sqrt((N-1)/(N k)) for k frames sampled; sizes from RETH\n"
	      "                     and ONLY packets (no PSN spans); loss not measured\n"
	      "  --bin-us N         the symptoms' time bin in microseconds (default 100)\n"
	      "  --speed RATE       link speed for pause quanta -> time (default 100G)\n"
	      "\n"
	      "example: roceprobe lab profiles/incast-8to1.yaml -o inc --capture\n"
	      "         roceprobe replay infer inc/capture-*.pcap --fabric profiles/incast-8to1.yaml -o rep\n"
	      "         roceprobe replay run rep -o again           # exit 0: REPRODUCED\n"
	      "exit: 0 written, 2 bad evidence or option (one line on stderr; DIR is not made)\n",
	      out);
}

struct replay_opts {
	const char *out, *fabric;
	uint64_t bin_ns, speed_bps, sampled;
	char **paths;
	size_t npaths;
};

static int parse_opts(int argc, char **argv, struct replay_opts *o)
{
	static const struct option longopts[] = {
		{"out", required_argument, NULL, 'o'},  {"fabric", required_argument, NULL, 'f'},
		{"bin-us", required_argument, NULL, 'b'}, {"speed", required_argument, NULL, 's'},
		{"sampled", required_argument, NULL, 'n'},
		{"help", no_argument, NULL, 'h'},       {NULL, 0, NULL, 0},
	};
	*o = (struct replay_opts){.bin_ns = 100000, .speed_bps = 100000000000ull, .sampled = 1};
	if (argc >= 2 && rp_cli_is_help(argv[1])) {
		usage(stdout);
		return -1;
	}
	if (argc < 2 || strcmp(argv[1], "infer") != 0)
		return rp_cli_error(CMD, "%s%s%s: the commands are 'replay infer' and 'replay run' (try 'roceprobe "
				    "replay --help')", argc < 2 ? "no subcommand" : "'", argc < 2 ? "" : argv[1],
				    argc < 2 ? "" : "'");
	argc--;
	argv++;
	rp_cli_args(argc, argv); /* a bad option is named from here */
	int c, rc;
	optind = 1;
	while ((c = getopt_long(argc, argv, SHORTS, longopts, NULL)) != -1) {
		switch (c) {
		case 'o': o->out = optarg; break;
		case 'f': o->fabric = optarg; break;
		case 'n':
			if ((rc = rp_cli_uint(CMD, "--sampled", optarg, 1, 1u << 20, &o->sampled)))
				return rc;
			break;
		case 'h': usage(stdout); return -1;
		default: /* --bin-us, --speed, or a bad option */
			if ((rc = rp_cli_capture_timing(CMD, SHORTS, c, optarg, &o->bin_ns, &o->speed_bps)))
				return rc;
		}
	}
	if (!o->out)
		return rp_cli_error(CMD, "give the output directory: -o DIR (try 'roceprobe replay --help')");
	if (optind >= argc)
		return rp_cli_error(CMD, "give one or more captures (try 'roceprobe replay --help')");
	o->paths = argv + optind;
	o->npaths = (size_t)(argc - optind);
	return 0;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	char chunk[4096];
	size_t n;
	while (m && (n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, n, m);
	fclose(f);
	if (m)
		fclose(m);
	return buf;
}

static void profile_body(FILE *f, void *ctx)
{
	const void *const *a = ctx;
	const struct replay_opts *o = a[1];
	rp_replay_profile_write(f, a[0], (const char *const *)o->paths, o->npaths);
}

/* Counter series apart from the captures, by content (lib/replay/counters_in.h):
 * the captures stay in o->paths, in their order; the series in ctrs. */
static int split_evidence(struct replay_opts *o, const char **ctrs, size_t *nctrs)
{
	size_t k = 0;
	*nctrs = 0;
	for (size_t i = 0; i < o->npaths; i++) {
		if (!rp_replay_is_counters(o->paths[i])) {
			o->paths[k++] = o->paths[i];
			continue;
		}
		if (*nctrs == RP_REPLAY_MAX_COUNTER_FILES)
			return rp_cli_error(CMD, "at most %d counter series", RP_REPLAY_MAX_COUNTER_FILES);
		ctrs[(*nctrs)++] = o->paths[i];
	}
	o->npaths = k;
	if (!k)
		return rp_cli_error(CMD, "counter series alone hold no flows: give the incident's captures too");
	return 0;
}

/* Both files or neither: DIR is made only now, and removed again on failure. */
static int write_out(const struct replay_opts *o, const struct rp_replay_model *m, const struct rp_replay_counters *c)
{
	char err[512], path[4096];
	struct stat st;
	bool made = stat(o->out, &st) != 0;
	if (rp_outdir_prepare(o->out, false, err, sizeof(err)))
		return rp_cli_error(CMD, "%s", err);
	json_t *inc = rp_replay_incident_json(m);
	if (c->nfiles)
		json_object_set_new(inc, "counters", rp_replay_counters_json(c));
	const void *ctx[2] = {m, o};
	snprintf(path, sizeof(path), "%s/incident.json", o->out);
	int rc = rp_report_write_atomic(path, inc, err, sizeof(err));
	json_decref(inc);
	if (rc == 0) {
		snprintf(path, sizeof(path), "%s/profile.yaml", o->out);
		rc = rp_outdir_write_text(path, profile_body, (void *)ctx, err, sizeof(err));
	}
	if (rc) {
		snprintf(path, sizeof(path), "%s/incident.json", o->out);
		unlink(path);
		if (made)
			rmdir(o->out);
		return rp_cli_error(CMD, "%s", err);
	}
	if (m->ev->malformed)
		fprintf(stderr, "replay: %llu frames could not be read (malformed, or a snaplen cut their headers: IPv6 "
			"needs 74 B): flows of theirs are missing from the profile\n", (unsigned long long)m->ev->malformed);
	size_t flows = 0;
	for (size_t i = 0; i < m->nflows; i++)
		flows += m->flows[i].entry >= 0;
	fprintf(stderr, "replay: %zu flows in %zu traffic entries from %zu captures (%llu RoCE frames once, %llu "
		"copies matched): %s/profile.yaml, %s/incident.json\n", flows, m->nentries, o->npaths,
		(unsigned long long)m->ev->unique, (unsigned long long)m->ev->matched, o->out, o->out);
	return RP_EXIT_OK;
}

int rp_cmd_replay(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "run") == 0)
		return rp_cmd_replay_run(argc - 1, argv + 1);
	struct replay_opts o;
	static const char *ctrs[RP_REPLAY_MAX_COUNTER_FILES];
	size_t nctrs;
	int rc = parse_opts(argc, argv, &o);
	if (rc)
		return rc < 0 ? RP_EXIT_OK : rc;
	if ((rc = split_evidence(&o, ctrs, &nctrs)))
		return rc;
	char err[4400];
	struct rp_profile *fab = NULL;
	char *text = NULL;
	if (o.fabric) {
		if (!(fab = rp_profile_load(o.fabric, NULL, err, sizeof(err))))
			return rp_cli_error(CMD, "--fabric: %s", err);
		if (!(text = slurp(o.fabric))) {
			rp_profile_free(fab);
			return rp_cli_error(CMD, "--fabric %s: %s", o.fabric, strerror(errno));
		}
	}
	struct rp_replay_evidence *ev = calloc(1, sizeof(*ev));
	struct rp_replay_model m = {0};
	struct rp_replay_counters cn = {0};
	const struct rp_replay_fabric_check fc = {.prof = fab, .switch_nports = rp_lab_switch_nports};
	if (!ev)
		rc = rp_cli_error(CMD, "out of memory");
	else if (rp_replay_evidence_read_opts(ev, (const char *const *)o.paths, o.npaths, fab,
					      &(struct rp_replay_read_opts){.bin_ns = o.bin_ns, .speed_bps = o.speed_bps,
									    .sampled = (unsigned)o.sampled},
					      err, sizeof(err)))
		rc = rp_cli_error(CMD, "%s", err);
	else if (rp_replay_infer(&m, ev, fab, o.fabric, text))
		rc = rp_cli_error(CMD, "out of memory inferring the flows");
	else if (m.nflows == 0)
		rc = rp_cli_error(CMD, "no flow with data in the evidence (only ACKs, CNPs or requests): nothing to "
				  "reproduce");
	else if (nctrs && rp_replay_counters_read(&cn, ctrs, nctrs, ev, fab ? &fc : NULL, err, sizeof(err)))
		rc = rp_cli_error(CMD, "%s", err);
	else
		rc = write_out(&o, &m, &cn);
	rp_replay_counters_free(&cn);
	rp_replay_model_free(&m);
	if (ev)
		rp_replay_evidence_free(ev);
	free(ev);
	free(text);
	if (fab)
		rp_profile_free(fab);
	return rc;
}
