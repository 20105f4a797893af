/* A plan as text: the tables `roceprobe plan` prints (plan_report.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "plan_report.h"
#include "profile/names.h"
#include "profile/units.h"
#include "wire/eth.h"
#include "wire/ipv4.h"
#include "wire/ipv6.h"
#include "wire/sport.h"

static const char *host_ip(const struct rp_host *h, char *out)
{
	if (h->has_ipv4)
		rp_ipv4_addr_format(h->ipv4, out);
	else
		rp_ipv6_addr_format(h->ipv6, out);
	return out;
}

/* Where host i runs: the binding with --ranks, else what the profile says. */
static void host_rank_text(const struct rp_host *h, const int *host_rank, size_t i, char *out, size_t len)
{
	if (host_rank)
		snprintf(out, len, "%d", host_rank[i]);
	else if (h->rank >= 0)
		snprintf(out, len, "%d", h->rank);
	else if (h->node[0])
		snprintf(out, len, "@%.20s", h->node);
	else
		snprintf(out, len, "(%u)", h->server); /* a host's NICs share its rank */
	(void)i;
}

static void print_hosts(FILE *out, const struct rp_profile *p, const int *host_rank)
{
	bool later = false, placed = false;
	if (rp_profile_multi_nic(p)) /* every row is one NIC, named HOST.NIC */
		fprintf(out, "hosts (%zu, with %zu NICs)\n", p->nservers, p->nhosts);
	else
		fprintf(out, "hosts (%zu)\n", p->nhosts);
	fprintf(out, "  %-12s %-6s %-17s %-26s %-24s %s\n", "name", "rank", "mac", "ip", "port", "speed");
	for (size_t i = 0; i < p->nhosts; i++) {
		const struct rp_host *h = &p->hosts[i];
		char mac[64], ip[80], sp[32], port[RP_PORT_MAX + 8], rank[32];
		host_rank_text(h, host_rank, i, rank, sizeof(rank));
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
		fprintf(out, "  %-12s %-6s %-17s %-26s %-24s %s\n", h->name, rank, mac, ip, port,
		       rp_format_bps(h->speed_bps, sp, sizeof(sp)));
		if (h->has_ipv4 && h->has_ipv6 && !h->ip_pending)
			fprintf(out, "  %-12s %-6s %-17s %s\n", "", "", "", (rp_ipv6_addr_format(h->ipv6, ip), ip));
	}
	if (!host_rank && (later || placed))
		fprintf(out, "  (rank: as bound at start; (i) is the default, host i on rank i: give --ranks N to bind)\n");
	if (later)
		fprintf(out, "  (port's / netdev: resolved on rank R at start, from its port's MAC (mac: auto) or its Linux\n"
		       "   netdev's address (ipv4/ipv6: netdev), then sent to every rank before any traffic)\n");
}

