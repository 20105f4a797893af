/* The merge buffer's record (report/acct_merge.h): its field tables, shared
 * by the writer (acct_pack.c) and the reader (acct_merge.c) and no one else. */
#ifndef RP_REPORT_ACCT_REC_H
#define RP_REPORT_ACCT_REC_H

#include <stddef.h>
#include <stdint.h>

#include "stats/acct.h"
#include "stats/timeseries.h"

#define RP_ACCT_REC_FLOW_U64 35 /* the lengths of the tables below */
#define RP_ACCT_REC_PORT_U64 18
#define RP_ACCT_REC_PRIO_U64 9
/* Offsets of the u64 fields of a flow, a port and a port's priority, in the
 * order they are written (acct_pack.c defines them). */
extern const size_t RP_ACCT_FLOW_U64[RP_ACCT_REC_FLOW_U64];
extern const size_t RP_ACCT_PORT_U64[RP_ACCT_REC_PORT_U64];
extern const size_t RP_ACCT_PRIO_U64[RP_ACCT_REC_PRIO_U64];
extern const uint8_t RP_ACCT_MAGIC[4];
#define RP_ACCT_HEADER_LEN (4 + 2 * 4 + 8 * 5 + 4 * 2)

static inline uint64_t *rp_acct_u64_at(void *base, size_t off) { return (uint64_t *)((uint8_t *)base + off); }
static inline uint64_t rp_acct_u64_of(const void *base, size_t off)
{
	return *(const uint64_t *)((const uint8_t *)base + off);
}

#endif
