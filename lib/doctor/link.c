/* The profile against the link: its frames against the netdev's MTU, its
 * offered load against the speed. */
#include <stdio.h>
#include <string.h>

#include "doctor_internal.h"
#include "profile/units.h"
#include "wire/eth.h"

/* Whether host h sends flow f, or receives it (a RoCE flow's frames reach
 * its destination's port). */
static bool touches(const struct rp_flow *f, unsigned h)
{
	return f->src == h || (f->kind == RP_TRAFFIC_RDMA && f->dst == h);
}

void rp_doc_check_mtu(struct rp_doctor *d, const struct rp_plan *plan, unsigned h, struct rp_doctor_port *p)
{
	const char *H = p->host;
	const struct rp_flow *most = NULL;
	uint32_t l3 = 0; /* the longest frame's IP packet: what a netdev's MTU counts */
	for (size_t i = 0; i < plan->nflows; i++) {
		const struct rp_flow *f = &plan->flows[i];
		if (!touches(f, h))
			continue;
		uint32_t frame = rp_flow_max_frame(f), l2 = RP_ETH_HLEN + (f->p.has_vlan ? RP_VLAN_HLEN : 0);
		if (frame > p->max_frame)
			p->max_frame = frame;
		if (frame > l2 && frame - l2 > l3) {
			l3 = frame - l2;
			most = f;
		}
	}
	if (!strcmp(p->kind, "verbs") || !p->port[0])
		return;
	if (!most) {
		rp_doc_add(d, H, "mtu", RP_DOCTOR_INFO, "the profile sends no frames through this port");
		return;
	}
	uint32_t frame = rp_flow_max_frame(most);
	if (p->mtu < 0) {
		if (!strcmp(p->kind, "pci"))
			rp_doc_add(d, H, "mtu", RP_DOCTOR_INFO, "frames of %u B: DPDK sets the NIC's MTU from the profile at start",
				   frame);
		else
			rp_doc_add(d, H, "mtu", RP_DOCTOR_INFO, "frames of %u B; no netdev, no MTU on the way", frame);
		return;
	}
	if ((uint64_t)p->mtu >= l3) {
		rp_doc_add(d, H, "mtu", RP_DOCTOR_PASS, "%s: MTU %lld carries the profile's frames of %u B (IP %u B)", p->netdev,
			   (long long)p->mtu, frame, l3);
		return;
	}
	/* The largest RoCE MTU (of the flow's) whose frames fit, as run says. */
	unsigned fit = 0, rmtu = most->kind == RP_TRAFFIC_RDMA ? most->p.mtu : 0;
	for (unsigned m = 4096; rmtu && m >= 256 && !fit; m /= 2)
		if (m < rmtu && l3 - rmtu + m <= (uint64_t)p->mtu)
			fit = m;
	struct rp_doctor_finding *f =
		rp_doc_add(d, H, "mtu", RP_DOCTOR_FAIL,
			   "%s: MTU %lld is below the profile's frames of %u B (IP packets of %u B%s%.0u): they would be dropped",
			   p->netdev, (long long)p->mtu, frame, l3, rmtu ? ", mtu " : "", rmtu);
	if (fit)
		rp_doc_fix(f, "ip link set dev %s mtu %u (and every hop after it), or set mtu: %u in the profile", p->netdev,
			   l3, fit);
	else
		rp_doc_fix(f, "ip link set dev %s mtu %u (and every hop after it)", p->netdev, l3);
}

void rp_doc_check_rate(struct rp_doctor *d, const struct rp_plan *plan, unsigned h, struct rp_doctor_port *p)
{
	const char *H = p->host;
	char tx[32], rx[32], sp[32];
	if (!strcmp(p->kind, "verbs") || !p->port[0] || !plan->load)
		return;
	p->tx_bps = plan->load[h].tx_bps;
	p->rx_bps = plan->load[h].rx_bps;
	uint64_t speed = p->speed_bps ? p->speed_bps : p->profile_bps;
	rp_format_bps((uint64_t)p->tx_bps, tx, sizeof(tx));
	rp_format_bps((uint64_t)p->rx_bps, rx, sizeof(rx));
	rp_format_bps(speed, sp, sizeof(sp));
	double txs = speed ? p->tx_bps / (double)speed : 0, rxs = speed ? p->rx_bps / (double)speed : 0;
	/* 1e-6 over: a share of the link computed through ppm rounds up */
	if (speed && p->tx_bps > (double)speed * (1 + 1e-6))
		rp_doc_fix(rp_doc_add(d, H, "rate", RP_DOCTOR_WARN,
				      "the profile offers %s TX (layer 1) on a %s link (%.0f%%): its flows fall behind their rates",
				      tx, sp, 100 * txs),
			   "lower the rate: of this host's traffic entries (or give rates as a share of the link, 25%%)");
	else
		rp_doc_add(d, H, "rate", RP_DOCTOR_PASS, "the profile offers %s TX (%.0f%% of %s), %s RX (%.0f%%%s)", tx,
			   100 * txs, sp, rx, 100 * rxs, rxs > 1 + 1e-6 ? ": oversubscribed, as an incast is by design" : "");
}
