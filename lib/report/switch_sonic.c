/* The model's counters -> SONiC's (switch_sonic.h). What each field is:
 *   SAI_PORT_STAT_PFC_<p>_RX_PKTS   queue p's pfc_rx: PFC frames received naming p
 *   SAI_PORT_STAT_PFC_<p>_TX_PKTS   PG p's xoff_sent + xon_sent (refreshes are XOFFs): PFC
 *                                   frames sent naming p
 *   ..._RX_PAUSE_DURATION_US        queue p's paused_ns / 1000
 *   ..._TX_PAUSE_DURATION_US        PG p's xoff_ns / 1000
 *   SAI_PORT_STAT_IF_IN/OUT_OCTETS  the port's rx_bytes, tx_bytes
 *   SAI_PORT_STAT_IF_IN/OUT_UCAST_PKTS  the port's rx_pkts (every frame in, PFC
 *                                   too), tx_pkts (data frames out: PFC sent is
 *                                   the PFC_<p>_TX_PKTS)
 *   SAI_PORT_STAT_IF_IN_DISCARDS    the port's drop_pkts (frames that came in there)
 *   SAI_PORT_STAT_IF_OUT_DISCARDS   its queues' drop_pkts summed
 *   SAI_QUEUE_STAT_PACKETS/BYTES    queue tx_pkts, tx_bytes (what left, as SAI counts)
 *   ..._DROPPED_PACKETS/BYTES, WRED_ECN_MARKED_PACKETS  drop_pkts, drop_bytes, ecn_marked
 *   SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES  max_depth_bytes
 *   SAI_INGRESS_PRIORITY_GROUP_STAT_PACKETS, _DROPPED_PACKETS  PG rx_pkts, drop_pkts
 *   ..._SHARED_WATERMARK_BYTES      PG max_bytes (the most it held: the model keeps
 *                                   no maximum of the shared part alone)
 *   ..._XOFF_ROOM_WATERMARK_BYTES   PG max_headroom_bytes
 *   PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED, _RESTORED  queue wd_storms, wd_restored,
 *                                   on the lossless queues when the watchdog is on
 *                                   (fabric.pfc.watchdog; the queues it watches)
 * Not published: pfcwd's PFC_WD_QUEUE_STATS_TX/RX_PACKETS, _TX/RX_DROPPED_PACKETS
 * and their _LAST (the queue's packets sent and dropped while stormed): the
 * model's watchdog forwards and keeps no count of a storm's packets apart
 * from the queue's own. */
#include "switch_sonic.h"

#include <stdio.h>
#include <string.h>

static uint64_t sum(const uint64_t *v)
{
	uint64_t n = 0;
	for (int d = 0; d < RP_DROP_REASONS; d++)
		n += v[d];
	return n;
}

void rp_switch_sonic_snap(const struct rp_switch *sw, unsigned nports, uint64_t now_ns, struct rp_sonic_snap *out)
{
	const struct rp_switch_cfg *cfg = rp_switch_config(sw);
	uint8_t watched = cfg->wd_detect_ns ? cfg->lossless_mask : 0;
	out->nports = nports < RP_SONIC_PUB_PORTS ? nports : RP_SONIC_PUB_PORTS;
	for (unsigned p = 0; p < out->nports; p++) {
		struct rp_sonic_port *o = &out->port[p];
		struct rp_switch_port_stats s;
		rp_switch_port_stats(sw, p, &s);
		memset(o, 0, sizeof(*o));
		snprintf(o->name, sizeof(o->name), "Ethernet%u", p);
		o->in_octets = s.rx_bytes;
		o->out_octets = s.tx_bytes;
		o->in_ucast_pkts = s.rx_pkts;
		o->out_ucast_pkts = s.tx_pkts;
		o->in_discards = sum(s.drop_pkts);
		for (unsigned t = 0; t < RP_SONIC_PUB_PRIOS && t < RP_SWITCH_TCS; t++) {
			struct rp_switch_queue_stats q;
			struct rp_switch_pg_stats g;
			rp_switch_queue_stats(sw, p, t, now_ns, &q);
			rp_switch_pg_stats(sw, p, t, now_ns, &g);
			o->pfc_rx[t] = q.pfc_rx;
			o->pfc_tx[t] = g.xoff_sent + g.xon_sent; /* a refresh is an XOFF too (pfc_gen.c) */
			o->pause_us_rx[t] = q.paused_ns / 1000;
			o->pause_us_tx[t] = g.xoff_ns / 1000;
			o->out_discards += sum(q.drop_pkts);
			o->queue[t] = (struct rp_sonic_queue){.packets = q.tx_pkts, .bytes = q.tx_bytes,
							      .dropped_packets = sum(q.drop_pkts),
							      .dropped_bytes = sum(q.drop_bytes),
							      .ecn_marked = q.ecn_marked, .wm_bytes = q.max_depth_bytes,
							      .wd = (watched >> t) & 1u, .wd_detected = q.wd_storms,
							      .wd_restored = q.wd_restored};
			o->pg[t] = (struct rp_sonic_pg){.packets = g.rx_pkts, .dropped_packets = g.drop_pkts,
							.shared_wm_bytes = g.max_bytes,
							.xoff_room_wm_bytes = g.max_headroom_bytes};
		}
	}
}
