/* Creating and destroying the switch. Every limit is fixed here from the
 * config; the frame memory (descriptors and cells) starts small and grows by
 * doubling only when the buffer holds more frames than it ever did (pktq.c,
 * cells.c), so steady traffic never allocates and idle switches stay small. */
#include <stdlib.h>
#include <string.h>

#include "switch_internal.h"

static uint64_t headroom_total(const struct rp_switch_cfg *cfg)
{
	uint64_t h = 0;
	for (unsigned i = 0; i < cfg->nports; i++)
		for (unsigned t = 0; t < RP_SWITCH_TCS; t++)
			if ((cfg->lossless_mask >> t) & 1u)
				h += cfg->port[i].headroom[t];
	return h;
}

/* Descriptors for the most frames the buffer can hold (all of them minimum
 * size) at most; the first few now. */
static int alloc_pkts(struct rp_switch *sw)
{
	uint64_t n = sw->cfg.buffer_bytes / RP_SWITCH_MIN_FRAME + 1;
	sw->pkt_max = n > UINT32_MAX - 1 ? UINT32_MAX - 1 : (uint32_t)n;
	sw->pkt_free = RP_PKT_NONE;
	return rp_sw_pkt_grow(sw) == 0 || sw->pkt_max == 0 ? 0 : -1;
}

static void init_series(struct rp_switch *sw)
{
	const struct rp_switch_cfg *c = &sw->cfg;
	for (unsigned p = 0; p < c->nports; p++)
		for (unsigned t = 0; t < RP_SWITCH_TCS; t++)
			rp_series_init(&sw->port[p].q[t].series, c->qdepth_bins, c->qdepth_bin_ns);
}

static void init_port(struct rp_port *p, uint64_t rate_bps)
{
	memset(p, 0, sizeof(*p));
	for (unsigned t = 0; t < RP_SWITCH_TCS; t++) {
		p->q[t].head = p->q[t].tail = RP_PKT_NONE;
		p->pg[t].st.first_xoff_ns = RP_SWITCH_NEVER;
		p->q[t].st.wd_first_ns = RP_SWITCH_NEVER;
		p->wd.since[t] = RP_SWITCH_NEVER;
	}
	rp_pause_init(&p->pause, rate_bps);
}

struct rp_switch *rp_switch_create(const struct rp_switch_cfg *cfg)
{
	char err[160];
	struct rp_switch *sw;

	if (rp_switch_cfg_check(cfg, err, sizeof(err)))
		return NULL;
	sw = calloc(1, sizeof(*sw));
	if (!sw)
		return NULL;
	sw->cfg = *cfg;
	sw->headroom_size = headroom_total(cfg);
	sw->shared_size = cfg->buffer_bytes - sw->headroom_size;
	sw->rng = cfg->seed ? cfg->seed : 0x9E3779B97F4A7C15ull;
	sw->port = calloc(cfg->nports, sizeof(*sw->port));
	if (!sw->port || alloc_pkts(sw) ||
	    rp_cells_init(&sw->cells, rp_cells_needed(cfg->buffer_bytes, RP_SWITCH_MIN_FRAME)) ||
	    rp_fdb_init(&sw->fdb, cfg->fdb_size)) {
		rp_switch_destroy(sw);
		return NULL;
	}
	for (unsigned i = 0; i < cfg->nports; i++)
		init_port(&sw->port[i], cfg->port[i].rate_bps);
	init_series(sw);
	return sw;
}

void rp_switch_destroy(struct rp_switch *sw)
{
	if (!sw)
		return;
	for (unsigned p = 0; sw->port && p < sw->cfg.nports; p++)
		for (unsigned t = 0; t < RP_SWITCH_TCS; t++)
			rp_series_fini(&sw->port[p].q[t].series);
	rp_cells_fini(&sw->cells);
	rp_fdb_fini(&sw->fdb);
	free(sw->pkt);
	free(sw->port);
	free(sw);
}

void rp_switch_use_refs(struct rp_switch *sw, rp_switch_frame_fn frame_of, void *ctx)
{
	sw->frame_of = frame_of;
	sw->frame_ctx = ctx;
	rp_cells_fini(&sw->cells);
}

int rp_switch_fdb_add(struct rp_switch *sw, const uint8_t mac[6], unsigned port)
{
	if (port >= sw->cfg.nports)
		return -1;
	return rp_fdb_add(&sw->fdb, mac, (uint16_t)port);
}

int rp_switch_fdb_lookup(const struct rp_switch *sw, const uint8_t mac[6])
{
	return rp_fdb_lookup(&sw->fdb, mac);
}

const struct rp_switch_cfg *rp_switch_config(const struct rp_switch *sw)
{
	return &sw->cfg;
}

const char *rp_switch_drop_name(enum rp_switch_drop d)
{
	static const char *const names[RP_DROP_REASONS] = {
		"none", "malformed", "no-route", "tail", "buffer", "headroom", "nomem",
	};
	return (unsigned)d < RP_DROP_REASONS ? names[d] : "unknown";
}
