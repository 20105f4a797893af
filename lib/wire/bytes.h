/* Big-endian (network order) loads and stores with no alignment assumption.
 * The 32- and 64-bit forms are one byte-swapped memcpy: byte-wise stores
 * followed by a wide load of the same bytes stall store forwarding on the
 * stamping path. */
#ifndef RP_WIRE_BYTES_H
#define RP_WIRE_BYTES_H

#include <stdint.h>
#include <string.h>

static inline void rp_put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void rp_put_be24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define RP_HTOBE32(v) __builtin_bswap32(v)
#define RP_HTOBE64(v) __builtin_bswap64(v)
#else
#define RP_HTOBE32(v) (v)
#define RP_HTOBE64(v) (v)
#endif

static inline void rp_put_be32(uint8_t *p, uint32_t v)
{
	uint32_t be = RP_HTOBE32(v);
	memcpy(p, &be, sizeof(be));
}

static inline void rp_put_be64(uint8_t *p, uint64_t v)
{
	uint64_t be = RP_HTOBE64(v);
	memcpy(p, &be, sizeof(be));
}

static inline uint16_t rp_get_be16(const uint8_t *p)
{
	return (uint16_t)((uint16_t)p[0] << 8 | p[1]);
}

static inline uint32_t rp_get_be24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static inline uint32_t rp_get_be32(const uint8_t *p)
{
	uint32_t be;
	memcpy(&be, p, sizeof(be));
	return RP_HTOBE32(be);
}

static inline uint64_t rp_get_be64(const uint8_t *p)
{
	uint64_t be;
	memcpy(&be, p, sizeof(be));
	return RP_HTOBE64(be);
}

#endif
