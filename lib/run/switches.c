/* The profile's switches sampled through a run (switches.h). */
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "switches.h"

/* " (SOURCE)" when why does not name the source already (the source's own
 * lines do: "sonic://10.0.0.1:6379: cannot connect ..."), else "". */
static const char *named(const char *why, const char *source, char *buf, size_t len)
{
	buf[0] = '\0';
	if (!strstr(why, source))
		snprintf(buf, len, " (%s)", source);
	return buf;
}

int rp_run_switches_check(struct rp_run_switches *w, const struct rp_profile *p, FILE *warn, char *err,
			  size_t errlen)
{
	memset(w, 0, sizeof(*w));
	if (!p->nswitches)
		return 0;
	struct rp_cnt_snap *snap = calloc(1, sizeof(*snap));
	if (!snap || !(w->sw = calloc(p->nswitches, sizeof(*w->sw)))) {
		free(snap);
		snprintf(err, errlen, "out of memory for the switches' counters");
		return -1;
	}
	char e[400] = "", wl[256] = "", src_named[360];
	for (size_t i = 0; i < p->nswitches; i++) {
		struct rp_run_switch *s = &w->sw[w->n++];
		const struct rp_switch_src *c = &p->switches[i];
		s->cfg = c;
		if (rp_cnt_sampler_add(&s->sm, c->name, c->source, NULL, e, sizeof(e)) != 0)
			goto bad_file;
		struct rp_cnt_source *src = &s->sm.src[0];
		if (c->credentials[0] && rp_snmp_cred_load(c->credentials, &src->cred, wl, sizeof(wl), e, sizeof(e)) != 0)
			goto bad_file;
		if (wl[0] && warn)
			fprintf(warn, "roceprobe run: warning: switch %s: %s\n", c->name, wl);
		wl[0] = '\0';
		if (c->map[0]) {
			if (rp_exec_map_load(c->map, &s->map, e, sizeof(e)) != 0)
				goto bad_file;
			src->map = &s->map;
		}
		e[0] = '\0';
		bool read = rp_cnt_read(src, snap, e, sizeof(e)) == 0 && snap->nports;
		rp_cnt_snap_free(snap);
		if (read)
			continue;
		snprintf(s->reason, sizeof(s->reason), "%.199s", e[0] ? e : "no port to read");
		named(s->reason, c->source, src_named, sizeof(src_named));
		if (!c->optional) {
			snprintf(err, errlen, "switch %s%s cannot be read: %s (optional: true in its profile entry lets the "
				 "run go on without it)", c->name, src_named, s->reason);
			goto fail;
		}
		s->skipped = true;
		if (warn)
			fprintf(warn, "roceprobe run: warning: switch %s%s cannot be read: %s; it is optional, the run "
				"goes on without its counters\n", c->name, src_named, s->reason);
	}
	free(snap);
	return 0;
bad_file:
	snprintf(err, errlen, "switch %s (%s): %s", w->sw[w->n - 1].cfg->name, w->sw[w->n - 1].cfg->source, e);
fail:
	free(snap);
	rp_run_switches_free(w);
	return -1;
}

static void stopped(void *arg, const struct rp_cnt_series *s)
{
	const struct rp_run_switch *sw = arg;
	char src_named[360];
	if (sw->warn)
		fprintf(sw->warn, "roceprobe run: warning: switch %s%s stopped answering: %s; its sampling stops\n",
			sw->cfg->name, named(s->reason, s->source, src_named, sizeof(src_named)), s->reason);
}

void rp_run_switches_start(struct rp_run_switches *w, int64_t (*now)(const void *arg), const void *arg,
			   int64_t zero_ns, FILE *warn)
{
	for (size_t i = 0; i < w->n; i++) {
		struct rp_run_switch *s = &w->sw[i];
		s->warn = warn;
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

void rp_run_switches_stop(struct rp_run_switches *w, const volatile sig_atomic_t *stop)
{
	uint64_t wait = 0;
	for (size_t i = 0; i < w->n; i++)
		if (!w->sw[i].skipped && !w->sw[i].series && w->sw[i].cfg && w->sw[i].cfg->interval_ns > wait)
			wait = w->sw[i].cfg->interval_ns;
	for (uint64_t waited = 0; waited < wait && !(stop && *stop); waited += 10000000ull)
		nanosleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
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
