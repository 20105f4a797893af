/* Shipping each rank's partial result to rank 0 (cluster.h), over the
 * collectives; the packing and the merge rules are lib/stats/acct_pack.h's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_internal.h"
#include "stats/acct_pack.h"

int rp_cluster_acct_finish(const struct rp_cluster *c, struct rp_acct *a, size_t nflows, uint64_t end_ns,
			   uint64_t *end)
{
	size_t n = nflows * RP_ACCT_TX_FIELDS;
	uint64_t *tx = calloc(n ? n : 1, sizeof(*tx));
	int rc = tx ? 0 : -1;
	if (tx)
		rp_acct_tx_export(a, tx, nflows);
	/* Every rank takes part in both reductions, whatever happened before. */
	if (rp_cluster_sum_u64(c, tx ? tx : &end_ns, tx ? n : 0) != 0)
		rc = -1;
	*end = end_ns;
	if (rp_cluster_max_u64(c, end, 1) != 0)
		rc = -1;
	if (tx)
		rp_acct_tx_import(a, tx, nflows);
	rp_acct_finish(a, *end, NULL);
	free(tx);
	return rc;
}

int rp_cluster_acct_merge(const struct rp_cluster *c, const struct rp_acct *a, const bool *own_flow,
			  const bool *own_port, struct rp_acct *merged, char *err, size_t errlen)
{
	size_t len = rp_acct_pack(a, own_flow, own_port, NULL, 0);
	uint8_t *buf = malloc(len ? len : 1), *all = NULL;
	size_t *lens = NULL;
	if (!buf || rp_acct_pack(a, own_flow, own_port, buf, len) != len)
		len = 0; /* ships nothing: rank 0 says which rank */
	int rc = rp_cluster_gather(c, buf, len, &all, &lens);
	free(buf);
	if (rc != 0) {
		snprintf(err, errlen, "the ranks' results could not be gathered on rank 0");
		return -1;
	}
	size_t off = 0;
	for (int r = 0; c->rank == 0 && rc == 0 && r < c->size; r++) {
		char why[400];
		if (lens[r] == 0 && rp_cluster_rank_lost(c, r)) {
			continue; /* died mid-run: nothing from it */
		} else if (lens[r] == 0) {
			snprintf(err, errlen, "rank %d (node %s) sent no result (out of memory?)", r, c->ranks[r].node);
			rc = -1;
		} else if (rp_acct_unpack_into(merged, all + off, lens[r], why, sizeof(why)) != 0) {
			snprintf(err, errlen, "rank %d (node %s): %s", r, c->ranks[r].node, why);
			rc = -1;
		}
		off += lens[r];
	}
	if (c->rank == 0 && rc == 0)
		rp_acct_merge_done(merged);
	free(all);
	free(lens);
	return rc;
}

int rp_cluster_gather_texts(const struct rp_cluster *c, const char *mine, char ***texts)
{
	uint8_t *all = NULL;
	size_t *lens = NULL;
	*texts = NULL;
	if (rp_cluster_gather(c, mine, strlen(mine), &all, &lens) != 0)
		return -1;
	if (c->rank != 0)
		return 0;
	char **t = calloc((size_t)c->size, sizeof(*t));
	size_t off = 0;
	for (int r = 0; t && r < c->size; r++) {
		if ((t[r] = malloc(lens[r] + 1)) != NULL) {
			memcpy(t[r], all + off, lens[r]);
			t[r][lens[r]] = '\0';
		}
		off += lens[r];
	}
	free(all);
	free(lens);
	*texts = t;
	return t ? 0 : -1;
}

void rp_cluster_texts_free(const struct rp_cluster *c, char **texts)
{
	for (int r = 0; texts && r < c->size; r++)
		free(texts[r]);
	free(texts);
}
