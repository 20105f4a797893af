/* The PFC watchdog, as SONiC's pfcwd with action forward: a lossless egress
 * queue that received PFC holds paused, with frames waiting, for
 * wd_detect_ns is in a pause storm (a peer that never stops pausing): the
 * switch stops honouring PFC on it, so its frames go and the backlog that
 * would pause the senders (and spread the storm) drains. Once no PFC has
 * named the priority for wd_restore_ns the queue honours PFC again. The
 * state moves when the port is looked at (every transmit decision); the
 * next decision is due by rp_sw_wd_due, so detection is on time. */
#include "switch_internal.h"

uint8_t rp_sw_wd_paused(struct rp_switch *sw, unsigned port, uint64_t now_ns)
{
	struct rp_port *p = &sw->port[port];
	uint8_t raw = rp_pause_mask(&p->pause, now_ns);
	if (!sw->cfg.wd_detect_ns)
		return raw;
	for (unsigned t = 0; t < RP_SWITCH_TCS; t++) {
		struct rp_switch_queue_stats *st = &p->q[t].st;
		uint8_t bit = (uint8_t)(1u << t);
		if (p->wd.storm & bit) {
			if (now_ns - p->wd.last_pfc[t] >= sw->cfg.wd_restore_ns) {
				p->wd.storm &= (uint8_t)~bit;
				p->wd.since[t] = RP_SWITCH_NEVER;
				st->wd_restored++;
			}
			continue;
		}
		if (!(raw & bit) || !p->q[t].pkts || !((sw->cfg.lossless_mask >> t) & 1u)) {
			p->wd.since[t] = RP_SWITCH_NEVER;
			continue;
		}
		if (p->wd.since[t] == RP_SWITCH_NEVER)
			p->wd.since[t] = now_ns;
		if (now_ns - p->wd.since[t] >= sw->cfg.wd_detect_ns) {
			p->wd.storm |= bit;
			st->wd_storms++;
			if (st->wd_first_ns == RP_SWITCH_NEVER)
				st->wd_first_ns = now_ns;
		}
	}
	return raw & (uint8_t)~p->wd.storm;
}

uint64_t rp_sw_wd_due(const struct rp_switch *sw, unsigned port, unsigned tc, uint64_t now_ns)
{
	const struct rp_port *p = &sw->port[port];
	if (!sw->cfg.wd_detect_ns || !p->q[tc].pkts || !((sw->cfg.lossless_mask >> tc) & 1u))
		return RP_SWITCH_NEVER;
	uint64_t since = p->wd.since[tc] == RP_SWITCH_NEVER ? now_ns : p->wd.since[tc];
	return since + sw->cfg.wd_detect_ns;
}

void rp_sw_wd_pfc_rx(struct rp_switch *sw, unsigned port, uint8_t prios, uint64_t now_ns)
{
	struct rp_port *p = &sw->port[port];
	for (unsigned t = 0; t < RP_SWITCH_TCS; t++)
		if ((prios >> t) & 1u)
			p->wd.last_pfc[t] = now_ns;
}
