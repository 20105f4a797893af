/* Test 6, pause storm containment (only with --allow-pause-storm, as `gen`
 * and `lab` ask): host S pauses its port without end while h0 sends to S
 * (the stormed path) and to another host (a healthy path) on the same
 * lossless priority. A watchdog contains the storm: the healthy path keeps
 * zero loss and its sender is not held paused longer than the detection
 * bound; once the storm ends the fabric drains within the recovery bound. */
#include <inttypes.h>
#include <string.h>

#include "cert_internal.h"

#define STORM_NS 5000000ull
#define STORM_FPS 4000u
/* The storm's frames as planned: fps x duration (the pacer sends exactly
 * that many on time). */
#define STORM_FRAMES ((uint64_t)(STORM_FPS * STORM_NS / 1000000000ull))

/* A host port's count `key` on priority prio (ports[].prio[]). */
static uint64_t port_prio(const json_t *res, const char *node, unsigned prio, const char *key)
{
	size_t i, j;
	json_t *p, *q;
	json_array_foreach(json_object_get(res, "ports"), i, p) {
		if (strcmp(json_string_value(json_object_get(p, "node")) ?: "", node) != 0)
			continue;
		json_array_foreach(json_object_get(p, "prio"), j, q)
			if ((unsigned)json_integer_value(json_object_get(q, "prio")) == prio)
				return (uint64_t)json_integer_value(json_object_get(q, key));
	}
	return 0;
}

/* The first storm any switch queue's watchdog found (wd_first_ns); UINT64_MAX: none. */
static uint64_t first_storm(const json_t *res)
{
	size_t i, j, k;
	json_t *s, *p, *q;
	uint64_t m = UINT64_MAX;
	json_array_foreach(json_object_get(res, "switches"), i, s)
		json_array_foreach(json_object_get(s, "ports"), j, p)
			json_array_foreach(json_object_get(p, "prio"), k, q) {
		json_t *v = json_object_get(json_object_get(q, "queue"), "wd_first_ns");
		if (json_is_integer(v) && (uint64_t)json_integer_value(v) < m)
			m = (uint64_t)json_integer_value(v);
	}
	return m;
}

