/* Packet memory: a preallocated pool of 64-byte cells chained per frame, as
 * switch buffers are built. Sized once from the buffer size, so storing a
 * frame never allocates; a frame of len bytes takes ceil(len / 64) cells. */
#ifndef RP_FABRIC_CELLS_H
#define RP_FABRIC_CELLS_H

#include <stddef.h>
#include <stdint.h>

#define RP_CELL_BYTES 64u
#define RP_CELL_NONE UINT32_MAX

struct rp_cells {
	uint8_t *data;
	uint32_t *next;
	uint32_t n;
	uint32_t free_head;
	uint32_t nfree;
};

/* Cells enough for any mix of frames of at least min_frame bytes whose
 * lengths sum to at most bytes: each frame wastes under one cell. */
uint32_t rp_cells_needed(uint64_t bytes, uint32_t min_frame);
int rp_cells_init(struct rp_cells *c, uint32_t n);
void rp_cells_fini(struct rp_cells *c);
/* Copies len bytes in; returns the first cell, or RP_CELL_NONE when full. */
uint32_t rp_cells_store(struct rp_cells *c, const uint8_t *src, size_t len);
void rp_cells_load(const struct rp_cells *c, uint32_t first, uint8_t *dst, size_t len);
void rp_cells_release(struct rp_cells *c, uint32_t first, size_t len);

#endif
