#include "pfc.h"

#include <string.h>

#include "bytes.h"
#include "eth.h"
#include "wire_err.h"

#define MACCTL_OPCODE_OFF (2 * RP_ETH_ADDR_LEN + 2) /* payload after EtherType */
#define PAUSE_PAYLOAD_LEN 4                           /* opcode, quanta */
#define PFC_PAYLOAD_LEN (4 + 2 * RP_PFC_PRIOS)         /* opcode, vector, quanta[8] */

const uint8_t rp_macctl_dst[6] = {0x01, 0x80, 0xC2, 0x00, 0x00, 0x01};

/* Zeroes the whole frame (the pad must be zero) and writes the common head;
 * returns where the opcode goes. */
static uint8_t *macctl_head(uint8_t *buf, const uint8_t src[6])
{
	memset(buf, 0, RP_MACCTL_FRAME_LEN);
	memcpy(buf, rp_macctl_dst, RP_ETH_ADDR_LEN);
	memcpy(buf + RP_ETH_ADDR_LEN, src, RP_ETH_ADDR_LEN);
	rp_put_be16(buf + 2 * RP_ETH_ADDR_LEN, RP_ETHERTYPE_MACCTL);
	return buf + MACCTL_OPCODE_OFF;
}

size_t rp_pfc_frame_build(uint8_t *buf, size_t cap, const uint8_t src[6], uint8_t enable,
			  const uint16_t quanta[RP_PFC_PRIOS])
{
	uint8_t *p;

	if (cap < RP_MACCTL_FRAME_LEN)
		return 0;
	p = macctl_head(buf, src);
	rp_put_be16(p, RP_MACCTL_OP_PFC);
	rp_put_be16(p + 2, enable);
	for (int i = 0; i < RP_PFC_PRIOS; i++)
		rp_put_be16(p + 4 + 2 * i, quanta[i]);
	return RP_MACCTL_FRAME_LEN;
}

size_t rp_pause_frame_build(uint8_t *buf, size_t cap, const uint8_t src[6], uint16_t quanta)
{
	uint8_t *p;

	if (cap < RP_MACCTL_FRAME_LEN)
		return 0;
	p = macctl_head(buf, src);
	rp_put_be16(p, RP_MACCTL_OP_PAUSE);
	rp_put_be16(p + 2, quanta);
	return RP_MACCTL_FRAME_LEN;
}

int rp_macctl_parse(const uint8_t *buf, size_t len, struct rp_macctl *m)
{
	uint16_t op;

	if (len < 2)
		return RP_WIRE_ETRUNC;
	op = rp_get_be16(buf);
	if ((op == RP_MACCTL_OP_PAUSE && len < PAUSE_PAYLOAD_LEN) ||
	    (op == RP_MACCTL_OP_PFC && len < PFC_PAYLOAD_LEN))
		return RP_WIRE_ETRUNC;
	memset(m, 0, sizeof(*m));
	m->opcode = op;
	if (op == RP_MACCTL_OP_PAUSE) {
		m->quanta[0] = rp_get_be16(buf + 2);
	} else if (op == RP_MACCTL_OP_PFC) {
		/* The vector's high byte is reserved in 802.1Qbb; only 8 classes exist. */
		m->enable = buf[3];
		for (int i = 0; i < RP_PFC_PRIOS; i++)
			m->quanta[i] = rp_get_be16(buf + 4 + 2 * i);
	}
	return RP_WIRE_OK;
}
