/* A switch's snapshot as metrics (switch.h). */
#include "switch.h"

#include <stddef.h>
#include <stdio.h>

struct fam {
	const char *name, *type, *help;
	size_t off;  /* of a uint64_t in the port, or of an array of 8 */
	size_t step; /* 0: one value a port; else the stride between the 8 (a queue's, a pg's) */
	const char *label; /* "prio", "queue", "pg" with step or arrays */
	int micros; /* 1: a count of microseconds, served as seconds */
};

#define P(f) offsetof(struct rp_sonic_port, f)
#define Q(f) (offsetof(struct rp_sonic_port, queue) + offsetof(struct rp_sonic_queue, f))
#define G(f) (offsetof(struct rp_sonic_port, pg) + offsetof(struct rp_sonic_pg, f))
static const struct fam fams[] = {
	{"roceprobe_switch_rx_bytes_total", "counter", "Octets the switch port received.", P(in_octets), 0, NULL, 0},
	{"roceprobe_switch_tx_bytes_total", "counter", "Octets the switch port sent.", P(out_octets), 0, NULL, 0},
	{"roceprobe_switch_rx_discards_total", "counter", "Frames dropped at ingress.", P(in_discards), 0, NULL, 0},
	{"roceprobe_switch_tx_discards_total", "counter", "Frames dropped at egress.", P(out_discards), 0, NULL, 0},
	{"roceprobe_switch_pfc_rx_frames_total", "counter", "PFC frames the port received, by priority.", P(pfc_rx),
	 sizeof(uint64_t), "prio", 0},
	{"roceprobe_switch_pfc_tx_frames_total", "counter", "PFC frames the port sent, by priority.", P(pfc_tx),
	 sizeof(uint64_t), "prio", 0},
	{"roceprobe_switch_paused_seconds_total", "counter", "Time the port's priority was paused by PFC received.",
	 P(pause_us_rx), sizeof(uint64_t), "prio", 1},
	{"roceprobe_switch_queue_packets_total", "counter", "Packets the egress queue sent.", Q(packets),
	 sizeof(struct rp_sonic_queue), "queue", 0},
	{"roceprobe_switch_queue_bytes_total", "counter", "Bytes the egress queue sent.", Q(bytes),
	 sizeof(struct rp_sonic_queue), "queue", 0},
	{"roceprobe_switch_queue_dropped_packets_total", "counter", "Packets the egress queue dropped.",
	 Q(dropped_packets), sizeof(struct rp_sonic_queue), "queue", 0},
	{"roceprobe_switch_queue_ecn_marked_total", "counter", "Packets the queue marked CE.", Q(ecn_marked),
	 sizeof(struct rp_sonic_queue), "queue", 0},
	{"roceprobe_switch_queue_watermark_bytes", "gauge", "The deepest the queue has been since the start.",
	 Q(wm_bytes), sizeof(struct rp_sonic_queue), "queue", 0},
	{"roceprobe_switch_pg_shared_watermark_bytes", "gauge",
	 "The most shared buffer the ingress priority group has held.", G(shared_wm_bytes), sizeof(struct rp_sonic_pg),
	 "pg", 0},
	{"roceprobe_switch_pg_headroom_watermark_bytes", "gauge",
	 "The most headroom (XOFF room) the ingress priority group has held.", G(xoff_room_wm_bytes),
	 sizeof(struct rp_sonic_pg), "pg", 0},
};
#undef P
#undef Q
#undef G

void rp_metrics_switch(struct rp_prom *p, const struct rp_sonic_snap *s)
{
	char port[12], k[4];
	for (size_t f = 0; f < sizeof(fams) / sizeof(fams[0]); f++) {
		rp_prom_family(p, fams[f].name, fams[f].type, fams[f].help);
		for (unsigned i = 0; i < s->nports && i < RP_SONIC_PUB_PORTS; i++) {
			const char *base = (const char *)&s->port[i] + fams[f].off;
			snprintf(port, sizeof(port), "%u", i);
			for (unsigned q = 0; q < (fams[f].step ? RP_SONIC_PUB_PRIOS : 1u); q++) {
				snprintf(k, sizeof(k), "%u", q);
				const struct rp_prom_label l[] = {{"port", port}, {fams[f].label, k}};
				uint64_t v = *(const uint64_t *)(base + q * fams[f].step);
				if (fams[f].micros)
					rp_prom_ns(p, fams[f].name, l, 2, v * 1000); /* printed as exact seconds */
				else
					rp_prom_u64(p, fams[f].name, l, fams[f].step ? 2 : 1, v);
			}
		}
	}
}
