/* roceprobe switch: the emulated PFC/ECN switch (lib/fabric) in real time on
 * DPDK ports, so real endpoints can be wired through it. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dp/capture.h"
#include "pcap/names.h"
#include "dp/dp.h"
#include "dp/switch_rt.h"
#include "fabric/headroom.h"
#include "fabric/switch.h"
#include "profile/switch_cfg.h"
#include "profile/units.h"
#include "report/switch_json.h"
#include "wire/eth.h"

/* getopt_long's short options (rp_cli_bad_option names a bad one). */
static const char SHORTS[] = "p:s:b:x:X:H:L:E:P:l:f:C:q:M:d:w:e:c:F:jTmnh";

/* The DPDK switch tells its lcore which ports to serve by a 64-bit mask
 * (rp_switch_rx.kick): 64 ports here, up to RP_SWITCH_MAX_PORTS in the lab. */
#define SWITCH_MAX_PORTS 64

#define NS 1000000000ull
#define MAX_FDB 1024
#define DRAIN_NS 50000000ull
#define CMD "switch"

struct fdb_entry {
	uint8_t mac[6];
	unsigned port;
};

/* The switch is a `fabric:` description (--profile's, else
 * rp_fabric_init_switch) that the flags then change, mapped to the model by
 * the lab's own rp_fabric_switch_cfg. */
struct switch_opts {
	const char *ports[SWITCH_MAX_PORTS];
	unsigned nports;
	const char *profile;
	struct rp_fabric fab;
	uint64_t speed_bps;
	bool max_frame_given; /* --max-frame: every port must take it */
	bool ecn;             /* --ecn given */
	bool ecn_prio_given;
	uint8_t ecn_prio;
	bool trust_pcp;
	bool learn;
	bool no_flood;
	struct fdb_entry fdb[MAX_FDB];
	unsigned nfdb;
	double duration_s;
	const char *capture;
	const char *eal;
	int cpu; /* -1: the highest CPU the process may use */
	bool json;
};

struct switch_run {
	struct rp_switch_cfg cfg;
	struct rp_switch *sw;
	struct rp_dp_port ports[SWITCH_MAX_PORTS];
	struct rp_dp_switch rt;
	struct rp_capture_cfg cap_cfg[SWITCH_MAX_PORTS];
	char cap_path[SWITCH_MAX_PORTS][4200];
	struct rp_capture_stats cap_stats[SWITCH_MAX_PORTS];
	bool eal_up;
	uint64_t end_ns;
	uint64_t pmd_imissed[SWITCH_MAX_PORTS], pmd_oerrors[SWITCH_MAX_PORTS];
	struct rp_switch_port_stats last[SWITCH_MAX_PORTS];
	struct rp_dp_sw_counters last_c[SWITCH_MAX_PORTS];
	uint64_t last_ns;
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
	      "  --cpu N             the CPU the poller runs on (default: the highest one the\n"
	      "                      process may use: the EAL of every other command polls\n"
	      "                      on CPU 0, and two busy pollers on one CPU halve both)\n"
	      "  --json              the final summary as one JSON object on stdout\n"
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
	struct fdb_entry *e = &o->fdb[o->nfdb];
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
	o->ecn = true;
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
	case 'P': o->ecn_prio_given = true; return parse_prios("--ecn-prio", arg, &o->ecn_prio);
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
		o->max_frame_given = true;
		return 0;
	case 'F': return 0; /* --profile: read first (load_fabric) */
	case 'd': return rp_cli_duration(CMD, "--duration", arg, 1e9, &o->duration_s);
	case 'w': o->capture = arg; return 0;
	case 'c':
		if (rp_cli_uint(CMD, "--cpu", arg, 0, CPU_SETSIZE - 1, &v))
			return RP_EXIT_USAGE;
		o->cpu = (int)v;
		return 0;
	case 'e': o->eal = arg; return 0;
	case 'j': o->json = true; return 0;
	case 'T': o->trust_pcp = true; return 0;
	case 'm': o->learn = true; return 0;
	case 'n': o->no_flood = true; return 0;
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
	if (!o->fab.xoff.dynamic && o->fab.xon_delta >= o->fab.xoff.bytes) /* given here or by --profile */
		return rp_cli_error(CMD, "--xon-delta (%" PRIu64 " B) must be below --xoff (%" PRIu64 " B)",
				    o->fab.xon_delta, o->fab.xoff.bytes);
	return 0;
}

