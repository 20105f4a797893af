/* The `certify:` section: which priorities the fabric is meant to keep
 * lossless and lossy, the DSCPs its hosts send, and the thresholds of
 * `roceprobe certify` (docs/certify.md). Every key is optional. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

static const char *const certify_keys[] = {"lossless", "lossy", "dscp", "max_incast", "messages", "ecn",
					   "all_to_all", "latency", "ecmp", "storm", NULL};
static const char *const ecn_keys[] = {"pfc_per_min", NULL};
static const char *const a2a_keys[] = {"goodput", "jain", NULL};
static const char *const latency_keys[] = {"p99_factor", NULL};
static const char *const ecmp_keys[] = {"tolerance", NULL};
static const char *const storm_keys[] = {"detect", "recover", NULL};

void rp_certify_cfg_init(struct rp_certify_cfg *c)
{
	*c = (struct rp_certify_cfg){.lossy_prio = -1, .messages = 8, .pfc_per_min = 100, .goodput_share = 0.9,
				     .jain = 0.9, .p99_factor = 5, .ecmp_tolerance = 0.25,
				     .storm_detect_ns = 2000000, .storm_recover_ns = 2000000};
}

/* A number within [lo, hi]; with pct, "90%" reads as 0.9. */
static int number(struct rp_vctx *c, const struct rp_node *n, const char *key, double lo, double hi, bool pct,
		  double *v)
{
	const char *s;
	if (rp_vscalar(c, n, key, "a number", &s))
		return -1;
	if (rp_parse_share(s, pct, lo, hi, v))
		return rp_verr(c, &n->pos, key, "expected a number from %g to %g%s, got '%s'", lo, hi,
			       pct ? " (or a percentage like 90%)" : "", s);
	return 0;
}

static const struct rp_node *sub(struct rp_vctx *c, const struct rp_node *map, const char *path, const char *k,
				 const char *const *keys, char out[RP_PATH_MAX], int *rc)
{
	rp_path_key(out, path, k);
	const struct rp_node *n = rp_node_get(map, k);
	*rc = n && (rp_vtype(c, n, out, RP_NODE_MAP, "a mapping") || rp_vkeys(c, n, out, keys)) ? -1 : 0;
	return *rc ? NULL : n;
}

static int opt_number(struct rp_vctx *c, const struct rp_node *map, const char *path, const char *k, double lo,
		      double hi, bool pct, double *v)
{
	char key[RP_PATH_MAX];
	rp_path_key(key, path, k);
	const struct rp_node *n = rp_node_get(map, k);
	return n ? number(c, n, key, lo, hi, pct, v) : 0;
}

static int opt_ns(struct rp_vctx *c, const struct rp_node *map, const char *path, const char *k, uint64_t *v)
{
	char key[RP_PATH_MAX];
	rp_path_key(key, path, k);
	const struct rp_node *n = rp_node_get(map, k);
	if (n && rp_vduration(c, n, key, v))
		return -1;
	if (n && *v == 0)
		return rp_verr(c, &n->pos, key, "expected a duration above 0 like 2ms");
	return 0;
}

static int opt_uint(struct rp_vctx *c, const struct rp_node *map, const char *path, const char *k, uint64_t lo,
		    uint64_t hi, uint32_t *v)
{
	char key[RP_PATH_MAX];
	uint64_t x;
	rp_path_key(key, path, k);
	const struct rp_node *n = rp_node_get(map, k);
	if (!n)
		return 0;
	if (rp_vuint(c, n, key, lo, hi, &x))
		return -1;
	*v = (uint32_t)x;
	return 0;
}

/* `lossless: [3]` or `lossless: 3`. */
static int prios(struct rp_vctx *c, const struct rp_node *map, const char *path, uint8_t *mask)
{
	char key[RP_PATH_MAX];
	rp_path_key(key, path, "lossless");
	const struct rp_node *n = rp_node_get(map, "lossless");
	return n ? rp_vprio_mask(c, n, key, true, mask) : 0;
}

