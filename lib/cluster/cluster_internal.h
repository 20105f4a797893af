/* Shared by the MPI and the no-MPI builds of lib/cluster. */
#ifndef RP_CLUSTER_INTERNAL_H
#define RP_CLUSTER_INTERNAL_H

#include "cluster.h"

/* Rank 0 of 1 on this host, no MPI. */
int rp_cluster_init_single(struct rp_cluster *c, char *err, size_t errlen);
/* rank and local_rank of every entry from the node names. */
void rp_cluster_local_ranks(struct rp_rank_info *ranks, size_t n);

#endif
