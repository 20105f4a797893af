/* roceprobe plan: expand a profile and show what a run would send, without
 * touching any port. */
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cluster/cluster.h"
#include "profile/profile.h"
#include "traffic/plan.h"
#include "wire/eth.h"
#include "wire/ipv4.h"
#include "wire/ipv6.h"
#include "wire/sport.h"

/* getopt_long's short options (rp_cli_bad_option names a bad one). */
static const char SHORTS[] = "s:jh";

#define MAX_SETS 64

struct plan_args {
	const char *path;
	const char *sets[MAX_SETS];
	size_t nsets;
	bool json;
	bool allow_pause_storm;
	uint64_t ranks, per_node; /* --ranks N, --per-node K: the launch a host_template expands for */
};

/* The launch --ranks N --per-node K stands for: rank r on node "node{r / K}". */
struct launch {
	struct rp_rank_info *info;
	struct rp_launch_rank *ranks;
	int *host_rank; /* [nhosts], with --ranks: as `run` binds */
};

static void usage(FILE *out)
{
	fputs("usage: roceprobe plan PROFILE [--set KEY=VALUE]... [--ranks N [--per-node K]] [--json]\n"
	      "                      [--allow-pause-storm]\n"
	      "\n"
	      "Reads a YAML profile (docs/profiles.md), expands its host_template and traffic\n"
	      "patterns into hosts and flows and prints what a run would do, without touching\n"
	      "any port:\n"
	      "  hosts      name, rank, MAC, IP addresses, DPDK port, link speed; a `mac: auto`\n"
	      "             or `ipv4: netdev` address is read at start by the rank that runs\n"
	      "             the host: shown as (port's, rank R) / (netdev, rank R); a host of\n"
	      "             several NICs (`nics:`) is one row per NIC, named HOST.NIC\n"
	      "  flows      id, src -> dst (the NICs it uses), QPs (first QPN), opcode,\n"
	      "             message size, MTU,\n"
	      "             DSCP/ECN/priority, VLAN, rate, start, stop, packets and bytes\n"
	      "  pairs      RDMA payload bytes per sender -> receiver\n"
	      "  ports      offered load per port, TX and RX, in Gbit/s and % of the link;\n"
	      "             above 100% is flagged oversubscribed (an incast is, by design)\n"
	      "  schedule   start, stop and bursts of each traffic entry; the phases of an\n"
	      "             all-to-all with their times\n"
	      "Loads are layer 1: every frame counts its length + 24 bytes (FCS 4,\n"
	      "preamble 8, inter-frame gap 12), as rates in profiles do.\n"
	      "\n"
	      "  --set KEY=VALUE      override a profile key before validation; KEY is a dotted\n"
	      "                       path: traffic.0.rate=50G, defaults.mtu=1024,\n"
	      "                       hosts.1.port=net_ring1, 'traffic.0.senders=[h1, h2]'.\n"
	      "                       Repeatable; a missing mapping key is created.\n"
	      "  --ranks N            the launch to expand for: N ranks (mpirun -np N), as a\n"
	      "                       host_template's `count: ranks` and {rank} {local_rank}\n"
	      "                       {node} {node_index} see them; hosts are bound to ranks\n"
	      "                       as `run` binds them (a host or rank left over: exit 2)\n"
	      "  --per-node K         with --ranks: K ranks per machine, named node0, node1, ...\n"
	      "                       (default 1)\n"
	      "  --json               one JSON object (hosts, flows, pairs, ports, phases)\n"
	      "  --allow-pause-storm  accept PFC sources whose quanta x fps keep a priority\n"
	      "                       paused all the time (to test switch PFC watchdogs)\n"
	      "\n"
	      "examples:\n"
	      "  roceprobe plan profiles/incast-8to1.yaml\n"
	      "  roceprobe plan profiles/all-to-all-8.yaml --set defaults.message_size=1MiB --json\n"
	      "  roceprobe plan profiles/cluster-all2all-64.yaml --ranks 64 --per-node 8\n"
	      "\n"
	      "Exit status: 0 when the profile is valid; 2 with one line\n"
	      "'roceprobe: FILE:LINE:COL: key 'K': ...' when it is not.\n",
	      out);
}

