/* What gen and run share: a profile and its plan, the DPDK ports of the hosts
 * that take part, their packet sources, and progress lines. */
#ifndef RP_RUN_SESSION_H
#define RP_RUN_SESSION_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dp/gen.h"
#include "profile/profile.h"
#include "report/rank_env.h"
#include "traffic/plan.h"

struct rp_session {
	char err[1024]; /* the set-up's first error, one line (rp_session_open/addresses/traffic) */
	const char *cmd; /* "gen", "run": prefixes error lines */
	const char *profile_path;
	struct rp_profile *prof;
	struct rp_plan plan;
	bool plan_built;
	struct rp_dp_port ports[RP_DP_MAX_PORTS];
	/* tx[i] (i < nports) is port i's queue 0, the port as the reports see
	 * it; with nq > 1 tx[q * nports + i] is its queue q (lcore q). */
	struct rp_dp_txport tx[RP_DP_MAX_PORTS * RP_DP_MAX_QUEUES];
	unsigned nports;
	unsigned nq; /* queues per port (run --lcores N: N, one per lcore); 1 otherwise */
	unsigned verbs_hosts; /* this process's hosts with engine: verbs (no DPDK port) */
	char devargs[RP_DP_MAX_PORTS][RP_PORT_MAX + 64]; /* as given to the EAL (net_af_packet: framesz added;
							  * --share on net_af_xdp: xdp_prog= added) */
	/* --share on net_af_xdp: roceprobe's XDP program's file until the ports
	 * loaded it (lib/dp/xdp.h), and the ports that run it (their host's
	 * addresses go in its maps once the port is open) */
	char xdp_prog[128];
	bool xdp_ours[RP_DP_MAX_PORTS];
	struct rp_dp_gen g;
	bool eal_up;
	uint64_t last_packets[RP_DP_MAX_PORTS];
	uint64_t last_bytes[RP_DP_MAX_PORTS];
	uint64_t last_lcore_pkts[RP_DP_MAX_LCORES], last_passes[RP_DP_MAX_LCORES], last_busy[RP_DP_MAX_LCORES];
	uint64_t last_ns;
	/* The progress line's end: --duration, else the plan's last flow end
	 * (every flow has one: a duration, or a count of packets or messages);
	 * worked out by the first line (progress_end_set); 0: not known. */
	uint64_t progress_end_ns;
	bool progress_end_set;
	uint64_t setup_t0_ns; /* CLOCK_MONOTONIC when rp_session_open began (rp_session_stage) */
	bool setup_quiet;     /* under a launcher: no stage lines (every rank would say them) */
	uint64_t neigh_refresh_ns; /* resolved next hops asked again this often (0: never) */
	struct rp_dp_port_want want; /* --share / --exclusive, run --rx-clock (dp.h) */
};

struct rp_session_opts {
	const char *const *sets;
	size_t nsets;
	bool allow_pause_storm;
	bool receivers; /* open the ports of receiving hosts too (run) */
	const char *eal;
	bool no_telemetry; /* --no-telemetry: the EAL without its telemetry socket */
	unsigned lcores;
	/* run --lcores N (N > 1): every port gets N RX and TX queues, queue q
	 * driven by worker lcore q with its share of the host's flows; the main
	 * thread only sleeps and prints progress. 0 or 1: one queue, ports
	 * shared round-robin over `lcores` lcores, the main lcore polling. */
	unsigned queues;
	/* Under a launcher: the profile's text as rank 0 read it (NULL: read
	 * the file), and the hosts this rank runs (NULL: every host). */
	const char *profile_text;
	const bool *hosts;
	const int *host_rank; /* under a launcher: each host's rank (two hosts on one machine's port are refused) */
	size_t nranks; /* the launch a host_template expands for (rp_profile_opts) */
	const struct rp_launch_rank *ranks;
	unsigned first_core; /* where this process's lcores start (a rank's local rank) */
	bool defer_traffic; /* leave the ARP/ND phase and the sources to rp_session_traffic */
	/* How often resolved next hops are asked again during traffic: 0 is
	 * RP_DP_NEIGH_REFRESH_NS (1 s), RP_SESSION_NO_REFRESH never. */
	uint64_t neigh_refresh_ns;
	/* Under a launcher: once set, the EAL is not started (the ranks are
	 * stopping, cmd_run.c's all_ready); rp_session_open returns 0. */
	const volatile sig_atomic_t *stop;
	/* --no-preflight: doctor's checks (preflight.h) are not run before the EAL */
	bool no_preflight;
	/* Under a launcher, a rank after the first on its node: preflight's
	 * WARNs about the machine (hugepages) are that first rank's to say. */
	bool node_shared;
	/* --share / --exclusive (dp.h enum rp_dp_share): how ports the kernel also uses are held */
	enum rp_dp_share share;
	enum rp_dp_rx_clock rx_clock; /* run --rx-clock (dp.h); gen: the poll's */
	enum rp_dp_tx_start tx_start; /* run --tx-start (dp.h); gen: the host's */
};
#define RP_SESSION_NO_REFRESH UINT64_MAX

