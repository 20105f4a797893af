/* `roceprobe switch` on DPDK: the EAL, the ports, the model, the MAC
 * table, the captures, the poll loop with its line a second on stderr, and
 * the facts its summary is written from (report/switch_summary.h). The
 * switch's configuration comes settled (profile/switch_cfg.h) but for the
 * largest frame, which needs the ports. err/errlen: one line, no prefix. */
#ifndef RP_DP_SWITCH_RUN_H
#define RP_DP_SWITCH_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "capture.h"
#include "dp.h"
#include "profile/switch_cfg.h"
#include "report/switch_summary.h"
#include "switch_rt.h"

/* The DPDK switch tells its lcore which ports to serve by a 64-bit mask
 * (rp_switch_rx.kick): 64 ports here, up to RP_SWITCH_MAX_PORTS in the lab. */
#define RP_DP_SWITCH_PORTS 64

struct rp_dp_switch_fdb {
	uint8_t mac[6];
	unsigned port;
};

struct rp_dp_switch_spec {
	const char *const *ports; /* devargs; port i is switch port i */
	unsigned nports;
	struct rp_fabric *fab; /* after the flags; its max_frame is settled against the ports */
	const struct rp_switch_flags *flags;
	uint64_t speed_bps;
	bool trust_pcp, learn, flood_unknown;
	const struct rp_dp_switch_fdb *fdb;
	unsigned nfdb;
	const char *capture; /* FILE: port N's RX and TX to FILE-pN.pcap; NULL: none */
	const char *eal;     /* extra EAL arguments, may be NULL */
	bool no_telemetry;   /* --no-telemetry: the EAL without its telemetry socket */
	int cpu;             /* the poller's CPU; -1: the highest the process may use */
};

struct rp_dp_switch_run {
	struct rp_switch_cfg cfg;
	struct rp_switch *sw;
	struct rp_dp_port ports[RP_DP_SWITCH_PORTS];
	struct rp_dp_switch rt;
	struct rp_capture_cfg cap_cfg[RP_DP_SWITCH_PORTS];
	char cap_path[RP_DP_SWITCH_PORTS][4200];
	struct rp_capture_stats cap_stats[RP_DP_SWITCH_PORTS];
	bool eal_up;
	uint64_t end_ns;
	uint64_t pmd_imissed[RP_DP_SWITCH_PORTS], pmd_oerrors[RP_DP_SWITCH_PORTS];
	struct rp_switch_port_stats last[RP_DP_SWITCH_PORTS];
	struct rp_switch_edge last_c[RP_DP_SWITCH_PORTS];
	uint64_t last_ns;
	struct rp_switch_rt_port facts_port[RP_DP_SWITCH_PORTS];
	/* Called by the loop every tick_ns of the packet clock (0: never),
	 * between two passes, never on the per-packet path; now_ns is the
	 * model's time (`--publish` takes its snapshot here). */
	void (*tick)(struct rp_dp_switch_run *r, uint64_t now_ns, void *ctx);
	void *tick_ctx;
	uint64_t tick_ns;
};

/* Everything up to the first poll. On failure -1 and err; call
 * rp_dp_switch_teardown either way. */
int rp_dp_switch_start(struct rp_dp_switch_run *r, struct rp_dp_switch_spec *s, char *err, size_t errlen);
/* Polls until *stop or duration_ns (0: no limit) of the packet clock, a
 * progress line on stderr every second, then drains the TX queues. */
void rp_dp_switch_loop(struct rp_dp_switch_run *r, uint64_t duration_ns, volatile sig_atomic_t *stop);
/* After the loop: the PMDs' drop counters read, the captures closed (a
 * failure: "roceprobe switch: ..." on stderr, the run goes on). */
void rp_dp_switch_stop(struct rp_dp_switch_run *r);
/* The facts for the summary (pointing into r). */
void rp_dp_switch_facts(struct rp_dp_switch_run *r, bool interrupted, struct rp_switch_rt_facts *f);
void rp_dp_switch_teardown(struct rp_dp_switch_run *r);

#endif
