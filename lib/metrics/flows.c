/* The flow, port and latency families (flows.h). */
#include "flows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/acct.h"
#include "stats/hist.h"

struct family {
	const char *name, *help;
	size_t off;
};
#define F(field) offsetof(struct rp_metrics_flow, field)
static const struct family flow_families[] = {
	{"roceprobe_flow_tx_packets_total", "Packets the flow's sender sent.", F(tx_packets)},
	{"roceprobe_flow_tx_bytes_total", "Bytes of those packets (Ethernet, without FCS).", F(tx_bytes)},
#define NFAM_TX 2 /* the senders' families come first */
	{"roceprobe_flow_rx_packets_total", "Data packets the flow's receiver counted.", F(rx_packets)},
	{"roceprobe_flow_rx_bytes_total", "Bytes of the flow's data packets received.", F(rx_bytes)},
	{"roceprobe_flow_lost_packets_total",
	 "Packets lost: probe sequence gaps while running; sent minus received (less what is in flight) once done.",
	 F(lost)},
	{"roceprobe_flow_ce_packets_total", "Data packets that arrived marked CE (ECN).", F(ce)},
	{"roceprobe_flow_cnp_sent_total", "CNPs the flow's receiver sent.", F(cnp_tx)},
	{"roceprobe_flow_cnp_received_total", "CNPs the flow's sender received.", F(cnp_rx)},
};
#undef F
#define NFAM (sizeof(flow_families) / sizeof(flow_families[0]))

static uint64_t field(const struct rp_metrics_flow *f, size_t off) { return *(const uint64_t *)((const char *)f + off); }

/* Host pairs: flows sorted by (src, dst, prio), runs summed. */
static int by_pair(const void *a, const void *b)
{
	const struct rp_metrics_flow *x = *(const struct rp_metrics_flow *const *)a;
	const struct rp_metrics_flow *y = *(const struct rp_metrics_flow *const *)b;
	int c = strcmp(x->src, y->src);
	if (!c)
		c = strcmp(x->dst, y->dst);
	return c ? c : (x->prio > y->prio) - (x->prio < y->prio);
}

static void pairs(struct rp_prom *p, const struct rp_metrics_flow *f, size_t n, size_t nfam)
{
	const struct rp_metrics_flow **o = malloc(n * sizeof(*o));
	if (!o) {
		p->oom = true;
		return;
	}
	for (size_t i = 0; i < n; i++)
		o[i] = &f[i];
	qsort(o, n, sizeof(*o), by_pair);
	for (size_t k = 0; k < nfam; k++) {
		rp_prom_family(p, flow_families[k].name, "counter", flow_families[k].help);
		for (size_t i = 0; i < n;) {
			uint64_t sum = 0;
			size_t j = i;
			for (; j < n && by_pair(&o[i], &o[j]) == 0; j++)
				sum += field(o[j], flow_families[k].off);
			char prio[4];
			snprintf(prio, sizeof(prio), "%u", o[i]->prio);
			const struct rp_prom_label l[] = {{"src", o[i]->src}, {"dst", o[i]->dst}, {"prio", prio}};
			rp_prom_u64(p, flow_families[k].name, l, 3, sum);
			i = j;
		}
	}
	free(o);
}

void rp_metrics_flows(struct rp_prom *p, const struct rp_metrics_flow *f, size_t n, bool received)
{
	size_t nfam = received ? NFAM : NFAM_TX;
	rp_prom_family(p, "roceprobe_flows", "gauge", "Flows of the run (beyond 4096 the flow series are per host pair).");
	rp_prom_u64(p, "roceprobe_flows", NULL, 0, n);
	if (n > RP_METRICS_MAX_FLOWS) {
		pairs(p, f, n, nfam);
		return;
	}
	for (size_t k = 0; k < nfam; k++) {
		rp_prom_family(p, flow_families[k].name, "counter", flow_families[k].help);
		for (size_t i = 0; i < n; i++) {
			char id[12], prio[4];
			snprintf(id, sizeof(id), "%u", f[i].id);
			snprintf(prio, sizeof(prio), "%u", f[i].prio);
			const struct rp_prom_label l[] = {{"flow", id}, {"src", f[i].src}, {"dst", f[i].dst}, {"prio", prio}};
			rp_prom_u64(p, flow_families[k].name, l, 4, field(&f[i], flow_families[k].off));
		}
	}
}

