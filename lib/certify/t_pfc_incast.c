/* Test 1, PFC incast: N:1 at line rate for N = 2, 4, ... up to the hosts
 * there are, on each lossless priority: zero loss, zero NAK, PFC received
 * by every sender. Not-ECT traffic, so congestion control stays out of it
 * and PFC alone must hold the incast. */
#include <inttypes.h>
#include <string.h>

#include "cert_internal.h"

static size_t incast_sizes(const struct rp_cert_ctx *c, unsigned *ns)
{
	unsigned max = (unsigned)c->prof->nhosts - 1, k = 0;
	if (c->cfg->max_incast && c->cfg->max_incast < max)
		max = c->cfg->max_incast;
	for (unsigned n = 2; n <= max; n *= 2)
		ns[k++] = n;
	if (k && ns[k - 1] != max)
		ns[k++] = max;
	return k;
}

static int one(struct rp_cert_ctx *c, struct rp_cert_t *t, unsigned prio, unsigned n, json_t *rows, json_t *s_pfc,
	       json_t *s_lost)
{
	unsigned senders[RP_MAX_HOSTS];
	char label[96], want[64];
	struct rp_cert_buf b;
	json_t *res;
	for (unsigned i = 0; i < n; i++)
		senders[i] = i + 1;
	rp_cert_buf_init(&b);
	rp_cert_w_incast(&b, c, "incast", 0, senders, n, rp_cert_dscp_for(c, prio), "not-ect", c->cfg->messages);
	snprintf(label, sizeof(label), "priority %u, %u:1 incast", prio, n);
	int rc = rp_cert_exec(c, t, label, &b, NULL, 0, &res);
	if (rc) {
		json_decref(res);
		return rc;
	}
	struct rp_cert_flows f;
	rp_cert_sum_flows(res, (int)prio, NULL, &f);
	/* Senders on the receiver's switch must get PFC; one behind a spine is
	 * held back by the pause the spine gets, which reaches it only when
	 * the spine's buffer fills (so it is counted, not required). */
	unsigned paused = 0, local = 0, lpaused = 0;
	uint64_t pfc = 0;
	for (unsigned i = 0; i < n; i++) {
		uint64_t k = rp_cert_host_pfc_rx(res, c->prof->hosts[senders[i]].name, (int)prio);
		bool near = !c->fab.leaf_spine || !c->fab.hosts_per_leaf || senders[i] / c->fab.hosts_per_leaf == 0;
		paused += k > 0;
		local += near;
		lpaused += near && k > 0;
		pfc += k;
	}
	uint64_t drops = rp_cert_sw_drops(res, NULL, (int)prio);
	json_array_append_new(rows, json_pack("{s:i, s:i, s:I, s:I, s:I, s:I, s:i, s:I, s:f}", "prio", (int)prio, "n", (int)n,
					      "tx_packets", (json_int_t)f.tx, "lost", (json_int_t)f.lost, "naks",
					      (json_int_t)f.naks, "switch_drops", (json_int_t)drops, "senders_paused",
					      (int)paused, "pfc_frames", (json_int_t)pfc, "goodput_gbps", f.goodput_gbps));
	rp_cert_point(s_pfc, n, (double)pfc);
	rp_cert_point(s_lost, n, (double)f.lost);
	snprintf(label, sizeof(label), "prio %u %u:1: packets lost", prio, n);
	rp_cert_crit(t, label, "0", json_integer((json_int_t)f.lost), f.lost == 0);
	snprintf(label, sizeof(label), "prio %u %u:1: NAKs", prio, n);
	rp_cert_crit(t, label, "0", json_integer((json_int_t)f.naks), f.naks == 0);
	snprintf(label, sizeof(label), "prio %u %u:1: senders on the receiver's switch that received PFC (all: %u)", prio,
		 n, paused);
	snprintf(want, sizeof(want), "%u of %u", local, local);
	char got[64];
	snprintf(got, sizeof(got), "%u of %u", lpaused, local);
	rp_cert_crit(t, label, want, json_string(got), lpaused == local);
	if (f.lost || f.naks || lpaused < local) {
		if (rp_cert_diagnose_drops(c, t, res, prio))
			;
		else if (!c->fab.known && f.lost && lpaused < local)
			/* A real fabric: only the hosts' evidence, which says it plainly. */
			rp_cert_fail(t, "pfc-off",
				     "loss on the lossless priority, no PFC received by senders: %llu of %llu packets of the %u:1 "
				     "incast on priority %u were lost and %u of %u senders never received PFC for it: the "
				     "fabric does not run PFC on the priority (or its pause never reaches the senders)",
				     (unsigned long long)f.lost, (unsigned long long)f.tx, n, prio, local - lpaused, local);
		else if (!c->fab.known && f.lost)
			rp_cert_fail(t, "headroom",
				     "loss on the lossless priority although every sender received PFC: %llu of %llu packets of "
				     "the %u:1 incast on priority %u were lost: what was in flight after XOFF overflowed the "
				     "headroom (cable length, the NICs' response time), or frames were dropped elsewhere",
				     (unsigned long long)f.lost, (unsigned long long)f.tx, n, prio);
		else if (lpaused < local)
			rp_cert_fail(t, "pfc-off",
				     "%u of %u senders of the %u:1 incast on priority %u never received PFC%s: the switch did "
				     "not pause them (PFC off on the priority, or XOFF never reached them)",
				     local - lpaused, local, n, prio, f.lost ? " and packets were lost" : "");
	}
	json_decref(res);
	return 0;
}

static int run(struct rp_cert_ctx *c, struct rp_cert_t *t)
{
	unsigned ns[16];
	size_t k = incast_sizes(c, ns);
	if (c->prof->nhosts < 3) {
		rp_cert_skip(t, "an incast needs at least 3 hosts; the profile has %zu", c->prof->nhosts);
		return 0;
	}
	json_t *rows = json_array();
	json_object_set_new(t->measured, "runs", rows);
	for (unsigned p = 0; p < 8; p++) {
		if (!((c->want.lossless >> p) & 1u))
			continue;
		char title[64], name[32];
		snprintf(title, sizeof(title), "priority %u: PFC frames received by the senders and packets lost", p);
		json_t *plot = rp_cert_plot(t, title, "N (senders)", "frames / packets", "bar");
		json_t *s_pfc = rp_cert_series(plot, "PFC frames"), *s_lost = rp_cert_series(plot, "lost");
		(void)name;
		for (size_t i = 0; i < k; i++) {
			int rc = one(c, t, p, ns[i], rows, s_pfc, s_lost);
			if (rc)
				return rc;
		}
	}
	return 0;
}

const struct rp_cert_test rp_cert_t_pfc_incast = {1, "pfc-incast", "PFC incast: N:1 at line rate is lossless", run,
						  NULL, .seeded = false};
