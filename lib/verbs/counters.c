#include "verbs/counters.h"

#include "counters/ethtool.h"
#include "counters/sources.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Every counter file of dir (lib/counters reads them); lifespan is a setting. */
static void read_dir(const char *dir, enum rp_ctr_src src, struct rp_ctr_snap *out)
{
	size_t base = out->n, n = rp_ctr_read_dir(dir, src, out->c + base, RP_CTR_MAX - base);
	for (size_t i = 0; i < n; i++)
		if (strcmp(out->c[base + i].name, "lifespan") != 0)
			out->c[out->n++] = out->c[base + i];
}

/* Pause/PFC and drop counters are the point; a driver like mlx5 has
 * thousands of per-queue statistics we do not want in every snapshot. */
static bool keep(const char *name)
{
	char norm[64];
	if (rp_ctr_normalise(RP_CTR_ETH, name, norm, sizeof(norm), NULL))
		return true;
	static const char *const words[] = {"pause", "pfc", "xoff", "discard", "prio"};
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strstr(name, words[i]))
			return !strstr(name, "queue"); /* per-queue duplicates */
	return false;
}

int rp_ethtool_stats(const char *ifname, struct rp_ctr *out, size_t max, char *err, size_t errlen)
{
	struct rp_ctr *all;
	int n = rp_ethtool_read(ifname, &all, NULL, 0, err, errlen);
	if (n < 0)
		return -1;
	size_t k = 0;
	for (int i = 0; i < n && k < max; i++)
		if (keep(all[i].name))
			out[k++] = all[i];
	free(all);
	return (int)k;
}

size_t rp_ctr_snapshot(const struct rp_ctr_source *s, struct rp_ctr_snap *out)
{
	char dir[384];
	out->n = 0;
	out->t_ns = mono_ns();
	const char *root = s->sysfs_root[0] ? s->sysfs_root : "/sys/class/infiniband";
	snprintf(dir, sizeof(dir), "%s/%s/ports/%u/counters", root, s->dev, s->port);
	read_dir(dir, RP_CTR_PORT, out);
	snprintf(dir, sizeof(dir), "%s/%s/ports/%u/hw_counters", root, s->dev, s->port);
	read_dir(dir, RP_CTR_HW, out);
	if (s->netdev[0]) {
		char err[128];
		int n = rp_ethtool_stats(s->netdev, out->c + out->n, RP_CTR_MAX - out->n, err, sizeof(err));
		if (n > 0)
			out->n += (size_t)n;
	}
	return out->n;
}

size_t rp_ctr_delta(const struct rp_ctr_snap *before, const struct rp_ctr_snap *after,
		    struct rp_ctr *out, size_t max)
{
	size_t k = 0;
	for (size_t i = 0; i < after->n && k < max; i++) {
		const struct rp_ctr *a = &after->c[i];
		for (size_t j = 0; j < before->n; j++) {
			const struct rp_ctr *b = &before->c[j];
			if (b->src != a->src || strcmp(b->name, a->name) != 0)
				continue;
			struct rp_ctr *o = &out[k++];
			snprintf(o->name, sizeof(o->name), "%s/%.58s", rp_ctr_src_name(a->src), a->name);
			o->src = a->src;
			o->value = a->value >= b->value ? a->value - b->value : 0;
			break;
		}
	}
	return k;
}

size_t rp_ctr_fold(const struct rp_ctr *delta, size_t n, struct rp_ctr *out, size_t max)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const char *raw = strchr(delta[i].name, '/');
		raw = raw ? raw + 1 : delta[i].name;
		char norm[64];
		uint64_t scale = 1;
		if (!rp_ctr_normalise((enum rp_ctr_src)delta[i].src, raw, norm, sizeof(norm), &scale))
			continue;
		uint64_t v = delta[i].value * scale;
		size_t j;
		for (j = 0; j < k; j++)
			if (strcmp(out[j].name, norm) == 0)
				break;
		if (j < k) {
			if (v > out[j].value)
				out[j].value = v;
			continue;
		}
		if (k == max)
			continue;
		snprintf(out[k].name, sizeof(out[k].name), "%s", norm);
		out[k].src = delta[i].src;
		out[k].value = v;
		k++;
	}
	return k;
}

/* ---- periodic sampler ---- */

#define SAMPLES_MAX 3600

struct rp_ctr_sampler {
	struct rp_ctr_source src;
	unsigned interval_ms;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
	struct rp_ctr_snap base, cur;
	struct rp_ctr delta[RP_CTR_MAX];
	size_t count;
	struct rp_ctr_sample *samples;
};

static void *sampler_main(void *arg)
{
	struct rp_ctr_sampler *s = arg;
	pthread_mutex_lock(&s->lock);
	while (!s->stop && s->count < SAMPLES_MAX) {
		struct timespec until;
		clock_gettime(CLOCK_MONOTONIC, &until);
		uint64_t ns = (uint64_t)until.tv_nsec + (uint64_t)s->interval_ms * 1000000u;
		until.tv_sec += (time_t)(ns / 1000000000u);
		until.tv_nsec = (long)(ns % 1000000000u);
		while (!s->stop && pthread_cond_timedwait(&s->cond, &s->lock, &until) == 0)
			;
		if (s->stop)
			break;
		pthread_mutex_unlock(&s->lock);
		rp_ctr_snapshot(&s->src, &s->cur);
		size_t nd = rp_ctr_delta(&s->base, &s->cur, s->delta, RP_CTR_MAX);
		struct rp_ctr_sample *smp = &s->samples[s->count];
		smp->t_ns = s->cur.t_ns - s->base.t_ns;
		smp->n = rp_ctr_fold(s->delta, nd, smp->c, sizeof(smp->c) / sizeof(smp->c[0]));
		pthread_mutex_lock(&s->lock);
		s->count++;
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

struct rp_ctr_sampler *rp_ctr_sampler_start(const struct rp_ctr_source *src, unsigned interval_ms)
{
	struct rp_ctr_sampler *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->samples = calloc(SAMPLES_MAX, sizeof(*s->samples));
	if (!s->samples) {
		free(s);
		return NULL;
	}
	s->src = *src;
	s->interval_ms = interval_ms ? interval_ms : 1000;
	pthread_mutex_init(&s->lock, NULL);
	/* CLOCK_MONOTONIC for the timed wait, so clock steps do not matter. */
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->cond, &ca);
	pthread_condattr_destroy(&ca);
	rp_ctr_snapshot(src, &s->base);
	if (pthread_create(&s->thread, NULL, sampler_main, s) != 0) {
		free(s->samples);
		free(s);
		return NULL;
	}
	return s;
}

void rp_ctr_sampler_stop(struct rp_ctr_sampler *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	bool was = s->stop;
	s->stop = true;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
	if (!was)
		pthread_join(s->thread, NULL);
}

size_t rp_ctr_sampler_count(const struct rp_ctr_sampler *s)
{
	return s ? s->count : 0;
}

const struct rp_ctr_sample *rp_ctr_sampler_get(const struct rp_ctr_sampler *s, size_t i)
{
	return s && i < s->count ? &s->samples[i] : NULL;
}

void rp_ctr_sampler_free(struct rp_ctr_sampler *s)
{
	if (!s)
		return;
	rp_ctr_sampler_stop(s);
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->cond);
	free(s->samples);
	free(s);
}
