/* Test 9, ECMP balance: a permutation over every host; each leaf's bytes
 * toward the spines split over its k uplinks with every share within
 * certify.ecmp.tolerance of 1/k, and the permutation (which a balanced,
 * non-blocking fabric carries at line rate) at certify.all_to_all.goodput
 * of line rate per flow. Needs uplinks: SKIP on one switch. On a real
 * fabric (the run engine) the uplinks are the ports of the profile's
 * `switches:` whose `ports:` entry is SWITCH:PORT, their bytes the
 * switches' own tx_bytes over the run (counters.switches[], res_switch.c). */
#include <math.h>
#include <string.h>

#include "cert_internal.h"

/* One uplink: the switch it leaves, its name in the verdict, its bytes sent. */
struct uplink {
	const char *sw;
	char name[176];
	const char *port, *peer; /* a real fabric's; NULL in the lab */
	double bytes;
};
#define MAX_UP 256
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

/* The lab's leaves' spine-facing ports (its `switches` with roles). */
static size_t lab_uplinks(const json_t *res, struct uplink *up)
{
	size_t i, j, n = 0;
	json_t *s, *p;
	json_array_foreach(json_object_get(res, "switches"), i, s) {
		if (strcmp(json_string_value(json_object_get(s, "role")), "leaf") != 0)
			continue;
		const char *leaf = json_string_value(json_object_get(s, "name"));
		unsigned k = 0;
		json_array_foreach(json_object_get(s, "ports"), j, p) {
			if (k < 64 && n < MAX_UP && is_spine(res, json_string_value(json_object_get(p, "peer")) ?: "")) {
				up[n] = (struct uplink){.sw = leaf, .bytes = (double)json_integer_value(json_object_get(p, "tx_bytes"))};
				snprintf(up[n++].name, sizeof(up[0].name), "%s uplink %u", leaf, k++);
			}
		}
	}
	return n;
}

/* A real fabric's: each switch port facing SWITCH:PORT whose bytes a source
 * counted, grouped by switch (in the order the switches are first seen). */
static size_t run_uplinks(const struct rp_cert_swc *w, struct uplink *up)
{
	size_t n = 0;
	for (size_t i = 0; i < w->nports; i++) {
		const char *sw = w->ports[i].sw;
		bool seen = false;
		for (size_t e = 0; e < n; e++)
			seen = seen || strcmp(up[e].sw, sw) == 0;
		for (size_t k = i; !seen && k < w->nports && n < MAX_UP; k++) {
			const struct rp_cert_swport *r = &w->ports[k];
			if (strcmp(r->sw, sw) != 0 || !strchr(r->peer, ':') || !(r->have & RP_SWC_TX_BYTES))
				continue;
			up[n] = (struct uplink){.sw = r->sw, .port = r->port, .peer = r->peer, .bytes = (double)r->tx_bytes};
			snprintf(up[n++].name, sizeof(up[0].name), "%s uplink %s", r->sw, r->port);
		}
	}
	return n;
}

/* Each switch's uplink shares (of 2 or more uplinks that sent bytes): the
 * worst deviation from 1/k, relative; its share, name and k. up[] is grouped
 * by switch. */
static double shares(const struct uplink *up, size_t n, json_t *out, json_t *plot, json_t *list, double *worst_share,
		     char *worst, size_t wl, unsigned *worst_k)
{
	double dev = 0;
	for (size_t a = 0, b; a < n; a = b) {
		double tot = 0;
		for (b = a; b < n && strcmp(up[b].sw, up[a].sw) == 0; b++)
			tot += up[b].bytes;
		unsigned k = (unsigned)(b - a);
		if (k < 2 || tot <= 0)
			continue;
		json_t *arr = json_array(), *ser = rp_cert_series(plot, up[a].sw);
		for (size_t u = a; u < b; u++) {
			double sh = up[u].bytes / tot, d = fabs(sh - 1.0 / k) * k;
			json_array_append_new(arr, json_real(sh));
			rp_cert_point(ser, (double)(u - a), sh);
			if (list)
				json_array_append_new(list, json_pack("{s:s, s:s, s:s, s:I, s:f}", "switch", up[u].sw, "port",
								      up[u].port, "peer", up[u].peer, "tx_bytes",
								      (json_int_t)up[u].bytes, "share", sh));
			if (d > dev || !worst[0]) {
				dev = d;
				*worst_share = sh;
				*worst_k = k;
				snprintf(worst, wl, "%s", up[u].name);
			}
		}
		json_object_set_new(out, up[a].sw, arr);
	}
	return dev;
}

