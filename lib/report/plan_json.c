/* A plan as the "roceprobe.plan/1" JSON document (plan_report.h). */
#include <jansson.h>

#include "plan_report.h"
#include "profile/names.h"
#include "wire/eth.h"
#include "wire/ipv4.h"
#include "wire/ipv6.h"
#include "wire/sport.h"

static json_t *hosts_json(const struct rp_profile *p, const int *host_rank)
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
		int rank = host_rank ? host_rank[i] : h->rank;
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
	if (f->pace.nphases) {
		json_t *ph = json_array();
		for (uint16_t i = 0; i < f->pace.nphases; i++)
			json_array_append_new(ph, json_pack("{s:I, s:I}", "at_ns", (json_int_t)f->pace.phases[i].at_ns, "rate_bps",
							    (json_int_t)rp_rate_bps(&f->pace.phases[i].rate, f->pace.link_bps)));
		json_object_set_new(o, "rate_phases", ph);
	}
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
		double tp = rp_plan_link_pct(l->tx_bps, p->hosts[h].speed_bps), rp = rp_plan_link_pct(l->rx_bps, p->hosts[h].speed_bps);
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
json_t *rp_plan_json(const char *path, const struct rp_plan *pl, const int *host_rank)
{
	json_t *flows = json_array();
	for (size_t i = 0; i < pl->nflows; i++)
		json_array_append_new(flows, flow_json(pl, &pl->flows[i]));
	return json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o}", "schema", "roceprobe.plan/1", "profile", path,
			 "name", pl->prof->name, "hosts", hosts_json(pl->prof, host_rank), "flows", flows, "pairs",
			 pairs_json(pl), "ports", ports_json(pl), "phases", phases_json(pl));
}
