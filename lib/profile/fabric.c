/* The `fabric:` section: topology, links, switch buffer, PFC, ECN and DCQCN
 * for the embedded lab (docs/lab.md). Every key is optional. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fabric/switch.h"

static const char *const fabric_keys[] = {"topology", "leaves", "spines", "hosts_per_leaf", "k", "pods", "aggs",
					  "cores", "rails", "oversubscription", "link", "uplink",
					  "buffer", "max_frame", "pfc", "ecn", "lossy", "dcqcn", "seed",
					  "qdepth_bin", "max_time", "dscp_map", NULL};
static const char *const link_keys[] = {"delay", "cable", NULL};
static const char *const uplink_keys[] = {"speed", "delay", "cable", NULL};
static const char *const pfc_keys[] = {"enabled", "priorities", "xoff", "xoff_alpha", "xon_delta", "headroom",
				       "quanta", "refresh", "response", "watchdog", NULL};
static const char *const watchdog_keys[] = {"detect", "restore", NULL};
static const char *const ecn_keys[] = {"priorities", "kmin", "kmax", "pmax", NULL};
static const char *const lossy_keys[] = {"limit", "alpha", NULL};
static const char *const dcqcn_keys[] = {"enabled", "rpg_time_reset", "rpg_byte_reset", "rpg_threshold",
					 "rpg_ai_rate", "rpg_hai_rate", "rpg_min_rate", "rpg_min_dec_fac",
					 "dce_tcp_g", "dce_tcp_rtt", "rate_reduce_monitor_period", "alpha_update",
					 "initial_alpha_value", "clamp_tgt_rate", "clamp_tgt_rate_after_time_inc", NULL};

void rp_fabric_init(struct rp_fabric *f)
{
	memset(f, 0, sizeof(*f));
	f->leaves = 2;
	f->spines = 2;
	f->host_delay_ns = 500;
	f->uplink_delay_ns = 500;
	f->buffer_bytes = 16u << 20;
	f->max_frame = 9216;
	f->lossless_mask = 1u << 3;
	f->xoff = (struct rp_fabric_thresh){.bytes = 128u << 10};
	f->xon_delta = 18u << 10;
	f->headroom_auto = true;
	f->pfc_quanta = 0xFFFF;
	f->pfc_refresh_pct = 50;
	f->ecn_mask = 1u << 3;
	f->kmin = 5000;
	f->kmax = 200000;
	f->pmax = 0.01;
	f->lossy_limit = (struct rp_fabric_thresh){.dynamic = true, .alpha = 1.0};
	f->dcqcn = (struct rp_dcqcn){.rpg_time_reset_ns = 300000, .rpg_byte_reset = 32767, .rpg_threshold = 1,
				     .rpg_ai_rate_bps = 5000000, .rpg_hai_rate_bps = 50000000,
				     .rpg_min_rate_bps = 1000000, .rpg_min_dec_fac = 50, .dce_tcp_g = 1019,
				     .dce_tcp_rtt_ns = 1000, .rate_reduce_monitor_period_ns = 4000,
				     .initial_alpha_value = 1023, .alpha_update = RP_ALPHA_PERIODIC,
				     .clamp_tgt_rate_after_time_inc = true};
	f->seed = 1;
	for (unsigned d = 0; d < 64; d++)
		f->dscp_to_tc[d] = (uint8_t)(d >> 3);
	f->qdepth_bin_ns = 10000;
	f->max_time_ns = 1000000000ull;
}

/* One optional key of a map, with its dotted path. */
static const struct rp_node *opt(const struct rp_node *map, const char *path, const char *k, char key[RP_PATH_MAX])
{
	rp_path_key(key, path, k);
	return rp_node_get(map, k);
}

static int opt_size(struct rp_vctx *c, const struct rp_node *map, const char *path, const char *k, uint64_t *v)
{
	char key[RP_PATH_MAX];
	const struct rp_node *n = opt(map, path, k, key);
	return n ? rp_vsize(c, n, key, UINT64_MAX, v) : 0;
}

static int opt_ns(struct rp_vctx *c, const struct rp_node *map, const char *path, const char *k, uint64_t *v)
{
	char key[RP_PATH_MAX];
	const struct rp_node *n = opt(map, path, k, key);
	return n ? rp_vduration(c, n, key, v) : 0;
}

