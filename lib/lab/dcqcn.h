/* DCQCN reaction point (Zhu et al., SIGCOMM 2015) as an mlx5 NIC runs it
 * per QP, with mlx5's parameter names, meanings and defaults (struct
 * rp_dcqcn; NVIDIA DOCA "DCQCN CC Parameters"). Clock-free: the caller
 * passes now and says what was sent and received.
 *
 * - CNP: at most one cut per rate_reduce_monitor_period: target = current
 *   (always with clamp_tgt_rate, as the paper; by mlx5's default only when a
 *   timer step came since the last cut: clamp_tgt_rate_after_time_inc),
 *   current *= (1 - alpha/2) (never below rpg_min_rate, never below
 *   rpg_min_dec_fac % of the rate), and the increase counters restart.
 * - alpha, g = (1024 - dce_tcp_g)/1024 (dce_tcp_g 1019: g = 5/1024):
 *   periodic (mlx5, the default): every dce_tcp_rtt, alpha = (1 - g) alpha
 *   + g F, F = 1 when a CNP came in the period, else 0;
 *   per-cnp (the paper's eq. 1-2): each CNP, alpha = (1 - g) alpha + g
 *   (after its cut); each dce_tcp_rtt (the paper's K) without one, alpha =
 *   (1 - g) alpha.
 * - Increase: each rpg_time_reset of time and each rpg_byte_reset of bytes
 *   sent is one step. The first rpg_threshold (F) steps of both counts are
 *   fast recovery, current = (target + current) / 2; once one count is past
 *   F, additive increase (target += rpg_ai_rate); once both are, hyper
 *   increase (target += rpg_hai_rate x (min(T, BC) - F)); then current =
 *   (target + current) / 2. At line rate the flow is unlimited again. */
#ifndef RP_LAB_DCQCN_H
#define RP_LAB_DCQCN_H

#include <stdbool.h>
#include <stdint.h>

#include "profile/profile.h"

struct rp_dcqcn_state {
	struct rp_dcqcn p;
	double line_bps;
	double rc, rt;   /* current and target rate, bit/s */
	double alpha;
	double g;        /* the paper's g: (1024 - dce_tcp_g) / 1024 */
	bool limited;    /* rc below line rate */
	bool cut_ever;
	bool cnp_in_period;
	uint64_t last_cut_ns;
	uint64_t next_alpha_ns;
	uint64_t next_timer_ns;
	uint64_t bytes;  /* since the last byte-counter step */
	uint32_t t_steps, bc_steps;
	uint64_t cnps, cuts, increases;
	double min_rate_seen;
};

void rp_dcqcn_init(struct rp_dcqcn_state *s, const struct rp_dcqcn *p, uint64_t line_bps);
/* A CNP for this flow arrived at now. */
void rp_dcqcn_cnp(struct rp_dcqcn_state *s, uint64_t now_ns);
/* Runs the timers (alpha, rate increase) up to now. */
void rp_dcqcn_advance(struct rp_dcqcn_state *s, uint64_t now_ns);
/* bytes (layer 2) left at now. */
void rp_dcqcn_sent(struct rp_dcqcn_state *s, uint64_t now_ns, uint64_t bytes);
/* The rate the flow may send at now, bit/s (line rate when unlimited). */
static inline double rp_dcqcn_rate(const struct rp_dcqcn_state *s)
{
	return s->limited ? s->rc : s->line_bps;
}
/* When the increase timer next changes the rate; UINT64_MAX when unlimited. */
static inline uint64_t rp_dcqcn_next_change(const struct rp_dcqcn_state *s)
{
	return s->limited ? s->next_timer_ns : UINT64_MAX;
}

#endif
