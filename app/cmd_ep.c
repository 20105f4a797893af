/* roceprobe ep: a verbs endpoint, with perftest's habits: the side given no
 * peer is the server, the client names it (`ep HOST`); the client says what
 * to measure and the server follows, so a server needs no test options.
 * lib/verbs/ep.h draws the session. */
#include <arpa/inet.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth/auth.h"
#include "cli.h"
#include "verbs/ep.h"
#include "verbs/ep_json.h"
#include "verbs/ep_text.h"

static void usage(FILE *out)
{
	fputs("usage: roceprobe ep [OPTIONS]         start a server and wait for clients\n"
	      "       roceprobe ep [OPTIONS] HOST    run the test against the server at HOST\n"
	      "\n"
	      "Measures an RDMA path with real verbs over RC QPs, between two hosts (or one\n"
	      "server and several clients for an incast). As with perftest (ib_write_lat,\n"
	      "ib_write_bw, ...), the side given no peer is the server and the client names\n"
	      "it; perftest's short options mean the same here (-d -i -x -s -n -q -D -a -c\n"
	      "-p -m -S -L -R -u -t -r -Q -I, --report_gbits). QP numbers, PSNs, GIDs/LIDs\n"
	      "and buffer keys are exchanged over TCP (--port); the client sends the test\n"
	      "parameters, so the server needs none. Start the server first; the client\n"
	      "retries its TCP connection for --connect-timeout seconds.\n"
	      "\n"
	      "What listens: the server, on TCP --port at --bind (127.0.0.1 unless told),\n"
	      "until its --clients clients are in; with --cm also an rdma_cm listener per\n"
	      "client on its RoCE GID's IPv4 address (else --bind), until that client's QPs\n"
	      "are connected. The client listens on nothing. Anyone who reaches the port\n"
	      "may be a client unless both sides have a key (docs/security.md); with a key,\n"
	      "rdma_cm's requests prove it too, and the server refuses any that does not.\n"
	      "\n"
	      "roles\n"
	      "      --server            be the server (the default without HOST): wait for\n"
	      "                          --clients clients, serve them, exit\n"
	      "      --client HOST       the same as HOST: run the test against HOST (a name\n"
	      "                          or an address)\n"
	      "  -p, --port N            TCP port of the exchange (default 18520)\n"
	      "      --bind ADDR         server: listen on ADDR (default 127.0.0.1, this host\n"
	      "                          only; give the address clients reach, or 0.0.0.0\n"
	      "                          for every IPv4 address)\n"
	      "      --key-file F        both: a shared key, the text of F (chmod 600; a file\n"
	      "                          others may read is a warning); else ROCEPROBE_KEY.\n"
	      "                          When either side has a key, both prove it (a\n"
	      "                          challenge-response, never the key on the wire)\n"
	      "                          before anything else: a key on one side only, or two\n"
	      "                          different keys, and the server refuses the client\n"
	      "      --clients N         server: incast of N clients; they start each size\n"
	      "                          together; reports per-client goodput and Jain's index\n"
	      "\n"
	      "what to measure (client)\n"
	      "      --op OP             write (default), write_imm, send, read\n"
	      "      --mode MODE         lat: ping-pong latency, one sample per iteration,\n"
	      "                               all in the histogram (p50 .. p99.999, max,\n"
	      "                               exact mean and stdev), also with --duration;\n"
	      "                               write/write_imm/send report half the round\n"
	      "                               trip (as perftest), read the whole one\n"
	      "                          bw:  windowed: --tx-depth requests in flight on each\n"
	      "                               of --qps QPs; goodput in Gbit/s\n"
	      "                          rate: bw with small messages; message rate in Mmsg/s\n"
	      "  -s, --size N[,N...]     message size(s): 65536, 64, 4KiB, 1MiB (1048576), 1MB\n"
	      "                          (1000000); bare K/M/G refused. default 2 (lat,\n"
	      "                          rate) or 64KiB (bw)\n"
	      "  -a, --sweep             every power of two from 2 B to 8 MiB (perftest -a)\n"
	      "  -n, --iters N           iterations per size (per QP for bw); default 1000\n"
	      "                          for lat, 5000 for bw and rate\n"
	      "  -D, --duration SEC      run each size for SEC seconds instead\n"
	      "  -q, --qps N             QPs per client (bw, rate; default 1; perftest --qp)\n"
	      "  -t, --tx-depth N        send queue depth (default 64 lat, 128 bw)\n"
	      "  -r, --rx-depth N        receives kept posted (send, write_imm; default 512)\n"
	      "  -Q, --cq-mod N          one signalled completion per N sends (default 1 lat,\n"
	      "                          100 bw)\n"
	      "  -I, --inline N          inline payloads up to N bytes (default 220 lat, 0 bw)\n"
	      "\n"
	      "device and path (both sides)\n"
	      "  -d, --dev NAME          RDMA device (default: the first, see ibv_devices;\n"
	      "                          perftest --ib-dev)\n"
	      "  -i, --ib-port N         its port (default 1)\n"
	      "  -x, --gid-index N       RoCE source GID index. Default: scan the table for\n"
	      "                          the RoCE v2 GID of an IPv4 address (sysfs gid_attrs)\n"
	      "      --dscp N            RoCE: DSCP 0..63 of our packets (GRH traffic class)\n"
	      "      --ecn N             RoCE: ECN bits 0..3 (traffic class = DSCP << 2 | ECN)\n"
	      "  -S, --sl N              InfiniBand: service level 0..15 (addressed by LID,\n"
	      "                          no GRH)\n"
	      "  -L, --hop-limit N       RoCE: GRH hop limit / IP TTL (default 64)\n"
	      "  -m, --mtu N             path MTU 256..4096 (default: the port's active MTU,\n"
	      "                          lowered to the peer's)\n"
	      "  -u, --ack-timeout N     local ACK timeout 4.096 us * 2^N (default 14: 67 ms;\n"
	      "                          perftest --qp-timeout)\n"
	      "      --retry N           transport retries 0..7 (default 7)\n"
	      "  -R, --cm                client: connect the QPs with rdma_cm (the kernel\n"
	      "                          resolves address and route; REQ/REP/RTU on QP1)\n"
	      "                          instead of QP records over TCP; the control lines\n"
	      "                          stay on TCP and the server follows the client\n"
	      "      --ud                client: Unreliable Datagram QPs for light latency\n"
	      "                          probes: --mode lat with --op send only (the default\n"
	      "                          op under --ud), sizes up to the path MTU; a probe\n"
	      "                          not answered within --ud-timeout is counted lost\n"
	      "  -c, --connection T      client: RC (the default) or UD (= --ud), as\n"
	      "                          perftest's -c\n"
	      "      --ud-timeout S      --ud: give a probe up after S seconds or a duration\n"
	      "                          (0.2, 200ms; default 1 s)\n"
	      "\n"
	      "time limits\n"
	      "      --connect-timeout S client: keep trying to reach the server S seconds;\n"
	      "                          both: control replies (default 30)\n"
	      "      --stall-timeout S   no progress for S seconds = the peer is gone (default 30)\n"
	      "\n"
	      "output\n"
	      "      --counters-interval MS  also sample the counters every MS ms\n"
	      "      --no-counters       skip the counter snapshots\n"
	      "      --json              print result.json to stdout instead of the tables\n"
	      "  -o, --output DIR        also write DIR/result.json\n"
	      "      --report_gbits      accepted for perftest's command lines: the tables\n"
	      "                          always give bandwidth in Gbit/s (10^9 bit/s), which\n"
	      "                          is what it asks perftest for (its default is MiB/s:\n"
	      "                          1 Gbit/s = 119.2 MiB/s)\n"
	      "\n"
	      "Counters: /sys/class/infiniband/DEV/ports/P/{counters,hw_counters} and the\n"
	      "netdev's ethtool statistics (SIOCETHTOOL) are read before and after the run;\n"
	      "deltas are reported under common names across mlx5, bnxt_re, irdma and rxe:\n"
	      "cnp_sent, cnp_handled, ecn_ce_received, seq_err_naks_received,\n"
	      "out_of_sequence, retransmissions, ack_timeouts, duplicate_requests,\n"
	      "pause_rx_prio3, pause_time_us_tx_prio3, ... (docs/verbs.md).\n"
	      "\n"
	      "examples\n"
	      "  roceprobe ep -d rxe0                                  # a server\n"
	      "  roceprobe ep -d rxe0 10.9.0.1                         # 2-byte write latency\n"
	      "  roceprobe ep 10.9.0.1 --op send -s 64,4KiB,65536 -D 10\n"
	      "  roceprobe ep 10.9.0.1 --mode bw -s 65536 -q 4 --dscp 26 --ecn 2 --report_gbits\n"
	      "  roceprobe ep --clients 8 -o results/incast             # then 8 clients:\n"
	      "  roceprobe ep server1 --mode bw -D 10\n"
	      "\n"
	      "From perftest: 'ib_write_lat -d mlx5_0 -x 3 -s 64 -n 10000 HOST' is\n"
	      "'roceprobe ep -d mlx5_0 -x 3 -s 64 -n 10000 HOST'; 'ib_write_bw -q 4 -D 10\n"
	      "--report_gbits HOST' is 'roceprobe ep --mode bw -q 4 -D 10 HOST'; ib_send_*\n"
	      "and ib_read_* are --op send and --op read. A perftest server needs the same\n"
	      "test options as its client; a roceprobe server needs none.\n"
	      "\n"
	      "Exit status: 0 done; 1 the run failed (a QP error, the peer vanished);\n"
	      "2 with one line when the setup cannot work: no RDMA device, port down, no\n"
	      "RoCE v2 GID, peer unreachable, bad options.\n",
	      out);
}