static int parse_args(int argc, char **argv, struct plan_args *a)
{
	static const struct option opts[] = {
		{"set", required_argument, NULL, 's'},
		{"json", no_argument, NULL, 'j'},
		{"allow-pause-storm", no_argument, NULL, 'A'},
		{"ranks", required_argument, NULL, 'r'},
		{"per-node", required_argument, NULL, 'k'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, SHORTS, opts, NULL)) != -1) {
		if (c == 's' && a->nsets < MAX_SETS)
			a->sets[a->nsets++] = optarg;
		else if (c == 'j')
			a->json = true;
		else if (c == 'A')
			a->allow_pause_storm = true;
		else if (c == 'r' && rp_cli_uint("plan", "--ranks", optarg, 1, RP_MAX_RANKS, &a->ranks))
			return RP_EXIT_USAGE;
		else if (c == 'k' && rp_cli_uint("plan", "--per-node", optarg, 1, RP_MAX_RANKS, &a->per_node))
			return RP_EXIT_USAGE;
		else if (c == 'r' || c == 'k')
			continue;
		else if (c == 'h')
			return 1;
		else if (c == 's')
			return rp_cli_error("plan", "at most %d --set options", MAX_SETS);
		else
			return rp_cli_bad_option("plan", SHORTS);
	}
	if (optind != argc - 1)
		return rp_cli_error("plan", "expected one profile file (try 'roceprobe plan --help')");
	if (a->per_node && !a->ranks)
		return rp_cli_error("plan", "--per-node K needs --ranks N");
	a->path = argv[optind];
	return 0;
}

/* ---- text ---- */

static const char *host_ip(const struct rp_host *h, char *out)
{
	if (h->has_ipv4)
		rp_ipv4_addr_format(h->ipv4, out);
	else
		rp_ipv6_addr_format(h->ipv6, out);
	return out;
}

/* Where host i runs: the binding with --ranks, else what the profile says. */
static void host_rank_text(const struct rp_host *h, const struct launch *l, size_t i, char *out, size_t len)
{
	if (l->host_rank)
		snprintf(out, len, "%d", l->host_rank[i]);
	else if (h->rank >= 0)
		snprintf(out, len, "%d", h->rank);
	else if (h->node[0])
		snprintf(out, len, "@%.20s", h->node);
	else
		snprintf(out, len, "(%u)", h->server); /* a host's NICs share its rank */
	(void)i;
}

static void print_hosts(const struct rp_profile *p, const struct launch *l)
{
	bool later = false, placed = false;
	if (rp_profile_multi_nic(p)) /* every row is one NIC, named HOST.NIC */
		printf("hosts (%zu, with %zu NICs)\n", p->nservers, p->nhosts);
	else
		printf("hosts (%zu)\n", p->nhosts);
	printf("  %-12s %-6s %-17s %-26s %-24s %s\n", "name", "rank", "mac", "ip", "port", "speed");
	for (size_t i = 0; i < p->nhosts; i++) {
		const struct rp_host *h = &p->hosts[i];
		char mac[64], ip[80], sp[32], port[RP_PORT_MAX + 8], rank[32];
		host_rank_text(h, l, i, rank, sizeof(rank));
		const char *on = rank[0] == '(' ? "" : rank;
		if (h->mac_known)
			rp_mac_format(h->mac, mac);
		else
			snprintf(mac, sizeof(mac), "auto (port's%s%s)", on[0] ? ", rank " : "", on);
		if (h->ip_pending)
			snprintf(ip, sizeof(ip), "(netdev%s%s)", on[0] ? ", rank " : "", on);
		else
			host_ip(h, ip);
		later |= !h->mac_known || h->ip_pending;
		placed |= h->rank >= 0 || h->node[0];
		snprintf(port, sizeof(port), "%s%s", h->port_is_pci ? "pci " : "", h->port[0] ? h->port : "-");
		if (h->engine.engine == RP_ENGINE_VERBS) { /* RC QPs on its RDMA device, with its own MAC */
			snprintf(port, sizeof(port), "verbs %s", h->engine.device[0] ? h->engine.device : "(first device)");
			if (!h->mac_known)
				snprintf(mac, sizeof(mac), "(device's)");
		}
		printf("  %-12s %-6s %-17s %-26s %-24s %s\n", h->name, rank, mac, ip, port,
		       rp_format_bps(h->speed_bps, sp, sizeof(sp)));
		if (h->has_ipv4 && h->has_ipv6 && !h->ip_pending)
			printf("  %-12s %-6s %-17s %s\n", "", "", "", (rp_ipv6_addr_format(h->ipv6, ip), ip));
	}
	if (!l->host_rank && (later || placed))
		printf("  (rank: as bound at start; (i) is the default, host i on rank i: give --ranks N to bind)\n");
	if (later)
		printf("  (port's / netdev: resolved on rank R at start, from its port's MAC (mac: auto) or its Linux\n"
		       "   netdev's address (ipv4/ipv6: netdev), then sent to every rank before any traffic)\n");
}

