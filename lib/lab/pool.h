/* Frames in flight on the lab's wires: fixed-size slots in chunks (a slot's
 * address never moves), handed out from a free list. Grows when a run needs
 * more; never shrinks until destroyed. Each slot remembers which of its
 * bytes are known to be zero ([zero[0], zero[1]): all of a new one), so the
 * packet source need not write a large frame's zero payload again into a
 * slot that holds it already; whoever writes into a slot otherwise says so
 * (rp_pool_wrote). */
#ifndef RP_LAB_POOL_H
#define RP_LAB_POOL_H

#include <stddef.h>
#include <stdint.h>

#define RP_POOL_CHUNK 256u
#define RP_POOL_NONE UINT32_MAX

struct rp_pool {
	size_t slot_size;
	uint8_t **chunk;
	size_t nchunks;
	uint32_t *free;   /* stack of free slot ids */
	size_t nfree, free_cap;
	uint16_t *len;    /* [slot] frame length */
	uint16_t (*zero)[2]; /* [slot] bytes [zero[0], zero[1]) are zero */
	uint32_t *flow;   /* [slot] the accountant flow whose data frame it holds, or RP_POOL_NONE */
	uint64_t *route;  /* [slot] where its frame goes, found once for every hop (route.c); 0: not yet */
	size_t in_use, peak;
};

int rp_pool_init(struct rp_pool *p, size_t slot_size);
void rp_pool_free(struct rp_pool *p);
/* Another chunk of slots; 0, or -1 when memory runs out. */
int rp_pool_grow(struct rp_pool *p);
/* A slot id, or RP_POOL_NONE when memory runs out. */
static inline uint32_t rp_pool_get(struct rp_pool *p)
{
	if (!p->nfree && rp_pool_grow(p))
		return RP_POOL_NONE;
	p->in_use++;
	if (p->in_use > p->peak)
		p->peak = p->in_use;
	uint32_t slot = p->free[--p->nfree];
	p->flow[slot] = RP_POOL_NONE;
	p->route[slot] = 0;
	return slot;
}
static inline void rp_pool_put(struct rp_pool *p, uint32_t slot)
{
	p->free[p->nfree++] = slot;
	p->in_use--;
}
static inline uint8_t *rp_pool_buf(const struct rp_pool *p, uint32_t slot)
{
	return p->chunk[slot / RP_POOL_CHUNK] + (size_t)(slot % RP_POOL_CHUNK) * p->slot_size;
}

/* Bytes [from, to) of slot were written: they are no longer known zero. */
static inline void rp_pool_wrote(struct rp_pool *p, uint32_t slot, size_t from, size_t to)
{
	uint16_t *z = p->zero[slot];
	if (to <= z[0] || from >= z[1])
		return;
	if (from <= z[0])
		z[0] = to < z[1] ? (uint16_t)to : z[1];
	else
		z[1] = (uint16_t)from;
}

#endif
