/* Where NIC counters come from, as `roceprobe counters` names them:
 *   ethtool:IFACE       the netdev's ethtool statistics (SIOCETHTOOL)
 *   sysfs:IFACE         /sys/class/net/IFACE/statistics/ (every file)
 *   rdma:DEV            /sys/class/infiniband/DEV/ports/N/{counters,hw_counters}/ (every file)
 *   ethtool-file:PATH   a saved `ethtool -S IFACE` dump
 *   rdma-dir:PATH       a copied hw_counters directory (or a copied port
 *                       directory holding hw_counters/ and counters/)
 * and a switch's:
 *   sonic://HOST[:PORT] a SONiC switch's COUNTERS_DB and CONFIG_DB (sonic.h;
 *                       PORT default 6379)
 *   snmp://HOST[:PORT]  a switch's SNMP agent: IF-MIB and CISCO-PFC-EXT-MIB
 *                       (snmp.h; PORT default 161), with credentials from a file
 *   exec:CMD            any command printing JSON, through a map (exec.h)
 * Each read gives one snapshot of every port of the source, normalised
 * (snap.h). Plain C over files, one ioctl and hiredis; no DPDK, no verbs. */
#ifndef RP_COUNTERS_SOURCES_H
#define RP_COUNTERS_SOURCES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "counters/ctr_names.h"
#include "counters/snap.h"
#include "counters/exec.h"
#include "counters/snmp.h"

enum rp_cnt_kind { RP_CNT_ETHTOOL, RP_CNT_SYSFS, RP_CNT_RDMA, RP_CNT_ETHTOOL_FILE, RP_CNT_RDMA_DIR, RP_CNT_SONIC, RP_CNT_SNMP, RP_CNT_EXEC };

struct rp_cnt_source {
	enum rp_cnt_kind kind;
	char spec[320]; /* as given: "ethtool:eth0" */
	char arg[300];  /* after the colon */
	unsigned port;  /* rdma: the port to read, 0 = every port */
	/* "" = /sys/class/net and /sys/class/infiniband; tests point these at fake trees */
	char net_root[128], ib_root[128];
	/* sonic://, snmp://: the switch's address and port */
	char host[256];
	int tcp_port;
	struct rp_snmp_cred cred; /* snmp://: from the credentials file (rp_snmp_cred_load) */
	const struct rp_exec_map *map; /* exec:: the caller's (rp_exec_map_load) */
};

/* A switch's source (sonic://, snmp://, exec:): its counters never go back while
 * the switch runs (a Counter32's wrap is told apart, snap.h), so one that
 * does is an error, not a reset. */
bool rp_cnt_source_is_switch(const struct rp_cnt_source *s);

/* "KIND:ARG" -> s. 0, or -1 with err naming what is wrong and the kinds. */
int rp_cnt_source_parse(const char *spec, struct rp_cnt_source *s, char *err, size_t errlen);

/* One snapshot of every port of the source (out is emptied first; t_ns and
 * mono_ns are set). 0, or -1 with err: a missing interface, device, file or
 * directory, a dump that is not `ethtool -S` output. */
int rp_cnt_read(const struct rp_cnt_source *s, struct rp_cnt_snap *out, char *err, size_t errlen);

/* Every file of dir holding one unsigned number (sysfs counter files; those
 * that fail to read, as unsupported ones do with EINVAL, are skipped), in
 * directory order, at most max. Returns how many. */
size_t rp_ctr_read_dir(const char *dir, enum rp_ctr_src src, struct rp_ctr *out, size_t max);

/* `ethtool -S IFACE` text ("NIC statistics:" then "     name: value" lines)
 * -> a malloc'd array (src RP_CTR_ETH; the caller frees *out). Names keep
 * everything before the last ':' ("[0]: rx_ucast_packets" is one name).
 * Returns how many, or -1 with err naming the line that is not a statistic. */
int rp_ctr_parse_ethtool_text(const char *text, size_t len, struct rp_ctr **out, char *err, size_t errlen);

#endif
