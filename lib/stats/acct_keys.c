/* The accountant's (src IP, dst IP, DestQP, direction) -> (flow, QP) map: open
 * addressing, sized at create so a look-up never allocates. */
#include <stdlib.h>
#include <string.h>

#include "acct_internal.h"

int rp_acct_map_init(struct acct_map *m, size_t entries)
{
	size_t cap = 16;
	while (cap < entries * 2)
		cap *= 2;
	m->slot = calloc(cap, sizeof(*m->slot));
	m->cap = cap;
	m->n = 0;
	return m->slot ? 0 : -1;
}

void rp_acct_map_free(struct acct_map *m)
{
	free(m->slot);
	memset(m, 0, sizeof(*m));
}

/* FNV-1a over the key's bytes. */
static size_t key_hash(const struct acct_key *k)
{
	uint64_t h = 1469598103934665603ull;
	const uint8_t *p = (const uint8_t *)k;
	for (size_t i = 0; i < sizeof(*k); i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return (size_t)(h ^ (h >> 29));
}

const struct acct_slot *rp_acct_map_find(const struct acct_map *m, const struct acct_key *k)
{
	size_t mask = m->cap - 1;
	for (size_t i = key_hash(k) & mask, n = 0; n < m->cap; i = (i + 1) & mask, n++) {
		const struct acct_slot *s = &m->slot[i];
		if (!s->used)
			return NULL;
		if (memcmp(&s->key, k, sizeof(*k)) == 0)
			return s;
	}
	return NULL;
}

static void put_slot(struct acct_map *m, const struct acct_slot *in)
{
	size_t mask = m->cap - 1;
	size_t i = key_hash(&in->key) & mask;
	while (m->slot[i].used)
		i = (i + 1) & mask;
	m->slot[i] = *in;
	m->n++;
}

static int grow_map(struct acct_map *m)
{
	struct acct_map bigger;
	if (rp_acct_map_init(&bigger, m->cap))
		return -1;
	for (size_t i = 0; i < m->cap; i++)
		if (m->slot[i].used)
			put_slot(&bigger, &m->slot[i]);
	free(m->slot);
	*m = bigger;
	return 0;
}

int rp_acct_map_put(struct acct_map *m, const struct acct_key *k, uint32_t flow, uint16_t qp, bool grow)
{
	if (rp_acct_map_find(m, k))
		return 0; /* the first claim wins */
	if ((m->n + 1) * 2 > m->cap && (!grow || grow_map(m)))
		return -1;
	struct acct_slot s = {.key = *k, .flow = flow, .qp = qp, .used = 1};
	put_slot(m, &s);
	return 0;
}

static void v4_mapped(uint8_t out[16], uint32_t a)
{
	memset(out, 0, 10);
	out[10] = out[11] = 0xFF;
	out[12] = (uint8_t)(a >> 24);
	out[13] = (uint8_t)(a >> 16);
	out[14] = (uint8_t)(a >> 8);
	out[15] = (uint8_t)a;
}

void rp_acct_key_v4(struct acct_key *k, uint32_t src, uint32_t dst, uint32_t qpn, enum acct_dir dir)
{
	memset(k, 0, sizeof(*k));
	v4_mapped(k->src, src);
	v4_mapped(k->dst, dst);
	k->qpn = qpn & RP_QPN_MASK;
	k->dir = dir;
}

void rp_acct_key_v6(struct acct_key *k, const uint8_t src[16], const uint8_t dst[16], uint32_t qpn, enum acct_dir dir)
{
	memset(k, 0, sizeof(*k));
	memcpy(k->src, src, 16);
	memcpy(k->dst, dst, 16);
	k->qpn = qpn & RP_QPN_MASK;
	k->dir = dir;
}

void rp_acct_key_frame(struct acct_key *k, const struct rp_frame *f, enum acct_dir dir)
{
	if (f->l3 == 4)
		rp_acct_key_v4(k, f->ip4.src, f->ip4.dst, f->bth.dqpn, dir);
	else
		rp_acct_key_v6(k, f->ip6.src, f->ip6.dst, f->bth.dqpn, dir);
}
