/* `roceprobe switch`'s summary and progress line (switch_summary.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "profile/units.h"
#include "switch_json.h"
#include "switch_summary.h"

static uint64_t sum_drops(const struct rp_switch_port_stats *s)
{
	uint64_t n = 0;
	for (unsigned d = 0; d < RP_DROP_REASONS; d++)
		n += s->drop_pkts[d];
	return n;
}

static const char *human(double v, char *buf, size_t n)
{
	if (v >= 1e6)
		snprintf(buf, n, "%.2fM", v / 1e6);
	else if (v >= 1e4)
		snprintf(buf, n, "%.1fk", v / 1e3);
	else
		snprintf(buf, n, "%.0f", v);
	return buf;
}

void rp_switch_rt_progress_port(FILE *out, unsigned p, double dt, const struct rp_switch_edge *now,
				const struct rp_switch_edge *last_edge, const struct rp_switch_port_stats *s,
				const struct rp_switch_port_stats *last, uint64_t qmax)
{
	const struct rp_switch_port_stats *l = last;
	const struct rp_switch_edge *lc = last_edge;
	char a[16], b[16], q[16];
	fprintf(out,
		" | %u rx %s tx %s pps drop %" PRIu64 " ecn %" PRIu64 " pfc %" PRIu64 "/%" PRIu64 " maxq %s", p,
		human((double)(now->rx_frames - lc->rx_frames) / dt, a, sizeof(a)),
		human((double)(now->tx_frames - lc->tx_frames) / dt, b, sizeof(b)), sum_drops(s) - sum_drops(l),
		s->ecn_marked - l->ecn_marked, s->pfc_tx - l->pfc_tx, (s->pfc_rx + s->pause_rx) - (l->pfc_rx + l->pause_rx),
		rp_format_size(qmax, q, sizeof(q)));
}

static json_t *edge_json(const struct rp_switch_edge *c)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "rx_frames",
			 (json_int_t)c->rx_frames, "rx_bytes", (json_int_t)c->rx_bytes, "tx_frames",
			 (json_int_t)c->tx_frames, "tx_bytes", (json_int_t)c->tx_bytes, "tx_pfc", (json_int_t)c->tx_pfc,
			 "flooded", (json_int_t)c->flooded, "flood_copies", (json_int_t)c->flood_copies, "learned",
			 (json_int_t)c->learned, "fdb_full", (json_int_t)c->fdb_full, "link_local",
			 (json_int_t)c->link_local, "hairpin", (json_int_t)c->hairpin, "tx_stalls",
			 (json_int_t)c->tx_stalls, "tx_unsent", (json_int_t)c->tx_unsent, "nombuf", (json_int_t)c->nombuf);
}

/* The model's port as the lab's result.json writes it (switch_json.h)
 * plus what only the real-time switch knows: the DPDK port, the edge around
 * the model, the PMD's counters, the capture. */
static json_t *port_json(const struct rp_switch_rt_facts *r, unsigned p)
{
	json_t *j = rp_switch_port_json(r->sw, p, r->end_ns, true);
	json_object_set_new(j, "devargs", json_string(r->port[p].devargs));
	json_object_set_new(j, "driver", json_string(r->port[p].driver));
	json_object_set_new(j, "edge", edge_json(r->port[p].edge));
	json_object_set_new(j, "pmd_missed", json_integer((json_int_t)r->port[p].pmd_missed));
	json_object_set_new(j, "pmd_oerrors", json_integer((json_int_t)r->port[p].pmd_oerrors));
	if (r->port[p].capture && r->port[p].capture[0])
		json_object_set_new(j, "capture", json_pack("{s:s, s:I, s:I}", "path", r->port[p].capture, "written",
							    (json_int_t)r->port[p].cap_written, "dropped",
							    (json_int_t)r->port[p].cap_dropped));
	return j;
}

static json_t *config_json(const struct rp_switch_rt_facts *r)
{
	const struct rp_switch_cfg *c = r->cfg;
	unsigned lossless = 0;
	while (lossless < RP_SWITCH_TCS && !((c->lossless_mask >> lossless) & 1))
		lossless++;
	return json_pack("{s:I, s:I, s:i, s:I, s:I, s:I, s:i, s:I}", "speed_bps", (json_int_t)c->port[0].rate_bps,
			 "buffer_bytes", (json_int_t)c->buffer_bytes, "lossless_mask", (int)c->lossless_mask, "xoff_bytes",
			 (json_int_t)c->pg[0].xoff.bytes, "xon_delta_bytes", (json_int_t)c->pg[0].xon_delta,
			 "headroom_bytes",
			 (json_int_t)(lossless < RP_SWITCH_TCS ? c->port[0].headroom[lossless] : 0), "pfc_quanta",
			 (int)c->pfc_quanta, "max_frame", (json_int_t)c->max_frame);
}