static int opt_bps(struct rp_vctx *c, const struct rp_node *map, const char *path, const char *k, uint64_t *v)
{
	char key[RP_PATH_MAX];
	const struct rp_node *n = opt(map, path, k, key);
	return n ? rp_vspeed(c, n, key, v) : 0;
}

static int opt_u32(struct rp_vctx *c, const struct rp_node *map, const char *path, const char *k, uint64_t min,
		   uint64_t max, uint32_t *v)
{
	char key[RP_PATH_MAX];
	uint64_t x = *v;
	const struct rp_node *n = opt(map, path, k, key);
	if (n && rp_vuint(c, n, key, min, max, &x))
		return -1;
	*v = (uint32_t)x;
	return 0;
}

static int opt_bool(struct rp_vctx *c, const struct rp_node *map, const char *path, const char *k, bool *v)
{
	char key[RP_PATH_MAX];
	const char *s;
	int b;
	const struct rp_node *n = opt(map, path, k, key);
	if (!n)
		return 0;
	if (rp_vscalar(c, n, key, "on or off", &s))
		return -1;
	if (rp_parse_bool(s, &b))
		return rp_verr(c, &n->pos, key, "expected on or off, got '%s'", s);
	*v = b != 0;
	return 0;
}

/* "1%", "0.5%" or a plain fraction "0.01", within [lo, hi]. */
static int opt_fraction(struct rp_vctx *c, const struct rp_node *map, const char *path, const char *k, double lo,
			double hi, double *v)
{
	char key[RP_PATH_MAX];
	const char *s;
	const struct rp_node *n = opt(map, path, k, key);
	if (!n)
		return 0;
	if (rp_vscalar(c, n, key, "a share like 1% or 0.01", &s))
		return -1;
	if (rp_parse_share(s, 1, lo, hi, v))
		return rp_verr(c, &n->pos, key, "expected a share from %g to %g like 1%% or 0.01, got '%s'", lo, hi, s);
	return 0;
}

/* A cable length in metres ("100m") as a one-way delay at 5 ns/m. */
static int opt_cable(struct rp_vctx *c, const struct rp_node *map, const char *path, uint64_t *ns)
{
	char key[RP_PATH_MAX];
	const char *s;
	char *end;
	const struct rp_node *n = opt(map, path, "cable", key);
	if (!n)
		return 0;
	if (rp_vscalar(c, n, key, "a length like 3m or 100m", &s))
		return -1;
	double m = strtod(s, &end);
	if (end == s || strcmp(end, "m") != 0 || !(m >= 0 && m <= 1e6))
		return rp_verr(c, &n->pos, key, "expected a length in metres like 3m or 100m, got '%s'", s);
	*ns = (uint64_t)llround(m * 5.0);
	return 0;
}

static int prio_mask(struct rp_vctx *c, const struct rp_node *map, const char *path, uint8_t *mask)
{
	char key[RP_PATH_MAX];
	const struct rp_node *n = opt(map, path, "priorities", key);
	return n ? rp_vprio_mask(c, n, key, false, mask) : 0;
}

static int section(struct rp_vctx *c, const struct rp_node *map, const char *path, const char *k,
		   const char *const *keys, const char *what, const struct rp_node **out, char sub[RP_PATH_MAX])
{
	*out = opt(map, path, k, sub);
	if (!*out)
		return 0;
	return rp_vtype(c, *out, sub, RP_NODE_MAP, what) || rp_vkeys(c, *out, sub, keys) ? -1 : 0;
}

static int parse_links(struct rp_vctx *c, const struct rp_node *map, const char *path, struct rp_fabric *f)
{
	char sub[RP_PATH_MAX];
	const struct rp_node *n;
	if (section(c, map, path, "link", link_keys, "a mapping of delay or cable", &n, sub) ||
	    (n && (opt_ns(c, n, sub, "delay", &f->host_delay_ns) || opt_cable(c, n, sub, &f->host_delay_ns))))
		return -1;
	if (section(c, map, path, "uplink", uplink_keys, "a mapping of speed, delay or cable", &n, sub) ||
	    (n && (opt_bps(c, n, sub, "speed", &f->uplink_speed_bps) || opt_ns(c, n, sub, "delay", &f->uplink_delay_ns) ||
		   opt_cable(c, n, sub, &f->uplink_delay_ns))))
		return -1;
	return 0;
}

