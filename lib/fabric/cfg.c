/* Switch configuration: defaults an engineer would start from, and the
 * checks that keep the model's invariants (buffer carve-up, RED range,
 * DWRR weights) true before any packet arrives. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "headroom.h"
#include "switch.h"

#define DEFAULT_BUFFER (16u << 20)
#define DEFAULT_MAX_FRAME 9216u
#define DEFAULT_PROP_NS 50u /* 10 m of cable */
#define ROCE_PRIO 3u        /* the usual lossless RoCE priority */

/* Headroom for a port by the formula: its cable, max frames both ends, the
 * 802.3 response bound for its speed; the model has no PHY delay. */
static uint64_t default_headroom(uint64_t rate_bps, uint64_t prop_ns, uint32_t max_frame)
{
	struct rp_headroom_in in = {
		.speed_bps = rate_bps,
		.cable_m = (double)prop_ns / RP_HEADROOM_NS_PER_M,
		.mtu = max_frame + 4,
		.response_quanta = rp_headroom_default_response_quanta(rate_bps),
	};
	struct rp_headroom h;
	return rp_headroom_calc(&in, &h) == 0 ? h.total_bytes : 0;
}

static void default_port(struct rp_switch_port_cfg *p, unsigned i, uint64_t rate_bps)
{
	const uint8_t mac[6] = {0x02, 0x52, 0x50, 0x53, 0x57, (uint8_t)(i + 1)}; /* locally administered */
	memset(p, 0, sizeof(*p));
	p->rate_bps = rate_bps;
	p->prop_ns = DEFAULT_PROP_NS;
	memcpy(p->mac, mac, sizeof(mac));
	p->headroom[ROCE_PRIO] = default_headroom(rate_bps, p->prop_ns, DEFAULT_MAX_FRAME);
}

void rp_switch_cfg_default(struct rp_switch_cfg *cfg, unsigned nports, uint64_t rate_bps)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->nports = nports > RP_SWITCH_MAX_PORTS ? RP_SWITCH_MAX_PORTS : nports;
	for (unsigned i = 0; i < cfg->nports; i++)
		default_port(&cfg->port[i], i, rate_bps);
	cfg->buffer_bytes = DEFAULT_BUFFER;
	cfg->lossless_mask = 1u << ROCE_PRIO;
	cfg->strict_mask = 0xC0; /* CNPs (DSCP 48 -> 6) overtake data */
	for (unsigned t = 0; t < RP_SWITCH_TCS; t++) {
		cfg->pg[t].xoff = (struct rp_thresh){.bytes = 128u << 10};
		cfg->pg[t].xon_delta = 2 * DEFAULT_MAX_FRAME;
		cfg->queue[t].limit = (struct rp_thresh){.dynamic = true, .alpha = 1.0};
		cfg->queue[t].weight = 1;
	}
	cfg->queue[ROCE_PRIO].red = true;
	cfg->queue[ROCE_PRIO].kmin = 5000;
	cfg->queue[ROCE_PRIO].kmax = 200000;
	cfg->queue[ROCE_PRIO].pmax = 0.01;
	for (unsigned d = 0; d < 64; d++)
		cfg->dscp_to_tc[d] = (uint8_t)(d >> 3);
	cfg->pfc_quanta = 0xFFFF;
	cfg->pfc_refresh_pct = 50;
	cfg->dwrr_quantum = DEFAULT_MAX_FRAME;
	cfg->max_frame = DEFAULT_MAX_FRAME;
	cfg->seed = 1;
	cfg->fdb_size = 1024;
}

#define FAIL(...) (snprintf(err, errlen, __VA_ARGS__), -1)

static int check_thresh(const struct rp_thresh *t, const char *what, unsigned i, char *err, size_t errlen)
{
	if (t->dynamic && !(t->alpha > 0.0 && isfinite(t->alpha)))
		return FAIL("%s %u: dynamic alpha must be > 0", what, i);
	if (!t->dynamic && t->bytes == 0)
		return FAIL("%s %u: static threshold must be > 0 bytes", what, i);
	return 0;
}

uint32_t rp_switch_min_quanta(uint32_t max_frame, uint32_t refresh_pct)
{
	uint64_t wire = (uint64_t)RP_SWITCH_MIN_FRAME + RP_SWITCH_L1_OVERHEAD + max_frame + RP_SWITCH_L1_OVERHEAD;
	uint64_t left = 100 - (refresh_pct < 100 ? refresh_pct : 99); /* percent of the pause */
	uint64_t q = (wire * 8 * 100 + 512 * left - 1) / (512 * left);
	return q > UINT16_MAX ? UINT16_MAX : (uint32_t)q;
}