/* How each sender reaches its destinations: only when a host gives a prefix. */
static void print_next_hops(const struct rp_plan *pl)
{
	const struct rp_profile *p = pl->prof;
	bool routed = false;
	for (size_t i = 0; i < p->nhosts; i++)
		routed |= p->hosts[i].ipv4_plen != RP_PLEN_NONE || p->hosts[i].ipv6_plen != RP_PLEN_NONE;
	if (!routed)
		return;
	printf("\nnext hops\n  %-12s %-26s %-26s %-14s %s\n", "host", "subnet", "next hop", "MAC from", "flows");
	for (size_t h = 0; h < p->nhosts; h++) {
		const struct rp_host *H = &p->hosts[h];
		for (int l3 = 4; l3 <= 6; l3 += 2) {
			if (!(l3 == 4 ? H->has_ipv4 : H->has_ipv6))
				continue;
			char subnet[64], a[46], hop[64];
			unsigned plen = l3 == 4 ? H->ipv4_plen : H->ipv6_plen;
			if (l3 == 4)
				rp_ipv4_addr_format(H->ipv4, a);
			else
				rp_ipv6_addr_format(H->ipv6, a);
			snprintf(subnet, sizeof(subnet), plen == RP_PLEN_NONE ? "%s (no prefix)" : "%s/%u", a, plen);
			size_t direct = 0, via = 0;
			bool direct_from[RP_MAC_FROM_ND + 1] = {false};
			const struct rp_flow *gw = NULL;
			for (size_t i = 0; i < pl->nflows; i++) {
				const struct rp_flow *f = &pl->flows[i];
				if (f->kind != RP_TRAFFIC_RDMA || f->src != h || f->p.ip != l3)
					continue;
				if (f->nh.via_gateway) {
					via++;
					gw = f;
				} else {
					direct++;
					direct_from[f->nh.mac_from] = true;
				}
			}
			/* On the link: each destination's own MAC, from the profile or (mac: auto) asked. */
			char from[32] = "";
			for (int m = RP_MAC_FROM_PROFILE; m <= RP_MAC_FROM_ND; m++)
				if (direct_from[m])
					snprintf(from + strlen(from), sizeof(from) - strlen(from), "%s%s", from[0] ? ", " : "",
						 rp_mac_from_name((enum rp_mac_from)m));
			printf("  %-12s %-26s %-26s %-14s %zu on the link\n", H->name, subnet, "(destination)",
			       from[0] ? from : "-", direct);
			if (gw) {
				if (l3 == 4)
					rp_ipv4_addr_format(gw->nh.ip4, hop);
				else
					rp_ipv6_addr_format(gw->nh.ip6, hop);
				printf("  %-12s %-26s %-26s %-14s %zu through the gateway\n", "", "", hop,
				       rp_mac_from_name(gw->nh.mac_from), via);
			}
		}
	}
	printf("  (arp, nd: asked on the host's port before any traffic, 3 tries in 1 s, and again every second\n"
	       "   during a run: a new MAC moves the flows; gateway_mac, profile: as given)\n");
}

