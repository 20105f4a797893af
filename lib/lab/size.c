/* `plan --size`: the lab run's peak resident memory from the plan. Parts:
 *
 *   base      the binary and its libraries, the process before the run
 *   hosts     per host: the lab's host NIC, its source and pause state
 *   switches  per switch: the lab's switch and the model's (frame
 *             descriptors, MAC table), per port its queues and its rows in
 *             the result (written while the lab is still whole), and a
 *             carrying port's depth series
 *   flows     per flow: plan, packet source, accountant (incl. its latency
 *             histogram), host NIC flow state, the result's row
 *   frames    the frames held at once (lab pool slots of the plan's largest
 *             frame + 72 B, rp_lab_slot_size, plus their events)
 *   series    accountant time-series bins of every host port (and of every
 *             flow, in a run of at most RP_ACCT_FLOW_SERIES_MAX flows)
 *   plan      the plan's host-pair matrices (nhosts^2 x 16 B, calloc'd: only
 *             the pages a pair of some flow lands on are resident)
 *
 * The frames held at the peak are the fabric's lossless room: each switch
 * holds at most, per ingress port that carries data, its XOFF threshold plus
 * the port's headroom (the priority is paused past it), and at most its
 * buffer; times the share of that room a run fills at its peak. A plan that
 * oversubscribes a receiver (an incast) or a fabric whose leaves have less
 * up than down (an oversubscribed tier) fills it (share 1: every congested
 * queue's senders are paused at XOFF); a non-blocking fabric carrying no
 * oversubscribed receiver queues only where ECMP puts two flows on one
 * uplink, and fills RP_SIZE_FILL_ECMP of it. The frames are never more than
 * the plan sends. The constants below were measured (docs/lab.md "Memory"
 * names the calibration runs); the lab's own structures count by sizeof. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab_internal.h"
#include "size.h"
#include "traffic/acct_cfg.h"

#define RP_SIZE_BASE (21u << 20)       /* the process before the run and its fixed tables (evq buckets) */
#define RP_SIZE_HOST 2048u             /* per host beyond its structs: source, pause state, result row */
#define RP_SIZE_SWITCH (64u << 10)     /* per switch beyond struct rp_lab_switch: the model's switch,
					* its 1024 first frame descriptors, MAC table */
#define RP_SIZE_PORT 10240u            /* per switch port: the model's port (queues, PGs, counters:
					* struct rp_port is 4.6 KB) and its rows in the result (measured:
					* 5 KB of the writing's peak a port) */
#define RP_SIZE_FLOW 4000u             /* per flow: see the header; measured on all-to-all runs */
#define RP_SIZE_SLOT_EXTRA 24u         /* per pool slot: length, zero range, flow, route key, free-list entry */
#define RP_SIZE_FRAME_EXTRA 1140u      /* per frame held beyond its slot: event-queue nodes (the queue
					* doubles), switch frame descriptors (doubling) */
#define RP_SIZE_BIN 32u                /* per bin of each host port (its rx, CE, CNP, latency cells) */
#define RP_SIZE_FLOW_BIN 16u           /* per bin of each flow, with at most RP_ACCT_FLOW_SERIES_MAX flows */
#define RP_SIZE_FILL_ECMP 0.30         /* non-blocking fabric: share of the room held at the peak */

struct walk {
	const struct rp_plan *plan;
	const bool *sends;   /* [nhosts] the host sends data */
	bool crosses;        /* some flow leaves its leaf */
	bool oversub_tier;   /* a switch with uplinks has less up than down */
	uint64_t frame;      /* the plan's mean data frame, bytes */
	uint64_t qbins;      /* a queue's depth series: bins (topo.c's series_bins) */
	uint64_t switch_bytes, room_frames;
	size_t ports, nsw;
};

static void each_switch(const struct rp_lab *lab, unsigned s, const struct rp_switch_cfg *c, void *arg)
{
	struct walk *w = arg;
	const struct rp_lab_switch *sw = &lab->sw[s];
	uint64_t room = 0, down = 0, up = 0;
	for (unsigned p = 0; p < sw->nports; p++) {
		const struct rp_lab_port *pt = &sw->port[p];
		bool carries = pt->kind == RP_PEER_HOST ? w->sends[pt->peer] : pt->kind == RP_PEER_SWITCH && w->crosses;
		if (pt->kind == RP_PEER_HOST || (pt->kind == RP_PEER_SWITCH && lab->sw[pt->peer].tier < sw->tier))
			down += pt->rate_bps;
		else if (pt->kind == RP_PEER_SWITCH)
			up += pt->rate_bps;
		if (!carries)
			continue;
		w->switch_bytes += w->qbins * sizeof(uint64_t); /* its data queue's depth series, from the first frame */
		uint64_t most = 0; /* the largest lossless PG of the port: XOFF + its headroom */
		for (unsigned tc = 0; tc < RP_SWITCH_TCS; tc++)
			if (c->lossless_mask >> tc & 1) {
				const struct rp_thresh *x = &c->pg[tc].xoff;
				uint64_t xoff = x->dynamic ? (uint64_t)((double)c->buffer_bytes * x->alpha / (1.0 + x->alpha))
							   : x->bytes;
				uint64_t r = xoff + c->port[p].headroom[tc];
				most = r > most ? r : most;
			}
		room += most ? most : c->buffer_bytes / (sw->nports ? sw->nports : 1); /* lossy: a share of the buffer */
	}
	if (up && down > up)
		w->oversub_tier = true;
	room = room < c->buffer_bytes ? room : c->buffer_bytes;
	w->room_frames += room / (w->frame ? w->frame : 1);
	w->ports += sw->nports;
	w->nsw++;
	w->switch_bytes += sizeof(*sw) + RP_SIZE_SWITCH + (uint64_t)sw->nports * RP_SIZE_PORT;
}

