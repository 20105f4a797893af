/* Pause propagation: from the first standing queue, which hops received an
 * XOFF and when, how many hops deep it went, and the victims: flows to
 * receivers that were not oversubscribed that were paused anyway (their
 * sender was) or slowed (finished late: head-of-line blocking). A flow late
 * only by as much as its own sender's oversubscribed NIC explains (3 x 50G
 * from one 100G host) is no victim: it is sender_limited. */
#include <stdlib.h>

#include "lab_internal.h"
#include "report.h"

struct hop {
	unsigned s, port;
	uint64_t t;
};

static int hop_cmp(const void *a, const void *b)
{
	const struct hop *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->s != y->s)
		return x->s < y->s ? -1 : 1;
	return x->port < y->port ? -1 : x->port > y->port;
}

/* Switch hops from the congested switch (itself 0) over the fabric's
 * switch-to-switch links, breadth first: [nsw], or NULL when out of memory
 * or nothing congested (every distance then reads 0). */
static unsigned *distances(const struct rp_lab *lab)
{
	if (lab->congested_sw < 0)
		return NULL;
	unsigned *d = malloc(lab->nsw * sizeof(*d)), *q = malloc(lab->nsw * sizeof(*q));
	if (!d || !q) {
		free(d);
		free(q);
		return NULL;
	}
	for (unsigned s = 0; s < lab->nsw; s++)
		d[s] = UINT32_MAX;
	size_t head = 0, tail = 0;
	d[lab->congested_sw] = 0;
	q[tail++] = (unsigned)lab->congested_sw;
	while (head < tail) {
		const struct rp_lab_switch *S = &lab->sw[q[head]];
		unsigned next = d[q[head++]] + 1;
		for (unsigned p = 0; p < S->nports; p++)
			if (S->port[p].kind == RP_PEER_SWITCH && d[S->port[p].peer] == UINT32_MAX) {
				d[S->port[p].peer] = next;
				q[tail++] = S->port[p].peer;
			}
	}
	free(q);
	return d;
}

static const char *kind_of(const struct rp_lab *lab, const struct rp_lab_port *p)
{
	return p->kind == RP_PEER_HOST ? "host" : lab->sw[p->peer].role;
}

static json_t *hops_json(const struct rp_lab *lab, unsigned *depth)
{
	size_t n = 0;
	struct hop *h = calloc((size_t)lab->nsw * RP_SWITCH_MAX_PORTS + 1, sizeof(*h));
	json_t *a = json_array();
	for (unsigned s = 0; h && s < lab->nsw; s++)
		for (unsigned p = 0; p < lab->sw[s].nports; p++)
			if (lab->sw[s].first_xoff_ns[p] != RP_LAB_NEVER)
				h[n++] = (struct hop){s, p, lab->sw[s].first_xoff_ns[p]};
	if (h)
		qsort(h, n, sizeof(*h), hop_cmp);
	*depth = 0;
	unsigned *dist = distances(lab);
	for (size_t i = 0; i < n; i++) {
		const struct rp_lab_switch *S = &lab->sw[h[i].s];
		const struct rp_lab_port *lp = &S->port[h[i].port];
		char peer[48];
		unsigned d = (dist && dist[h[i].s] != UINT32_MAX ? dist[h[i].s] : 0) + 1;
		*depth = d > *depth ? d : *depth;
		if (lp->kind == RP_PEER_HOST)
			snprintf(peer, sizeof(peer), "%s", lab->prof->hosts[lp->peer].name);
		else
			snprintf(peer, sizeof(peer), "%s", lab->sw[lp->peer].name);
		json_t *after = lab->congestion_ns != RP_LAB_NEVER && h[i].t >= lab->congestion_ns
					? json_integer((json_int_t)(h[i].t - lab->congestion_ns))
					: json_null();
		json_array_append_new(a, json_pack("{s:s, s:i, s:s, s:s, s:I, s:o, s:i}", "switch", S->name, "port",
						   (int)h[i].port, "paused", peer, "paused_kind", kind_of(lab, lp),
						   "first_xoff_ns", (json_int_t)h[i].t, "after_congestion_ns", after, "hop",
						   (int)d));
	}
	free(dist);
	free(h);
	return a;
}