static int parse_headroom(struct rp_vctx *c, const struct rp_node *map, const char *path, struct rp_fabric *f)
{
	char key[RP_PATH_MAX];
	const struct rp_node *n = opt(map, path, "headroom", key);
	if (!n)
		return 0;
	if (n->type == RP_NODE_SCALAR && strcmp(n->scalar, "auto") == 0) {
		f->headroom_auto = true;
		return 0;
	}
	f->headroom_auto = false;
	return rp_vsize(c, n, key, UINT32_MAX, &f->headroom_bytes);
}

/* `watchdog: on` (detect 200 us, restore 1 ms), `off`, or {detect, restore}. */
static int parse_watchdog(struct rp_vctx *c, const struct rp_node *map, const char *path, struct rp_fabric *f)
{
	char key[RP_PATH_MAX];
	const struct rp_node *n = opt(map, path, "watchdog", key);
	int on;
	if (!n)
		return 0;
	if (n->type == RP_NODE_SCALAR) {
		if (rp_parse_bool(n->scalar, &on))
			return rp_verr(c, &n->pos, key, "expected on, off or {detect: 200us, restore: 1ms}, got '%s'", n->scalar);
		f->wd_detect_ns = on ? 200000 : 0;
		f->wd_restore_ns = 1000000;
		return 0;
	}
	if (rp_vtype(c, n, key, RP_NODE_MAP, "on, off or a mapping of detect and restore") ||
	    rp_vkeys(c, n, key, watchdog_keys))
		return -1;
	f->wd_detect_ns = 200000;
	f->wd_restore_ns = 1000000;
	if (opt_ns(c, n, key, "detect", &f->wd_detect_ns) || opt_ns(c, n, key, "restore", &f->wd_restore_ns))
		return -1;
	if (!f->wd_detect_ns || !f->wd_restore_ns)
		return rp_verr(c, &n->pos, key, "detect and restore must be above 0 (or watchdog: off)");
	return 0;
}

static int parse_pfc(struct rp_vctx *c, const struct rp_node *map, const char *path, struct rp_fabric *f)
{
	char sub[RP_PATH_MAX];
	const struct rp_node *n;
	bool enabled = true;
	double refresh = f->pfc_refresh_pct / 100.0, alpha = -1;
	uint32_t quanta = f->pfc_quanta;
	if (section(c, map, path, "pfc", pfc_keys, "a mapping of PFC settings", &n, sub) || !n)
		return n ? -1 : 0;
	if (opt_bool(c, n, sub, "enabled", &enabled) || prio_mask(c, n, sub, &f->lossless_mask) ||
	    opt_size(c, n, sub, "xoff", &f->xoff.bytes) || opt_fraction(c, n, sub, "xoff_alpha", 0.0001, 64, &alpha) ||
	    opt_size(c, n, sub, "xon_delta", &f->xon_delta) || parse_headroom(c, n, sub, f) ||
	    opt_u32(c, n, sub, "quanta", 1, 65535, &quanta) || opt_fraction(c, n, sub, "refresh", 0.01, 1, &refresh) ||
	    opt_u32(c, n, sub, "response", 0, 65535, &f->response_quanta) || parse_watchdog(c, n, sub, f))
		return -1;
	f->pfc_off = !enabled;
	f->pfc_quanta = (uint16_t)quanta;
	f->pfc_refresh_pct = (uint32_t)lround(refresh * 100.0);
	if (alpha > 0)
		f->xoff = (struct rp_fabric_thresh){.dynamic = true, .alpha = alpha};
	/* As switch --xon-delta: XON at xoff - xon_delta, so a delta of xoff or
	 * more would wait for an empty buffer. */
	if (!f->xoff.dynamic && f->xon_delta >= f->xoff.bytes)
		return rp_verr(c, &n->pos, sub, "xon_delta (%llu B) must be below xoff (%llu B)",
			       (unsigned long long)f->xon_delta, (unsigned long long)f->xoff.bytes);
	return 0;
}

/* pfc.quanta that hold a sender between refreshes (rp_switch_min_quanta:
 * the pause left after the refresh is due covers a PFC frame and a
 * max_frame frame; in bit times, so at every port's speed alike). Only a
 * quanta given can be too few (65535 covers 16384 B frames at refresh 99%). */
