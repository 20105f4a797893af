/* Capture clocks aligned from the frames two files saw (copies.h,
 * docs/replay.md "Clocks"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "copies.h"

/* Clocks (pass 0). A frame seen at files a and b at times ta and tb (on
 * their own clocks) gives x = tb - ta = d + theta, theta the offset of b's
 * clock from a's and d the frame's delay from a to b: d > 0 when a is nearer
 * its sender (its host sent it, or b's host received it), d < 0 the other
 * way. So theta <= min x of the first kind (up) and >= max x of the second
 * (lo); as NTP does, theta = (up + lo) / 2, within (up - lo) / 2, when
 * [lo, up] excludes 0 (a frame would arrive before it left on one clock);
 * when it holds 0 the clocks are taken as one, within max(up, -lo). Frames
 * one way only bound theta on one side: the clocks are kept as one unless
 * that bound excludes it. */
struct xagg {
	uint8_t a, b;       /* files, a < b */
	uint8_t src[6], dst[6];
	int64_t min, max;
	uint64_t n;
	size_t next;        /* the pair's next aggregate + 1; 0: none */
};

struct clocks {
	struct xagg *x;
	size_t n, cap;
	size_t head[RP_REPLAY_MAX_CAPTURES * RP_REPLAY_MAX_CAPTURES]; /* a pair's first aggregate + 1 */
	struct point host[RP_REPLAY_MAX_CAPTURES]; /* each file's MACs in every RoCE frame */
	uint64_t first[RP_REPLAY_MAX_CAPTURES], last_t[RP_REPLAY_MAX_CAPTURES], frames[RP_REPLAY_MAX_CAPTURES];
	uint64_t roce[RP_REPLAY_MAX_CAPTURES];
};

static int clocks_add(struct clocks *k, size_t a, size_t b, int64_t x, const struct rp_frame *f)
{
	if (a > b) {
		size_t t = a;
		a = b;
		b = t;
		x = -x;
	}
	size_t *head = &k->head[a * RP_REPLAY_MAX_CAPTURES + b];
	struct xagg *g = NULL;
	for (size_t i = *head; i && !g; i = k->x[i - 1].next)
		if (!memcmp(k->x[i - 1].src, f->eth.src, 6) && !memcmp(k->x[i - 1].dst, f->eth.dst, 6))
			g = &k->x[i - 1];
	if (!g) {
		if (k->n == k->cap) {
			size_t nc = k->cap ? 2 * k->cap : 64;
			struct xagg *nx = realloc(k->x, nc * sizeof(*nx));
			if (!nx)
				return -1;
			k->x = nx;
			k->cap = nc;
		}
		g = &k->x[k->n];
		*g = (struct xagg){.a = (uint8_t)a, .b = (uint8_t)b, .min = x, .max = x, .next = *head};
		memcpy(g->src, f->eth.src, 6);
		memcpy(g->dst, f->eth.dst, 6);
		*head = ++k->n;
	}
	g->min = x < g->min ? x : g->min;
	g->max = x > g->max ? x : g->max;
	g->n++;
	return 0;
}

static int clocks_read(struct rp_replay_evidence *ev, struct merge *mg, struct clocks *k, char *err, size_t errlen)
{
	struct dmap m = {0};
	int rc = -1;
	for (size_t i = 0; i < ev->nfiles; i++)
		k->host[i].ncand = -1;
	long c;
	while ((c = rp_replay_merge_next(mg)) >= 0) {
		uint64_t t = rp_replay_merge_t(mg, (size_t)c);
		if (!k->frames[c]++)
			k->first[c] = t;
		k->last_t[c] = t;
		struct rp_frame f;
		rp_frame_parse(mg->d[c], mg->h[c]->caplen, mg->h[c]->len, &f);
		if (rp_replay_is_roce(&f)) {
			k->roce[c]++;
			rp_replay_point_see(&k->host[c], &f, false);
			bool first;
			struct dent *e = rp_replay_copy_of(&m, &f, (size_t)c, 0, &first);
			if (!e)
				goto oom;
			if (first) {
				e->f0 = (uint8_t)c;
				e->t0 = t;
			} else if (clocks_add(k, e->f0, (size_t)c, (int64_t)(t - e->t0), &f)) {
				goto oom;
			}
		}
		if (rp_replay_merge_advance(mg, (size_t)c, err, errlen))
			goto out;
	}
	rc = 0;
	goto out;
oom:
	snprintf(err, errlen, "out of memory matching the captures' frames");
out:
	free(m.e);
	return rc;
}

