/* Test 4, DSCP to priority: traffic at each DSCP the hosts send is queued
 * and paused on, and only on, the priority the hosts map it to (the
 * priority their NIC pauses it by). */
#include <string.h>

#include "cert_internal.h"

/* The priority the hosts give DSCP d: a profile entry's pcp, else d >> 3. */
static unsigned host_prio(const struct rp_profile *prof, unsigned d)
{
	for (size_t i = 0; i < prof->ntraffic; i++)
		if (prof->traffic[i].kind == RP_TRAFFIC_RDMA && prof->traffic[i].p.dscp == d)
			return rp_flow_params_prio(&prof->traffic[i].p);
	return d >> 3;
}

static void mask_str(uint8_t m, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	for (unsigned p = 0; p < 8; p++)
		if ((m >> p) & 1u)
			n += (size_t)snprintf(buf + n, len - n, "%s%u", n ? ", " : "", p);
	if (!n)
		snprintf(buf, len, "none");
}

static int one(struct rp_cert_ctx *c, struct rp_cert_t *t, unsigned d, json_t *rows, json_t *s_want, json_t *s_got)
{
	unsigned n = (unsigned)(c->prof->nhosts - 1 > 3 ? 3 : c->prof->nhosts - 1), senders[3] = {1, 2, 3};
	unsigned p = host_prio(c->prof, d);
	bool lossless = (c->want.lossless >> p) & 1u;
	char label[128], want[64], got[64];
	struct rp_cert_buf w;
	json_t *res;
	rp_cert_buf_init(&w);
	rp_cert_w_incast(&w, c, "dscp", 0, senders, n, d, "not-ect", c->cfg->messages);
	snprintf(label, sizeof(label), "%u:1 incast at DSCP %u (the hosts' priority %u)", n, d, p);
	int rc = rp_cert_exec(c, t, label, &w, NULL, 0, &res);
	if (rc) {
		json_decref(res);
		return rc;
	}
	uint64_t enq[8];
	rp_cert_sw_enq(res, enq);
	unsigned q = 0;
	for (unsigned i = 1; i < 8; i++)
		if (enq[i] > enq[q])
			q = i;
	uint8_t paused = 0;
	for (unsigned i = 0; i < n; i++)
		for (unsigned k = 0; k < 8; k++)
			if (rp_cert_host_pfc_rx(res, c->prof->hosts[senders[i]].name, (int)k))
				paused |= (uint8_t)(1u << k);
	bool sw_known = enq[q] > 0; /* a real fabric may not say where it queued */
	json_array_append_new(rows, json_pack("{s:i, s:i, s:o, s:i}", "dscp", (int)d, "host_prio", (int)p, "switch_prio",
					      sw_known ? json_integer((json_int_t)q) : json_null(), "paused_mask", paused));
	rp_cert_point(s_want, d, p);
	rp_cert_point(s_got, d, sw_known ? (double)q : -1.0);
	if (sw_known) {
		snprintf(label, sizeof(label), "DSCP %u: priority the switch queued it on", d);
		snprintf(want, sizeof(want), "%u", p);
		rp_cert_crit(t, label, want, json_integer((json_int_t)q), q == p);
	}
	uint8_t expect = lossless ? (uint8_t)(1u << p) : 0;
	snprintf(label, sizeof(label), "DSCP %u: priorities the senders were paused on", d);
	mask_str(expect, want, sizeof(want));
	mask_str(paused, got, sizeof(got));
	rp_cert_crit(t, label, want, json_string(got), paused == expect);
	if (sw_known && q != p)
		rp_cert_fail(t, "dscp-map",
			     "the hosts send DSCP %u as priority %u (and pause it by priority %u) but the switch queues it on "
			     "priority %u%s: the switch's DSCP-to-priority map disagrees with the hosts'; its PFC %s, so "
			     "this traffic is %s",
			     d, p, p, q, c->fab.known ? " (fabric.dscp_map)" : "",
			     paused ? "names another priority than the hosts pause" : "never reaches the hosts' priority",
			     ((c->fab.pfc_mask >> q) & 1u) ? "paused on the wrong priority (head-of-line blocking, drops)"
							  : "treated as lossy and dropped under congestion");
	else if (paused != expect && lossless && !((paused >> p) & 1u))
		rp_cert_fail(t, "pfc-off", "DSCP %u lands on priority %u as it should, but no PFC came for it: PFC is "
					   "off on priority %u", d, p, p);
	else if (paused != expect && !lossless)
		rp_cert_fail(t, "pfc-on-lossy", "DSCP %u lands on lossy priority %u but the senders were paused: PFC runs "
						"on a priority meant to be lossy", d, p);
	json_decref(res);
	return 0;
}

static int run(struct rp_cert_ctx *c, struct rp_cert_t *t)
{
	if (c->prof->nhosts < 3) {
		rp_cert_skip(t, "an incast needs at least 3 hosts; the profile has %zu", c->prof->nhosts);
		return 0;
	}
	json_t *rows = json_array();
	json_object_set_new(t->measured, "dscps", rows);
	json_t *plot = rp_cert_plot(t, "priority per DSCP: the hosts' and the switch's", "DSCP", "priority", "bar");
	json_t *s_want = rp_cert_series(plot, "hosts"), *s_got = rp_cert_series(plot, "switch");
	for (size_t i = 0; i < c->want.ndscps; i++) {
		int rc = one(c, t, c->want.dscps[i], rows, s_want, s_got);
		if (rc)
			return rc;
	}
	return 0;
}

const struct rp_cert_test rp_cert_t_dscp = {4, "dscp-priority", "DSCP to priority: paused on the priority it maps to",
					    run, NULL, .seeded = false};
