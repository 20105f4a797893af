/* Building and tearing down a lab world. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab_internal.h"
#include "stats/hist.h"

/* The receiving side can take longer than the plan (an incast drains at one
 * link's rate): size the time series for the slowest receiver. */
static uint64_t drain_ns(const struct rp_plan *plan)
{
	const struct rp_profile *p = plan->prof;
	uint64_t worst = 0;
	for (size_t d = 0; d < p->nhosts; d++) {
		uint64_t bytes = 0;
		for (size_t s = 0; s < p->nhosts; s++)
			bytes += rp_plan_pair_bytes(plan, s, d);
		uint64_t ns = (uint64_t)((double)bytes * 1.1 * 8e9 / (double)p->hosts[d].speed_bps);
		worst = ns > worst ? ns : worst;
	}
	return worst;
}

/* opts.setup: a stage starts (what), or a poll within one (NULL). */
static int stage(struct rp_lab *lab, const char *what)
{
	return lab->opts.setup && lab->opts.setup(what, lab->opts.progress_arg);
}

int rp_lab_setup_poll(struct rp_lab *lab)
{
	return stage(lab, NULL);
}

static int acct_poll(void *lab)
{
	return stage(lab, NULL);
}

static int acct_init(struct rp_lab *lab, char *err, size_t errlen)
{
	if (rp_acct_cfg_from_plan(lab->plan, &lab->acfg, &lab->flow_of, err, errlen))
		return -1;
	lab->acfg.poll = acct_poll;
	lab->acfg.poll_arg = lab;
	lab->acfg.latency = true;
	lab->acfg.track_psn = true;
	lab->acfg.bin_ns = lab->opts.bin_ns;
	uint64_t d = drain_ns(lab->plan);
	d = d > lab->acfg.run_ns ? d : lab->acfg.run_ns;
	lab->planned_ns = lab->fab->max_time_ns && lab->fab->max_time_ns < d ? lab->fab->max_time_ns : d;
	/* DCQCN slows senders below what the plan asks: room for a run 4x as
	 * long (incast-32to1-ecn with mlx5's defaults takes 2.3x); a slower one
	 * is said after the run (one.c: where the series stopped). */
	if (lab->fab->dcqcn.enabled)
		d *= RP_LAB_DCQCN_SERIES_X;
	lab->acfg.run_ns = d + 1000000;
	lab->acct = rp_acct_create(&lab->acfg, err, errlen);
	/* The accountant copied each flow's cfg: the lab needs only their count
	 * (and flow_of) from here on, not a second copy of ~170 B a flow. */
	free((void *)lab->acfg.flows);
	lab->acfg.flows = NULL;
	return lab->acct ? 0 : -1;
}

/* A frame slot holds the largest frame the run's hosts send (data, and
 * whatever a responder sends back: rp_flow_max_frame covers every kind), with
 * room for two VLAN tags a switch may push, not the fabric's max_frame: the
 * slots are most of a packet-heavy run's memory (issue 29), and a 4 KiB MTU
 * run under a 9216 B fabric would take twice what it needs. Replies, PFC and
 * CNPs are smaller than any data frame. + 64: the sources write in 32 B blocks. */
size_t rp_lab_slot_size(const struct rp_plan *plan, const struct rp_fabric *fab)
{
	uint32_t most = 128; /* an ACK, NAK, CNP or PFC frame */
	for (size_t i = 0; i < plan->nflows; i++) {
		uint32_t f = rp_flow_max_frame(&plan->flows[i]);
		most = f > most ? f : most;
	}
	most += 8;
	return (most < fab->max_frame ? most : fab->max_frame) + 64;
}

static size_t slot_size(const struct rp_lab *lab)
{
	return rp_lab_slot_size(lab->plan, lab->fab);
}