/* The MAC of file i's host, when every RoCE frame of it has one MAC in
 * common (a host's capture); NULL for a mirror's or one host pair's. */
static const uint8_t *clocks_host(const struct clocks *k, size_t i)
{
	return k->host[i].ncand == 1 ? k->host[i].cand[0] : NULL;
}

/* Neither file's host known (each a capture of one host pair, both MACs in
 * every frame): with frames from two sources X and Y, either X is on a's
 * side (theta in [max x of Y's, min x of X's]) or on b's; the one of the two
 * that holds (the wider interval) is taken. false: not two sources. */
static bool clocks_pair_unnamed(const struct clocks *k, size_t a, size_t b, int64_t *up, int64_t *lo, uint64_t *n)
{
	const uint8_t *mac[2] = {NULL, NULL};
	int64_t mn[2] = {0, 0}, mx[2] = {0, 0};
	*n = 0;
	for (size_t i = k->head[a * RP_REPLAY_MAX_CAPTURES + b]; i; i = k->x[i - 1].next) {
		const struct xagg *g = &k->x[i - 1];
		int s = mac[0] && !memcmp(mac[0], g->src, 6) ? 0 : mac[1] && !memcmp(mac[1], g->src, 6) ? 1 : -1;
		if (s < 0) {
			if (mac[1])
				return false; /* a third source: not one host pair */
			s = mac[0] ? 1 : 0;
			mac[s] = g->src;
			mn[s] = g->min;
			mx[s] = g->max;
		}
		mn[s] = g->min < mn[s] ? g->min : mn[s];
		mx[s] = g->max > mx[s] ? g->max : mx[s];
		*n += g->n;
	}
	if (!mac[1])
		return false;
	bool x_at_a = mn[0] - mx[1] >= mn[1] - mx[0];
	*up = x_at_a ? mn[0] : mn[1];
	*lo = x_at_a ? mx[1] : mx[0];
	return true;
}

/* theta of b's clock from a's (x = tb - ta), from their frames. false: no
 * frame tells the direction. */
static bool clocks_pair(const struct clocks *k, size_t a, size_t b, int64_t *theta, int64_t *res, uint64_t *n)
{
	const uint8_t *ha = clocks_host(k, a < b ? a : b), *hb = clocks_host(k, a < b ? b : a);
	bool has_up = false, has_lo = false;
	int64_t up = 0, lo = 0;
	*n = 0;
	for (size_t i = k->head[(a < b ? a : b) * RP_REPLAY_MAX_CAPTURES + (a < b ? b : a)]; i; i = k->x[i - 1].next) {
		const struct xagg *g = &k->x[i - 1];
		bool fwd = (ha && !memcmp(g->src, ha, 6)) || (hb && !memcmp(g->dst, hb, 6));
		bool bwd = (hb && !memcmp(g->src, hb, 6)) || (ha && !memcmp(g->dst, ha, 6));
		if (fwd == bwd)
			continue;
		*n += g->n;
		if (fwd && (!has_up || g->min < up))
			up = g->min;
		if (bwd && (!has_lo || g->max > lo))
			lo = g->max;
		has_up = has_up || fwd;
		has_lo = has_lo || bwd;
	}
	if (!has_up && !has_lo && !clocks_pair_unnamed(k, a < b ? a : b, a < b ? b : a, &up, &lo, n))
		return false;
	if (!has_up && !has_lo)
		has_up = has_lo = true;
	if (has_up && has_lo) {
		/* one clock when the frames allow it (a lab's, PTP-synchronised hosts'): NTP's
		 * midpoint assumes the fastest frames each way took as long, which congestion
		 * on one way only (an incast's data against its CNPs) belies by microseconds */
		*theta = lo <= 0 && up >= 0 ? 0 : (up + lo) / 2;
		*res = up - *theta > *theta - lo ? up - *theta : *theta - lo;
		*res = *res < 0 ? -*res : *res;
	} else {
		/* one way: theta is only bounded on one side; the clocks are kept as one unless
		 * the frames arrive before they left, then moved by no more than that (the fastest
		 * frame taken as taking no time): not bounded */
		*theta = has_up ? (up < 0 ? up : 0) : (lo > 0 ? lo : 0);
		*res = -1;
	}
	if (a > b)
		*theta = -*theta;
	return true;
}

