/* A run's NIC counters as a time series (issue 24): each host of this
 * process's NIC (its port's kernel netdev: ethtool: and sysfs: sources; a
 * verbs host's RDMA device: rdma:), sampled by lib/counters' sampler at
 * start, every interval and at the end on the run's common timebase. A port
 * without a netdev (net_null, net_ring, pair:, a NIC on vfio-pci) gets a
 * series with no source and the reason. result.json's counters.nics[]. */
#ifndef RP_RUN_NICS_H
#define RP_RUN_NICS_H

#include <stdbool.h>
#include <stdint.h>

#include "counters/sampler.h"

struct rp_session;
struct rp_rank_env;

struct rp_run_nics {
	struct rp_cnt_sampler sm;
};

/* --counter-interval: "0" (off), or a duration of at least 1 ms ("100ms",
 * "1s", "0.5" seconds). 0, or -1. */
int rp_run_nics_interval(const char *arg, uint64_t *ns);

/* hosts: the hosts this process runs ([nhosts], NULL: every host). interval_ns
 * 0: nothing sampled. t_ns = now(arg) - zero_ns. 0, or -1 with err. */
int rp_run_nics_start(struct rp_run_nics *n, const struct rp_session *s, const bool *hosts, uint64_t interval_ns,
		      int64_t (*now)(const void *arg), const void *arg, int64_t zero_ns, char *err, size_t errlen);
/* The end sample; the thread stops. */
void rp_run_nics_stop(struct rp_run_nics *n);
/* The end sample, then the series handed to e (e->nics, e->nnics; NULL:
 * dropped); nothing is left to free. */
void rp_run_nics_facts(struct rp_run_nics *n, struct rp_rank_env *e);
void rp_run_nics_free(struct rp_run_nics *n);

#endif
