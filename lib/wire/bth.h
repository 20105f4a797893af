/* InfiniBand Base Transport Header (12 bytes) and the opcode table. */
#ifndef RP_WIRE_BTH_H
#define RP_WIRE_BTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RP_BTH_LEN 12
#define RP_PSN_MASK 0xFFFFFFu
#define RP_QPN_MASK 0xFFFFFFu
#define RP_BTH_PSN_OFFSET 9 /* the 3 PSN bytes inside the BTH */

enum rp_opcode {
	RP_OP_RC_SEND_FIRST = 0x00,
	RP_OP_RC_SEND_MIDDLE = 0x01,
	RP_OP_RC_SEND_LAST = 0x02,
	RP_OP_RC_SEND_LAST_IMM = 0x03,
	RP_OP_RC_SEND_ONLY = 0x04,
	RP_OP_RC_SEND_ONLY_IMM = 0x05,
	RP_OP_RC_WRITE_FIRST = 0x06,
	RP_OP_RC_WRITE_MIDDLE = 0x07,
	RP_OP_RC_WRITE_LAST = 0x08,
	RP_OP_RC_WRITE_LAST_IMM = 0x09,
	RP_OP_RC_WRITE_ONLY = 0x0A,
	RP_OP_RC_WRITE_ONLY_IMM = 0x0B,
	RP_OP_RC_READ_REQUEST = 0x0C,
	RP_OP_RC_READ_RESP_FIRST = 0x0D,
	RP_OP_RC_READ_RESP_MIDDLE = 0x0E,
	RP_OP_RC_READ_RESP_LAST = 0x0F,
	RP_OP_RC_READ_RESP_ONLY = 0x10,
	RP_OP_RC_ACK = 0x11,
	RP_OP_RC_ATOMIC_ACK = 0x12,
	RP_OP_RC_CMP_SWAP = 0x13,
	RP_OP_RC_FETCH_ADD = 0x14,
	RP_OP_RC_SEND_LAST_INV = 0x16,
	RP_OP_RC_SEND_ONLY_INV = 0x17,
	RP_OP_UD_SEND_ONLY = 0x64,
	RP_OP_UD_SEND_ONLY_IMM = 0x65,
	RP_OP_CNP = 0x81,
};

/* Which extended headers follow the BTH, in this order on the wire. */
enum rp_ext {
	RP_EXT_DETH = 1u << 0,       /* 8 bytes */
	RP_EXT_RETH = 1u << 1,       /* 16 */
	RP_EXT_ATOMIC_ETH = 1u << 2, /* 28 */
	RP_EXT_AETH = 1u << 3,       /* 4 */
	RP_EXT_ATOMIC_ACK = 1u << 4, /* 8 */
	RP_EXT_IMM = 1u << 5,        /* 4 */
	RP_EXT_IETH = 1u << 6,       /* 4 */
	RP_EXT_CNP_PAD = 1u << 7,    /* 16 reserved zero bytes of a CNP */
};

struct rp_opcode_info {
	const char *name; /* "RC_RDMA_WRITE_ONLY"; NULL for an unknown opcode */
	unsigned ext;     /* enum rp_ext bits */
	bool payload;     /* may carry a payload */
};

/* Never NULL: unknown opcodes get name NULL, ext 0, payload true. */
const struct rp_opcode_info *rp_opcode_info(uint8_t opcode);
/* Total length of the extended headers an opcode carries. */
size_t rp_ext_len(unsigned ext);

struct rp_bth {
	uint8_t opcode;
	bool se;
	bool m;
	uint8_t pad;  /* 0..3 */
	uint8_t tver; /* 0..15 */
	uint16_t pkey;
	bool fecn;
	bool becn;
	uint32_t dqpn; /* 24 bits */
	bool ack_req;
	uint32_t psn; /* 24 bits */
};

size_t rp_bth_build(uint8_t *buf, size_t cap, const struct rp_bth *b);
/* Only ETRUNC: every bit pattern is a BTH; reserved bits are ignored. */
int rp_bth_parse(const uint8_t *buf, size_t len, struct rp_bth *b);

static inline uint32_t rp_psn_add(uint32_t psn, uint32_t n) { return (psn + n) & RP_PSN_MASK; }

#endif
