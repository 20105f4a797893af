/* MAC control frames: IEEE 802.1Qbb PFC and IEEE 802.3x PAUSE. */
#ifndef RP_WIRE_PFC_H
#define RP_WIRE_PFC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RP_MACCTL_OP_PAUSE 0x0001
#define RP_MACCTL_OP_PFC 0x0101
#define RP_PFC_PRIOS 8
#define RP_MACCTL_FRAME_LEN 60 /* padded minimum frame, no FCS */

extern const uint8_t rp_macctl_dst[6]; /* 01:80:C2:00:00:01 */

struct rp_macctl {
	uint16_t opcode;
	uint8_t enable;                 /* PFC: bit p enables quanta[p] */
	uint16_t quanta[RP_PFC_PRIOS];  /* PAUSE: quanta[0] only */
};

/* Whole 60-byte frame (dst 01:80:C2:00:00:01, src, 0x8808, opcode, fields, zero pad). */
size_t rp_pfc_frame_build(uint8_t *buf, size_t cap, const uint8_t src[6], uint8_t enable, const uint16_t quanta[RP_PFC_PRIOS]);
size_t rp_pause_frame_build(uint8_t *buf, size_t cap, const uint8_t src[6], uint16_t quanta);
/* Parses the MAC control payload that follows the EtherType 0x8808.
 * Opcodes other than PAUSE and PFC parse with only opcode set.
 * ETRUNC when the payload is shorter than the opcode's fields. */
int rp_macctl_parse(const uint8_t *buf, size_t len, struct rp_macctl *m);

/* One quantum is 512 bit times; the pause it asks for at a given link speed. */
static inline uint64_t rp_pause_quanta_ns(uint32_t quanta, uint64_t link_bps)
{
	return link_bps ? (uint64_t)quanta * 512u * 1000000000ull / link_bps : 0;
}

#endif
