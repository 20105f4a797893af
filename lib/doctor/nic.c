/* What the NIC is set to beyond the link: its DCB state (PFC-enabled
 * priorities, DSCP trust), RoCE on mlx5 (devlink enable_roce), the RDMA
 * device and its RoCE v2 GID, the PTP clock. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "doctor_internal.h"

void rp_doc_check_dcb(struct rp_doctor *d, const struct rp_doctor_sys *sys, const struct rp_plan *plan, unsigned h,
		      struct rp_doctor_port *p)
{
	const char *H = p->host;
	struct stat st;
	char path[PATH_MAX];
	if (!strcmp(p->kind, "verbs") || !p->port[0])
		return;
	if (!p->netdev[0] || stat(rp_doc_path(sys, path, sizeof(path), "/sys/class/net/%s", p->netdev), &st) != 0) {
		rp_doc_add(d, H, "dcb", RP_DOCTOR_INFO, "not offered: no netdev to hold a DCB state");
		return;
	}
	int rc = sys->dcb(p->netdev, &p->dcb_state);
	if (rc == -EOPNOTSUPP || rc == -EINVAL) {
		p->dcb = 0;
		rp_doc_add(d, H, "dcb", RP_DOCTOR_INFO, "not offered: %s's driver %s has no DCB (dcb pfc show dev %s says so too)",
			   p->netdev, p->drv.driver[0] ? p->drv.driver : "?", p->netdev);
		return;
	}
	if (rc != 0) {
		rp_doc_fix(rp_doc_add(d, H, "dcb", RP_DOCTOR_WARN, "%s: DCB not read (%s)", p->netdev, strerror(-rc)),
			   "dcb pfc show dev %s; dcb app show dev %s", p->netdev, p->netdev);
		return;
	}
	p->dcb = 1;
	/* The priorities and DSCPs of the RoCE flows through this port. */
	uint8_t prios = 0;
	bool dscp_used[64] = {false};
	uint8_t dscp_prio[64] = {0};
	for (size_t i = 0; i < plan->nflows; i++) {
		const struct rp_flow *f = &plan->flows[i];
		if (f->kind != RP_TRAFFIC_RDMA || (f->src != h && f->dst != h))
			continue;
		prios |= (uint8_t)(1u << rp_flow_params_prio(&f->p));
		if (!f->p.has_vlan) {
			dscp_used[f->p.dscp] = true;
			dscp_prio[f->p.dscp] = rp_flow_params_prio(&f->p);
		}
	}
	const struct rp_doctor_dcb *s = &p->dcb_state;
	char on[32] = "", missing[32] = "", fixp[64] = "", trust[160] = "", fixd[128] = "";
	for (unsigned q = 0; q < 8; q++) {
		if (s->pfc_en & (1u << q))
			snprintf(on + strlen(on), sizeof(on) - strlen(on), "%s%u", on[0] ? "," : "", q);
		if ((prios & (1u << q)) && !(s->pfc_en & (1u << q))) {
			snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing), "%s%u", missing[0] ? "," : "", q);
			snprintf(fixp + strlen(fixp), sizeof(fixp) - strlen(fixp), " %u:on", q);
		}
	}
	for (unsigned k = 0; k < 64; k++) {
		if (!dscp_used[k])
			continue;
		int mapped = -1;
		for (unsigned j = 0; j < s->ndscp; j++)
			if (s->dscp[j] == k)
				mapped = s->dscp_prio[j];
		if (mapped != dscp_prio[k])
			snprintf(fixd + strlen(fixd), sizeof(fixd) - strlen(fixd), " %u:%u", k, dscp_prio[k]);
	}
	snprintf(trust, sizeof(trust), "%s", s->ndscp ? "DSCP trusted (an APP table of DSCP entries)" : "no DSCP trust (no DSCP APP entries: PCP)");
	if (!missing[0] && !fixd[0]) {
		rp_doc_add(d, H, "dcb", RP_DOCTOR_PASS, "%s: PFC on priorities %s; %s", p->netdev, on[0] ? on : "none", trust);
		return;
	}
	struct rp_doctor_finding *f =
		rp_doc_add(d, H, "dcb", RP_DOCTOR_WARN, "%s: PFC on priorities %s%s%s; %s%s", p->netdev, on[0] ? on : "none",
			   missing[0] ? ", off on " : "", missing, trust,
			   fixd[0] ? ", and the profile's DSCPs do not map to their priorities" : "");
	char fix[RP_DOCTOR_TEXT] = "";
	if (missing[0])
		snprintf(fix, sizeof(fix), "dcb pfc set dev %s prio-pfc%s", p->netdev, fixp);
	if (fixd[0])
		snprintf(fix + strlen(fix), sizeof(fix) - strlen(fix), "%sdcb app add dev %s dscp-prio%s", fix[0] ? "; " : "",
			 p->netdev, fixd);
	rp_doc_fix(f, "%s", fix);
}

