/* A switch's counters as metrics: the snapshot `switch --publish` writes
 * into SONiC's COUNTERS_DB (counters/sonic_pub.h: the same fields, the same
 * moments), labelled {port} (and {prio} or {queue}), so the emulated
 * switch's Prometheus series and its SONiC counters never disagree:
 *   roceprobe_switch_rx_bytes_total, _tx_bytes_total, _rx_discards_total, _tx_discards_total
 *   roceprobe_switch_pfc_rx_frames_total{prio}, _pfc_tx_frames_total{prio},
 *   roceprobe_switch_paused_seconds_total{prio}        (pause_us_rx)
 *   roceprobe_switch_queue_packets_total{queue}, _bytes_total, _dropped_packets_total,
 *   roceprobe_switch_queue_ecn_marked_total{queue}, roceprobe_switch_queue_watermark_bytes{queue}
 *   roceprobe_switch_pg_shared_watermark_bytes{pg}, roceprobe_switch_pg_headroom_watermark_bytes{pg} */
#ifndef RP_METRICS_SWITCH_H
#define RP_METRICS_SWITCH_H

#include "counters/sonic_pub.h"
#include "prom.h"

void rp_metrics_switch(struct rp_prom *p, const struct rp_sonic_snap *s);

#endif