/* How each sender reaches its destinations: only when a host gives a prefix. */
static void print_next_hops(FILE *out, const struct rp_plan *pl)
{
	const struct rp_profile *p = pl->prof;
	bool routed = false;
	for (size_t i = 0; i < p->nhosts; i++)
		routed |= p->hosts[i].ipv4_plen != RP_PLEN_NONE || p->hosts[i].ipv6_plen != RP_PLEN_NONE;
	if (!routed)
		return;
	fprintf(out, "\nnext hops\n  %-12s %-26s %-26s %-14s %s\n", "host", "subnet", "next hop", "MAC from", "flows");
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
			fprintf(out, "  %-12s %-26s %-26s %-14s %zu on the link\n", H->name, subnet, "(destination)",
			       from[0] ? from : "-", direct);
			if (gw) {
				if (l3 == 4)
					rp_ipv4_addr_format(gw->nh.ip4, hop);
				else
					rp_ipv6_addr_format(gw->nh.ip6, hop);
				fprintf(out, "  %-12s %-26s %-26s %-14s %zu through the gateway\n", "", "", hop,
				       rp_mac_from_name(gw->nh.mac_from), via);
			}
		}
	}
	fprintf(out, "  (arp, nd: asked on the host's port before any traffic, 3 tries in 1 s, and again every second\n"
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

static void print_flow(FILE *out, const struct rp_plan *pl, const struct rp_flow *f)
{
	const struct rp_profile *p = pl->prof;
	char route[80], a[32], b[32], c[32], st[48], vlan[16], qos[24];
	snprintf(route, sizeof(route), "%s -> %s", p->hosts[f->src].name,
		 f->kind == RP_TRAFFIC_PFC ? (f->pfc.pause ? "(PAUSE)" : "(PFC)") : p->hosts[f->dst].name);
	if (f->kind == RP_TRAFFIC_PFC) {
		fprintf(out, "  %-4u %-12s %-22s quanta %u prio mask 0x%02x at %" PRIu64 " frames/s, start %s, %s: %" PRIu64
		       " frames\n",
		       f->id, p->traffic[f->traffic].name, route, f->pfc.quanta, f->pfc.prio_mask, f->pfc.fps,
		       rp_format_ns(f->p.start_ns, a, sizeof(a)), stop_text(&f->p, st, sizeof(st)), f->tot.pkts);
		return;
	}
	snprintf(vlan, sizeof(vlan), f->p.has_vlan ? "%u" : "-", f->p.vid);
	snprintf(qos, sizeof(qos), "%u/%s/%u", f->p.dscp, rp_ecn_name(f->p.ecn), f->prio);
	uint16_t sport = rp_sport_select((enum rp_sport_policy)f->p.sport, f->lqpn, f->rqpn, f->p.sport_base, 0);
	fprintf(out, "  %-4u %-12s %-22s %3u 0x%06x>0x%06x %5u %-9s %7s %4u %-14s %5s %7s %8s %-13s %10" PRIu64
	       " %12" PRIu64 "\n",
	       f->id, p->traffic[f->traffic].name, route, f->p.qps, f->lqpn, f->rqpn, sport, rp_verb_name(f->p.verb),
	       rp_format_size(f->p.msg_size, a, sizeof(a)), f->p.mtu, qos, vlan,
	       rp_format_bps(f->rate_bps, b, sizeof(b)), rp_format_ns(f->pace.start_ns, c, sizeof(c)),
	       stop_text(&f->p, st, sizeof(st)), f->tot.pkts, f->payload_bytes);
	if (f->pace.nphases) { /* the rate column is the first phase's */
		fprintf(out, "       rate phases:");
		for (uint16_t i = 0; i < f->pace.nphases; i++)
			fprintf(out, "%s %s from %s", i ? "," : "",
				rp_format_bps(rp_rate_bps(&f->pace.phases[i].rate, f->pace.link_bps), b, sizeof(b)),
				rp_format_ns(f->pace.phases[i].at_ns, c, sizeof(c)));
		fprintf(out, "\n");
	}
}

static void print_flows(FILE *out, const struct rp_plan *pl)
{
	fprintf(out, "\nflows (%zu)\n  %-4s %-12s %-22s %-21s %5s %-9s %7s %4s %-12s %5s %7s %8s %-13s %10s %12s\n", pl->nflows,
	       "id", "traffic", "src -> dst", "qps qpn>dest_qpn", "sport", "opcode", "msg", "mtu", "dscp/ecn/pri", "vlan", "rate", "start",
	       "stop", "packets", "bytes");
	for (size_t i = 0; i < pl->nflows; i++)
		print_flow(out, pl, &pl->flows[i]);
}

static void print_pairs(FILE *out, const struct rp_plan *pl)
{
	const struct rp_profile *p = pl->prof;
	fprintf(out, "\nbytes per sender -> receiver (RDMA payload)\n");
	for (size_t s = 0; s < p->nhosts; s++)
		for (size_t d = 0; d < p->nhosts; d++)
			if (pl->pair_packets[s * p->nhosts + d])
				fprintf(out, "  %-12s -> %-12s %14" PRIu64 " B %12" PRIu64 " packets\n", p->hosts[s].name,
				       p->hosts[d].name, pl->pair_bytes[s * p->nhosts + d],
				       pl->pair_packets[s * p->nhosts + d]);
}

static void print_ports(FILE *out, const struct rp_plan *pl)
{
	const struct rp_profile *p = pl->prof;
	fprintf(out, "\noffered load per port (layer 1, averaged over bursts)\n  %-12s %11s %8s %11s %8s\n", "host", "tx Gbit/s",
	       "tx %", "rx Gbit/s", "rx %");
	for (size_t h = 0; h < p->nhosts; h++) {
		const struct rp_port_load *l = &pl->load[h];
		double tp = rp_plan_link_pct(l->tx_bps, p->hosts[h].speed_bps), rp = rp_plan_link_pct(l->rx_bps, p->hosts[h].speed_bps);
		fprintf(out, "  %-12s %11.3f %7.1f%% %11.3f %7.1f%%%s%s\n", p->hosts[h].name, l->tx_bps / 1e9, tp,
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

static void print_entry_schedule(FILE *out, const struct rp_plan *pl, size_t t)
{
	const struct rp_traffic *tr = &pl->prof->traffic[t];
	char a[32], b[32], st[48];
	fprintf(out, "  %s (%s): starts at %s, %s, sending until %s", tr->name,
	       tr->kind == RP_TRAFFIC_PFC ? (tr->pfc.pause ? "pause" : "pfc") : rp_pattern_name(tr->pattern),
	       rp_format_ns(tr->p.start_ns, a, sizeof(a)), stop_text(&tr->p, st, sizeof(st)),
	       rp_format_ns(entry_end_ns(pl, t), b, sizeof(b)));
	if (tr->kind == RP_TRAFFIC_PFC)
		fprintf(out, ", one frame every %s\n", rp_format_ns(1000000000ull / tr->pfc.fps, a, sizeof(a)));
	else if (tr->p.burst_on_ns)
		fprintf(out, ", bursts: on %s, off %s\n", rp_format_ns(tr->p.burst_on_ns, a, sizeof(a)),
		       rp_format_ns(tr->p.burst_off_ns, b, sizeof(b)));
	else if (tr->pattern == RP_PATTERN_ALL_TO_ALL)
		fprintf(out, ", %zu phases of %s, repeating every %s\n", tr->nhosts - 1,
		       rp_format_ns(rp_plan_phase_ns(pl, (uint16_t)t), a, sizeof(a)),
		       rp_format_ns(rp_plan_phase_ns(pl, (uint16_t)t) * (tr->nhosts - 1), b, sizeof(b)));
	else
		fprintf(out, ", continuous\n");
}

static void print_phase(FILE *out, const struct rp_plan *pl, const struct rp_phase *ph)
{
	char a[32], b[32];
	fprintf(out, "    phase %-3u %10s .. %-10s", ph->k, rp_format_ns(ph->start_ns, a, sizeof(a)),
	       rp_format_ns(ph->start_ns + ph->len_ns, b, sizeof(b)));
	unsigned shown = 0;
	for (size_t i = 0; i < pl->nflows; i++) {
		const struct rp_flow *f = &pl->flows[i];
		if (f->traffic != ph->traffic || f->phase != ph->k)
			continue;
		if (shown++ == 8) {
			fprintf(out, " ...");
			break;
		}
		fprintf(out, " %s->%s", pl->prof->hosts[f->src].name, pl->prof->hosts[f->dst].name);
	}
	fprintf(out, "\n");
}

static void print_schedule(FILE *out, const struct rp_plan *pl)
{
	fprintf(out, "\nschedule\n");
	for (size_t t = 0; t < pl->prof->ntraffic; t++) {
		print_entry_schedule(out, pl, t);
		for (size_t i = 0; i < pl->nphases; i++)
			if (pl->phases[i].traffic == t)
				print_phase(out, pl, &pl->phases[i]);
	}
}
void rp_plan_print_text(FILE *out, const char *path, const struct rp_plan *pl, const int *host_rank)
{
	fprintf(out, "profile %s%s%s\n\n", path, pl->prof->name[0] ? ": " : "", pl->prof->name);
	print_hosts(out, pl->prof, host_rank);
	print_next_hops(out, pl);
	print_flows(out, pl);
	print_pairs(out, pl);
	print_ports(out, pl);
	print_schedule(out, pl);
}
