/* Plan internals shared by plan.c, flow.c and patterns.c. */
#ifndef RP_TRAFFIC_FLOW_INTERNAL_H
#define RP_TRAFFIC_FLOW_INTERNAL_H

#include "plan.h"

struct rp_plan_builder {
	struct rp_plan *plan;
	size_t cap;
	size_t phase_cap;
	uint32_t *next_qpn; /* [nhosts] */
	uint32_t *nic_rr;   /* [nservers]: the host's flows that picked a NIC round-robin so far */
	char *err;
	size_t errlen;
};

/* Where a flow sits in time (before its stop condition). */
struct rp_flow_when {
	uint64_t start_ns;   /* first packet due */
	uint64_t end_ns;     /* duration stop: entry start + duration */
	uint64_t period_ns;
	uint64_t on_ns;
	uint32_t burst_msgs;
	uint16_t phase;
};

/* Fills an RDMA flow of entry t from src to dst (no QPNs, no totals). */
int rp_flow_setup_rdma(struct rp_flow *f, const struct rp_profile *prof, uint16_t t, uint16_t src, uint16_t dst,
		       const struct rp_flow_when *w);
void rp_flow_setup_pfc(struct rp_flow *f, const struct rp_profile *prof, uint16_t t);
/* The default timing of an entry: its start, duration end and on/off bursts. */
void rp_flow_when_default(const struct rp_traffic *t, struct rp_flow_when *w);
void rp_flow_count(struct rp_flow *f);

/* f's next hop from its hosts' subnets and gateways (next_hop.c); -1 with
 * the reason in b->err when the destination is off-link and there is no gateway. */
int rp_flow_next_hop(struct rp_plan_builder *b, struct rp_flow *f);
/* Appends a copy of f, numbering its QPs; -1 on out of memory. */
int rp_plan_add_flow(struct rp_plan_builder *b, const struct rp_flow *f);
/* nic_pick.c: the NICs a flow of entry t from *src to *dst uses, where a
 * _spread end named a whole host of several NICs (its NIC 0 in *src or *dst). */
void rp_plan_pick_nics(struct rp_plan_builder *b, uint16_t t, uint16_t *src, bool src_spread, uint16_t *dst,
		       bool dst_spread);
int rp_plan_add_phase(struct rp_plan_builder *b, const struct rp_phase *ph);
int rp_plan_expand(struct rp_plan_builder *b, uint16_t t);

#endif