static const char *stop_text(const struct rp_flow_params *fp, char *out, size_t len)
{
	char d[32];
	if (fp->stop == RP_STOP_DURATION)
		snprintf(out, len, "for %s", rp_format_ns(fp->stop_value, d, sizeof(d)));
	else
		snprintf(out, len, "%" PRIu64 " %s", fp->stop_value, fp->stop == RP_STOP_PACKETS ? "packets" : "messages");
	return out;
}

static void print_flow(const struct rp_plan *pl, const struct rp_flow *f)
{
	const struct rp_profile *p = pl->prof;
	char route[80], a[32], b[32], c[32], st[48], vlan[16], qos[24];
	snprintf(route, sizeof(route), "%s -> %s", p->hosts[f->src].name,
		 f->kind == RP_TRAFFIC_PFC ? (f->pfc.pause ? "(PAUSE)" : "(PFC)") : p->hosts[f->dst].name);
	if (f->kind == RP_TRAFFIC_PFC) {
		printf("  %-4u %-12s %-22s quanta %u prio mask 0x%02x at %" PRIu64 " frames/s, start %s, %s: %" PRIu64
		       " frames\n",
		       f->id, p->traffic[f->traffic].name, route, f->pfc.quanta, f->pfc.prio_mask, f->pfc.fps,
		       rp_format_ns(f->p.start_ns, a, sizeof(a)), stop_text(&f->p, st, sizeof(st)), f->tot.pkts);
		return;
	}
	snprintf(vlan, sizeof(vlan), f->p.has_vlan ? "%u" : "-", f->p.vid);
	snprintf(qos, sizeof(qos), "%u/%s/%u", f->p.dscp, rp_ecn_name(f->p.ecn), f->prio);
	uint16_t sport = rp_sport_select((enum rp_sport_policy)f->p.sport, f->lqpn, f->rqpn, f->p.sport_base, 0);
	printf("  %-4u %-12s %-22s %3u 0x%06x>0x%06x %5u %-9s %7s %4u %-14s %5s %7s %8s %-13s %10" PRIu64
	       " %12" PRIu64 "\n",
	       f->id, p->traffic[f->traffic].name, route, f->p.qps, f->lqpn, f->rqpn, sport, rp_verb_name(f->p.verb),
	       rp_format_size(f->p.msg_size, a, sizeof(a)), f->p.mtu, qos, vlan,
	       rp_format_bps(f->rate_bps, b, sizeof(b)), rp_format_ns(f->pace.start_ns, c, sizeof(c)),
	       stop_text(&f->p, st, sizeof(st)), f->tot.pkts, f->payload_bytes);
}

static void print_flows(const struct rp_plan *pl)
{
	printf("\nflows (%zu)\n  %-4s %-12s %-22s %-21s %5s %-9s %7s %4s %-12s %5s %7s %8s %-13s %10s %12s\n", pl->nflows,
	       "id", "traffic", "src -> dst", "qps qpn>dest_qpn", "sport", "opcode", "msg", "mtu", "dscp/ecn/pri", "vlan", "rate", "start",
	       "stop", "packets", "bytes");
	for (size_t i = 0; i < pl->nflows; i++)
		print_flow(pl, &pl->flows[i]);
}

static void print_pairs(const struct rp_plan *pl)
{
	const struct rp_profile *p = pl->prof;
	printf("\nbytes per sender -> receiver (RDMA payload)\n");
	for (size_t s = 0; s < p->nhosts; s++)
		for (size_t d = 0; d < p->nhosts; d++)
			if (pl->pair_packets[s * p->nhosts + d])
				printf("  %-12s -> %-12s %14" PRIu64 " B %12" PRIu64 " packets\n", p->hosts[s].name,
				       p->hosts[d].name, pl->pair_bytes[s * p->nhosts + d],
				       pl->pair_packets[s * p->nhosts + d]);
}

static double pct(double bps, uint64_t link)
{
	return link ? bps * 100.0 / (double)link : 0.0;
}