void rp_doc_check_roce(struct rp_doctor *d, const struct rp_doctor_sys *sys, const struct rp_host *h,
		       struct rp_doctor_port *p)
{
	const char *H = p->host;
	const char *drv = p->drv.driver[0] ? p->drv.driver : p->pci_driver;
	if (!p->port[0] && strcmp(p->kind, "verbs") != 0)
		return;
	if (strcmp(drv, "mlx5_core") != 0 || !p->pci[0]) {
		rp_doc_add(d, H, "roce", RP_DOCTOR_INFO, "not applicable: devlink enable_roce is mlx5's%s%s%s",
			   drv[0] ? " (driver " : "", drv, drv[0] ? ")" : "");
		return;
	}
	bool on = false;
	int rc = sys->devlink_roce(p->pci, &on);
	if (rc != 0) {
		rp_doc_fix(rp_doc_add(d, H, "roce", RP_DOCTOR_WARN, "pci/%s: enable_roce not read (%s)", p->pci, strerror(-rc)),
			   "devlink dev param show pci/%s name enable_roce", p->pci);
		return;
	}
	p->roce = on;
	bool verbs = h->engine.engine == RP_ENGINE_VERBS;
	if (verbs && !on)
		rp_doc_fix(rp_doc_add(d, H, "roce", RP_DOCTOR_FAIL, "pci/%s: RoCE off (enable_roce false): verbs has no RoCE QPs",
				      p->pci),
			   "devlink dev param set pci/%s name enable_roce value true cmode driverinit && devlink dev reload pci/%s",
			   p->pci, p->pci);
	else
		rp_doc_add(d, H, "roce", verbs ? RP_DOCTOR_PASS : RP_DOCTOR_INFO, "pci/%s: RoCE %s (devlink enable_roce)%s",
			   p->pci, on ? "on" : "off",
			   verbs ? "" : on ? ": the NIC's own RoCE stack answers its GIDs beside DPDK" : "");
}

/* Netdev ifname's RDMA device and its first RoCE v2 GID, from
 * /sys/class/infiniband/DEV/ports/N/gid_attrs/{ndevs,types}/I and gids/I. */
