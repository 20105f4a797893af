/* Test 2, lossy isolation: a lossy-priority incast beside a lossless one,
 * into the same receiver port: the lossy class drops, the lossless class
 * does not, and no PFC is sent for the lossy priority. */
#include <string.h>

#include "cert_internal.h"

static unsigned first_lossless(const struct rp_cert_ctx *c)
{
	for (unsigned p = 0; p < 8; p++)
		if ((c->want.lossless >> p) & 1u)
			return p;
	return 3;
}

static int run(struct rp_cert_ctx *c, struct rp_cert_t *t)
{
	size_t nh = c->prof->nhosts;
	if (nh < 3) {
		rp_cert_skip(t, "needs 3 hosts (a receiver, a lossless and a lossy sender); the profile has %zu", nh);
		return 0;
	}
	unsigned a = (unsigned)(nh - 1) / 2, b = (unsigned)(nh - 1) - a, ll = first_lossless(c), ly = c->want.lossy;
	a = a > 4 ? 4 : a;
	b = b > 4 ? 4 : b;
	unsigned sa[4], sb[4];
	for (unsigned i = 0; i < a; i++)
		sa[i] = 1 + i;
	for (unsigned i = 0; i < b; i++)
		sb[i] = 1 + a + i;
	/* Enough that the lossy queue overflows whatever its limit: the buffer's worth per sender. */
	uint32_t m = c->cfg->messages;
	if (c->fab.known && c->fab.buffer_bytes / 65536 > m)
		m = (uint32_t)(c->fab.buffer_bytes / 65536 > 1024 ? 1024 : c->fab.buffer_bytes / 65536);
	struct rp_cert_buf w;
	json_t *res;
	rp_cert_buf_init(&w);
	rp_cert_w_incast(&w, c, "lossless", 0, sa, a, rp_cert_dscp_for(c, ll), "not-ect", m);
	rp_cert_w_incast(&w, c, "lossy", 0, sb, b, rp_cert_dscp_for(c, ly), "not-ect", m);
	char label[128];
	snprintf(label, sizeof(label), "%u:1 on lossless priority %u beside %u:1 on lossy priority %u", a, ll, b, ly);
	int rc = rp_cert_exec(c, t, label, &w, NULL, 0, &res);
	if (rc) {
		json_decref(res);
		return rc;
	}
	struct rp_cert_flows fl, fy;
	rp_cert_sum_flows(res, (int)ll, NULL, &fl);
	rp_cert_sum_flows(res, (int)ly, NULL, &fy);
	uint64_t pfc_lossy = rp_cert_host_pfc_rx(res, NULL, (int)ly), xoff_lossy = rp_cert_sw_xoff(res, (int)ly);
	json_object_set_new(t->measured, "lossless", json_pack("{s:i, s:I, s:I}", "prio", (int)ll, "tx_packets",
							       (json_int_t)fl.tx, "lost", (json_int_t)fl.lost));
	json_object_set_new(t->measured, "lossy", json_pack("{s:i, s:I, s:I, s:I, s:I}", "prio", (int)ly, "tx_packets",
							    (json_int_t)fy.tx, "lost", (json_int_t)fy.lost, "pfc_rx",
							    (json_int_t)pfc_lossy, "switch_xoff", (json_int_t)xoff_lossy));
	json_t *plot = rp_cert_plot(t, "packets sent and lost per class", "class (priority)", "packets", "bar");
	json_t *s_tx = rp_cert_series(plot, "sent"), *s_lost = rp_cert_series(plot, "lost");
	rp_cert_point(s_tx, ll, (double)fl.tx);
	rp_cert_point(s_lost, ll, (double)fl.lost);
	rp_cert_point(s_tx, ly, (double)fy.tx);
	rp_cert_point(s_lost, ly, (double)fy.lost);
	snprintf(label, sizeof(label), "lossy priority %u: packets lost", ly);
	rp_cert_crit(t, label, "> 0 (it drops)", json_integer((json_int_t)fy.lost), fy.lost > 0);
	snprintf(label, sizeof(label), "lossless priority %u: packets lost", ll);
	rp_cert_crit(t, label, "0", json_integer((json_int_t)fl.lost), fl.lost == 0);
	snprintf(label, sizeof(label), "PFC frames for lossy priority %u (hosts received; switch XOFF)", ly);
	rp_cert_crit(t, label, "0", json_pack("[I, I]", (json_int_t)pfc_lossy, (json_int_t)xoff_lossy),
		     pfc_lossy == 0 && xoff_lossy == 0);
	if (pfc_lossy || xoff_lossy)
		rp_cert_fail(t, "pfc-on-lossy",
			     "priority %u is meant to be lossy but the switch runs PFC on it%s: it sent %llu XOFF for it and "
			     "paused the senders instead of dropping, so congestion on a lossy class spreads pause "
			     "through the fabric",
			     ly, c->fab.known && ((c->fab.pfc_mask >> ly) & 1u) ? " (it is in fabric.pfc.priorities)" : "",
			     (unsigned long long)xoff_lossy);
	else if (fl.lost && !rp_cert_diagnose_drops(c, t, res, ll) && !c->fab.known &&
		 rp_cert_host_pfc_rx(res, NULL, (int)ll) == 0)
		rp_cert_fail(t, "pfc-off",
			     "loss on the lossless priority, no PFC received by senders: %llu of %llu packets on priority %u "
			     "were lost and no host received PFC for it: the fabric does not run PFC on the priority",
			     (unsigned long long)fl.lost, (unsigned long long)fl.tx, ll);
	else if (!fy.lost)
		rp_cert_fail(t, "other",
			     "the lossy incast (%u messages of 64 KiB per sender) never overflowed the lossy queue: its "
			     "limit or the buffer is larger than the test's volume, so isolation was not shown",
			     m);
	json_decref(res);
	return 0;
}

const struct rp_cert_test rp_cert_t_lossy = {2, "lossy-isolation", "Lossy isolation: lossy drops, lossless does not",
					     run, NULL, .seeded = false};
