/* A host's port: what it is (PCI NIC, kernel interface, in-process), its
 * netdev, driver and firmware, PCI address and NUMA node, how DPDK reaches
 * it (vfio, a bifurcated mlx5, af_xdp), and its speed: the port's and the
 * kernel's, and the one roceprobe takes as true (speed.c). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>

#include "doctor_internal.h"
#include "profile/units.h"

static bool starts(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

/* "0000:3b:00.0" */
static bool is_pci_addr(const char *s)
{
	unsigned a, b, c, f;
	char tail;
	return sscanf(s, "%4x:%2x:%2x.%1x%c", &a, &b, &c, &f, &tail) == 4 && strlen(s) == 12;
}

/* iface= of the devargs (net_af_packet, net_af_xdp, net_tap). */
static void devarg_iface(const char *port, char *out, size_t len)
{
	const char *p = strstr(port, ",iface=");
	out[0] = '\0';
	if (p) {
		p += 7;
		size_t n = strcspn(p, ",");
		if (n < len)
			snprintf(out, len, "%.*s", (int)n, p);
	}
}

/* The PCI device a netdev sits on: the last PCI address in the real path of
 * /sys/class/net/IF/device (a virtio netdev's is its virtio device's parent). */
static void netdev_pci(const struct rp_doctor_sys *sys, const char *ifname, char *out, size_t len)
{
	char path[PATH_MAX], real[PATH_MAX];
	out[0] = '\0';
	if (!realpath(rp_doc_path(sys, path, sizeof(path), "/sys/class/net/%s/device", ifname), real))
		return;
	for (char *tok = strtok(real, "/"); tok; tok = strtok(NULL, "/"))
		if (is_pci_addr(tok))
			snprintf(out, len, "%s", tok);
}

static void pci_facts(const struct rp_doctor_sys *sys, struct rp_doctor_port *p)
{
	char path[PATH_MAX];
	int64_t numa;
	if (rp_doc_read_i64(rp_doc_path(sys, path, sizeof(path), "/sys/bus/pci/devices/%s/numa_node", p->pci), &numa) == 0)
		p->numa_node = (int)numa;
	rp_doc_link_base(rp_doc_path(sys, path, sizeof(path), "/sys/bus/pci/devices/%s/driver", p->pci), p->pci_driver,
			 sizeof(p->pci_driver));
}

void rp_doc_port_facts(const struct rp_doctor_sys *sys, const struct rp_host *h, struct rp_doctor_port *p)
{
	char path[PATH_MAX];
	memset(p, 0, sizeof(*p));
	snprintf(p->host, sizeof(p->host), "%s", h->name);
	snprintf(p->port, sizeof(p->port), "%s", h->port);
	p->numa_node = -1;
	p->ethtool_mbps = p->sysfs_mbps = p->mtu = -1;
	p->dcb = -1;
	p->roce = -1;
	p->phc_index = -1;
	p->profile_bps = p->speed_bps = h->speed_bps;
	p->is_virtual = true;
	const char *port = h->port;
	if (h->engine.engine == RP_ENGINE_VERBS)
		p->kind = "verbs";
	else if (h->port_is_pci)
		p->kind = "pci";
	else if (starts(port, "pair:"))
		p->kind = "pair";
	else if (starts(port, "net_af_packet") || starts(port, "eth_af_packet"))
		p->kind = "af_packet";
	else if (starts(port, "net_af_xdp"))
		p->kind = "af_xdp";
	else if (starts(port, "net_tap"))
		p->kind = "tap";
	else if (starts(port, "net_null"))
		p->kind = "null";
	else if (starts(port, "net_ring"))
		p->kind = "ring";
	else if (starts(port, "net_pcap"))
		p->kind = "pcap";
	else
		p->kind = "other";

	if (h->port_is_pci) {
		/* sysfs names PCI devices with their domain: 03:00.0 is 0000:03:00.0 */
		snprintf(p->pci, sizeof(p->pci), "%s%.*s", strlen(port) <= 7 ? "0000:" : "", (int)strcspn(port, ","), port);
		p->is_virtual = false;
		pci_facts(sys, p);
		/* a NIC its kernel driver still holds (a bifurcated mlx5) has a netdev */
		char dir[PATH_MAX];
		rp_doc_path(sys, dir, sizeof(dir), "/sys/bus/pci/devices/%s/net", p->pci);
		DIR *d = dir[0] ? opendir(dir) : NULL;
		struct dirent *e;
		while (d && (e = readdir(d)) != NULL)
			if (e->d_name[0] != '.' && !p->netdev[0])
				snprintf(p->netdev, sizeof(p->netdev), "%.31s", e->d_name);
		if (d)
			closedir(d);
	} else if (!strcmp(p->kind, "af_packet") || !strcmp(p->kind, "af_xdp") || !strcmp(p->kind, "tap")) {
		devarg_iface(port, p->netdev, sizeof(p->netdev));
	}
	if (p->netdev[0]) {
		struct stat st;
		if (stat(rp_doc_path(sys, path, sizeof(path), "/sys/class/net/%s", p->netdev), &st) != 0)
			return; /* named but absent: rp_doc_check_port says so */
		if (!p->pci[0]) {
			netdev_pci(sys, p->netdev, p->pci, sizeof(p->pci));
			if (p->pci[0])
				pci_facts(sys, p);
		}
		if (sys->drvinfo(p->netdev, &p->drv) != 0)
			memset(&p->drv, 0, sizeof(p->drv));
		uint32_t mbps;
		if (sys->link_mbps(p->netdev, &mbps) == 0 && mbps)
			p->ethtool_mbps = mbps;
		int64_t v;
		if (rp_doc_read_i64(rp_doc_path(sys, path, sizeof(path), "/sys/class/net/%s/speed", p->netdev), &v) == 0 &&
		    v > 0)
			p->sysfs_mbps = v;
		if (rp_doc_read_i64(rp_doc_path(sys, path, sizeof(path), "/sys/class/net/%s/mtu", p->netdev), &v) == 0)
			p->mtu = v;
		/* A kernel interface over a PCI NIC (af_xdp on a bifurcated mlx5,
		 * ice): its link is real. veth, tap and virtio make theirs up. */
		if (p->pci[0] && strcmp(p->drv.driver, "virtio_net") != 0)
			p->is_virtual = false;
	}
}

