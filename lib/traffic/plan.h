/* A profile expanded into flows: who sends what to whom, when, and how much.
 * No clocks, no I/O, no DPDK. */
#ifndef RP_TRAFFIC_PLAN_H
#define RP_TRAFFIC_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pace.h"
#include "profile/profile.h"
#include "segment.h"

/* Each host numbers its QPs up from its own first QP number, as a real NIC's
 * differ from machine to machine: rp_plan_first_qpn spreads them over
 * [RP_QPN_BASE, RP_QPN_BASE + RP_QPN_SPREAD) by the profile's qpn_seed and the
 * host's name (reproducible; qpn_seed 0: every host from RP_QPN_BASE). The
 * default `sport: linux` entropy then spreads over ECMP paths like a real
 * fabric's instead of giving every host's n-th QP the same UDP source port. */
#define RP_QPN_BASE 0x100
#define RP_QPN_SPREAD 0x7FFF00u /* a host keeps 8 M QP numbers above its first */

/* Where a flow's frames go first: the destination itself when it is on the
 * sender's link (same subnet, or the sender has no prefix), else the sender's
 * gateway. The MAC comes from the profile (the destination host's `mac`, or
 * the sender's `gateway_mac`), or must be resolved on the port (ARP for IPv4,
 * Neighbour Discovery for IPv6) before the first frame: then mac_known is
 * false until the port's edge (lib/dp) fills mac. A `mac: auto` destination
 * whose port is open (in this process, or on its rank, which sent its MAC to
 * every rank) is RP_MAC_FROM_PORT: known, not asked. */
enum rp_mac_from { RP_MAC_FROM_PROFILE, RP_MAC_FROM_GATEWAY_MAC, RP_MAC_FROM_ARP, RP_MAC_FROM_ND, RP_MAC_FROM_PORT };

struct rp_next_hop {
	bool via_gateway;
	uint8_t l3;         /* 4 or 6 */
	uint32_t ip4;       /* the next hop's address: the destination's or the gateway's */
	uint8_t ip6[16];
	enum rp_mac_from mac_from;
	bool mac_known;
	uint8_t mac[6];     /* the frames' destination MAC once known */
};
const char *rp_mac_from_name(enum rp_mac_from m); /* "profile", "gateway_mac", "arp", "nd", "port" */

struct rp_flow {
	uint32_t id;          /* index in plan->flows; the probe's flow_id */
	uint16_t traffic;     /* index of the profile's traffic entry */
	enum rp_traffic_kind kind;
	uint16_t src;         /* host indices; dst is unused for PFC sources */
	uint16_t dst;
	uint16_t phase;       /* all-to-all: phase 1..N-1; else 0 */
	struct rp_flow_params p; /* resolved: p.ip is 4 or 6 */
	struct rp_pfc_params pfc;
	uint64_t rate_bps;    /* RDMA: the pacing rate */
	uint8_t prio;         /* the priority PFC pauses it by */
	uint32_t lqpn;        /* QP q is lqpn + q at the sender ... */
	uint32_t rqpn;        /* ... and rqpn + q at the receiver (the BTH DestQP) */
	struct rp_next_hop nh; /* RDMA: where its frames go first */
	struct rp_frame_shape shape;
	uint32_t frame_len[RP_PKT_KINDS]; /* Ethernet frame without FCS; 0 for unused kinds */
	struct rp_pace_cfg pace;
	/* Totals, counted exactly as the source sends them. */
	struct rp_pace_totals tot;
	uint64_t payload_bytes; /* RDMA message bytes (PFC: 0) */
	uint64_t frame_bytes;   /* Ethernet bytes without FCS */
	uint64_t end_ns;        /* when its last packet has left (exact for continuous flows) */
	double avg_bps;         /* long-run layer-1 load while the flow runs */
	double peak_bps;        /* layer-1 rate inside a burst */
};

/* One all-to-all phase: in [start, start + len) + every period, host i of
 * the entry sends to host (i + k) mod N and to no one else. */
struct rp_phase {
	uint16_t traffic;
	uint16_t k;
	uint64_t start_ns;
	uint64_t len_ns;
	uint64_t period_ns;
};

struct rp_port_load {
	double tx_bps; /* layer-1 bit/s offered by this host's flows */
	double rx_bps; /* layer-1 bit/s offered to this host */
	uint64_t tx_frames;
	uint64_t rx_frames;
};

struct rp_plan {
	const struct rp_profile *prof; /* borrowed: must outlive the plan */
	struct rp_flow *flows;
	size_t nflows;
	struct rp_phase *phases;
	size_t nphases;
	struct rp_port_load *load;   /* [nhosts] */
	uint64_t *pair_bytes;        /* [src * nhosts + dst]: RDMA payload bytes */
	uint64_t *pair_packets;
};

/* Host h's first QP number (see RP_QPN_BASE). */
uint32_t rp_plan_first_qpn(const struct rp_profile *prof, size_t h);

/* How many flows rp_plan_build will make, without making them (a caller
 * that bounds its flows can refuse before the memory is spent). */
size_t rp_plan_count_flows(const struct rp_profile *prof);
/* The single cycle `pattern: permutation` draws from its seed (Sattolo's
 * algorithm): member i of the entry's hosts sends to member perm[i]. */
void rp_plan_permutation(uint16_t *perm, size_t n, uint64_t seed);

/* Expands every traffic entry. Returns 0, or -1 (out of memory, or a flow
 * too large to plan) with a one-line reason in err. */
int rp_plan_build(const struct rp_profile *prof, struct rp_plan *plan, char *err, size_t errlen);
void rp_plan_free(struct rp_plan *plan);

/* The flow's longest frame (Ethernet, without FCS). */
static inline uint32_t rp_flow_max_frame(const struct rp_flow *f)
{
	uint32_t most = 0;
	for (unsigned k = 0; k < RP_PKT_KINDS; k++)
		most = f->frame_len[k] > most ? f->frame_len[k] : most;
	return most;
}

static inline uint64_t rp_plan_pair_bytes(const struct rp_plan *p, size_t src, size_t dst)
{
	return p->pair_bytes[src * p->prof->nhosts + dst];
}

/* The flows whose next hop's MAC is still to be resolved on their sender's
 * port (ARP/ND): how many, and the first one in *first. */
size_t rp_plan_unresolved(const struct rp_plan *p, size_t *first);

/* The phase length of an all-to-all entry: the longest time any of its
 * senders needs for one message (so phases never overlap). */
uint64_t rp_plan_phase_ns(const struct rp_plan *p, uint16_t traffic);

#endif