static void totals(const struct rp_switch_rt_facts *r, uint64_t drops[RP_DROP_REASONS], uint64_t *all)
{
	memset(drops, 0, RP_DROP_REASONS * sizeof(drops[0]));
	*all = 0;
	for (unsigned p = 0; p < r->nports; p++) {
		struct rp_switch_port_stats s;
		rp_switch_port_stats(r->sw, p, &s);
		for (unsigned d = 0; d < RP_DROP_REASONS; d++) {
			drops[d] += s.drop_pkts[d];
			*all += s.drop_pkts[d];
		}
	}
}

json_t *rp_switch_rt_json(const struct rp_switch_rt_facts *r)
{
	uint64_t drops[RP_DROP_REASONS], all;
	totals(r, drops, &all);
	json_t *ports = json_array();
	for (unsigned p = 0; p < r->nports; p++)
		json_array_append_new(ports, port_json(r, p));
	json_t *j = json_pack("{s:s, s:f, s:b, s:o, s:I, s:o, s:o, s:o}", "schema", "roceprobe.switch/2", "elapsed_s",
			      (double)r->end_ns / 1e9, "interrupted", r->interrupted, "config", config_json(r),
			      "drops", (json_int_t)all, "drops_by_reason", rp_switch_drops_json(drops), "buffer",
			      rp_switch_buffer_json(r->sw), "ports", ports);
	return j;
}

static void text_prio(FILE *out, const struct rp_switch_rt_facts *r, unsigned p, unsigned t)
{
	struct rp_switch_queue_stats q;
	struct rp_switch_pg_stats g;
	rp_switch_queue_stats(r->sw, p, t, r->end_ns, &q);
	rp_switch_pg_stats(r->sw, p, t, r->end_ns, &g);
	if (!q.enq_pkts && !g.rx_pkts && !q.pfc_rx && !g.xoff_sent && !g.drop_pkts)
		return;
	uint64_t qd = 0;
	for (unsigned d = 0; d < RP_DROP_REASONS; d++)
		qd += q.drop_pkts[d];
	fprintf(out, "  prio %u%s in %" PRIu64 " (dropped %" PRIu64 ", XOFF %" PRIu64 " XON %" PRIu64 " refresh %" PRIu64
	       ", max held %" PRIu64 " B, headroom %" PRIu64 " B) | out %" PRIu64 " (dropped %" PRIu64 ", ECN %" PRIu64
	       ", max depth %" PRIu64 " B, PFC rx %" PRIu64 ", paused %.3f ms)\n",
	       t, (r->cfg->lossless_mask >> t) & 1 ? " lossless" : "", g.rx_pkts, g.drop_pkts, g.xoff_sent, g.xon_sent,
	       g.refresh_sent, g.max_bytes, g.max_headroom_bytes, q.tx_pkts, qd, q.ecn_marked, q.max_depth_bytes,
	       q.pfc_rx, (double)q.paused_ns / 1e6);
}

static void text_port(FILE *out, const struct rp_switch_rt_facts *r, unsigned p)
{
	struct rp_switch_port_stats s;
	const struct rp_switch_edge *c = r->port[p].edge;
	rp_switch_port_stats(r->sw, p, &s);
	fprintf(out, "port %u %s (%s): rx %" PRIu64 " tx %" PRIu64 " (PFC %" PRIu64 "), dropped %" PRIu64, p,
	       r->port[p].devargs, r->port[p].driver, c->rx_frames, c->tx_frames, c->tx_pfc, sum_drops(&s));
	for (unsigned d = 1; d < RP_DROP_REASONS; d++)
		if (s.drop_pkts[d])
			fprintf(out, " %s %" PRIu64, rp_switch_drop_name(d), s.drop_pkts[d]);
	fprintf(out, ", ECN %" PRIu64 ", PFC rx %" PRIu64 " PAUSE rx %" PRIu64 "; flooded %" PRIu64 ", learned %" PRIu64
	       ", PMD missed %" PRIu64 ", unsent %" PRIu64 "\n",
	       s.ecn_marked, s.pfc_rx, s.pause_rx, c->flooded, c->learned, r->port[p].pmd_missed, c->tx_unsent);
	for (unsigned t = 0; t < RP_SWITCH_TCS; t++)
		text_prio(out, r, p, t);
}

void rp_switch_rt_print_text(FILE *out, const struct rp_switch_rt_facts *r)
{
	uint64_t drops[RP_DROP_REASONS], all;
	struct rp_switch_buffer_stats b;
	char sp[16], bf[16];
	totals(r, drops, &all);
	rp_switch_buffer_stats(r->sw, &b);
	fprintf(out, "roceprobe switch: %u ports at %s, buffer %s, %.3f s%s\n", r->nports,
	       rp_format_bps(r->cfg->port[0].rate_bps, sp, sizeof(sp)), rp_format_size(r->cfg->buffer_bytes, bf, sizeof(bf)),
	       (double)r->end_ns / 1e9, r->interrupted ? " (interrupted)" : "");
	for (unsigned p = 0; p < r->nports; p++)
		text_port(out, r, p);
	fprintf(out, "drops %" PRIu64 "; buffer max shared %" PRIu64 " B, max headroom %" PRIu64 " B, frames held at stop %" PRIu64
	       "\n",
	       all, b.max_shared_used, b.max_headroom_used, b.pkts);
}
