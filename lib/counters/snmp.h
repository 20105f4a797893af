/* A switch's counters over SNMP (net-snmp's library, numeric OIDs: Debian
 * ships no MIB files), walked with GETBULK:
 *   IF-MIB (RFC 2863)      ifName        1.3.6.1.2.1.31.1.1.1.1   the port's name
 *                          ifHighSpeed   1.3.6.1.2.1.31.1.1.1.15  Mbit/s: the line rate
 *                                                                 that tells a Counter32
 *                                                                 wrap from a reset
 *                          ifHCInOctets  1.3.6.1.2.1.31.1.1.1.6,  ifHCOutOctets .10
 *                          ifInDiscards  1.3.6.1.2.1.2.2.1.13,    ifOutDiscards 1.3.6.1.2.1.2.2.1.19
 *   CISCO-PFC-EXT-MIB      cpfcIfPriorityTable 1.3.6.1.4.1.9.9.813.1.2.1, indexed
 *                          ifIndex.priority: cpfcIfPriorityRequests (.2, PFC frames
 *                          sent) and cpfcIfPriorityIndications (.3, received), as
 *                          SONiC's agent serves them (sonic-net/sonic-snmpagent
 *                          src/sonic_ax_impl/mibs/vendor/cisco/ciscoPfcExtMIB.py:
 *                          SAI_PORT_STAT_PFC_<p>_TX_PKTS and _RX_PKTS)
 *   IEEE8021-PFC-MIB       ieee8021PfcIfEntry 1.3.111.2.802.1.1.21.1.1.1 (augments
 *                          ifEntry): ieee8021PfcRequests (.2) and Indications (.3),
 *                          Counter32 over every priority: the port's pfc_tx / pfc_rx
 *                          (802.1Qbb; other NOSes serve this one)
 *   CISCO-SWITCH-QOS-MIB   csqIfQosGroupStatsValue 1.3.6.1.4.1.9.9.580.1.5.5.1.4, indexed
 *                          ifIndex.direction.queue.type: egress (2) queue q (1-based)
 *                          -> queues[q-1]; types 1/2/5/6 packets, bytes, drops,
 *                          drop_bytes of the unicast queue, 3/4/7/8 mc_* of the
 *                          multicast queue (sonic-snmpagent ciscoSwitchQosMIB.py)
 * The community or the v3 user comes from a credentials file, never argv
 * (docs/security.md). */
#ifndef RP_COUNTERS_SNMP_H
#define RP_COUNTERS_SNMP_H

#include <stddef.h>

#include "counters/snap.h"

#define RP_SNMP_PORT 161

enum rp_snmp_auth { RP_SNMP_AUTH_NONE, RP_SNMP_AUTH_SHA, RP_SNMP_AUTH_SHA256, RP_SNMP_AUTH_MD5 };
enum rp_snmp_priv { RP_SNMP_PRIV_NONE, RP_SNMP_PRIV_AES, RP_SNMP_PRIV_DES };

struct rp_snmp_cred {
	int version; /* 0: none loaded; 2: v2c community; 3: v3 user */
	char community[128];
	char user[64];
	int auth, priv; /* enum rp_snmp_auth, rp_snmp_priv */
	char auth_pass[128], priv_pass[128];
};

/* A credentials file: '#' comments, and either
 *     community NAME
 * or
 *     user NAME
 *     auth SHA|SHA-256|MD5 PASSPHRASE     (optional: noAuthNoPriv without it)
 *     priv AES|DES PASSPHRASE             (optional; needs auth)
 * 0 (warn set, or "", when group or others may read the file), or -1 with
 * err naming the line. */
int rp_snmp_cred_load(const char *path, struct rp_snmp_cred *c, char *warn, size_t warnlen, char *err, size_t errlen);
/* Wipes the secrets. */
void rp_snmp_cred_clear(struct rp_snmp_cred *c);

/* One snapshot of the switch at host:port (out->source left to the caller):
 * a port per ifIndex a PFC table names (every named interface when the
 * agent has neither PFC MIB), its speed, octets and discards, pfc_rx /
 * pfc_tx per priority, its egress queues' packets, bytes and drops. Values keep their SNMP widths (bits 32 for Counter32).
 * 0, or -1 with err: no answer (unreachable, or a v2c community the agent
 * does not know: it stays silent), an authentication failure, an unknown
 * user, an agent without IF-MIB's ifName. */
int rp_snmp_read(const char *host, int port, const struct rp_snmp_cred *c, struct rp_cnt_snap *out, char *err,
		 size_t errlen);

#endif
