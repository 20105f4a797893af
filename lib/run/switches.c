/* The profile's switches sampled through a run (switches.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "switches.h"

int rp_run_switches_check(struct rp_run_switches *w, const struct rp_profile *p, FILE *warn, char *err,
			  size_t errlen)
{
	memset(w, 0, sizeof(*w));
	if (!p->nswitches)
		return 0;
	if (!(w->sw = calloc(p->nswitches, sizeof(*w->sw)))) {
		snprintf(err, errlen, "out of memory for the switches' counters");
		return -1;
	}
	struct rp_cnt_snap *snap = calloc(1, sizeof(*snap));
	if (!snap) {
		snprintf(err, errlen, "out of memory for the switches' counters");
		return -1;
	}
	int rc = 0;
	char e[400] = "", wl[256] = "";
	for (size_t i = 0; rc == 0 && i < p->nswitches; i++) {
		struct rp_run_switch *s = &w->sw[w->n++];
		const struct rp_switch_src *c = &p->switches[i];
		s->cfg = c;
		if (rp_cnt_sampler_add(&s->sm, c->name, c->source, NULL, e, sizeof(e)) != 0) {
			snprintf(err, errlen, "switch %s (%s): %s", c->name, c->source, e);
			rc = -1;
			break;
		}
		struct rp_cnt_source *src = &s->sm.src[0];
		if (c->credentials[0] && rp_snmp_cred_load(c->credentials, &src->cred, wl, sizeof(wl), e, sizeof(e)) != 0) {
			snprintf(err, errlen, "switch %s (%s): %s", c->name, c->source, e);
			rc = -1;
			break;
		}
		if (wl[0] && warn)
			fprintf(warn, "roceprobe run: warning: switch %s: %s\n", c->name, wl);
		wl[0] = '\0';
		if (c->map[0]) {
			if (rp_exec_map_load(c->map, &s->map, e, sizeof(e)) != 0) {
				snprintf(err, errlen, "switch %s (%s): %s", c->name, c->source, e);
				rc = -1;
				break;
			}
			src->map = &s->map;
		}
		e[0] = '\0';
		if (rp_cnt_read(src, snap, e, sizeof(e)) == 0 && snap->nports) {
			rp_cnt_snap_free(snap);
			continue;
		}
		rp_cnt_snap_free(snap);
		snprintf(s->reason, sizeof(s->reason), "%.199s", e[0] ? e : "no port to read");
		/* the source's own lines name it ("sonic://10.0.0.1:6379: cannot connect ...") */
		char named[360] = "";
		if (!strstr(s->reason, c->source))
			snprintf(named, sizeof(named), " (%s)", c->source);
		if (!c->optional) {
			snprintf(err, errlen, "switch %s%s cannot be read: %s (optional: true in its profile entry lets the "
				 "run go on without it)", c->name, named, s->reason);
			rc = -1;
		} else {
			s->skipped = true;
			if (warn)
				fprintf(warn, "roceprobe run: warning: switch %s%s cannot be read: %s; it is optional, the run "
					"goes on without its counters\n", c->name, named, s->reason);
		}
	}
	free(snap);
	if (rc)
		rp_run_switches_free(w);
	return rc;
}

static FILE *stopped_to;
static void stopped(void *arg, const struct rp_cnt_series *s)
{
	const struct rp_run_switch *sw = arg;
	if (stopped_to && strstr(s->reason, s->source)) /* the source's own lines name it */
		fprintf(stopped_to, "roceprobe run: warning: switch %s stopped answering: %s; its sampling stops\n",
			sw->cfg->name, s->reason);
	else if (stopped_to)
		fprintf(stopped_to, "roceprobe run: warning: switch %s (%s) stopped answering: %s; its sampling stops\n",
			sw->cfg->name, s->source, s->reason);
}

void rp_run_switches_start(struct rp_run_switches *w, int64_t (*now)(const void *arg), const void *arg,
			   int64_t zero_ns, FILE *warn)
{
	stopped_to = warn;
	for (size_t i = 0; i < w->n; i++) {
		struct rp_run_switch *s = &w->sw[i];
		if (s->skipped)
			continue;
		char err[256];
		s->sm.all_ports = true;
		s->sm.stopped = stopped;
		s->sm.stopped_arg = s;
		if (rp_cnt_sampler_start(&s->sm, s->cfg->interval_ns, now, arg, zero_ns, err, sizeof(err)) != 0) {
			snprintf(s->reason, sizeof(s->reason), "%.199s", err);
			if (warn)
				fprintf(warn, "roceprobe run: warning: switch %s: %s\n", s->cfg->name, err);
		}
	}
}

void rp_run_switches_stop(struct rp_run_switches *w)
{
	for (size_t i = 0; i < w->n; i++) {
		struct rp_run_switch *s = &w->sw[i];
		if (s->skipped || s->series)
			continue;
		rp_cnt_sampler_stop(&s->sm);
		s->series = rp_cnt_sampler_take(&s->sm, &s->nseries);
		if (s->nseries && s->series[0].reason[0])
			snprintf(s->reason, sizeof(s->reason), "%s", s->series[0].reason);
	}
}

void rp_run_switches_free(struct rp_run_switches *w)
{
	for (size_t i = 0; w->sw && i < w->n; i++) {
		struct rp_run_switch *s = &w->sw[i];
		if (s->sm.src && s->sm.n)
			rp_snmp_cred_clear(&s->sm.src[0].cred);
		rp_cnt_sampler_free(&s->sm);
		rp_cnt_series_free(s->series, s->nseries);
		free(s->series);
		if (s->cfg && s->cfg->map[0])
			rp_exec_map_free(&s->map);
	}
	free(w->sw);
	memset(w, 0, sizeof(*w));
}
