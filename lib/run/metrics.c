/* A run's numbers for `--metrics` (lib/metrics): what the packet path counts
 * anyway, read from the metrics server's thread.
 *
 * While the run goes (rp_run_metrics_live): every lcore's accountant's flow
 * rows and ports summed, the senders' counts from their packet sources, the
 * lcores' passes; loss as the probe sequence gaps seen so far. Latency
 * histograms are not served live: a flow's sparse histogram grows by
 * realloc on the packet path, which another thread may not read without a
 * lock there. Once the lcores and ranks are merged (rp_run_metrics_final):
 * the closed accountant's rows, exactly result.json's, with the latency. go.c
 * switches between them under the server's lock, so a scrape never reads an
 * accountant the merge is freeing. */
#include <stdlib.h>

#include "metrics/flows.h"
#include "metrics/metrics.h"
#include "run.h"
#include "stats/acct.h"
#include "stats/hist.h"
#include "stats/pause.h"
#include "traffic/source.h"

static unsigned lanes(const struct rp_run *r) { return r->s.nq ? r->s.nq : 1; }

/* What the sources sent so far, summed by plan flow (a host's flows are
 * shared over its queues): [plan.nflows], NULL out of memory. */
static struct rp_source_flow_stats *sent_by_flow(const struct rp_session *s)
{
	size_t nplan = s->plan.nflows;
	struct rp_source_flow_stats *tx = calloc(nplan ? nplan : 1, sizeof(*tx));
	for (unsigned i = 0; tx && i < rp_session_nqueues(s); i++) {
		const struct rp_source *src = s->tx[i].src;
		for (size_t k = 0; src && k < rp_source_nflows(src); k++) {
			struct rp_source_flow_stats st;
			rp_source_flow_stats(src, k, &st);
			if (st.flow_id < nplan) {
				tx[st.flow_id].tx_packets += st.tx_packets;
				tx[st.flow_id].tx_bytes += st.tx_bytes;
			}
		}
	}
	return tx;
}

static void lcores(struct rp_prom *p, const struct rp_dp_gen *g)
{
	rp_prom_family(p, "roceprobe_lcore_passes_total", "counter", "Passes of the lcore over its queues.");
	rp_prom_family(p, "roceprobe_lcore_busy_passes_total", "counter",
		       "Passes that received or sent a frame: rate(busy) / rate(passes) is the lcore's busy share.");
	char id[12];
	for (unsigned k = 0; k < g->n_lcores && k < RP_DP_MAX_LCORES; k++) {
		snprintf(id, sizeof(id), "%u", g->lcore[k].lcore_id);
		const struct rp_prom_label l[] = {{"lcore", id}};
		rp_prom_u64(p, "roceprobe_lcore_passes_total", l, 1, g->lcore[k].passes);
		rp_prom_u64(p, "roceprobe_lcore_busy_passes_total", l, 1, g->lcore[k].busy);
	}
}

static void port_tx(struct rp_prom *p, const struct rp_session *s)
{
	rp_prom_family(p, "roceprobe_port_tx_packets_total", "counter", "Frames the host's port sent (its senders' and its replies).");
	rp_prom_family(p, "roceprobe_port_tx_bytes_total", "counter", "Bytes of those frames, without FCS.");
	for (unsigned i = 0; i < s->nports; i++) {
		struct rp_session_port_totals t;
		rp_session_port_totals(s, i, &t);
		const struct rp_prom_label l[] = {{"host", rp_session_host(s, &s->tx[i])}};
		rp_prom_u64(p, "roceprobe_port_tx_packets_total", l, 1, t.tx_packets);
		rp_prom_u64(p, "roceprobe_port_tx_bytes_total", l, 1, t.tx_bytes);
	}
}

/* The accountants' ports: names and counts (summed over the lcores'). */
static void ports(struct rp_prom *p, struct rp_acct *const *acct, unsigned nacct)
{
	size_t n = rp_acct_nports(acct[0]);
	struct rp_metrics_port *pt = calloc(n ? n : 1, sizeof(*pt));
	struct rp_acct_port_result *res = calloc((n ? n : 1) * nacct, sizeof(*res));
	if (!pt || !res)
		p->oom = true;
	for (size_t i = 0; pt && res && i < n; i++)
		for (unsigned k = 0; k < nacct; k++) {
			rp_acct_port(acct[k], i, &res[i * nacct + k]);
			rp_metrics_port_add(&pt[i], &res[i * nacct + k]);
		}
	if (pt && res)
		rp_metrics_ports(p, pt, n, true);
	free(pt);
	free(res);
}