enum {
	O_BIND = 256, O_CLIENTS, O_OP, O_MODE, O_DSCP, O_ECN, O_RETRY, O_CTO, O_STALL, O_CINT, O_NOCTR,
	O_JSON, O_UD, O_UDTO, O_KEYFILE, O_SERVER, O_CLIENT, O_GBITS,
};

struct ep_args {
	struct rp_ep_cfg cfg;
	struct rp_ep_given given;
	bool json;
	const char *outdir;
	const char *key_file;
	double duration_s;
};

/* lib/verbs's reasons, in this command's option names. */
static int settle_error(enum rp_ep_cfg_err e, size_t bad_size)
{
	switch (e) {
	case RP_EPC_OK: return 0;
	case RP_EPC_UD_SERVER: return rp_cli_error("ep", "--ud is a client option; the server follows the client");
	case RP_EPC_UD_READ: return rp_cli_error("ep", "--ud supports --op send only (UD has no RDMA read)");
	case RP_EPC_UD_WRITE: return rp_cli_error("ep", "--ud supports --op send only (UD has no RDMA write)");
	case RP_EPC_UD_MODE: return rp_cli_error("ep", "--ud measures latency only (--mode lat)");
	case RP_EPC_UD_CM: return rp_cli_error("ep", "--ud and --cm do not go together (UD QPs are not connected)");
	case RP_EPC_UD_SWEEP:
		return rp_cli_error("ep", "--ud: --sweep goes past the path MTU; give --size up to the MTU");
	case RP_EPC_UD_SIZE:
		return rp_cli_error("ep", "--ud: message size %zu B is above the largest MTU (4096 B); a UD message is one packet",
				    bad_size);
	case RP_EPC_UD_TIMEOUT: return rp_cli_error("ep", "--ud-timeout applies to --ud only");
	case RP_EPC_ITERS_AND_DURATION: return rp_cli_error("ep", "give --iters or --duration, not both");
	case RP_EPC_ITERS_ZERO: return rp_cli_error("ep", "--iters must be at least 1");
	case RP_EPC_TX_DEPTH: return rp_cli_error("ep", "--tx-depth must be at least 4");
	case RP_EPC_RX_DEPTH: return rp_cli_error("ep", "--rx-depth must be at least 1");
	case RP_EPC_QPS: return rp_cli_error("ep", "--qps must be at least 1");
	case RP_EPC_LAT_QPS: return rp_cli_error("ep", "--qps applies to bw and rate; latency uses one QP");
	}
	return rp_cli_error("ep", "bad options (try 'roceprobe ep --help')");
}

