/* Every rank learns every host's addresses (cluster.h): what a host's own
 * rank filled at start (its port's MAC for `mac: auto`, its netdev's address
 * for `ipv4/ipv6: netdev`), as fixed records (profile.h) over one allgather. */
#include <stdio.h>
#include <stdlib.h>

#include "cluster_internal.h"

int rp_cluster_host_addrs(const struct rp_cluster *c, struct rp_profile *p, const int *host_rank, char *err,
			  size_t errlen)
{
	size_t n = p->nhosts, rec = sizeof(struct rp_host_rec);
	struct rp_host_rec *mine = calloc(n, rec), *all = calloc(n * (size_t)c->size, rec);
	if (!mine || !all) { /* the others wait in the allgather: stop them all */
		fprintf(stderr, "roceprobe: rank %d: out of memory for the hosts' addresses\n", c->rank);
		rp_cluster_abort(c, 2);
	}
	for (size_t h = 0; h < n; h++)
		if (host_rank[h] == c->rank)
			rp_host_rec_export(&p->hosts[h], &mine[h]);
	int rc = rp_cluster_allgather(c, mine, n * rec, all);
	for (size_t h = 0; rc == 0 && h < n; h++)
		if (host_rank[h] != c->rank && host_rank[h] >= 0 && host_rank[h] < c->size)
			rp_host_rec_import(&p->hosts[h], &all[(size_t)host_rank[h] * n + h]);
	if (rc != 0)
		snprintf(err, errlen, "the ranks could not exchange their hosts' addresses");
	free(mine);
	free(all);
	return rc;
}
