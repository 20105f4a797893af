/* The QP records over the cluster's alltoallv, each only to the rank that
 * reads it (qp_route.h), then this rank's QPs to RTS toward their peers.
 * Every rank of a plan with verbs flows takes part, verbs hosts or not.
 * Built with rdma-core only (the layout and the records are lib/verbs'). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qp_route.h"
#include "run.h"
#include "verbs/device.h"
#include "verbs/engine.h"

/* Every record entry's host, in one pass over the layout: flow i's entries
 * run from base[i] to the next verbs flow's base, its sender's at even
 * offsets (QP q: base + 2q) and its receiver's at odd ones. */
static unsigned *rec_hosts(const struct rp_plan *plan, size_t nrecs)
{
	size_t *base = calloc(plan->nflows ? plan->nflows : 1, sizeof(*base));
	unsigned *host = calloc(nrecs ? nrecs : 1, sizeof(*host));
	if (!base || !host) {
		free(base);
		free(host);
		return NULL;
	}
	rp_vengine_layout(plan, base);
	size_t prev = SIZE_MAX; /* the verbs flow before i: its entries end where i's begin */
	for (size_t i = 0; i <= plan->nflows; i++) {
		if (i < plan->nflows && base[i] == SIZE_MAX)
			continue;
		size_t end = i < plan->nflows ? base[i] : nrecs;
		for (size_t e = prev != SIZE_MAX ? base[prev] : end; e < end && e < nrecs; e++)
			host[e] = (e - base[prev]) % 2 ? plan->flows[prev].dst : plan->flows[prev].src;
		prev = i;
	}
	free(base);
	return host;
}

int rp_run_exchange(struct rp_run *r)
{
	size_t size = (size_t)r->cl.size, *lens = calloc(size, sizeof(*lens)), *rlens = NULL;
	char *table = calloc(r->nrecs ? r->nrecs : 1, RP_VENGINE_REC), err[RP_ERR_LEN + 128];
	if (!lens) { /* the exchange below needs a count for every rank */
		fprintf(stderr, "roceprobe run: out of memory for %zu ranks' QP records\n", size);
		rp_cluster_abort(&r->cl, RP_RUN_USAGE);
	}
	unsigned *host = rec_hosts(&r->s.plan, r->nrecs);
	int rc = table && host ? 0 : rp_run_fail(r, "out of memory for %zu QP records", r->nrecs);
	if (table && r->ve)
		rp_vengine_records(r->ve, table);
	const struct rp_qp_route q = {.host = host, .host_rank = r->host_rank, .nrecs = r->nrecs,
				      .reclen = RP_VENGINE_REC, .rank = r->cl.rank, .size = size};
	uint8_t *out = NULL, *in = NULL;
	if (rc == 0 && r->cl.launched && rp_qp_route_pack(&q, table, &out, lens) != 0)
		rc = rp_run_fail(r, "out of memory for the QP records this rank sends");
	/* A rank with nothing to say (out of memory, or one process) still says it. */
	if (rp_cluster_alltoallv(&r->cl, out ? out : (const uint8_t *)"", lens, &in, &rlens) != 0 && rc == 0)
		rc = rp_run_fail(r, "the ranks could not exchange their QP records");
	size_t total = 0;
	for (size_t k = 0; rc == 0 && k < size; k++)
		total += rlens[k];
	if (rc == 0 && rp_qp_route_unpack(&q, table, in, total, err, sizeof(err)) != 0)
		rc = rp_run_fail(r, "%s", err);
	if (rc == 0 && r->ve && rp_vengine_connect(r->ve, table, err, sizeof(err)) != 0)
		rc = rp_run_fail(r, "%s", err);
	free(out);
	free(in);
	free(rlens);
	free(lens);
	free(host);
	free(table);
	return rc;
}
