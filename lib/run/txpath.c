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

static int read_netdev(const struct rp_txpath *t, struct rp_dp_netdev_tx *out)
{
	return t->tap ? rp_dp_netdev_rx_read(t->netdev, out) : rp_dp_netdev_tx_read(t->netdev, out);
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
		t->tap = true;
		if (!rp_dp_devarg_next(h->port, "iface", &at, t->netdev, sizeof(t->netdev)))
			t->netdev[0] = '\0';
	} else if (rp_dp_port_netdev(h->port, h->port_is_pci, t->netdev, sizeof(t->netdev), err, sizeof(err)) != 0) {
		t->netdev[0] = '\0';
	}
	t->netdev_read = t->netdev[0] && read_netdev(t, &t->before) == 0;
	rp_dp_port_read_drops(tp->port, &d);
	t->oerrors_before = t->oerrors_after = d.oerrors;
}

void rp_txpath_end(struct rp_txpath *t, const struct rp_session *s, unsigned i)
{
	struct rp_dp_port_drops d;
	if (t->netdev_read)
		t->netdev_read = read_netdev(t, &t->after) == 0;
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

/* One more line in the port's findings; an out-of-memory one is left out. */
static void add_finding(struct rp_env_port *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_finding(struct rp_env_port *p, const char *fmt, ...)
{
	char buf[FINDING_LEN];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	char **more = realloc(p->findings, (p->nfindings + 1) * sizeof(*more));
	if (!more)
		return;
	p->findings = more;
	if ((more[p->nfindings] = strdup(buf)) != NULL)
		p->nfindings++;
}

/* flows_unsent: a flow seen again (another queue) has its count replaced. */
static void add_unsent(struct rp_env_port *p, uint32_t flow, uint64_t frames)
{
	for (uint32_t k = 0; k < p->nunsent; k++)
		if (p->unsent[k].flow == flow) {
			p->unsent[k].frames = frames;
			return;
		}
	struct rp_env_unsent *more = realloc(p->unsent, (p->nunsent + 1) * sizeof(*more));
	if (!more)
		return;
	p->unsent = more;
	more[p->nunsent++] = (struct rp_env_unsent){flow, frames};
}

/* The path-MTU finding: the port's flows whose packets a path of pmtu IP
 * bytes does not take, their largest frame, and the largest RoCE MTU that
 * fits all of them. */
static void too_big_finding(const struct rp_session *s, unsigned i, const char *node, uint64_t frames, uint32_t pmtu,
			    struct rp_env_port *findings)
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

void rp_txpath_port_facts(const struct rp_txpath *t, const struct rp_session *s, unsigned i, uint64_t replies,
			  struct rp_env_port *p)
{
	const char *node = s->prof->hosts[s->tx[i].index].name;
	const char *driver = s->tx[i].port->driver;
	struct rp_env_port *findings = p;
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
			if (u)
				add_unsent(p, st.flow_id, u);
		}
	}
	/* The PMD took them and counted them as errors: not sent. */
	data = data > oerr ? data - oerr : 0;
	p->tx_packets = data;
	p->tx_unsent = refused + oerr;
	p->pmd_oerrors = oerr;
	if (oerr)
		add_finding(findings, "port %s: %s counted %" PRIu64 " of the frames it took as errors (oerrors): never "
			    "sent, in tx_unsent; %s", node, driver, oerr,
			    port_flows(s, i) == 1 ? "its one flow's tx_packets leaves them out"
						  : "the PMD does not say whose: its flows count them sent (and lost)");
	p->has_netdev = t->netdev_read;
	if (t->netdev_read) {
		uint64_t sent = t->after.tx_packets - t->before.tx_packets;
		uint64_t dropped = t->after.tx_dropped - t->before.tx_dropped;
		uint64_t errors = t->after.tx_errors - t->before.tx_errors;
		uint64_t ours = data + replies + neigh;
		p->netdev = strdup(t->netdev);
		p->netdev_tx_packets = sent;
		p->netdev_tx_dropped = dropped;
		p->netdev_tx_errors = errors;
		/* The kernel may send frames of its own there (IPv6 MLD, ...): more is no
		 * finding; fewer, or any it dropped or failed, is. */
		if (sent < ours || dropped || errors) {
			uint32_t most = port_max_frame(s, i);
			char hint[160] = "";
			if (most > RP_ETH_HLEN + 1500 && dropped)
				snprintf(hint, sizeof(hint), " (its frames are up to %" PRIu32 " B: a link on the way whose MTU "
					 "is below them, such as a veth's peer, drops them so)", most);
			add_finding(findings, "port %s: of the %" PRIu64 " frames it handed %s (%" PRIu64 " data, %" PRIu64
				    " replies, %" PRIu64 " ARP/ND), the kernel's netdev %s %s %" PRIu64 ", dropped %" PRIu64
				    " and failed %" PRIu64 ": %" PRIu64 " never left%s", node, ours, driver, data, replies,
				    neigh, t->netdev, t->tap ? "received" : "sent", sent, dropped, errors,
				    sent < ours ? ours - sent : 0, hint);
		}
	}
	p->too_big_frames = too_big;
	p->too_big_mtu = pmtu;
	if (too_big)
		too_big_finding(s, i, node, too_big, pmtu, findings);
}
