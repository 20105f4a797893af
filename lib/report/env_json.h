/* result.json's pieces that say where a run ran, built from the ranks'
 * facts (rank_env.h): environment.ports[] and .lcores[], capture[],
 * cluster.ranks[] entries, verbs and findings (docs/results.md). The one
 * writer of them, on rank 0 from every rank's unpacked record, and in one
 * process from its own. e[0..n): ranks in order; those not present (a rank
 * that died) are left out. */
#ifndef RP_REPORT_ENV_JSON_H
#define RP_REPORT_ENV_JSON_H

#include <jansson.h>
#include <stddef.h>

#include "rank_env.h"

/* {arp_requests_rx, ..., refresh_ns, next_hops: [...]} (gen and run). */
json_t *rp_env_neigh_json(const struct rp_env_neigh *n);
/* One environment.ports[] entry. */
json_t *rp_env_port_json(const struct rp_env_port *p);
/* Every rank's ports, in rank order. */
json_t *rp_env_ports_json(const struct rp_rank_env *e, size_t n);
/* Every rank's capture files, in rank order. */
json_t *rp_env_captures_json(const struct rp_rank_env *e, size_t n);
/* One rank's lcores. */
json_t *rp_env_lcores_json(const struct rp_rank_env *e);
/* One cluster.ranks[] entry: rank, node, hosts, clock_offset_ns,
 * clock_bound_ns, start_skew_ns, clock_source, lcores,
 * packet_clock_gap_ns, flows_accounted, flows_held. */
json_t *rp_env_rank_json(const struct rp_rank_env *e);
/* "verbs": {hosts: [... each with "rank": its index in e], qps: [...]},
 * a QP's sender half and receiver half (two ranks) joined in one row. */
json_t *rp_env_verbs_json(const struct rp_rank_env *e, size_t n);
/* Every port's findings, in rank order, as one array of strings. */
json_t *rp_env_findings_json(const struct rp_rank_env *e, size_t n);

#endif
