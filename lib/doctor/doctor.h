/* roceprobe doctor: is this machine ready to run a profile's hosts? Plain C
 * over /sys, /proc, the ethtool ioctl and netlink (rtnetlink DCB, generic
 * netlink devlink); no DPDK, nothing started, nothing changed. Each check
 * gives findings (PASS, INFO, WARN, FAIL) with the command that fixes them.
 *
 * Everything the kernel tells goes through struct rp_doctor_sys: a root
 * directory that /sys and /proc paths are read under ("" for the real ones,
 * tests/data/doctor/sysroot-* in the unit tests) and the calls that are not
 * files (ioctls, netlink), which a test replaces with its own answers. */
#ifndef RP_DOCTOR_DOCTOR_H
#define RP_DOCTOR_DOCTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"

/* Ordered by weight: a host's (and the run's) verdict is its worst finding. */
enum rp_doctor_status {
	RP_DOCTOR_PASS,
	RP_DOCTOR_INFO, /* a fact, or "not offered" / "not applicable" */
	RP_DOCTOR_WARN,
	RP_DOCTOR_FAIL,
};
const char *rp_doctor_status_name(enum rp_doctor_status s); /* "PASS", "INFO", "WARN", "FAIL" */

/* ---- what the kernel says (kernel.c holds the real calls) ---- */

struct rp_doctor_drvinfo { /* ETHTOOL_GDRVINFO */
	char driver[40]; /* the kernel's 32 bytes, terminated */
	char version[40];
	char fw_version[40];
	char bus_info[40];
};

#define RP_DOCTOR_DSCP_APPS 64
struct rp_doctor_dcb { /* DCB_CMD_IEEE_GET, as `dcb pfc show` / `dcb app show` read it */
	uint8_t pfc_en;       /* priorities with PFC enabled (bit p) */
	unsigned ndscp;       /* DSCP -> priority entries of the APP table (selector 5) */
	uint8_t dscp[RP_DOCTOR_DSCP_APPS], dscp_prio[RP_DOCTOR_DSCP_APPS];
};

struct rp_doctor_sys {
	const char *root; /* prefix of every /sys and /proc path; "" for the machine's own */
	/* Each 0, or a negative errno: -EOPNOTSUPP where the driver has none,
	 * -ENODEV where there is no such interface or device. */
	int (*drvinfo)(const char *ifname, struct rp_doctor_drvinfo *out);
	/* ETHTOOL_GLINKSETTINGS: Mb/s, 0 when the port says "unknown" (a link down) */
	int (*link_mbps)(const char *ifname, uint32_t *mbps);
	int (*phc_index)(const char *ifname, int *index); /* ETHTOOL_GET_TS_INFO; -1: none */
	int (*dcb)(const char *ifname, struct rp_doctor_dcb *out);
	/* devlink param `enable_roce` of pci/ADDR (its driverinit or runtime value) */
	int (*devlink_roce)(const char *pci, bool *on);
};
/* The machine's own: root "", the ioctls and netlink of kernel.c. */
void rp_doctor_sys_real(struct rp_doctor_sys *sys);

/* ---- findings ---- */

#define RP_DOCTOR_TEXT 256
struct rp_doctor_finding {
	char host[RP_NAME_MAX]; /* "" for the machine (hugepages, IOMMU, PTP daemons) */
	char check[16];         /* "port", "driver", "pci", "binding", "iommu", "speed", "mtu", "rate",
	                         * "hugepages", "dcb", "roce", "rdma", "ptp" */
	enum rp_doctor_status status;
	char what[RP_DOCTOR_TEXT]; /* what was found */
	char fix[RP_DOCTOR_TEXT];  /* the command that fixes it ("" when nothing to do) */
};

/* The facts one host's port gave, for --json and the tests (-1 / "" unknown). */
struct rp_doctor_port {
	char host[RP_NAME_MAX];
	char port[RP_PORT_MAX];
	const char *kind;       /* "pci", "af_packet", "af_xdp", "tap", "null", "ring", "pair", "pcap", "verbs", "other" */
	bool is_virtual;        /* its speed is made up: the profile's is the truth */
	char netdev[32];
	struct rp_doctor_drvinfo drv; /* driver "" when not read */
	char pci[32];           /* PCI address, "" when none */
	int numa_node;
	char pci_driver[32];    /* the kernel driver the PCI device is bound to */
	int64_t ethtool_mbps;   /* GLINKSETTINGS; -1 unknown */
	int64_t sysfs_mbps;     /* /sys/class/net/IF/speed; -1 unknown */
	uint64_t profile_bps;
	uint64_t speed_bps;     /* the speed roceprobe takes as true (honest speed) */
	int64_t mtu;            /* netdev MTU; -1 no netdev */
	uint64_t max_frame;     /* the profile's longest frame on this port (Ethernet, no FCS) */
	double tx_bps, rx_bps;  /* the profile's offered load (layer 1) */
	int dcb;                /* 1 read, 0 not offered, -1 no netdev / error */
	struct rp_doctor_dcb dcb_state;
	int roce;               /* devlink enable_roce: 1 on, 0 off, -1 not applicable / unknown */
	char rdma_dev[64];      /* the RDMA device on this netdev, "" none */
	char gid[96];           /* its first RoCE v2 GID, "" none */
	int phc_index;          /* -1 none */
};