/* Each file's offset to the first file's clock, through the files it shares
 * frames with (nearest first). A file that shares none: its clock taken as
 * the reference's when its times overlap the aligned files', else -1 (one
 * line in err: the evidence of another time). */
int rp_replay_align(struct rp_replay_evidence *ev, struct merge *mg, char *err, size_t errlen)
{
	struct clocks *k = calloc(1, sizeof(*k));
	int rc = -1;
	if (!k) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (clocks_read(ev, mg, k, err, errlen) || rp_replay_merge_rewind(mg, err, errlen))
		goto out;
	ev->files[0].aligned = true;
	for (bool more = true; more;) {
		more = false;
		for (size_t b = 0; b < ev->nfiles; b++) {
			if (ev->files[b].aligned)
				continue;
			for (size_t a = 0; a < ev->nfiles && !ev->files[b].aligned; a++) {
				int64_t theta, res;
				uint64_t n;
				if (!ev->files[a].aligned || !clocks_pair(k, a, b, &theta, &res, &n))
					continue;
				struct rp_replay_file *fb = &ev->files[b], *fa = &ev->files[a];
				fb->aligned = more = true;
				fb->via = (int)a;
				fb->offset_ns = fa->offset_ns - theta;
				fb->residual_ns = res < 0 || fa->residual_ns < 0 ? -1 : fa->residual_ns + res;
				fb->pairs = n;
			}
		}
	}
	uint64_t lo = UINT64_MAX, hi = 0;
	for (size_t i = 0; i < ev->nfiles; i++)
		if (ev->files[i].aligned && k->frames[i]) {
			int64_t o = ev->files[i].offset_ns;
			lo = (uint64_t)((int64_t)k->first[i] + o) < lo ? (uint64_t)((int64_t)k->first[i] + o) : lo;
			hi = (uint64_t)((int64_t)k->last_t[i] + o) > hi ? (uint64_t)((int64_t)k->last_t[i] + o) : hi;
		}
	for (size_t i = 0; i < ev->nfiles; i++) {
		if (ev->files[i].aligned || !k->roce[i]) /* no RoCE: pass 1 says so */
			continue;
		if (k->last_t[i] < lo || k->first[i] > hi) {
			snprintf(err, errlen, "%s: no frame in common with the other captures and its times (%.6f..%.6f s) do "
				 "not overlap theirs (%.6f..%.6f s): evidence of another time, or clocks apart",
				 ev->files[i].path, (double)k->first[i] / 1e9, (double)k->last_t[i] / 1e9, (double)lo / 1e9,
				 (double)hi / 1e9);
			goto out;
		}
	}
	for (size_t i = 0; i < ev->nfiles; i++)
		mg->off[i] = ev->files[i].offset_ns;
	rc = 0;
out:
	free(k->x);
	free(k);
	return rc;
}