static void print_ports(const struct rp_plan *pl)
{
	const struct rp_profile *p = pl->prof;
	printf("\noffered load per port (layer 1, averaged over bursts)\n  %-12s %11s %8s %11s %8s\n", "host", "tx Gbit/s",
	       "tx %", "rx Gbit/s", "rx %");
	for (size_t h = 0; h < p->nhosts; h++) {
		const struct rp_port_load *l = &pl->load[h];
		double tp = pct(l->tx_bps, p->hosts[h].speed_bps), rp = pct(l->rx_bps, p->hosts[h].speed_bps);
		printf("  %-12s %11.3f %7.1f%% %11.3f %7.1f%%%s%s\n", p->hosts[h].name, l->tx_bps / 1e9, tp,
		       l->rx_bps / 1e9, rp, tp > 100.0 + 1e-9 ? "  TX OVERSUBSCRIBED" : "",
		       rp > 100.0 + 1e-9 ? "  RX OVERSUBSCRIBED" : "");
	}
}

static uint64_t entry_end_ns(const struct rp_plan *pl, size_t t)
{
	uint64_t end = 0;
	for (size_t i = 0; i < pl->nflows; i++)
		if (pl->flows[i].traffic == t && pl->flows[i].end_ns > end)
			end = pl->flows[i].end_ns;
	return end;
}

static void print_entry_schedule(const struct rp_plan *pl, size_t t)
{
	const struct rp_traffic *tr = &pl->prof->traffic[t];
	char a[32], b[32], st[48];
	printf("  %s (%s): starts at %s, %s, sending until %s", tr->name,
	       tr->kind == RP_TRAFFIC_PFC ? (tr->pfc.pause ? "pause" : "pfc") : rp_pattern_name(tr->pattern),
	       rp_format_ns(tr->p.start_ns, a, sizeof(a)), stop_text(&tr->p, st, sizeof(st)),
	       rp_format_ns(entry_end_ns(pl, t), b, sizeof(b)));
	if (tr->kind == RP_TRAFFIC_PFC)
		printf(", one frame every %s\n", rp_format_ns(1000000000ull / tr->pfc.fps, a, sizeof(a)));
	else if (tr->p.burst_on_ns)
		printf(", bursts: on %s, off %s\n", rp_format_ns(tr->p.burst_on_ns, a, sizeof(a)),
		       rp_format_ns(tr->p.burst_off_ns, b, sizeof(b)));
	else if (tr->pattern == RP_PATTERN_ALL_TO_ALL)
		printf(", %zu phases of %s, repeating every %s\n", tr->nhosts - 1,
		       rp_format_ns(rp_plan_phase_ns(pl, (uint16_t)t), a, sizeof(a)),
		       rp_format_ns(rp_plan_phase_ns(pl, (uint16_t)t) * (tr->nhosts - 1), b, sizeof(b)));
	else
		printf(", continuous\n");
}

static void print_phase(const struct rp_plan *pl, const struct rp_phase *ph)
{
	char a[32], b[32];
	printf("    phase %-3u %10s .. %-10s", ph->k, rp_format_ns(ph->start_ns, a, sizeof(a)),
	       rp_format_ns(ph->start_ns + ph->len_ns, b, sizeof(b)));
	unsigned shown = 0;
	for (size_t i = 0; i < pl->nflows; i++) {
		const struct rp_flow *f = &pl->flows[i];
		if (f->traffic != ph->traffic || f->phase != ph->k)
			continue;
		if (shown++ == 8) {
			printf(" ...");
			break;
		}
		printf(" %s->%s", pl->prof->hosts[f->src].name, pl->prof->hosts[f->dst].name);
	}
	printf("\n");
}

static void print_schedule(const struct rp_plan *pl)
{
	printf("\nschedule\n");
	for (size_t t = 0; t < pl->prof->ntraffic; t++) {
		print_entry_schedule(pl, t);
		for (size_t i = 0; i < pl->nphases; i++)
			if (pl->phases[i].traffic == t)
				print_phase(pl, &pl->phases[i]);
	}
}

static void print_text(const struct plan_args *a, const struct rp_plan *pl, const struct launch *l)
{
	printf("profile %s%s%s\n\n", a->path, pl->prof->name[0] ? ": " : "", pl->prof->name);
	print_hosts(pl->prof, l);
	print_next_hops(pl);
	print_flows(pl);
	print_pairs(pl);
	print_ports(pl);
	print_schedule(pl);
}

