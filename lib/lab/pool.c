#include "pool.h"

#include <stdlib.h>
#include <string.h>

int rp_pool_init(struct rp_pool *p, size_t slot_size)
{
	memset(p, 0, sizeof(*p));
	p->slot_size = (slot_size + 63) & ~(size_t)63;
	return 0;
}

void rp_pool_free(struct rp_pool *p)
{
	for (size_t i = 0; i < p->nchunks; i++)
		free(p->chunk[i]);
	free(p->chunk);
	free(p->free);
	free(p->len);
	free(p->zero);
	free(p->flow);
	free(p->route);
	memset(p, 0, sizeof(*p));
}

int rp_pool_grow(struct rp_pool *p)
{
	size_t n = p->nchunks + 1, slots = n * RP_POOL_CHUNK;
	uint8_t **chunk = realloc(p->chunk, n * sizeof(*chunk));
	if (!chunk)
		return -1;
	p->chunk = chunk;
	uint16_t *len = realloc(p->len, slots * sizeof(*len));
	if (!len)
		return -1;
	p->len = len;
	uint16_t(*zero)[2] = realloc(p->zero, slots * sizeof(*zero));
	if (!zero)
		return -1;
	p->zero = zero;
	uint32_t *flow = realloc(p->flow, slots * sizeof(*flow));
	if (!flow)
		return -1;
	p->flow = flow;
	uint64_t *route = realloc(p->route, slots * sizeof(*route));
	if (!route)
		return -1;
	p->route = route;
	uint32_t *fr = realloc(p->free, slots * sizeof(*fr));
	if (!fr)
		return -1;
	p->free = fr;
	p->free_cap = slots;
	/* calloc: fresh (mapped zero) pages, every byte known zero. */
	if (!(p->chunk[p->nchunks] = calloc(RP_POOL_CHUNK, p->slot_size)))
		return -1;
	uint16_t top = p->slot_size > UINT16_MAX ? UINT16_MAX : (uint16_t)p->slot_size;
	for (size_t i = p->nchunks * RP_POOL_CHUNK; i < slots; i++) {
		p->zero[i][0] = 0;
		p->zero[i][1] = top;
	}
	/* Lowest ids on top: the order slots are used in does not depend on addresses. */
	for (uint32_t i = RP_POOL_CHUNK; i-- > 0;)
		p->free[p->nfree++] = (uint32_t)(p->nchunks * RP_POOL_CHUNK + i);
	p->nchunks = n;
	return 0;
}
