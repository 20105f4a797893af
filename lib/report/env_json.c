/* result.json's environment pieces from the ranks' facts (env_json.h). */
#include "env_json.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters/snap.h"
#include "report/result.h"

static json_t *jint(uint64_t v)
{
	return json_integer((json_int_t)v);
}

json_t *rp_env_neigh_json(const struct rp_env_neigh *n)
{
	static const char *const key[RP_ENV_NEIGH_U64] = {
		"arp_requests_rx", "arp_replies_tx", "arp_replies_rx", "arp_requests_tx", "nd_solicits_rx", "nd_adverts_tx",
		"nd_adverts_rx",   "nd_solicits_tx", "unsent",         "refresh_tx",      "mac_changes",    "refresh_ns"};
	json_t *o = json_object(), *hops = json_array();
	for (unsigned i = 0; i < RP_ENV_NEIGH_U64; i++)
		json_object_set_new(o, key[i], jint(n->c[i]));
	for (uint32_t i = 0; i < n->nhops; i++) {
		const struct rp_env_hop *h = &n->hops[i];
		json_array_append_new(hops, json_pack("{s:s, s:s, s:s, s:I, s:I, s:I}", "address", h->address, "mac",
						      h->mac, "resolved_mac", h->resolved_mac, "mac_changes",
						      (json_int_t)h->mac_changes, "last_change_ns",
						      (json_int_t)h->last_change_ns, "answers", (json_int_t)h->answers));
	}
	json_object_set_new(o, "next_hops", hops);
	return o;
}

static json_t *counts_json(const struct rp_env_count *c, uint32_t n)
{
	json_t *o = json_object();
	for (uint32_t i = 0; i < n; i++)
		json_object_set_new(o, c[i].name, jint(c[i].value));
	return o;
}

/* pause_xstats: the PMD's own names holding "pause" or "pfc" (the facts
 * carry the vocabulary's names too, for xstats). */
static json_t *pause_json(const struct rp_env_count *c, uint32_t n)
{
	json_t *o = json_object();
	for (uint32_t i = 0; i < n; i++)
		if (rp_ctr_is_pause(c[i].name))
			json_object_set_new(o, c[i].name, jint(c[i].value));
	return o;
}

/* xstats: the same changes through lib/counters' vocabulary (RP_CTR_DPDK:
 * vocabulary keys, per priority in prio[], the rest under raw names). */
static json_t *xstats_json(const struct rp_env_port *p)
{
	struct rp_cnt_snap s;
	memset(&s, 0, sizeof(s));
	struct rp_ctr *raw = p->nxstats ? calloc(p->nxstats, sizeof(*raw)) : NULL;
	struct rp_cnt_port *port = rp_cnt_add_port(&s, p->devargs);
	if ((p->nxstats && !raw) || !port) {
		free(raw);
		return json_null();
	}
	for (uint32_t i = 0; i < p->nxstats; i++)
		raw[i] = (struct rp_ctr){.src = RP_CTR_DPDK, .value = p->xstats[i].value};
	for (uint32_t i = 0; i < p->nxstats; i++)
		snprintf(raw[i].name, sizeof(raw[i].name), "%s", p->xstats[i].name);
	snprintf(port->driver, sizeof(port->driver), "%s", p->driver);
	rp_cnt_port_fold(port, raw, p->nxstats);
	json_t *o = rp_cnt_port_json(port, false);
	free(raw);
	rp_cnt_snap_free(&s);
	return o;
}