/* ---- JSON ---- */

static json_t *hosts_json(const struct rp_profile *p, const struct launch *l)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < p->nhosts; i++) {
		const struct rp_host *h = &p->hosts[i];
		char mac[18], ip4[16], ip6[46];
		rp_mac_format(h->mac, mac);
		rp_ipv4_addr_format(h->ipv4, ip4);
		rp_ipv6_addr_format(h->ipv6, ip6);
		bool ip = !h->ip_pending;
		json_t *o = json_pack("{s:s, s:s?, s:s?, s:s?, s:s?, s:s, s:I}", "name", h->name, "mac",
				      h->mac_known ? mac : NULL, "ipv4", h->has_ipv4 && ip ? ip4 : NULL, "ipv6",
				      h->has_ipv6 && ip ? ip6 : NULL, "port",
				      h->port[0] ? h->port : NULL, "port_kind", h->port_is_pci ? "pci" : "devargs", "speed_bps",
				      (json_int_t)h->speed_bps);
		if (h->ipv4_plen != RP_PLEN_NONE)
			json_object_set_new(o, "ipv4_prefix", json_integer(h->ipv4_plen));
		if (h->ipv6_plen != RP_PLEN_NONE)
			json_object_set_new(o, "ipv6_prefix", json_integer(h->ipv6_plen));
		json_t *gws = json_array();
		if (h->has_gw4)
			json_array_append_new(gws, json_string((rp_ipv4_addr_format(h->gw4, ip4), ip4)));
		if (h->has_gw6)
			json_array_append_new(gws, json_string((rp_ipv6_addr_format(h->gw6, ip6), ip6)));
		json_object_set_new(o, "gateways", gws);
		if (h->has_gw_mac)
			json_object_set_new(o, "gateway_mac", json_string((rp_mac_format(h->gw_mac, mac), mac)));
		json_object_set_new(o, "host", json_string(p->servers[h->server].name));
		json_object_set_new(o, "nic", json_integer(h->nic));
		int rank = l->host_rank ? l->host_rank[i] : h->rank;
		json_object_set_new(o, "rank", rank >= 0 ? json_integer(rank) : json_null());
		json_object_set_new(o, "mac_from", json_string(h->mac_auto ? "port" : "profile"));
		json_object_set_new(o, "ip_from", json_string(h->ipv4_netdev || h->ipv6_netdev ? "netdev" : "profile"));
		json_array_append_new(arr, o);
	}
	return arr;
}

static json_t *stop_json(const struct rp_flow_params *fp)
{
	static const char *const kinds[] = {"duration_ns", "packets", "messages"};
	return json_pack("{s:I}", kinds[fp->stop], (json_int_t)fp->stop_value);
}

