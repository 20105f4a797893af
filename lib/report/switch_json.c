/* A switch's ports, priorities and buffer as JSON (switch_json.h). */
#include "switch_json.h"

static json_t *jint(uint64_t v)
{
	return json_integer((json_int_t)v);
}

static json_t *jtime(uint64_t v)
{
	return v == RP_SWITCH_NEVER ? json_null() : jint(v);
}

static uint64_t sum(const uint64_t *v)
{
	uint64_t n = 0;
	for (int d = 0; d < RP_DROP_REASONS; d++)
		n += v[d];
	return n;
}

json_t *rp_switch_drops_json(const uint64_t pkts[RP_DROP_REASONS])
{
	json_t *o = json_object();
	for (int d = 1; d < RP_DROP_REASONS; d++)
		json_object_set_new(o, rp_switch_drop_name((enum rp_switch_drop)d), jint(pkts[d]));
	return o;
}

json_t *rp_switch_buffer_json(const struct rp_switch *sw)
{
	struct rp_switch_buffer_stats b;
	rp_switch_buffer_stats(sw, &b);
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "size", jint(b.size), "shared_size", jint(b.shared_size),
			 "headroom_size", jint(b.headroom_size), "max_shared_used", jint(b.max_shared_used),
			 "max_headroom_used", jint(b.max_headroom_used), "held_pkts", jint(b.pkts));
}

static json_t *queue_json(const struct rp_switch_queue_stats *q)
{
	json_t *o = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "enq_pkts", jint(q->enq_pkts),
			 "enq_bytes", jint(q->enq_bytes), "tx_pkts", jint(q->tx_pkts), "tx_bytes", jint(q->tx_bytes),
			 "drop_pkts", jint(sum(q->drop_pkts)), "drop_bytes", jint(sum(q->drop_bytes)), "drops",
			 rp_switch_drops_json(q->drop_pkts), "ecn_marked", jint(q->ecn_marked), "depth_bytes",
			 jint(q->depth_bytes), "max_depth_bytes", jint(q->max_depth_bytes), "pfc_rx", jint(q->pfc_rx),
			 "paused_ns", jint(q->paused_ns));
	json_object_set_new(o, "wd_storms", jint(q->wd_storms));
	json_object_set_new(o, "wd_first_ns", jtime(q->wd_first_ns));
	json_object_set_new(o, "wd_restored", jint(q->wd_restored));
	return o;
}

static json_t *pg_json(const struct rp_switch_pg_stats *g)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "rx_pkts", jint(g->rx_pkts),
			 "rx_bytes", jint(g->rx_bytes), "bytes", jint(g->bytes), "max_bytes", jint(g->max_bytes),
			 "max_headroom_bytes", jint(g->max_headroom_bytes), "drop_pkts", jint(g->drop_pkts), "xoff_sent",
			 jint(g->xoff_sent), "xon_sent", jint(g->xon_sent), "refresh_sent", jint(g->refresh_sent),
			 "first_xoff_ns", jtime(g->first_xoff_ns), "xoff_ns", jint(g->xoff_ns));
}

/* The queue-depth series of (port, tc), cut after its last non-zero bin. */
static json_t *series_json(struct rp_switch *sw, unsigned p, unsigned tc, uint64_t now_ns)
{
	const uint64_t *bins;
	size_t n = rp_switch_qdepth_series_cut(sw, p, tc, now_ns, &bins);
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, jint(bins[i]));
	return a;
}

static json_t *prios_json(struct rp_switch *sw, unsigned p, uint64_t now_ns, bool all)
{
	uint8_t lossless = rp_switch_config(sw)->lossless_mask;
	json_t *a = json_array();
	for (unsigned tc = 0; tc < RP_SWITCH_TCS; tc++) {
		struct rp_switch_queue_stats q;
		struct rp_switch_pg_stats g;
		rp_switch_queue_stats(sw, p, tc, now_ns, &q);
		rp_switch_pg_stats(sw, p, tc, now_ns, &g);
		if (!all && !q.enq_pkts && !g.rx_pkts && !q.pfc_rx && !g.xoff_sent && !g.drop_pkts)
			continue;
		json_array_append_new(a, json_pack("{s:i, s:b, s:o, s:o, s:o}", "prio", (int)tc, "lossless",
						   (lossless >> tc) & 1, "queue", queue_json(&q), "pg", pg_json(&g),
						   "qdepth_bytes", series_json(sw, p, tc, now_ns)));
	}
	return a;
}

json_t *rp_switch_port_json(struct rp_switch *sw, unsigned p, uint64_t now_ns, bool all_prios)
{
	struct rp_switch_port_stats s;
	rp_switch_port_stats(sw, p, &s);
	return json_pack("{s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "port", (int)p,
			 "rx_pkts", jint(s.rx_pkts), "rx_bytes", jint(s.rx_bytes), "tx_pkts", jint(s.tx_pkts), "tx_bytes",
			 jint(s.tx_bytes), "drop_pkts", jint(sum(s.drop_pkts)), "drops", rp_switch_drops_json(s.drop_pkts),
			 "ecn_marked", jint(s.ecn_marked), "pfc_tx", jint(s.pfc_tx), "pfc_rx", jint(s.pfc_rx), "pause_rx",
			 jint(s.pause_rx), "macctl_other_rx", jint(s.macctl_other_rx), "busy_ns", jint(s.busy_ns), "prio",
			 prios_json(sw, p, now_ns, all_prios));
}
