/* A mixed run's aggression (docs/cluster.md, "Mixed runs"): its windows
 * and what pause each host of the plan saw during them; result.json's
 * "aggression" and summary.txt's section both read them from here. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "traffic/acct_cfg.h"

/* A mixed run's aggression windows (rp_plan_aggression: at most one per
 * traffic entry), named by their entries; *w is the caller's to free. */
size_t rp_run_aggression_windows(const struct rp_run *r, struct rp_report_window **w)
{
	size_t max = r->s.prof->ntraffic;
	struct rp_plan_window *pw = calloc(max ? max : 1, sizeof(*pw));
	*w = calloc(max ? max : 1, sizeof(**w));
	size_t n = pw && *w ? rp_plan_aggression(&r->s.plan, pw, max) : 0;
	for (size_t k = 0; k < n; k++)
		(*w)[k] = (struct rp_report_window){.name = r->s.prof->traffic[pw[k].traffic].name,
						    .start_ns = pw[k].start_ns, .end_ns = pw[k].end_ns};
	free(pw);
	return n;
}

static const char *str_or(const json_t *s, const char *dflt)
{
	return json_is_string(s) ? json_string_value(s) : dflt;
}

static bool host_in_plan(const struct rp_run *r, unsigned h)
{
	for (size_t i = 0; i < r->s.plan.nflows; i++)
		if (r->s.plan.flows[i].src == h || (r->s.plan.flows[i].kind == RP_TRAFFIC_RDMA && r->s.plan.flows[i].dst == h))
			return true;
	return false;
}

/* The pause a host saw during the aggression, where it can be known: a DPDK
 * host's PFC/PAUSE frames as its port received them (every frame parsed), a
 * verbs host's NIC pause counters (pause_*, over the whole run: read before
 * and after). A NIC without pause counters (rxe on virtio) says so: never 0. */
static json_t *pause_json(const struct rp_run *r, unsigned h, json_t *vhosts, const struct rp_report_window *w, size_t n)
{
	const struct rp_host *H = &r->s.prof->hosts[h];
	json_t *o = json_pack("{s:s, s:s}", "host", H->name, "engine", rp_engine_name(H->engine.engine));
	if (rp_cluster_rank_lost(&r->cl, r->cl.launched ? r->host_rank[h] : 0)) {
		json_object_set_new(o, "pause", json_string("not available"));
		json_object_set_new(o, "why", json_string("its rank died"));
		return o;
	}
	if (H->engine.engine != RP_ENGINE_VERBS) {
		uint64_t frames, ns;
		rp_report_window_pause(r->acct, h, w, n, &frames, &ns);
		json_object_set_new(o, "source", json_string("PFC/PAUSE frames received at its port, during the windows"));
		json_object_set_new(o, "pfc_frames", json_integer((json_int_t)frames));
		json_object_set_new(o, "paused_ns", json_integer((json_int_t)ns));
		return o;
	}
	size_t i;
	json_t *x, *found = NULL;
	json_array_foreach(vhosts, i, x)
		if (!strcmp(str_or(json_object_get(x, "host"), ""), H->name))
			found = x;
	json_t *delta = json_object_get(json_object_get(found, "counters"), "delta"), *pause = json_object(), *v;
	const char *k;
	json_object_foreach(delta, k, v)
		if (!strncmp(k, "pause_", 6))
			json_object_set(pause, k, v);
	if (json_object_size(pause)) {
		json_object_set_new(o, "source", json_string("the NIC's pause counters, over the whole run"));
		json_object_set_new(o, "counters", pause);
		return o;
	}
	json_decref(pause);
	char why[256];
	snprintf(why, sizeof(why), "%s (driver %s, netdev %s) has no pause counters",
		 str_or(json_object_get(found, "device"), "its device"), str_or(json_object_get(found, "driver"), "?"),
		 str_or(json_object_get(found, "netdev"), "none"));
	json_object_set_new(o, "pause", json_string("not available"));
	json_object_set_new(o, "why", json_string(why));
	return o;
}

json_t *rp_run_aggression_pause(const struct rp_run *r, json_t *vhosts, const struct rp_report_window *w, size_t n)
{
	json_t *pause = json_array();
	for (unsigned h = 0; pause && h < r->s.prof->nhosts; h++)
		if (host_in_plan(r, h))
			json_array_append_new(pause, pause_json(r, h, vhosts, w, n));
	return pause;
}