static int check_quanta(struct rp_vctx *c, const struct rp_node *map, const char *path, const struct rp_fabric *f)
{
	char sub[RP_PATH_MAX], key[RP_PATH_MAX];
	const struct rp_node *pfc = opt(map, path, "pfc", sub), *n = pfc ? opt(pfc, sub, "quanta", key) : NULL;
	uint32_t least = rp_switch_min_quanta(f->max_frame, f->pfc_refresh_pct);
	if (!n || f->pfc_off || !f->lossless_mask || f->pfc_quanta >= least)
		return 0;
	return rp_verr(c, &n->pos, key,
		       "%u quanta (%u x 512 bit times) cannot hold a sender between refreshes: the %u%% of the pause "
		       "left when the refresh is due (pfc.refresh) must cover a PFC frame (84 B) and a max_frame frame "
		       "(%u + 24 B) on the wire; the smallest that works is %u",
		       f->pfc_quanta, f->pfc_quanta, 100 - f->pfc_refresh_pct, f->max_frame, least);
}

static int parse_ecn(struct rp_vctx *c, const struct rp_node *map, const char *path, struct rp_fabric *f)
{
	char sub[RP_PATH_MAX];
	const struct rp_node *n;
	if (section(c, map, path, "ecn", ecn_keys, "a mapping of priorities, kmin, kmax, pmax", &n, sub) || !n)
		return n ? -1 : 0;
	if (prio_mask(c, n, sub, &f->ecn_mask) || opt_size(c, n, sub, "kmin", &f->kmin) ||
	    opt_size(c, n, sub, "kmax", &f->kmax) || opt_fraction(c, n, sub, "pmax", 0, 1, &f->pmax))
		return -1;
	if (f->kmax < f->kmin)
		return rp_verr(c, &n->pos, sub, "kmax (%llu) is below kmin (%llu)", (unsigned long long)f->kmax,
			       (unsigned long long)f->kmin);
	return 0;
}

static int parse_lossy(struct rp_vctx *c, const struct rp_node *map, const char *path, struct rp_fabric *f)
{
	char sub[RP_PATH_MAX], key[RP_PATH_MAX];
	const struct rp_node *n;
	double alpha = -1;
	if (section(c, map, path, "lossy", lossy_keys, "a mapping of limit or alpha", &n, sub) || !n)
		return n ? -1 : 0;
	if (opt(n, sub, "limit", key)) {
		f->lossy_limit = (struct rp_fabric_thresh){0};
		if (opt_size(c, n, sub, "limit", &f->lossy_limit.bytes))
			return -1;
	}
	if (opt_fraction(c, n, sub, "alpha", 0.0001, 64, &alpha))
		return -1;
	if (alpha > 0)
		f->lossy_limit = (struct rp_fabric_thresh){.dynamic = true, .alpha = alpha};
	return 0;
}

/* A DCQCN value outside mlx5's range: issue 31 gave these keys mlx5's
 * meanings, so an old profile's value is refused with what changed. */
static int mlx5_range(struct rp_vctx *c, const struct rp_node *map, const char *path, const char *k, uint64_t v,
		      uint64_t min, uint64_t max, const char *unit, const char *changed)
{
	char key[RP_PATH_MAX];
	const struct rp_node *n = opt(map, path, k, key);
	if (!n || (v >= min && v <= max))
		return 0;
	return rp_verr(c, &n->pos, key, "%llu%s is outside mlx5's %llu..%llu%s: its meaning changed (%s)",
		       (unsigned long long)v, unit, (unsigned long long)min, (unsigned long long)max, unit, changed);
}

static int whole_us(struct rp_vctx *c, const struct rp_node *map, const char *path, const char *k, uint64_t ns)
{
	char key[RP_PATH_MAX];
	const struct rp_node *n = opt(map, path, k, key);
	if (!n || ns % 1000 == 0)
		return 0;
	return rp_verr(c, &n->pos, key, "%llu ns is not whole microseconds (mlx5's unit: 1..131071 us)",
		       (unsigned long long)ns);
}

static int opt_alpha_update(struct rp_vctx *c, const struct rp_node *map, const char *path, struct rp_dcqcn *d)
{
	char key[RP_PATH_MAX];
	const char *s;
	const struct rp_node *n = opt(map, path, "alpha_update", key);
	if (!n)
		return 0;
	if (rp_vscalar(c, n, key, "periodic or per-cnp", &s))
		return -1;
	if (!strcmp(s, "periodic"))
		d->alpha_update = RP_ALPHA_PERIODIC;
	else if (!strcmp(s, "per-cnp"))
		d->alpha_update = RP_ALPHA_PER_CNP;
	else
		return rp_verr(c, &n->pos, key, "expected periodic (mlx5: every dce_tcp_rtt) or per-cnp (the DCQCN paper), got '%s'", s);
	return 0;
}

