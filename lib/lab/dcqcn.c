#include "dcqcn.h"

#include <math.h>
#include <string.h>

void rp_dcqcn_init(struct rp_dcqcn_state *s, const struct rp_dcqcn *p, uint64_t line_bps)
{
	memset(s, 0, sizeof(*s));
	s->p = *p;
	s->g = (1024.0 - (double)(p->dce_tcp_g > 1023 ? 1023 : p->dce_tcp_g)) / 1024.0;
	s->line_bps = (double)line_bps;
	s->rc = s->rt = s->line_bps;
	s->min_rate_seen = s->line_bps;
	s->alpha = (double)p->initial_alpha_value / 1024.0;
	s->next_alpha_ns = UINT64_MAX;
	s->next_timer_ns = UINT64_MAX;
}

static uint64_t alpha_period(const struct rp_dcqcn_state *s)
{
	return s->p.dce_tcp_rtt_ns ? s->p.dce_tcp_rtt_ns : 1;
}

/* The alpha timer's expiries up to now. Periodic (mlx5): the first expiry
 * takes the period's F (a CNP came in it); the quiet ones after it each
 * multiply alpha by (1 - g), in one pow. Per CNP (the paper): every expiry
 * is quiet (a CNP restarts the timer). */
static void alpha_update(struct rp_dcqcn_state *s, uint64_t now_ns)
{
	if (s->next_alpha_ns > now_ns)
		return;
	uint64_t period = alpha_period(s);
	if (s->p.alpha_update == RP_ALPHA_PERIODIC && s->cnp_in_period) {
		s->alpha = (1.0 - s->g) * s->alpha + s->g;
		s->cnp_in_period = false;
		s->next_alpha_ns += period;
		if (s->next_alpha_ns > now_ns)
			return;
	}
	uint64_t k = (now_ns - s->next_alpha_ns) / period + 1;
	s->alpha *= pow(1.0 - s->g, (double)k);
	s->next_alpha_ns += k * period;
	if (s->alpha < 1e-9 && !s->limited) /* nothing left to track */
		s->next_alpha_ns = UINT64_MAX;
}

/* One step of the increase timer or byte counter. Fast recovery for the
 * first F = rpg_threshold steps of both counts (the paper's F, mlx5's
 * wording: F steps, not F - 1); additive increase once one count passed F;
 * hyper increase, R_HAI x (min(T, BC) - F), once both did. */
static void increase(struct rp_dcqcn_state *s)
{
	uint32_t th = s->p.rpg_threshold;
	bool t_over = s->t_steps > th, b_over = s->bc_steps > th;
	if (t_over && b_over)
		s->rt += (double)s->p.rpg_hai_rate_bps *
			 (double)((s->t_steps < s->bc_steps ? s->t_steps : s->bc_steps) - th);
	else if (t_over || b_over)
		s->rt += (double)s->p.rpg_ai_rate_bps;
	if (s->rt > s->line_bps)
		s->rt = s->line_bps;
	s->rc = (s->rt + s->rc) / 2.0;
	s->increases++;
	if (s->rc >= s->line_bps * 0.999999) {
		s->rc = s->rt = s->line_bps;
		s->limited = false;
		s->next_timer_ns = UINT64_MAX;
	}
}

void rp_dcqcn_advance(struct rp_dcqcn_state *s, uint64_t now_ns)
{
	alpha_update(s, now_ns);
	uint64_t period = s->p.rpg_time_reset_ns ? s->p.rpg_time_reset_ns : 1;
	while (s->limited && s->next_timer_ns <= now_ns) {
		s->next_timer_ns += period;
		s->t_steps++;
		increase(s);
	}
}

void rp_dcqcn_cnp(struct rp_dcqcn_state *s, uint64_t now_ns)
{
	rp_dcqcn_advance(s, now_ns);
	s->cnps++;
	double alpha = s->alpha; /* the cut takes alpha as the CNP found it */
	if (s->p.alpha_update == RP_ALPHA_PER_CNP) {
		s->alpha = (1.0 - s->g) * s->alpha + s->g;
		s->next_alpha_ns = now_ns + alpha_period(s);
	} else {
		s->cnp_in_period = true;
		if (s->next_alpha_ns == UINT64_MAX)
			s->next_alpha_ns = now_ns + alpha_period(s);
	}
	if (s->cut_ever && now_ns - s->last_cut_ns < s->p.rate_reduce_monitor_period_ns)
		return;
	/* mlx5: new rate >= rpg_min_dec_fac % of the old (100: no cut at all) */
	double keep = 1.0 - alpha / 2.0, floor_fac = s->p.rpg_min_dec_fac / 100.0;
	/* The target: the paper (and mlx5's clamp_tgt_rate) sets it to the
	 * current rate at every cut; mlx5's default (clamp_tgt_rate 0,
	 * clamp_tgt_rate_after_time_inc 1) only when the timer raised the rate
	 * since the last cut, so back-to-back cuts keep the target from before
	 * them and recovery heads back there. */
	if (s->p.clamp_tgt_rate || (s->p.clamp_tgt_rate_after_time_inc && s->t_steps > 0))
		s->rt = s->rc;
	s->rc *= keep > floor_fac ? keep : floor_fac;
	if (s->rc < (double)s->p.rpg_min_rate_bps)
		s->rc = (double)s->p.rpg_min_rate_bps;
	if (s->rc < s->min_rate_seen)
		s->min_rate_seen = s->rc;
	s->cut_ever = true;
	s->last_cut_ns = now_ns;
	s->limited = s->rc < s->line_bps;
	s->t_steps = s->bc_steps = 0;
	s->bytes = 0;
	s->next_timer_ns = now_ns + (s->p.rpg_time_reset_ns ? s->p.rpg_time_reset_ns : 1);
	s->cuts++;
}

void rp_dcqcn_sent(struct rp_dcqcn_state *s, uint64_t now_ns, uint64_t bytes)
{
	if (!s->limited)
		return;
	rp_dcqcn_advance(s, now_ns);
	s->bytes += bytes;
	uint64_t reset = s->p.rpg_byte_reset ? s->p.rpg_byte_reset : 1;
	while (s->limited && s->bytes >= reset) {
		s->bytes -= reset;
		s->bc_steps++;
		increase(s);
	}
}
