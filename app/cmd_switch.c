/* roceprobe switch: the emulated PFC/ECN switch (lib/fabric) in real time on
 * DPDK ports, so real endpoints can be wired through it. */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "metrics/metrics.h"
#include "metrics/switch.h"
#include "counters/sonic_pub.h"
#include "dp/switch_run.h"
#include "fabric/headroom.h"
#include "profile/switch_cfg.h"
#include "profile/units.h"
#include "report/switch_sonic.h"
#include "report/switch_summary.h"
#include "wire/eth.h"

/* getopt_long's short options (rp_cli_bad_option names a bad one). */
static const char SHORTS[] = "p:s:b:x:X:H:L:E:P:l:f:C:q:M:d:w:e:c:F:U:I:jTmnh";

#define SWITCH_MAX_PORTS RP_DP_SWITCH_PORTS
#define MAX_FDB 1024
#define CMD "switch"

/* The switch is a `fabric:` description (--profile's, else
 * rp_fabric_init_switch) that the flags then change, mapped to the model by
 * the lab's own rp_fabric_switch_cfg. */
struct switch_opts {
	const char *ports[SWITCH_MAX_PORTS];
	unsigned nports;
	const char *profile;
	struct rp_fabric fab;
	uint64_t speed_bps;
	struct rp_switch_flags fl;
	bool trust_pcp;
	bool learn;
	bool no_flood;
	struct rp_dp_switch_fdb fdb[MAX_FDB];
	unsigned nfdb;
	double duration_s;
	const char *capture;
	const char *eal;
	bool no_telemetry;
	int cpu; /* -1: the highest CPU the process may use */
	bool json;
	const char *publish;       /* redis://HOST:PORT, or NULL */
	double publish_interval_s; /* default 1 */
	bool publish_interval_given;
	struct rp_cli_metrics metrics;
};

