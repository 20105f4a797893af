/* roceprobe headroom: the PFC headroom a link needs, term by term, from the
 * formula in lib/fabric/headroom.h (the emulated switch uses the same one). */
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "fabric/headroom.h"
#include "profile/units.h"

/* getopt_long's short options (rp_cli_bad_option names a bad one). */
static const char SHORTS[] = "h";

struct headroom_args {
	struct rp_headroom_in in;
	bool have_speed, have_cable, have_mtu, have_quanta, have_phy, json;
};

static void usage(FILE *out)
{
	fputs("usage: roceprobe headroom --speed RATE --cable LENGTH --mtu BYTES [--peer-mtu BYTES]\n"
	      "                          [--response-quanta N] [--phy-delay-ns NS] [--cut-through] [--json]\n"
	      "\n"
	      "Prints the PFC headroom one lossless priority of one link needs: the bytes that\n"
	      "still arrive after the switch decides XOFF, each term on its own line.\n"
	      "  frame in flight on the switch port  MTU + 20 (the PFC frame cannot cut it)\n"
	      "  PFC frame                           64 + 20 bytes\n"
	      "  cable, both ways                    2 x length x 5 ns/m at the link rate\n"
	      "  MAC/PHY delay, both ways            2 x --phy-delay-ns at the link rate\n"
	      "  peer response                       --response-quanta x 512 bit times\n"
	      "  frame the peer had started          peer MTU + 20 (it completes)\n"
	      "  frame being received                peer MTU + 20: a store-and-forward switch\n"
	      "                                      decides XOFF at a frame's last bit\n"
	      "The first six are the IEEE 802.1Qbb delay model as vendor calculators use it;\n"
	      "--cut-through leaves out the last.\n"
	      "\n"
	      "  --speed RATE           link rate: 10G, 25G, 100G, 400Gbps\n"
	      "  --cable LENGTH         one way: 3m, 100m, 2km\n"
	      "  --mtu BYTES            largest frame the switch sends (Ethernet header to FCS)\n"
	      "  --peer-mtu BYTES       largest frame the peer sends (default: --mtu)\n"
	      "  --response-quanta N    peer reaction time (default: the IEEE 802.3 bound for the\n"
	      "                         speed, 394 at 100G)\n"
	      "  --phy-delay-ns NS      MAC + PHY delay one way, ns or a duration like 1.2us\n"
	      "                         (default: the IEEE 802.3 bound, 1228.8 ns at 100G)\n"
	      "  --cut-through          the switch decides XOFF as bits arrive\n"
	      "  --json                 one JSON object\n"
	      "\n"
	      "example:\n"
	      "  roceprobe headroom --speed 100G --cable 100m --mtu 4096\n"
	      "\n"
	      "Exit status: 0, or 2 with one line on bad input.\n",
	      out);
}

/* "100m", "2km", "3.5m", "50cm": metres. A bare number is refused, as
 * rates and sizes without units are. */
static int parse_length_m(const char *s, double *m)
{
	static const struct {
		const char *unit;
		double mult;
	} units[] = {{"m", 1.0}, {"km", 1000.0}, {"cm", 0.01}, {"mm", 0.001}};
	char *end;
	double v = strtod(s, &end);

	if (end == s || !isfinite(v) || v < 0.0)
		return -1;
	if (*end == '\0')
		return v == 0.0 ? (*m = 0.0, 0) : -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcasecmp(end, units[i].unit) == 0) {
			*m = v * units[i].mult;
			return 0;
		}
	return -1;
}

/* A plain number is ns (fractions allowed); otherwise a duration. */
static int parse_delay_ns(const char *s, double *ns)
{
	char *end;
	double v = strtod(s, &end);
	uint64_t d;

	if (end != s && *end == '\0' && isfinite(v) && v >= 0.0) {
		*ns = v;
		return 0;
	}
	if (rp_parse_duration(s, &d))
		return -1;
	*ns = (double)d;
	return 0;
}

static int parse_mtu(const char *s, const char *opt, uint32_t *mtu)
{
	uint64_t v = 0;
	int rc = rp_cli_size("headroom", opt, s, 64, 65535, &v);
	*mtu = (uint32_t)v;
	return rc;
}

