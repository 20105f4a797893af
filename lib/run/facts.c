/* This rank's facts (lib/report/rank_env.h): its part of result.json's
 * environment, capture and verbs, and where it ran. Rank 0 builds them into
 * result.json; under a launcher every rank ships its own, packed (merge.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "facts.h"
#include "stats/acct.h"

void rp_run_snapshot_xstats(struct rp_run *r)
{
	for (unsigned i = 0; i < r->s.nports; i++)
		r->nxstats[i] = rp_dp_port_pause_xstats(r->s.tx[i].port, r->xstats[i], RP_RUN_XSTATS);
}

/* The PMD's own pause counters, as changes over the run. */
static int xstats_facts(const struct rp_run *r, unsigned i, struct rp_env_port *p)
{
	struct rp_dp_xstat now[RP_RUN_XSTATS];
	unsigned n = rp_dp_port_pause_xstats(r->s.tx[i].port, now, RP_RUN_XSTATS);
	if (n && !(p->xstats = calloc(n, sizeof(*p->xstats))))
		return -1;
	for (unsigned k = 0; k < n; k++) {
		uint64_t before = 0;
		for (unsigned b = 0; b < r->nxstats[i]; b++)
			if (!strcmp(r->xstats[i][b].name, now[k].name))
				before = r->xstats[i][b].value;
		p->xstats[k] = (struct rp_env_count){rp_env_strdup(now[k].name), now[k].value - before};
		p->nxstats = k + 1;
		if (!p->xstats[k].name)
			return -1;
	}
	return 0;
}

/* This process's ports: environment.ports[]. */
static int ports_facts(const struct rp_run *r, struct rp_rank_env *e)
{
	if (r->s.nports && !(e->ports = calloc(r->s.nports, sizeof(*e->ports))))
		return -1;
	for (unsigned i = 0; i < r->s.nports; i++) {
		const struct rp_dp_txport *tp = &r->s.tx[i];
		const struct rp_dp_rxport *rp = &r->rx[0].ports[tp->index];
		struct rp_env_port *p = &e->ports[e->nports++];
		struct rp_session_port_totals t;
		rp_session_port_totals(&r->s, i, &t);
		uint64_t replies = 0;
		for (unsigned k = 0; k < r->s.nq; k++) {
			replies += r->rx[k].ports[tp->index].replies_sent;
			p->rx_stamped += r->rx[k].ports[tp->index].stamped;
			p->rx_unstamped += r->rx[k].ports[tp->index].unstamped;
		}
		/* how the port is held and stamps its frames (dp.h) */
		p->rx_clock = rp_env_strdup(rp_dp_rx_stamps_name(tp->port->rxs.kind));
		p->rx_clock_bound_ns = tp->port->rxs.bound_ns > 0 ? (uint64_t)tp->port->rxs.bound_ns : 0;
		p->shared = tp->port->isolated;
		p->pause_steered = tp->port->pause_steered;
		p->xdp_program = tp->port->xdp_program;
		p->tx_lead_ns = tp->port->txs.on ? RP_DP_TX_LEAD_NS : 0;
		p->tx_nic_late = tp->port->txs.late;
		p->node = rp_env_strdup(rp_session_host(&r->s, tp));
		p->devargs = rp_env_strdup(tp->port->name);
		p->driver = rp_env_strdup(tp->port->driver);
		p->link_bps = r->s.prof->hosts[tp->index].speed_bps;
		p->pmd_link_bps = tp->port->link_bps;
		p->tx_bytes = t.tx_bytes;
		p->impair_dropped = rp->impair.dropped;
		p->impair_marked = rp->impair.marked;
		p->replies_sent = replies;
		rp_txpath_port_facts(&r->txpath[i], &r->s, i, replies, p); /* tx_packets, tx_unsent and the path's */
		if (!p->node || !p->devargs || !p->driver || !p->rx_clock || xstats_facts(r, i, p) ||
		    rp_session_neigh_facts(tp, &p->neigh))
			return -1;
	}
	return 0;
}

