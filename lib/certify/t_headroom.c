/* Test 5, headroom: a line-rate incast over the profile's cables drops
 * nothing in PFC headroom, and the headroom configured per lossless
 * priority group is at least what the formula (fabric/headroom.h, the
 * `roceprobe headroom` command) asks for, term by term, on every link. */
#include <string.h>

#include "cert_internal.h"

static json_t *terms_of(const struct rp_headroom *h)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "mtu", (json_int_t)h->mtu_bytes, "pfc_frame",
			 (json_int_t)h->pfc_bytes, "cable", (json_int_t)h->cable_bytes, "phy", (json_int_t)h->phy_bytes,
			 "response", (json_int_t)h->response_bytes, "peer_mtu", (json_int_t)h->peer_mtu_bytes, "rx_frame",
			 (json_int_t)h->rx_frame_bytes);
}

/* The link as `roceprobe headroom` takes it: its inputs with its defaults
 * (the IEEE 802.3 bounds for response and MAC/PHY delay), the same function. */
static void headroom_defaults(const struct rp_cert_link *k, struct rp_headroom_in *in)
{
	*in = k->in;
	in->response_quanta = rp_headroom_default_response_quanta(k->in.speed_bps);
	in->phy_delay_ns = rp_headroom_default_phy_delay_ns(k->in.speed_bps);
}

/* `roceprobe headroom` arguments that give this link's formula. */
static void command(const struct rp_headroom_in *in, bool terms, char *buf, size_t len)
{
	int n = snprintf(buf, len, "roceprobe headroom --speed %gG --cable %gm --mtu %u", (double)in->speed_bps / 1e9,
			 in->cable_m, in->mtu);
	if (terms && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " --response-quanta %u --phy-delay-ns %g", in->response_quanta,
			 in->phy_delay_ns);
}

static json_t *terms_json(const struct rp_cert_link *k, const struct rp_headroom *h, const struct rp_headroom_in *din,
			  const struct rp_headroom *d)
{
	char same[256], dflt[256];
	command(&k->in, true, same, sizeof(same));
	command(din, false, dflt, sizeof(dflt));
	json_t *differs = json_array();
	if (h->phy_bytes != d->phy_bytes)
		json_array_append_new(differs, json_string("phy"));
	if (h->response_bytes != d->response_bytes)
		json_array_append_new(differs, json_string("response"));
	return json_pack("{s:s, s:I, s:f, s:i, s:i, s:f, s:o, s:I, s:I, s:s, s:{s:s, s:i, s:f, s:o, s:I}, s:o}", "link",
			 k->what, "speed_bps", (json_int_t)k->in.speed_bps, "cable_m", k->in.cable_m, "mtu", (int)k->in.mtu,
			 "response_quanta", (int)k->in.response_quanta, "phy_delay_ns", k->in.phy_delay_ns, "terms",
			 terms_of(h), "required_bytes", (json_int_t)h->total_bytes, "configured_bytes",
			 (json_int_t)k->configured, "headroom_command", same, "headroom_defaults", "command", dflt,
			 "response_quanta", (int)din->response_quanta, "phy_delay_ns", din->phy_delay_ns, "terms",
			 terms_of(d), "required_bytes", (json_int_t)d->total_bytes, "differs", differs);
}

/* One row per term, certify's and `roceprobe headroom`'s defaults side by side. */
static void compare_rows(json_t *rows, const struct rp_cert_link *k, const struct rp_headroom *h,
			 const struct rp_headroom_in *din, const struct rp_headroom *d)
{
	char a[96], b[96];
	const struct {
		const char *term;
		uint64_t ours, theirs;
	} t[] = {
		{"frame in flight on the switch port (MTU + 20)", h->mtu_bytes, d->mtu_bytes},
		{"PFC frame (64 + 20)", h->pfc_bytes, d->pfc_bytes},
		{"cable, both ways", h->cable_bytes, d->cable_bytes},
		{"MAC/PHY delay, both ways", h->phy_bytes, d->phy_bytes},
		{"peer response", h->response_bytes, d->response_bytes},
		{"frame the peer had started", h->peer_mtu_bytes, d->peer_mtu_bytes},
		{"frame being received", h->rx_frame_bytes, d->rx_frame_bytes},
		{"total", h->total_bytes, d->total_bytes},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		a[0] = b[0] = '\0';
		if (i == 3) {
			snprintf(a, sizeof(a), "2 x %g ns (the lab models none)", k->in.phy_delay_ns);
			snprintf(b, sizeof(b), "2 x %g ns (IEEE 802.3 bound)", din->phy_delay_ns);
		} else if (i == 4) {
			snprintf(a, sizeof(a), "%u quanta (fabric.pfc.response)", k->in.response_quanta);
			snprintf(b, sizeof(b), "%u quanta (IEEE 802.3 bound)", din->response_quanta);
		}
		json_array_append_new(rows, json_pack("{s:s, s:s, s:I, s:s, s:I, s:s, s:b}", "link", k->what, "term",
						      t[i].term, "certify_bytes", (json_int_t)t[i].ours, "certify_from", a,
						      "headroom_bytes", (json_int_t)t[i].theirs, "headroom_from", b,
						      "differs", t[i].ours != t[i].theirs));
	}
}

