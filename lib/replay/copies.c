/* A frame's copies across captures, and the captures read side by side
 * (copies.h). */
#include <stdlib.h>
#include <string.h>

#include "copies.h"

static uint64_t dhash(const struct dkey *k)
{
	const uint8_t *p = (const uint8_t *)k;
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < sizeof(*k); i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

static int dmap_grow(struct dmap *m)
{
	size_t ncap = m->cap ? 2 * m->cap : 4096;
	struct dent *ne = calloc(ncap, sizeof(*ne));
	if (!ne)
		return -1;
	for (size_t i = 0; i < m->cap; i++)
		if (m->e[i].used)
			for (size_t j = dhash(&m->e[i].k) & (ncap - 1);; j = (j + 1) & (ncap - 1))
				if (!ne[j].used) {
					ne[j] = m->e[i];
					break;
				}
	free(m->e);
	m->e = ne;
	m->cap = ncap;
	return 0;
}

struct dent *rp_replay_dmap_get(struct dmap *m, const struct dkey *k)
{
	if (2 * (m->n + 1) > m->cap && dmap_grow(m))
		return NULL;
	for (size_t j = dhash(k) & (m->cap - 1);; j = (j + 1) & (m->cap - 1)) {
		if (!m->e[j].used) {
			m->e[j] = (struct dent){.k = *k, .used = true};
			m->n++;
			return &m->e[j];
		}
		if (memcmp(&m->e[j].k, k, sizeof(*k)) == 0)
			return &m->e[j];
	}
}

bool rp_replay_is_roce(const struct rp_frame *f)
{
	return (f->kind == RP_KIND_ROCE || f->kind == RP_KIND_CNP) && (f->l3 == 4 || f->l3 == 6);
}

void rp_replay_key_of(const struct rp_frame *f, struct dkey *k)
{
	memset(k, 0, sizeof(*k));
	k->l3 = f->l3;
	k->op = f->bth.opcode;
	k->dqpn = f->bth.dqpn;
	k->psn = f->bth.psn;
	if (f->l3 == 4) {
		memcpy(k->src, &f->ip4.src, 4);
		memcpy(k->dst, &f->ip4.dst, 4);
	} else {
		memcpy(k->src, f->ip6.src, 16);
		memcpy(k->dst, f->ip6.dst, 16);
	}
}

/* The copy of f at capture c: its entry, and whether it is the first copy
 * anywhere (*first). NULL: out of memory. */
struct dent *rp_replay_copy_of(struct dmap *m, const struct rp_frame *f, size_t c, int pass, bool *first)
{
	struct dkey k;
	rp_replay_key_of(f, &k);
	for (;; k.occ++) {
		struct dent *e = rp_replay_dmap_get(m, &k);
		if (!e)
			return NULL;
		if (e->seen[pass] & (1ull << c))
			continue;
		*first = e->seen[pass] == 0;
		e->seen[pass] |= 1ull << c;
		return e;
	}
}

/* File i's current frame's time on the reference clock. */
uint64_t rp_replay_merge_t(const struct merge *m, size_t i)
{
	int64_t t = (int64_t)rp_pcap_ts_ns(m->h[i]) + m->off[i];
	return t > 0 ? (uint64_t)t : 0;
}

int rp_replay_merge_advance(struct merge *m, size_t i, char *err, size_t errlen)
{
	int rc = rp_pcap_reader_next(&m->r[i], &m->h[i], &m->d[i], err, errlen);
	if (rc < 0)
		return -1;
	m->live[i] = rc == 1;
	return 0;
}

int rp_replay_merge_start(struct merge *m, char *err, size_t errlen)
{
	for (size_t i = 0; i < m->n; i++)
		if (rp_replay_merge_advance(m, i, err, errlen))
			return -1;
	return 0;
}

/* The capture whose frame is next; -1 at the end of all. */
long rp_replay_merge_next(const struct merge *m)
{
	long best = -1;
	for (size_t i = 0; i < m->n; i++)
		if (m->live[i] && (best < 0 || rp_replay_merge_t(m, i) < rp_replay_merge_t(m, (size_t)best)))
			best = (long)i;
	return best;
}

int rp_replay_merge_rewind(struct merge *m, char *err, size_t errlen)
{
	for (size_t i = 0; i < m->n; i++)
		if (rp_pcap_reader_rewind(&m->r[i], err, errlen))
			return -1;
	return rp_replay_merge_start(m, err, errlen);
}

void rp_replay_merge_close(struct merge *m)
{
	for (size_t i = 0; i < m->n; i++)
		rp_pcap_reader_close(&m->r[i]);
	m->n = 0;
}


void rp_replay_point_see(struct point *p, const struct rp_frame *f, bool first)
{
	if (p->ncand < 0) {
		memcpy(p->cand[0], f->eth.src, 6);
		memcpy(p->cand[1], f->eth.dst, 6);
		p->ncand = 2;
	}
	int k = 0;
	for (int i = 0; i < p->ncand; i++) {
		bool src = !memcmp(p->cand[i], f->eth.src, 6), dst = !memcmp(p->cand[i], f->eth.dst, 6);
		if (!src && !dst)
			continue;
		memmove(p->cand[k], p->cand[i], 6);
		p->score[k++] = p->score[i] + ((src && first) || (dst && !first));
	}
	p->ncand = k;
}