static int dscps(struct rp_vctx *c, const struct rp_node *map, const char *path, struct rp_certify_cfg *cc)
{
	char key[RP_PATH_MAX], item[RP_PATH_MAX];
	uint64_t d;
	rp_path_key(key, path, "dscp");
	const struct rp_node *n = rp_node_get(map, "dscp");
	if (!n)
		return 0;
	if (n->type == RP_NODE_SCALAR) {
		if (rp_vuint(c, n, key, 0, 63, &d))
			return -1;
		cc->dscps[cc->ndscps++] = (uint8_t)d;
		return 0;
	}
	if (rp_vtype(c, n, key, RP_NODE_SEQ, "a list of DSCPs 0..63 like [26]"))
		return -1;
	if (n->n == 0 || n->n > 64)
		return rp_verr(c, &n->pos, key, "expected 1 to 64 DSCPs, like [26]");
	for (size_t i = 0; i < n->n; i++) {
		rp_path_index(item, key, i);
		if (rp_vuint(c, n->items[i], item, 0, 63, &d))
			return -1;
		cc->dscps[cc->ndscps++] = (uint8_t)d;
	}
	return 0;
}

static int thresholds(struct rp_vctx *c, const struct rp_node *map, const char *path, struct rp_certify_cfg *cc)
{
	char k[RP_PATH_MAX];
	int rc;
	const struct rp_node *n;
	if ((n = sub(c, map, path, "ecn", ecn_keys, k, &rc)) && opt_number(c, n, k, "pfc_per_min", 0, 1e9, false, &cc->pfc_per_min))
		return -1;
	if (rc || ((n = sub(c, map, path, "all_to_all", a2a_keys, k, &rc)) &&
		   (opt_number(c, n, k, "goodput", 0, 1, true, &cc->goodput_share) ||
		    opt_number(c, n, k, "jain", 0, 1, false, &cc->jain))))
		return -1;
	if (rc || ((n = sub(c, map, path, "latency", latency_keys, k, &rc)) &&
		   opt_number(c, n, k, "p99_factor", 1, 1e6, false, &cc->p99_factor)))
		return -1;
	if (rc || ((n = sub(c, map, path, "ecmp", ecmp_keys, k, &rc)) &&
		   opt_number(c, n, k, "tolerance", 0, 1, true, &cc->ecmp_tolerance)))
		return -1;
	if (rc || ((n = sub(c, map, path, "storm", storm_keys, k, &rc)) &&
		   (opt_ns(c, n, k, "detect", &cc->storm_detect_ns) || opt_ns(c, n, k, "recover", &cc->storm_recover_ns))))
		return -1;
	return rc;
}

int rp_certify_parse(struct rp_vctx *c, const struct rp_node *map, const char *path)
{
	struct rp_certify_cfg *cc = &c->prof->certify;
	char key[RP_PATH_MAX];
	uint32_t lossy = 0;
	if (rp_vtype(c, map, path, RP_NODE_MAP, "a mapping of certify settings") || rp_vkeys(c, map, path, certify_keys))
		return -1;
	cc->present = true;
	if (prios(c, map, path, &cc->lossless_mask) || dscps(c, map, path, cc) ||
	    opt_uint(c, map, path, "lossy", 0, 7, &lossy) ||
	    opt_uint(c, map, path, "max_incast", 2, RP_MAX_HOSTS, &cc->max_incast) ||
	    opt_uint(c, map, path, "messages", 1, 10000, &cc->messages) || thresholds(c, map, path, cc))
		return -1;
	if (rp_node_get(map, "lossy")) {
		cc->lossy_prio = (int)lossy;
		rp_path_key(key, path, "lossy");
		if ((cc->lossless_mask >> lossy) & 1u)
			return rp_verr(c, &rp_node_get(map, "lossy")->pos, key, "priority %u is also in lossless", lossy);
	}
	return 0;
}