static int parse_opt(int c, struct headroom_args *a)
{
	uint64_t v;
	switch (c) {
	case 's':
		a->have_speed = true;
		if (rp_parse_bitrate(optarg, &a->in.speed_bps) || a->in.speed_bps == 0)
			return rp_cli_error("headroom", "--speed '%s': a link rate like 100G or 25Gbps", optarg);
		return 0;
	case 'c':
		a->have_cable = true;
		if (parse_length_m(optarg, &a->in.cable_m))
			return rp_cli_error("headroom", "--cable '%s': a length like 3m, 100m or 2km", optarg);
		return 0;
	case 'm':
		a->have_mtu = true;
		return parse_mtu(optarg, "--mtu", &a->in.mtu);
	case 'p':
		return parse_mtu(optarg, "--peer-mtu", &a->in.peer_mtu);
	case 'q':
		a->have_quanta = true;
		if (rp_parse_uint(optarg, 65535, &v))
			return rp_cli_error("headroom", "--response-quanta '%s': a whole number 0..65535", optarg);
		a->in.response_quanta = (uint32_t)v;
		return 0;
	case 'd':
		a->have_phy = true;
		if (parse_delay_ns(optarg, &a->in.phy_delay_ns))
			return rp_cli_error("headroom", "--phy-delay-ns '%s': nanoseconds, or a duration like 1.2us", optarg);
		return 0;
	case 't':
		a->in.cut_through = true;
		return 0;
	case 'j':
		a->json = true;
		return 0;
	default:
		return rp_cli_bad_option("headroom", SHORTS);
	}
}

static int parse_args(int argc, char **argv, struct headroom_args *a)
{
	static const struct option opts[] = {
		{"speed", required_argument, NULL, 's'},
		{"cable", required_argument, NULL, 'c'},
		{"mtu", required_argument, NULL, 'm'},
		{"peer-mtu", required_argument, NULL, 'p'},
		{"response-quanta", required_argument, NULL, 'q'},
		{"phy-delay-ns", required_argument, NULL, 'd'},
		{"cut-through", no_argument, NULL, 't'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c, rc;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, SHORTS, opts, NULL)) != -1) {
		if (c == 'h')
			return 1;
		if ((rc = parse_opt(c, a)) != 0)
			return rc;
	}
	if (optind != argc)
		return rp_cli_error("headroom", "unexpected argument '%s' (try 'roceprobe headroom --help')", argv[optind]);
	if (!a->have_speed || !a->have_cable || !a->have_mtu)
		return rp_cli_error("headroom", "--speed, --cable and --mtu are required, e.g. --speed 100G --cable 100m --mtu 4096");
	if (!a->have_quanta)
		a->in.response_quanta = rp_headroom_default_response_quanta(a->in.speed_bps);
	if (!a->have_phy)
		a->in.phy_delay_ns = rp_headroom_default_phy_delay_ns(a->in.speed_bps);
	return 0;
}

struct term {
	const char *key;   /* JSON */
	const char *label; /* text */
	uint64_t bytes;
	double ns;
	char how[96];
};

/* Bytes back to wire time, for the terms defined in bytes. */
static double wire_ns(uint64_t bytes, uint64_t bps)
{
	return (double)bytes * 8e9 / (double)bps;
}