static int parse_dcqcn(struct rp_vctx *c, const struct rp_node *map, const char *path, struct rp_dcqcn *d)
{
	char sub[RP_PATH_MAX];
	const struct rp_node *n;
	if (section(c, map, path, "dcqcn", dcqcn_keys, "a mapping of DCQCN (mlx5 roce_rp) settings", &n, sub) || !n)
		return n ? -1 : 0;
	d->enabled = true;
	if (opt_bool(c, n, sub, "enabled", &d->enabled) || opt_ns(c, n, sub, "rpg_time_reset", &d->rpg_time_reset_ns) ||
	    opt_size(c, n, sub, "rpg_byte_reset", &d->rpg_byte_reset) ||
	    opt_u32(c, n, sub, "rpg_threshold", 1, 31, &d->rpg_threshold) ||
	    opt_bps(c, n, sub, "rpg_ai_rate", &d->rpg_ai_rate_bps) || opt_bps(c, n, sub, "rpg_hai_rate", &d->rpg_hai_rate_bps) ||
	    opt_bps(c, n, sub, "rpg_min_rate", &d->rpg_min_rate_bps) ||
	    opt_u32(c, n, sub, "rpg_min_dec_fac", 0, 100, &d->rpg_min_dec_fac) ||
	    opt_u32(c, n, sub, "dce_tcp_g", 0, UINT32_MAX, &d->dce_tcp_g) ||
	    opt_ns(c, n, sub, "dce_tcp_rtt", &d->dce_tcp_rtt_ns) ||
	    opt_ns(c, n, sub, "rate_reduce_monitor_period", &d->rate_reduce_monitor_period_ns) ||
	    opt_u32(c, n, sub, "initial_alpha_value", 0, UINT32_MAX, &d->initial_alpha_value) ||
	    opt_alpha_update(c, n, sub, d) || opt_bool(c, n, sub, "clamp_tgt_rate", &d->clamp_tgt_rate) ||
	    opt_bool(c, n, sub, "clamp_tgt_rate_after_time_inc", &d->clamp_tgt_rate_after_time_inc))
		return -1;
	return mlx5_range(c, n, sub, "dce_tcp_g", d->dce_tcp_g, 0, 1023, "",
			  "mlx5's 1024ths: g = (1024 - dce_tcp_g)/1024, 1019 is g = 5/1024; it was g = 1/dce_tcp_g") ||
			       mlx5_range(c, n, sub, "dce_tcp_rtt", d->dce_tcp_rtt_ns / 1000, 1, 131071, " us",
					  "mlx5's alpha period in whole microseconds, default 1 us; it was 55 us") ||
			       whole_us(c, n, sub, "dce_tcp_rtt", d->dce_tcp_rtt_ns) ||
			       mlx5_range(c, n, sub, "initial_alpha_value", d->initial_alpha_value, 1, 1023, "",
					  "mlx5's 1024ths, alpha = initial_alpha_value/1024; it was /1023, 0..1023")
		       ? -1
		       : 0;
}

static const char *const topo_names[] = {"single", "leaf-spine", "fat-tree", "rail", NULL}; /* enum rp_topology */

/* Which shape keys the section gave (the rest come from k or the hosts). */
enum { G_LEAVES = 1, G_SPINES = 2, G_HPL = 4, G_PODS = 8, G_AGGS = 16, G_CORES = 32, G_RAILS = 64 };

struct shape {
	unsigned given;
	uint32_t over_leaf, over_agg; /* oversubscription: 0 when not given */
};

static int shape_u32(struct rp_vctx *c, const struct rp_node *map, const char *path, const char *k, unsigned bit,
		     struct shape *sh, uint32_t *v)
{
	char key[RP_PATH_MAX];
	if (!opt(map, path, k, key))
		return 0;
	sh->given |= bit;
	return opt_u32(c, map, path, k, 1, 65536, v);
}

/* `oversubscription: 2` (leaves) or `[2, 1]` (leaves, aggs): down over up capacity
 * at equal link speeds, as whole ratios. */
