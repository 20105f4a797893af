/* A rank's facts (issue 27): what result.json's environment, capture,
 * cluster.ranks[], verbs and findings say of one rank of a run, as a plain
 * struct, and its versioned binary record. Each rank fills one
 * (app/cmd_run.c, lib/run/txpath.c, lib/run/session.c, lib/verbs/engine.c), ships
 * it packed to rank 0 (lib/cluster/ship.c, as the accountant's record goes),
 * and rank 0 builds result.json from the unpacked structs (env_json.h): no
 * rank's facts travel as JSON text, and nothing inside a run parses JSON.
 * A run in one process fills one and builds from it the same way.
 *
 * Record, version 2 (little-endian, explicit counts; ranks of one build):
 *   header: "RPEV" u16 version u64 total_len
 *   rank:   i32 rank, str node, u32 n x str hosts, i64 clock_offset_ns
 *           clock_bound_ns start_skew_ns, str clock_source, i64 pclock_gap[2],
 *           u64 flows_accounted flows_held
 *   ports:  u32 n x port: str node devargs driver, u64 x RP_ENV_PORT_U64,
 *           u32 n x (str name, u64 value) pause_xstats,
 *           u64 x RP_ENV_NEIGH_U64, u32 n x (str address mac resolved_mac,
 *           u64 mac_changes last_change_ns answers) next hops,
 *           u8 has_netdev, str netdev, u64 x 3 (tx_packets dropped errors),
 *           u64 too_big_frames too_big_mtu, u32 n x (u32 flow, u64 frames)
 *           flows_unsent, u32 n x str findings
 *   captures: u32 n x (str node path, u64 offered written dropped sampled_out files)
 *   lcores: u32 n x (u32 lcore, u32 lcore_id, i32 socket, u64 rx_packets
 *           tx_packets polls busy_polls)
 *   verbs:  u8 present; if 1: u32 n x host (str host device driver, i32 port
 *           gid_index, str gid netdev, u64 elapsed_ns, u32 n x (str name, u64)
 *           delta, u32 n x (str name, u64) raw_delta), u32 n x qp (u64 flow,
 *           i32 qp, str src dst, u64 src_qpn dst_qpn, u8 send, u64 x 3
 *           (sender: messages posted, completed, bytes; receiver: messages,
 *           bytes, bad probes), histogram (acct_merge.h's form))
 *   nics:   (version 2) this rank's hosts' NIC counter series, rank_nics.h
 *   nothing after: total_len == the record's length.
 *   str: u32 length, that many bytes (no NUL among them), at most
 *   RP_ENV_STR_MAX.
 * Every read is bounds-checked: a truncated or garbled record, or one of
 * another version, is an error with a reason, never a crash; counts are
 * checked against the bytes left before anything is allocated. */
#ifndef RP_REPORT_RANK_ENV_H
#define RP_REPORT_RANK_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "counters/sampler.h"
#include "stats/hist.h"

#define RP_RANK_ENV_VERSION 4u /* 2: nics (issue 24); 3: ports' rx_clock and sharing (issue 32); 4: tx_start */
#define RP_ENV_STR_MAX 65536u

struct rp_env_count {
	char *name;
	uint64_t value;
};

/* neigh's counters, in result.json's order: arp_requests_rx, arp_replies_tx,
 * arp_replies_rx, arp_requests_tx, nd_solicits_rx, nd_adverts_tx,
 * nd_adverts_rx, nd_solicits_tx, unsent, refresh_tx, mac_changes, refresh_ns. */
#define RP_ENV_NEIGH_U64 12u
struct rp_env_hop {
	char *address, *mac, *resolved_mac;
	uint64_t mac_changes, last_change_ns, answers;
};
struct rp_env_neigh {
	uint64_t c[RP_ENV_NEIGH_U64];
	uint32_t nhops;
	struct rp_env_hop *hops;
};

struct rp_env_unsent {
	uint32_t flow;
	uint64_t frames;
};