static json_t *flow_json(const struct rp_plan *pl, const struct rp_flow *f)
{
	const struct rp_profile *p = pl->prof;
	json_t *o = json_pack("{s:I, s:s, s:s, s:s, s:I, s:I, s:o, s:I, s:I, s:I, s:f, s:f}", "id", (json_int_t)f->id,
			      "traffic", p->traffic[f->traffic].name, "kind", f->kind == RP_TRAFFIC_PFC ? "pfc" : "rdma",
			      "src", p->hosts[f->src].name, "start_ns", (json_int_t)f->pace.start_ns, "packets",
			      (json_int_t)f->tot.pkts, "stop", stop_json(&f->p), "frame_bytes", (json_int_t)f->frame_bytes,
			      "payload_bytes", (json_int_t)f->payload_bytes, "messages", (json_int_t)f->tot.msgs,
			      "avg_bps", f->avg_bps, "peak_bps", f->peak_bps);
	json_object_set_new(o, "end_ns", json_integer((json_int_t)f->end_ns));
	json_object_set_new(o, "src_host", json_string(p->servers[p->hosts[f->src].server].name));
	json_object_set_new(o, "src_nic", json_integer(p->hosts[f->src].nic));
	if (f->kind == RP_TRAFFIC_PFC) {
		json_object_set_new(o, "frame", json_string(f->pfc.pause ? "pause" : "pfc"));
		json_object_set_new(o, "prio_mask", json_integer(f->pfc.prio_mask));
		json_object_set_new(o, "quanta", json_integer(f->pfc.quanta));
		json_object_set_new(o, "fps", json_integer((json_int_t)f->pfc.fps));
		return o;
	}
	json_object_update_new(o, json_pack("{s:s, s:i, s:I, s:I, s:s, s:I, s:i, s:i, s:s, s:i, s:o, s:s, s:i, s:I, s:i}",
					    "dst", p->hosts[f->dst].name, "phase", f->phase, "qps", (json_int_t)f->p.qps,
					    "first_qpn", (json_int_t)f->lqpn, "opcode", rp_verb_name(f->p.verb),
					    "message_size", (json_int_t)f->p.msg_size, "mtu", f->p.mtu, "dscp", f->p.dscp,
					    "ecn", rp_ecn_name(f->p.ecn), "prio", f->prio, "vlan",
					    f->p.has_vlan ? json_integer(f->p.vid) : json_null(), "sport",
					    rp_sport_name(f->p.sport), "ip", f->p.ip, "rate_bps", (json_int_t)f->rate_bps,
					    "psn_start", (int)f->p.psn_start));
	json_object_set_new(o, "dest_qpn", json_integer(f->rqpn));
	/* QP q's UDP source port (the ECMP entropy): first_qpn + q -> dest_qpn + q */
	json_t *sp = json_array();
	for (unsigned q = 0; q < f->p.qps; q++)
		json_array_append_new(sp, json_integer(rp_sport_select((enum rp_sport_policy)f->p.sport, f->lqpn + q,
								       f->rqpn + q, f->p.sport_base, q)));
	json_object_set_new(o, "udp_sports", sp);
	char hop[46], mac[18];
	if (f->nh.l3 == 4)
		rp_ipv4_addr_format(f->nh.ip4, hop);
	else
		rp_ipv6_addr_format(f->nh.ip6, hop);
	rp_mac_format(f->nh.mac, mac);
	json_object_set_new(o, "next_hop", json_pack("{s:s, s:s, s:s, s:s?}", "via", f->nh.via_gateway ? "gateway" : "direct",
						     "ip", hop, "mac_from", rp_mac_from_name(f->nh.mac_from), "mac",
						     f->nh.mac_known ? mac : NULL));
	if (f->p.burst_on_ns)
		json_object_set_new(o, "burst", json_pack("{s:I, s:I}", "on_ns", (json_int_t)f->p.burst_on_ns, "off_ns",
							  (json_int_t)f->p.burst_off_ns));
	return o;
}

static json_t *pairs_json(const struct rp_plan *pl)
{
	const struct rp_profile *p = pl->prof;
	json_t *arr = json_array();
	for (size_t s = 0; s < p->nhosts; s++)
		for (size_t d = 0; d < p->nhosts; d++)
			if (pl->pair_packets[s * p->nhosts + d])
				json_array_append_new(arr, json_pack("{s:s, s:s, s:I, s:I}", "src", p->hosts[s].name, "dst",
								     p->hosts[d].name, "bytes",
								     (json_int_t)pl->pair_bytes[s * p->nhosts + d], "packets",
								     (json_int_t)pl->pair_packets[s * p->nhosts + d]));
	return arr;
}

static json_t *ports_json(const struct rp_plan *pl)
{
	const struct rp_profile *p = pl->prof;
	json_t *arr = json_array();
	for (size_t h = 0; h < p->nhosts; h++) {
		const struct rp_port_load *l = &pl->load[h];
		double tp = pct(l->tx_bps, p->hosts[h].speed_bps), rp = pct(l->rx_bps, p->hosts[h].speed_bps);
		json_array_append_new(arr, json_pack("{s:s, s:f, s:f, s:f, s:f, s:b}", "host", p->hosts[h].name, "tx_bps",
						     l->tx_bps, "tx_pct", tp, "rx_bps", l->rx_bps, "rx_pct", rp,
						     "oversubscribed", tp > 100.0 + 1e-9 || rp > 100.0 + 1e-9));
	}
	return arr;
}