static void usage(FILE *out)
{
	fputs("usage: roceprobe switch --port DEVARGS --port DEVARGS [...] [--profile P.yaml] [options]\n"
	      "\n"
	      "Runs the emulated switch of `roceprobe lab` (shared buffer, per-priority queues,\n"
	      "PFC XOFF/XON with headroom, RED/ECN marking, strict + DWRR scheduling) in real\n"
	      "time between DPDK ports, so real endpoints (Soft-RoCE VMs on taps, `roceprobe\n"
	      "run` on veths, other tools) talk through it. Port i is the i-th --port. One\n"
	      "lcore polls every port; each port transmits at --speed exactly (the model paces\n"
	      "frames; a late poll sends what was due back to back). PFC/PAUSE received on a\n"
	      "port pause its egress queues; the switch sends PFC to a port whose lossless\n"
	      "ingress priority group fills to --xoff, and XON when it drains --xon-delta.\n"
	      "Frames map to priorities by DSCP (priority = DSCP >> 3; RoCE's DSCP 26 is 3),\n"
	      "or by PCP with --trust-pcp.\n"
	      "The switch is the lab's: a `fabric:` description (docs/lab.md, one mapping to\n"
	      "the model), --profile's or the lab's defaults with no lossless priority and\n"
	      "ECN off; the flags below then change it.\n"
	      "\n"
	      "  --port DEVARGS      a DPDK port (repeat, 1..64): net_af_packet0,iface=veth1,\n"
	      "                      net_tap0,iface=tap0, net_af_xdp0,iface=veth2, a PCI address\n"
	      "  --profile P.yaml    start from P's `fabric:` section (fabric.buffer, .pfc, .ecn,\n"
	      "                      .lossy, .link, .max_frame, .seed; the lab's defaults for\n"
	      "                      what it leaves out)\n"
	      "  --speed RATE        line rate of every port, e.g. 100M, 10G (default 10G)\n"
	      "  --buffer SIZE       fabric.buffer: shared buffer, e.g. 2MiB (default 16MiB)\n"
	      "  --lossless LIST     fabric.pfc.priorities, e.g. 3 or 3,4 (default none: all\n"
	      "                      lossy)\n"
	      "  --xoff SIZE         fabric.pfc.xoff per ingress priority group (default 128KiB)\n"
	      "  --xon-delta SIZE    fabric.pfc.xon_delta: XON this far below XOFF (default\n"
	      "                      18KiB)\n"
	      "  --headroom SIZE     fabric.pfc.headroom per lossless group and port (default\n"
	      "                      auto: the `roceprobe headroom` formula for --speed and\n"
	      "                      --cable, pfc.response 0 quanta; software endpoints react\n"
	      "                      in tens of microseconds, give them more)\n"
	      "  --quanta N          fabric.pfc.quanta in each XOFF, 1..65535 (default 65535;\n"
	      "                      refreshed at half time while XOFF holds; at least what\n"
	      "                      holds a sender between refreshes: 292 for 9216 B frames)\n"
	      "  --cable M           fabric.link.cable: metres to each peer, for the headroom\n"
	      "                      formula (default 100, the lab's 500 ns)\n"
	      "  --ecn KMIN,KMAX,PMAX  RED marking of ECT frames at dequeue, e.g. 5KB,200KB,1%\n"
	      "                      (fabric.ecn; default off unless --profile)\n"
	      "  --ecn-prio LIST     priorities marked (default: the profile's, else the\n"
	      "                      lossless ones, else 3)\n"
	      "  --lossy-limit SIZE  fabric.lossy.limit (default dynamic: 1 x free buffer)\n"
	      "  --max-frame N       largest frame without FCS, 1514..9216 (default\n"
	      "                      fabric.max_frame 9216, or the largest every port takes:\n"
	      "                      af_packet 1514)\n"
	      "  --trust-pcp         classify VLAN-tagged frames by PCP\n"
	      "  --fdb MAC=PORT      a static MAC table entry (repeat): MAC as profiles write\n"
	      "                      it (02:00:00:00:00:0c, colons), PORT is 0-based\n"
	      "  --mac-learn         learn source MACs (a MAC that moves is moved)\n"
	      "  --no-flood          drop unknown unicast (counted as no_route) instead of\n"
	      "                      flooding it\n"
	      "  --duration S        stop after S seconds (or 500ms, 2s, ...)\n"
	      "  --capture FILE      per port, its RX and TX to FILE-pN.pcap (N = port index)\n"
	      "  --eal \"ARGS\"        extra DPDK EAL arguments\n"
	      "  --no-telemetry      no DPDK telemetry socket (on by default: while switch\n"
	      "                      runs, `dpdk-telemetry.py -f rpPID` reads its ports)\n"
	      "  --cpu N             the CPU the poller runs on (default: the highest one the\n"
	      "                      process may use: the EAL of every other command polls\n"
	      "                      on CPU 0, and two busy pollers on one CPU halve both)\n"
	      "  --json              the final summary as one JSON object on stdout\n"
	      "  --publish redis://HOST[:PORT]  write the switch's counters into that Redis\n"
	      "                      every --publish-interval, in a SONiC switch's COUNTERS_DB\n"
	      "                      layout (database 2: COUNTERS_PORT_NAME_MAP, COUNTERS:oid\n"
	      "                      with SAI_PORT_STAT_PFC_<p>_RX/TX_PKTS, queue and PG maps\n"
	      "                      and counters, watermarks), port N as EthernetN, and once\n"
	      "                      more at the end (also after Ctrl-C or SIGTERM); read it\n"
	      "                      back with `roceprobe counters sonic://HOST:PORT`. A bad\n"
	      "                      URL or a server not there at start: exit 2 before any\n"
	      "                      port opens; a server lost later: one line, the switch\n"
	      "                      goes on without publishing\n"
	      "  --publish-interval S  how often to publish (default 1 s, SONiC's counterpoll)\n"
	      RP_CLI_METRICS_HELP
	      "                      (the switch's ports, PFC, queues and watermarks, the very\n"
	      "                      snapshot --publish writes, taken every 500 ms or\n"
	      "                      --publish-interval)\n"
	      "\n"
	      "Forwarding: static --fdb entries and learned MACs; broadcast, multicast and\n"
	      "unknown unicast are flooded, each copy admitted, queued and paced on its own\n"
	      "(the port's rx counters count copies; `flooded` counts frames). Link-local\n"
	      "01:80:C2:00:00:0x frames other than PFC/PAUSE are not forwarded.\n"
	      "Once a second stderr shows per port: rx/tx frames per second, drops of frames\n"
	      "that came in there, ECN marks, PFC sent/received, the deepest egress queue.\n"
	      "Ctrl-C or SIGTERM stops cleanly and prints the model's counters per port and\n"
	      "priority. Exit status 0, or 2 with one line on bad input. Example:\n"
	      "  roceprobe switch --port net_af_packet0,iface=hA1 --port net_af_packet1,iface=hB1 \\\n"
	      "      --port net_af_packet2,iface=hC1 --speed 100M --lossless 3 --headroom 128KiB \\\n"
	      "      --fdb 02:00:00:00:00:0c=2 --mac-learn --duration 60\n",
	      out);
}

