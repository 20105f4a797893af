/* Shipping each rank's partial result to rank 0 (cluster.h), over the
 * collectives; the sender's side is lib/stats/acct_pack.h's, the packing and
 * the merge rules lib/report/acct_merge.h's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_internal.h"
#include "report/acct_merge.h"
#include "report/rank_env.h"
#include "stats/acct_pack.h"

#define TX_REC (4 + 8 * RP_ACCT_TX_FIELDS) /* u32 flow id, its sender-side values */
#define RP_SHIP_ROUND_RANKS 64 /* ranks whose results rank 0 gathers at once */

static void put_u64s(uint8_t *o, const uint64_t *v, size_t n)
{
	memcpy(o, v, n * sizeof(*v)); /* ranks of one build: host order both ends */
}

/* Each flow's sender-side values to its receiver's rank only (alltoallv), summed
 * there with its own: what the plan-wide allreduce gives that rank, in bytes
 * per flow this rank holds instead of per flow of the plan. */
static int finish_targeted(const struct rp_cluster *c, struct rp_acct *a, const int *dst_rank)
{
	size_t n = rp_acct_nflows(a), size = (size_t)c->size, nout = 0;
	size_t *lens = calloc(size, sizeof(*lens)), *at = calloc(size, sizeof(*at)), *rlens = NULL;
	uint64_t *sum = calloc(n ? n : 1, sizeof(uint64_t) * RP_ACCT_TX_FIELDS);
	if (!lens || !at || !sum) {
		fprintf(stderr, "roceprobe: rank %d is out of memory for %zu flows' counts\n", c->rank, n);
		rp_cluster_abort(c, 2);
	}
	for (size_t i = 0; i < n; i++)
		if (dst_rank[i] != c->rank) {
			lens[dst_rank[i]] += TX_REC;
			nout++;
		}
	for (size_t k = 1; k < size; k++)
		at[k] = at[k - 1] + lens[k - 1];
	uint8_t *out = malloc(nout ? nout * TX_REC : 1), *in = NULL;
	int rc = out ? 0 : -1;
	if (!out)
		memset(lens, 0, size * sizeof(*lens));
	for (size_t i = 0; i < n; i++) {
		uint64_t *v = &sum[i * RP_ACCT_TX_FIELDS];
		rp_acct_tx_row(a, i, v);
		if (dst_rank[i] == c->rank || !out)
			continue;
		uint8_t *o = out + at[dst_rank[i]];
		at[dst_rank[i]] += TX_REC;
		uint32_t id = rp_acct_flow_id(a, i);
		memcpy(o, &id, 4);
		put_u64s(o + 4, v, RP_ACCT_TX_FIELDS);
	}
	if (rp_cluster_alltoallv(c, out ? out : (const uint8_t *)"", lens, &in, &rlens) != 0)
		rc = -1;
	size_t total = 0;
	for (size_t k = 0; rc == 0 && k < size; k++)
		total += rlens[k];
	for (size_t o = 0; rc == 0 && o + TX_REC <= total; o += TX_REC) {
		uint32_t id;
		uint64_t v[RP_ACCT_TX_FIELDS];
		memcpy(&id, in + o, 4);
		memcpy(v, in + o + 4, sizeof(v));
		long i = rp_acct_flow_index(a, id);
		if (i < 0 || dst_rank[i] != c->rank) { /* sent here by mistake: not this rank's flow */
			rc = -1;
			continue;
		}
		rp_acct_tx_combine(&sum[(size_t)i * RP_ACCT_TX_FIELDS], v, RP_ACCT_TX_FIELDS);
	}
	for (size_t i = 0; i < n; i++) /* the flows this rank receives: every rank's part */
		if (dst_rank[i] == c->rank)
			rp_acct_tx_set_row(a, i, &sum[i * RP_ACCT_TX_FIELDS]);
	free(out), free(in), free(rlens), free(lens), free(at), free(sum);
	return rc;
}

