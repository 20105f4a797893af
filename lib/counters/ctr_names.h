/* One counter vocabulary for every NIC driver roceprobe meets.
 *
 * A raw counter is a (source, name, value) as the kernel gives it: an
 * ethtool statistic of a netdev (mlx5_core, ice, bnxt_en, veth, ...), a file
 * of /sys/class/net/IF/statistics, or a file of an RDMA port's counters/
 * (IBTA PortCounters) or hw_counters/ (mlx5, bnxt_re, irdma, rxe). The one
 * table in ctr_names.c gives each known raw name its meaning twice:
 *   - the vocabulary key of `roceprobe counters` (roceprobe.counters/1): a
 *     port-level key (cnp_sent, rx_out_of_buffer, pause_rx) or a priority key
 *     (pfc_rx of priority 3), the names of result.json's ports[].prio[] where
 *     they mean the same;
 *   - the flat name `roceprobe ep` has always reported (docs/verbs.md), so its
 *     output stays what it was.
 * Unknown names keep their raw names. */
#ifndef RP_COUNTERS_CTR_NAMES_H
#define RP_COUNTERS_CTR_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum rp_ctr_src {
	RP_CTR_PORT,   /* RDMA ports/P/counters (IBTA PortCounters) */
	RP_CTR_HW,     /* RDMA ports/P/hw_counters (driver specific) */
	RP_CTR_ETH,    /* the netdev's ethtool statistics (ioctl or an `ethtool -S` dump) */
	RP_CTR_NETDEV, /* /sys/class/net/IF/statistics */
	RP_CTR_DPDK,   /* a DPDK port's extended statistics (the ethdev xstats names), read in lib/dp */
	RP_CTR_SAI,    /* a SONiC switch's COUNTERS_DB fields (SAI stat names), read by sonic.c; a
			* watermark table's field as "U/FIELD" (USER_WATERMARKS) or "P/FIELD" (PERSISTENT_) */
	RP_CTR_SNMP,   /* a switch's SNMP objects (snmp.c): the MIB's column name, ".PRIO" for a priority */
	RP_CTR_EXEC,   /* exec:CMD through a map (exec.c): the map's counter name, ".PRIO" for a priority */
};

struct rp_ctr {
	char name[64];
	uint8_t src; /* enum rp_ctr_src; unused for normalised counters */
	uint64_t value;
};

const char *rp_ctr_src_name(enum rp_ctr_src s); /* "port", "hw", "eth", "netdev", "dpdk", "sai", "snmp", "exec" */

/* A pause counter by its name: it holds "pause" or "pfc" (any case), as
 * result.json's environment.ports[].pause_xstats has always kept them. */
bool rp_ctr_is_pause(const char *raw);

/* `ep`'s flat name of a raw counter (pause_rx_prio3, cnp_sent), and the factor
 * that turns its unit into the normalised one (port_xmit_data counts 4-byte
 * words). Returns false for counters `ep` has no common name for. */
bool rp_ctr_normalise(enum rp_ctr_src src, const char *raw, char *out, size_t len, uint64_t *scale);

/* How a raw counter enters the vocabulary. */
enum {
	RP_CTR_SUM = 1,   /* one part of the key's count: parts add (ice's XON + XOFF) */
	RP_CTR_GAUGE = 2, /* a level, not a count: never differenced (veth's peer_ifindex) */
};
struct rp_ctr_key {
	char name[40]; /* pfc_rx, cnp_sent, or the raw name of a known gauge */
	int prio;      /* 0..7 for a priority key, -1 for a port-level one */
	uint64_t scale;
	unsigned flags; /* RP_CTR_SUM, RP_CTR_GAUGE */
};
/* The vocabulary key of a raw counter; false when the table does not know it
 * (it then passes through under its raw name). Where several raw counters
 * of one port give one key, parts (RP_CTR_SUM) add and the others count the
 * same events, so the largest is kept. */
bool rp_ctr_key(enum rp_ctr_src src, const char *raw, struct rp_ctr_key *key);
/* Whether a vocabulary key names a gauge (a level, as a switch queue's
 * shared_wm_bytes): how a reader of roceprobe.counters/1 tells a queue's or
 * PG's gauges from its counts, which the format keeps side by side. */
bool rp_ctr_key_is_gauge(const char *key);

#endif