static int parse_prios(const char *opt, const char *s, uint8_t *mask)
{
	char *end;
	*mask = 0;
	if (strcmp(s, "none") == 0)
		return 0;
	for (const char *p = s;;) {
		errno = 0;
		unsigned long v = strtoul(p, &end, 10);
		if (errno || end == p || v > 7)
			return rp_cli_error(CMD, "%s: expected priorities 0..7 like 3 or 3,4, got '%s'", opt, s);
		*mask |= (uint8_t)(1u << v);
		if (*end == '\0')
			return 0;
		if (*end != ',')
			return rp_cli_error(CMD, "%s: expected priorities 0..7 like 3 or 3,4, got '%s'", opt, s);
		p = end + 1;
	}
}

static int parse_fdb(const char *s, struct switch_opts *o)
{
	const char *eq = strchr(s, '=');
	char mac[32];
	if (o->nfdb == MAX_FDB)
		return rp_cli_error(CMD, "at most %d --fdb entries", MAX_FDB);
	struct rp_dp_switch_fdb *e = &o->fdb[o->nfdb];
	if (!eq || (size_t)(eq - s) >= sizeof(mac))
		return rp_cli_error(CMD, "--fdb: expected MAC=PORT like 02:00:00:00:00:0c=2, got '%s'", s);
	memcpy(mac, s, (size_t)(eq - s));
	mac[eq - s] = '\0';
	uint64_t port;
	if (rp_mac_parse(mac, e->mac) != 0 || (e->mac[0] & 1) ||
	    rp_parse_uint(eq + 1, SWITCH_MAX_PORTS - 1, &port))
		return rp_cli_error(CMD, "--fdb: expected a unicast MAC=PORT like 02:00:00:00:00:0c=2, got '%s'", s);
	e->port = (unsigned)port;
	o->nfdb++;
	return 0;
}

/* "5KB,200KB,1%" or "5000,200000,0.01". */
static int parse_ecn(const char *s, struct switch_opts *o)
{
	char a[64], b[64], c[64];
	if (strlen(s) >= 64 || sscanf(s, "%63[^,],%63[^,],%63s", a, b, c) != 3 || rp_parse_size(a, &o->fab.kmin) ||
	    rp_parse_size(b, &o->fab.kmax))
		return rp_cli_error(CMD, "--ecn: expected KMIN,KMAX,PMAX like 5KB,200KB,1%%, got '%s'", s);
	double p;
	if (rp_parse_share(c, 1, 0, 1, &p) || o->fab.kmin > o->fab.kmax)
		return rp_cli_error(CMD, "--ecn: need KMIN <= KMAX and PMAX within 0..100%%, got '%s'", s);
	o->fab.pmax = p;
	o->fl.ecn = true;
	return 0;
}

static int parse_size_opt(const char *opt, const char *s, uint64_t *v)
{
	return rp_cli_size(CMD, opt, s, 1, UINT64_MAX, v);
}

