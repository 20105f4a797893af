/* A flow's offered rate over time (replay.h): its sending pace per time
 * window, and the phases those paces fall into (docs/replay.md, `phases:`).
 *
 * A window's pace is the layer-1 bits of its frames but the last over the
 * time from its first frame to its last: a paced sender spaces each frame
 * bits / rate after the one before, so that is its rate exactly, up to the
 * timestamps' granularity at both ends. Only windows wholly before the first
 * pause or CNP its sender's host received count (after one, a sender sends
 * its backlog at line rate, or DCQCN cuts it).
 *
 * A change of pace must stand out of the sender's own jitter: a real host's
 * pace moves from window to window (a CPU taken away, the kernel's batching),
 * a lab's does not. The step two paces must differ by is the largest of
 * RP_PHASE_STEP, what each is known to (2 x the granularity over its span)
 * and RP_PHASE_SIGMAS x the jitter (1.4826 x the median relative difference
 * of consecutive windows' paces: a step or two in a flow leave the median at
 * the jitter). A window beyond that step from the current phase starts a
 * phase when the next window agrees with it (and the phase goes on there);
 * a window that agrees with neither holds the change when the two after it
 * agree with each other: the time of the change is interpolated inside it
 * from the two paces. Anything else is jitter, kept in the current phase. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"

#define RP_PHASE_FLOOR 0.01 /* what a window's pace is known to at best */
#define RP_PHASE_STEP 0.10  /* the least change of pace taken as a phase */
#define RP_PHASE_SIGMAS 4.0
#define RP_PHASE_MAX 64 /* the profile's RP_MAX_RATE_PHASES */

void rp_replay_pace_see(struct rp_replay_qp *q, uint64_t t, uint64_t bits, uint64_t win_ns)
{
	if (!win_ns || t < q->first_ns)
		return;
	uint64_t j = (t - q->first_ns) / win_ns;
	if (j >= RP_REPLAY_PACE_WINDOWS)
		return;
	if (j >= q->nwin) {
		if (q->nwin == 0 && q->frames) /* a recording that failed before: stays off */
			return;
		uint32_t n = (uint32_t)j + 1;
		struct rp_replay_pace_win *w = realloc(q->win, n * sizeof(*w));
		if (!w) {
			free(q->win);
			q->win = NULL;
			q->nwin = 0;
			return;
		}
		memset(w + q->nwin, 0, (n - q->nwin) * sizeof(*w));
		q->win = w;
		q->nwin = n;
	}
	struct rp_replay_pace_win *w = &q->win[j];
	if (!w->frames)
		w->first_ns = t;
	else
		w->bits += w->last_bits;
	w->last_bits = (uint32_t)bits;
	w->last_ns = t;
	w->frames++;
}

static double pace_of(const struct rp_replay_pace_win *w)
{
	return (double)w->bits * 1e9 / (double)(w->last_ns - w->first_ns);
}

static double bound_of(uint64_t grain, uint64_t span)
{
	double b = 2.0 * (double)grain / (double)span;
	return b > RP_PHASE_FLOOR ? b : RP_PHASE_FLOOR;
}

/* Whether pace p (known to +-bp) agrees with rate r (known to +-br): they
 * differ by less than both bounds, or than the step (a fraction). */
