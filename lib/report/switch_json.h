/* One emulated switch's statistics as JSON: the one writer behind the lab's
 * result.json `switches[]` and `roceprobe switch --json` (docs/lab.md
 * "Output", docs/switch.md "Output"). It lives here, next to result.json,
 * because both callers already link lib/report and it needs only jansson and
 * the model's stats (lib/fabric), not the lab: lib/report stays free of
 * lib/lab, and lib/fabric of jansson. Times "never" are null. Each caller
 * adds what only it knows (the lab: peer, speed, cable, its first XOFF; the
 * switch: devargs, driver, edge and PMD counters). */
#ifndef RP_REPORT_SWITCH_JSON_H
#define RP_REPORT_SWITCH_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "fabric/switch.h"

/* {reason: packets} for every drop reason but "none". */
json_t *rp_switch_drops_json(const uint64_t pkts[RP_DROP_REASONS]);
/* size, shared_size, headroom_size, max_shared_used, max_headroom_used, held_pkts. */
json_t *rp_switch_buffer_json(const struct rp_switch *sw);
/* Port p at now_ns: `port`, the model's port counters and `prio[]` (each
 * {prio, lossless, queue, pg, qdepth_bytes}); all_prios: all eight, else
 * only priorities that saw traffic, PFC or drops. Not const: the
 * queue-depth series is brought up to now_ns. */
json_t *rp_switch_port_json(struct rp_switch *sw, unsigned p, uint64_t now_ns, bool all_prios);

#endif
