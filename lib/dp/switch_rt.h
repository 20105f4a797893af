/* The emulated switch (lib/fabric) in real time on DPDK ports: one lcore
 * polls every port's RX, feeds each frame to rp_switch_ingress at the TSC
 * clock, and sends what rp_switch_next_tx releases once its start time has
 * come, so real endpoints can be wired through an emulated PFC/ECN switch.
 *
 * Time: the model is given a monotone "model time". Each pass first lets
 * every transmitter catch up to now, in time order across ports, at the
 * exact times the model asks for (its free time, a pause's end, a PFC
 * refresh), then stamps the frames received in this pass with now. So the
 * line rate is the model's, exact over a run, whatever the polling jitter;
 * a pass that came late sends the frames that were due back to back.
 *
 * Forwarding around the model (the model itself only knows a static table):
 * - learning (optional): a data frame's source MAC is added to the model's
 *   table (rp_switch_fdb_add moves a MAC that changed ports);
 * - flooding: a frame to a group address (broadcast, multicast) or, unless
 *   turned off, to a unicast MAC the table does not know goes through the
 *   model once per other port (each copy admitted, queued, paced and counted
 *   on its own, as a switch replicating it would);
 * - filtered before the model: IEEE link-local group frames 01:80:C2:00:00:0x
 *   other than MAC control (LLDP, STP: a bridge does not forward them), and
 *   frames whose destination was learned on the port they came in on.
 * MAC control frames (PFC, PAUSE) always go to the model once: it acts on
 * them and never forwards them. */
#ifndef RP_DP_SWITCH_RT_H
#define RP_DP_SWITCH_RT_H

#include <stdbool.h>
#include <stdint.h>

#include "dp.h"
#include "fabric/switch.h"
#include "report/switch_summary.h"

#define RP_DP_SW_BURST 32

struct rte_mbuf;
struct rp_capture;

/* c: what happened at the edge, outside the model (struct rp_switch_edge,
 * report/switch_summary.h, which writes it). */
struct rp_dp_sw_port {
	struct rp_dp_port *port;
	struct rp_capture *cap; /* this port's RX and TX; may be NULL */
	uint64_t wake_ns;       /* when to ask the model for this port's next frame */
	struct rte_mbuf *out[RP_DP_SW_BURST];
	uint16_t out_len[RP_DP_SW_BURST];
	unsigned nout;
	uint64_t qmax_window; /* deepest egress queue since the caller last reset it */
	struct rp_switch_edge c;
};

struct rp_dp_switch {
	struct rp_switch *sw;
	unsigned nports;
	bool learn;
	bool flood_unknown;
	uint64_t mt; /* model time: the latest now_ns given to the model */
	struct rp_dp_sw_port port[RP_SWITCH_MAX_PORTS];
	uint8_t linear[65536]; /* a segmented frame, copied out */
};

/* Binds the model to opened ports (ports[i] is switch port i). */
void rp_dp_switch_init(struct rp_dp_switch *s, struct rp_switch *sw, struct rp_dp_port *const *ports,
		       unsigned nports, bool learn, bool flood_unknown);

/* One pass: transmitters catch up to now, then every port's RX burst goes in
 * at now, then what is ready goes to the TX queues. No allocation beyond
 * mbufs, no syscalls (the PMD's own aside). */
void rp_dp_switch_poll(struct rp_dp_switch *s, uint64_t now_ns);

/* At stop: offers the frames still waiting for a TX queue for up to
 * drain_ns, then frees the rest (counted as tx_unsent). */
void rp_dp_switch_flush(struct rp_dp_switch *s, uint64_t drain_ns);

#endif