static int parse_args(int argc, char **argv, struct ep_args *a)
{
	/* The short options are perftest's (perftest_parameters.c's usage()),
	 * and so are the long ones after "perftest's names": -s is the size,
	 * -c the connection type, and the side given no peer is the server. */
	static const struct option opts[] = {
		{"server", no_argument, NULL, O_SERVER}, {"client", required_argument, NULL, O_CLIENT},
		{"port", required_argument, NULL, 'p'},  {"bind", required_argument, NULL, O_BIND},
		{"clients", required_argument, NULL, O_CLIENTS}, {"op", required_argument, NULL, O_OP},
		{"mode", required_argument, NULL, O_MODE}, {"size", required_argument, NULL, 's'},
		{"sweep", no_argument, NULL, 'a'},       {"iters", required_argument, NULL, 'n'},
		{"duration", required_argument, NULL, 'D'}, {"qps", required_argument, NULL, 'q'},
		{"tx-depth", required_argument, NULL, 't'}, {"rx-depth", required_argument, NULL, 'r'},
		{"cq-mod", required_argument, NULL, 'Q'}, {"inline", required_argument, NULL, 'I'},
		{"dev", required_argument, NULL, 'd'},   {"ib-port", required_argument, NULL, 'i'},
		{"gid-index", required_argument, NULL, 'x'}, {"dscp", required_argument, NULL, O_DSCP},
		{"ecn", required_argument, NULL, O_ECN}, {"sl", required_argument, NULL, 'S'},
		{"hop-limit", required_argument, NULL, 'L'}, {"mtu", required_argument, NULL, 'm'},
		{"ack-timeout", required_argument, NULL, 'u'}, {"retry", required_argument, NULL, O_RETRY},
		{"connect-timeout", required_argument, NULL, O_CTO}, {"stall-timeout", required_argument, NULL, O_STALL},
		{"counters-interval", required_argument, NULL, O_CINT}, {"no-counters", no_argument, NULL, O_NOCTR},
		{"json", no_argument, NULL, O_JSON},     {"output", required_argument, NULL, 'o'},
		{"cm", no_argument, NULL, 'R'},          {"ud", no_argument, NULL, O_UD},
		{"ud-timeout", required_argument, NULL, O_UDTO}, {"key-file", required_argument, NULL, O_KEYFILE},
		{"connection", required_argument, NULL, 'c'}, {"report_gbits", no_argument, NULL, O_GBITS},
		/* perftest's names */
		{"ib-dev", required_argument, NULL, 'd'}, {"qp", required_argument, NULL, 'q'},
		{"all", no_argument, NULL, 'a'},         {"inline_size", required_argument, NULL, 'I'},
		{"hop_limit", required_argument, NULL, 'L'}, {"rdma_cm", no_argument, NULL, 'R'},
		{"qp-timeout", required_argument, NULL, 'u'},
		{"help", no_argument, NULL, 'h'},        {NULL, 0, NULL, 0},
	};
	struct rp_ep_cfg *c = &a->cfg;
	struct rp_ep_given *g = &a->given;
	rp_ep_cfg_init(c);
	int ch;
	uint64_t v;
	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":s:c:p:an:D:q:t:r:Q:I:d:i:x:o:S:L:m:u:Rh", opts, NULL)) != -1) {
		const char *arg = optarg;
#define UINT_OPT(name, max, dst)                                                   \
	do {                                                                       \
		if (rp_cli_uint("ep", "--" name, arg, 0, (max), &v))               \
			return RP_EXIT_USAGE;                                      \
		dst = v;                                                           \
	} while (0)
		switch (ch) {
		case O_SERVER: g->server = true; break;
		case O_CLIENT: c->host = arg; break;
		case 'c':
			if (strcasecmp(arg, "UD") == 0)
				c->ud = true;
			else if (strcasecmp(arg, "RC") != 0)
				return rp_cli_error("ep", "--connection %s: use RC or UD", arg);
			break;
		case O_GBITS: break; /* the tables' bandwidth is in Gbit/s already */
		case 'p': UINT_OPT("port", 65535, c->tcp_port); break;
		case O_BIND: c->bind = arg; break;
		case O_KEYFILE: a->key_file = arg; break;
		case O_CLIENTS: UINT_OPT("clients", RP_EP_MAX_CLIENTS, c->clients); break;
		case O_OP:
			if (rp_op_parse(arg, &c->op))
				return rp_cli_error("ep", "--op %s: use write, write_imm, send or read", arg);
			g->op = true;
			break;
		case O_MODE:
			if (rp_mode_parse(arg, &c->mode))
				return rp_cli_error("ep", "--mode %s: use lat, bw or rate", arg);
			break;
		case 's': {
			char buf[256];
			snprintf(buf, sizeof(buf), "%s", arg);
			c->nsizes = 0;
			for (char *save, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
				uint64_t s;
				if (rp_cli_size("ep", "--size", tok, 1, 1ull << 31, &s))
					return RP_EXIT_USAGE;
				if (c->nsizes == RP_EP_MAX_SIZES)
					return rp_cli_error("ep", "--size: at most %d sizes", RP_EP_MAX_SIZES);
				c->sizes[c->nsizes++] = s;
			}
			g->sizes = true;
			break;
		}
		case 'a': g->sweep = true; break;
		case 'n': UINT_OPT("iters", 1ul << 40, c->iters); g->iters = true; break;
		case 'D':
			if (rp_cli_duration("ep", "--duration", arg, 86400, &a->duration_s))
				return RP_EXIT_USAGE;
			break;
		case 'q': UINT_OPT("qps", RP_MAX_QP, c->nqp); break;
		case 't': UINT_OPT("tx-depth", 16384, c->tx_depth); g->tx_depth = true; break;
		case 'r': UINT_OPT("rx-depth", 16384, c->rx_depth); break;
		case 'Q': UINT_OPT("cq-mod", 16384, c->cq_mod); g->cq_mod = true; break;
		case 'I': UINT_OPT("inline", 4096, c->inline_size); g->inline_size = true; break;
		case 'd': c->dev_name = arg; break;
		case 'i': UINT_OPT("ib-port", 255, c->ib_port); break;
		case 'x': UINT_OPT("gid-index", 255, c->gid_index); break;
		case O_DSCP: UINT_OPT("dscp", 63, c->dscp); break;
		case O_ECN: UINT_OPT("ecn", 3, c->ecn); break;
		case 'S': UINT_OPT("sl", 15, c->sl); break;
		case 'L': UINT_OPT("hop-limit", 255, c->hop_limit); break;
		case 'm':
			UINT_OPT("mtu", 4096, c->mtu);
			if (!rp_mtu_to_enum(c->mtu))
				return rp_cli_error("ep", "--mtu %s: use 256, 512, 1024, 2048 or 4096", arg);
			break;
		case 'u': UINT_OPT("ack-timeout", 31, c->ack_timeout); break;
		case O_RETRY: UINT_OPT("retry", 7, c->retry_cnt); break;
		case O_CTO: UINT_OPT("connect-timeout", 86400, c->connect_timeout_ms); c->connect_timeout_ms *= 1000; break;
		case O_STALL: UINT_OPT("stall-timeout", 86400, c->stall_ms); c->stall_ms *= 1000; break;
		case O_CINT: UINT_OPT("counters-interval", 3600000, c->counter_interval_ms); break;
		case O_NOCTR: c->no_counters = true; break;
		case O_JSON: a->json = true; break;
		case 'o': a->outdir = arg; break;
		case 'R': c->cm = true; break;
		case O_UD: c->ud = true; break;
		case O_UDTO: {
			double t;
			if (rp_cli_duration("ep", "--ud-timeout", arg, 3600, &t))
				return RP_EXIT_USAGE;
			if (t < 0.001)
				return rp_cli_error("ep", "--ud-timeout %s: at least 1ms", arg);
			c->ud_timeout_ms = (unsigned)(t * 1000 + 0.5);
			break;
		}
		case 'h': return 1;
		case ':': return rp_cli_error("ep", "%s needs a value", argv[optind - 1]);
		default: return rp_cli_error("ep", "unknown option '%s' (try 'roceprobe ep --help')", argv[optind - 1]);
		}
#undef UINT_OPT
	}
	/* perftest's roles: the server is the side given no peer. */
	if (optind < argc && !c->host)
		c->host = argv[optind++];
	if (optind < argc)
		return rp_cli_error("ep", "unexpected argument '%s'", argv[optind]);
	if (g->server && c->host)
		return rp_cli_error("ep", "--server takes no peer, and '%s' is one: the client names the server",
				    c->host);
	g->server = c->host == NULL;
	g->duration = a->duration_s > 0;
	if (g->duration)
		c->duration_ns = (uint64_t)(a->duration_s * 1e9);
	size_t bad_size = 0;
	enum rp_ep_cfg_err e = rp_ep_cfg_settle(c, g, &bad_size);
	return settle_error(e, bad_size);
}

