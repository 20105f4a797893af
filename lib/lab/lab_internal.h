/* The lab's world, shared by its files (not a public API). */
#ifndef RP_LAB_INTERNAL_H
#define RP_LAB_INTERNAL_H

#include "capture.h"
#include "counters.h"
#include "dcqcn.h"
#include "evq.h"
#include "fabric/switch.h"
#include "fabric/impair.h"
#include "lab.h"
#include "pool.h"
#include "stats/pause.h"
#include "traffic/acct_cfg.h"
#include "traffic/source.h"

#define RP_LAB_NEVER UINT64_MAX
#define RP_LAB_DCQCN_SERIES_X 4 /* a DCQCN lab's time series: for 4x the plan's (or drain's) length */

enum rp_lab_ev {
	RP_EV_ARRIVE,    /* slot's last bit reaches (node, port): node < nhosts is a host */
	RP_EV_HOST_TX,   /* host node's transmitter may send */
	RP_EV_SW_TX,     /* switch (node - nhosts) port's transmitter may send */
	RP_EV_PFC_APPLY, /* a PFC frame (slot) takes effect on host node */
	RP_EV_HOST_RX,   /* a delayed frame (slot) reaches host node's receiver */
	RP_EV_HOST_REPLY, /* a deferred reply (slot: a CNP at its window's end) joins host node's replies */
};

enum rp_lab_peer { RP_PEER_NONE, RP_PEER_HOST, RP_PEER_SWITCH };

struct rp_lab_port {
	enum rp_lab_peer kind;
	uint32_t peer;      /* host index or switch index */
	uint16_t peer_port;
	uint64_t rate_bps;
	uint64_t prop_ns;
};

/* Where a switch sits: leaves (tier 0) face hosts; spines (leaf-spine, rail)
 * and aggs (fat-tree) are tier 1; cores tier 2. */
enum rp_lab_tier { RP_TIER_LEAF, RP_TIER_MID, RP_TIER_CORE };

struct rp_lab_switch {
	char name[16];
	const char *role;   /* "switch", "leaf", "spine", "agg", "core" */
	uint8_t tier;       /* enum rp_lab_tier */
	unsigned index;     /* among its role */
	unsigned pod;       /* fat-tree leaves and aggs */
	unsigned nports;
	unsigned nhost_ports; /* leaves: ports 0.. face hosts */
	/* Routing (route.c): a frame for a host below goes down, port = (its
	 * leaf / down_div) % down_mod (leaves: the host's own port); any other
	 * up, to one of ports [up0, up0 + nup) by ECMP over its UDP source port,
	 * hashed with this switch's own seed. */
	unsigned down_div, down_mod, up0, nup;
	uint64_t ecmp_seed;
	struct rp_lab_port port[RP_SWITCH_MAX_PORTS];
	uint64_t wake_at[RP_SWITCH_MAX_PORTS];
	uint64_t first_xoff_ns[RP_SWITCH_MAX_PORTS]; /* first XOFF it sent out of each port */
	uint8_t mirror_of[RP_SWITCH_MAX_PORTS];      /* its mirror's index + 1; 0: not mirrored */
	struct rp_switch *sw;
};

struct rp_lab_flow {
	uint32_t plan_flow;
	long acct;          /* accountant flow index; -1 for PFC sources */
	uint32_t si;        /* its index in the host's source */
	uint8_t prio_bit;   /* 0: PFC source, never paused */
	uint32_t lqpn;
	uint16_t qps;
	bool dcqcn_on;
	struct rp_dcqcn_state *dcqcn; /* its host's dcqcn[] entry with dcqcn_on, else NULL */
	uint64_t allowed_ns; /* DCQCN pacing: the next start it allows */
	uint64_t last_tx_ns; /* DCQCN pacing: when the last frame started ... */
	uint32_t last_len;   /* ... and its length (0: none yet) */
	double paced_bps;    /* the rate allowed_ns was timed at: a change re-times it */
	uint64_t drem;       /* sub-ns remainder of that pacing, in bit-ns units */
};