/* A real fabric without what the test needs: SKIP naming it; true when so. */
static bool run_missing(struct rp_cert_t *t, const struct rp_cert_swc *w, const struct uplink *up, size_t n)
{
	size_t linked = 0, most = 0;
	for (size_t i = 0; i < w->nports; i++)
		linked += strchr(w->ports[i].peer, ':') != NULL;
	for (size_t a = 0, b; a < n; a = b) {
		for (b = a; b < n && strcmp(up[b].sw, up[a].sw) == 0; b++)
			;
		most = b - a > most ? b - a : most;
	}
	if (!linked)
		rp_cert_skip(t, "no switch of the profile's `switches:` (%zu read) has uplinks: no port's `ports:` entry "
				"is SWITCH:PORT (another switch's port), so there is nothing to balance",
			     w->nswitches);
	else if (!n)
		rp_cert_skip(t, "no switch source of the profile's `switches:` (%zu read, %zu samples) counts what this "
				"test needs on the %zu uplinks (ports facing SWITCH:PORT): %s",
			     w->nswitches, w->nsamples, linked, rp_cert_swc_name(RP_SWC_TX_BYTES));
	else if (most < 2)
		rp_cert_skip(t, "no switch has 2 or more uplinks (ports facing SWITCH:PORT) with %s: nothing to balance",
			     rp_cert_swc_name(RP_SWC_TX_BYTES));
	else
		return false;
	return true;
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
	/* The uplinks: the lab's leaves' toward its spines, or a real fabric's
	 * switch ports facing another switch (its switches' own counters). */
	struct uplink up[MAX_UP];
	struct rp_cert_swc swc = {.ports = NULL};
	bool real = !c->fab.known && c->fab.switch_sources;
	size_t nup;
	if (real) {
		if (rp_cert_swc_read(res, &swc)) {
			rp_cert_skip(t, "out of memory reading the switches' counters");
			goto out;
		}
		nup = run_uplinks(&swc, up);
		if (run_missing(t, &swc, up, nup))
			goto out;
	} else {
		nup = lab_uplinks(res, up);
	}
	json_t *sh = json_object(), *list = real ? json_array() : NULL;
	json_object_set_new(t->measured, "uplink_shares", sh);
	if (list)
		json_object_set_new(t->measured, "uplinks", list);
	json_t *plot = rp_cert_plot(t, real ? "share of each switch's uplink bytes per uplink"
					    : "share of each leaf's spine-bound bytes per uplink",
				    "uplink", "share", "bar");
	double worst_share = 0;
	char worst[176] = "";
	unsigned k = 0;
	double dev = shares(up, nup, sh, plot, list, &worst_share, worst, sizeof(worst), &k);
	if (!json_object_size(sh)) {
		rp_cert_skip(t, real ? "no switch sent bytes on its uplinks: the permutation's flows did not cross them"
				     : "no leaf sent traffic to a spine (or the engine does not see the switches)");
		goto out;
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
	char want[64], name[224];
	snprintf(want, sizeof(want), "within %.0f%% of 1/%u", c->cfg->ecmp_tolerance * 100, k);
	snprintf(name, sizeof(name), "worst uplink share (%s)", worst);
	rp_cert_crit(t, name, want, json_real(worst_share), dev <= c->cfg->ecmp_tolerance);
	snprintf(want, sizeof(want), ">= %.2f", c->cfg->goodput_share);
	rp_cert_crit(t, "lowest flow goodput / line rate", want, json_real(lo), lo >= c->cfg->goodput_share);
	double os = c->fab.known && c->fab.uplink_bps
			    ? (double)c->fab.hosts_per_leaf * (double)c->fab.host_bps / ((double)c->fab.spines * (double)c->fab.uplink_bps)
			    : 0;
	/* Real hosts may not offer line rate (the lab's NICs always do): then a
	 * slow flow is theirs, not the fabric's (as test 7). */
	size_t off_i;
	double off_lo = rp_cert_min_offered(c, t, res, p, c->prof->nhosts, &off_i);
	if (t->failed && os > 1.0001)
		rp_cert_fail(t, "oversubscribed",
			     "the uplinks are oversubscribed %.2f:1 (%u x %.0f Gbit/s of hosts per leaf, %u x %.0f Gbit/s up): "
			     "even balanced, the permutation's flows between leaves cannot run at line rate (lowest %.0f%%)",
			     os, c->fab.hosts_per_leaf, (double)c->fab.host_bps / 1e9, c->fab.spines,
			     (double)c->fab.uplink_bps / 1e9, lo * 100);
	else if (dev > c->cfg->ecmp_tolerance)
		rp_cert_fail(t, "ecmp-imbalance",
			     "%s carried %.0f%% of its %s bytes against 1/%u = %.0f%%: the ECMP hash of the "
			     "UDP source ports piles flows onto some uplinks (more QPs per flow, or another hash, spreads them)",
			     worst, worst_share * 100, real ? "switch's uplink" : "leaf's spine-bound", k, 100.0 / k);
	else if (t->failed && off_lo < c->cfg->goodput_share)
		rp_cert_skip(t, "not judged: the uplinks' shares are within the bound (worst %s at %.0f%%) but the hosts did "
				"not offer line rate (%s sent %.0f%% of line over the time it was not paused): its CPU or NIC, "
				"not the fabric, held it back; rerun on idle hosts",
			     worst, worst_share * 100, c->prof->hosts[off_i].name, off_lo * 100);
	else if (t->failed && !rp_cert_diagnose_drops(c, t, res, p))
		rp_cert_fail(t, "ecmp-imbalance",
			     "the uplinks' shares are within the bound (worst %s at %.0f%%) but the slowest flow ran at %.0f%% "
			     "of line: flows that hash onto the same uplink share it (QP-level collisions); more QPs per flow "
			     "or a hash over more header fields spreads them",
			     worst, worst_share * 100, lo * 100);
out:
	rp_cert_swc_free(&swc);
	json_decref(res);
	return 0;
}

const struct rp_cert_test rp_cert_t_ecmp = {9, "ecmp", "ECMP balance: uplink shares within a bound of 1/k", run,
					    "the switches' bytes sent per uplink (tx_bytes of ports facing another switch)",
					    .seeded = true, .counted = true};