static void print_refused(const char *peer, const char *why)
{
	fprintf(stderr, "roceprobe ep: refused %s: %s\n", peer, why);
}

/* A listener only this host reaches (127.0.0.0/8, ::1, localhost). */
static bool loopback(const char *addr)
{
	struct in_addr a4;
	struct in6_addr a6;
	if (inet_pton(AF_INET, addr, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	if (inet_pton(AF_INET6, addr, &a6) == 1)
		return IN6_IS_ADDR_LOOPBACK(&a6);
	return strcmp(addr, "localhost") == 0;
}

int rp_cmd_ep(int argc, char **argv)
{
	static struct ep_args a;
	static struct rp_ep_report rep;
	memset(&a, 0, sizeof(a));
	memset(&rep, 0, sizeof(rep));
	for (int i = 1; i < argc; i++)
		if (rp_cli_is_help(argv[i])) {
			usage(stdout);
			return RP_EXIT_OK;
		}
	int rc = parse_args(argc, argv, &a);
	if (rc)
		return rc == 1 ? (usage(stdout), RP_EXIT_OK) : rc;
	if ((rc = rp_cli_key("ep", "--key-file", a.key_file, &a.cfg.key)))
		return rc;
	a.cfg.on_refused = print_refused;
	if (a.given.server && !a.cfg.key && !loopback(a.cfg.bind))
		fprintf(stderr, "roceprobe ep: warning: listening on %s:%u without a key: whoever reaches it can run "
				"tests on this host's RDMA device (give both sides --key-file)\n",
			a.cfg.bind, a.cfg.tcp_port);
	char err[RP_ERR_LEN] = "";
	rc = a.given.server ? rp_ep_server(&a.cfg, &rep, err, sizeof(err)) : rp_ep_client(&a.cfg, &rep, err, sizeof(err));
	int exit_code = rc == RP_V_OK ? RP_EXIT_OK : rc == RP_V_ENV ? RP_EXIT_USAGE : RP_EXIT_FAIL;
	if (rc != RP_V_OK) {
		/* lib/verbs names settings, not options: the option goes first. */
		static const char *const opt[] = {[RP_EP_SET_MTU] = "--mtu: ", [RP_EP_SET_SIZE] = "--size: ",
						  [RP_EP_SET_GID] = "--gid-index: ", [RP_EP_SET_UD] = "--ud: ",
						  [RP_EP_SET_CM] = "--cm: "};
		fprintf(stderr, "roceprobe ep: %s%s\n", rep.err_setting ? opt[rep.err_setting] : "", err);
	}
	bool ran = rep.npeers > 0 && rep.peers[0].nsizes > 0;
	if (ran && !a.json)
		rp_ep_text(stdout, &rep);
	char werr[256];
	if (ran && (a.json || a.outdir) &&
	    rp_ep_write_json(&rep, RP_VERSION, a.json ? stdout : NULL, a.outdir, werr, sizeof(werr)) &&
	    rp_cli_error("ep", "%s", werr) && exit_code == RP_EXIT_OK)
		exit_code = RP_EXIT_USAGE;
	rp_ep_report_free(&rep);
	return exit_code;
}