json_t *rp_env_port_json(const struct rp_env_port *p)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:o, s:I}", "node", p->node,
			      "devargs", p->devargs, "driver", p->driver, "link_bps", (json_int_t)p->link_bps,
			      "pmd_link_bps", (json_int_t)p->pmd_link_bps, "tx_packets", (json_int_t)p->tx_packets,
			      "tx_bytes", (json_int_t)p->tx_bytes, "tx_unsent", (json_int_t)p->tx_unsent, "impair_dropped",
			      (json_int_t)p->impair_dropped, "impair_marked", (json_int_t)p->impair_marked, "replies_sent",
			      (json_int_t)p->replies_sent, "pause_xstats", pause_json(p->xstats, p->nxstats), "neigh",
			      rp_env_neigh_json(&p->neigh), "pmd_oerrors", (json_int_t)p->pmd_oerrors);
	if (!o)
		return json_object();
	json_object_set_new(o, "netdev",
			    p->has_netdev ? json_pack("{s:s, s:I, s:I, s:I}", "name", p->netdev, "tx_packets",
						      (json_int_t)p->netdev_tx_packets, "tx_dropped",
						      (json_int_t)p->netdev_tx_dropped, "tx_errors",
						      (json_int_t)p->netdev_tx_errors)
					  : json_null());
	json_object_set_new(o, "icmp_too_big", json_pack("{s:I, s:I}", "frames", (json_int_t)p->too_big_frames, "mtu",
							 (json_int_t)p->too_big_mtu));
	json_t *unsent = json_object(), *findings = json_array();
	for (uint32_t i = 0; i < p->nunsent; i++) {
		char id[16];
		snprintf(id, sizeof(id), "%" PRIu32, p->unsent[i].flow);
		json_object_set_new(unsent, id, jint(p->unsent[i].frames));
	}
	for (uint32_t i = 0; i < p->nfindings; i++)
		json_array_append_new(findings, json_string(p->findings[i]));
	json_object_set_new(o, "flows_unsent", unsent);
	json_object_set_new(o, "findings", findings);
	json_object_set_new(o, "xstats", xstats_json(p));
	json_object_set_new(o, "rx_clock", json_pack("{s:s, s:I, s:I, s:I}", "clock", p->rx_clock ? p->rx_clock : "poll",
						     "stamped", (json_int_t)p->rx_stamped, "unstamped",
						     (json_int_t)p->rx_unstamped, "bound_ns",
						     (json_int_t)p->rx_clock_bound_ns));
	json_object_set_new(o, "shared", json_pack("{s:b, s:b, s:b}", "isolated", p->shared, "pause_steered",
						   p->pause_steered, "xdp_program", p->xdp_program));
	json_object_set_new(o, "tx_start", json_pack("{s:s, s:I, s:b}", "clock", p->tx_lead_ns ? "nic" : "host", "lead_ns",
						     (json_int_t)p->tx_lead_ns, "late", p->tx_nic_late));
	return o;
}

json_t *rp_env_ports_json(const struct rp_rank_env *e, size_t n)
{
	json_t *a = json_array();
	for (size_t k = 0; k < n; k++)
		for (uint32_t i = 0; e[k].present && i < e[k].nports; i++)
			json_array_append_new(a, rp_env_port_json(&e[k].ports[i]));
	return a;
}

json_t *rp_env_captures_json(const struct rp_rank_env *e, size_t n)
{
	json_t *a = json_array();
	for (size_t k = 0; k < n; k++)
		for (uint32_t i = 0; e[k].present && i < e[k].ncaptures; i++) {
			const struct rp_env_capture *c = &e[k].captures[i];
			json_array_append_new(a, json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I}", "node", c->node, "path",
							   c->path, "offered", (json_int_t)c->offered, "written",
							   (json_int_t)c->written, "dropped", (json_int_t)c->dropped,
							   "sampled_out", (json_int_t)c->sampled_out, "files",
							   (json_int_t)c->files));
		}
	return a;
}

json_t *rp_env_lcores_json(const struct rp_rank_env *e)
{
	json_t *a = json_array();
	for (uint32_t k = 0; e->present && k < e->nlcores; k++) {
		const struct rp_env_lcore *l = &e->lcores[k];
		json_array_append_new(a, json_pack("{s:i, s:i, s:i, s:I, s:I, s:I, s:I, s:f}", "lcore", (int)l->lcore,
						   "lcore_id", (int)l->lcore_id, "socket", (int)l->socket, "rx_packets",
						   (json_int_t)l->rx_packets, "tx_packets", (json_int_t)l->tx_packets,
						   "polls", (json_int_t)l->polls, "busy_polls", (json_int_t)l->busy_polls,
						   "busy_share",
						   l->polls ? (double)l->busy_polls / (double)l->polls : 0.0));
	}
	return a;
}

