/* The per-flow and per-port families every command that counts flows
 * serves (run, lab): one writer, so their names, labels and help agree.
 *
 * Flows: up to RP_METRICS_MAX_FLOWS a series per flow, labels
 * {flow, src, dst, prio}; beyond that a series per host pair and priority
 * {src, dst, prio} (the flows summed), so a 1M-flow lab stays scrapable.
 *   roceprobe_flow_tx_packets_total, _tx_bytes_total, _rx_packets_total, _rx_bytes_total,
 *   _lost_packets_total, _ce_packets_total, _cnp_sent_total, _cnp_received_total
 * Ports, labels {host, port, prio}:
 *   roceprobe_port_pfc_rx_frames_total, roceprobe_port_pfc_tx_frames_total,
 *   roceprobe_port_paused_seconds_total, roceprobe_port_rx_frames_total{host,port}
 * Latency: roceprobe_flow_latency_seconds, a histogram per receiving host
 * and priority {dst, prio} (prom.h's exact buckets). */
#ifndef RP_METRICS_FLOWS_H
#define RP_METRICS_FLOWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prom.h"

#define RP_METRICS_MAX_FLOWS 4096

struct rp_metrics_flow {
	uint32_t id;
	const char *src, *dst;
	unsigned prio;
	uint64_t tx_packets, tx_bytes, rx_packets, rx_bytes, lost, ce, cnp_tx, cnp_rx;
};

struct rp_metrics_port {
	const char *host;
	unsigned port;
	uint64_t rx_frames;
	uint64_t pfc_rx[8], pfc_tx[8], paused_ns[8];
};

/* The flow families, per flow or (n > RP_METRICS_MAX_FLOWS) per host pair.
 * received: the receivers' families too (run, lab); gen has senders only
 * (tx packets and bytes). */
void rp_metrics_flows(struct rp_prom *p, const struct rp_metrics_flow *f, size_t n, bool received);
/* pfc_tx: the ports' PFC sent is known (an accountant saw it leave; gen's
 * PFC sources are flows of their own: their tx packets). */
void rp_metrics_ports(struct rp_prom *p, const struct rp_metrics_port *pt, size_t n, bool pfc_tx);

/* Latency histograms keyed by (dst, prio): rp_metrics_lat_add each flow's
 * histogram, then rp_metrics_lat_write. */
struct rp_hist;
struct rp_metrics_lat;
struct rp_metrics_lat *rp_metrics_lat_new(void);
/* 0, or -1 out of memory. add: called with the group's histogram, to merge
 * the flow's into (so a sparse histogram is merged without expanding). */
int rp_metrics_lat_add(struct rp_metrics_lat *l, const char *dst, unsigned prio,
		       void (*add)(struct rp_hist *h, const void *arg), const void *arg);
void rp_metrics_lat_write(struct rp_prom *p, const struct rp_metrics_lat *l);
void rp_metrics_lat_free(struct rp_metrics_lat *l);

/* pt += an accountant's port (its name and counts; summed over lcores). */
struct rp_acct_port_result;
void rp_metrics_port_add(struct rp_metrics_port *pt, const struct rp_acct_port_result *pr);

/* A closed accountant's (rp_acct_finish'd: run's merged one, the lab's)
 * flows, ports and latency: exactly result.json's numbers. */
struct rp_acct;
void rp_metrics_acct(struct rp_prom *p, const struct rp_acct *a);

#endif