static int run(struct rp_cert_ctx *c, struct rp_cert_t *t)
{
	if (!c->o->allow_pause_storm) {
		rp_cert_skip(t, "a pause storm runs only with --allow-pause-storm (a host pausing its port without end)");
		return 0;
	}
	if (c->prof->nhosts < 3) {
		rp_cert_skip(t, "needs 3 hosts (a sender, a storming host, a healthy receiver); the profile has %zu",
			     c->prof->nhosts);
		return 0;
	}
	unsigned p = 0;
	while (p < 7 && !((c->want.lossless >> p) & 1u))
		p++;
	const char *h0 = c->prof->hosts[0].name, *s = c->prof->hosts[1].name, *ok = c->prof->hosts[2].name;
	struct rp_cert_buf w;
	json_t *res;
	rp_cert_buf_init(&w);
	rp_cert_buf_add(&w, "{name: storm, kind: pfc, host: %s, frame: pfc, priorities: [%u], quanta: 65535, fps: %u, "
			    "duration: %lluns}", s, p, STORM_FPS, (unsigned long long)STORM_NS);
	unsigned d = rp_cert_dscp_for(c, p);
	rp_cert_w_flow(&w, c, "stormed", 0, 1, d, "40%", 4096, STORM_NS, 0);
	rp_cert_w_flow(&w, c, "healthy", 0, 2, d, "40%", 4096, STORM_NS, 0);
	char label[320];
	snprintf(label, sizeof(label), "%s pauses priority %u for %.0f ms; %s sends to %s (stormed) and %s (healthy)", s, p,
		 STORM_NS / 1e6, h0, s, ok);
	int rc = rp_cert_exec(c, t, label, &w, NULL, 0, &res);
	if (rc) {
		json_decref(res);
		return rc;
	}
	struct rp_cert_swc sw = {.ports = NULL};
	if (!c->fab.known && c->fab.switch_sources && rp_cert_swc_read(res, &sw) == 0 && !(sw.have & RP_SWC_WD)) {
		rp_cert_skip(t, "no switch source of the profile's `switches:` (%zu read, %zu samples) counts what this test "
				"needs: %s",
			     sw.nswitches, sw.nsamples, rp_cert_swc_name(RP_SWC_WD));
		rp_cert_swc_free(&sw);
		json_decref(res);
		return 0;
	}
	uint64_t det = 0, rest = 0, drops = 0; /* a real fabric: the switch's watchdog counters */
	struct rp_cert_flows fh;
	rp_cert_sum_flows(res, -1, ok, &fh);
	uint64_t held = port_prio(res, h0, p, "paused_ns"), elapsed = rp_cert_elapsed_ns(res);
	/* Real hosts may not carry out the plan: a storming sender held off its
	 * CPU past the storm's window restarts at its now (never bursts to catch
	 * up) and the window is gone; a stormed flow that sent nothing had
	 * nothing to queue behind the pause. Neither is the fabric's doing. */
	uint64_t storm_sent = port_prio(res, s, p, "pfc_tx");
	struct rp_cert_flows fs;
	rp_cert_sum_flows(res, -1, s, &fs);
	json_object_set_new(t->measured, "storm_frames_sent", json_integer((json_int_t)storm_sent));
	json_object_set_new(t->measured, "storm_frames_planned", json_integer((json_int_t)STORM_FRAMES));
	if (storm_sent * 2 < STORM_FRAMES || fs.tx == 0) {
		rp_cert_skip(t, "not judged: the storm did not happen as planned (%s sent %" PRIu64 " of its %" PRIu64
				" PFC frames, %s %" PRIu64 " packets to it): a sender held off its CPU past the storm's "
				"%.0f ms window, not the fabric; rerun on idle hosts",
			     s, storm_sent, STORM_FRAMES, h0, fs.tx, STORM_NS / 1e6);
		rp_cert_swc_free(&sw);
		json_decref(res);
		return 0;
	}
	uint64_t recover = elapsed > STORM_NS ? elapsed - STORM_NS : 0, detected = first_storm(res);
	json_object_set_new(t->measured, "healthy_lost", json_integer((json_int_t)fh.lost));
	json_object_set_new(t->measured, "healthy_sender_paused_ns", json_integer((json_int_t)held));
	json_object_set_new(t->measured, "healthy_goodput_gbps", json_real(fh.goodput_gbps));
	json_object_set_new(t->measured, "storm_ns", json_integer((json_int_t)STORM_NS));
	json_object_set_new(t->measured, "drained_after_storm_ns", json_integer((json_int_t)recover));
	json_object_set_new(t->measured, "watchdog", json_boolean(c->fab.watchdog));
	char want[64];
	if (!c->fab.known && c->fab.switch_sources) { /* a real fabric: the switch's watchdog counters (counters.switches[]) */
		for (size_t i = 0; i < sw.nports; i++) {
			det += sw.ports[i].wd_detected[p];
			rest += sw.ports[i].wd_restored[p];
			drops += sw.ports[i].wd_drops[p];
		}
		json_object_set_new(t->measured, "switch_wd_storms_detected", json_integer((json_int_t)det));
		json_object_set_new(t->measured, "switch_wd_storms_restored", json_integer((json_int_t)rest));
		json_object_set_new(t->measured, "switch_wd_drops", json_integer((json_int_t)drops));
		snprintf(want, sizeof(want), "> 0 (priority %u)", p);
		rp_cert_crit(t, "storms the switch's PFC watchdog detected", want, json_integer((json_int_t)det), det > 0);
		rp_cert_crit(t, "storms it restored (after the storm ended)", ">= detected", json_integer((json_int_t)rest),
			     det > 0 && rest >= det);
		detected = det ? 0 : UINT64_MAX; /* the time is not counted: only whether */
		rp_cert_swc_free(&sw);
	} else {
		snprintf(want, sizeof(want), "<= %" PRIu64 " after it began", c->cfg->storm_detect_ns);
		rp_cert_crit(t, "storm detected by a watchdog (ns)", want,
			     detected == UINT64_MAX ? json_string("never") : json_integer((json_int_t)detected),
			     detected <= c->cfg->storm_detect_ns);
		json_object_set_new(t->measured, "detected_ns",
				    detected == UINT64_MAX ? json_null() : json_integer((json_int_t)detected));
	}
	rp_cert_crit(t, "healthy path: packets lost", "0", json_integer((json_int_t)fh.lost), fh.lost == 0);
	snprintf(want, sizeof(want), "<= %" PRIu64 " (detection bound)", c->cfg->storm_detect_ns);
	rp_cert_crit(t, "healthy path's sender held paused (ns)", want, json_integer((json_int_t)held),
		     held <= c->cfg->storm_detect_ns);
	snprintf(want, sizeof(want), "<= %" PRIu64 " (recovery bound)", c->cfg->storm_recover_ns);
	rp_cert_crit(t, "drained after the storm ended (ns)", want, json_integer((json_int_t)recover),
		     recover <= c->cfg->storm_recover_ns);
	json_t *plot = rp_cert_plot(t, "the healthy path's sender: time held paused vs the storm", "", "ms", "bar");
	rp_cert_point(rp_cert_series(plot, "storm"), 0, STORM_NS / 1e6);
	rp_cert_point(rp_cert_series(plot, "sender paused"), 1, held / 1e6);
	bool healthy_ok = fh.lost == 0 && held <= c->cfg->storm_detect_ns;
	if (t->failed && det && rest < det && healthy_ok && !c->fab.known && c->fab.switch_sources)
		rp_cert_fail(t, "wd-not-restored",
			     "the switch's watchdog found the storm (%" PRIu64 " detected) and the healthy path was unharmed "
			     "(nothing lost, its sender held %.3f ms), but %" PRIu64 " of the storms were not restored by the "
			     "end (the run's last switch sample, an interval after the traffic)%s: the storming host's last "
			     "pause (65535 quanta) outlasts the run, or the switch's pfcwd restoration time is longer",
			     det, held / 1e6, det - rest,
			     recover > c->cfg->storm_recover_ns ? ", and the fabric drained late" : "");
	else if (t->failed && detected != UINT64_MAX && !c->fab.known && c->fab.switch_sources)
		rp_cert_fail(t, "no-watchdog",
			     "the switch's watchdog found the storm, but the healthy path still suffered: %s was held paused "
			     "%.3f ms (bound %.3f ms) and its flow to %s ran at %.2f Gbit/s; detect sooner (the switch's pfcwd "
			     "detection time)",
			     h0, held / 1e6, c->cfg->storm_detect_ns / 1e6, ok, fh.goodput_gbps);
	else if (t->failed && detected != UINT64_MAX)
		rp_cert_fail(t, "no-watchdog",
			     "the watchdog found the storm only %.3f ms in (bound %.3f ms): meanwhile the backlog toward %s paused "
			     "%s for %.3f ms and its healthy flow to %s ran at %.2f Gbit/s; detect sooner (fabric.pfc.watchdog.detect)",
			     detected / 1e6, c->cfg->storm_detect_ns / 1e6, s, h0, held / 1e6, ok, fh.goodput_gbps);
	else if (t->failed)
		rp_cert_fail(t, "no-watchdog",
			     "%s's endless pause was honoured%s: the switch's queue toward %s stayed paused, the backlog "
			     "filled %s's priority group and the switch paused %s too (%.2f ms of the %.0f ms storm), so %s's "
			     "healthy flow to %s stalled at %.2f Gbit/s; a PFC watchdog would have stopped honouring the storm",
			     s, c->fab.known && !c->fab.watchdog ? " (the switch runs no PFC watchdog)" : "", s, h0, h0,
			     held / 1e6, STORM_NS / 1e6, h0, ok, fh.goodput_gbps);
	json_decref(res);
	return 0;
}

const struct rp_cert_test rp_cert_t_storm = {6, "pause-storm", "Pause storm: contained, healthy paths unharmed", run,
					     "the switch's PFC watchdog (when it found the storm, what it dropped)", .seeded = false,
					     .counted = true};
