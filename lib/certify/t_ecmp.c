/* Test 9, ECMP balance: a permutation over every host; each leaf's bytes
 * toward the spines split over its k uplinks with every share within
 * certify.ecmp.tolerance of 1/k, and the permutation (which a balanced,
 * non-blocking fabric carries at line rate) at certify.all_to_all.goodput
 * of line rate per flow. Needs uplinks: SKIP on one switch. */
#include <math.h>
#include <string.h>

#include "cert_internal.h"

static bool is_spine(const json_t *res, const char *peer)
{
	size_t i;
	json_t *s;
	json_array_foreach(json_object_get(res, "switches"), i, s) {
		const char *n = json_string_value(json_object_get(s, "name"));
		size_t l = strlen(n);
		if (strcmp(json_string_value(json_object_get(s, "role")), "spine") == 0 && strncmp(peer, n, l) == 0 &&
		    peer[l] == ':')
			return true;
	}
	return false;
}

/* Every leaf's uplink shares; the worst deviation from 1/k. */
static double shares(const json_t *res, json_t *out, json_t *plot, double *worst_share, char *worst, size_t wl)
{
	size_t i, j;
	json_t *s, *p;
	double dev = 0;
	json_array_foreach(json_object_get(res, "switches"), i, s) {
		if (strcmp(json_string_value(json_object_get(s, "role")), "leaf") != 0)
			continue;
		double bytes[64], tot = 0;
		unsigned k = 0;
		json_array_foreach(json_object_get(s, "ports"), j, p) {
			if (k < 64 && is_spine(res, json_string_value(json_object_get(p, "peer")) ?: "")) {
				bytes[k] = (double)json_integer_value(json_object_get(p, "tx_bytes"));
				tot += bytes[k++];
			}
		}
		if (!k || tot <= 0)
			continue;
		const char *leaf = json_string_value(json_object_get(s, "name"));
		json_t *arr = json_array(), *ser = rp_cert_series(plot, leaf);
		for (unsigned u = 0; u < k; u++) {
			double sh = bytes[u] / tot, d = fabs(sh - 1.0 / k) * k;
			json_array_append_new(arr, json_real(sh));
			rp_cert_point(ser, u, sh);
			if (d > dev) {
				dev = d;
				*worst_share = sh;
				snprintf(worst, wl, "%s uplink %u", leaf, u);
			}
		}
		json_object_set_new(out, leaf, arr);
	}
	return dev;
}

static int run(struct rp_cert_ctx *c, struct rp_cert_t *t)
{
	if (c->fab.known && (!c->fab.leaf_spine || c->fab.spines < 2)) {
		rp_cert_skip(t, "%s: no uplinks to balance (needs a leaf-spine with 2 or more spines)",
			     c->fab.leaf_spine ? "one spine" : "one switch");
		return 0;
	}
	unsigned p = 0;
	while (p < 7 && !((c->want.lossless >> p) & 1u))
		p++;
	struct rp_cert_buf w;
	json_t *res;
	rp_cert_buf_init(&w);
	rp_cert_w_group(&w, c, "perm", "permutation", rp_cert_dscp_for(c, p), "not-ect", 4 * c->cfg->messages, 8);
	char label[96];
	snprintf(label, sizeof(label), "permutation of %zu hosts, 8 QPs per flow, priority %u", c->prof->nhosts, p);
	int rc = rp_cert_exec(c, t, label, &w, NULL, 0, &res);
	if (rc) {
		json_decref(res);
		return rc;
	}
	json_t *sh = json_object();
	json_object_set_new(t->measured, "uplink_shares", sh);
	json_t *plot = rp_cert_plot(t, "share of each leaf's spine-bound bytes per uplink", "uplink", "share", "bar");
	double worst_share = 0;
	char worst[64] = "";
	double dev = shares(res, sh, plot, &worst_share, worst, sizeof(worst));
	if (!json_object_size(sh)) {
		rp_cert_skip(t, "no leaf sent traffic to a spine (or the engine does not see the switches)");
		json_decref(res);
		return 0;
	}
	double line = (double)c->line_bps / 1e9, lo = 1e18;
	size_t i;
	json_t *f;
	json_array_foreach(json_object_get(res, "flows"), i, f) {
		double g = rp_cert_jnum(f, "goodput_gbps") / line;
		lo = g < lo ? g : lo;
	}
	json_object_set_new(t->measured, "worst_deviation", json_real(dev));
	json_object_set_new(t->measured, "min_flow_share", json_real(lo));
	char want[64], name[96];
	unsigned k = c->fab.spines ? c->fab.spines : 2;
	snprintf(want, sizeof(want), "within %.0f%% of 1/%u", c->cfg->ecmp_tolerance * 100, k);
	snprintf(name, sizeof(name), "worst uplink share (%s)", worst);
	rp_cert_crit(t, name, want, json_real(worst_share), dev <= c->cfg->ecmp_tolerance);
	snprintf(want, sizeof(want), ">= %.2f", c->cfg->goodput_share);
	rp_cert_crit(t, "lowest flow goodput / line rate", want, json_real(lo), lo >= c->cfg->goodput_share);
	double os = c->fab.known && c->fab.uplink_bps
			    ? (double)c->fab.hosts_per_leaf * (double)c->fab.host_bps / ((double)c->fab.spines * (double)c->fab.uplink_bps)
			    : 0;
	if (t->failed && os > 1.0001)
		rp_cert_fail(t, "oversubscribed",
			     "the uplinks are oversubscribed %.2f:1 (%u x %.0f Gbit/s of hosts per leaf, %u x %.0f Gbit/s up): "
			     "even balanced, the permutation's flows between leaves cannot run at line rate (lowest %.0f%%)",
			     os, c->fab.hosts_per_leaf, (double)c->fab.host_bps / 1e9, c->fab.spines,
			     (double)c->fab.uplink_bps / 1e9, lo * 100);
	else if (dev > c->cfg->ecmp_tolerance)
		rp_cert_fail(t, "ecmp-imbalance",
			     "%s carried %.0f%% of its leaf's spine-bound bytes against 1/%u = %.0f%%: the ECMP hash of the "
			     "UDP source ports piles flows onto some uplinks (more QPs per flow, or another hash, spreads them)",
			     worst, worst_share * 100, k, 100.0 / k);
	else if (t->failed && !rp_cert_diagnose_drops(c, t, res, p))
		rp_cert_fail(t, "ecmp-imbalance",
			     "the uplinks' shares are within the bound (worst %s at %.0f%%) but the slowest flow ran at %.0f%% "
			     "of line: flows that hash onto the same uplink share it (QP-level collisions); more QPs per flow "
			     "or a hash over more header fields spreads them",
			     worst, worst_share * 100, lo * 100);
	json_decref(res);
	return 0;
}

const struct rp_cert_test rp_cert_t_ecmp = {9, "ecmp", "ECMP balance: uplink shares within a bound of 1/k", run,
					    "the leaves' byte counters per uplink", .seeded = true};
