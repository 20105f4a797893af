/* BTH build/parse and the opcode table (IBA vol. 1, 9.2 and table 38 / 9.3;
 * CNP from annex A17.9.3). */
#include "bth.h"

#include "bytes.h"
#include "ext.h"
#include "wire_err.h"

#define RP_OP(code, nm, e, pl) [code] = { .name = (nm), .ext = (e), .payload = (pl) }

/* Indexed by the opcode byte so a lookup on the RX path is one load; holes
 * (reserved and vendor opcodes) have name NULL and fall back to rp_op_unknown. */
static const struct rp_opcode_info rp_op_table[256] = {
	RP_OP(RP_OP_RC_SEND_FIRST, "RC_SEND_FIRST", 0, true),
	RP_OP(RP_OP_RC_SEND_MIDDLE, "RC_SEND_MIDDLE", 0, true),
	RP_OP(RP_OP_RC_SEND_LAST, "RC_SEND_LAST", 0, true),
	RP_OP(RP_OP_RC_SEND_LAST_IMM, "RC_SEND_LAST_WITH_IMMEDIATE", RP_EXT_IMM, true),
	RP_OP(RP_OP_RC_SEND_ONLY, "RC_SEND_ONLY", 0, true),
	RP_OP(RP_OP_RC_SEND_ONLY_IMM, "RC_SEND_ONLY_WITH_IMMEDIATE", RP_EXT_IMM, true),
	RP_OP(RP_OP_RC_WRITE_FIRST, "RC_RDMA_WRITE_FIRST", RP_EXT_RETH, true),
	RP_OP(RP_OP_RC_WRITE_MIDDLE, "RC_RDMA_WRITE_MIDDLE", 0, true),
	RP_OP(RP_OP_RC_WRITE_LAST, "RC_RDMA_WRITE_LAST", 0, true),
	RP_OP(RP_OP_RC_WRITE_LAST_IMM, "RC_RDMA_WRITE_LAST_WITH_IMMEDIATE", RP_EXT_IMM, true),
	RP_OP(RP_OP_RC_WRITE_ONLY, "RC_RDMA_WRITE_ONLY", RP_EXT_RETH, true),
	RP_OP(RP_OP_RC_WRITE_ONLY_IMM, "RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE", RP_EXT_RETH | RP_EXT_IMM, true),
	RP_OP(RP_OP_RC_READ_REQUEST, "RC_RDMA_READ_REQUEST", RP_EXT_RETH, false),
	RP_OP(RP_OP_RC_READ_RESP_FIRST, "RC_RDMA_READ_RESPONSE_FIRST", RP_EXT_AETH, true),
	RP_OP(RP_OP_RC_READ_RESP_MIDDLE, "RC_RDMA_READ_RESPONSE_MIDDLE", 0, true),
	RP_OP(RP_OP_RC_READ_RESP_LAST, "RC_RDMA_READ_RESPONSE_LAST", RP_EXT_AETH, true),
	RP_OP(RP_OP_RC_READ_RESP_ONLY, "RC_RDMA_READ_RESPONSE_ONLY", RP_EXT_AETH, true),
	RP_OP(RP_OP_RC_ACK, "RC_ACKNOWLEDGE", RP_EXT_AETH, false),
	RP_OP(RP_OP_RC_ATOMIC_ACK, "RC_ATOMIC_ACKNOWLEDGE", RP_EXT_AETH | RP_EXT_ATOMIC_ACK, false),
	RP_OP(RP_OP_RC_CMP_SWAP, "RC_COMPARE_SWAP", RP_EXT_ATOMIC_ETH, false),
	RP_OP(RP_OP_RC_FETCH_ADD, "RC_FETCH_ADD", RP_EXT_ATOMIC_ETH, false),
	RP_OP(RP_OP_RC_SEND_LAST_INV, "RC_SEND_LAST_WITH_INVALIDATE", RP_EXT_IETH, true),
	RP_OP(RP_OP_RC_SEND_ONLY_INV, "RC_SEND_ONLY_WITH_INVALIDATE", RP_EXT_IETH, true),
	RP_OP(RP_OP_UD_SEND_ONLY, "UD_SEND_ONLY", RP_EXT_DETH, true),
	RP_OP(RP_OP_UD_SEND_ONLY_IMM, "UD_SEND_ONLY_WITH_IMMEDIATE", RP_EXT_DETH | RP_EXT_IMM, true),
	RP_OP(RP_OP_CNP, "CNP", RP_EXT_CNP_PAD, false),
};

/* Unknown opcodes may carry anything, so parsers treat what follows the BTH
 * as opaque payload rather than rejecting the packet. */
static const struct rp_opcode_info rp_op_unknown = { .name = NULL, .ext = 0, .payload = true };

const struct rp_opcode_info *rp_opcode_info(uint8_t opcode)
{
	const struct rp_opcode_info *info = &rp_op_table[opcode];

	return info->name != NULL ? info : &rp_op_unknown;
}

size_t rp_ext_len(unsigned ext)
{
	size_t n = 0;

	if (ext & RP_EXT_DETH)
		n += RP_DETH_LEN;
	if (ext & RP_EXT_RETH)
		n += RP_RETH_LEN;
	if (ext & RP_EXT_ATOMIC_ETH)
		n += RP_ATOMIC_ETH_LEN;
	if (ext & RP_EXT_AETH)
		n += RP_AETH_LEN;
	if (ext & RP_EXT_ATOMIC_ACK)
		n += RP_ATOMIC_ACK_LEN;
	if (ext & RP_EXT_IMM)
		n += RP_IMM_LEN;
	if (ext & RP_EXT_IETH)
		n += RP_IETH_LEN;
	if (ext & RP_EXT_CNP_PAD)
		n += RP_CNP_PAD_LEN;
	return n;
}

size_t rp_bth_build(uint8_t *buf, size_t cap, const struct rp_bth *b)
{
	if (cap < RP_BTH_LEN)
		return 0;
	buf[0] = b->opcode;
	buf[1] = (uint8_t)((b->se ? 0x80 : 0) | (b->m ? 0x40 : 0) | (b->pad & 3) << 4 | (b->tver & 0x0F));
	rp_put_be16(buf + 2, b->pkey);
	/* Reserved bits go out as zero, as IBA requires of a sender. */
	buf[4] = (uint8_t)((b->fecn ? 0x80 : 0) | (b->becn ? 0x40 : 0));
	rp_put_be24(buf + 5, b->dqpn);
	buf[8] = b->ack_req ? 0x80 : 0;
	rp_put_be24(buf + 9, b->psn);
	return RP_BTH_LEN;
}

int rp_bth_parse(const uint8_t *buf, size_t len, struct rp_bth *b)
{
	if (len < RP_BTH_LEN)
		return RP_WIRE_ETRUNC;
	b->opcode = buf[0];
	b->se = (buf[1] & 0x80) != 0;
	b->m = (buf[1] & 0x40) != 0;
	b->pad = (buf[1] >> 4) & 3;
	b->tver = buf[1] & 0x0F;
	b->pkey = rp_get_be16(buf + 2);
	b->fecn = (buf[4] & 0x80) != 0;
	b->becn = (buf[4] & 0x40) != 0;
	b->dqpn = rp_get_be24(buf + 5);
	b->ack_req = (buf[8] & 0x80) != 0;
	b->psn = rp_get_be24(buf + 9);
	return RP_WIRE_OK;
}
