/* Where a QP record goes (pure: no MPI, no rdma-core). The exchange table has
 * a record per end of each QP of the plan's verbs flows: record i is filled
 * by the rank of its host, host[i], and read by the rank of its peer's,
 * host[i ^ 1] (a QP's sender's record at an even index, its receiver's at
 * the odd one after it). A rank sends, rank after rank, (u32 index, record)
 * for each record it fills that another rank reads: 2 records per QP it has
 * an end of, not the whole table (1024 hosts all-to-all: 2046 of 2,095,104
 * records, 200 KB instead of an allgather of 200 MB x 1024). */
#ifndef RP_RUN_QP_ROUTE_H
#define RP_RUN_QP_ROUTE_H

#include <stddef.h>
#include <stdint.h>

struct rp_qp_route {
	const unsigned *host; /* [nrecs]: the host of each record */
	const int *host_rank; /* [nhosts]: the rank of each host */
	size_t nrecs;
	size_t reclen;        /* bytes per record in the table */
	int rank;             /* this rank */
	size_t size;          /* ranks */
};

/* Bytes of one entry on the wire: u32 index, then the record. */
static inline size_t rp_qp_route_entry(const struct rp_qp_route *q) { return 4 + q->reclen; }
/* What this rank sends: lens[k] (size entries) bytes for rank k, one after
 * the other in *out (malloc'd, never NULL on success). 0, or -1 out of memory. */
int rp_qp_route_pack(const struct rp_qp_route *q, const char *table, uint8_t **out, size_t *lens);
/* What the ranks sent this one (total bytes) into table. 0, or -1 with one
 * line in err: an entry this rank does not read (a record for entry N that is
 * not this rank's to read), or a partial entry. */
int rp_qp_route_unpack(const struct rp_qp_route *q, char *table, const uint8_t *in, size_t total, char *err,
		       size_t errlen);

#endif
