/* The lab engine (engine_lab.h): the profile with the test's --set
 * overrides, one lab run, its result document. The facts the tests may use
 * for causes come from the profile's `fabric:` section, as the lab's
 * switches are built from it (profile/switch_cfg.c). */
#include <stdlib.h>
#include <string.h>

#include "engine_lab.h"
#include "lab/lab.h"
#include "lab/report.h"
#include "report/result.h"
#include "traffic/plan.h"

/* Put before the caller's: fine queue-depth and time series bins, so the
 * queue at the first CE and the first XOFF can be read; a bound on time. */
static const char *const engine_sets[] = {"fabric.qdepth_bin=1us", "fabric.max_time=100ms"};
#define NENGINE (sizeof(engine_sets) / sizeof(engine_sets[0]))
#define BIN_NS 1000

static struct rp_profile *load(struct rp_cert_lab *l, const char *const *sets, size_t nsets, bool storm, char *err,
			       size_t errlen)
{
	const char **all = calloc(nsets + NENGINE, sizeof(*all));
	if (!all) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	for (size_t i = 0; i < NENGINE; i++)
		all[i] = engine_sets[i];
	for (size_t i = 0; i < nsets; i++)
		all[NENGINE + i] = sets[i];
	struct rp_profile_opts po = {.sets = all, .nsets = nsets + NENGINE, .allow_pause_storm = storm};
	struct rp_profile *p = rp_profile_load(l->profile_path, &po, err, errlen);
	free(all);
	return p;
}

static void link_of(struct rp_cert_link *k, const char *what, const struct rp_fabric *f, uint64_t bps, uint64_t ns)
{
	snprintf(k->what, sizeof(k->what), "%s", what);
	k->in = (struct rp_headroom_in){.speed_bps = bps, .cable_m = (double)ns / RP_HEADROOM_NS_PER_M,
					.mtu = f->max_frame + 4, .response_quanta = f->response_quanta};
	struct rp_headroom h;
	k->configured = f->headroom_auto ? (rp_headroom_calc(&k->in, &h) == 0 ? h.total_bytes : 0) : f->headroom_bytes;
}

static int describe(void *ctx, const char *const *sets, size_t nsets, struct rp_cert_fabric *out, char *err,
		    size_t errlen)
{
	struct rp_profile *p = load(ctx, sets, nsets, true, err, errlen);
	if (!p)
		return -1;
	const struct rp_fabric *f = &p->fabric;
	uint64_t host_bps = p->nhosts ? p->hosts[0].speed_bps : p->default_speed_bps;
	memset(out, 0, sizeof(*out));
	out->known = true;
	out->switch_counters = true;
	out->leaf_spine = f->topology == RP_TOPO_LEAF_SPINE;
	out->leaves = out->leaf_spine ? f->leaves : 1;
	out->spines = out->leaf_spine ? f->spines : 0;
	out->hosts_per_leaf = out->leaf_spine ? f->hosts_per_leaf : (unsigned)p->nhosts;
	out->host_bps = host_bps;
	out->uplink_bps = f->uplink_speed_bps ? f->uplink_speed_bps : p->default_speed_bps;
	out->pfc_mask = f->pfc_off ? 0 : f->lossless_mask;
	out->ecn_mask = f->ecn_mask;
	memcpy(out->dscp_to_prio, f->dscp_to_tc, sizeof(out->dscp_to_prio));
	out->xoff_dynamic = f->xoff.dynamic;
	out->xoff_bytes = f->xoff.bytes;
	out->kmin = f->kmin;
	out->kmax = f->kmax;
	out->pmax = f->pmax;
	out->buffer_bytes = f->buffer_bytes;
	out->dcqcn = f->dcqcn.enabled;
	out->watchdog_model = true; /* fabric/watchdog.c */
	out->watchdog = f->wd_detect_ns > 0;
	out->wd_detect_ns = f->wd_detect_ns;
	link_of(&out->links[out->nlinks++], "host link", f, host_bps, f->host_delay_ns);
	if (out->leaf_spine)
		link_of(&out->links[out->nlinks++], "uplink", f, out->uplink_bps, f->uplink_delay_ns);
	rp_profile_free(p);
	return 0;
}

static json_t *document(struct rp_lab *lab, const struct rp_profile *p)
{
	struct rp_lab_totals t;
	rp_lab_totals(lab, &t);
	const struct rp_acct *a = rp_lab_acct(lab);
	json_t *d = json_pack("{s:I, s:b, s:o, s:o, s:o, s:I}", "elapsed_ns", (json_int_t)t.end_ns, "interrupted",
			      t.truncated || t.stopped, "flows", rp_report_flows(a), "ports", rp_report_ports(a),
			      "timeseries", rp_report_timeseries(a), "qdepth_bin_ns", (json_int_t)p->fabric.qdepth_bin_ns);
	json_object_set_new(d, "switches", rp_lab_switches_json(lab));
	json_object_set_new(d, "pause_propagation", rp_lab_propagation_json(lab));
	json_object_set_new(d, "lab", rp_lab_totals_json(lab));
	return d;
}

static int run(void *ctx, const char *const *sets, size_t nsets, bool storm, json_t **out, char *err, size_t errlen)
{
	struct rp_cert_lab *l = ctx;
	struct rp_plan plan;
	struct rp_lab *lab = NULL;
	int rc = -1;
	*out = NULL;
	struct rp_profile *p = load(l, sets, nsets, storm, err, errlen);
	if (!p)
		return -1;
	if (rp_lab_check_fit(p, err, errlen) || rp_plan_build(p, &plan, err, errlen)) {
		rp_profile_free(p);
		return -1;
	}
	struct rp_lab_opts lo = {.bin_ns = BIN_NS, .stop = l->stop};
	if (rp_lab_check_plan(&plan, err, errlen) == 0 && (lab = rp_lab_create(p, &plan, &lo, err, errlen)) != NULL &&
	    rp_lab_run(lab, err, errlen) == 0) {
		struct rp_lab_totals t;
		rp_lab_totals(lab, &t);
		*out = document(lab, p);
		l->runs++;
		l->virtual_s += (double)t.end_ns / 1e9;
		rc = t.stopped ? 1 : 0;
	}
	rp_lab_destroy(lab);
	rp_plan_free(&plan);
	rp_profile_free(p);
	return rc;
}

void rp_cert_lab_engine(struct rp_cert_lab *lab, struct rp_cert_engine *eng)
{
	*eng = (struct rp_cert_engine){.name = "lab", .ctx = lab, .describe = describe, .run = run,
				       .seed_key = "fabric.seed"};
}