/* Metres to each peer: fabric.link.cable, 5 ns/m one way. */
static int parse_cable(const char *s, uint64_t *ns)
{
	char *end;
	double m = strtod(s, &end);
	if (end == s || *end || !(m >= 0 && m <= 1e5))
		return rp_cli_error(CMD, "--cable: expected metres from 0 to 100000, got '%s'", s);
	*ns = (uint64_t)llround(m * RP_HEADROOM_NS_PER_M);
	return 0;
}

static int parse_static(const char *opt, const char *s, struct rp_fabric_thresh *t)
{
	*t = (struct rp_fabric_thresh){0};
	return parse_size_opt(opt, s, &t->bytes);
}

static int parse_one(int c, const char *arg, struct switch_opts *o)
{
	uint64_t v;
	switch (c) {
	case 'p':
		if (o->nports == SWITCH_MAX_PORTS)
			return rp_cli_error(CMD, "at most %d ports", SWITCH_MAX_PORTS);
		o->ports[o->nports++] = arg;
		return 0;
	case 's':
		if (rp_parse_bitrate(arg, &o->speed_bps) != 0 || o->speed_bps == 0)
			return rp_cli_error(CMD, "--speed: expected a rate like 100M or 10G, got '%s'", arg);
		return 0;
	case 'b': return parse_size_opt("--buffer", arg, &o->fab.buffer_bytes);
	case 'x': return parse_static("--xoff", arg, &o->fab.xoff);
	case 'X': return parse_size_opt("--xon-delta", arg, &o->fab.xon_delta);
	case 'H': o->fab.headroom_auto = false; return parse_size_opt("--headroom", arg, &o->fab.headroom_bytes);
	case 'L': o->fab.pfc_off = false; return parse_prios("--lossless", arg, &o->fab.lossless_mask);
	case 'E': return parse_ecn(arg, o);
	case 'P': o->fl.ecn_prio_given = true; return parse_prios("--ecn-prio", arg, &o->fl.ecn_prio);
	case 'l': return parse_static("--lossy-limit", arg, &o->fab.lossy_limit);
	case 'f': return parse_fdb(arg, o);
	case 'C': return parse_cable(arg, &o->fab.host_delay_ns);
	case 'q':
		if (rp_cli_uint(CMD, "--quanta", arg, 1, 65535, &v))
			return RP_EXIT_USAGE;
		o->fab.pfc_quanta = (uint16_t)v;
		return 0;
	case 'M':
		if (rp_cli_uint(CMD, "--max-frame", arg, 1514, 9216, &v))
			return RP_EXIT_USAGE;
		o->fab.max_frame = (uint32_t)v;
		o->fl.max_frame_given = true;
		return 0;
	case 'F': return 0; /* --profile: read first (rp_switch_flags_fabric) */
	case 'd': return rp_cli_duration(CMD, "--duration", arg, 1e9, &o->duration_s);
	case 'w': o->capture = arg; return 0;
	case 'c':
		if (rp_cli_uint(CMD, "--cpu", arg, 0, CPU_SETSIZE - 1, &v))
			return RP_EXIT_USAGE;
		o->cpu = (int)v;
		return 0;
	case 'e': o->eal = arg; return 0;
	case RP_CLI_OPT_NO_TELEMETRY: o->no_telemetry = true; return 0;
	case 'j': o->json = true; return 0;
	case 'U': o->publish = arg; return 0;
	case 'I':
		o->publish_interval_given = true;
		return rp_cli_duration(CMD, "--publish-interval", arg, 3600, &o->publish_interval_s);
	case 'T': o->trust_pcp = true; return 0;
	case 'm': o->learn = true; return 0;
	case 'n': o->no_flood = true; return 0;
	case RP_CLI_OPT_METRICS:
	case RP_CLI_OPT_METRICS_KEY:
	case RP_CLI_OPT_METRICS_LINGER: return rp_cli_metrics_opt(CMD, c, arg, &o->metrics);
	default: return rp_cli_bad_option(CMD, SHORTS);
	}
}

