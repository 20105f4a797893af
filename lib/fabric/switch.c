/* Creating and destroying the switch: every allocation the model ever makes
 * happens here, sized from the config, so the per-packet paths never allocate. */
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

/* Descriptors for the most frames the buffer can hold: all of them minimum size. */
static int alloc_pkts(struct rp_switch *sw)
{
	uint64_t n = sw->cfg.buffer_bytes / RP_SWITCH_MIN_FRAME + 1;
	sw->pkt = malloc((size_t)n * sizeof(*sw->pkt));
	if (!sw->pkt)
		return -1;
	for (uint64_t i = 0; i < n; i++)
		sw->pkt[i].next = i + 1 < n ? (uint32_t)(i + 1) : RP_PKT_NONE;
	sw->npkt = (uint32_t)n;
	sw->pkt_free = 0;
	return 0;
}

static int alloc_series(struct rp_switch *sw)
{
	const struct rp_switch_cfg *c = &sw->cfg;
	size_t per = c->qdepth_bins, n = (size_t)c->nports * RP_SWITCH_TCS * per;

	if (n) {
		sw->series_mem = calloc(n, sizeof(uint64_t));
		if (!sw->series_mem)
			return -1;
	}
	for (unsigned p = 0; p < c->nports; p++)
		for (unsigned t = 0; t < RP_SWITCH_TCS; t++)
			rp_series_init(&sw->port[p].q[t].series,
				       n ? sw->series_mem + ((size_t)p * RP_SWITCH_TCS + t) * per : NULL,
				       (uint32_t)per, c->qdepth_bin_ns);
	return 0;
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
	if (alloc_series(sw)) {
		rp_switch_destroy(sw);
		return NULL;
	}
	return sw;
}

void rp_switch_destroy(struct rp_switch *sw)
{
	if (!sw)
		return;
	rp_cells_fini(&sw->cells);
	rp_fdb_fini(&sw->fdb);
	free(sw->series_mem);
	free(sw->pkt);
	free(sw->port);
	free(sw);
}

int rp_switch_fdb_add(struct rp_switch *sw, const uint8_t mac[6], unsigned port)
{
	if (port >= sw->cfg.nports)
		return -1;
	return rp_fdb_add(&sw->fdb, mac, (uint8_t)port);
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
