/* CRC-32 as Ethernet computes it (reflected 0x04C11DB7): carry-less multiply
 * folding where the CPU has it (VPCLMULQDQ on 512-bit registers with
 * AVX-512, on 256-bit ones with AVX2, else PCLMULQDQ), slicing-by-8 tables
 * otherwise and for short tails. */
#ifndef RP_WIRE_CRC32_H
#define RP_WIRE_CRC32_H

#include <stddef.h>
#include <stdint.h>

#define RP_CRC32_RESIDUE 0x2144DF1Cu /* crc of (message + its CRC, LSB first) */
#define RP_CRC32_MASK_LEN 64

/* Running form: start with crc = 0, feed chunks, the result is the final CRC. */
uint32_t rp_crc32(uint32_t crc, const void *buf, size_t len);
/* The pure linear CRC (no pre- or post-inversion) of buf, for deltas. */
uint32_t rp_crc32_raw(uint32_t crc, const void *buf, size_t len);
/* rp_crc32 of buf as if its first RP_CRC32_MASK_LEN bytes (or all of it when
 * shorter) were ORed with mask: a header with fields masked to ones, CRC'd
 * in place without a copy (the RoCEv2 ICRC). */
uint32_t rp_crc32_masked(uint32_t crc, const void *buf, size_t len, const uint8_t mask[RP_CRC32_MASK_LEN]);
/* rp_crc32_masked of n buffers of the same length len, out[i] for buf[i]
 * with mask[i] (NULL: none): in pairs side by side in 256-bit registers
 * where the CPU has VPCLMULQDQ, so that they hide each other's multiply
 * latency (from 256 B on with AVX-512: each folded in 512-bit registers,
 * their tails side by side); one by one otherwise. */
void rp_crc32_masked_n(uint32_t crc, const void *const buf[], const uint8_t *const mask[], unsigned n, size_t len,
		       uint32_t out[]);
/* Tests and benchmarks: caps the implementation at "table", "clmul",
 * "vpclmul" or "vpclmul512" (NULL: leaves it); returns the one now in use. Not for a
 * per-packet path, and not thread-safe. */
const char *rp_crc32_force(const char *level);

#endif
