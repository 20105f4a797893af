/* What left a port, by every count there is (txpath.h). */
#include "txpath.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dp/dp.h"
#include "traffic/plan.h"
#include "traffic/source.h"
#include "wire/eth.h"
#include "wire/icmp.h"

#define FINDING_LEN 512

static unsigned nqueues(const struct rp_session *s)
{
	return s->nq ? s->nq : 1;
}

void rp_txpath_begin(struct rp_txpath *t, const struct rp_session *s, unsigned i)
{
	const struct rp_dp_txport *tp = &s->tx[i];
	const struct rp_host *h = &s->prof->hosts[tp->index];
	char err[256];
	struct rp_dp_port_drops d;
	*t = (struct rp_txpath){0};
	const char *at = NULL;
	if (!strncmp(tp->port->name, "net_tap", 7) || !strncmp(tp->port->name, "eth_tap", 7)) {
		if (!rp_dp_devarg_next(h->port, "iface", &at, t->netdev, sizeof(t->netdev)))
			t->netdev[0] = '\0';
	} else if (rp_dp_port_netdev(h->port, h->port_is_pci, t->netdev, sizeof(t->netdev), err, sizeof(err)) != 0) {
		t->netdev[0] = '\0';
	}
	t->netdev_read = t->netdev[0] && rp_dp_netdev_tx_read(t->netdev, &t->before) == 0;
	rp_dp_port_read_drops(tp->port, &d);
	t->oerrors_before = t->oerrors_after = d.oerrors;
}

void rp_txpath_end(struct rp_txpath *t, const struct rp_session *s, unsigned i)
{
	struct rp_dp_port_drops d;
	if (t->netdev_read)
		t->netdev_read = rp_dp_netdev_tx_read(t->netdev, &t->after) == 0;
	rp_dp_port_read_drops(s->tx[i].port, &d);
	t->oerrors_after = d.oerrors;
}

uint64_t rp_txpath_oerrors(const struct rp_txpath *t)
{
	return t->oerrors_after > t->oerrors_before ? t->oerrors_after - t->oerrors_before : 0;
}

/* The data flows port i sends, over its queues. */
static size_t port_flows(const struct rp_session *s, unsigned i)
{
	size_t n = 0;
	for (unsigned q = 0; q < nqueues(s); q++) {
		const struct rp_dp_txport *tp = &s->tx[q * s->nports + i];
		n += tp->src ? rp_source_nflows(tp->src) : 0;
	}
	return n;
}

uint64_t rp_txpath_flow_unsent(const struct rp_txpath *t, const struct rp_session *s, unsigned q, size_t k)
{
	const struct rp_dp_txport *tp = &s->tx[q];
	uint64_t n = tp->flow_unsent ? tp->flow_unsent[k] : 0;
	if (port_flows(s, q % s->nports) == 1)
		n += rp_txpath_oerrors(t);
	return n;
}