void rp_metrics_ports(struct rp_prom *p, const struct rp_metrics_port *pt, size_t n, bool pfc_tx)
{
	char port[12], prio[4];
	rp_prom_family(p, "roceprobe_port_rx_frames_total", "counter", "Frames the port received (every class).");
	for (size_t i = 0; i < n; i++) {
		snprintf(port, sizeof(port), "%u", pt[i].port);
		const struct rp_prom_label l[] = {{"host", pt[i].host}, {"port", port}};
		rp_prom_u64(p, "roceprobe_port_rx_frames_total", l, 2, pt[i].rx_frames);
	}
	static const struct {
		const char *name, *help;
		int which;
	} fam[] = {
		{"roceprobe_port_pfc_rx_frames_total", "PFC frames the port received that pause this priority.", 0},
		{"roceprobe_port_pfc_tx_frames_total", "PFC frames the port sent for this priority.", 1},
		{"roceprobe_port_paused_seconds_total", "Time this priority of the port was paused by PFC it received.", 2},
	};
	for (size_t k = 0; k < 3; k++) {
		if (fam[k].which == 1 && !pfc_tx)
			continue;
		rp_prom_family(p, fam[k].name, "counter", fam[k].help);
		for (size_t i = 0; i < n; i++)
			for (unsigned q = 0; q < 8; q++) {
				snprintf(port, sizeof(port), "%u", pt[i].port);
				snprintf(prio, sizeof(prio), "%u", q);
				const struct rp_prom_label l[] = {{"host", pt[i].host}, {"port", port}, {"prio", prio}};
				if (fam[k].which == 2)
					rp_prom_ns(p, fam[k].name, l, 3, pt[i].paused_ns[q]);
				else
					rp_prom_u64(p, fam[k].name, l, 3, fam[k].which ? pt[i].pfc_tx[q] : pt[i].pfc_rx[q]);
			}
	}
}

struct lat_group {
	char *dst;
	unsigned prio;
	struct rp_hist *h;
};
/* Groups found by a hash of (dst, prio): a million flows of a lab over a
 * thousand receivers, each found in a step or two. */
struct rp_metrics_lat {
	struct lat_group *g;
	size_t n, cap;
	size_t *slot; /* [nslot]: group index + 1, 0 empty */
	size_t nslot;
};

struct rp_metrics_lat *rp_metrics_lat_new(void) { return calloc(1, sizeof(struct rp_metrics_lat)); }

static size_t lat_hash(const char *dst, unsigned prio)
{
	uint64_t h = 1469598103934665603ull ^ prio; /* FNV-1a */
	for (; *dst; dst++)
		h = (h ^ (unsigned char)*dst) * 1099511628211ull;
	return (size_t)h;
}

static size_t *lat_find(const struct rp_metrics_lat *l, const char *dst, unsigned prio)
{
	for (size_t k = lat_hash(dst, prio) & (l->nslot - 1);; k = (k + 1) & (l->nslot - 1)) {
		size_t s = l->slot[k];
		if (!s || (l->g[s - 1].prio == prio && strcmp(l->g[s - 1].dst, dst) == 0))
			return &l->slot[k];
	}
}

/* Room for one more group, the slots kept at most half full. */
static int lat_grow(struct rp_metrics_lat *l)
{
	if (l->n < l->cap)
		return 0;
	size_t cap = l->cap ? l->cap * 2 : 16, nslot = cap * 2;
	struct lat_group *g = realloc(l->g, cap * sizeof(*g));
	if (!g)
		return -1;
	l->g = g, l->cap = cap;
	size_t *slot = calloc(nslot, sizeof(*slot));
	if (!slot)
		return -1;
	free(l->slot);
	l->slot = slot, l->nslot = nslot;
	for (size_t i = 0; i < l->n; i++)
		*lat_find(l, l->g[i].dst, l->g[i].prio) = i + 1;
	return 0;
}

