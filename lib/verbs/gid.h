/* Choosing the source GID of a RoCE port.
 *
 * A RoCE port's GID table holds one entry per (netdev address, RoCE version):
 * typically fe80::/64 link-local and IPv4-mapped ::ffff:a.b.c.d entries, each
 * once as "IB/RoCE v1" and once as "RoCE v2". The index that means "RoCE v2 on
 * my IPv4 address" differs between hosts and changes when addresses change, so
 * hard-coding one (perftest's -x 3) is a classic source of silent RoCE v1 runs
 * or failed connections. We scan the table and pick it ourselves.
 *
 * The choice is pure (a table in, an index out) so it is tested on fake tables;
 * device.c reads the real table via ibv_query_gid and sysfs gid_attrs/types. */
#ifndef RP_VERBS_GID_H
#define RP_VERBS_GID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum rp_gid_type {
	RP_GID_TYPE_UNKNOWN = 0,
	RP_GID_TYPE_IB_ROCE_V1, /* sysfs "IB/RoCE v1": IB, or RoCE v1 (Ethertype 0x8915) */
	RP_GID_TYPE_ROCE_V2,    /* sysfs "RoCE v2": UDP 4791 */
};

struct rp_gid_entry {
	int index;
	uint8_t gid[16];
	enum rp_gid_type type;
	char netdev[32]; /* sysfs gid_attrs/ndevs/N, "" when unknown */
};

/* sysfs type text ("RoCE v2\n", "IB/RoCE v1\n") -> type. */
enum rp_gid_type rp_gid_type_parse(const char *text);
const char *rp_gid_type_name(enum rp_gid_type t);

bool rp_gid_is_zero(const uint8_t gid[16]);
/* ::ffff:a.b.c.d */
bool rp_gid_is_ipv4_mapped(const uint8_t gid[16]);
bool rp_gid_is_link_local(const uint8_t gid[16]);
/* "::ffff:10.9.0.1", or the full IPv6 form; out needs 46 bytes. */
void rp_gid_format(const uint8_t gid[16], char *out, size_t len);

/* Picks the source GID for RoCE from table[0..n).
 *   override >= 0: that index, which must be present and non-zero (any type:
 *   the user asked for it, e.g. to test RoCE v1).
 *   otherwise: the lowest-index RoCE v2 GID that is IPv4-mapped; failing that
 *   a RoCE v2 global IPv6 GID; failing that a RoCE v2 link-local one.
 * Returns the chosen table position (not the GID index) or -1 with a one-line
 * reason in err (no RoCE v2 GID at all, override missing). */
int rp_gid_select(const struct rp_gid_entry *table, size_t n, int override, char *err, size_t errlen);
/* The same, but without an override the RoCE v2 entry whose GID is want (a
 * host's address, IPv4-mapped or IPv6) and no other; want NULL: as
 * rp_gid_select. -1 with a one-line reason when the table has none. */
int rp_gid_select_addr(const struct rp_gid_entry *table, size_t n, int override, const uint8_t want[16], char *err,
		       size_t errlen);

#endif
