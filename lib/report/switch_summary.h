/* `roceprobe switch`'s own report (docs/switch.md "Output"): the final
 * summary, text or the "roceprobe.switch/2" JSON object, and the line a
 * second on stderr. Typed facts in: the model (its ports through
 * switch_json.h, as the lab writes them) plus what only the real-time switch
 * knows: each DPDK port's name and driver, the edge around the model, the
 * PMD's counters, the capture. No DPDK here: lib/dp fills these. */
#ifndef RP_REPORT_SWITCH_SUMMARY_H
#define RP_REPORT_SWITCH_SUMMARY_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "fabric/switch.h"

/* What happened at a port's edge, outside the model (its own counters say the rest). */
struct rp_switch_edge {
	uint64_t rx_frames, rx_bytes; /* polled from the port */
	uint64_t tx_frames, tx_bytes; /* taken by the port's TX queue (data and PFC) */
	uint64_t tx_pfc;              /* PFC frames among them */
	uint64_t flooded;             /* frames received here that were flooded */
	uint64_t flood_copies;        /* copies handed to the model for them */
	uint64_t learned;             /* source MACs learned (or moved) here */
	uint64_t fdb_full;            /* MACs not learned: the table was full */
	uint64_t link_local;          /* 01:80:C2:00:00:0x frames not forwarded */
	uint64_t hairpin;             /* frames for a MAC on their own port, not forwarded */
	uint64_t tx_stalls;           /* passes in which the TX queue refused frames */
	uint64_t tx_unsent;           /* released by the model, never taken by the port */
	uint64_t nombuf;              /* no mbuf to take a frame the model had ready */
};

struct rp_switch_rt_port {
	const char *devargs;
	const char *driver;
	const struct rp_switch_edge *edge;
	uint64_t pmd_missed, pmd_oerrors;
	const char *capture; /* its pcap, "" or NULL without one */
	uint64_t cap_written, cap_dropped;
};

struct rp_switch_rt_facts {
	struct rp_switch *sw; /* not const: queue-depth series are brought up to end_ns */
	const struct rp_switch_cfg *cfg;
	unsigned nports;
	const struct rp_switch_rt_port *port;
	uint64_t end_ns;
	bool interrupted;
};

/* The final summary as one JSON object. */
json_t *rp_switch_rt_json(const struct rp_switch_rt_facts *f);
/* The final summary as text: a line for the switch, one a port and one a
 * busy priority, the drops and the buffer. */
void rp_switch_rt_print_text(FILE *out, const struct rp_switch_rt_facts *f);

/* Port p's share of the line a second: rates over dt seconds and counts
 * since the last line (last, last_edge), its deepest egress queue qmax. */
void rp_switch_rt_progress_port(FILE *out, unsigned p, double dt, const struct rp_switch_edge *now,
				const struct rp_switch_edge *last_edge, const struct rp_switch_port_stats *s,
				const struct rp_switch_port_stats *last, uint64_t qmax);

#endif