static int too_many_flows(const struct rp_profile *prof, size_t nflows, char *err, size_t errlen)
{
	if (nflows <= RP_LAB_MAX_FLOWS)
		return 0;
	snprintf(err, errlen,
		 "%s: %zu flows; one lab run holds at most %u (about %u bytes each, %.1f GiB here): run fewer hosts "
		 "or fewer flows per host",
		 prof->name, nflows, RP_LAB_MAX_FLOWS, RP_LAB_FLOW_BYTES,
		 (double)nflows * RP_LAB_FLOW_BYTES / (1u << 30));
	return -1;
}

int rp_lab_check_fit(const struct rp_profile *prof, char *err, size_t errlen)
{
	const struct rp_fabric *f = &prof->fabric;
	size_t n = prof->nhosts;
	if (too_many_flows(prof, rp_plan_count_flows(prof), err, errlen))
		return -1; /* before a plan of them is built */
	if (f->topology != RP_TOPO_SINGLE || n <= RP_SWITCH_MAX_PORTS) /* the other shapes: lib/profile checks */
		return rp_lab_topo_check(prof, err, errlen);            /* the switches their ports make */
	/* leaves of 48 hosts, up to 16 uplinks each (lib/profile/fabric.c checks the shape) */
	size_t leaves = (n + 47) / 48;
	snprintf(err, errlen,
		 "%s: %zu hosts on one switch, which has at most %d ports%s: add fabric: {topology: leaf-spine, "
		 "leaves: %zu} or a fat-tree (docs/lab.md)",
		 prof->name, n, RP_SWITCH_MAX_PORTS, f->present ? "" : " (the profile has no fabric: section)",
		 leaves < 2 ? 2 : leaves);
	return -1;
}

int rp_lab_check_plan(const struct rp_plan *plan, char *err, size_t errlen)
{
	for (size_t h = 0; h < plan->prof->nhosts; h++)
		if (plan->prof->hosts[h].mac_auto) {
			snprintf(err, errlen, "host '%s' has mac: auto (its DPDK port's own MAC); the lab has no ports: give it "
				 "a MAC like 02:00:00:00:00:%02zx for `lab`", plan->prof->hosts[h].name, (h + 1) & 0xff);
			return -1;
		} else if (plan->prof->hosts[h].ip_pending) {
			snprintf(err, errlen, "host '%s' takes its address from its port's netdev (netdev); the lab has no "
				 "ports: give it an address like 10.0.0.%zu for `lab`", plan->prof->hosts[h].name, (h % 250) + 1);
			return -1;
		}
	for (size_t i = 0; i < plan->nflows; i++) {
		const struct rp_flow *f = &plan->flows[i];
		uint32_t most = rp_flow_max_frame(f);
		if (most > plan->prof->fabric.max_frame) { /* the switches would drop every one as malformed */
			snprintf(err, errlen,
				 "flow %zu (%s -> %s) sends frames of %u B, over fabric.max_frame (%u B): raise max_frame or "
				 "lower the flow's mtu",
				 i, plan->prof->hosts[f->src].name, plan->prof->hosts[f->dst].name, most,
				 plan->prof->fabric.max_frame);
			return -1;
		}
		if (f->kind == RP_TRAFFIC_RDMA && f->nh.via_gateway) {
			snprintf(err, errlen,
				 "flow %zu (%s -> %s) is routed through a gateway; the lab's fabric is one Ethernet segment: "
				 "drop the prefix lengths or gateways for `lab`",
				 i, plan->prof->hosts[f->src].name, plan->prof->hosts[f->dst].name);
			return -1;
		}
	}
	return too_many_flows(plan->prof, plan->nflows, err, errlen);
}

static uint64_t mac48(const uint8_t m[6])
{
	return (uint64_t)m[0] << 40 | (uint64_t)m[1] << 32 | (uint64_t)m[2] << 24 | (uint64_t)m[3] << 16 |
	       (uint64_t)m[4] << 8 | m[5];
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Hosts' MACs are distinct (the profile checks), and a host index (below
 * RP_MAX_HOSTS, 16384) fits the low 16 bits. */
