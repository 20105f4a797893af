#include "cells.h"

#include <stdlib.h>
#include <string.h>

static uint32_t cells_for(size_t len)
{
	return (uint32_t)((len + RP_CELL_BYTES - 1) / RP_CELL_BYTES);
}

uint32_t rp_cells_needed(uint64_t bytes, uint32_t min_frame)
{
	uint64_t n = bytes / RP_CELL_BYTES + bytes / (min_frame ? min_frame : 1) + 2;
	return n > UINT32_MAX - 1 ? UINT32_MAX - 1 : (uint32_t)n;
}

/* At least `need` more free cells, the new ones ahead of the free chain. */
static int grow(struct rp_cells *c, uint32_t need)
{
	uint64_t want = (uint64_t)c->n * 2;
	if (want < RP_CELLS_FIRST)
		want = RP_CELLS_FIRST;
	if (want < (uint64_t)c->n + need)
		want = (uint64_t)c->n + need;
	if (want > c->max)
		want = c->max;
	if (want <= c->n || want - c->n < need)
		return -1;
	uint8_t *data = realloc(c->data, (size_t)want * RP_CELL_BYTES);
	if (!data)
		return -1;
	c->data = data;
	uint32_t *next = realloc(c->next, (size_t)want * sizeof(*next));
	if (!next)
		return -1;
	c->next = next;
	uint32_t n = (uint32_t)want;
	for (uint32_t i = c->n; i < n; i++)
		c->next[i] = i + 1 < n ? i + 1 : c->free_head;
	c->free_head = c->n;
	c->nfree += n - c->n;
	c->n = n;
	return 0;
}

int rp_cells_init(struct rp_cells *c, uint32_t n)
{
	memset(c, 0, sizeof(*c));
	c->max = n;
	c->free_head = RP_CELL_NONE;
	return n && grow(c, 1) ? -1 : 0;
}

void rp_cells_fini(struct rp_cells *c)
{
	free(c->data);
	free(c->next);
	memset(c, 0, sizeof(*c));
}

/* The free list is a chain too: take its first k cells as they stand, copying
 * into each on the way, and cut the chain after the last. */
uint32_t rp_cells_store(struct rp_cells *c, const uint8_t *src, size_t len)
{
	uint32_t k = cells_for(len), first = c->free_head, cur = first;

	if (k == 0 || (k > c->nfree && grow(c, k - c->nfree)))
		return RP_CELL_NONE;
	first = cur = c->free_head;
	/* Cells next to each other in the chain and in memory are copied in one
	 * piece (a fresh or orderly pool gives long runs): one copy, not 64. */
	for (uint32_t i = 0; i < k;) {
		uint32_t start = cur, run = 1;
		while (i + run < k && c->next[cur] == cur + 1) {
			cur++;
			run++;
		}
		size_t off = (size_t)i * RP_CELL_BYTES, n = (size_t)run * RP_CELL_BYTES;
		memcpy(c->data + (size_t)start * RP_CELL_BYTES, src + off, len - off < n ? len - off : n);
		i += run;
		if (i < k)
			cur = c->next[cur];
	}
	c->free_head = c->next[cur];
	c->next[cur] = RP_CELL_NONE;
	c->nfree -= k;
	return first;
}

void rp_cells_load(const struct rp_cells *c, uint32_t first, uint8_t *dst, size_t len)
{
	uint32_t cur = first;
	for (size_t off = 0; off < len && cur != RP_CELL_NONE;) {
		uint32_t start = cur;
		size_t n = RP_CELL_BYTES;
		while (off + n < len && c->next[cur] == cur + 1) { /* a run of neighbours: one copy */
			cur++;
			n += RP_CELL_BYTES;
		}
		memcpy(dst + off, c->data + (size_t)start * RP_CELL_BYTES, len - off < n ? len - off : n);
		off += n;
		cur = c->next[cur];
	}
}

void rp_cells_release(struct rp_cells *c, uint32_t first, size_t len)
{
	uint32_t k = cells_for(len), last = first;

	if (first == RP_CELL_NONE || k == 0)
		return;
	for (uint32_t i = 1; i < k; i++)
		last = c->next[last];
	c->next[last] = c->free_head;
	c->free_head = first;
	c->nfree += k;
}