int rp_metrics_lat_add(struct rp_metrics_lat *l, const char *dst, unsigned prio,
		       void (*add)(struct rp_hist *h, const void *arg), const void *arg)
{
	if (lat_grow(l))
		return -1;
	size_t *s = lat_find(l, dst, prio);
	if (!*s) {
		struct lat_group *g = &l->g[l->n];
		*g = (struct lat_group){.dst = strdup(dst), .prio = prio, .h = malloc(sizeof(struct rp_hist))};
		if (!g->dst || !g->h) {
			free(g->dst);
			free(g->h);
			return -1;
		}
		rp_hist_init(g->h);
		*s = ++l->n;
	}
	add(l->g[*s - 1].h, arg);
	return 0;
}

void rp_metrics_lat_write(struct rp_prom *p, const struct rp_metrics_lat *l)
{
	rp_prom_family(p, "roceprobe_flow_latency_seconds", "histogram",
		       "One-way latency of the probes received, per receiving host and priority.");
	for (size_t i = 0; l && i < l->n; i++) {
		char prio[4];
		snprintf(prio, sizeof(prio), "%u", l->g[i].prio);
		const struct rp_prom_label lb[] = {{"dst", l->g[i].dst}, {"prio", prio}};
		rp_prom_hist(p, "roceprobe_flow_latency_seconds", lb, 2, l->g[i].h);
	}
}

void rp_metrics_lat_free(struct rp_metrics_lat *l)
{
	for (size_t i = 0; l && i < l->n; i++) {
		free(l->g[i].dst);
		free(l->g[i].h);
	}
	if (l) {
		free(l->g);
		free(l->slot);
	}
	free(l);
}

void rp_metrics_port_add(struct rp_metrics_port *pt, const struct rp_acct_port_result *pr)
{
	pt->host = pr->node; /* the caller keeps pr while pt is written */
	pt->port = pr->port;
	pt->rx_frames += pr->rx_frames;
	for (unsigned q = 0; q < 8; q++) {
		pt->pfc_rx[q] += pr->prio[q].pfc_rx;
		pt->pfc_tx[q] += pr->prio[q].pfc_tx;
		pt->paused_ns[q] += pr->prio[q].paused_ns;
	}
}

static void merge_latency(struct rp_hist *h, const void *arg)
{
	const struct rp_acct *a = ((const void *const *)arg)[0];
	size_t i = *(const size_t *)((const void *const *)arg)[1];
	rp_acct_flow_latency_merge(a, i, h);
}

void rp_metrics_acct(struct rp_prom *p, const struct rp_acct *a)
{
	size_t n = rp_acct_nflows(a), np = rp_acct_nports(a);
	struct rp_acct_flow_result *rows = calloc(n ? n : 1, sizeof(*rows));
	struct rp_metrics_flow *f = calloc(n ? n : 1, sizeof(*f));
	struct rp_metrics_port *pt = calloc(np ? np : 1, sizeof(*pt));
	struct rp_acct_port_result *pr = calloc(np ? np : 1, sizeof(*pr));
	struct rp_metrics_lat *lat = rp_metrics_lat_new();
	if (!rows || !f || !pt || !pr || !lat) {
		p->oom = true;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		struct rp_acct_flow_result *w = &rows[i];
		rp_acct_flow(a, i, w);
		f[i] = (struct rp_metrics_flow){.id = w->id, .src = w->src, .dst = w->dst, .prio = w->prio,
						.tx_packets = w->tx_packets, .tx_bytes = w->tx_bytes,
						.rx_packets = w->rx_packets, .rx_bytes = w->rx_bytes, .lost = w->lost,
						.ce = w->ce, .cnp_tx = w->cnp_tx, .cnp_rx = w->cnp_rx};
		const void *arg[2] = {a, &i};
		if (rp_metrics_lat_add(lat, w->dst, w->prio, merge_latency, arg)) {
			p->oom = true;
			goto out;
		}
	}
	for (size_t i = 0; i < np; i++) {
		rp_acct_port(a, i, &pr[i]);
		rp_metrics_port_add(&pt[i], &pr[i]);
	}
	rp_metrics_flows(p, f, n, true);
	rp_metrics_ports(p, pt, np, true);
	rp_metrics_lat_write(p, lat);
out:
	rp_metrics_lat_free(lat);
	free(rows);
	free(f);
	free(pt);
	free(pr);
}