/* ECN after every flag: --ecn-prio names the priorities; --ecn alone marks
 * the description's (a profile's ecn.priorities), else the lossless ones,
 * else 3. Without --profile nothing is marked unless --ecn is given. */
static void settle_ecn(struct switch_opts *o)
{
	struct rp_fabric *f = &o->fab;
	uint8_t lossless = f->pfc_off ? 0 : f->lossless_mask;
	if (o->ecn_prio_given)
		f->ecn_mask = o->ecn_prio;
	else if (o->ecn && !f->ecn_mask)
		f->ecn_mask = lossless ? lossless : 1u << 3;
	if (!o->profile && !o->ecn)
		f->ecn_mask = 0;
}

/* The description the flags start from: --profile's `fabric:` section (the
 * lab's defaults for what it leaves out), else rp_fabric_init_switch. */
static int load_fabric(struct switch_opts *o)
{
	char err[RP_PROFILE_ERR_LEN];
	if (!o->profile) {
		rp_fabric_init_switch(&o->fab);
		return 0;
	}
	struct rp_profile *p = rp_profile_load(o->profile, NULL, err, sizeof(err));
	if (!p)
		return rp_cli_error(CMD, "%s", err);
	o->fab = p->fabric;
	rp_profile_free(p);
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
		{NULL, 0, NULL, 0},
	};
	static struct switch_opts zero;
	*o = zero;
	o->speed_bps = 10000000000ull;
	o->cpu = -1;
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
	if ((rc = load_fabric(o)) != 0)
		return rc;
	optind = 1;
	while ((c = getopt_long(argc, argv, SHORTS, opts, NULL)) != -1)
		if ((rc = parse_one(c, optarg, o)) != 0)
			return rc;
	if (optind != argc)
		return rp_cli_error(CMD, "unexpected argument '%s' (try 'roceprobe switch --help')", argv[optind]);
	settle_ecn(o);
	return check_opts(o);
}

static int build_cfg(struct rp_switch_cfg *c, const struct switch_opts *o)
{
	static struct rp_fabric_switch fs;
	char err[512];
	rp_fabric_switch_uniform(&o->fab, o->nports, o->speed_bps, &fs);
	fs.fdb_size = 4096; /* --fdb entries (at most 1024) and what --mac-learn finds */
	rp_fabric_switch_cfg(&o->fab, &fs, c);
	c->trust_pcp = o->trust_pcp;
	if (rp_switch_cfg_check(c, err, sizeof(err)) != 0)
		return rp_cli_error(CMD, "switch settings: %s", err);
	return 0;
}

static int open_captures(struct switch_run *r, const struct switch_opts *o)
{
	char err[RP_DP_ERRLEN];
	for (unsigned p = 0; o->capture && p < o->nports; p++) {
		char tag[16];
		snprintf(tag, sizeof(tag), "-p%u", p); /* out.pcap -> out-p0.pcap: capture's own naming */
		rp_pcap_name_tag(o->capture, tag, r->cap_path[p], sizeof(r->cap_path[p]));
		r->cap_cfg[p] = (struct rp_capture_cfg){.path = r->cap_path[p]};
		r->rt.port[p].cap = rp_capture_open(&r->cap_cfg[p], err, sizeof(err));
		if (!r->rt.port[p].cap)
			return rp_cli_error(CMD, "%s", err);
	}
	return 0;
}

/* The largest frame (without FCS) every port takes: the PMDs' max_rx_pktlen
 * counts the FCS. 0 when no port says. */
