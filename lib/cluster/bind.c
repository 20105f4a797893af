/* Profile hosts -> ranks (see cluster.h): pure, no MPI. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"

/* The rank that is the k-th (by local rank) on node, or -1. */
static int kth_on_node(const struct rp_rank_info *ranks, size_t nranks, const char *node, int k)
{
	for (size_t r = 0; r < nranks; r++)
		if (!strcmp(ranks[r].node, node) && ranks[r].local_rank == k)
			return (int)r;
	return -1;
}

static int ranks_on_node(const struct rp_rank_info *ranks, size_t nranks, const char *node)
{
	int n = 0;
	for (size_t r = 0; r < nranks; r++)
		n += !strcmp(ranks[r].node, node);
	return n;
}

/* "a, b, c" of the distinct node names, at most len bytes. */
static void node_list(const struct rp_rank_info *ranks, size_t nranks, char *out, size_t len)
{
	size_t used = 0;
	out[0] = '\0';
	for (size_t r = 0; r < nranks; r++) {
		bool seen = false;
		for (size_t q = 0; q < r && !seen; q++)
			seen = !strcmp(ranks[q].node, ranks[r].node);
		if (!seen && used + strlen(ranks[r].node) + 3 < len)
			used += (size_t)snprintf(out + used, len - used, "%s%s", used ? ", " : "", ranks[r].node);
	}
}

int rp_cluster_bind(const struct rp_profile *p, const struct rp_rank_info *ranks, size_t nranks, int *host_rank,
		    char *err, size_t errlen)
{
	char nodes[256];
	for (size_t h = 0; h < p->nhosts; h++) {
		const struct rp_host *H = &p->hosts[h];
		if (H->rank >= 0) {
			host_rank[h] = H->rank;
		} else if (H->node[0]) {
			int k = 0; /* this host is the k-th of the profile to name its node (a host's NICs: one) */
			for (size_t g = 0; g < h; g++)
				k += p->hosts[g].nic == 0 && p->hosts[g].server != H->server && !strcmp(p->hosts[g].node, H->node);
			host_rank[h] = kth_on_node(ranks, nranks, H->node, k);
			if (host_rank[h] < 0) {
				int have = ranks_on_node(ranks, nranks, H->node);
				node_list(ranks, nranks, nodes, sizeof(nodes));
				if (have == 0)
					snprintf(err, errlen, "host '%s': no rank runs on node '%s' (ranks run on: %s)", H->name,
						 H->node, nodes);
				else
					snprintf(err, errlen,
						 "host '%s': node '%s' runs %d rank%s but the profile puts %d or more hosts on it; "
						 "start one rank per host there",
						 H->name, H->node, have, have == 1 ? "" : "s", k + 1);
				return -1;
			}
		} else {
			host_rank[h] = (int)H->server; /* host i (all its NICs) on rank i */
		}
		if ((size_t)host_rank[h] >= nranks) {
			snprintf(err, errlen,
				 "host '%s' (hosts[%zu]) runs on rank %d, but %zu rank%s started; start %d or more "
				 "(mpirun -np, srun -n), or place it with rank: or node:",
				 H->name, (size_t)H->server, host_rank[h], nranks, nranks == 1 ? " was" : "s were", host_rank[h] + 1);
			return -1;
		}
	}
	for (size_t r = 0; r < nranks; r++) {
		bool any = false;
		for (size_t h = 0; h < p->nhosts && !any; h++)
			any = host_rank[h] == (int)r;
		if (!any) {
			snprintf(err, errlen,
				 "rank %zu (node %s) runs no host of the profile's %zu; start as many ranks as it places "
				 "hosts, or give that rank one with rank: or node:",
				 r, ranks[r].node, p->nhosts);
			return -1;
		}
	}
	return 0;
}

int rp_cluster_check_single(const struct rp_profile *p, const char *this_node, char *err, size_t errlen)
{
	for (size_t h = 0; h < p->nhosts; h++) {
		const struct rp_host *H = &p->hosts[h];
		if (H->rank > 0 || (H->node[0] && strcmp(H->node, this_node) != 0)) {
			char where[96];
			if (H->rank > 0)
				snprintf(where, sizeof(where), "rank %d", H->rank);
			else
				snprintf(where, sizeof(where), "node '%.64s'", H->node);
			snprintf(err, errlen,
				 "the profile runs host '%s' on %s, not in this one process: start it with mpirun or srun "
				 "(e.g. mpirun -np N roceprobe ...)",
				 H->name, where);
			return -1;
		}
	}
	return 0;
}

void rp_cluster_launch_ranks(const struct rp_rank_info *ranks, size_t n, struct rp_launch_rank *out)
{
	for (size_t r = 0; r < n; r++)
		out[r] = (struct rp_launch_rank){.node = ranks[r].node, .local_rank = ranks[r].local_rank};
}

int rp_cluster_profile_bind(const struct rp_cluster *c, const char *path, struct rp_profile_opts po,
			    struct rp_profile **p, int **host_rank, char *err, size_t errlen)
{
	struct rp_launch_rank *launch = calloc((size_t)c->size, sizeof(*launch));
	if (launch)
		rp_cluster_launch_ranks(c->ranks, (size_t)c->size, launch);
	po.nranks = launch ? (size_t)c->size : 0;
	po.ranks = launch;
	*p = rp_profile_load(path, &po, err, errlen);
	free(launch);
	*host_rank = NULL;
	if (!*p)
		return -1;
	if (!(*host_rank = calloc((*p)->nhosts, sizeof(int)))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (!c->launched) /* one process runs every host */
		return rp_cluster_check_single(*p, c->ranks[0].node, err, errlen);
	return rp_cluster_bind(*p, c->ranks, (size_t)c->size, *host_rank, err, errlen);
}
