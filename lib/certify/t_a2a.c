/* Test 7, all-to-all: every host to every other at line rate: each host's
 * goodput at least certify.all_to_all.goodput of its line rate (90%) and
 * Jain's fairness over the hosts at least certify.all_to_all.jain (0.9). */
#include <stdlib.h>
#include <string.h>

#include "cert_internal.h"

/* The leaves' uplink capacity against their hosts': 1 when it is not
 * oversubscribed, 2 for 2:1, ...; 0 without uplinks. */
static double oversub(const struct rp_cert_fabric *f)
{
	if (!f->known || !f->leaf_spine || !f->spines || !f->uplink_bps)
		return 0;
	return (double)f->hosts_per_leaf * (double)f->host_bps / ((double)f->spines * (double)f->uplink_bps);
}

static int run(struct rp_cert_ctx *c, struct rp_cert_t *t)
{
	size_t nh = c->prof->nhosts;
	if (nh < 2) {
		rp_cert_skip(t, "needs 2 hosts; the profile has %zu", nh);
		return 0;
	}
	unsigned p = 0;
	while (p < 7 && !((c->want.lossless >> p) & 1u))
		p++;
	struct rp_cert_buf w;
	json_t *res;
	rp_cert_buf_init(&w);
	rp_cert_w_group(&w, c, "a2a", "all-to-all", rp_cert_dscp_for(c, p), "not-ect", c->cfg->messages, 8);
	char label[96];
	snprintf(label, sizeof(label), "all-to-all of %zu hosts at line rate, priority %u", nh, p);
	int rc = rp_cert_exec(c, t, label, &w, NULL, 0, &res);
	if (rc) {
		json_decref(res);
		return rc;
	}
	double line = (double)c->line_bps / 1e9, sum = 0, sq = 0, lo = 1e18;
	size_t lo_i = 0;
	json_t *hosts = json_array();
	json_t *plot = rp_cert_plot(t, "goodput received per host (share of line rate)", "host", "share", "bar");
	json_t *s = rp_cert_series(plot, "goodput / line rate"), *thr = rp_cert_series(plot, "threshold");
	for (size_t i = 0; i < nh; i++) {
		struct rp_cert_flows f;
		rp_cert_sum_flows(res, -1, c->prof->hosts[i].name, &f);
		double share = line > 0 ? f.goodput_gbps / line : 0;
		sum += share;
		sq += share * share;
		if (share < lo) {
			lo = share;
			lo_i = i;
		}
		json_array_append_new(hosts, json_pack("{s:s, s:f, s:f, s:I}", "host", c->prof->hosts[i].name, "goodput_gbps",
						       f.goodput_gbps, "share", share, "lost", (json_int_t)f.lost));
		rp_cert_point(s, (double)i, share);
		rp_cert_point(thr, (double)i, c->cfg->goodput_share);
	}
	double jain = sq > 0 ? sum * sum / ((double)nh * sq) : 0;
	json_object_set_new(t->measured, "hosts", hosts);
	json_object_set_new(t->measured, "min_share", json_real(lo));
	json_object_set_new(t->measured, "jain", json_real(jain));
	json_object_set_new(t->measured, "oversubscription", json_real(oversub(&c->fab)));
	char want[64], name[96];
	snprintf(want, sizeof(want), ">= %.2f", c->cfg->goodput_share);
	snprintf(name, sizeof(name), "lowest per-host goodput / line rate (%s)", c->prof->hosts[lo_i].name);
	rp_cert_crit(t, name, want, json_real(lo), lo >= c->cfg->goodput_share);
	snprintf(want, sizeof(want), ">= %.2f", c->cfg->jain);
	rp_cert_crit(t, "Jain's fairness over the hosts' goodput", want, json_real(jain), jain >= c->cfg->jain);
	double os = oversub(&c->fab);
	size_t off_i;
	/* The lab's NICs always offer what they may; real hosts may not. */
	double off_lo = rp_cert_min_offered(c, t, res, p, nh, &off_i);
	if (t->failed && off_lo < c->cfg->goodput_share) {
		rp_cert_skip(t, "not judged: the hosts did not offer line rate (%s sent %.0f%% of line over the time it was "
				"not paused): its CPU or NIC, not the fabric, held it back; rerun on idle hosts",
			     c->prof->hosts[off_i].name, off_lo * 100);
		json_decref(res);
		return 0;
	}
	if (t->failed && os > 1.0001)
		rp_cert_fail(t, "oversubscribed",
			     "the uplinks are oversubscribed %.2f:1: each leaf has %u x %.0f Gbit/s toward its hosts but %u x "
			     "%.0f Gbit/s toward the spines, so traffic between leaves cannot run at line rate (lowest host "
			     "%.0f%% of line)",
			     os, c->fab.hosts_per_leaf, (double)c->fab.host_bps / 1e9, c->fab.spines,
			     (double)c->fab.uplink_bps / 1e9, lo * 100);
	else if (t->failed && !rp_cert_diagnose_drops(c, t, res, p))
		rp_cert_fail(t, "unfair", "the hosts do not get their share (lowest %s at %.0f%% of line, fairness %.3f): "
					  "head-of-line blocking by PFC, or ECMP piling flows onto some links",
			     c->prof->hosts[lo_i].name, lo * 100, jain);
	json_decref(res);
	return 0;
}

const struct rp_cert_test rp_cert_t_a2a = {7, "all-to-all", "All-to-all: goodput >= 90% of line, fair", run, NULL,
					   .seeded = true};