static uint32_t ports_max_frame(const struct switch_opts *o)
{
	uint32_t m = 0;
	for (unsigned p = 0; p < o->nports; p++) {
		/* What the port really carries (af_packet: its ring's framesz and the
		 * interface's MTU, not the 1518 its PMD reports), as `run` checks it. */
		uint32_t f = (uint32_t)rp_dp_port_frame_limit(o->ports[p], NULL, 0, NULL, 0);
		if (f)
			m = m == 0 || f < m ? f : m;
	}
	return m;
}

/* --max-frame: the user's (every port must take it), else 9216 or the
 * largest every port takes. */
static int pick_max_frame(struct switch_opts *o)
{
	uint32_t ports = ports_max_frame(o), *m = &o->fab.max_frame;
	if (!o->max_frame_given) {
		*m = ports && ports < *m ? ports : *m;
		if (*m < 1514)
			*m = 1514;
		return 0;
	}
	if (ports && *m > ports)
		return rp_cli_error(CMD, "--max-frame %u: a port takes frames up to %u bytes", *m, ports);
	return 0;
}

/* The highest CPU in the process's affinity, read before the EAL pins it. */
static int highest_cpu(void)
{
	cpu_set_t set;
	int best = -1;
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return -1;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			best = c;
	return best;
}

static int pin_poller(int cpu)
{
	if (rp_dp_pin_poller(cpu) != 0)
		return rp_cli_error(CMD, "--cpu %d: cannot run there (not one of this process's CPUs?)", cpu);
	return 0;
}

static int start(struct switch_run *r, struct switch_opts *o)
{
	char err[RP_DP_ERRLEN];
	if (o->cpu < 0)
		o->cpu = highest_cpu();
	struct rp_dp_port *ports[SWITCH_MAX_PORTS];
	struct rp_dp_eal_opts eo = {.devargs = o->ports, .n_devargs = o->nports, .user_eal = o->eal, .lcores = 1,
				    .who = CMD};
	if (rp_dp_eal_init(&eo, err, sizeof(err)) != 0)
		return rp_cli_error(CMD, "%s", err);
	r->eal_up = true;
	int rc = pin_poller(o->cpu);
	if (rc || (rc = pick_max_frame(o)) != 0 || (rc = build_cfg(&r->cfg, o)) != 0)
		return rc;
	for (unsigned p = 0; p < o->nports; p++) {
		if (rp_dp_port_open(o->ports[p], 1, 1, o->fab.max_frame, &r->ports[p], err, sizeof(err)) != 0)
			return rp_cli_error(CMD, "%s", err);
		ports[p] = &r->ports[p];
	}
	r->sw = rp_switch_create(&r->cfg);
	if (!r->sw)
		return rp_cli_error(CMD, "cannot allocate the switch's buffer (%" PRIu64 " bytes)", o->fab.buffer_bytes);
	for (unsigned i = 0; i < o->nfdb; i++)
		if (rp_switch_fdb_add(r->sw, o->fdb[i].mac, o->fdb[i].port) != 0)
			return rp_cli_error(CMD, "--fdb: the MAC table is full");
	rp_dp_switch_init(&r->rt, r->sw, ports, o->nports, o->learn, !o->no_flood);
	rp_dp_clock_start();
	return open_captures(r, o);
}

static uint64_t sum_drops(const struct rp_switch_port_stats *s)
{
	uint64_t n = 0;
	for (unsigned d = 0; d < RP_DROP_REASONS; d++)
		n += s->drop_pkts[d];
	return n;
}

static const char *human(double v, char *buf, size_t n)
{
	if (v >= 1e6)
		snprintf(buf, n, "%.2fM", v / 1e6);
	else if (v >= 1e4)
		snprintf(buf, n, "%.1fk", v / 1e3);
	else
		snprintf(buf, n, "%.0f", v);
	return buf;
}