static uint64_t *mac_index_build(const struct rp_profile *prof)
{
	uint64_t *ix = malloc((prof->nhosts ? prof->nhosts : 1) * sizeof(*ix));
	for (size_t h = 0; ix && h < prof->nhosts; h++)
		ix[h] = mac48(prof->hosts[h].mac) << 16 | h;
	if (ix)
		qsort(ix, prof->nhosts, sizeof(*ix), cmp_u64);
	return ix;
}

int rp_lab_host_by_mac(const struct rp_lab *lab, const uint8_t mac[6])
{
	uint64_t key = mac48(mac);
	size_t lo = 0, hi = lab->nhosts;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		uint64_t k = lab->mac_index[mid] >> 16;
		if (k == key)
			return (int)(lab->mac_index[mid] & 0xFFFF);
		if (k < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* The captures may take what the disk has free, less room for the run's
 * own files (result.json, summary.txt, qdepth.csv: measured about 4 KiB a
 * flow, host port and switch port, and 32 B a time-series bin of each flow
 * and port): a capture that fills the disk would leave no room for the
 * result. Less than --capture-max: that room is the limit. */
static void capture_room(struct rp_lab *lab)
{
	const char *dir = lab->opts.capture_dir ? lab->opts.capture_dir
			  : lab->opts.nmirrors ? lab->opts.evidence_dir : NULL; /* the mirrors' pcaps alone */
	unsigned files = (lab->opts.capture_dir ? (unsigned)lab->nhosts : 0) + (unsigned)lab->opts.nmirrors;
	if (!dir)
		return;
	uint64_t ports = 0, bins = lab->acfg.run_ns / (lab->acfg.bin_ns ? lab->acfg.bin_ns : 100000) + 1;
	for (unsigned s = 0; s < lab->nsw; s++)
		ports += lab->sw[s].nports;
	uint64_t things = lab->plan->nflows + lab->nhosts;
	uint64_t reserve = 65536 + 4096 * (things + ports) + 32 * bins * things;
	uint64_t room = rp_lab_cap_room(dir, reserve, files);
	if (room != UINT64_MAX && (!lab->capb.max_bytes || room < lab->capb.max_bytes)) {
		lab->capb.max_bytes = room ? room : 1;
		lab->cap_room_limited = true;
	}
}

struct rp_lab *rp_lab_create(const struct rp_profile *prof, const struct rp_plan *plan, const struct rp_lab_opts *o,
			     char *err, size_t errlen)
{
	if (rp_lab_check_fit(prof, err, errlen) || rp_lab_check_plan(plan, err, errlen))
		return NULL;
	struct rp_lab *lab = calloc(1, sizeof(*lab));
	if (!lab) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	lab->prof = prof;
	lab->plan = plan;
	lab->fab = &prof->fabric;
	if (o)
		lab->opts = *o;
	lab->nhosts = prof->nhosts;
	lab->capb.max_bytes = lab->opts.capture_max;
	lab->tie_rng = prof->fabric.seed ^ 0x7469652D62726B21ull; /* a stream apart from RED's */
	lab->congestion_ns = RP_LAB_NEVER;
	lab->congested_sw = lab->congested_port = -1;
	rp_evq_init(&lab->q);
	rp_pool_init(&lab->pool, slot_size(lab));
	lab->hosts = calloc(lab->nhosts, sizeof(*lab->hosts));
	lab->mac_index = mac_index_build(prof);
	if (!lab->hosts || !lab->mac_index) {
		snprintf(err, errlen, "out of memory");
		rp_lab_destroy(lab);
		return NULL;
	}
	char what[96];
	snprintf(what, sizeof(what), "accounting (%zu flows)", plan->nflows);
	int stopped = stage(lab, what);
	if (stopped || acct_init(lab, err, errlen)) {
		if (stopped)
			snprintf(err, errlen, "stopped");
		rp_lab_destroy(lab);
		return NULL;
	}
	snprintf(what, sizeof(what), "topology (%zu hosts)", lab->nhosts);
	if ((stopped = stage(lab, what)) || rp_lab_topo_build(lab, err, errlen)) {
		if (stopped)
			snprintf(err, errlen, "stopped");
		rp_lab_destroy(lab);
		return NULL;
	}
	capture_room(lab);
	if (rp_lab_mirrors_open(lab, err, errlen)) {
		rp_lab_destroy(lab);
		return NULL;
	}
	snprintf(what, sizeof(what), "hosts (%zu hosts, %u switches, %zu flows)", lab->nhosts, lab->nsw, plan->nflows);
	if ((stopped = stage(lab, what)) || rp_lab_hosts_init(lab, err, errlen)) {
		if (stopped)
			snprintf(err, errlen, "stopped");
		rp_lab_destroy(lab);
		return NULL;
	}
	if (lab->opts.counters_ns &&
	    !(lab->ctrs = rp_lab_ctrs_open(lab, lab->opts.evidence_dir, lab->opts.counters_ns, err, errlen))) {
		rp_lab_destroy(lab);
		return NULL;
	}
	lab->ctrs_next = 0;
	rp_lab_sw_refs(lab);
	return lab;
}

uint64_t rp_lab_planned_ns(const struct rp_lab *lab)
{
	return lab->planned_ns;
}

void rp_lab_destroy(struct rp_lab *lab)
{
	if (!lab)
		return;
	rp_lab_hosts_free(lab);
	rp_lab_mirrors_free(lab);
	rp_lab_ctrs_free(lab->ctrs);
	free(lab->mac_index);
	rp_lab_topo_free(lab);
	rp_acct_destroy(lab->acct);
	rp_acct_cfg_free(&lab->acfg);
	free(lab->flow_of);
	rp_pool_free(&lab->pool);
	rp_evq_free(&lab->q);
	free(lab);
}

int rp_lab_close_captures(struct rp_lab *lab, char *err, size_t errlen)
{
	int rc = 0;
	if (lab->ctrs) {
		rc = rp_lab_ctrs_close(lab->ctrs, lab, lab->tot.end_ns, err, errlen);
		rp_lab_ctrs_free(lab->ctrs);
		lab->ctrs = NULL;
	}
	rp_lab_mirrors_close(lab);
	for (size_t h = 0; h < lab->nhosts; h++) {
		struct rp_lab_host *H = &lab->hosts[h];
		if (!H->cap)
			continue;
		rp_lab_cap_close(H->cap, lab->tot.end_ns);
		H->cap_files = rp_lab_cap_nfiles(H->cap);
		H->cap_frames = rp_lab_cap_frames(H->cap);
		rp_lab_cap_free(H->cap);
		H->cap = NULL;
	}
	if (lab->capb.failed && !lab->cap_told) { /* the last flush failed */
		lab->cap_told = true;
		if (lab->opts.capture_failed)
			lab->opts.capture_failed(lab->capb.error, lab->capb.stopped_ns, lab->opts.progress_arg);
	}
	lab->tot.capture_bytes = lab->capb.used;
	lab->tot.capture_stopped = lab->capb.stopped;
	lab->tot.capture_stopped_ns = lab->capb.stopped_ns;
	lab->tot.capture_max = lab->capb.max_bytes;
	lab->tot.capture_room_limited = lab->cap_room_limited;
	lab->tot.capture_failed = lab->capb.failed;
	snprintf(lab->tot.capture_error, sizeof(lab->tot.capture_error), "%s", lab->capb.error);
	return rc;
}

void rp_lab_totals(const struct rp_lab *lab, struct rp_lab_totals *out)
{
	*out = lab->tot;
}

const struct rp_acct *rp_lab_acct(const struct rp_lab *lab)
{
	return lab->acct;
}