/* Whether anyone offers this host more than its link takes. */
static bool oversubscribed(const struct rp_lab *lab, unsigned host)
{
	return lab->plan->load[host].rx_bps > (double)lab->prof->hosts[host].speed_bps * 1.0001;
}

/* How late flow pf would finish because its own sender's NIC is offered more
 * than its link takes: its planned span stretched by offered / speed (0 when
 * the NIC is not oversubscribed). */
static uint64_t sender_late_ns(const struct rp_lab *lab, const struct rp_flow *pf, uint64_t span)
{
	double offered = lab->plan->load[pf->src].tx_bps, speed = (double)lab->prof->hosts[pf->src].speed_bps;
	if (offered <= speed * 1.0001)
		return 0;
	return (uint64_t)((double)span * (offered / speed - 1.0));
}

/* 5% of the flow's planned span and 10 us: late enough to matter. */
static bool late_enough(uint64_t late, uint64_t span)
{
	return late > 10000 && late * 20 > span;
}

/* Flow i into victims (paused on its priority, or late beyond what its own
 * sender explains) or sender_limited (late, all of it its own sender's NIC
 * being oversubscribed: no PFC involved), or neither. */
static void victim_sort(const struct rp_lab *lab, size_t i, struct rp_lab_propagation *pp)
{
	struct rp_acct_flow_result r;
	struct rp_acct_port_result sp;
	rp_acct_flow(lab->acct, i, &r);
	const struct rp_flow *pf = &lab->plan->flows[lab->flow_of[i]];
	if (oversubscribed(lab, pf->dst))
		return;
	rp_acct_port(lab->acct, pf->src, &sp);
	uint64_t paused = sp.prio[pf->prio].paused_ns;
	uint64_t late = r.last_rx_ns > pf->end_ns ? r.last_rx_ns - pf->end_ns : 0;
	uint64_t span = pf->end_ns > pf->p.start_ns ? pf->end_ns - pf->p.start_ns : 1;
	uint64_t own = sender_late_ns(lab, pf, span);
	bool slowed = late_enough(late > own ? late - own : 0, span); /* beyond its own sender's share */
	if (paused || slowed)
		pp->victims[pp->nvictims++] = (struct rp_lab_victim){i, paused, late, own, paused > 0, slowed};
	else if (own && late_enough(late, span))
		pp->limited[pp->nlimited++] = (struct rp_lab_victim){i, paused, late, own, false, false};
}

struct rp_lab_propagation *rp_lab_propagation(const struct rp_lab *lab)
{
	size_t n = rp_acct_nflows(lab->acct);
	struct rp_lab_propagation *pp = calloc(1, sizeof(*pp));
	if (!pp || !(pp->victims = malloc((n ? n : 1) * sizeof(*pp->victims))) ||
	    !(pp->limited = malloc((n ? n : 1) * sizeof(*pp->limited)))) {
		rp_lab_propagation_free(pp);
		return NULL;
	}
	pp->lab = lab;
	for (size_t i = 0; i < n; i++)
		victim_sort(lab, i, pp);
	unsigned depth;
	json_t *hops = hops_json(lab, &depth);
	json_t *start = lab->congestion_ns == RP_LAB_NEVER ? json_null() : json_integer((json_int_t)lab->congestion_ns);
	json_t *where = lab->congested_sw < 0 ? json_null()
					       : json_pack("{s:s, s:i}", "switch", lab->sw[lab->congested_sw].name, "port",
							   lab->congested_port);
	pp->victims_marker = json_array();
	pp->limited_marker = json_array();
	pp->head = json_pack("{s:o, s:o, s:i, s:o, s:O, s:O}", "congestion_start_ns", start, "congested", where, "depth",
			     (int)depth, "hops", hops, "victims", pp->victims_marker, "sender_limited", pp->limited_marker);
	if (!pp->head) {
		rp_lab_propagation_free(pp);
		return NULL;
	}
	return pp;
}

