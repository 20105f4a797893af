/* counters.nics[] in a rank's record (rank_env.h, version 2) and in
 * result.json: this rank's hosts' NIC counter series (lib/counters/
 * sampler.h), each sample's deltas on the run's common timebase.
 *
 * Record (after verbs):
 *   nics: u32 n x series (str host source reason, u64 interval_ns,
 *         u32 n x sample (u64 t_ns, str port driver,
 *         u32 n x (str name, u8 prio + 1 (0: the port's), u8 class, u8 reset, u64 value)))
 * Names are at most 63 bytes, host 63, source 319, reason 199 (the
 * sampler's own sizes): longer is a garbled record. */
#ifndef RP_REPORT_RANK_NICS_H
#define RP_REPORT_RANK_NICS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "counters/sampler.h"
#include "stats/rec.h"

struct rp_rank_env;
void rp_env_put_nics(struct rp_rec_wr *w, const struct rp_cnt_series *s, uint32_t n);
/* *s (a malloc'd array of *n) from r; on a bad record r says why and *s is NULL. */
void rp_env_get_nics(struct rp_rec_rd *r, struct rp_cnt_series **s, uint32_t *n);
void rp_env_free_nics(struct rp_cnt_series *s, uint32_t n);

/* result.json's "counters": {"nics": [every present rank's series, rank by
 * rank]}: each {host, source (null when absent), reason (only when there is
 * one), interval_ns, port, driver, samples: [{t_ns, the vocabulary keys,
 * prio[], raw, gauges, resets}]} (docs/results.md). */
json_t *rp_env_counters_json(const struct rp_rank_env *e, size_t n);

/* One switch of counters.switches[] (docs/results.md): {name, source,
 * interval_ns, optional, ports (taken: the profile's port -> peer map),
 * reason (only when there is one), samples: [{t_ns, dur_ns, ports: [each
 * port as roceprobe.counters/1 prints it, deltas]}]}; s NULL: no samples. */
json_t *rp_switch_series_json(const char *name, const char *source, uint64_t interval_ns, bool optional,
			      json_t *ports, const char *reason, const struct rp_cnt_series *s);

#endif