/* The largest headroom any PG used (switches[].ports[].prio[].pg.max_headroom_bytes). */
static uint64_t max_used(const json_t *res)
{
	size_t i, j, k;
	json_t *s, *p, *q;
	uint64_t m = 0;
	json_array_foreach(json_object_get(res, "switches"), i, s)
		json_array_foreach(json_object_get(s, "ports"), j, p)
			json_array_foreach(json_object_get(p, "prio"), k, q) {
		json_int_t v = json_integer_value(json_object_get(json_object_get(q, "pg"), "max_headroom_bytes"));
		m = (uint64_t)v > m ? (uint64_t)v : m;
	}
	return m;
}

/* A real fabric: no frame of lossless priority p dropped at any switch port
 * (its PGs' and queues' drops, from counters.switches[]), and the PG
 * headroom watermark against the formula for the hosts' links where the
 * source has it (measured: the configured headroom is the switch's, unknown
 * here, so the formula is no criterion). A SKIP when no source counts drops. */
static void from_switches(struct rp_cert_ctx *c, struct rp_cert_t *t, const json_t *res, unsigned p)
{
	struct rp_cert_swc w;
	if (rp_cert_swc_read(res, &w)) {
		rp_cert_skip(t, "out of memory reading the switches' counters");
		rp_cert_swc_free(&w);
		return;
	}
	if (!(w.have & (RP_SWC_PG_DROPS | RP_SWC_Q_DROPS))) {
		rp_cert_skip(t, "no switch source of the profile's `switches:` (%zu read, %zu samples) counts drops: it needs %s "
				"or %s", w.nswitches, w.nsamples, rp_cert_swc_name(RP_SWC_PG_DROPS), rp_cert_swc_name(RP_SWC_Q_DROPS));
		rp_cert_swc_free(&w);
		return;
	}
	uint64_t pg = 0, q = 0, wm = 0;
	const char *where = NULL, *wm_at = NULL;
	for (size_t i = 0; i < w.nports; i++) {
		const struct rp_cert_swport *sp = &w.ports[i];
		pg += sp->pg_drops[p];
		q += sp->q_drops[p];
		if ((sp->pg_drops[p] || sp->q_drops[p]) && !where)
			where = sp->port;
		if (sp->pg_hr_wm[p] > wm) {
			wm = sp->pg_hr_wm[p];
			wm_at = sp->port;
		}
	}
	char label[160];
	json_object_set_new(t->measured, "switch_pg_drops", json_integer((json_int_t)pg));
	json_object_set_new(t->measured, "switch_queue_drops", json_integer((json_int_t)q));
	snprintf(label, sizeof(label), "frames of lossless priority %u dropped at the switches (PG + queue drops)", p);
	rp_cert_crit(t, label, "0", json_integer((json_int_t)(pg + q)), pg + q == 0);
	if (w.have & RP_SWC_PG_HR_WM) {
		struct rp_headroom_in in = {.speed_bps = c->line_bps,
					    .cable_m = (double)c->prof->fabric.host_delay_ns / RP_HEADROOM_NS_PER_M,
					    .mtu = c->prof->fabric.max_frame + 4,
					    .response_quanta = rp_headroom_default_response_quanta(c->line_bps),
					    .phy_delay_ns = rp_headroom_default_phy_delay_ns(c->line_bps)};
		struct rp_headroom h;
		bool ok = rp_headroom_calc(&in, &h) == 0;
		json_object_set_new(t->measured, "max_headroom_used_bytes", json_integer((json_int_t)wm));
		json_object_set_new(t->measured, "max_headroom_used_port", wm_at ? json_string(wm_at) : json_null());
		json_object_set_new(t->measured, "formula_bytes", ok ? json_integer((json_int_t)h.total_bytes) : json_null());
		json_object_set_new(t->measured, "headroom_used_over_formula", json_boolean(ok && wm > h.total_bytes));
		char cmd[256];
		command(&in, true, cmd, sizeof(cmd));
		json_object_set_new(t->measured, "formula_command", json_string(cmd));
	} else {
		json_object_set_new(t->measured, "max_headroom_used_bytes", json_null());
		json_object_set_new(t->measured, "headroom_watermark",
				    json_sprintf("not read: it needs %s", rp_cert_swc_name(RP_SWC_PG_HR_WM)));
	}
	if (pg + q)
		rp_cert_fail(t, pg ? "headroom" : "pfc-off",
			     "%llu frames of lossless priority %u were dropped at the switch (%llu by its priority groups: "
			     "headroom overrun; %llu at its queues), first seen on %s: %s",
			     (unsigned long long)(pg + q), p, (unsigned long long)pg, (unsigned long long)q, where ? where : "?",
			     pg ? "the headroom per PG cannot absorb what is in flight after XOFF (cable, the NIC's response "
				  "time); `roceprobe headroom` gives what the formula asks for"
				: "the switch does not pause the senders on this priority (PFC off on it, or the priority "
				  "not mapped to a lossless queue)");
	rp_cert_swc_free(&w);
}

