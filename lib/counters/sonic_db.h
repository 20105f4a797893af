/* SONiC's COUNTERS_DB layout, named once: what sonic.c reads and
 * sonic_pub.c writes, and the SAI stat names ctr_names.c's one table maps
 * to the vocabulary. Sources of the names:
 *   databases        sonic-swss-common common/database_config.json (COUNTERS_DB 2,
 *                    CONFIG_DB 4)
 *   name/index maps  sonic-swss orchagent/portsorch.cpp (generatePortCounterMap,
 *                    generateQueueMapPerPort, generatePriorityGroupMapPerPort)
 *   watermark tables orchagent/watermarkorch.cpp, watermark_{queue,pg}.lua;
 *                    sonic-utilities scripts/watermarkstat
 *   stat fields      opencomputeproject/SAI inc/saiport.h, saiqueue.h, saibuffer.h,
 *                    as orchagent's flex counters write them; sonic-utilities
 *                    scripts/pfcstat and scripts/queuestat read them
 * A field with "%u" names a priority 0..7 (a printf format of one unsigned). */
#ifndef RP_COUNTERS_SONIC_DB_H
#define RP_COUNTERS_SONIC_DB_H

#define RP_SONIC_COUNTERS_DB 2
#define RP_SONIC_CONFIG_DB 4

#define RP_SONIC_PORT_NAME_MAP "COUNTERS_PORT_NAME_MAP"   /* Ethernet0 -> port oid */
#define RP_SONIC_QUEUE_NAME_MAP "COUNTERS_QUEUE_NAME_MAP" /* Ethernet0:3 -> queue oid */
#define RP_SONIC_QUEUE_INDEX_MAP "COUNTERS_QUEUE_INDEX_MAP" /* queue oid -> its index */
#define RP_SONIC_QUEUE_PORT_MAP "COUNTERS_QUEUE_PORT_MAP"   /* queue oid -> port oid */
#define RP_SONIC_QUEUE_TYPE_MAP "COUNTERS_QUEUE_TYPE_MAP"   /* queue oid -> SAI_QUEUE_TYPE_UNICAST */
#define RP_SONIC_PG_NAME_MAP "COUNTERS_PG_NAME_MAP"         /* Ethernet0:3 -> PG oid */
#define RP_SONIC_PG_INDEX_MAP "COUNTERS_PG_INDEX_MAP"       /* PG oid -> its index */
#define RP_SONIC_PG_PORT_MAP "COUNTERS_PG_PORT_MAP"         /* PG oid -> port oid */

#define RP_SONIC_COUNTERS "COUNTERS" /* COUNTERS:oid -> field -> decimal */
#define RP_SONIC_USER_WM "USER_WATERMARKS"
#define RP_SONIC_PERSISTENT_WM "PERSISTENT_WATERMARKS"
/* The raw-name prefixes ctr_names.c gives a watermark table's fields. */
#define RP_SONIC_USER_WM_PREFIX "U/"
#define RP_SONIC_PERSISTENT_WM_PREFIX "P/"

/* Per port (COUNTERS:port oid) */
#define RP_SAI_PORT_PFC_RX_PKTS "SAI_PORT_STAT_PFC_%u_RX_PKTS"
#define RP_SAI_PORT_PFC_TX_PKTS "SAI_PORT_STAT_PFC_%u_TX_PKTS"
#define RP_SAI_PORT_PFC_RX_PAUSE_US "SAI_PORT_STAT_PFC_%u_RX_PAUSE_DURATION_US"
#define RP_SAI_PORT_PFC_TX_PAUSE_US "SAI_PORT_STAT_PFC_%u_TX_PAUSE_DURATION_US"
#define RP_SAI_PORT_IN_OCTETS "SAI_PORT_STAT_IF_IN_OCTETS"
#define RP_SAI_PORT_OUT_OCTETS "SAI_PORT_STAT_IF_OUT_OCTETS"
#define RP_SAI_PORT_IN_DISCARDS "SAI_PORT_STAT_IF_IN_DISCARDS"
#define RP_SAI_PORT_OUT_DISCARDS "SAI_PORT_STAT_IF_OUT_DISCARDS"
#define RP_SAI_PORT_IN_UCAST_PKTS "SAI_PORT_STAT_IF_IN_UCAST_PKTS"
#define RP_SAI_PORT_OUT_UCAST_PKTS "SAI_PORT_STAT_IF_OUT_UCAST_PKTS"
/* Per egress queue (COUNTERS:queue oid; the watermark in the two tables too) */
#define RP_SAI_QUEUE_PACKETS "SAI_QUEUE_STAT_PACKETS"
#define RP_SAI_QUEUE_BYTES "SAI_QUEUE_STAT_BYTES"
#define RP_SAI_QUEUE_DROPPED_PACKETS "SAI_QUEUE_STAT_DROPPED_PACKETS"
#define RP_SAI_QUEUE_DROPPED_BYTES "SAI_QUEUE_STAT_DROPPED_BYTES"
#define RP_SAI_QUEUE_ECN_MARKED "SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS"
#define RP_SAI_QUEUE_SHARED_WM "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES"
/* Per ingress priority group (COUNTERS:PG oid; watermarks in the two tables) */
#define RP_SAI_PG_PACKETS "SAI_INGRESS_PRIORITY_GROUP_STAT_PACKETS"
#define RP_SAI_PG_DROPPED_PACKETS "SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS"
#define RP_SAI_PG_SHARED_WM "SAI_INGRESS_PRIORITY_GROUP_STAT_SHARED_WATERMARK_BYTES"
#define RP_SAI_PG_XOFF_ROOM_WM "SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_WATERMARK_BYTES"
/* The PFC watchdog's, per egress queue (COUNTERS:queue oid): not SAI stats
 * but what sonic-swss orchagent/pfcactionhandler.cpp writes there
 * (PfcWdActionHandler::initWdCounters, updateWdCounters: DEADLOCK_DETECTED,
 * DEADLOCK_RESTORED and PFC_WD_STATUS from the first release; the packet
 * counts and their _LAST, over the latest storm alone, in later ones) and
 * sonic-utilities pfcwd/main.py STATS_DESCRIPTION (`pfcwd show stats`)
 * prints. PFC_WD_STATUS is a word, "stormed" or "operational". */
#define RP_SONIC_WD_DETECTED "PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED"
#define RP_SONIC_WD_RESTORED "PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED"
#define RP_SONIC_WD_TX_PACKETS "PFC_WD_QUEUE_STATS_TX_PACKETS"
#define RP_SONIC_WD_TX_DROPPED "PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS"
#define RP_SONIC_WD_RX_PACKETS "PFC_WD_QUEUE_STATS_RX_PACKETS"
#define RP_SONIC_WD_RX_DROPPED "PFC_WD_QUEUE_STATS_RX_DROPPED_PACKETS"
#define RP_SONIC_WD_LAST "_LAST" /* the four above, over the latest storm */
#define RP_SONIC_WD_DETECTION_TIME "PFC_WD_DETECTION_TIME"
#define RP_SONIC_WD_DETECTION_TIME_LEFT "PFC_WD_DETECTION_TIME_LEFT"
#define RP_SONIC_WD_RESTORATION_TIME "PFC_WD_RESTORATION_TIME"
#define RP_SONIC_WD_RESTORATION_TIME_LEFT "PFC_WD_RESTORATION_TIME_LEFT"
#define RP_SONIC_WD_STATUS "PFC_WD_STATUS"
#define RP_SONIC_WD_STORMED "stormed"
#define RP_SONIC_WD_OPERATIONAL "operational"

#endif
