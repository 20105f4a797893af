/* The machine's own state: hugepages, the IOMMU, the PTP daemons. */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "doctor_internal.h"

void rp_doc_scan_daemons(struct rp_doctor *d, const struct rp_doctor_sys *sys)
{
	char path[PATH_MAX], comm[64];
	DIR *proc = opendir(rp_doc_path(sys, path, sizeof(path), "/proc"));
	struct dirent *e;
	while (proc && (e = readdir(proc)) != NULL) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		if (rp_doc_read_line(rp_doc_path(sys, path, sizeof(path), "/proc/%s/comm", e->d_name), comm, sizeof(comm)) != 0)
			continue;
		d->ptp4l |= strcmp(comm, "ptp4l") == 0;
		d->phc2sys |= strcmp(comm, "phc2sys") == 0;
	}
	if (proc)
		closedir(proc);
}

/* Pages of every size (/sys/kernel/mm/hugepages/hugepages-SIZE/nr_hugepages)
 * and whether hugetlbfs is mounted (/proc/mounts): what DPDK's EAL needs
 * without --no-huge. */
static void check_hugepages(struct rp_doctor *d, const struct rp_doctor_sys *sys, bool any_pci)
{
	char path[PATH_MAX], line[512], sizes[128] = "", mnt[256] = "";
	DIR *dir = opendir(rp_doc_path(sys, path, sizeof(path), "/sys/kernel/mm/hugepages"));
	struct dirent *e;
	while (dir && (e = readdir(dir)) != NULL) {
		int64_t n;
		if (strncmp(e->d_name, "hugepages-", 10) != 0 ||
		    rp_doc_read_i64(rp_doc_path(sys, path, sizeof(path), "/sys/kernel/mm/hugepages/%s/nr_hugepages", e->d_name),
				    &n) != 0 || n <= 0)
			continue;
		d->huge_pages += (uint64_t)n;
		snprintf(sizes + strlen(sizes), sizeof(sizes) - strlen(sizes), "%s%lld of %s", sizes[0] ? ", " : "",
			 (long long)n, e->d_name + 10);
	}
	if (dir)
		closedir(dir);
	FILE *f = fopen(rp_doc_path(sys, path, sizeof(path), "/proc/mounts"), "r");
	while (f && fgets(line, sizeof(line), f)) {
		char dev[128], at[256], type[64];
		if (sscanf(line, "%127s %255s %63s", dev, at, type) == 3 && strcmp(type, "hugetlbfs") == 0 && !d->huge_mounted) {
			d->huge_mounted = true;
			snprintf(mnt, sizeof(mnt), "%s", at);
		}
	}
	if (f)
		fclose(f);
	const char *why = any_pci ? "a NIC wants them (DMA from hugepages is faster and some PMDs need it)"
				  : "run/gen/switch start DPDK with --no-huge -m 1024, enough for virtual ports";
	if (d->huge_pages == 0)
		rp_doc_fix(rp_doc_add(d, "", "hugepages", RP_DOCTOR_WARN, "no hugepages: %s", why),
			   "echo 1024 > /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages && mkdir -p /dev/hugepages && "
			   "mount -t hugetlbfs nodev /dev/hugepages");
	else if (!d->huge_mounted)
		rp_doc_fix(rp_doc_add(d, "", "hugepages", RP_DOCTOR_WARN, "hugepages (%s) but no hugetlbfs mounted: %s", sizes, why),
			   "mkdir -p /dev/hugepages && mount -t hugetlbfs nodev /dev/hugepages");
	else
		rp_doc_add(d, "", "hugepages", RP_DOCTOR_PASS, "%s hugepages, hugetlbfs at %s", sizes, mnt);
}

static void check_iommu(struct rp_doctor *d, const struct rp_doctor_sys *sys, bool any_pci)
{
	char path[PATH_MAX];
	DIR *dir = opendir(rp_doc_path(sys, path, sizeof(path), "/sys/kernel/iommu_groups"));
	struct dirent *e;
	while (dir && (e = readdir(dir)) != NULL)
		d->iommu_groups += e->d_name[0] != '.';
	if (dir)
		closedir(dir);
	/* vfio-pci needs the IOMMU; a bifurcated mlx5 does not */
	bool vfio = false;
	for (size_t i = 0; i < d->nports; i++)
		vfio |= !strcmp(d->ports[i].kind, "pci") && strcmp(d->ports[i].pci_driver, "mlx5_core") != 0;
	if (d->iommu_groups == 0 && vfio)
		rp_doc_fix(rp_doc_add(d, "", "iommu", RP_DOCTOR_FAIL, "no IOMMU groups: vfio-pci cannot take a NIC"),
			   "boot with intel_iommu=on iommu=pt (AMD: amd_iommu=on), or without an IOMMU: "
			   "modprobe vfio enable_unsafe_noiommu_mode=1");
	else if (any_pci)
		rp_doc_add(d, "", "iommu", d->iommu_groups ? RP_DOCTOR_PASS : RP_DOCTOR_INFO, "%u IOMMU groups%s",
			   d->iommu_groups, vfio ? "" : " (a bifurcated mlx5 needs none)");
	else
		rp_doc_add(d, "", "iommu", RP_DOCTOR_INFO, "%u IOMMU groups: not needed, no PCI port", d->iommu_groups);
}

void rp_doc_check_machine(struct rp_doctor *d, const struct rp_doctor_sys *sys, bool any_pci, bool any_dpdk)
{
	if (any_dpdk)
		check_hugepages(d, sys, any_pci);
	check_iommu(d, sys, any_pci);
	rp_doc_add(d, "", "ptp", RP_DOCTOR_INFO, "ptp4l %s, phc2sys %s", d->ptp4l ? "runs" : "not running",
		   d->phc2sys ? "runs" : "not running");
}