static int run(struct rp_cert_ctx *c, struct rp_cert_t *t)
{
	size_t nh = c->prof->nhosts;
	if (nh < 3) {
		rp_cert_skip(t, "an incast needs at least 3 hosts; the profile has %zu", nh);
		return 0;
	}
	unsigned p = 0, n = (unsigned)(nh - 1 > 8 ? 8 : nh - 1), senders[8];
	while (p < 7 && !((c->want.lossless >> p) & 1u))
		p++;
	json_t *links = json_array(), *cmp = json_array();
	json_object_set_new(t->measured, "links", links);
	json_object_set_new(t->measured, "terms_vs_headroom", cmp);
	json_t *plot = rp_cert_plot(t, "headroom per lossless PG: the formula's terms and the configured", "link", "bytes",
				    "bar");
	json_t *s_req = rp_cert_series(plot, "required"), *s_cfg = rp_cert_series(plot, "configured");
	char short_of[RP_CERT_LINE] = "", label[96], want[160];
	for (size_t i = 0; c->fab.known && i < c->fab.nlinks; i++) {
		const struct rp_cert_link *k = &c->fab.links[i];
		struct rp_headroom h, d;
		struct rp_headroom_in din;
		headroom_defaults(k, &din);
		if (rp_headroom_calc(&k->in, &h) || rp_headroom_calc(&din, &d))
			continue;
		json_array_append_new(links, terms_json(k, &h, &din, &d));
		compare_rows(cmp, k, &h, &din, &d);
		rp_cert_point(s_req, (double)i, (double)h.total_bytes);
		rp_cert_point(s_cfg, (double)i, (double)k->configured);
		snprintf(label, sizeof(label), "%s: configured headroom (bytes)", k->what);
		snprintf(want, sizeof(want), ">= %llu (the formula, the lab's terms)", (unsigned long long)h.total_bytes);
		rp_cert_crit(t, label, want, json_integer((json_int_t)k->configured), k->configured >= h.total_bytes);
		if (k->configured < h.total_bytes && !short_of[0]) {
			char cb[32], rb[32];
			rp_cert_fmt_bytes_pair(k->configured, h.total_bytes, cb, rb, sizeof(cb));
			snprintf(short_of, sizeof(short_of),
				 "the %s headroom is %s, below the %s the formula asks for at %.0f Gbit/s over %.0f m of cable "
				 "with a %u-quanta response, %g ns of MAC/PHY delay and %u-byte frames (cable %llu B + "
				 "response %llu B + MAC/PHY %llu B + frames %llu B + PFC %llu B)",
				 k->what, cb, rb, (double)k->in.speed_bps / 1e9, k->in.cable_m, k->in.response_quanta,
				 k->in.phy_delay_ns, k->in.mtu, (unsigned long long)h.cable_bytes,
				 (unsigned long long)h.response_bytes, (unsigned long long)h.phy_bytes,
				 (unsigned long long)(h.mtu_bytes + h.peer_mtu_bytes + h.rx_frame_bytes),
				 (unsigned long long)h.pfc_bytes);
		}
	}
	for (unsigned i = 0; i < n; i++)
		senders[i] = i + 1;
	struct rp_cert_buf w;
	json_t *res;
	rp_cert_buf_init(&w);
	rp_cert_w_incast(&w, c, "incast", 0, senders, n, rp_cert_dscp_for(c, p), "not-ect", c->cfg->messages);
	snprintf(label, sizeof(label), "%u:1 line-rate incast on priority %u over the profile's cables", n, p);
	int rc = rp_cert_exec(c, t, label, &w, NULL, 0, &res);
	if (rc) {
		json_decref(res);
		return rc;
	}
	if (!c->fab.known && c->fab.switch_sources) { /* a real fabric: its switches' own counters (`switches:`) */
		from_switches(c, t, res, p);
		json_decref(res);
		return 0;
	}
	uint64_t hr = rp_cert_sw_drops(res, "headroom", -1), used = max_used(res);
	json_object_set_new(t->measured, "headroom_drops", json_integer((json_int_t)hr));
	json_object_set_new(t->measured, "max_headroom_used_bytes", json_integer((json_int_t)used));
	rp_cert_crit(t, "frames dropped in headroom", "0", json_integer((json_int_t)hr), hr == 0);
	if (short_of[0] || hr)
		rp_cert_fail(t, "headroom", "%s%s%llu frames were dropped in headroom in the line-rate incast",
			     short_of[0] ? short_of : "", short_of[0] ? "; " : "", (unsigned long long)hr);
	json_decref(res);
	return 0;
}

const struct rp_cert_test rp_cert_t_headroom = {5, "headroom", "Headroom: no drops, configured >= the formula", run,
						"the switch's headroom drops and its configured headroom per PG", .seeded = false,
						.counted = true};