static int parse_oversub(struct rp_vctx *c, const struct rp_node *map, const char *path, struct shape *sh)
{
	char key[RP_PATH_MAX], item[RP_PATH_MAX];
	const struct rp_node *n = opt(map, path, "oversubscription", key);
	uint64_t v[2] = {0, 0};
	if (!n)
		return 0;
	if (n->type == RP_NODE_SCALAR) {
		if (rp_vuint(c, n, key, 1, 64, &v[0]))
			return -1;
	} else {
		if (rp_vtype(c, n, key, RP_NODE_SEQ, "a ratio like 2 or a list [leaf, agg] like [2, 1]"))
			return -1;
		if (n->n < 1 || n->n > 2)
			return rp_verr(c, &n->pos, key, "expected [leaf] or [leaf, agg], got %zu ratios", n->n);
		for (size_t i = 0; i < n->n; i++) {
			rp_path_index(item, key, i);
			if (rp_vuint(c, n->items[i], item, 1, 64, &v[i]))
				return -1;
		}
	}
	sh->over_leaf = (uint32_t)v[0];
	sh->over_agg = (uint32_t)v[1];
	return 0;
}

static int parse_topology(struct rp_vctx *c, const struct rp_node *map, const char *path, struct rp_fabric *f,
			  struct shape *sh)
{
	char key[RP_PATH_MAX];
	const char *s;
	const struct rp_node *n = opt(map, path, "topology", key);
	if (n) {
		if (rp_vscalar(c, n, key, "single, leaf-spine, fat-tree or rail", &s))
			return -1;
		int t = -1;
		for (int i = 0; topo_names[i]; i++)
			if (strcmp(s, topo_names[i]) == 0)
				t = i;
		if (t < 0)
			return rp_verr(c, &n->pos, key, "expected single, leaf-spine, fat-tree or rail, got '%s'", s);
		f->topology = (enum rp_topology)t;
	}
	uint32_t k = 0;
	if (opt_u32(c, map, path, "k", 2, RP_FABRIC_MAX_PORTS, &k))
		return -1;
	if (k % 2) {
		rp_path_key(key, path, "k");
		return rp_verr(c, &rp_node_get(map, "k")->pos, key, "a k-ary fat-tree needs an even k, got %u", k);
	}
	f->k = k;
	return shape_u32(c, map, path, "leaves", G_LEAVES, sh, &f->leaves) ||
			       shape_u32(c, map, path, "spines", G_SPINES, sh, &f->spines) ||
			       shape_u32(c, map, path, "hosts_per_leaf", G_HPL, sh, &f->hosts_per_leaf) ||
			       shape_u32(c, map, path, "pods", G_PODS, sh, &f->pods) ||
			       shape_u32(c, map, path, "aggs", G_AGGS, sh, &f->aggs) ||
			       shape_u32(c, map, path, "cores", G_CORES, sh, &f->cores) ||
			       shape_u32(c, map, path, "rails", G_RAILS, sh, &f->rails) || parse_oversub(c, map, path, sh)
		       ? -1
		       : 0;
}

static uint32_t ceil_div(size_t a, size_t b)
{
	return (uint32_t)((a + b - 1) / (b ? b : 1));
}

#define PORTS_FAIL(what, n) \
	rp_verr(c, pos, path, "%s has %u ports; a switch has at most %d", what, (unsigned)(n), RP_FABRIC_MAX_PORTS)

static int fit_leaf_spine(struct rp_vctx *c, const struct rp_pos *pos, const char *path, struct rp_fabric *f)
{
	size_t nh = c->prof->nhosts;
	uint32_t per = f->hosts_per_leaf ? f->hosts_per_leaf : ceil_div(nh, f->leaves);
	if ((size_t)per * f->leaves < nh)
		return rp_verr(c, pos, path, "%u leaves x %u hosts_per_leaf cannot hold %zu hosts", f->leaves, per, nh);
	if (per + f->spines > RP_FABRIC_MAX_PORTS)
		return rp_verr(c, pos, path, "a leaf has at most %d ports: %u hosts + %u spines", RP_FABRIC_MAX_PORTS, per,
			       f->spines);
	if (f->leaves > RP_FABRIC_MAX_PORTS)
		return PORTS_FAIL("a spine (one port per leaf)", f->leaves);
	f->hosts_per_leaf = per;
	return 0;
}