/* This process's capture files (capture[]). */
static int capture_facts(const struct rp_run *r, struct rp_rank_env *e)
{
	if (!r->cfg.capture || !r->s.nports)
		return 0;
	if (!(e->captures = calloc(r->s.nports, sizeof(*e->captures))))
		return -1;
	for (unsigned i = 0; i < r->s.nports; i++) {
		const struct rp_capture_stats *c = &r->cap_stats[i];
		struct rp_env_capture *f = &e->captures[e->ncaptures++];
		char name[128];
		snprintf(name, sizeof(name), "capture-%s.pcap", rp_session_host(&r->s, &r->s.tx[i]));
		*f = (struct rp_env_capture){rp_env_strdup(rp_session_host(&r->s, &r->s.tx[i])), rp_env_strdup(name),
					     c->offered, c->written, c->dropped, c->sampled_out, c->files};
		if (!f->node || !f->path)
			return -1;
	}
	return 0;
}

/* This process's polling lcores: each one's packets (received + sent over
 * its queues) and its passes over them, and those that found work (their
 * share near 1: that core is the bottleneck). */
static int lcores_facts(const struct rp_run *r, struct rp_rank_env *e)
{
	const struct rp_dp_gen *g = &r->s.g;
	unsigned n = r->verbs_here ? 0 : g->n_lcores < RP_DP_MAX_LCORES ? g->n_lcores : RP_DP_MAX_LCORES;
	if (n && !(e->lcores = calloc(n, sizeof(*e->lcores))))
		return -1;
	for (unsigned k = 0; k < n; k++) {
		const struct rp_dp_lcore_stats *ls = &g->lcore[k];
		struct rp_env_lcore *l = &e->lcores[e->nlcores++];
		*l = (struct rp_env_lcore){.lcore = k, .lcore_id = ls->lcore_id, .socket = ls->socket,
					   .polls = ls->passes, .busy_polls = ls->busy};
		for (unsigned i = 0; i < rp_session_nqueues(&r->s); i++)
			if (r->s.tx[i].lcore == k) {
				l->rx_packets += r->s.tx[i].rx_frames;
				l->tx_packets += r->s.tx[i].tx_packets;
			}
	}
	return 0;
}

int rp_run_rank_facts(const struct rp_run *r, struct rp_rank_env *e)
{
	*e = (struct rp_rank_env){.present = true, .rank = r->cl.rank};
	if (!(e->node = rp_env_strdup(r->cl.ranks[r->cl.rank].node)) ||
	    !(e->clock_source = rp_env_strdup(r->cl.launched ? rp_cluster_clock_source() : ""))) /* cluster.ranks' */
		return -1;
	for (size_t h = 0; h < r->s.prof->nhosts; h++)
		e->nhosts += r->mine[h];
	if (e->nhosts && !(e->hosts = calloc(e->nhosts, sizeof(*e->hosts))))
		return -1;
	e->nhosts = 0;
	for (size_t h = 0; h < r->s.prof->nhosts; h++)
		if (r->mine[h] && !(e->hosts[e->nhosts++] = rp_env_strdup(r->s.prof->hosts[h].name)))
			return -1;
	/* What this rank's accountant held: the flows its hosts receive (accounted
	 * here) and all it held (those and the ones its hosts only send). */
	size_t held = r->acct ? rp_acct_nflows(r->acct) : 0, received = 0;
	for (size_t i = 0; i < held; i++)
		received += r->mine[r->s.plan.flows[r->flow_of[i]].dst];
	const struct rp_clock_offset none = {0}, *off = r->offsets ? &r->offsets[r->cl.rank] : &none;
	e->clock_offset_ns = off->offset_ns;
	e->clock_bound_ns = off->bound_ns;
	e->start_skew_ns = r->skew_ns;
	e->pclock_gap[0] = r->pclock_gap[0];
	e->pclock_gap[1] = r->pclock_gap[1];
	e->flows_accounted = received;
	e->flows_held = held;
	if (ports_facts(r, e) || capture_facts(r, e) || lcores_facts(r, e))
		return -1;
	return r->eng && r->eng->facts ? r->eng->facts(r, e) : 0;
}
