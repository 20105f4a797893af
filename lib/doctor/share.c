/* Two checks of issue 32 (docs/hardware.md):
 *
 * "share": what `run --share` does on this port (lib/dp/flow.c, dp.h enum
 * rp_dp_share) and what it leaves the kernel. A bifurcated mlx5 is shared by
 * default: DPDK isolated mode, only UDP 4791 to the host's address and
 * PFC/PAUSE come to roceprobe. When the kernel's own RDMA device has a RoCE
 * v2 GID on that very address, its RoCE to it comes to roceprobe too while
 * the run lasts: WARN, with an address of the run's own as the fix.
 *
 * "mlx5": the devargs that decide small-frame rate on mlx5 (DPDK's mlx5
 * guide, "Runtime Configuration"): TX data is inlined into the WQE only with
 * txqs_min_inline TX queues or more (default 8), and Multi-Packet RQ
 * (mprq_en, "MPRQ can improve throughput for small-packet traffic") is used
 * only with rxqs_min_mprq RX queues or more (default 12); CQE compression
 * (rxq_cqe_comp_en, on by default) saves PCIe bandwidth. roceprobe runs 1 to
 * 16 queues a port, so with small frames at a high rate neither is on unless
 * the devargs say so. Proposed where the profile's frames need them; not
 * measured on a NIC here (no ConnectX on this machine). */
#include <stdio.h>
#include <string.h>

#include "doctor_internal.h"

/* Small frames at a packet rate where the PCIe link, not the wire, is what
 * the mlx5 guide's options save (TRex #678: half the rate at 512 B). */
#define SMALL_FRAME 1024u
#define HIGH_PPS 10e6

static bool devarg_set(const char *port, const char *key)
{
	char pat[48];
	snprintf(pat, sizeof(pat), ",%s=", key);
	return strstr(port, pat) != NULL;
}

static bool is_mlx5(const struct rp_doctor_port *p)
{
	return !strcmp(p->kind, "pci") && (!strcmp(p->pci_driver, "mlx5_core") || strstr(p->drv.driver, "mlx5"));
}

static void check_share(struct rp_doctor *d, const struct rp_host *h, const struct rp_doctor_port *p)
{
	const char *H = p->host;
	if (is_mlx5(p)) {
		char ip[16] = "";
		if (h->has_ipv4)
			snprintf(ip, sizeof(ip), "%u.%u.%u.%u", h->ipv4 >> 24, (h->ipv4 >> 16) & 255, (h->ipv4 >> 8) & 255,
				 h->ipv4 & 255);
		/* The GID's last 4 bytes are the IPv4 address (::ffff:a.b.c.d). */
		char mapped[32] = "";
		if (h->has_ipv4)
			snprintf(mapped, sizeof(mapped), "ffff:%02x%02x:%02x%02x", h->ipv4 >> 24, (h->ipv4 >> 16) & 255,
				 (h->ipv4 >> 8) & 255, h->ipv4 & 255);
		if (p->rdma_dev[0] && mapped[0] && strstr(p->gid, mapped))
			rp_doc_fix(rp_doc_add(d, H, "share", RP_DOCTOR_WARN,
					      "%s is shared with the kernel (bifurcated mlx5; --exclusive takes it whole), but the "
					      "kernel's %s has a RoCE v2 GID on %s, the host's address: while the run lasts its "
					      "RoCE to %s comes to roceprobe", p->pci, p->rdma_dev, ip, ip),
				   "ip addr add ADDR/PREFIX dev %s, and give the host that address (ipv4: ADDR)",
				   p->netdev[0] ? p->netdev : "NETDEV");
		else
			rp_doc_add(d, H, "share", RP_DOCTOR_INFO,
				   "%s is shared with the kernel (bifurcated mlx5, DPDK isolated mode): RoCEv2 to %s and "
				   "PFC/PAUSE come to roceprobe, ssh, ARP, MPI and the kernel's RDMA stay with %s "
				   "(--exclusive takes it whole)", p->pci, ip[0] ? ip : "its address",
				   p->netdev[0] ? p->netdev : "the kernel");
	} else if (!strcmp(p->kind, "pci")) {
		rp_doc_add(d, H, "share", RP_DOCTOR_INFO,
			   "%s is taken whole (%s: no kernel netdev beside DPDK; --share asks the PMD for isolated mode, "
			   "which sends what no rule takes nowhere)", p->pci, p->pci_driver[0] ? p->pci_driver : "no driver");
	} else if (!strcmp(p->kind, "af_xdp")) {
		rp_doc_add(d, H, "share", RP_DOCTOR_INFO,
			   "%s: --share loads roceprobe's XDP program on %s: RoCEv2 to the host and PFC/PAUSE to the "
			   "socket, everything else to the kernel (default: every frame to the socket)", h->port, p->netdev);
	} else if (!strcmp(p->kind, "tap")) {
		rp_doc_add(d, H, "share", RP_DOCTOR_INFO,
			   "%s: --share puts net_tap in isolated mode: its rules are tc flower filters (the kernel needs "
			   "cls_flower); with remote=IFACE what no rule takes stays with IFACE's kernel stack", h->port);
	}
}

