/* The emulated switch's own counters as a SONiC switch's (counters/
 * sonic_pub.h), for `roceprobe switch --publish`: the model's port, queue
 * and priority-group counters (the ones result.json's ports[] and prio[]
 * hold) under the SAI fields SONiC's flex counters write. Port p is named
 * "Ethernet<p>" (docs/switch.md "Publishing"). */
#ifndef RP_REPORT_SWITCH_SONIC_H
#define RP_REPORT_SWITCH_SONIC_H

#include <stdint.h>

#include "counters/sonic_pub.h"
#include "fabric/switch.h"

/* ports 0..nports-1 (at most RP_SONIC_PUB_PORTS) at now_ns into out. */
void rp_switch_sonic_snap(const struct rp_switch *sw, unsigned nports, uint64_t now_ns, struct rp_sonic_snap *out);

#endif
