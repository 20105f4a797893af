/* CRC-32 as Ethernet computes it (reflected 0x04C11DB7), slicing-by-8. */
#ifndef RP_WIRE_CRC32_H
#define RP_WIRE_CRC32_H

#include <stddef.h>
#include <stdint.h>

#define RP_CRC32_RESIDUE 0x2144DF1Cu /* crc of (message + its CRC, LSB first) */

/* Running form: start with crc = 0, feed chunks, the result is the final CRC. */
uint32_t rp_crc32(uint32_t crc, const void *buf, size_t len);
/* The pure linear CRC (no pre- or post-inversion) of buf, for deltas. */
uint32_t rp_crc32_raw(uint32_t crc, const void *buf, size_t len);

#endif