static size_t fill_terms(const struct headroom_args *a, const struct rp_headroom *h, struct term *t)
{
	const struct rp_headroom_in *in = &a->in;
	uint32_t peer = in->peer_mtu ? in->peer_mtu : in->mtu;
	size_t n = 0;

	t[n] = (struct term){"switch_mtu", "frame in flight on the switch port", h->mtu_bytes, wire_ns(h->mtu_bytes, in->speed_bps), ""};
	snprintf(t[n++].how, sizeof(t->how), "MTU %u + 20 (preamble, SFD, IFG)", in->mtu);
	t[n] = (struct term){"pfc_frame", "PFC frame", h->pfc_bytes, wire_ns(h->pfc_bytes, in->speed_bps), "64 + 20"};
	n++;
	t[n] = (struct term){"cable", "cable, both ways", h->cable_bytes, h->cable_ns, ""};
	snprintf(t[n++].how, sizeof(t->how), "2 x %g m x %g ns/m", in->cable_m, RP_HEADROOM_NS_PER_M);
	t[n] = (struct term){"mac_phy", "MAC/PHY delay, both ways", h->phy_bytes, h->phy_ns, ""};
	snprintf(t[n++].how, sizeof(t->how), "2 x %g ns%s", in->phy_delay_ns, a->have_phy ? "" : " (IEEE 802.3 bound)");
	t[n] = (struct term){"response", "peer response", h->response_bytes, h->response_ns, ""};
	snprintf(t[n++].how, sizeof(t->how), "%u quanta x 512 bit times%s", in->response_quanta,
		 a->have_quanta ? "" : " (IEEE 802.3 bound)");
	t[n] = (struct term){"peer_mtu", "frame the peer had started", h->peer_mtu_bytes,
			     wire_ns(h->peer_mtu_bytes, in->speed_bps), ""};
	snprintf(t[n++].how, sizeof(t->how), "peer MTU %u + 20", peer);
	if (!in->cut_through) {
		t[n] = (struct term){"rx_frame", "frame being received", h->rx_frame_bytes,
				     wire_ns(h->rx_frame_bytes, in->speed_bps), ""};
		snprintf(t[n++].how, sizeof(t->how), "peer MTU %u + 20: store-and-forward, XOFF at its last bit", peer);
	}
	return n;
}

static void print_text(const struct headroom_args *a, const struct rp_headroom *h, const struct term *t, size_t n)
{
	char rate[32];
	printf("PFC headroom for %s, %g m of cable, MTU %u (peer %u), %s switch\n\n", rp_format_bps(a->in.speed_bps, rate, sizeof(rate)),
	       a->in.cable_m, a->in.mtu, a->in.peer_mtu ? a->in.peer_mtu : a->in.mtu,
	       a->in.cut_through ? "cut-through" : "store-and-forward");
	printf("  %-36s %12s %9s  %s\n", "term", "time", "bytes", "from");
	for (size_t i = 0; i < n; i++)
		printf("  %-36s %9.2f ns %9" PRIu64 "  %s\n", t[i].label, t[i].ns, t[i].bytes, t[i].how);
	printf("  %-36s %12s %9" PRIu64 "  (%.2f KiB)\n", "total", "", h->total_bytes, (double)h->total_bytes / 1024.0);
}

static int print_json(const struct headroom_args *a, const struct rp_headroom *h, const struct term *t, size_t n)
{
	json_t *terms = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(terms, json_pack("{s:s, s:I, s:f, s:s}", "term", t[i].key, "bytes",
						      (json_int_t)t[i].bytes, "ns", t[i].ns, "from", t[i].how));
	json_t *o = json_pack("{s:I, s:f, s:i, s:i, s:i, s:f, s:b, s:o, s:I, s:f}", "speed_bps", (json_int_t)a->in.speed_bps,
			      "cable_m", a->in.cable_m, "mtu", (int)a->in.mtu, "peer_mtu",
			      (int)(a->in.peer_mtu ? a->in.peer_mtu : a->in.mtu), "response_quanta",
			      (int)a->in.response_quanta, "phy_delay_ns", a->in.phy_delay_ns, "store_and_forward",
			      !a->in.cut_through, "terms", terms, "total_bytes", (json_int_t)h->total_bytes, "total_kib",
			      (double)h->total_bytes / 1024.0);
	if (!o)
		return rp_cli_error("headroom", "out of memory");
	json_dumpf(o, stdout, JSON_PRESERVE_ORDER | JSON_INDENT(2) | JSON_REAL_PRECISION(12));
	fputc('\n', stdout);
	json_decref(o);
	return RP_EXIT_OK;
}

int rp_cmd_headroom(int argc, char **argv)
{
	struct headroom_args a = {0};
	struct rp_headroom h;
	struct term terms[8];
	int rc = parse_args(argc, argv, &a);

	if (rc == 1) {
		usage(stdout);
		return RP_EXIT_OK;
	}
	if (rc)
		return rc;
	if (rp_headroom_calc(&a.in, &h))
		return rp_cli_error("headroom", "cannot compute: speed, MTU and lengths must be positive");
	size_t n = fill_terms(&a, &h, terms);
	if (a.json)
		return print_json(&a, &h, terms, n);
	print_text(&a, &h, terms, n);
	return RP_EXIT_OK;
}