static void progress_port(struct switch_run *r, unsigned p, double dt)
{
	struct rp_switch_port_stats s;
	struct rp_dp_sw_port *sp = &r->rt.port[p];
	const struct rp_switch_port_stats *l = &r->last[p];
	const struct rp_dp_sw_counters *lc = &r->last_c[p];
	char a[16], b[16], q[16];
	rp_switch_port_stats(r->sw, p, &s);
	fprintf(stderr,
		" | %u rx %s tx %s pps drop %" PRIu64 " ecn %" PRIu64 " pfc %" PRIu64 "/%" PRIu64 " maxq %s", p,
		human((double)(sp->c.rx_frames - lc->rx_frames) / dt, a, sizeof(a)),
		human((double)(sp->c.tx_frames - lc->tx_frames) / dt, b, sizeof(b)), sum_drops(&s) - sum_drops(l),
		s.ecn_marked - l->ecn_marked, s.pfc_tx - l->pfc_tx, (s.pfc_rx + s.pause_rx) - (l->pfc_rx + l->pause_rx),
		rp_format_size(sp->qmax_window, q, sizeof(q)));
	r->last[p] = s;
	r->last_c[p] = sp->c;
	sp->qmax_window = 0;
}

static void progress(struct switch_run *r, uint64_t now)
{
	double dt = (double)(now - r->last_ns) / 1e9;
	if (dt <= 0)
		return;
	fprintf(stderr, "switch %6.1fs", (double)now / 1e9);
	for (unsigned p = 0; p < r->rt.nports; p++)
		progress_port(r, p, dt);
	fputc('\n', stderr);
	r->last_ns = now;
}

static void poll_loop(struct switch_run *r, const struct switch_opts *o)
{
	uint64_t duration_ns = (uint64_t)(o->duration_s * 1e9), next_progress = NS;
	for (;;) {
		uint64_t now = rp_dp_now_ns();
		if (rp_cli_stop || (duration_ns && now >= duration_ns))
			break;
		rp_dp_switch_poll(&r->rt, now);
		if (now >= next_progress) {
			progress(r, now);
			next_progress += NS;
		}
	}
	rp_dp_switch_flush(&r->rt, DRAIN_NS);
	r->end_ns = r->rt.mt > rp_dp_now_ns() ? r->rt.mt : rp_dp_now_ns();
}

static void read_pmd_stats(struct switch_run *r)
{
	for (unsigned p = 0; p < r->rt.nports; p++) {
		struct rp_dp_port_drops d;
		rp_dp_port_read_drops(&r->ports[p], &d);
		r->pmd_imissed[p] = d.missed;
		r->pmd_oerrors[p] = d.oerrors;
	}
}

/* ---- the final summary ---- */

static json_t *edge_json(const struct rp_dp_sw_counters *c)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "rx_frames",
			 (json_int_t)c->rx_frames, "rx_bytes", (json_int_t)c->rx_bytes, "tx_frames",
			 (json_int_t)c->tx_frames, "tx_bytes", (json_int_t)c->tx_bytes, "tx_pfc", (json_int_t)c->tx_pfc,
			 "flooded", (json_int_t)c->flooded, "flood_copies", (json_int_t)c->flood_copies, "learned",
			 (json_int_t)c->learned, "fdb_full", (json_int_t)c->fdb_full, "link_local",
			 (json_int_t)c->link_local, "hairpin", (json_int_t)c->hairpin, "tx_stalls",
			 (json_int_t)c->tx_stalls, "tx_unsent", (json_int_t)c->tx_unsent, "nombuf", (json_int_t)c->nombuf);
}

/* The model's port as the lab's result.json writes it (report/switch_json.h)
 * plus what only the real-time switch knows: the DPDK port, the edge around
 * the model, the PMD's counters, the capture. */
static json_t *port_json(const struct switch_run *r, unsigned p)
{
	json_t *j = rp_switch_port_json(r->sw, p, r->end_ns, true);
	json_object_set_new(j, "devargs", json_string(r->ports[p].name));
	json_object_set_new(j, "driver", json_string(r->ports[p].driver));
	json_object_set_new(j, "edge", edge_json(&r->rt.port[p].c));
	json_object_set_new(j, "pmd_missed", json_integer((json_int_t)r->pmd_imissed[p]));
	json_object_set_new(j, "pmd_oerrors", json_integer((json_int_t)r->pmd_oerrors[p]));
	if (r->cap_path[p][0])
		json_object_set_new(j, "capture", json_pack("{s:s, s:I, s:I}", "path", r->cap_path[p], "written",
							    (json_int_t)r->cap_stats[p].written, "dropped",
							    (json_int_t)r->cap_stats[p].dropped));
	return j;
}

