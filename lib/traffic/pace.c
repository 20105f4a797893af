#include "pace.h"

__extension__ typedef unsigned __int128 rp_u128;

#define NS_PER_S 1000000000ull

void rp_pace_cfg_gaps(struct rp_pace_cfg *c, const uint64_t l1_bits[RP_PKT_KINDS])
{
	rp_u128 msg = 0;
	for (int k = 0; k < RP_PKT_KINDS; k++) {
		uint64_t num = l1_bits[k] * NS_PER_S;
		c->gap_ns[k] = num / c->div;
		c->gap_rem[k] = num % c->div;
	}
	if (c->npkts == 1) {
		msg = (rp_u128)l1_bits[RP_PKT_ONLY] * NS_PER_S;
	} else {
		msg = (rp_u128)(l1_bits[RP_PKT_FIRST] + l1_bits[RP_PKT_LAST]) * NS_PER_S;
		msg += (rp_u128)l1_bits[RP_PKT_MIDDLE] * NS_PER_S * (c->npkts - 2);
	}
	c->msg_ns = (uint64_t)(msg / c->div);
	c->msg_rem = (uint64_t)(msg % c->div);
}

void rp_pace_cfg_fps(struct rp_pace_cfg *c, uint64_t fps)
{
	c->div = fps;
	c->npkts = 1;
	for (int k = 0; k < RP_PKT_KINDS; k++) {
		c->gap_ns[k] = NS_PER_S / fps;
		c->gap_rem[k] = NS_PER_S % fps;
	}
	c->msg_ns = c->gap_ns[0];
	c->msg_rem = c->gap_rem[0];
}

void rp_pace_init(const struct rp_pace_cfg *c, struct rp_pace *s)
{
	*s = (struct rp_pace){.due_ns = c->start_ns, .win_start = c->start_ns};
	rp_pace_check_stop(c, s);
}

void rp_pace_window(const struct rp_pace_cfg *c, struct rp_pace *s, bool boundary)
{
	if (!c->on_ns) {
		if (!boundary || s->msgs_in_win < c->burst_msgs)
			return;
		s->win_start += c->period_ns;
		s->msgs_in_win = 0;
		if (s->due_ns <= s->win_start) {
			s->due_ns = s->win_start;
			s->rem = 0;
		}
		return;
	}
	if (s->due_ns < s->win_start + c->on_ns)
		return;
	s->win_start += (s->due_ns - s->win_start) / c->period_ns * c->period_ns;
	if (s->due_ns >= s->win_start + c->on_ns) {
		s->win_start += c->period_ns;
		s->due_ns = s->win_start;
		s->rem = 0;
	}
}

static void kinds_for(const struct rp_pace_cfg *c, uint64_t msgs, uint64_t extra_pkts, struct rp_pace_totals *t)
{
	t->msgs = msgs;
	t->pkts = msgs * c->npkts + extra_pkts;
	for (int k = 0; k < RP_PKT_KINDS; k++)
		t->kind[k] = 0;
	if (c->npkts == 1) {
		t->kind[RP_PKT_ONLY] = msgs;
		return;
	}
	t->kind[RP_PKT_FIRST] = msgs + (extra_pkts > 0);
	t->kind[RP_PKT_LAST] = msgs;
	t->kind[RP_PKT_MIDDLE] = msgs * (c->npkts - 2) + (extra_pkts ? extra_pkts - 1 : 0);
}

/* Messages that start in [from, end) when one starts every msg time from `from`. */
static uint64_t msgs_before(const struct rp_pace_cfg *c, uint64_t from)
{
	if (from >= c->end_ns)
		return 0;
	rp_u128 span = (rp_u128)(c->end_ns - from) * c->div;
	rp_u128 per = (rp_u128)c->msg_ns * c->div + c->msg_rem;
	return per ? (uint64_t)((span + per - 1) / per) : UINT64_MAX;
}

static uint64_t phase_end(const struct rp_pace_cfg *c, uint16_t i)
{
	if (i + 1 >= c->nphases)
		return c->stop_ns;
	uint64_t e = c->start_ns + c->phases[i + 1].at_ns;
	return e < c->stop_ns ? e : c->stop_ns;
}

static void rescale(uint64_t *ns, uint64_t *rem, uint64_t from, uint64_t to)
{
	rp_u128 num = (rp_u128)*ns * from + *rem;
	*ns = (uint64_t)(num / to);
	*rem = (uint64_t)(num % to);
}

void rp_pace_phase_set(struct rp_pace_cfg *c, uint16_t i)
{
	uint64_t div = rp_rate_bps(&c->phases[i].rate, c->link_bps);
	for (int k = 0; k < RP_PKT_KINDS; k++)
		rescale(&c->gap_ns[k], &c->gap_rem[k], c->div, div);
	rescale(&c->msg_ns, &c->msg_rem, c->div, div);
	c->div = div;
	c->phase = i;
	c->end_ns = phase_end(c, i);
}