/* Each returns 0, or RP_SESSION_USAGE with one line in s->err (the caller
 * prints it: under a launcher the ranks agree on one first). */
#define RP_SESSION_USAGE 2 /* the exit code of bad input (app/cli.h RP_EXIT_USAGE) */
/* Loads, plans, opens the ports (a `mac: auto` host's MAC is its port's) and
 * reads the `ipv4/ipv6: netdev` addresses of the hosts this process runs. */
int rp_session_open(struct rp_session *s, const char *cmd, const char *profile, const struct rp_session_opts *o);
/* Once every host's addresses are known (under a launcher: after the ranks
 * exchanged them, lib/cluster): no two hosts share one, and the plan is
 * rebuilt with the netdev addresses. rp_session_open does it unless defer_traffic. */
int rp_session_addresses(struct rp_session *s);
/* The ARP/ND phase on the open ports (lib/dp/neigh.h: probes, announcements,
 * next hops resolved; one line and RP_SESSION_USAGE when one stays unanswered
 * or an address is someone else's), then the packet sources. caps: by port
 * index (s->tx[i]), may be NULL. rp_session_open does it unless defer_traffic. */
struct rp_capture;
int rp_session_traffic(struct rp_session *s, struct rp_capture *const *caps);
void rp_session_close(struct rp_session *s);

/* A port's counters summed over its queues. */
struct rp_session_port_totals {
	uint64_t tx_packets, tx_bytes, tx_unsent, tx_full, rx_frames;
};
void rp_session_port_totals(const struct rp_session *s, unsigned i, struct rp_session_port_totals *out);
/* The lcore of queue q of port i: q, on a port with a queue for every
 * lcore; a port with fewer (a PMD's limit) starts at lcore i mod nq, so
 * one-queue ports spread over the lcores, one each when there are as many. */
static inline unsigned rp_session_lane(const struct rp_session *s, unsigned i, unsigned q)
{
	return s->ports[i].nq >= s->nq ? q : (i + q) % s->nq;
}

/* Every queue entry (nports x nq): what g.ports / g.n_ports hold. */
static inline unsigned rp_session_nqueues(const struct rp_session *s) { return s->nports * (s->nq ? s->nq : 1); }
/* Lcore k's packets (received + sent over its queues). */
uint64_t rp_session_lcore_packets(const struct rp_session *s, unsigned k);

/* A named set-up stage starts ("EAL start", "ports", "ARP/ND", ...): one line
 * on stderr, "run: set-up: ARP/ND (1.3 s in)" (lab's wording), once the set-up has taken a
 * second; a short set-up (0.2 s for the lab's profiles here) says nothing. */
void rp_session_stage(struct rp_session *s, const char *name);

/* gen's --metrics collect callback (metrics.c; arg: the session). */
struct rp_prom;
void rp_session_metrics(struct rp_prom *p, void *arg);

/* The g.progress callback (arg: the session). */
void rp_session_progress(const struct rp_dp_gen *g, uint64_t now_ns, void *arg);

/* Layer-1 Gbit/s: frames plus FCS, preamble and inter-frame gap (24 B each). */
double rp_l1_gbps(uint64_t packets, uint64_t bytes, uint64_t ns);

struct rp_source_flow_stats;
/* A flow's layer-1 Gbit/s over its active time, first to last packet (the
 * packets before its last burst filled that span); 0 before a second burst. */
double rp_flow_active_gbps(const struct rp_source_flow_stats *st);
uint64_t rp_flow_active_ns(const struct rp_source_flow_stats *st);
/* What the plan asks over that time: the peak inside one burst window or
 * phase, else the rate times the duty cycle (Gbit/s, layer 1; 0 for PFC). */
double rp_flow_planned_gbps(const struct rp_flow *f, const struct rp_source_flow_stats *st);
/* One line on f per RDMA flow whose active rate fell more than 1% short of
 * its plan (the rate, times the duty cycle of bursts or phases), with the
 * likely cause (f NULL: only counted), before (may be NULL) printed ahead of
 * the first; returns how many. */
unsigned rp_session_warn_rates(const struct rp_session *s, FILE *f, const char *before);
const char *rp_session_host(const struct rp_session *s, const struct rp_dp_txport *tp);

/* A port's ARP/ND counts (result.json ports[].neigh, docs/results.md), as
 * facts (0, or -1 out of memory: free n with rp_env_neigh_free either way)
 * and as their JSON. */
typedef struct json_t json_t;
int rp_session_neigh_facts(const struct rp_dp_txport *tp, struct rp_env_neigh *n);
json_t *rp_session_neigh_json(const struct rp_dp_txport *tp);
/* One line per next hop resolved on the ports (ARP/ND) and kept fresh: its
 * MAC, and whether it moved during the run (the summary's). */
void rp_session_print_next_hops(const struct rp_session *s, FILE *f);

#endif