static json_t *config_json(const struct switch_run *r)
{
	const struct rp_switch_cfg *c = &r->cfg;
	unsigned lossless = 0;
	while (lossless < RP_SWITCH_TCS && !((c->lossless_mask >> lossless) & 1))
		lossless++;
	return json_pack("{s:I, s:I, s:i, s:I, s:I, s:I, s:i, s:I}", "speed_bps", (json_int_t)c->port[0].rate_bps,
			 "buffer_bytes", (json_int_t)c->buffer_bytes, "lossless_mask", (int)c->lossless_mask, "xoff_bytes",
			 (json_int_t)c->pg[0].xoff.bytes, "xon_delta_bytes", (json_int_t)c->pg[0].xon_delta,
			 "headroom_bytes",
			 (json_int_t)(lossless < RP_SWITCH_TCS ? c->port[0].headroom[lossless] : 0), "pfc_quanta",
			 (int)c->pfc_quanta, "max_frame", (json_int_t)c->max_frame);
}

static void totals(const struct switch_run *r, uint64_t drops[RP_DROP_REASONS], uint64_t *all)
{
	memset(drops, 0, RP_DROP_REASONS * sizeof(drops[0]));
	*all = 0;
	for (unsigned p = 0; p < r->rt.nports; p++) {
		struct rp_switch_port_stats s;
		rp_switch_port_stats(r->sw, p, &s);
		for (unsigned d = 0; d < RP_DROP_REASONS; d++) {
			drops[d] += s.drop_pkts[d];
			*all += s.drop_pkts[d];
		}
	}
}

static void report_json(const struct switch_run *r)
{
	uint64_t drops[RP_DROP_REASONS], all;
	totals(r, drops, &all);
	json_t *ports = json_array();
	for (unsigned p = 0; p < r->rt.nports; p++)
		json_array_append_new(ports, port_json(r, p));
	json_t *j = json_pack("{s:s, s:f, s:b, s:o, s:I, s:o, s:o, s:o}", "schema", "roceprobe.switch/2", "elapsed_s",
			      (double)r->end_ns / 1e9, "interrupted", rp_cli_stop != 0, "config", config_json(r),
			      "drops", (json_int_t)all, "drops_by_reason", rp_switch_drops_json(drops), "buffer",
			      rp_switch_buffer_json(r->sw), "ports", ports);
	json_dumpf(j, stdout, JSON_PRESERVE_ORDER | JSON_COMPACT);
	fputc('\n', stdout);
	json_decref(j);
}

static void text_prio(const struct switch_run *r, unsigned p, unsigned t)
{
	struct rp_switch_queue_stats q;
	struct rp_switch_pg_stats g;
	rp_switch_queue_stats(r->sw, p, t, r->end_ns, &q);
	rp_switch_pg_stats(r->sw, p, t, r->end_ns, &g);
	if (!q.enq_pkts && !g.rx_pkts && !q.pfc_rx && !g.xoff_sent && !g.drop_pkts)
		return;
	uint64_t qd = 0;
	for (unsigned d = 0; d < RP_DROP_REASONS; d++)
		qd += q.drop_pkts[d];
	printf("  prio %u%s in %" PRIu64 " (dropped %" PRIu64 ", XOFF %" PRIu64 " XON %" PRIu64 " refresh %" PRIu64
	       ", max held %" PRIu64 " B, headroom %" PRIu64 " B) | out %" PRIu64 " (dropped %" PRIu64 ", ECN %" PRIu64
	       ", max depth %" PRIu64 " B, PFC rx %" PRIu64 ", paused %.3f ms)\n",
	       t, (r->cfg.lossless_mask >> t) & 1 ? " lossless" : "", g.rx_pkts, g.drop_pkts, g.xoff_sent, g.xon_sent,
	       g.refresh_sent, g.max_bytes, g.max_headroom_bytes, q.tx_pkts, qd, q.ecn_marked, q.max_depth_bytes,
	       q.pfc_rx, (double)q.paused_ns / 1e6);
}