/* A host's unfinished flows of one priority (group 8: PFC sources), a
 * min-heap of flow indices by (next due time, index). */
struct rp_lab_fheap {
	uint32_t *v;
	uint32_t n;
};
#define RP_LAB_FGROUPS 9

struct rp_lab_host {
	unsigned idx;
	bool heaps;         /* no DCQCN: the next flow comes from grp (else a scan of flows) */
	struct rp_lab_fheap grp[RP_LAB_FGROUPS];
	struct rp_source *src; /* every flow it sends: one source, one set of ICRC tables */
	struct rp_lab_flow *flows;
	size_t nflows;
	struct rp_dcqcn_state *dcqcn; /* [nflows] with DCQCN on in the fabric, else NULL:
				       * 216 B a flow only where a run uses it */
	struct rp_pause pause;
	uint64_t rate_bps, prop_ns;
	unsigned sw, sw_port;
	uint64_t busy_until, tx_rem;
	uint64_t wake_at;
	uint32_t *rq;       /* reply frames waiting (pool slots), FIFO */
	size_t rq_head, rq_n, rq_cap;
	struct rp_impair_state impair;
	struct rp_lab_cap *cap;
	unsigned cap_files;  /* files it wrote (set when the captures close) */
	uint64_t cap_frames;
	uint64_t tx_frames, tx_bytes, rx_frames, rx_bytes, replies, cnp_rx, cnp_tx;
	uint64_t paused_starts; /* wakes that found data held back by PFC */
};

/* A mirrored switch port (lab --mirror): both directions, as a SPAN session. */
struct rp_lab_mirror {
	unsigned sw, port;
	char name[48];       /* "sw0:3" */
	struct rp_lab_cap *cap;
	unsigned files;      /* set when the captures close */
	uint64_t frames;
};

/* The host a destination MAC belongs to, or -1 (a binary search, not a scan). */
int rp_lab_host_by_mac(const struct rp_lab *lab, const uint8_t mac[6]);

struct rp_lab {
	const struct rp_profile *prof;
	const struct rp_plan *plan;
	const struct rp_fabric *fab;
	struct rp_lab_opts opts;
	struct rp_evq q;
	struct rp_pool pool;
	size_t nhosts;
	struct rp_lab_host *hosts;
	uint64_t *mac_index;  /* [nhosts] (MAC << 16 | host), sorted: a frame's destination host */
	unsigned nsw;
	struct rp_lab_switch *sw;
	struct rp_acct_cfg acfg;
	uint64_t planned_ns;     /* rp_lab_planned_ns */
	uint32_t *flow_of;
	struct rp_acct *acct;
	uint64_t now;
	struct rp_lab_totals tot;
	struct rp_lab_cap_budget capb;
	struct rp_lab_mirror *mirrors;
	size_t nmirrors;
	struct rp_lab_ctrs *ctrs;  /* --counters; NULL: none */
	uint64_t ctrs_next;        /* virtual time of the next reading */
	bool cap_told;           /* opts.capture_failed was called */
	bool cap_room_limited;   /* capb.max_bytes is the disk's room, not opts.capture_max */
	uint64_t congestion_ns;  /* first standing queue (> 2 max frames) anywhere; NEVER */
	int congested_sw, congested_port;
	uint64_t tie_rng;        /* splitmix64 state for switch arrival ties, from fabric.seed */
	struct rp_event pending; /* the event popped when the run stopped (it never ran) */
	bool has_pending;
	bool failed;
	char err[256];       /* why failed, when not out of memory */
};

/* lab.c: the bytes of a frame pool slot for this plan (size.c counts them too). */
size_t rp_lab_slot_size(const struct rp_plan *plan, const struct rp_fabric *fab);
/* topo.c: switches, ports and where each host plugs in. */
int rp_lab_topo_build(struct rp_lab *lab, char *err, size_t errlen);
/* The topology laid out and every switch's config checked (rp_switch_cfg_check),
 * no switch built: rp_lab_check_fit's last check. */
