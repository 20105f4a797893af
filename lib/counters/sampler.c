/* A thread reading counter sources at a start, every interval and at the
 * end (sampler.h). */
#include "counters/sampler.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void rp_cnt_series_free(struct rp_cnt_series *s, size_t n)
{
	for (size_t i = 0; s && i < n; i++) {
		for (size_t k = 0; k < s[i].n; k++) {
			free(s[i].s[k].port.v);
			for (size_t j = 0; j < s[i].s[k].nports; j++)
				free(s[i].s[k].ports[j].v);
			free(s[i].s[k].ports);
		}
		free(s[i].s);
		s[i].s = NULL;
		s[i].n = s[i].cap = 0;
	}
}

int rp_cnt_sampler_add(struct rp_cnt_sampler *sm, const char *host, const char *spec, const char *reason, char *err,
		       size_t errlen)
{
	if (sm->n == sm->cap) {
		size_t cap = sm->cap ? sm->cap * 2 : 4;
		struct rp_cnt_series *se = realloc(sm->series, cap * sizeof(*se));
		if (se)
			sm->series = se;
		struct rp_cnt_source *src = se ? realloc(sm->src, cap * sizeof(*src)) : NULL;
		if (src)
			sm->src = src;
		struct rp_cnt_snap *prev = src ? realloc(sm->prev, cap * sizeof(*prev)) : NULL;
		if (!prev) {
			snprintf(err, errlen, "out of memory for the counter series");
			return -1;
		}
		sm->prev = prev;
		sm->cap = cap;
	}
	struct rp_cnt_series *s = &sm->series[sm->n];
	memset(s, 0, sizeof(*s));
	memset(&sm->src[sm->n], 0, sizeof(sm->src[sm->n]));
	memset(&sm->prev[sm->n], 0, sizeof(sm->prev[sm->n]));
	snprintf(s->host, sizeof(s->host), "%s", host);
	if (spec) {
		if (rp_cnt_source_parse(spec, &sm->src[sm->n], err, errlen) != 0)
			return -1;
		snprintf(s->source, sizeof(s->source), "%s", spec);
	} else {
		snprintf(s->reason, sizeof(s->reason), "%s", reason ? reason : "");
	}
	sm->n++;
	return 0;
}

static uint64_t t_now(const struct rp_cnt_sampler *sm)
{
	int64_t t = sm->now(sm->arg) - sm->zero_ns;
	return t > 0 ? (uint64_t)t : 0;
}

/* Leaves out of a later sample what did not move: zero counts that did not
 * go backwards (gauges stay: they are values). */
static void keep_moved(struct rp_cnt_port *p)
{
	size_t k = 0;
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].cls == RP_CNT_GAUGE || p->v[i].value || p->v[i].reset)
			p->v[k++] = p->v[i];
	p->n = k;
}

static void sample(struct rp_cnt_sampler *sm, size_t i)
{
	struct rp_cnt_series *s = &sm->series[i];
	static __thread struct rp_cnt_snap cur, d;
	char err[400] = "";
	if (!s->source[0])
		return;
	bool first = sm->prev[i].nports == 0;
	if (s->reason[0] && (!first || sm->all_ports))
		return; /* stopped reading (a switch's also after a failed start) */
	uint64_t t = t_now(sm);
	int rc = rp_cnt_read(&sm->src[i], &cur, err, sizeof(err));
	uint64_t t2 = t_now(sm), dur = t2 > t ? t2 - t : 0;
	if (rc != 0 || cur.nports == 0) {
		snprintf(s->reason, sizeof(s->reason), "%.199s", cur.nports || err[0] ? err : "no port to read");
		rp_cnt_snap_free(&cur);
		if ((!first || sm->all_ports) && sm->stopped)
			sm->stopped(sm->stopped_arg, s);
		return;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct rp_cnt_sample *ns = realloc(s->s, cap * sizeof(*ns));
		if (!ns) {
			snprintf(s->reason, sizeof(s->reason), "out of memory after %zu samples", s->n);
			rp_cnt_snap_free(&cur);
			return;
		}
		s->s = ns;
		s->cap = cap;
	}
	struct rp_cnt_port *ports = NULL;
	if (sm->all_ports && !(ports = calloc(cur.nports, sizeof(*ports)))) {
		snprintf(s->reason, sizeof(s->reason), "out of memory after %zu samples", s->n);
		rp_cnt_snap_free(&cur);
		return;
	}
	for (size_t k = 1; !sm->all_ports && k < cur.nports; k++) { /* the source's first port (an RDMA device's port 1) */
		free(cur.port[k].v);
		cur.port[k] = (struct rp_cnt_port){0};
	}
	if (!sm->all_ports)
		cur.nports = 1;
	rp_cnt_delta(first ? &cur : &sm->prev[i], &cur, &d);
	struct rp_cnt_sample *out = &s->s[s->n++];
	*out = (struct rp_cnt_sample){.t_ns = t, .dur_ns = dur};
	if (sm->all_ports) {
		out->ports = ports;
		out->nports = d.nports;
		for (size_t k = 0; k < d.nports; k++) {
			ports[k] = d.port[k];
			d.port[k] = (struct rp_cnt_port){0};
			if (!first)
				keep_moved(&ports[k]);
		}
	} else {
		out->port = d.port[0];
		d.port[0] = (struct rp_cnt_port){0};
		if (!first)
			keep_moved(&out->port);
	}
	d.nports = 0;
	rp_cnt_snap_free(&sm->prev[i]);
	sm->prev[i] = cur; /* takes its counters */
	memset(&cur, 0, sizeof(cur));
}

