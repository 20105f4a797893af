/* A plan (lib/traffic) as `roceprobe plan` shows it (docs/profiles.md): the
 * text tables (hosts, next hops, flows, pairs, ports, schedule) and the
 * "roceprobe.plan/1" JSON document (hosts, flows, pairs, ports, phases).
 * A report of typed facts: nothing here loads, binds or expands; the plan
 * and the hosts' ranks come in built. host_rank: each host's rank as a
 * launch binds it (rp_cluster_bind), NULL for what the profile says. */
#ifndef RP_REPORT_PLAN_REPORT_H
#define RP_REPORT_PLAN_REPORT_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "traffic/plan.h"

/* Offered load as % of a link (0 for a link of unknown speed); above
 * 100% (+1e-9) a port is oversubscribed. */
static inline double rp_plan_link_pct(double bps, uint64_t link)
{
	return link ? bps * 100.0 / (double)link : 0.0;
}

/* The text tables, "profile PATH: NAME" first. */
void rp_plan_print_text(FILE *out, const char *path, const struct rp_plan *pl, const int *host_rank);
/* The JSON document; NULL when out of memory. */
json_t *rp_plan_json(const char *path, const struct rp_plan *pl, const int *host_rank);

#endif
