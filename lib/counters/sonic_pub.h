/* The other side of sonic.h: a switch's own counters written into a Redis
 * in SONiC's COUNTERS_DB layout (sonic_db.h), as sonic-swss orchagent's flex
 * counters write them every poll, so `sonic://` (and sonic-utilities'
 * pfcstat, queuestat, watermarkstat) read them as a SONiC switch's. What is
 * written, in one MULTI/EXEC per publish (a reader never sees half of one):
 *   COUNTERS_PORT_NAME_MAP   name -> oid:0x1000000000000 + port + 1
 *   COUNTERS_QUEUE_NAME_MAP  "name:q" -> oid:0x15000000000000 + (port << 8) + q,
 *                            with COUNTERS_QUEUE_INDEX_MAP, _PORT_MAP, _TYPE_MAP
 *   COUNTERS_PG_NAME_MAP     "name:q" -> oid:0x1a000000000000 + (port << 8) + q,
 *                            with COUNTERS_PG_INDEX_MAP, _PORT_MAP
 *   COUNTERS:oid             the SAI fields of struct rp_sonic_port/queue/pg;
 *                            a watched queue's PFC watchdog fields beside them
 *   USER_WATERMARKS:oid, PERSISTENT_WATERMARKS:oid  a queue's and a PG's
 *                            watermarks (both since the start: nobody clears them)
 * The maps are written whole each time (deleted first, in the same
 * transaction): objects an earlier run published leave them.
 * (the high 16 bits of a SAI object id are its sai_object_type_t: PORT 1,
 * QUEUE 0x15, INGRESS_PRIORITY_GROUP 0x1a, as SONiC's own ids show them).
 * Plain C over hiredis and one thread; no DPDK. */
#ifndef RP_COUNTERS_SONIC_PUB_H
#define RP_COUNTERS_SONIC_PUB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "counters/snap.h"

#define RP_SONIC_PUB_PORTS 64
#define RP_SONIC_PUB_PRIOS 8

struct rp_sonic_queue {
	uint64_t packets, bytes, dropped_packets, dropped_bytes, ecn_marked;
	uint64_t wm_bytes; /* the deepest it has been (USER_ and PERSISTENT_WATERMARKS) */
	/* The PFC watchdog's (sonic_db.h RP_SONIC_WD_*), written only for a
	 * queue it watches, as pfcwd writes them only for its queues (a switch
	 * without one has none: certify then says so instead of judging 0):
	 * storms found, storms over (PFC honoured again); PFC_WD_STATUS
	 * "stormed" while wd_detected > wd_restored, else "operational". */
	bool wd;
	uint64_t wd_detected, wd_restored;
};

struct rp_sonic_pg {
	uint64_t packets, dropped_packets;
	uint64_t shared_wm_bytes, xoff_room_wm_bytes; /* watermarks */
};

struct rp_sonic_port {
	char name[32];
	uint64_t in_octets, out_octets, in_discards, out_discards;
	uint64_t in_ucast_pkts, out_ucast_pkts;
	uint64_t pfc_rx[RP_SONIC_PUB_PRIOS], pfc_tx[RP_SONIC_PUB_PRIOS];
	uint64_t pause_us_rx[RP_SONIC_PUB_PRIOS], pause_us_tx[RP_SONIC_PUB_PRIOS];
	struct rp_sonic_queue queue[RP_SONIC_PUB_PRIOS];
	struct rp_sonic_pg pg[RP_SONIC_PUB_PRIOS];
};

struct rp_sonic_snap {
	unsigned nports;
	struct rp_sonic_port port[RP_SONIC_PUB_PORTS];
};

/* The port's counters into out (its name and values already there kept),
 * as `counters sonic://` reads what rp_sonic_pub_offer wrote of it: the
 * same fields, folded by the one name table into the vocabulary (the port's
 * keys and prio[], queues[] and pgs[] with their watermark gauges). No
 * Redis: the lab's --counters (sonic_fold.c). */
void rp_sonic_port_fold(const struct rp_sonic_port *s, struct rp_cnt_port *out);

/* "redis://HOST[:PORT]" (PORT 6379 when left out; HOST may be [v6]) ->
 * host, port. 0, or -1 with a one-line reason. */
int rp_sonic_pub_url(const char *url, char *host, size_t hostlen, int *port, char *err, size_t errlen);

struct rp_sonic_pub;
/* Parses url, connects (2 s at most), selects COUNTERS_DB, and starts the
 * publishing thread (it waits for rp_sonic_pub_offer). who prefixes the one
 * line printed on stderr if the server goes away later ("roceprobe switch").
 * NULL with a one-line reason in err (no prefix). */
struct rp_sonic_pub *rp_sonic_pub_open(const char *url, const char *who, char *err, size_t errlen);
/* Hands a snapshot to the thread, which writes it; never waits on the
 * network (a publish still under way: this one is skipped). Once the server
 * failed, nothing. */
void rp_sonic_pub_offer(struct rp_sonic_pub *p, const struct rp_sonic_snap *s);
/* The last snapshot, written before it returns (when the server is still
 * there); then the thread ends and p is freed. 0, or -1 when publishing
 * failed at some point (its line was printed then). NULL p: 0. */
int rp_sonic_pub_close(struct rp_sonic_pub *p, const struct rp_sonic_snap *last);

#endif