void rp_cnt_sampler_tick(struct rp_cnt_sampler *sm)
{
	for (size_t i = 0; i < sm->n; i++)
		sample(sm, i);
}

static void *loop(void *arg)
{
	struct rp_cnt_sampler *sm = arg;
	struct timespec next;
	clock_gettime(CLOCK_MONOTONIC, &next);
	pthread_mutex_lock(&sm->mu);
	while (!sm->stop) {
		uint64_t ns = (uint64_t)next.tv_nsec + sm->interval_ns;
		next.tv_sec += (time_t)(ns / 1000000000u);
		next.tv_nsec = (long)(ns % 1000000000u);
		int rc = 0;
		while (!sm->stop && rc != ETIMEDOUT)
			rc = pthread_cond_timedwait(&sm->cv, &sm->mu, &next);
		if (sm->stop)
			break;
		pthread_mutex_unlock(&sm->mu);
		rp_cnt_sampler_tick(sm);
		pthread_mutex_lock(&sm->mu);
	}
	pthread_mutex_unlock(&sm->mu);
	return NULL;
}

int rp_cnt_sampler_start(struct rp_cnt_sampler *sm, uint64_t interval_ns, int64_t (*now)(const void *arg),
			 const void *arg, int64_t zero_ns, char *err, size_t errlen)
{
	sm->interval_ns = interval_ns;
	sm->now = now;
	sm->arg = arg;
	sm->zero_ns = zero_ns;
	for (size_t i = 0; i < sm->n; i++)
		sm->series[i].interval_ns = interval_ns;
	rp_cnt_sampler_tick(sm);
	bool any = false;
	for (size_t i = 0; i < sm->n; i++)
		any |= sm->series[i].source[0] != '\0';
	if (!interval_ns || !any) /* nothing to read between (net_null, ring, pair: ports only) */
		return 0;
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&sm->cv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&sm->mu, NULL);
	sm->stop = false;
	int rc = pthread_create(&sm->thread, NULL, loop, sm);
	if (rc != 0) {
		pthread_cond_destroy(&sm->cv);
		pthread_mutex_destroy(&sm->mu);
		snprintf(err, errlen, "cannot start the counter sampler: %s", strerror(rc));
		return -1;
	}
	sm->running = true;
	return 0;
}

void rp_cnt_sampler_stop(struct rp_cnt_sampler *sm)
{
	if (sm->running) {
		pthread_mutex_lock(&sm->mu);
		sm->stop = true;
		pthread_cond_signal(&sm->cv);
		pthread_mutex_unlock(&sm->mu);
		pthread_join(sm->thread, NULL);
		pthread_cond_destroy(&sm->cv);
		pthread_mutex_destroy(&sm->mu);
		sm->running = false;
	}
	if (sm->now)
		rp_cnt_sampler_tick(sm);
	sm->now = NULL; /* the end sample is taken once */
}

struct rp_cnt_series *rp_cnt_sampler_take(struct rp_cnt_sampler *sm, size_t *n)
{
	struct rp_cnt_series *s = sm->series;
	for (size_t i = 0; i < sm->n; i++)
		rp_cnt_snap_free(&sm->prev[i]);
	*n = sm->n;
	sm->series = NULL;
	sm->n = 0;
	return s;
}

void rp_cnt_sampler_free(struct rp_cnt_sampler *sm)
{
	rp_cnt_sampler_stop(sm);
	rp_cnt_series_free(sm->series, sm->n);
	for (size_t i = 0; sm->prev && i < sm->n; i++)
		rp_cnt_snap_free(&sm->prev[i]);
	free(sm->series);
	free(sm->src);
	free(sm->prev);
	memset(sm, 0, sizeof(*sm));
}