static void add_finding(json_t *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_finding(json_t *a, const char *fmt, ...)
{
	char buf[FINDING_LEN];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_array_append_new(a, json_string(buf));
}

/* The path-MTU finding: the port's flows whose packets a path of pmtu IP
 * bytes does not take, their largest frame, and the largest RoCE MTU that
 * fits all of them. */
static void too_big_finding(const struct rp_session *s, unsigned i, const char *node, uint64_t frames, uint32_t pmtu,
			    json_t *findings)
{
	unsigned host = s->tx[i].index, fit = 4096;
	uint32_t biggest = 0;
	for (size_t f = 0; f < s->plan.nflows; f++) {
		const struct rp_flow *pf = &s->plan.flows[f];
		uint32_t frame = rp_flow_max_frame(pf), l2 = RP_ETH_HLEN + (pf->p.has_vlan ? RP_VLAN_HLEN : 0);
		if (pf->src != host || pf->kind != RP_TRAFFIC_RDMA || frame <= l2 || frame - l2 <= pmtu)
			continue;
		unsigned m = rp_roce_mtu_for_path(pmtu, frame - l2, pf->p.mtu);
		fit = m < fit ? m : fit;
		biggest = frame > biggest ? frame : biggest;
	}
	const char *what = "ICMP fragmentation-needed / ICMPv6 Packet Too Big";
	if (!pmtu)
		add_finding(findings, "port %s: %" PRIu64 " %s frames from the path, which does not say its MTU (a "
			    "pre-RFC 1191 router): frames over a link's MTU are dropped on the way", node, frames, what);
	else if (!biggest)
		add_finding(findings, "port %s: %" PRIu64 " %s frames from the path (MTU %" PRIu32 "), though this "
			    "port's frames fit it", node, frames, what, pmtu);
	else if (fit)
		add_finding(findings, "port %s: %" PRIu64 " %s frames: path MTU %" PRIu32 " below the frames (%" PRIu32
			    " B): set mtu: %u (the largest RoCE MTU whose frames fit)", node, frames, what, pmtu, biggest,
			    fit);
	else
		add_finding(findings, "port %s: %" PRIu64 " %s frames: path MTU %" PRIu32 " below the frames (%" PRIu32
			    " B), and below even mtu: 256's: raise the path's MTU", node, frames, what, pmtu, biggest);
}

static uint32_t port_max_frame(const struct rp_session *s, unsigned i)
{
	uint32_t most = 0;
	for (size_t f = 0; f < s->plan.nflows; f++) {
		const struct rp_flow *pf = &s->plan.flows[f];
		uint32_t frame = rp_flow_max_frame(pf);
		if (pf->src == s->tx[i].index && frame > most)
			most = frame;
	}
	return most;
}

void rp_txpath_port_json(const struct rp_txpath *t, const struct rp_session *s, unsigned i, uint64_t replies,
			 json_t *o)
{
	const char *node = s->prof->hosts[s->tx[i].index].name;
	const char *driver = s->tx[i].port->driver;
	json_t *findings = json_array(), *unsent = json_object();
	uint64_t oerr = rp_txpath_oerrors(t), data = 0, neigh = 0, refused = 0, too_big = 0;
	uint32_t pmtu = 0;
	for (unsigned q = 0; q < nqueues(s); q++) {
		const struct rp_dp_txport *tp = &s->tx[q * s->nports + i];
		const struct rp_dp_neigh_stats *n = &tp->neigh;
		data += tp->tx_packets;
		refused += tp->tx_unsent;
		neigh += n->arp_requests_tx + n->arp_replies_tx + n->nd_solicits_tx + n->nd_adverts_tx;
		too_big += tp->rx_too_big;
		if (tp->too_big_mtu && (!pmtu || tp->too_big_mtu < pmtu))
			pmtu = tp->too_big_mtu;
		for (size_t k = 0; tp->src && k < rp_source_nflows(tp->src); k++) {
			uint64_t u = rp_txpath_flow_unsent(t, s, q * s->nports + i, k);
			struct rp_source_flow_stats st;
			rp_source_flow_stats(tp->src, k, &st);
			char id[16];
			snprintf(id, sizeof(id), "%" PRIu32, st.flow_id);
			if (u)
				json_object_set_new(unsent, id, json_integer((json_int_t)u));
		}
	}
	/* The PMD took them and counted them as errors: not sent. */
	data = data > oerr ? data - oerr : 0;
	json_object_set_new(o, "tx_packets", json_integer((json_int_t)data));
	json_object_set_new(o, "tx_unsent", json_integer((json_int_t)(refused + oerr)));
	json_object_set_new(o, "pmd_oerrors", json_integer((json_int_t)oerr));
	if (oerr)
		add_finding(findings, "port %s: %s counted %" PRIu64 " of the frames it took as errors (oerrors): never "
			    "sent, in tx_unsent; %s", node, driver, oerr,
			    port_flows(s, i) == 1 ? "its one flow's tx_packets leaves them out"
						  : "the PMD does not say whose: its flows count them sent (and lost)");
	if (t->netdev_read) {
		uint64_t sent = t->after.tx_packets - t->before.tx_packets;
		uint64_t dropped = t->after.tx_dropped - t->before.tx_dropped;
		uint64_t errors = t->after.tx_errors - t->before.tx_errors;
		uint64_t ours = data + replies + neigh;
		json_object_set_new(o, "netdev", json_pack("{s:s, s:I, s:I, s:I}", "name", t->netdev, "tx_packets",
							   (json_int_t)sent, "tx_dropped", (json_int_t)dropped,
							   "tx_errors", (json_int_t)errors));
		/* The kernel may send frames of its own there (IPv6 MLD, ...): more is no
		 * finding; fewer, or any it dropped or failed, is. */
		if (sent < ours || dropped || errors) {
			uint32_t most = port_max_frame(s, i);
			char hint[160] = "";
			if (most > RP_ETH_HLEN + 1500 && dropped)
				snprintf(hint, sizeof(hint), " (its frames are up to %" PRIu32 " B: a link on the way whose MTU "
					 "is below them, such as a veth's peer, drops them so)", most);
			add_finding(findings, "port %s: of the %" PRIu64 " frames it handed %s (%" PRIu64 " data, %" PRIu64
				    " replies, %" PRIu64 " ARP/ND), the kernel's netdev %s sent %" PRIu64 ", dropped %" PRIu64
				    " and failed %" PRIu64 ": %" PRIu64 " never left%s", node, ours, driver, data, replies,
				    neigh, t->netdev, sent, dropped, errors, sent < ours ? ours - sent : 0, hint);
		}
	} else {
		json_object_set_new(o, "netdev", json_null());
	}
	json_object_set_new(o, "icmp_too_big", json_pack("{s:I, s:I}", "frames", (json_int_t)too_big, "mtu",
							 (json_int_t)pmtu));
	if (too_big)
		too_big_finding(s, i, node, too_big, pmtu, findings);
	json_object_set_new(o, "flows_unsent", unsent);
	json_object_set_new(o, "findings", findings);
}

json_t *rp_txpath_findings(const json_t *ports_env)
{
	json_t *all = json_array(), *p;
	size_t i;
	json_array_foreach(ports_env, i, p)
		json_array_extend(all, json_object_get(p, "findings"));
	return all;
}

uint64_t *rp_txpath_unsent_by_flow(const json_t *ports_env, size_t nflows)
{
	uint64_t *by = calloc(nflows ? nflows : 1, sizeof(*by));
	json_t *p, *v;
	size_t i;
	const char *k;
	json_array_foreach(ports_env, i, p)
		json_object_foreach(json_object_get(p, "flows_unsent"), k, v) {
			unsigned long id = strtoul(k, NULL, 10);
			if (by && id < nflows)
				by[id] += (uint64_t)json_integer_value(v);
		}
	return by;
}
