/* The static forwarding table: destination MAC -> port, filled by the caller
 * (the lab knows where every host is). Open addressing, fixed size: lookups
 * never allocate. */
#ifndef RP_FABRIC_FDB_H
#define RP_FABRIC_FDB_H

#include <stdint.h>

struct rp_fdb {
	uint64_t *key;  /* MAC in the low 48 bits, bit 48 set when used */
	uint16_t *port;
	uint32_t cap;   /* power of two, at least twice the entries allowed */
	uint32_t max, used;
};

int rp_fdb_init(struct rp_fdb *f, uint32_t max_entries);
void rp_fdb_fini(struct rp_fdb *f);
int rp_fdb_add(struct rp_fdb *f, const uint8_t mac[6], uint16_t port);
int rp_fdb_lookup(const struct rp_fdb *f, const uint8_t mac[6]);

#endif