/* Whether some flow's two ends are on different leaves (the lab's layout). */
static void leaves_of(const struct rp_lab *lab, unsigned s, const struct rp_switch_cfg *c, void *arg)
{
	struct walk *w = arg;
	const struct rp_plan *pl = w->plan;
	(void)c;
	if (s + 1 != lab->nsw) /* once, when every host is placed */
		return;
	for (size_t i = 0; i < pl->nflows && !w->crosses; i++)
		w->crosses = pl->flows[i].kind == RP_TRAFFIC_RDMA && lab->hosts[pl->flows[i].src].sw != lab->hosts[pl->flows[i].dst].sw;
}

int rp_lab_size(const struct rp_plan *plan, struct rp_lab_size *out, char *err, size_t errlen)
{
	const struct rp_profile *prof = plan->prof;
	memset(out, 0, sizeof(*out));
	if (rp_lab_check_fit(prof, err, errlen))
		return -1;
	bool *sends = calloc(prof->nhosts ? prof->nhosts : 1, sizeof(*sends));
	if (!sends) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	bool receiver_over = false;
	uint64_t frames = 0, fbytes = 0, end = 0;
	for (size_t i = 0; i < plan->nflows; i++) {
		const struct rp_flow *f = &plan->flows[i];
		end = f->end_ns > end ? f->end_ns : end;
		if (f->kind != RP_TRAFFIC_RDMA)
			continue;
		sends[f->src] = true;
		frames += f->tot.pkts;
		fbytes += f->frame_bytes;
	}
	for (size_t h = 0; h < prof->nhosts; h++)
		receiver_over |= plan->load[h].rx_bps > (double)prof->hosts[h].speed_bps * 1.0001;
	/* The lab's run length (lab.c acct_init: the plan, + 1 ms; DCQCN x 4) in depth bins (topo.c). */
	uint64_t run = (end + 1000000) * (prof->fabric.dcqcn.enabled ? RP_LAB_DCQCN_SERIES_X : 1);
	uint64_t qbins = prof->fabric.qdepth_bin_ns ? run * 2 / prof->fabric.qdepth_bin_ns + 16 : 0;
	struct walk w = {.plan = plan, .sends = sends, .frame = frames ? fbytes / frames : 1,
			 .qbins = qbins > 20000 ? 20000 : qbins};
	int rc = rp_lab_topo_walk(prof, leaves_of, &w, err, errlen);
	if (rc == 0)
		rc = rp_lab_topo_walk(prof, each_switch, &w, err, errlen);
	free(sends);
	if (rc)
		return -1;
	out->hosts = prof->nhosts;
	out->switches = w.nsw;
	out->ports = w.ports;
	out->flows = plan->nflows;
	out->packets = frames;
	out->fill = receiver_over || w.oversub_tier ? 1.0 : RP_SIZE_FILL_ECMP;
	uint64_t held = (uint64_t)((double)w.room_frames * out->fill);
	out->frames_flying = held < frames ? held : frames;
	/* The accountant's series: the plan's length and the drain after it (lab.c: + 1 ms), 100 us bins. */
	out->bins = (end + 1000000) / 100000 + 1;
	uint64_t slot = rp_lab_slot_size(plan, &prof->fabric) + RP_SIZE_SLOT_EXTRA;
	out->base = RP_SIZE_BASE;
	out->host_bytes = (uint64_t)prof->nhosts * (sizeof(struct rp_lab_host) + sizeof(struct rp_host) + RP_SIZE_HOST);
	out->switch_bytes = w.switch_bytes;
	out->flow_bytes = (uint64_t)plan->nflows * RP_SIZE_FLOW;
	out->frame_bytes = out->frames_flying * (slot + RP_SIZE_FRAME_EXTRA);
	out->series_bytes = out->bins * (prof->nhosts * RP_SIZE_BIN +
					 (plan->nflows <= RP_ACCT_FLOW_SERIES_MAX ? plan->nflows * RP_SIZE_FLOW_BIN : 0));
	uint64_t matrix = (uint64_t)prof->nhosts * prof->nhosts * 2 * sizeof(uint64_t);
	uint64_t touched = (uint64_t)plan->nflows * 2 * 4096;
	out->plan_bytes = touched < matrix ? touched : matrix;
	out->total = out->base + out->host_bytes + out->switch_bytes + out->flow_bytes + out->frame_bytes +
		     out->series_bytes + out->plan_bytes;
	return 0;
}
