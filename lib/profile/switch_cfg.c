/* The `fabric:` section -> rp_switch_cfg, for the lab and `roceprobe switch`
 * alike (switch_cfg.h). */
#include "switch_cfg.h"

#include <string.h>

#include "fabric/headroom.h"

#define SEED_STRIDE 0x9E3779B97F4A7C15ull /* a switch's RED stream apart from its neighbours' */

/* `pfc.headroom: auto`: the `roceprobe headroom` formula for the port's
 * speed and cable, max_frame + 4 on both ends, pfc.response quanta, no PHY
 * delay. */
static uint64_t port_headroom(const struct rp_fabric *f, uint64_t rate_bps, uint64_t prop_ns)
{
	if (!f->headroom_auto)
		return f->headroom_bytes;
	struct rp_headroom_in in = {.speed_bps = rate_bps, .cable_m = (double)prop_ns / RP_HEADROOM_NS_PER_M,
				    .mtu = f->max_frame + 4, .response_quanta = f->response_quanta};
	struct rp_headroom h;
	return rp_headroom_calc(&in, &h) == 0 ? h.total_bytes : 0;
}

static struct rp_thresh thresh(const struct rp_fabric_thresh *t)
{
	return (struct rp_thresh){.dynamic = t->dynamic, .bytes = t->bytes, .alpha = t->alpha};
}

void rp_fabric_switch_uniform(const struct rp_fabric *f, unsigned nports, uint64_t rate_bps,
			      struct rp_fabric_switch *s)
{
	memset(s, 0, sizeof(*s));
	s->nports = nports > RP_SWITCH_MAX_PORTS ? RP_SWITCH_MAX_PORTS : nports;
	for (unsigned p = 0; p < s->nports; p++) {
		s->rate_bps[p] = rate_bps;
		s->prop_ns[p] = f->host_delay_ns;
	}
}

void rp_fabric_switch_cfg(const struct rp_fabric *f, const struct rp_fabric_switch *s, struct rp_switch_cfg *c)
{
	rp_switch_cfg_default(c, s->nports, s->nports ? s->rate_bps[0] : 0);
	c->buffer_bytes = f->buffer_bytes;
	c->max_frame = f->max_frame;
	c->lossless_mask = f->pfc_off ? 0 : f->lossless_mask;
	c->pfc_quanta = f->pfc_quanta;
	c->pfc_refresh_pct = f->pfc_refresh_pct;
	c->seed = f->seed + (uint64_t)s->index * SEED_STRIDE;
	c->fdb_size = s->fdb_size;
	c->qdepth_bin_ns = f->qdepth_bin_ns;
	c->qdepth_bins = s->qdepth_bins;
	memcpy(c->dscp_to_tc, f->dscp_to_tc, sizeof(c->dscp_to_tc));
	c->wd_detect_ns = f->wd_detect_ns;
	c->wd_restore_ns = f->wd_restore_ns;
	for (unsigned tc = 0; tc < RP_SWITCH_TCS; tc++) {
		c->pg[tc].xoff = thresh(&f->xoff);
		c->pg[tc].xon_delta = f->xon_delta;
		c->queue[tc].limit = thresh(&f->lossy_limit);
		c->queue[tc].red = (f->ecn_mask >> tc) & 1;
		c->queue[tc].kmin = f->kmin;
		c->queue[tc].kmax = f->kmax;
		c->queue[tc].pmax = f->pmax;
	}
	for (unsigned p = 0; p < s->nports; p++) {
		const uint8_t mac[6] = {0x02, 0xFF, (uint8_t)s->index, (uint8_t)(s->index >> 8), 0, (uint8_t)p};
		c->port[p].rate_bps = s->rate_bps[p];
		c->port[p].prop_ns = s->prop_ns[p];
		memcpy(c->port[p].mac, mac, 6);
		memset(c->port[p].headroom, 0, sizeof(c->port[p].headroom));
		for (unsigned tc = 0; tc < RP_SWITCH_TCS; tc++)
			if ((c->lossless_mask >> tc) & 1)
				c->port[p].headroom[tc] = port_headroom(f, s->rate_bps[p], s->prop_ns[p]);
	}
}

void rp_fabric_init_switch(struct rp_fabric *f)
{
	rp_fabric_init(f);
	f->lossless_mask = 0;
	f->ecn_mask = 0;
}