static void check_mlx5(struct rp_doctor *d, const struct rp_host *h, const struct rp_doctor_port *p, unsigned queues)
{
	if (!is_mlx5(p) || !p->max_frame)
		return;
	const char *H = p->host;
	double bps = p->tx_bps > p->rx_bps ? p->tx_bps : p->rx_bps;
	double pps = bps / (8.0 * (double)(p->max_frame + 24)); /* at least: every frame as long as the longest */
	if (devarg_set(h->port, "rxq_cqe_comp_en") && strstr(h->port, "rxq_cqe_comp_en=0"))
		rp_doc_fix(rp_doc_add(d, H, "mlx5", RP_DOCTOR_WARN,
				      "%s: rxq_cqe_comp_en=0 turns CQE compression off (on by default: it saves PCIe "
				      "bandwidth)", p->pci),
			   "drop rxq_cqe_comp_en=0 from the host's port");
	if (p->max_frame > SMALL_FRAME || pps < HIGH_PPS) {
		rp_doc_add(d, H, "mlx5", RP_DOCTOR_INFO,
			   "%s: frames up to %llu B at %.1f Mpps at most: the mlx5 defaults suffice (no inline or MPRQ "
			   "devargs needed)", p->pci, (unsigned long long)p->max_frame, pps / 1e6);
		return;
	}
	bool inl = devarg_set(h->port, "txqs_min_inline"), mprq = devarg_set(h->port, "mprq_en");
	if (inl && mprq)
		return;
	char want[160];
	snprintf(want, sizeof(want), "%s%s%s", p->pci, inl ? "" : ",txqs_min_inline=1",
		 mprq ? "" : ",mprq_en=1,rxqs_min_mprq=1");
	rp_doc_fix(rp_doc_add(d, H, "mlx5", RP_DOCTOR_WARN,
			      "%s: frames up to %llu B at %.1f Mpps or more on %u queue%s: mlx5 inlines TX data only with "
			      "txqs_min_inline queues (default 8) and uses Multi-Packet RQ only with mprq_en and "
			      "rxqs_min_mprq queues (default 12): the PCIe link may cap the rate below the wire's",
			      p->pci, (unsigned long long)p->max_frame, pps / 1e6, queues, queues == 1 ? "" : "s"),
		   "port: \"%s\" (DPDK mlx5 guide; measure with and without: inlining costs CPU where PCIe is not the "
		   "limit)", want);
}

void rp_doc_check_share(struct rp_doctor *d, const struct rp_host *h, struct rp_doctor_port *p, unsigned queues)
{
	if (!h->port[0] || !strcmp(p->kind, "verbs"))
		return;
	check_share(d, h, p);
	check_mlx5(d, h, p, queues ? queues : 1);
}