static json_t *phases_json(const struct rp_plan *pl)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < pl->nphases; i++) {
		const struct rp_phase *ph = &pl->phases[i];
		json_t *pairs = json_array();
		for (size_t f = 0; f < pl->nflows; f++)
			if (pl->flows[f].traffic == ph->traffic && pl->flows[f].phase == ph->k)
				json_array_append_new(pairs, json_pack("[s, s]", pl->prof->hosts[pl->flows[f].src].name,
								       pl->prof->hosts[pl->flows[f].dst].name));
		json_array_append_new(arr, json_pack("{s:s, s:i, s:I, s:I, s:I, s:o}", "traffic",
						     pl->prof->traffic[ph->traffic].name, "phase", ph->k, "start_ns",
						     (json_int_t)ph->start_ns, "len_ns", (json_int_t)ph->len_ns, "period_ns",
						     (json_int_t)ph->period_ns, "pairs", pairs));
	}
	return arr;
}

static int print_json(const struct plan_args *a, const struct rp_plan *pl, const struct launch *l)
{
	json_t *flows = json_array();
	for (size_t i = 0; i < pl->nflows; i++)
		json_array_append_new(flows, flow_json(pl, &pl->flows[i]));
	json_t *root = json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o}", "schema", "roceprobe.plan/1", "profile",
				 a->path, "name", pl->prof->name, "hosts", hosts_json(pl->prof, l), "flows", flows, "pairs",
				 pairs_json(pl), "ports", ports_json(pl), "phases", phases_json(pl));
	if (!root)
		return rp_cli_error("plan", "cannot build the JSON output");
	json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', stdout);
	json_decref(root);
	return RP_EXIT_OK;
}

int rp_cmd_plan(int argc, char **argv)
{
	struct plan_args a = {0};
	int rc = parse_args(argc, argv, &a);
	if (rc == 1) {
		usage(stdout);
		return RP_EXIT_OK;
	}
	if (rc)
		return rc;
	char err[RP_PROFILE_ERR_LEN];
	struct launch l = {0};
	if (a.ranks && !(l.info = calloc(a.ranks, sizeof(*l.info))))
		return rp_cli_error("plan", "out of memory");
	uint64_t k = a.per_node ? a.per_node : 1;
	for (uint64_t r = 0; r < a.ranks; r++) {
		l.info[r].rank = (int)r;
		l.info[r].local_rank = (int)(r % k);
		snprintf(l.info[r].node, sizeof(l.info[r].node), "node%" PRIu64, r / k);
	}
	l.ranks = a.ranks ? calloc(a.ranks, sizeof(*l.ranks)) : NULL;
	if (a.ranks && l.ranks)
		rp_cluster_launch_ranks(l.info, a.ranks, l.ranks);
	struct rp_profile_opts o = {.sets = a.sets, .nsets = a.nsets, .allow_pause_storm = a.allow_pause_storm,
				    .nranks = l.ranks ? a.ranks : 0, .ranks = l.ranks};
	struct rp_profile *p = rp_profile_load(a.path, &o, err, sizeof(err));
	struct rp_plan pl;
	rc = RP_EXIT_USAGE;
	if (!p) {
		fprintf(stderr, "roceprobe: %s\n", err);
	} else if (a.ranks && (!(l.host_rank = calloc(p->nhosts, sizeof(int))) ||
			       rp_cluster_bind(p, l.info, a.ranks, l.host_rank, err, sizeof(err)) != 0)) {
		fprintf(stderr, "roceprobe plan: %s\n", l.host_rank ? err : "out of memory");
	} else if (rp_plan_build(p, &pl, err, sizeof(err))) {
		fprintf(stderr, "roceprobe: %s: %s\n", a.path, err);
	} else {
		rc = RP_EXIT_OK;
		if (a.json)
			rc = print_json(&a, &pl, &l);
		else
			print_text(&a, &pl, &l);
		rp_plan_free(&pl);
	}
	rp_profile_free(p);
	free(l.info);
	free(l.ranks);
	free(l.host_rank);
	return rc;
}