static bool netdev_exists(const struct rp_doctor_sys *sys, const char *ifname)
{
	char path[PATH_MAX];
	struct stat st;
	return ifname[0] && stat(rp_doc_path(sys, path, sizeof(path), "/sys/class/net/%s", ifname), &st) == 0;
}

static void check_binding(struct rp_doctor *d, const struct rp_doctor_sys *sys, struct rp_doctor_port *p)
{
	const char *H = p->host;
	if (!strcmp(p->kind, "pci")) {
		const char *drv = p->pci_driver;
		if (!drv[0])
			rp_doc_fix(rp_doc_add(d, H, "binding", RP_DOCTOR_FAIL, "%s has no driver: DPDK cannot open it", p->pci),
				   "dpdk-devbind.py -b vfio-pci %s", p->pci);
		else if (!strcmp(drv, "vfio-pci") || !strcmp(drv, "uio_pci_generic") || !strcmp(drv, "igb_uio"))
			rp_doc_add(d, H, "binding", RP_DOCTOR_PASS, "%s bound to %s for DPDK", p->pci, drv);
		else if (!strcmp(drv, "mlx5_core"))
			rp_doc_add(d, H, "binding", RP_DOCTOR_PASS,
				   "%s: bifurcated mlx5, the mlx5 PMD runs beside mlx5_core (netdev %s stays; no unbinding)",
				   p->pci, p->netdev[0] ? p->netdev : "none");
		else
			rp_doc_fix(rp_doc_add(d, H, "binding", RP_DOCTOR_FAIL,
					      "%s is held by its kernel driver %s: DPDK's PCI PMD cannot open it", p->pci, drv),
				   "dpdk-devbind.py -b vfio-pci %s (or, keeping %s, port: net_af_xdp0,iface=%s)", p->pci, drv,
				   p->netdev[0] ? p->netdev : "IFACE");
		return;
	}
	(void)sys;
	if (!strcmp(p->kind, "af_xdp") && p->pci[0] && !p->is_virtual)
		rp_doc_add(d, H, "binding", RP_DOCTOR_PASS, "af_xdp on %s's kernel driver %s (PCI %s; no unbinding)",
			   p->netdev, p->drv.driver, p->pci);
}

/* The port's speed and the kernel's, then the honest speed. */
static void check_speed(struct rp_doctor *d, struct rp_doctor_port *p, bool have_netdev)
{
	const char *H = p->host;
	char what[RP_DOCTOR_TEXT], fix[RP_DOCTOR_TEXT];
	uint64_t link = 0;
	if (have_netdev) {
		char e[32] = "unknown", s[32] = "unknown";
		if (p->ethtool_mbps > 0)
			snprintf(e, sizeof(e), "%lld Mb/s", (long long)p->ethtool_mbps);
		if (p->sysfs_mbps > 0)
			snprintf(s, sizeof(s), "%lld Mb/s", (long long)p->sysfs_mbps);
		if (p->ethtool_mbps > 0 && p->sysfs_mbps > 0 && p->ethtool_mbps != p->sysfs_mbps)
			rp_doc_fix(rp_doc_add(d, H, "link", RP_DOCTOR_WARN,
					      "%s: the port says %s (ethtool), the kernel %s (/sys/class/net/%s/speed): they disagree",
					      p->netdev, e, s, p->netdev),
				   "ethtool %s; check autonegotiation (ethtool -s %s autoneg on)", p->netdev, p->netdev);
		else
			rp_doc_add(d, H, "link", RP_DOCTOR_INFO, "%s: the port says %s (ethtool), the kernel %s (sysfs)%s",
				   p->netdev, e, s,
				   p->ethtool_mbps > 0 && p->sysfs_mbps > 0 ? ": they agree"
				   : p->sysfs_mbps < 0 && p->ethtool_mbps > 0 ? ": sysfs has none while the link is down"
									      : "");
		link = (uint64_t)(p->ethtool_mbps > 0 ? p->ethtool_mbps : p->sysfs_mbps > 0 ? p->sysfs_mbps : 0) * 1000000u;
	} else if (!strcmp(p->kind, "pci")) {
		rp_doc_add(d, H, "speed", RP_DOCTOR_INFO,
			   "%s has no netdev: its link speed is DPDK's to read when run/gen start (they check it there)", p->pci);
		return;
	}
	enum rp_doctor_status st = rp_doctor_speed_check(H, p->profile_bps, p->is_virtual, link, &p->speed_bps, what, fix);
	struct rp_doctor_finding *f = rp_doc_add(d, H, "speed", st, "%s", what);
	if (fix[0])
		rp_doc_fix(f, "%s", fix);
}