int rp_cluster_acct_finish(const struct rp_cluster *c, struct rp_acct *a, size_t nflows, const int *dst_rank,
			   uint64_t end_ns, uint64_t *end)
{
	if (dst_rank && c->launched && !rp_cluster_degraded(c)) {
		int rc = finish_targeted(c, a, dst_rank);
		*end = end_ns;
		if (rp_cluster_max_u64(c, end, 1) != 0)
			rc = -1;
		rp_acct_finish(a, *end, NULL);
		return rc;
	}
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

/* Ranks [first, first + n) ship in this round; the others send nothing. On
 * rank 0 the round's buffers go into merged (its first bad one into err). */
static int merge_round(const struct rp_cluster *c, const uint8_t *buf, size_t len, int first, int n,
		       struct rp_acct *merged, bool *empty_ok, int *rc0, char *err, size_t errlen)
{
	bool mine = c->rank >= first && c->rank < first + n;
	uint8_t *all = NULL;
	size_t *lens = NULL;
	if (rp_cluster_gather(c, mine ? buf : (const uint8_t *)"", mine ? len : 0, &all, &lens) != 0)
		return -1;
	for (int r = 0; c->rank == 0 && empty_ok && r < c->size; r++) /* a rank that died mid-run: nothing from it */
		empty_ok[r] = r < first || r >= first + n || rp_cluster_rank_lost(c, r);
	char why[400];
	size_t bad = 0;
	if (c->rank == 0 && *rc0 == 0 &&
	    rp_acct_merge_block(rp_acct_merged(merged), all, lens, (size_t)c->size, empty_ok, &bad, why, sizeof(why))) {
		snprintf(err, errlen, "rank %zu (node %s): %s", bad, c->ranks[bad].node, why);
		*rc0 = -1;
	}
	free(all);
	free(lens);
	return 0;
}

int rp_cluster_acct_merge(const struct rp_cluster *c, const struct rp_acct *a, const bool *own_flow,
			  const bool *own_port, struct rp_acct *merged, char *err, size_t errlen)
{
	const struct rp_acct_result *res = rp_acct_result(a);
	size_t len = rp_acct_pack(res, own_flow, own_port, NULL, 0);
	uint8_t *buf = malloc(len ? len : 1);
	if (!buf || rp_acct_pack(res, own_flow, own_port, buf, len) != len)
		len = 0; /* ships nothing: rank 0 says which rank */
	bool *empty_ok = c->rank == 0 ? calloc((size_t)c->size, sizeof(*empty_ok)) : NULL;
	int rc = 0, rc0 = 0;
	if (c->rank == 0 && !empty_ok) { /* rank 0 still takes part in every round */
		snprintf(err, errlen, "rank 0 is out of memory for %d ranks' results", c->size);
		rc0 = -1;
	}
	/* Rounds of RP_SHIP_ROUND_RANKS ranks: rank 0 holds one round's buffers at
	 * a time (41 MB at 1024 hosts all-to-all, not 661 MB), and each gather
	 * stays below MPI's 2 GB of int displacements. ROCEPROBE_SHIP_ROUND_RANKS
	 * (the same on every rank) makes rounds smaller, for tests on few ranks. */
	const char *env = getenv("ROCEPROBE_SHIP_ROUND_RANKS");
	int per = env && atoi(env) > 0 ? atoi(env) : RP_SHIP_ROUND_RANKS;
	for (int first = 0; rc == 0 && first < c->size; first += per) {
		int n = c->size - first < per ? c->size - first : per;
		if (merge_round(c, buf, len, first, n, merged, empty_ok, &rc0, err, errlen) != 0) {
			snprintf(err, errlen, "the ranks' results could not be gathered on rank 0");
			rc = -1;
		}
	}
	if (c->rank == 0 && rc == 0 && rc0 == 0)
		rp_acct_merge_done(rp_acct_merged(merged));
	free(buf);
	free(empty_ok);
	return rc ? rc : c->rank == 0 ? rc0 : 0;
}

int rp_cluster_rank_envs(const struct rp_cluster *c, const struct rp_rank_env *mine, struct rp_rank_env **all,
			 char *err, size_t errlen)
{
	size_t len = mine->present ? rp_rank_env_pack(mine, NULL, 0) : 0;
	uint8_t *buf = len ? malloc(len) : NULL, *got = NULL;
	size_t *lens = NULL;
	if (!buf || rp_rank_env_pack(mine, buf, len) != len)
		len = 0; /* ships nothing: rank 0 says which rank */
	*all = NULL;
	int rc = rp_cluster_gather(c, buf ? buf : (const uint8_t *)"", len, &got, &lens);
	free(buf);
	if (rc != 0) {
		snprintf(err, errlen, "the ranks' environments could not be gathered on rank 0");
		return -1;
	}
	if (c->rank != 0)
		return 0;
	struct rp_rank_env *e = calloc((size_t)c->size, sizeof(*e));
	size_t off = 0;
	if (!e) {
		snprintf(err, errlen, "rank 0 is out of memory for %d ranks' environments", c->size);
		rc = -1;
	}
	for (int k = 0; e && k < c->size; k++) {
		char why[400];
		bool lost = rp_cluster_rank_lost(c, k);
		if (!lens[k] && !lost && rc == 0) {
			snprintf(err, errlen, "rank %d (node %s) sent no environment record (out of memory?)", k,
				 c->ranks[k].node);
			rc = -1;
		} else if (lens[k] && rp_rank_env_unpack(&e[k], got + off, lens[k], why, sizeof(why)) != 0 && rc == 0) {
			snprintf(err, errlen, "rank %d (node %s): %s", k, c->ranks[k].node, why);
			rc = -1;
		}
		off += lens[k];
	}
	free(got);
	free(lens);
	*all = e;
	return rc;
}

void rp_cluster_rank_envs_free(const struct rp_cluster *c, struct rp_rank_env *all)
{
	for (int r = 0; all && r < c->size; r++)
		rp_rank_env_free(&all[r]);
	free(all);
}
