#include "fdb.h"

#include <stdlib.h>
#include <string.h>

#define USED (1ull << 48)

static uint64_t mac_key(const uint8_t mac[6])
{
	uint64_t k = 0;
	for (int i = 0; i < 6; i++)
		k = k << 8 | mac[i];
	return k | USED;
}

/* Fibonacci hashing spreads the sequential MACs labs hand out. */
static uint32_t slot_of(const struct rp_fdb *f, uint64_t key)
{
	return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (f->cap - 1);
}

int rp_fdb_init(struct rp_fdb *f, uint32_t max_entries)
{
	memset(f, 0, sizeof(*f));
	f->cap = 4;
	while (f->cap < 2ull * max_entries)
		f->cap <<= 1;
	f->max = max_entries;
	f->key = calloc(f->cap, sizeof(*f->key));
	f->port = calloc(f->cap, sizeof(*f->port));
	if (!f->key || !f->port) {
		rp_fdb_fini(f);
		return -1;
	}
	return 0;
}

void rp_fdb_fini(struct rp_fdb *f)
{
	free(f->key);
	free(f->port);
	memset(f, 0, sizeof(*f));
}

/* The slot holding key, or the empty slot where it would go. */
static uint32_t probe(const struct rp_fdb *f, uint64_t key)
{
	uint32_t i = slot_of(f, key);
	while (f->key[i] && f->key[i] != key)
		i = (i + 1) & (f->cap - 1);
	return i;
}

int rp_fdb_add(struct rp_fdb *f, const uint8_t mac[6], uint16_t port)
{
	uint64_t key = mac_key(mac);
	uint32_t i;

	if (!f->cap)
		return -1;
	i = probe(f, key);
	if (!f->key[i]) {
		if (f->used >= f->max)
			return -1;
		f->key[i] = key;
		f->used++;
	}
	f->port[i] = port;
	return 0;
}

int rp_fdb_lookup(const struct rp_fdb *f, const uint8_t mac[6])
{
	uint32_t i;

	if (!f->cap)
		return -1;
	i = probe(f, mac_key(mac));
	return f->key[i] ? f->port[i] : -1;
}
