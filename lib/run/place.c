/* Hosts on ranks: the profile every rank loads (rank 0's text, broadcast)
 * and which of its hosts each rank runs (lib/cluster's binding rules). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

/* Rank 0's file, as text on every rank (*text malloc'd). */
static int share_text(struct rp_run *r, const char *path, char **text)
{
	uint64_t len = 0;
	FILE *f = r->cl.rank == 0 ? fopen(path, "r") : NULL;
	char *t = NULL;
	if (f) {
		fseek(f, 0, SEEK_END);
		long n = ftell(f);
		rewind(f);
		t = n >= 0 ? malloc((size_t)n + 1) : NULL;
		len = t && fread(t, 1, (size_t)n, f) == (size_t)n ? (uint64_t)n : UINT64_MAX;
		fclose(f);
	} else if (r->cl.rank == 0) {
		len = UINT64_MAX;
	}
	if (rp_cluster_bcast(&r->cl, &len, sizeof(len), 0) != 0 || len == UINT64_MAX) {
		free(t);
		return rp_run_fail(r, "cannot read %s on rank 0 (node %s): %s", path, r->cl.ranks[0].node, strerror(errno));
	}
	if (r->cl.rank != 0 && !(t = malloc(len + 1)))
		return rp_run_fail(r, "out of memory");
	rp_cluster_bcast(&r->cl, t, len, 0);
	t[len] = '\0';
	*text = t;
	return 0;
}

int rp_run_bind(struct rp_run *r, const char *path, const char *text, const struct rp_profile_opts *opts)
{
	char err[RP_PROFILE_ERR_LEN];
	r->launch = calloc((size_t)r->cl.size, sizeof(*r->launch));
	if (!r->launch)
		return rp_run_fail(r, "out of memory");
	rp_cluster_launch_ranks(r->cl.ranks, (size_t)r->cl.size, r->launch);
	struct rp_profile_opts po = *opts;
	po.nranks = (size_t)r->cl.size;
	po.ranks = r->launch;
	struct rp_profile *p = text ? rp_profile_load_string(path, text, &po, err, sizeof(err))
				    : rp_profile_load(path, &po, err, sizeof(err));
	if (!p)
		return rp_run_fail(r, "%s", err);
	r->mine = calloc(p->nhosts, sizeof(*r->mine));
	r->host_rank = calloc(p->nhosts, sizeof(*r->host_rank));
	int rc = r->mine && r->host_rank ? 0 : rp_run_fail(r, "out of memory");
	if (rc == 0 && !r->cl.launched && rp_cluster_check_single(p, r->cl.ranks[0].node, err, sizeof(err)))
		rc = rp_run_fail(r, "%s", err);
	if (rc == 0 && r->cl.launched && rp_cluster_bind(p, r->cl.ranks, (size_t)r->cl.size, r->host_rank, err, sizeof(err)))
		rc = rp_run_fail(r, "%s", err);
	for (size_t h = 0; rc == 0 && h < p->nhosts; h++)
		r->mine[h] = r->host_rank[h] == r->cl.rank;
	rp_profile_free(p);
	return rc;
}

int rp_run_place(struct rp_run *r, const char *path, const struct rp_profile_opts *po, char **text)
{
	*text = NULL;
	int rc = r->cl.launched ? share_text(r, path, text) : 0;
	return rc ? rc : rp_run_bind(r, path, *text, po);
}