void rp_lab_propagation_free(struct rp_lab_propagation *pp)
{
	if (!pp)
		return;
	json_decref(pp->head);
	json_decref(pp->victims_marker);
	json_decref(pp->limited_marker);
	free(pp->victims);
	free(pp->limited);
	free(pp);
}

void rp_lab_victim_write(struct rp_jw *w, void *ctx, size_t k)
{
	const struct rp_lab_propagation *pp = ctx;
	const struct rp_lab *lab = pp->lab;
	const struct rp_lab_victim *v = &pp->victims[k];
	struct rp_acct_flow_result r;
	rp_acct_flow(lab->acct, v->flow, &r);
	const struct rp_flow *pf = &lab->plan->flows[lab->flow_of[v->flow]];
	rp_jw_obj(w, NULL);
	rp_jw_int(w, "flow", (int)r.id);
	rp_jw_str(w, "src", r.src);
	rp_jw_str(w, "dst", r.dst);
	rp_jw_int(w, "prio", (int)pf->prio);
	rp_jw_int(w, "sender_paused_ns", (int64_t)v->paused_ns);
	rp_jw_int(w, "late_ns", (int64_t)v->late_ns);
	rp_jw_bool(w, "paused", v->paused);
	rp_jw_bool(w, "slowed", v->slowed);
	rp_jw_end(w);
}

json_t *rp_lab_victim_item(void *ctx, size_t k)
{
	return rp_jw_tree(rp_lab_victim_write, ctx, k);
}

json_t *rp_lab_limited_item(void *ctx, size_t k)
{
	const struct rp_lab_propagation *pp = ctx;
	const struct rp_lab *lab = pp->lab;
	const struct rp_lab_victim *v = &pp->limited[k];
	struct rp_acct_flow_result r;
	rp_acct_flow(lab->acct, v->flow, &r);
	const struct rp_flow *pf = &lab->plan->flows[lab->flow_of[v->flow]];
	return json_pack("{s:i, s:s, s:s, s:i, s:I, s:I, s:f, s:f}", "flow", (int)r.id, "src", r.src, "dst", r.dst, "prio",
			 (int)pf->prio, "late_ns", (json_int_t)v->late_ns, "sender_late_ns", (json_int_t)v->own_ns,
			 "sender_offered_gbps", lab->plan->load[pf->src].tx_bps / 1e9, "sender_speed_gbps",
			 (double)lab->prof->hosts[pf->src].speed_bps / 1e9);
}

static void limited_write(struct rp_jw *w, void *ctx, size_t k)
{
	json_t *o = rp_lab_limited_item(ctx, k); /* a few at most: each its own sender's overload */
	rp_jw_json(w, NULL, o);
	json_decref(o);
}

void rp_lab_propagation_streams(struct rp_lab_propagation *pp, struct rp_report_wstream s[2])
{
	s[0] = (struct rp_report_wstream){pp->victims_marker, pp->nvictims, rp_lab_victim_write, pp};
	s[1] = (struct rp_report_wstream){pp->limited_marker, pp->nlimited, limited_write, pp};
}

json_t *rp_lab_propagation_json(const struct rp_lab *lab)
{
	struct rp_lab_propagation *pp = rp_lab_propagation(lab);
	if (!pp)
		return NULL;
	json_t *o = json_deep_copy(pp->head);
	json_t *v = json_object_get(o, "victims"), *l = json_object_get(o, "sender_limited");
	for (size_t k = 0; k < pp->nvictims; k++)
		json_array_append_new(v, rp_lab_victim_item(pp, k));
	for (size_t k = 0; k < pp->nlimited; k++)
		json_array_append_new(l, rp_lab_limited_item(pp, k));
	rp_lab_propagation_free(pp);
	return o;
}