static int check_opts(const struct switch_opts *o)
{
	if (o->nports == 0)
		return rp_cli_error(CMD, "--port DEVARGS is required, once per switch port (try 'roceprobe switch --help')");
	for (unsigned i = 0; i < o->nfdb; i++)
		if (o->fdb[i].port >= o->nports)
			return rp_cli_error(CMD, "--fdb: port %u does not exist (%u ports, numbered from 0)", o->fdb[i].port,
					    o->nports);
	if (o->publish_interval_given && !o->publish)
		return rp_cli_error(CMD, "--publish-interval: give --publish redis://HOST:PORT too");
	char err[128];
	if (rp_switch_flags_check(&o->fab, err, sizeof(err)) != 0)
		return rp_cli_error(CMD, "%s", err);
	return 0;
}

/* Returns 0 to run, -1 after --help, else the exit code. */
static int parse_args(int argc, char **argv, struct switch_opts *o)
{
	static const struct option opts[] = {
		{"port", required_argument, NULL, 'p'},        {"speed", required_argument, NULL, 's'},
		{"buffer", required_argument, NULL, 'b'},      {"xoff", required_argument, NULL, 'x'},
		{"xon-delta", required_argument, NULL, 'X'},   {"headroom", required_argument, NULL, 'H'},
		{"lossless", required_argument, NULL, 'L'},    {"ecn", required_argument, NULL, 'E'},
		{"ecn-prio", required_argument, NULL, 'P'},    {"lossy-limit", required_argument, NULL, 'l'},
		{"fdb", required_argument, NULL, 'f'},         {"cable", required_argument, NULL, 'C'},
		{"quanta", required_argument, NULL, 'q'},      {"max-frame", required_argument, NULL, 'M'},
		{"duration", required_argument, NULL, 'd'},    {"capture", required_argument, NULL, 'w'},
		{"eal", required_argument, NULL, 'e'},         {"json", no_argument, NULL, 'j'},
		{"trust-pcp", no_argument, NULL, 'T'},         {"mac-learn", no_argument, NULL, 'm'},
		{"no-flood", no_argument, NULL, 'n'},          {"cpu", required_argument, NULL, 'c'},
		{"profile", required_argument, NULL, 'F'},     {"help", no_argument, NULL, 'h'},
		{"publish", required_argument, NULL, 'U'},     {"publish-interval", required_argument, NULL, 'I'},
		RP_CLI_METRICS_OPTIONS,
		RP_CLI_NO_TELEMETRY_OPTION,
		{NULL, 0, NULL, 0},
	};
	static struct switch_opts zero;
	*o = zero;
	o->speed_bps = 10000000000ull;
	o->cpu = -1;
	o->publish_interval_s = 1;
	int c, rc;
	/* First --profile and --help, so the flags change the profile's switch
	 * wherever they stand; then every flag in order. */
	optind = 1;
	while ((c = getopt_long(argc, argv, SHORTS, opts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return -1;
		}
		if (c == 'F')
			o->profile = optarg;
	}
	char err[RP_PROFILE_ERR_LEN];
	if (rp_switch_flags_fabric(o->profile, &o->fab, err, sizeof(err)) != 0)
		return rp_cli_error(CMD, "%s", err);
	optind = 1;
	while ((c = getopt_long(argc, argv, SHORTS, opts, NULL)) != -1)
		if ((rc = parse_one(c, optarg, o)) != 0)
			return rc;
	if (optind != argc)
		return rp_cli_error(CMD, "unexpected argument '%s' (try 'roceprobe switch --help')", argv[optind]);
	o->fl.from_profile = o->profile != NULL;
	rp_switch_flags_ecn(&o->fab, &o->fl);
	return check_opts(o);
}

/* --publish and --metrics: the model's counters taken once an interval,
 * from the loop between two passes (the model is the poller's alone), then
 * handed to the publishing thread and kept for the metrics server's. */
struct live {
	struct rp_sonic_pub *pub;
	pthread_mutex_t mu; /* snap, against a scrape */
	struct rp_sonic_snap snap;
};
static struct rp_sonic_snap pub_snap;

static void take(struct rp_dp_switch_run *r, uint64_t now_ns, struct live *l)
{
	rp_switch_sonic_snap(r->sw, r->rt.nports, now_ns, &pub_snap);
	pthread_mutex_lock(&l->mu);
	l->snap = pub_snap;
	pthread_mutex_unlock(&l->mu);
}

static void tick(struct rp_dp_switch_run *r, uint64_t now_ns, void *ctx)
{
	struct live *l = ctx;
	take(r, now_ns, l);
	if (l->pub)
		rp_sonic_pub_offer(l->pub, &pub_snap);
}

static void collect(struct rp_prom *p, void *arg)
{
	struct live *l = arg;
	pthread_mutex_lock(&l->mu);
	rp_metrics_switch(p, &l->snap);
	pthread_mutex_unlock(&l->mu);
}

int rp_cmd_switch(int argc, char **argv)
{
	static struct switch_opts o;
	int rc = parse_args(argc, argv, &o);
	if (rc != 0)
		return rc < 0 ? RP_EXIT_OK : rc;
	static struct rp_dp_switch_run r;
	static struct live live = {.mu = PTHREAD_MUTEX_INITIALIZER};
	struct rp_sonic_pub *pub = NULL;
	struct rp_metrics *mx = NULL;
	if ((o.publish || o.metrics.spec) && o.nports > RP_SONIC_PUB_PORTS)
		return rp_cli_error(CMD, "--publish and --metrics: at most %d ports", RP_SONIC_PUB_PORTS);
	if (o.publish) { /* before the EAL and any port: a bad URL or no server costs nothing */
		char perr[512];
		if (!(pub = rp_sonic_pub_open(o.publish, "roceprobe " CMD, perr, sizeof(perr))))
			return rp_cli_error(CMD, "%s", perr);
	}
	if ((rc = rp_cli_metrics_start(CMD, &o.metrics, 0, &mx)) != 0) {
		rp_sonic_pub_close(pub, NULL);
		return rc;
	}
	if (pub || mx) {
		live.pub = pub;
		live.snap.nports = o.nports;
		r.tick = tick;
		r.tick_ctx = &live;
		r.tick_ns = pub ? (uint64_t)(o.publish_interval_s * 1e9) : 500000000ull;
		rp_metrics_collect(mx, collect, &live);
	}
	struct rp_dp_switch_spec spec = {.ports = o.ports, .nports = o.nports, .fab = &o.fab, .flags = &o.fl,
					 .speed_bps = o.speed_bps, .trust_pcp = o.trust_pcp, .learn = o.learn,
					 .flood_unknown = !o.no_flood, .fdb = o.fdb, .nfdb = o.nfdb, .capture = o.capture,
					 .eal = o.eal, .no_telemetry = o.no_telemetry, .cpu = o.cpu};
	char err[RP_DP_ERRLEN + 512];
	rp_cli_catch_stop();
	if (rp_dp_switch_start(&r, &spec, err, sizeof(err)) != 0) {
		rc = rp_cli_error(CMD, "%s", err);
		rp_sonic_pub_close(pub, NULL);
		rp_cli_metrics_end(CMD, &o.metrics, mx, false);
		rp_dp_switch_teardown(&r);
		return rc;
	}
	rp_cli_metrics_off_lcores(mx);
	rp_dp_switch_loop(&r, (uint64_t)(o.duration_s * 1e9), &rp_cli_stop);
	rp_dp_switch_stop(&r);
	struct rp_switch_rt_facts f;
	rp_dp_switch_facts(&r, rp_cli_stop != 0, &f);
	if (pub || mx) { /* the last values, at the summary's own end time */
		take(&r, f.end_ns, &live);
		rp_sonic_pub_close(pub, &pub_snap);
	}
	if (o.json) {
		json_t *j = rp_switch_rt_json(&f);
		json_dumpf(j, stdout, JSON_PRESERVE_ORDER | JSON_COMPACT);
		fputc('\n', stdout);
		json_decref(j);
	} else {
		rp_switch_rt_print_text(stdout, &f);
	}
	fflush(stdout);
	rp_cli_metrics_end(CMD, &o.metrics, mx, true); /* the summary's values */
	rp_dp_switch_teardown(&r);
	return RP_EXIT_OK;
}