struct rp_doctor {
	struct rp_doctor_finding *f;
	size_t n, cap;
	struct rp_doctor_port *ports;
	size_t nports;
	/* the machine */
	uint64_t huge_pages;  /* pages of every size (sysfs nr_hugepages) */
	bool huge_mounted;    /* a hugetlbfs mount */
	unsigned iommu_groups;
	bool ptp4l, phc2sys;
};

/* Checks the hosts h with want[h] (NULL: every host) of prof and plan's flows
 * (their frames and offered load) against the machine sys describes. 0, or -1
 * out of memory (err says so). Free with rp_doctor_free. */
struct rp_plan;
int rp_doctor_run(const struct rp_doctor_sys *sys, const struct rp_profile *prof, const struct rp_plan *plan,
		  const bool *want, struct rp_doctor *d, char *err, size_t errlen);
void rp_doctor_free(struct rp_doctor *d);
/* The worst finding's status (PASS when none). */
enum rp_doctor_status rp_doctor_worst(const struct rp_doctor *d);
/* The first finding of host ("" the machine) and check, NULL when none. */
const struct rp_doctor_finding *rp_doctor_find(const struct rp_doctor *d, const char *host, const char *check);

/* Text table, and one JSON object (schema "roceprobe.doctor/1", docs/doctor.md). */
void rp_doctor_print_text(const struct rp_doctor *d, const char *profile, void *out /* FILE * */);
int rp_doctor_print_json(const struct rp_doctor *d, const char *profile, void *out /* FILE * */);

/* ---- honest speed (speed.c) ----
 * The speed a host's port runs at. A PCI NIC's is its link's: a profile
 * speed above it is refused (FAIL: pacing would ask the wire for more than
 * it carries), one below it warned (WARN: roceprobe paces and times pauses
 * at the profile's speed, the link runs faster); equal is PASS. A virtual
 * port (veth, tap, af_packet or af_xdp over one, null, ring, pcap) reports a
 * made-up speed: the profile's stays the truth (INFO). A NIC whose link
 * reports nothing (down, or 0): WARN, the profile's speed taken.
 * link_bps 0: unknown. Fills what/fix (RP_DOCTOR_TEXT each, may be NULL) and
 * *speed_bps (the speed to use); returns the status. run/gen/certify call it
 * at start with the link speed DPDK reports. */
enum rp_doctor_status rp_doctor_speed_check(const char *host, uint64_t profile_bps, bool is_virtual,
					    uint64_t link_bps, uint64_t *speed_bps, char *what, char *fix);

/* ---- preflight (preflight.c) ----
 * run, gen and certify at start, before any port opens: rp_doctor_run over
 * the hosts with want[h] (NULL: every host). Nothing FAILs: 0, each WARN one
 * line "roceprobe WHO: preflight: host 'H': CHECK: what; fix: ..." on warn
 * (a FILE *; NULL: none printed). A FAIL: 1, and err holds the first one's
 * line (without "roceprobe WHO: ", which the caller's error line adds). -1
 * out of memory. A missing port or RDMA device is left to the run itself
 * (its line names the NIC and the rank). machine_warns false: a WARN about
 * the machine (no host: hugepages) is counted but not printed (under a
 * launcher every rank on a node would say it; the node's first rank does). */
struct rp_preflight {
	unsigned warns, fails;
	bool huge_warned; /* a hugepages WARN was said: the EAL need not say it again */
};
int rp_doctor_preflight(const struct rp_doctor_sys *sys, const struct rp_profile *prof, const struct rp_plan *plan,
			const bool *want, const char *who, void *warn /* FILE * */, bool machine_warns,
			struct rp_preflight *out, char *err, size_t errlen);
/* The same for every host of prof on this machine (certify --engine run
 * without a launcher), its plan built here: 0, 1 a FAIL (err), -1 the plan
 * failed or out of memory (err). */
int rp_doctor_preflight_profile(const struct rp_profile *prof, const char *who, void *warn, char *err, size_t errlen);

#endif