static bool find_gid(const struct rp_doctor_sys *sys, const char *ifname, const char *want_dev, char *dev, size_t devlen,
		     char *gid, size_t gidlen, unsigned *ndev)
{
	char path[PATH_MAX], line[128];
	DIR *top = opendir(rp_doc_path(sys, path, sizeof(path), "/sys/class/infiniband"));
	struct dirent *e, *pe, *ge;
	bool found = false;
	*ndev = 0;
	while (top && !found && (e = readdir(top)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		(*ndev)++;
		if (want_dev && want_dev[0] && strcmp(want_dev, e->d_name) != 0)
			continue;
		DIR *ports = opendir(rp_doc_path(sys, path, sizeof(path), "/sys/class/infiniband/%s/ports", e->d_name));
		while (ports && !found && (pe = readdir(ports)) != NULL) {
			if (pe->d_name[0] == '.')
				continue;
			DIR *gids = opendir(rp_doc_path(sys, path, sizeof(path), "/sys/class/infiniband/%s/ports/%s/gid_attrs/types",
							e->d_name, pe->d_name));
			while (gids && !found && (ge = readdir(gids)) != NULL) {
				if (ge->d_name[0] == '.')
					continue;
				char types[PATH_MAX], ndevs[PATH_MAX], g[PATH_MAX];
				rp_doc_path(sys, types, sizeof(types), "/sys/class/infiniband/%s/ports/%s/gid_attrs/types/%s",
					    e->d_name, pe->d_name, ge->d_name);
				rp_doc_path(sys, ndevs, sizeof(ndevs), "/sys/class/infiniband/%s/ports/%s/gid_attrs/ndevs/%s",
					    e->d_name, pe->d_name, ge->d_name);
				rp_doc_path(sys, g, sizeof(g), "/sys/class/infiniband/%s/ports/%s/gids/%s", e->d_name,
					    pe->d_name, ge->d_name);
				if (rp_doc_read_line(types, line, sizeof(line)) != 0 || strcasecmp(line, "RoCE v2") != 0)
					continue;
				if (ifname && (rp_doc_read_line(ndevs, line, sizeof(line)) != 0 || strcmp(line, ifname) != 0))
					continue;
				if (rp_doc_read_line(g, line, sizeof(line)) != 0 ||
				    !strcmp(line, "0000:0000:0000:0000:0000:0000:0000:0000"))
					continue;
				snprintf(dev, devlen, "%.63s", e->d_name);
				snprintf(gid, gidlen, "%.39s (port %.8s, index %.8s)", line, pe->d_name, ge->d_name);
				found = true;
			}
			if (gids)
				closedir(gids);
		}
		if (ports)
			closedir(ports);
	}
	if (top)
		closedir(top);
	return found;
}

void rp_doc_check_rdma(struct rp_doctor *d, const struct rp_doctor_sys *sys, const struct rp_host *h,
		       struct rp_doctor_port *p)
{
	const char *H = p->host;
	unsigned ndev = 0;
	bool verbs = h->engine.engine == RP_ENGINE_VERBS;
	if (!verbs && !p->netdev[0]) {
		if (p->port[0])
			rp_doc_add(d, H, "rdma", RP_DOCTOR_INFO, "no netdev: no RDMA device to look for");
		return;
	}
	if (find_gid(sys, verbs ? NULL : p->netdev, verbs ? h->engine.device : NULL, p->rdma_dev, sizeof(p->rdma_dev), p->gid,
		     sizeof(p->gid), &ndev)) {
		rp_doc_add(d, H, "rdma", verbs ? RP_DOCTOR_PASS : RP_DOCTOR_INFO, "RDMA device %s, RoCE v2 GID %s", p->rdma_dev,
			   p->gid);
		return;
	}
	if (verbs)
		rp_doc_fix(rp_doc_add(d, H, "rdma", RP_DOCTOR_FAIL, "no RDMA device%s%s with a RoCE v2 GID (%u RDMA devices here)",
				      h->engine.device[0] ? " " : "", h->engine.device, ndev),
			   "load the NIC's RDMA driver (modprobe mlx5_ib), or Soft-RoCE: rdma link add rxe0 type rxe netdev IFACE");
	else
		rp_doc_add(d, H, "rdma", RP_DOCTOR_INFO, "no RDMA device on %s%s (%u RDMA devices on this machine): DPDK needs none",
			   p->netdev, ndev ? " with a RoCE v2 GID" : "", ndev);
}

void rp_doc_check_ptp(struct rp_doctor *d, const struct rp_doctor_sys *sys, struct rp_doctor_port *p)
{
	const char *H = p->host;
	char path[PATH_MAX];
	struct stat st;
	if (!p->netdev[0] || stat(rp_doc_path(sys, path, sizeof(path), "/sys/class/net/%s", p->netdev), &st) != 0) {
		if (p->port[0])
			rp_doc_add(d, H, "ptp", RP_DOCTOR_INFO, "no netdev: no PTP clock to read");
		return;
	}
	DIR *dir = opendir(rp_doc_path(sys, path, sizeof(path), "/sys/class/net/%s/device/ptp", p->netdev));
	struct dirent *e;
	while (dir && (e = readdir(dir)) != NULL)
		if (!strncmp(e->d_name, "ptp", 3) && p->phc_index < 0)
			p->phc_index = atoi(e->d_name + 3);
	if (dir)
		closedir(dir);
	int idx;
	if (p->phc_index < 0 && sys->phc_index(p->netdev, &idx) == 0 && idx >= 0)
		p->phc_index = idx;
	if (p->phc_index < 0) {
		rp_doc_add(d, H, "ptp", RP_DOCTOR_INFO, "%s has no PTP hardware clock (ethtool -T %s): across machines "
			   "latency rests on the system clocks' sync", p->netdev, p->netdev);
		return;
	}
	if (d->ptp4l && d->phc2sys)
		rp_doc_add(d, H, "ptp", RP_DOCTOR_PASS, "%s: PTP clock /dev/ptp%d; ptp4l and phc2sys run", p->netdev,
			   p->phc_index);
	else
		rp_doc_fix(rp_doc_add(d, H, "ptp", RP_DOCTOR_WARN, "%s: PTP clock /dev/ptp%d, but %s%s%s not running", p->netdev,
				      p->phc_index, d->ptp4l ? "" : "ptp4l", !d->ptp4l && !d->phc2sys ? " and " : "",
				      d->phc2sys ? "" : "phc2sys"),
			   "ptp4l -i %s -m & phc2sys -s %s -c CLOCK_REALTIME -w -m &", p->netdev, p->netdev);
}