int rp_lab_topo_check(const struct rp_profile *prof, char *err, size_t errlen);
/* The same, calling fn for each switch laid out (its ports and hosts placed:
 * lab->sw[s], lab->hosts[h].sw) with its checked config (size.c). */
typedef void (*rp_lab_topo_fn)(const struct rp_lab *lab, unsigned s, const struct rp_switch_cfg *c, void *arg);
int rp_lab_topo_walk(const struct rp_profile *prof, rp_lab_topo_fn fn, void *arg, char *err, size_t errlen);
void rp_lab_topo_free(struct rp_lab *lab);
/* route.c: the egress port for a frame entering switch s, or -1 to let the
 * switch look it up (and consume MAC control frames). */
int rp_lab_route(struct rp_lab *lab, unsigned s, uint32_t slot);
/* host.c */
int rp_lab_hosts_init(struct rp_lab *lab, char *err, size_t errlen);
/* lab.c: opts.setup polled within a stage; non-zero: stop the set-up. */
int rp_lab_setup_poll(struct rp_lab *lab);
void rp_lab_hosts_free(struct rp_lab *lab);
void rp_lab_host_tx(struct rp_lab *lab, unsigned h);
void rp_lab_host_rx(struct rp_lab *lab, unsigned h, uint32_t slot);
void rp_lab_host_arrive(struct rp_lab *lab, unsigned h, uint32_t slot);
void rp_lab_host_pfc_apply(struct rp_lab *lab, unsigned h, uint32_t slot);
void rp_lab_host_reply_due(struct rp_lab *lab, unsigned h, uint32_t slot);
void rp_lab_host_wake(struct rp_lab *lab, unsigned h, uint64_t t);
/* Host h's capture (if any) records a frame seen at t. */
void rp_lab_capture(struct rp_lab *lab, unsigned h, uint64_t t, const uint8_t *b, size_t len);
/* Capture c (a host's or a mirror's; NULL: none) records a frame seen at t. */
void rp_lab_cap_put(struct rp_lab *lab, struct rp_lab_cap *c, uint64_t t, const uint8_t *b, size_t len);
/* mirror.c: the mirrors opened (after the topology), a frame passing
 * mirrored switch port at t, and their files closed. */
int rp_lab_mirrors_open(struct rp_lab *lab, char *err, size_t errlen);
void rp_lab_mirror(struct rp_lab *lab, unsigned m, uint64_t t, const uint8_t *b, size_t len);
void rp_lab_mirrors_close(struct rp_lab *lab);
void rp_lab_mirrors_free(struct rp_lab *lab);
/* topo.c: "SWITCH:PORT" in the fabric prof lays out. */
int rp_lab_topo_port(const struct rp_profile *prof, const char *spec, unsigned *sw, unsigned *port, char *err,
		     size_t errlen);
/* swnode.c; rp_lab_sw_refs: every switch holds frames by their pool slots. */
void rp_lab_sw_refs(struct rp_lab *lab);
void rp_lab_sw_arrive(struct rp_lab *lab, unsigned s, unsigned port, uint32_t slot);
void rp_lab_sw_tx(struct rp_lab *lab, unsigned s, unsigned port);
void rp_lab_sw_wake(struct rp_lab *lab, unsigned s, unsigned port, uint64_t t);
/* run.c: puts a frame (slot) on the wire toward (kind, peer, peer_port), arriving at t. */
void rp_lab_deliver(struct rp_lab *lab, const struct rp_lab_port *to, uint32_t slot, uint64_t t);
void rp_lab_push(struct rp_lab *lab, uint64_t t, enum rp_lab_ev kind, uint32_t node, uint16_t port, uint32_t slot);

#endif
