/* Counter getters: copies, with the time-dependent parts (paused time, time
 * in XOFF) brought up to now, so reading never changes the model. */
#include "switch_internal.h"

void rp_switch_queue_stats(const struct rp_switch *sw, unsigned port, unsigned tc, uint64_t now_ns,
			   struct rp_switch_queue_stats *out)
{
	const struct rp_port *p = &sw->port[port];
	*out = p->q[tc].st;
	out->paused_ns = rp_pause_paused_ns(&p->pause, tc, now_ns);
}

void rp_switch_pg_stats(const struct rp_switch *sw, unsigned port, unsigned pg, uint64_t now_ns,
			struct rp_switch_pg_stats *out)
{
	const struct rp_pg *g = &sw->port[port].pg[pg];
	*out = g->st;
	out->bytes = g->shared + g->headroom;
	out->shared_bytes = g->shared;
	out->headroom_bytes = g->headroom;
	out->xoff = g->xoff;
	if (g->xoff && now_ns > g->xoff_since)
		out->xoff_ns += now_ns - g->xoff_since;
}

void rp_switch_port_stats(const struct rp_switch *sw, unsigned port, struct rp_switch_port_stats *out)
{
	*out = sw->port[port].st;
}

void rp_switch_buffer_stats(const struct rp_switch *sw, struct rp_switch_buffer_stats *out)
{
	*out = (struct rp_switch_buffer_stats){
		.size = sw->cfg.buffer_bytes,
		.shared_size = sw->shared_size,
		.headroom_size = sw->headroom_size,
		.shared_used = sw->shared_used,
		.headroom_used = sw->headroom_used,
		.max_shared_used = sw->max_shared_used,
		.max_headroom_used = sw->max_headroom_used,
		.pkts = sw->pkt_used,
	};
}

size_t rp_switch_qdepth_series(struct rp_switch *sw, unsigned port, unsigned tc, uint64_t now_ns,
			       const uint64_t **bins)
{
	struct rp_series *s = &sw->port[port].q[tc].series;
	*bins = s->bins;
	return rp_series_settle(s, now_ns);
}

size_t rp_switch_qdepth_series_cut(struct rp_switch *sw, unsigned port, unsigned tc, uint64_t now_ns,
				   const uint64_t **bins)
{
	size_t n = rp_switch_qdepth_series(sw, port, tc, now_ns, bins);
	while (n && (*bins)[n - 1] == 0)
		n--;
	return n;
}
