/* What a lab run adds to result.json: every switch port and priority, pause
 * propagation and victim flows, and the headline numbers a sweep tabulates.
 * Valid after rp_lab_run. No printing; qdepth.csv goes to the path given. */
#ifndef RP_LAB_REPORT_H
#define RP_LAB_REPORT_H

#include <jansson.h>

#include "fabric/switch.h"
#include "report/doc.h"
#include "lab.h"

/* "switches": [{"name","role","buffer":{...},"ports":[{"port","peer",...,
 * "prio":[{"prio","queue":{...},"pg":{...}}]}]}] */
json_t *rp_lab_switches_json(struct rp_lab *lab);
/* "hosts": the profile's hosts, each the sum of its NICs and every NIC on
 * its own: [{"name","tx_frames","tx_bytes","rx_frames","rx_bytes",
 * "nics":[{"name","switch","port","tx_frames",...}]}] (frames and bytes on
 * the host's wires, replies and PFC included; a one-NIC host lists one). */
json_t *rp_lab_hosts_json(const struct rp_lab *lab);
/* DIR/qdepth.csv (docs/lab.md): a header "bin,SWITCH:PORT:PRIO,..." with one
 * column per switch queue that held anything (switches, ports, priorities in
 * order), then one row per fabric.qdepth_bin from virtual time 0: the bin's
 * number and each queue's largest depth in bytes then (0 after its series
 * ends). The numbers of result.json's qdepth_bytes. 0, or -1 with err. */
int rp_lab_write_qdepth_csv(struct rp_lab *lab, const char *path, char *err, size_t errlen);
/* "pause_propagation": congestion start, each hop's first XOFF, depth, victims. */
json_t *rp_lab_propagation_json(const struct rp_lab *lab);
/* The same, typed: a million-flow run can have a million victims, written
 * an item at a time (report/doc.h), never a tree of them. head is the
 * object with "victims" and "sender_limited" empty (their markers). */
struct rp_lab_victim {
	size_t flow;        /* the accountant's flow index */
	uint64_t paused_ns; /* its sender's priority paused */
	uint64_t late_ns;   /* last arrival after its planned end */
	uint64_t own_ns;    /* how late its own sender's oversubscribed NIC explains */
	bool paused, slowed;
};
struct rp_lab_propagation {
	const struct rp_lab *lab;
	json_t *head, *victims_marker, *limited_marker;
	struct rp_lab_victim *victims, *limited; /* victims, sender_limited: in flow order */
	size_t nvictims, nlimited;
};
/* NULL when out of memory. Valid while lab is. */
struct rp_lab_propagation *rp_lab_propagation(const struct rp_lab *lab);
void rp_lab_propagation_free(struct rp_lab_propagation *pp);
/* victims[k], sender_limited[k] as result.json's objects (ctx: the propagation) */
json_t *rp_lab_victim_item(void *pp, size_t k);
void rp_lab_victim_write(struct rp_jw *w, void *pp, size_t k); /* the same, typed (report/doc.h) */
json_t *rp_lab_limited_item(void *pp, size_t k);
/* The two streams of head's markers, for rp_doc_put_streams. */
void rp_lab_propagation_streams(struct rp_lab_propagation *pp, struct rp_report_wstream s[2]);
/* "capture": null, or per host {"node", "path" (its first file), "files",
 * "frames"}; valid after rp_lab_close_captures. */
json_t *rp_lab_capture_json(const struct rp_lab *lab);
/* "lab": totals (virtual end, events, hops, drops, DCQCN per flow). */
json_t *rp_lab_totals_json(const struct rp_lab *lab);

struct rp_lab_headline {
	double loss_pct;       /* lost / (sent - in_flight) packets, every flow */
	uint64_t lost;
	uint64_t in_flight;    /* sent, still in the fabric when the run stopped: not lost */
	uint64_t drops;        /* switch drops, every reason */
	double paused_pct;     /* the most paused host priority: paused time / run */
	uint64_t p99_ns, p999_ns;
	uint64_t latency_samples; /* 0: no probe carried a timestamp: p99/p999 unknown (null, "n/a") */
	double goodput_gbps;   /* every flow, summed */
	uint64_t max_queue_bytes; /* deepest egress queue of any switch */
	uint64_t end_ns;
};
void rp_lab_headline(const struct rp_lab *lab, struct rp_lab_headline *out);

/* Every switch port together: drops by reason and PFC frames sent. */
struct rp_lab_fabric_sum {
	uint64_t drops[RP_DROP_REASONS];           /* by enum rp_switch_drop */
	uint64_t pfc_tx;                           /* PFC frames the switches sent */
	uint64_t xoff_sent, xon_sent, refresh_sent; /* per (port, priority) they named */
};
void rp_lab_fabric_sum(const struct rp_lab *lab, struct rp_lab_fabric_sum *out);
json_t *rp_lab_headline_json(const struct rp_lab_headline *h);
/* result.json's flows[i] for a lab run: report/result.h's, plus in_flight. */
json_t *rp_lab_flow_item(void *acct, size_t i);
void rp_lab_flow_write(struct rp_jw *w, void *acct, size_t i); /* the same, typed (report/doc.h) */

#endif