void rp_pace_phase_next(struct rp_pace_cfg *c, struct rp_pace *s)
{
	while (s->done && c->phase + 1 < c->nphases) {
		rp_pace_phase_set(c, (uint16_t)(c->phase + 1));
		s->rem = 0;
		rp_pace_check_stop(c, s);
	}
}

/* Messages that start in [from, c->end_ns), one every msg time from `from`,
 * and the due time after them (from + their time) in *after, *after_rem. */
static uint64_t msgs_from(const struct rp_pace_cfg *c, uint64_t from, uint64_t *after, bool *after_rem)
{
	uint64_t m = msgs_before(c, from);
	rp_u128 t = (rp_u128)m * ((rp_u128)c->msg_ns * c->div + c->msg_rem);
	*after = from + (uint64_t)(t / c->div);
	*after_rem = t % c->div != 0;
	return m;
}

/* Phases: each phase's messages from where the last one left off. */
static uint64_t phases_walk(const struct rp_pace_cfg *c0, uint64_t *end)
{
	struct rp_pace_cfg c = *c0;
	uint64_t from = c.start_ns, n = 0;
	for (;;) {
		bool rem;
		uint64_t after;
		n += msgs_from(&c, from, &after, &rem);
		if (c.phase + 1 >= c.nphases) {
			*end = after + rem;
			return n;
		}
		from = after; /* the remainder restarts at 0 */
		rp_pace_phase_set(&c, (uint16_t)(c.phase + 1));
	}
}

uint64_t rp_pace_phases_end(const struct rp_pace_cfg *c)
{
	uint64_t end;
	phases_walk(c, &end);
	return end;
}

/* Time bursts: step whole messages where they fit in the window, else packets. */
static void totals_sim(const struct rp_pace_cfg *c, struct rp_pace_totals *t)
{
	struct rp_pace s;
	rp_pace_init(c, &s);
	uint64_t last_ns = c->gap_ns[c->npkts == 1 ? RP_PKT_ONLY : RP_PKT_LAST];
	uint64_t last_rem = c->gap_rem[c->npkts == 1 ? RP_PKT_ONLY : RP_PKT_LAST];
	while (!s.done) {
		if (s.pkt_in_msg == 0 && c->stop == RP_STOP_DURATION) {
			/* due of the message's last packet: due + (msg - last) */
			uint64_t before_ns = c->msg_ns - last_ns, before_rem;
			if (c->msg_rem >= last_rem) {
				before_rem = c->msg_rem - last_rem;
			} else {
				before_rem = c->msg_rem + c->div - last_rem;
				before_ns--;
			}
			uint64_t last_due = s.due_ns + before_ns + (s.rem + before_rem >= c->div);
			if (last_due < s.win_start + c->on_ns) {
				s.due_ns += c->msg_ns;
				s.rem += c->msg_rem;
				if (s.rem >= c->div) {
					s.rem -= c->div;
					s.due_ns++;
				}
				s.pkts += c->npkts;
				s.msgs++;
				s.msgs_in_win++;
				rp_pace_window(c, &s, true);
				rp_pace_check_stop(c, &s);
				continue;
			}
		}
		rp_pace_step(c, &s, rp_pace_kind(c, &s));
	}
	kinds_for(c, s.msgs, s.pkt_in_msg, t);
}

void rp_pace_totals(const struct rp_pace_cfg *c, struct rp_pace_totals *t)
{
	if (c->stop == RP_STOP_PACKETS) {
		kinds_for(c, c->stop_count / c->npkts, c->stop_count % c->npkts, t);
		return;
	}
	if (c->stop == RP_STOP_MESSAGES) {
		kinds_for(c, c->stop_count, 0, t);
		return;
	}
	if (c->nphases) {
		uint64_t end;
		kinds_for(c, phases_walk(c, &end), 0, t);
		return;
	}
	if (!c->period_ns) {
		kinds_for(c, msgs_before(c, c->start_ns), 0, t);
		return;
	}
	if (c->on_ns) {
		totals_sim(c, t);
		return;
	}
	/* Message bursts: every window but the last sends burst_msgs (the plan
	 * makes periods long enough for that); the last may be cut by end. */
	if (c->start_ns >= c->end_ns) {
		kinds_for(c, 0, 0, t);
		return;
	}
	uint64_t nwin = (c->end_ns - c->start_ns + c->period_ns - 1) / c->period_ns;
	uint64_t last = msgs_before(c, c->start_ns + (nwin - 1) * c->period_ns);
	kinds_for(c, (nwin - 1) * c->burst_msgs + (last < c->burst_msgs ? last : c->burst_msgs), 0, t);
}

void rp_pace_totals_slow(const struct rp_pace_cfg *c0, struct rp_pace_totals *t)
{
	struct rp_pace_cfg cc = *c0, *c = &cc;
	struct rp_pace s;
	rp_pace_init(c, &s);
	rp_pace_phase_check(c, &s);
	while (!s.done) {
		rp_pace_step(c, &s, rp_pace_kind(c, &s));
		rp_pace_phase_check(c, &s);
	}
	kinds_for(c, s.msgs, s.pkt_in_msg, t);
}
