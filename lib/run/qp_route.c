/* Where a QP record goes (qp_route.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qp_route.h"

/* Record i is this rank's to send: its host is here, its peer's is not. */
static int dest(const struct rp_qp_route *q, size_t i)
{
	int mine = q->host_rank[q->host[i]], peer = q->host_rank[q->host[i ^ 1]];
	return mine == q->rank && peer != q->rank ? peer : -1;
}

int rp_qp_route_pack(const struct rp_qp_route *q, const char *table, uint8_t **out, size_t *lens)
{
	const size_t one = rp_qp_route_entry(q);
	size_t nsend = 0;
	memset(lens, 0, q->size * sizeof(*lens));
	for (size_t i = 0; i < q->nrecs; i++) {
		int k = dest(q, i);
		if (k >= 0) {
			lens[k] += one;
			nsend++;
		}
	}
	size_t *at = calloc(q->size ? q->size : 1, sizeof(*at));
	uint8_t *o = calloc(nsend ? nsend : 1, one);
	if (!at || !o) {
		free(at);
		free(o);
		memset(lens, 0, q->size * sizeof(*lens));
		return -1;
	}
	for (size_t k = 1; k < q->size; k++)
		at[k] = at[k - 1] + lens[k - 1];
	for (size_t i = 0; i < q->nrecs; i++) {
		int k = dest(q, i);
		if (k < 0)
			continue;
		uint32_t idx = (uint32_t)i;
		memcpy(o + at[k], &idx, 4);
		memcpy(o + at[k] + 4, table + i * q->reclen, q->reclen);
		at[k] += one;
	}
	free(at);
	*out = o;
	return 0;
}

int rp_qp_route_unpack(const struct rp_qp_route *q, char *table, const uint8_t *in, size_t total, char *err,
		       size_t errlen)
{
	const size_t one = rp_qp_route_entry(q);
	if (total % one) {
		snprintf(err, errlen, "QP records of %zu bytes, not a whole number of %zu-byte entries", total, one);
		return -1;
	}
	for (size_t o = 0; o + one <= total; o += one) {
		uint32_t idx;
		memcpy(&idx, in + o, 4);
		if (idx >= q->nrecs || q->host_rank[q->host[idx ^ 1]] != q->rank) {
			snprintf(err, errlen, "a QP record for entry %u that is not this rank's to read", idx);
			return -1;
		}
		memcpy(table + (size_t)idx * q->reclen, in + o + 4, q->reclen);
	}
	return 0;
}