/* A static XOFF the PG can reach: below the shared pool. */
static int check_xoff(const struct rp_switch_cfg *cfg, uint64_t headroom, char *err, size_t errlen)
{
	uint64_t shared = cfg->buffer_bytes - headroom;
	for (unsigned t = 0; t < RP_SWITCH_TCS; t++) {
		const struct rp_thresh *x = &cfg->pg[t].xoff;
		if (!((cfg->lossless_mask >> t) & 1u) || x->dynamic || x->bytes < shared)
			continue;
		return FAIL("xoff %llu B (priority %u) is not below the shared buffer it fills, %llu B: the buffer's %llu B "
			    "less %llu B of PFC headroom reserved for %u ports' lossless priorities (a PG spills into "
			    "headroom before XOFF): lower xoff below %llu B or raise the buffer",
			    (unsigned long long)x->bytes, t, (unsigned long long)shared, (unsigned long long)cfg->buffer_bytes,
			    (unsigned long long)headroom, cfg->nports, (unsigned long long)shared);
	}
	return 0;
}

static int check_ports(const struct rp_switch_cfg *cfg, char *err, size_t errlen)
{
	uint64_t headroom = 0;

	if (cfg->nports == 0 || cfg->nports > RP_SWITCH_MAX_PORTS)
		return FAIL("nports %u: must be 1..%d", cfg->nports, RP_SWITCH_MAX_PORTS);
	for (unsigned i = 0; i < cfg->nports; i++) {
		if (cfg->port[i].rate_bps == 0)
			return FAIL("port %u: rate must be > 0", i);
		for (unsigned t = 0; t < RP_SWITCH_TCS; t++)
			if ((cfg->lossless_mask >> t) & 1u)
				headroom += cfg->port[i].headroom[t];
	}
	if (headroom >= cfg->buffer_bytes)
		return FAIL("headroom (%llu bytes over all ports) leaves no shared buffer of %llu",
			    (unsigned long long)headroom, (unsigned long long)cfg->buffer_bytes);
	return check_xoff(cfg, headroom, err, errlen);
}

static int check_queue(const struct rp_switch_cfg *cfg, unsigned t, char *err, size_t errlen)
{
	const struct rp_switch_queue_cfg *q = &cfg->queue[t];

	if (check_thresh(&q->limit, "queue", t, err, errlen) ||
	    check_thresh(&cfg->pg[t].xoff, "pg xoff", t, err, errlen))
		return -1;
	if (q->red && (q->kmin > q->kmax || !(q->pmax >= 0.0 && q->pmax <= 1.0)))
		return FAIL("queue %u: RED needs kmin <= kmax and 0 <= pmax <= 1", t);
	if (!((cfg->strict_mask >> t) & 1u) && q->weight == 0)
		return FAIL("queue %u: DWRR weight must be >= 1", t);
	return 0;
}

static int check_misc(const struct rp_switch_cfg *cfg, char *err, size_t errlen)
{
	for (unsigned d = 0; d < 64; d++)
		if (cfg->dscp_to_tc[d] >= RP_SWITCH_TCS)
			return FAIL("dscp %u maps to tc %u: must be 0..7", d, cfg->dscp_to_tc[d]);
	if (cfg->default_tc >= RP_SWITCH_TCS)
		return FAIL("default tc %u: must be 0..7", cfg->default_tc);
	if (cfg->max_frame < RP_SWITCH_MIN_FRAME || cfg->max_frame > UINT16_MAX)
		return FAIL("max frame %u: must be %d..65535", cfg->max_frame, RP_SWITCH_MIN_FRAME);
	if (cfg->wd_detect_ns && !cfg->wd_restore_ns)
		return FAIL("PFC watchdog: a restore time above 0 is needed with a detection time");
	if (cfg->pfc_quanta == 0 || cfg->pfc_refresh_pct == 0 || cfg->pfc_refresh_pct >= 100)
		return FAIL("PFC quanta must be > 0 and refresh 1..99%% of the pause");
	uint32_t least = rp_switch_min_quanta(cfg->max_frame, cfg->pfc_refresh_pct);
	if (cfg->lossless_mask && cfg->pfc_quanta < least)
		return FAIL("PFC quanta %u cannot hold a sender between refreshes: the %u%% of the pause left when the "
			    "refresh is due must cover a PFC frame (84 B) and a max frame (%u + 24 B) on the wire; the "
			    "smallest that works is %u", cfg->pfc_quanta, 100 - cfg->pfc_refresh_pct, cfg->max_frame, least);
	if (cfg->dwrr_quantum == 0)
		return FAIL("DWRR quantum must be > 0 bytes");
	if (cfg->qdepth_bins && cfg->qdepth_bin_ns == 0)
		return FAIL("queue-depth series needs bin_ns > 0");
	if (cfg->buffer_bytes > (256ull << 20))
		return FAIL("buffer %llu bytes: at most 256 MiB (the cell pool is about twice that)", (unsigned long long)cfg->buffer_bytes);
	return 0;
}

int rp_switch_cfg_check(const struct rp_switch_cfg *cfg, char *err, size_t errlen)
{
	if (check_ports(cfg, err, errlen) || check_misc(cfg, err, errlen))
		return -1;
	for (unsigned t = 0; t < RP_SWITCH_TCS; t++)
		if (check_queue(cfg, t, err, errlen))
			return -1;
	return 0;
}
