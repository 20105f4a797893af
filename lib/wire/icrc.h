/* RoCEv2 invariant CRC (IBA annex A17): full computation, check, and an
 * incremental update for packets that differ from a template in a few bytes. */
#ifndef RP_WIRE_ICRC_H
#define RP_WIRE_ICRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RP_ICRC_LEN 4

/* l3 points at the IPv4 or IPv6 header; len covers it up to and including the
 * payload pad, not the ICRC. The variant fields are masked to ones on a copy:
 * an 8-byte 0xFF prefix stands in for the LRH; IPv4 TOS, TTL and checksum;
 * IPv6 traffic class, flow label and hop limit; UDP checksum; BTH byte 4
 * (FECN, BECN, reserved). Returns the CRC value; 0 when the IP version is
 * neither 4 nor 6 or len is shorter than IP + UDP + BTH. */
uint32_t rp_icrc_compute(const uint8_t *l3, size_t len);
/* len includes the trailing 4 ICRC bytes. */
bool rp_icrc_verify(const uint8_t *l3, size_t len);
/* rp_icrc_verify of n regions, ok[i] for l3[i] and len[i]: the same
 * verdicts, but neighbours of the same length in the builder's layouts
 * (IPv4 without options, IPv6) are CRC'd in pairs side by side
 * (rp_crc32_masked_n), hiding each other's multiply latency: a burst of one
 * flow's frames goes two at a time, up to four per call. */
void rp_icrc_verify_n(const uint8_t *const l3[], const uint32_t len[], unsigned n, bool ok[]);

/* On the wire the ICRC goes least significant byte first. */
static inline void rp_icrc_store(uint8_t *dst, uint32_t icrc)
{
	dst[0] = (uint8_t)icrc;
	dst[1] = (uint8_t)(icrc >> 8);
	dst[2] = (uint8_t)(icrc >> 16);
	dst[3] = (uint8_t)(icrc >> 24);
}

static inline uint32_t rp_icrc_load(const uint8_t *src)
{
	return (uint32_t)src[0] | (uint32_t)src[1] << 8 | (uint32_t)src[2] << 16 | (uint32_t)src[3] << 24;
}

/* CRC is linear: for messages of equal length, crc(a) ^ crc(b) is the raw CRC
 * of a ^ b. A patch precomputes, for one field of up to 8 bytes at a fixed
 * offset, the operator that takes each byte of the field's change to its
 * contribution at the end of the region (the CRC steps of the field and of
 * the bytes after it folded into one x^n mod P per 4-byte chunk), so stamping
 * a field costs one table look-up per byte and no CRC loop. */
struct rp_icrc_patch {
	uint32_t off; /* from the start of l3 */
	uint32_t len; /* 1..8 */
	uint32_t tab[8][256]; /* [byte of the field, in wire order][value] */
};

/* region_len is the len given to rp_icrc_compute (l3 up to the pad). */
int rp_icrc_patch_init(struct rp_icrc_patch *p, size_t off, size_t len, size_t region_len);
/* The ICRC after the field's bytes change from old to new. */
uint32_t rp_icrc_patch_apply(const struct rp_icrc_patch *p, uint32_t icrc, const uint8_t *old_bytes, const uint8_t *new_bytes);

/* What a field contributes when it changes by delta (old ^ new, as the
 * big-endian integer the field holds): XOR it into the ICRC. Inline, for
 * stamping counters that are already in registers. */
/* Unrolled forms for the common widths: a PSN (3 bytes) and a 64-bit counter. */
static inline uint32_t rp_icrc_patch_delta24(const struct rp_icrc_patch *p, uint32_t delta)
{
	return p->tab[0][(uint8_t)(delta >> 16)] ^ p->tab[1][(uint8_t)(delta >> 8)] ^ p->tab[2][(uint8_t)delta];
}

static inline uint32_t rp_icrc_patch_delta64(const struct rp_icrc_patch *p, uint64_t delta)
{
	uint32_t c = p->tab[4][(uint8_t)(delta >> 24)] ^ p->tab[5][(uint8_t)(delta >> 16)] ^
		     p->tab[6][(uint8_t)(delta >> 8)] ^ p->tab[7][(uint8_t)delta];
	uint32_t hi = (uint32_t)(delta >> 32);
	if (hi)
		c ^= p->tab[0][(uint8_t)(hi >> 24)] ^ p->tab[1][(uint8_t)(hi >> 16)] ^ p->tab[2][(uint8_t)(hi >> 8)] ^
		     p->tab[3][(uint8_t)hi];
	return c;
}

static inline uint32_t rp_icrc_patch_delta(const struct rp_icrc_patch *p, uint64_t delta)
{
	uint32_t c = 0;
	for (uint32_t k = 0, shift = 8 * (p->len - 1); k < p->len; k++, shift -= 8)
		c ^= p->tab[k][(uint8_t)(delta >> shift)];
	return c;
}

#endif