void rp_run_metrics_live(struct rp_prom *p, void *arg)
{
	struct rp_run *r = arg;
	struct rp_acct *acct[RP_DP_MAX_QUEUES];
	unsigned nacct = 0;
	for (unsigned k = 0; k < lanes(r) && k < RP_DP_MAX_QUEUES; k++)
		if (r->rx[k].acct)
			acct[nacct++] = r->rx[k].acct;
	lcores(p, &r->s.g);
	port_tx(p, &r->s);
	if (!nacct)
		return;
	size_t n = rp_acct_nflows(acct[0]), nplan = r->s.plan.nflows;
	struct rp_metrics_flow *f = calloc(n ? n : 1, sizeof(*f));
	struct rp_source_flow_stats *tx = sent_by_flow(&r->s); /* by plan flow */
	if (!f || !tx) {
		p->oom = true;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const struct rp_acct_flow_cfg *c = &r->acfg.flows[i];
		const struct rp_source_flow_stats *st = r->flow_of[i] < nplan ? &tx[r->flow_of[i]] : NULL;
		f[i] = (struct rp_metrics_flow){.id = c->id, .src = c->src, .dst = c->dst, .prio = c->prio,
						.tx_packets = st ? st->tx_packets : 0, .tx_bytes = st ? st->tx_bytes : 0};
		for (unsigned k = 0; k < nacct; k++) {
			struct rp_acct_flow_result row;
			rp_acct_flow(acct[k], i, &row);
			f[i].rx_packets += row.rx_packets;
			f[i].rx_bytes += row.rx_bytes;
			f[i].ce += row.ce;
			f[i].cnp_tx += row.cnp_tx;
			f[i].cnp_rx += row.cnp_rx;
			f[i].lost += rp_acct_flow_gaps(acct[k], i);
		}
	}
	rp_metrics_flows(p, f, n, true);
	ports(p, acct, nacct);
out:
	free(f);
	free(tx);
}

void rp_run_metrics_final(struct rp_prom *p, void *arg)
{
	struct rp_run *r = arg;
	lcores(p, &r->s.g);
	port_tx(p, &r->s);
	if (r->acct)
		rp_metrics_acct(p, r->acct);
}

/* gen: its senders (no receivers, no accountant): the ports' PFC received
 * as their TX lcores honour it, the flows' packets sent (a PFC source's
 * frames too, dst ""). */
void rp_session_metrics(struct rp_prom *p, void *arg)
{
	const struct rp_session *s = arg;
	lcores(p, &s->g);
	port_tx(p, s);
	size_t nplan = s->plan.nflows;
	struct rp_metrics_port *pt = calloc(s->nports ? s->nports : 1, sizeof(*pt));
	struct rp_metrics_flow *f = calloc(nplan ? nplan : 1, sizeof(*f));
	struct rp_source_flow_stats *tx = sent_by_flow(s);
	if (!pt || !f || !tx) {
		p->oom = true;
		goto out;
	}
	uint64_t end = s->g.end_ns ? s->g.end_ns : rp_dp_now_ns();
	for (unsigned i = 0; i < s->nports; i++) {
		const struct rp_dp_txport *tp = &s->tx[i];
		pt[i] = (struct rp_metrics_port){.host = rp_session_host(s, tp), .rx_frames = tp->rx_frames};
		for (unsigned q = 0; q < 8; q++) {
			pt[i].pfc_rx[q] = tp->pause.prio[q].frames;
			pt[i].paused_ns[q] = rp_pause_paused_ns(&tp->pause, q, end);
		}
	}
	size_t n = 0;
	for (size_t k = 0; k < nplan; k++) {
		const struct rp_flow *fl = &s->plan.flows[k];
		f[n++] = (struct rp_metrics_flow){.id = fl->id, .src = s->prof->hosts[fl->src].name,
						  .dst = fl->kind == RP_TRAFFIC_PFC ? "" : s->prof->hosts[fl->dst].name,
						  .prio = fl->prio,
						  .tx_packets = tx[k].tx_packets, .tx_bytes = tx[k].tx_bytes};
	}
	rp_metrics_flows(p, f, n, false);
	rp_metrics_ports(p, pt, s->nports, false);
out:
	free(pt);
	free(f);
	free(tx);
}
