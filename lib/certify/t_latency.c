/* Test 8, latency under load: the p99 latency of probes on an unloaded
 * priority (the lossy one) while a lossless priority is in incast into the
 * same receiver stays within certify.latency.p99_factor of the idle p99. */
#include <string.h>

#include "cert_internal.h"

#define PROBE_NS 150000ull

static uint64_t probe_p99(const json_t *res, unsigned prio)
{
	size_t i;
	json_t *f;
	json_array_foreach(json_object_get(res, "flows"), i, f)
		if ((unsigned)json_integer_value(json_object_get(f, "prio")) == prio)
			return (uint64_t)json_integer_value(json_object_get(json_object_get(f, "latency_ns"), "p99"));
	return 0;
}

static int run(struct rp_cert_ctx *c, struct rp_cert_t *t)
{
	size_t nh = c->prof->nhosts;
	if (nh < 3) {
		rp_cert_skip(t, "needs 3 hosts (a receiver, a loading sender, a prober); the profile has %zu", nh);
		return 0;
	}
	unsigned ll = 0, ly = c->want.lossy, n = (unsigned)(nh - 2 > 4 ? 4 : nh - 2), senders[4];
	while (ll < 7 && !((c->want.lossless >> ll) & 1u))
		ll++;
	for (unsigned i = 0; i < n; i++)
		senders[i] = i + 1;
	unsigned prober = (unsigned)nh - 1;
	struct rp_cert_buf w;
	json_t *idle, *load;
	char label[128];
	rp_cert_buf_init(&w);
	rp_cert_w_flow(&w, c, "probe", prober, 0, rp_cert_dscp_for(c, ly), "5%", 1024, PROBE_NS, 10000);
	snprintf(label, sizeof(label), "idle: probes %s -> %s on priority %u", c->prof->hosts[prober].name,
		 c->prof->hosts[0].name, ly);
	int rc = rp_cert_exec(c, t, label, &w, NULL, 0, &idle);
	if (rc) {
		json_decref(idle);
		return rc;
	}
	rp_cert_w_incast(&w, c, "load", 0, senders, n, rp_cert_dscp_for(c, ll), "not-ect", c->cfg->messages);
	snprintf(label, sizeof(label), "loaded: the same probes beside a %u:1 incast on priority %u", n, ll);
	rc = rp_cert_exec(c, t, label, &w, NULL, 0, &load);
	if (rc) {
		json_decref(idle);
		json_decref(load);
		return rc;
	}
	uint64_t pi = probe_p99(idle, ly), pl = probe_p99(load, ly);
	double factor = pi ? (double)pl / (double)pi : 0;
	json_object_set_new(t->measured, "idle_p99_ns", json_integer((json_int_t)pi));
	json_object_set_new(t->measured, "loaded_p99_ns", json_integer((json_int_t)pl));
	json_object_set_new(t->measured, "factor", json_real(factor));
	json_t *plot = rp_cert_plot(t, "probe p99 latency, idle and loaded", "", "ns", "bar");
	rp_cert_point(rp_cert_series(plot, "idle p99"), 0, (double)pi);
	rp_cert_point(rp_cert_series(plot, "loaded p99"), 1, (double)pl);
	char want[64];
	snprintf(want, sizeof(want), "<= %.2f x idle", c->cfg->p99_factor);
	rp_cert_crit(t, "probe p99 loaded / idle", want, json_real(factor), pi > 0 && factor <= c->cfg->p99_factor);
	if (t->failed)
		rp_cert_fail(t, "latency",
			     "probes on priority %u took p99 %llu ns beside the incast against %llu ns idle (%.1fx): the "
			     "loaded priority delays the other (shared queue or buffer, no scheduling isolation, or "
			     "pause spreading to the prober)",
			     ly, (unsigned long long)pl, (unsigned long long)pi, factor);
	json_decref(idle);
	json_decref(load);
	return 0;
}

const struct rp_cert_test rp_cert_t_latency = {8, "latency", "Latency under load: p99 within a factor of idle", run,
					       NULL, .seeded = false};