/* k-ary: k pods of k/2 leaves (k/2 hosts each) and k/2 aggs, (k/2)^2 cores.
 * Oversubscription r at the leaves puts r x aggs hosts on a leaf; r at the
 * aggs gives each agg leaves / r core uplinks. */
static int fit_fat_tree(struct rp_vctx *c, const struct rp_pos *pos, const char *path, struct rp_fabric *f,
			const struct shape *sh)
{
	size_t nh = c->prof->nhosts;
	uint32_t h = f->k / 2;
	if (!f->k && !(sh->given & G_PODS))
		return rp_verr(c, pos, path, "a fat-tree needs k (a k-ary tree) or pods, leaves, aggs and cores");
	if (!(sh->given & G_PODS))
		f->pods = f->k;
	if (!(sh->given & G_LEAVES))
		f->leaves = h ? h : 2;
	if (!(sh->given & G_AGGS))
		f->aggs = h ? h : 2;
	if (!(sh->given & G_HPL))
		f->hosts_per_leaf = sh->over_leaf ? sh->over_leaf * f->aggs : h ? h : ceil_div(nh, f->pods * f->leaves);
	if (sh->over_agg && f->leaves % sh->over_agg)
		return rp_verr(c, pos, path, "oversubscription %u at the aggs needs leaves (%u) divisible by it",
			       sh->over_agg, f->leaves);
	if (!(sh->given & G_CORES))
		f->cores = f->aggs * (sh->over_agg ? f->leaves / sh->over_agg : h ? h : f->leaves);
	if (f->cores % f->aggs)
		return rp_verr(c, pos, path, "cores (%u) must be a multiple of aggs (%u): each agg gets cores / aggs",
			       f->cores, f->aggs);
	if ((size_t)f->pods * f->leaves * f->hosts_per_leaf < nh)
		return rp_verr(c, pos, path, "%u pods x %u leaves x %u hosts_per_leaf cannot hold %zu hosts", f->pods,
			       f->leaves, f->hosts_per_leaf, nh);
	if (f->hosts_per_leaf + f->aggs > RP_FABRIC_MAX_PORTS)
		return PORTS_FAIL("a leaf (hosts + aggs)", f->hosts_per_leaf + f->aggs);
	if (f->leaves + f->cores / f->aggs > RP_FABRIC_MAX_PORTS)
		return PORTS_FAIL("an agg (leaves + cores / aggs)", f->leaves + f->cores / f->aggs);
	if (f->pods > RP_FABRIC_MAX_PORTS)
		return PORTS_FAIL("a core (one port per pod)", f->pods);
	return 0;
}

/* Servers of `rails` NICs: hosts of `nics: R` (R = rails), or, when every
 * host has one NIC, hosts r, r + 1, ... of the profile as one server's NICs
 * 0..rails-1; a pod is hosts_per_leaf servers. */
static int rail_servers(struct rp_vctx *c, const struct rp_pos *pos, const char *path, struct rp_fabric *f,
			const struct shape *sh, uint32_t *servers)
{
	const struct rp_profile *p = c->prof;
	if (!rp_profile_multi_nic(p)) {
		if (!(sh->given & G_RAILS))
			return rp_verr(c, pos, path, "a rail fabric needs rails (NICs per server, one leaf per rail per pod), "
						     "or hosts with nics:");
		*servers = ceil_div(p->nhosts, f->rails);
		return 0;
	}
	if (!(sh->given & G_RAILS))
		f->rails = p->servers[0].nnics;
	for (size_t i = 0; i < p->nservers; i++)
		if (p->servers[i].nnics != f->rails)
			return rp_verr(c, pos, path,
				       "rails %u, but host '%s' has %u NIC%s: a rail fabric puts NIC r of every host on "
				       "rail leaf r, so every host has one NIC per rail",
				       f->rails, p->servers[i].name, p->servers[i].nnics, p->servers[i].nnics == 1 ? "" : "s");
	*servers = (uint32_t)p->nservers;
	return 0;
}