static void text_port(const struct switch_run *r, unsigned p)
{
	struct rp_switch_port_stats s;
	const struct rp_dp_sw_counters *c = &r->rt.port[p].c;
	rp_switch_port_stats(r->sw, p, &s);
	printf("port %u %s (%s): rx %" PRIu64 " tx %" PRIu64 " (PFC %" PRIu64 "), dropped %" PRIu64, p,
	       r->ports[p].name, r->ports[p].driver, c->rx_frames, c->tx_frames, c->tx_pfc, sum_drops(&s));
	for (unsigned d = 1; d < RP_DROP_REASONS; d++)
		if (s.drop_pkts[d])
			printf(" %s %" PRIu64, rp_switch_drop_name(d), s.drop_pkts[d]);
	printf(", ECN %" PRIu64 ", PFC rx %" PRIu64 " PAUSE rx %" PRIu64 "; flooded %" PRIu64 ", learned %" PRIu64
	       ", PMD missed %" PRIu64 ", unsent %" PRIu64 "\n",
	       s.ecn_marked, s.pfc_rx, s.pause_rx, c->flooded, c->learned, r->pmd_imissed[p], c->tx_unsent);
	for (unsigned t = 0; t < RP_SWITCH_TCS; t++)
		text_prio(r, p, t);
}

static void report_text(const struct switch_run *r)
{
	uint64_t drops[RP_DROP_REASONS], all;
	struct rp_switch_buffer_stats b;
	char sp[16], bf[16];
	totals(r, drops, &all);
	rp_switch_buffer_stats(r->sw, &b);
	printf("roceprobe switch: %u ports at %s, buffer %s, %.3f s%s\n", r->rt.nports,
	       rp_format_bps(r->cfg.port[0].rate_bps, sp, sizeof(sp)), rp_format_size(r->cfg.buffer_bytes, bf, sizeof(bf)),
	       (double)r->end_ns / 1e9, rp_cli_stop ? " (interrupted)" : "");
	for (unsigned p = 0; p < r->rt.nports; p++)
		text_port(r, p);
	printf("drops %" PRIu64 "; buffer max shared %" PRIu64 " B, max headroom %" PRIu64 " B, frames held at stop %" PRIu64
	       "\n",
	       all, b.max_shared_used, b.max_headroom_used, b.pkts);
}

static void close_captures(struct switch_run *r)
{
	char err[RP_DP_ERRLEN];
	for (unsigned p = 0; p < SWITCH_MAX_PORTS; p++)
		if (r->rt.port[p].cap) {
			if (rp_capture_close(r->rt.port[p].cap, &r->cap_stats[p], err, sizeof(err)) != 0)
				fprintf(stderr, "roceprobe switch: %s\n", err);
			r->rt.port[p].cap = NULL;
		}
}

static void teardown(struct switch_run *r)
{
	close_captures(r);
	for (unsigned p = 0; p < SWITCH_MAX_PORTS; p++)
		rp_dp_port_close(&r->ports[p]);
	rp_switch_destroy(r->sw);
	r->sw = NULL;
	if (r->eal_up)
		rp_dp_eal_cleanup();
}

int rp_cmd_switch(int argc, char **argv)
{
	static struct switch_opts o;
	int rc = parse_args(argc, argv, &o);
	if (rc != 0)
		return rc < 0 ? RP_EXIT_OK : rc;
	static struct switch_run r;
	rp_cli_catch_stop();
	rc = start(&r, &o);
	if (rc != 0) {
		teardown(&r);
		return rc;
	}
	poll_loop(&r, &o);
	read_pmd_stats(&r);
	close_captures(&r);
	if (o.json)
		report_json(&r);
	else
		report_text(&r);
	fflush(stdout);
	teardown(&r);
	return RP_EXIT_OK;
}