static bool agrees(double p, double bp, double r, double br, double step)
{
	double tol = bp + br > step ? bp + br : step;
	return fabs(p - r) <= tol * (p > r ? p : r);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The step a change of pace must exceed: RP_PHASE_STEP, or the windows'
 * jitter (RP_PHASE_SIGMAS x 1.4826 x the median relative difference of
 * consecutive paces) when that is larger. */
static double step_of(const struct rp_replay_pace_win *const *use, size_t n)
{
	double d[RP_REPLAY_PACE_WINDOWS];
	size_t k = 0;
	for (size_t j = 1; j < n; j++) {
		double a = pace_of(use[j - 1]), b = pace_of(use[j]);
		d[k++] = fabs(a - b) / (a > b ? a : b);
	}
	if (!k)
		return RP_PHASE_STEP;
	qsort(d, k, sizeof(d[0]), cmp_double);
	double med = k % 2 ? d[k / 2] : (d[k / 2 - 1] + d[k / 2]) / 2, jit = RP_PHASE_SIGMAS * 1.4826 * med;
	return jit > RP_PHASE_STEP ? jit : RP_PHASE_STEP;
}

struct acc {
	struct rp_replay_phase ph;
	uint64_t bits, span;
	double lo, hi;
};

static void acc_add(struct acc *a, const struct rp_replay_pace_win *w)
{
	double p = pace_of(w);
	a->bits += w->bits;
	a->span += w->last_ns - w->first_ns;
	a->ph.frames += w->frames;
	a->ph.windows++;
	a->lo = a->ph.windows == 1 || p < a->lo ? p : a->lo;
	a->hi = a->ph.windows == 1 || p > a->hi ? p : a->hi;
	a->ph.rate_bps = (double)a->bits * 1e9 / (double)a->span;
}

static double acc_bound(const struct acc *a, uint64_t grain)
{
	double dev = fmax(a->hi - a->ph.rate_bps, a->ph.rate_bps - a->lo) / a->ph.rate_bps, b = bound_of(grain, a->span);
	return dev > b ? dev : b;
}

void rp_replay_flow_phases(const struct rp_replay_qp *q, uint64_t win_ns, uint64_t xoff_ns, struct rp_replay_flow *fl)
{
	const struct rp_replay_pace_win *use[RP_REPLAY_PACE_WINDOWS];
	size_t n = 0;
	uint64_t grain = 1000;
	for (uint32_t j = 0; j < q->nwin; j++) {
		const struct rp_replay_pace_win *w = &q->win[j];
		if (q->first_ns + (uint64_t)(j + 1) * win_ns > xoff_ns)
			break;
		if (w->frames < RP_REPLAY_PRE_MIN || w->last_ns <= w->first_ns)
			continue;
		use[n++] = w;
		if (w->first_ns % 1000 || w->last_ns % 1000) /* microsecond stamps end in 000 */
			grain = 1;
	}
	struct rp_replay_phase out[RP_PHASE_MAX];
	size_t nout = 0;
	if (n < 2)
		return;
	const double step = step_of(use, n);
	struct acc a = {.ph = {.at_ns = 0}};
	acc_add(&a, use[0]);
	for (size_t j = 1; j < n && nout + 1 < RP_PHASE_MAX; j++) {
		double p = pace_of(use[j]), bp = bound_of(grain, use[j]->last_ns - use[j]->first_ns);
		if (agrees(p, bp, a.ph.rate_bps, bound_of(grain, a.span), step)) {
			acc_add(&a, use[j]);
			continue;
		}
		if (j + 1 >= n) /* the last window alone: a change in it, or its end, is not told apart */
			break;
		double pn = pace_of(use[j + 1]), bn = bound_of(grain, use[j + 1]->last_ns - use[j + 1]->first_ns);
		struct acc b = {.ph = {0}};
		if (agrees(pn, bn, p, bp, step)) { /* a new pace from window j on */
			b.ph.at_ns = use[j]->first_ns - q->first_ns;
			acc_add(&b, use[j]);
		} else if (j + 2 < n && !agrees(pn, bn, a.ph.rate_bps, bound_of(grain, a.span), step) &&
			   agrees(pace_of(use[j + 2]), bound_of(grain, use[j + 2]->last_ns - use[j + 2]->first_ns), pn, bn,
				  step)) {
			/* window j holds the change: x ns at the old pace, the rest at the next */
			double ra = a.ph.rate_bps, rb = pn, span = (double)(use[j]->last_ns - use[j]->first_ns);
			double x = ((double)use[j]->bits * 1e9 - rb * span) / (ra - rb);
			x = x < 0 ? 0 : x > span ? span : x;
			b.ph.at_ns = use[j]->first_ns + (uint64_t)llround(x) - q->first_ns;
			b.ph.mixed = true;
			acc_add(&b, use[++j]);
		} else { /* one window off, then back or elsewhere: jitter */
			acc_add(&a, use[j]);
			continue;
		}
		a.ph.bound = acc_bound(&a, grain);
		out[nout++] = a.ph;
		a = b;
	}
	a.ph.bound = acc_bound(&a, grain);
	out[nout++] = a.ph;
	if (nout < 2 || !(fl->phases = malloc(nout * sizeof(*fl->phases))))
		return;
	memcpy(fl->phases, out, nout * sizeof(*out));
	fl->nphases = (unsigned)nout;
	fl->win_ns = win_ns;
	fl->ts_grain_ns = grain;
}
