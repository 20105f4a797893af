/* A SONiC switch's own counters, read from its Redis as pfcstat, queuestat
 * and watermarkstat read them (sonic-net/sonic-utilities scripts/), in
 * the layout sonic-swss orchagent writes (orchagent/flexcounterorch.cpp,
 * portsorch.cpp, watermarkorch.cpp, pfcwdorch.cpp):
 *   COUNTERS_DB (db 2)
 *     COUNTERS_PORT_NAME_MAP    hash  Ethernet0 -> oid:0x1000000000002
 *     COUNTERS_QUEUE_NAME_MAP   hash  Ethernet0:3 -> oid:0x15000000000003
 *     COUNTERS_QUEUE_INDEX_MAP  hash  queue oid -> its index (queuestat's UC3, MC10)
 *     COUNTERS_PG_NAME_MAP      hash  Ethernet0:3 -> oid:0x1a000000000003
 *     COUNTERS_PG_INDEX_MAP     hash  PG oid -> its index
 *     COUNTERS:oid:...          hash  SAI stat name -> decimal value (ports: PFC per
 *                                     priority; queues: packets, drops, ECN marks,
 *                                     PFC_WD_QUEUE_STATS_*; PGs: packets, drops)
 *     USER_WATERMARKS:oid:..., PERSISTENT_WATERMARKS:oid:...
 *                               hash  *_WATERMARK_BYTES of a queue or PG (gauges)
 *   CONFIG_DB (db 4)
 *     PORT_QOS_MAP|Ethernet0    hash  tc_to_queue_map, tc_to_pg_map -> a map's name
 *     TC_TO_QUEUE_MAP|NAME, TC_TO_PRIORITY_GROUP_MAP|NAME  hash  tc -> queue / PG
 * SONiC's flex counters refresh COUNTERS_DB every poll interval (1 s for
 * ports, queues and PGs by default; `counterpoll show`): finer readings
 * repeat values. Plain C over hiredis; no DPDK. */
#ifndef RP_COUNTERS_SONIC_H
#define RP_COUNTERS_SONIC_H

#include <stddef.h>

#include "counters/snap.h"

#define RP_SONIC_PORT 6379 /* redis-server's, and SONiC's database instance's */

/* One snapshot of every port of the switch at host:port (out->source is
 * left to the caller; ports in natural order, Ethernet4 before Ethernet12):
 * per port its COUNTERS (pfc_rx/pfc_tx/pause_us_rx/tx per priority), per
 * queue and PG its counters and watermarks; with CONFIG_DB's maps, per
 * priority the queue and PG it goes to (gauges prioN_queue, prioN_pg).
 * 0, or -1 with err: cannot connect, a server that is not SONiC's
 * (no COUNTERS_PORT_NAME_MAP), a name map naming a port the port map does
 * not have, a value that is not a number. */
int rp_sonic_read(const char *host, int port, struct rp_cnt_snap *out, char *err, size_t errlen);

#endif
