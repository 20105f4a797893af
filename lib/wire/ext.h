/* RoCE extended transport headers: RETH, AETH, ImmDt, IETH, DETH and the atomics. */
#ifndef RP_WIRE_EXT_H
#define RP_WIRE_EXT_H

#include <stddef.h>
#include <stdint.h>

#define RP_RETH_LEN 16
#define RP_AETH_LEN 4
#define RP_IMM_LEN 4
#define RP_IETH_LEN 4
#define RP_DETH_LEN 8
#define RP_ATOMIC_ETH_LEN 28
#define RP_ATOMIC_ACK_LEN 8
#define RP_CNP_PAD_LEN 16

struct rp_reth {
	uint64_t va;
	uint32_t rkey;
	uint32_t dma_len;
};

/* AETH syndrome: bits 7..5 say ACK (000), RNR NAK (001), NAK (011). */
enum rp_aeth_kind { RP_AETH_ACK = 0, RP_AETH_RNR_NAK = 1, RP_AETH_RESERVED = 2, RP_AETH_NAK = 3 };
enum rp_nak_code {
	RP_NAK_PSN_SEQ_ERR = 0,
	RP_NAK_INVALID_REQ = 1,
	RP_NAK_REMOTE_ACCESS = 2,
	RP_NAK_REMOTE_OP = 3,
	RP_NAK_INVALID_RD_REQ = 4,
};

struct rp_aeth {
	uint8_t syndrome; /* whole byte; see rp_aeth_kind() */
	uint32_t msn;     /* 24 bits */
};

static inline enum rp_aeth_kind rp_aeth_kind(uint8_t syndrome) { return (enum rp_aeth_kind)((syndrome >> 5) & 3); }
/* Credit count (ACK), timer (RNR NAK) or NAK code: the low five bits. */
static inline uint8_t rp_aeth_value(uint8_t syndrome) { return syndrome & 0x1F; }
static inline uint8_t rp_aeth_syndrome(enum rp_aeth_kind k, uint8_t value) { return (uint8_t)((k << 5) | (value & 0x1F)); }

struct rp_deth {
	uint32_t qkey;
	uint32_t src_qp; /* 24 bits */
};

struct rp_atomic_eth {
	uint64_t va;
	uint32_t rkey;
	uint64_t swap_add;
	uint64_t compare;
};

size_t rp_reth_build(uint8_t *buf, size_t cap, const struct rp_reth *h);
int rp_reth_parse(const uint8_t *buf, size_t len, struct rp_reth *h);
size_t rp_aeth_build(uint8_t *buf, size_t cap, const struct rp_aeth *h);
int rp_aeth_parse(const uint8_t *buf, size_t len, struct rp_aeth *h);
size_t rp_deth_build(uint8_t *buf, size_t cap, const struct rp_deth *h);
int rp_deth_parse(const uint8_t *buf, size_t len, struct rp_deth *h);
size_t rp_atomic_eth_build(uint8_t *buf, size_t cap, const struct rp_atomic_eth *h);
int rp_atomic_eth_parse(const uint8_t *buf, size_t len, struct rp_atomic_eth *h);
/* ImmDt, IETH (rkey) and AtomicAckETH are a bare 32- or 64-bit value. */
size_t rp_be32_build(uint8_t *buf, size_t cap, uint32_t v);
int rp_be32_parse(const uint8_t *buf, size_t len, uint32_t *v);
size_t rp_be64_build(uint8_t *buf, size_t cap, uint64_t v);
int rp_be64_parse(const uint8_t *buf, size_t len, uint64_t *v);

#endif