/* environment.ports[] (docs/results.md). */
#define RP_ENV_PORT_U64 9u
struct rp_env_port {
	char *node, *devargs, *driver;
	/* link_bps, pmd_link_bps, tx_packets (the PMD's errors taken off),
	 * tx_bytes, tx_unsent (the PMD's errors in), impair_dropped,
	 * impair_marked, replies_sent, pmd_oerrors */
	uint64_t link_bps, pmd_link_bps, tx_packets, tx_bytes, tx_unsent, impair_dropped, impair_marked, replies_sent,
		pmd_oerrors;
	uint32_t nxstats;
	struct rp_env_count *xstats; /* pause_xstats: changes over the run */
	struct rp_env_neigh neigh;
	bool has_netdev; /* else netdev: null */
	char *netdev;
	uint64_t netdev_tx_packets, netdev_tx_dropped, netdev_tx_errors;
	uint64_t too_big_frames, too_big_mtu;
	uint32_t nunsent;
	struct rp_env_unsent *unsent; /* flows_unsent, in the port's flow order */
	uint32_t nfindings;
	char **findings;
	/* rx_clock: how its frames got their arrival time (lib/dp/dp.h enum
	 * rp_dp_rx_clock): "poll", "nic" or "host"; frames with a stamp used and
	 * not; the mapping's bound; shared: the port is shared with the kernel
	 * (DPDK isolated mode), pause_steered: PFC/PAUSE come to the run,
	 * xdp_program: shared by roceprobe's XDP program (net_af_xdp --share). */
	char *rx_clock;
	uint64_t rx_stamped, rx_unstamped, rx_clock_bound_ns;
	bool shared, pause_steered, xdp_program;
	/* tx_lead_ns: its first frames left on the NIC's clock this long after
	 * T0 (run --tx-start nic, lib/dp/dp.h; 0: host), tx_nic_late: handed
	 * over after that time (sent at once) */
	uint64_t tx_lead_ns;
	bool tx_nic_late;
};

/* capture[] entries. */
struct rp_env_capture {
	char *node, *path;
	uint64_t offered, written, dropped, sampled_out, files;
};

/* environment.lcores[] and cluster.ranks[].lcores (busy_share is
 * busy_polls / polls, worked out when written). */
struct rp_env_lcore {
	uint32_t lcore, lcore_id;
	int32_t socket;
	uint64_t rx_packets, tx_packets, polls, busy_polls;
};

/* verbs.hosts[] and verbs.qps[] (lib/verbs/engine.h). */
struct rp_env_vhost {
	char *host, *device, *driver, *gid, *netdev;
	int32_t port, gid_index;
	uint64_t elapsed_ns;
	uint32_t ndelta, nraw;
	struct rp_env_count *delta, *raw;
};
struct rp_env_vqp {
	uint64_t flow, src_qpn, dst_qpn;
	int32_t qp;
	char *src, *dst;
	bool send;
	/* sender: tx_messages, tx_completed, tx_bytes; receiver: rx_messages,
	 * rx_bytes, bad_probes */
	uint64_t v[3];
	struct rp_hist *lat; /* completion_ns (sender) or latency_ns (receiver) */
};
struct rp_env_verbs {
	uint32_t nhosts, nqps;
	struct rp_env_vhost *hosts;
	struct rp_env_vqp *qps;
};

struct rp_rank_env {
	bool present; /* filled or unpacked; false: nothing came (a rank that died) */
	int32_t rank;
	char *node;
	uint32_t nhosts;
	char **hosts;
	int64_t clock_offset_ns, clock_bound_ns, start_skew_ns;
	char *clock_source;
	int64_t pclock_gap[2]; /* packet_clock_gap_ns */
	uint64_t flows_accounted, flows_held;
	uint32_t nports, ncaptures, nlcores;
	struct rp_env_port *ports;
	struct rp_env_capture *captures;
	struct rp_env_lcore *lcores;
	struct rp_env_verbs *verbs; /* NULL: the rank has no verbs engine */
	uint32_t nnics;
	struct rp_cnt_series *nics; /* counters.nics[]: its hosts' NIC counter series (rank_nics.h) */
};

/* The bytes needed; written only when they fit in cap (buf NULL, cap 0:
 * size it). */
size_t rp_rank_env_pack(const struct rp_rank_env *e, uint8_t *buf, size_t cap);
/* e (zeroed here) from len bytes; 0, or -1 with a reason in err and e
 * empty. */
int rp_rank_env_unpack(struct rp_rank_env *e, const uint8_t *buf, size_t len, char *err, size_t errlen);
/* Frees what e holds (every pointer: malloc'd) and zeroes it. */
void rp_rank_env_free(struct rp_rank_env *e);

/* Frees what n holds and zeroes it. */
void rp_env_neigh_free(struct rp_env_neigh *n);

/* flows[].tx_unsent by plan flow id, from every port's flows_unsent of
 * the n ranks e (those present); NULL when out of memory. The caller frees
 * it. */
uint64_t *rp_rank_env_unsent_by_flow(const struct rp_rank_env *e, size_t n, size_t nflows);

/* For the fillers: a malloc'd copy of s ("" for NULL); NULL when out of
 * memory. */
char *rp_env_strdup(const char *s);

#endif
