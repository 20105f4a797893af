/* PFC and PAUSE frames received on a port: they pause that port's egress
 * queues. The timers and paused-time accounting are lib/stats' rp_pause, the
 * same code a receiving NIC uses, so switch and host agree on what a quanta
 * value means. PFC is honoured for the PFC-enabled (lossless) priorities
 * only, as a switch with PFC enabled per priority does; an 802.3x PAUSE
 * stops every queue. */
#include "switch_internal.h"
#include "wire/eth.h"

void rp_sw_pfc_receive(struct rp_switch *sw, uint64_t now_ns, unsigned port, const uint8_t *frame, size_t len,
		       struct rp_switch_rx *rx)
{
	struct rp_port *p = &sw->port[port];
	struct rp_macctl m;
	struct rp_eth e;
	size_t hlen;

	rx->verdict = RP_SW_CONSUMED;
	if (rp_eth_parse(frame, len, &e, &hlen) != 0 || rp_macctl_parse(frame + hlen, len - hlen, &m) != 0 ||
	    (m.opcode != RP_MACCTL_OP_PFC && m.opcode != RP_MACCTL_OP_PAUSE)) {
		p->st.macctl_other_rx++;
		return;
	}
	if (m.opcode == RP_MACCTL_OP_PFC) {
		p->st.pfc_rx++;
		m.enable &= sw->cfg.lossless_mask;
		rx->pfc_prios = m.enable;
	} else {
		p->st.pause_rx++;
		rx->pfc_prios = 0xFF;
	}
	for (unsigned t = 0; t < RP_SWITCH_TCS; t++)
		if ((rx->pfc_prios >> t) & 1u)
			p->q[t].st.pfc_rx++;
	rp_sw_wd_pfc_rx(sw, port, rx->pfc_prios, now_ns);
	rp_pause_rx(&p->pause, now_ns, &m);
	/* An XON (or a shorter pause) may let queued frames go now. */
	rp_sw_kick(&rx->kick, rx->kick_port, &rx->nkick, port);
}
