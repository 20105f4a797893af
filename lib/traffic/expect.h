/* What a plan asks of each RDMA flow, as the accountant measures it: the
 * goodput it can reach. So the report judges a pair against what it was
 * asked to do (report/pairs.h), not against its peers. No clocks, no I/O. */
#ifndef RP_TRAFFIC_EXPECT_H
#define RP_TRAFFIC_EXPECT_H

#include <stddef.h>
#include <stdint.h>

#include "plan.h"

/* A new array (free() it; NULL when out of memory) of n: [i], Gbit/s, for accountant flow i = plan flow flow_of[i] (flow_of
 * NULL: the plan's RDMA flows in order, as rp_acct_cfg_from_plan numbers
 * them), i < n:
 *   planned = payload bits / (its planned end - its start): the flow's
 *             payload over its own span, as goodput_active_gbps counts it
 *             (phases and bursts included);
 *   share   = 1 / max(1, its sender's planned tx load / the sender's speed,
 *             its receiver's planned rx load / the receiver's speed): a port
 *             planned above its line (an incast's receiver, by design) gives
 *             every flow through it that fraction of its plan;
 *   [i]     = planned x share; 0 (unknown) for a flow planned to send fewer
 *             than 2 packets (it has no span). */
double *rp_plan_expect_goodput(const struct rp_plan *p, const uint32_t *flow_of, size_t n);

/* The priorities the profile means lossless: fabric.pfc.priorities ([3] by
 * default), none with fabric.pfc.enabled off. */
uint8_t rp_plan_lossless(const struct rp_profile *prof);

#endif