json_t *rp_env_rank_json(const struct rp_rank_env *e)
{
	json_t *hosts = json_array();
	for (uint32_t i = 0; i < e->nhosts; i++)
		json_array_append_new(hosts, json_string(e->hosts[i]));
	json_t *o = json_pack("{s:i, s:s, s:o, s:I, s:I, s:I, s:s, s:o, s:[I, I], s:I, s:I}", "rank", (int)e->rank, "node",
			      e->node, "hosts", hosts, "clock_offset_ns", (json_int_t)e->clock_offset_ns, "clock_bound_ns",
			      (json_int_t)e->clock_bound_ns, "start_skew_ns", (json_int_t)e->start_skew_ns, "clock_source",
			      e->clock_source, "lcores", rp_env_lcores_json(e), "packet_clock_gap_ns",
			      (json_int_t)e->pclock_gap[0], (json_int_t)e->pclock_gap[1], "flows_accounted",
			      (json_int_t)e->flows_accounted, "flows_held", (json_int_t)e->flows_held);
	return o ? o : json_object();
}

static json_t *vhost_json(const struct rp_env_vhost *h, size_t rank)
{
	json_t *ctr = json_pack("{s:I, s:o, s:o}", "elapsed_ns", (json_int_t)h->elapsed_ns, "delta",
				counts_json(h->delta, h->ndelta), "raw_delta", counts_json(h->raw, h->nraw));
	json_t *o = json_pack("{s:s, s:s, s:s, s:i, s:i, s:s, s:s, s:o}", "host", h->host, "device", h->device, "driver",
			      h->driver, "port", (int)h->port, "gid_index", (int)h->gid_index, "gid", h->gid, "netdev",
			      h->netdev, "counters", ctr);
	if (!o)
		return json_object();
	json_object_set_new(o, "rank", jint(rank));
	return o;
}

static json_t *vqp_json(const struct rp_env_vqp *q)
{
	json_t *o = json_pack("{s:I, s:i, s:s, s:s, s:I, s:I}", "flow", (json_int_t)q->flow, "qp", (int)q->qp, "src",
			      q->src, "dst", q->dst, "src_qpn", (json_int_t)q->src_qpn, "dst_qpn", (json_int_t)q->dst_qpn);
	if (!o)
		return json_object();
	if (q->send) {
		json_object_set_new(o, "tx_messages", jint(q->v[0]));
		json_object_set_new(o, "tx_completed", jint(q->v[1]));
		json_object_set_new(o, "tx_bytes", jint(q->v[2]));
		json_object_set_new(o, "completion_ns", rp_report_latency(q->lat));
	} else {
		json_object_set_new(o, "rx_messages", jint(q->v[0]));
		json_object_set_new(o, "rx_bytes", jint(q->v[1]));
		json_object_set_new(o, "bad_probes", jint(q->v[2]));
		json_object_set_new(o, "latency_ns", rp_report_latency(q->lat));
	}
	return o;
}

json_t *rp_env_verbs_json(const struct rp_rank_env *e, size_t n)
{
	json_t *hosts = json_array(), *qps = json_array();
	for (size_t k = 0; k < n; k++) {
		const struct rp_env_verbs *v = e[k].present ? e[k].verbs : NULL;
		for (uint32_t i = 0; v && i < v->nhosts; i++)
			json_array_append_new(hosts, vhost_json(&v->hosts[i], k));
		for (uint32_t i = 0; v && i < v->nqps; i++) {
			json_t *x = vqp_json(&v->qps[i]), *y, *same = NULL;
			size_t j;
			json_array_foreach(qps, j, y)
				if (json_equal(json_object_get(y, "flow"), json_object_get(x, "flow")) &&
				    json_equal(json_object_get(y, "qp"), json_object_get(x, "qp")))
					same = y;
			if (same) {
				json_object_update(same, x);
				json_decref(x);
			} else {
				json_array_append_new(qps, x);
			}
		}
	}
	return json_pack("{s:o, s:o}", "hosts", hosts, "qps", qps);
}

json_t *rp_env_findings_json(const struct rp_rank_env *e, size_t n)
{
	json_t *a = json_array();
	for (size_t k = 0; k < n; k++)
		for (uint32_t i = 0; e[k].present && i < e[k].nports; i++)
			for (uint32_t j = 0; j < e[k].ports[i].nfindings; j++)
				json_array_append_new(a, json_string(e[k].ports[i].findings[j]));
	return a;
}