static int fit_rail(struct rp_vctx *c, const struct rp_pos *pos, const char *path, struct rp_fabric *f,
		    const struct shape *sh)
{
	uint32_t servers = 0;
	if (rail_servers(c, pos, path, f, sh, &servers))
		return -1;
	if (!(sh->given & G_HPL))
		f->hosts_per_leaf = (sh->given & G_PODS) ? ceil_div(servers, f->pods) : servers;
	if (!(sh->given & G_PODS))
		f->pods = ceil_div(servers, f->hosts_per_leaf);
	if ((size_t)f->pods * f->hosts_per_leaf < servers)
		return rp_verr(c, pos, path, "%u pods x %u servers (hosts_per_leaf) cannot hold %u servers of %u NICs",
			       f->pods, f->hosts_per_leaf, servers, f->rails);
	f->leaves = f->pods * f->rails;
	if (f->hosts_per_leaf + f->spines > RP_FABRIC_MAX_PORTS)
		return PORTS_FAIL("a rail leaf (servers + spines)", f->hosts_per_leaf + f->spines);
	if (f->leaves > RP_FABRIC_MAX_PORTS)
		return PORTS_FAIL("a spine (pods x rails)", f->leaves);
	return 0;
}

/* `dscp_map: {26: 3, 46: 5}`: DSCPs the switches queue on another priority
 * than d >> 3 (the rest keep d >> 3). */
static int parse_dscp_map(struct rp_vctx *c, const struct rp_node *map, const char *path, struct rp_fabric *f)
{
	char key[RP_PATH_MAX], item[RP_PATH_MAX];
	const struct rp_node *n = opt(map, path, "dscp_map", key);
	if (!n)
		return 0;
	if (rp_vtype(c, n, key, RP_NODE_MAP, "a mapping of DSCP to priority like {26: 3}"))
		return -1;
	for (size_t i = 0; i < n->n; i++) {
		const char *k = n->kv[i].key;
		char *end;
		unsigned long d = strtoul(k, &end, 10);
		uint64_t prio;
		rp_path_key(item, key, k);
		if (end == k || *end || d > 63)
			return rp_verr(c, &n->kv[i].key_pos, item, "expected a DSCP 0..63 as the key, got '%s'", k);
		if (rp_vuint(c, n->kv[i].val, item, 0, 7, &prio))
			return -1;
		f->dscp_to_tc[d] = (uint8_t)prio;
	}
	return 0;
}

/* Whether the hosts fit the switches' ports. */
static int check_fit(struct rp_vctx *c, const struct rp_node *map, const char *path, struct rp_fabric *f,
		     const struct shape *sh)
{
	size_t nh = c->prof->nhosts;
	switch (f->topology) {
	case RP_TOPO_SINGLE:
		return nh > RP_FABRIC_MAX_PORTS ? rp_verr(c, &map->pos, path, "one switch has at most %d ports; %zu hosts",
							  RP_FABRIC_MAX_PORTS, nh)
						: 0;
	case RP_TOPO_LEAF_SPINE:
		return fit_leaf_spine(c, &map->pos, path, f);
	case RP_TOPO_FAT_TREE:
		return fit_fat_tree(c, &map->pos, path, f, sh);
	case RP_TOPO_RAIL:
		return fit_rail(c, &map->pos, path, f, sh);
	}
	return 0;
}

int rp_fabric_parse(struct rp_vctx *c, const struct rp_node *map, const char *path)
{
	struct rp_fabric *f = &c->prof->fabric;
	if (rp_vtype(c, map, path, RP_NODE_MAP, "a mapping of fabric settings") || rp_vkeys(c, map, path, fabric_keys))
		return -1;
	f->present = true;
	uint32_t max_frame = f->max_frame;
	struct shape sh = {0};
	if (parse_topology(c, map, path, f, &sh) || parse_links(c, map, path, f) ||
	    opt_size(c, map, path, "buffer", &f->buffer_bytes) ||
	    opt_u32(c, map, path, "max_frame", 1518, 16384, &max_frame) || parse_pfc(c, map, path, f) ||
	    parse_ecn(c, map, path, f) || parse_lossy(c, map, path, f) || parse_dcqcn(c, map, path, &f->dcqcn))
		return -1;
	f->max_frame = max_frame;
	if (check_quanta(c, map, path, f))
		return -1;
	char key[RP_PATH_MAX];
	const struct rp_node *n = opt(map, path, "seed", key);
	if (n && rp_vuint(c, n, key, 0, UINT64_MAX, &f->seed))
		return -1;
	if (opt_ns(c, map, path, "qdepth_bin", &f->qdepth_bin_ns) || opt_ns(c, map, path, "max_time", &f->max_time_ns) ||
	    parse_dscp_map(c, map, path, f))
		return -1;
	return check_fit(c, map, path, f, &sh);
}
