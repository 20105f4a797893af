/* Shared by the MPI and the no-MPI builds of lib/cluster. */
#ifndef RP_CLUSTER_INTERNAL_H
#define RP_CLUSTER_INTERNAL_H

#include "cluster.h"

/* Rank 0 of 1 on this host, no MPI. */
int rp_cluster_init_single(struct rp_cluster *c, char *err, size_t errlen);
/* rank and local_rank of every entry from the node names. */
void rp_cluster_local_ranks(struct rp_rank_info *ranks, size_t n);

/* The degraded collectives (watch.c): a star through rank 0 over the watch,
 * the dead ranks left out. */
int rp_watch_gather(const struct rp_cluster *c, const void *mine, size_t len, uint8_t **all, size_t **lens);
int rp_watch_reduce_u64(const struct rp_cluster *c, uint64_t *v, size_t n, bool max);

/* guard.c: started before MPI_Init, stopped in rp_cluster_finalize. */
int rp_cluster_guard_start(struct rp_cluster *c, volatile sig_atomic_t *stop);
void rp_cluster_guard_stop(struct rp_cluster *c);
/* rp_cluster_finalize begins: no stop line from here, and a launcher that
 * ends the job now (MPI_Finalize would wait for it) ends the rank. */
void rp_cluster_guard_finalizing(struct rp_cluster *c);
/* The stop flag the guard was given is set. */
bool rp_cluster_guard_stopped(const struct rp_cluster *c);

#endif
