/* Packet memory: a pool of 64-byte cells chained per frame, as switch
 * buffers are built; a frame of len bytes takes ceil(len / 64) cells. Its
 * size limit is set once from the buffer size; the memory behind it grows
 * (doubling, from RP_CELLS_FIRST) only when the buffer holds more than it
 * ever did, so a fabric of many idle switches stays small and a busy one
 * stops allocating once its high-water mark is reached. */
#ifndef RP_FABRIC_CELLS_H
#define RP_FABRIC_CELLS_H

#include <stddef.h>
#include <stdint.h>

#define RP_CELL_BYTES 64u
#define RP_CELL_NONE UINT32_MAX

#define RP_CELLS_FIRST 2048u /* 128 KiB of cells to start with */

struct rp_cells {
	uint8_t *data;
	uint32_t *next;
	uint32_t n;   /* cells allocated */
	uint32_t max; /* the most it may grow to */
	uint32_t free_head;
	uint32_t nfree;
};

/* Cells enough for any mix of frames of at least min_frame bytes whose
 * lengths sum to at most bytes: each frame wastes under one cell. */
uint32_t rp_cells_needed(uint64_t bytes, uint32_t min_frame);
int rp_cells_init(struct rp_cells *c, uint32_t n);
void rp_cells_fini(struct rp_cells *c);
/* Copies len bytes in; returns the first cell, or RP_CELL_NONE when full
 * (max cells in use, or memory short). */
uint32_t rp_cells_store(struct rp_cells *c, const uint8_t *src, size_t len);
void rp_cells_load(const struct rp_cells *c, uint32_t first, uint8_t *dst, size_t len);
void rp_cells_release(struct rp_cells *c, uint32_t first, size_t len);

#endif