void rp_doc_check_port(struct rp_doctor *d, const struct rp_doctor_sys *sys, const struct rp_host *h,
		       struct rp_doctor_port *p)
{
	const char *H = p->host, *kind = p->kind;
	char path[PATH_MAX];
	struct stat st;
	if (!strcmp(kind, "verbs")) {
		rp_doc_add(d, H, "port", RP_DOCTOR_INFO, "engine verbs on RDMA device %s: no DPDK port",
			   h->engine.device[0] ? h->engine.device : "(the first)");
		return;
	}
	if (!h->port[0]) {
		rp_doc_add(d, H, "port", RP_DOCTOR_INFO, "no port: this host sends nothing of its own");
		return;
	}
	if (!strcmp(kind, "pci")) {
		if (stat(rp_doc_path(sys, path, sizeof(path), "/sys/bus/pci/devices/%s", p->pci), &st) != 0) {
			rp_doc_fix(rp_doc_add(d, H, "port", RP_DOCTOR_FAIL, "PCI NIC %s: no such device on this machine", p->pci),
				   "lspci -D -d ::0200 lists the Ethernet NICs; set the host's pci: to one of them");
			return;
		}
		rp_doc_add(d, H, "port", RP_DOCTOR_INFO, "PCI NIC %s%s%s", p->pci, p->netdev[0] ? ", netdev " : "", p->netdev);
	} else if (p->netdev[0] || !strcmp(kind, "af_packet") || !strcmp(kind, "af_xdp") || !strcmp(kind, "tap")) {
		if (!netdev_exists(sys, p->netdev)) {
			if (!strcmp(kind, "tap"))
				rp_doc_add(d, H, "port", RP_DOCTOR_INFO, "%s: net_tap makes interface %s when it starts", h->port,
					   p->netdev[0] ? p->netdev : "dtapN");
			else if (!p->netdev[0])
				rp_doc_fix(rp_doc_add(d, H, "port", RP_DOCTOR_FAIL, "%s names no interface", h->port),
					   "add iface=NAME to the port's devargs");
			else
				rp_doc_fix(rp_doc_add(d, H, "port", RP_DOCTOR_FAIL, "%s: no interface %s on this machine", h->port,
						      p->netdev),
					   "ip link add %s type veth peer name %s-peer (or name an interface that ip link lists)",
					   p->netdev, p->netdev);
			return;
		}
		rp_doc_add(d, H, "port", RP_DOCTOR_INFO, "%s: %s on netdev %s%s%s", h->port, kind, p->netdev,
			   p->pci[0] ? ", PCI " : "", p->pci);
	} else {
		rp_doc_add(d, H, "port", RP_DOCTOR_INFO, "%s: in-process %s port, no device and no netdev", h->port, kind);
		check_speed(d, p, false);
		return;
	}
	bool have_netdev = p->netdev[0] && netdev_exists(sys, p->netdev);
	if (have_netdev && p->drv.driver[0])
		rp_doc_add(d, H, "driver", RP_DOCTOR_INFO, "%s: driver %s %s, firmware %s%s%s", p->netdev, p->drv.driver,
			   p->drv.version, p->drv.fw_version[0] ? p->drv.fw_version : "none",
			   p->drv.bus_info[0] ? ", bus " : "", p->drv.bus_info);
	else if (p->pci_driver[0])
		rp_doc_add(d, H, "driver", RP_DOCTOR_INFO, "%s: kernel driver %s (no netdev: no firmware to read without DPDK)",
			   p->pci, p->pci_driver);
	if (p->pci[0])
		rp_doc_add(d, H, "pci", RP_DOCTOR_INFO, "PCI %s on NUMA node %d%s", p->pci, p->numa_node,
			   p->numa_node < 0 ? " (the machine has one, or the BIOS does not say)" : "");
	check_binding(d, sys, p);
	check_speed(d, p, have_netdev);
}
