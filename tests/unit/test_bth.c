/* BTH build/parse against hand-assembled bytes, and the opcode table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check.h"

#include "wire/bth.h"
#include "wire/ext.h"
#include "wire/wire_err.h"

/* opcode 0x0B, SE=1 M=0 PadCnt=2 TVer=5, P_Key 0x8123, FECN=1 BECN=0,
 * DestQP 0xABCDEF, AckReq=1, PSN 0x123456. */
static const uint8_t known_a[RP_BTH_LEN] = {
	0x0B, 0xA5, 0x81, 0x23, 0x80, 0xAB, 0xCD, 0xEF, 0x80, 0x12, 0x34, 0x56,
};
static const struct rp_bth known_a_hdr = {
	.opcode = 0x0B, .se = true, .m = false, .pad = 2, .tver = 5, .pkey = 0x8123,
	.fecn = true, .becn = false, .dqpn = 0xABCDEF, .ack_req = true, .psn = 0x123456,
};

/* The other value of every flag: SE=0 M=1 PadCnt=1 TVer=0xA, FECN=0 BECN=1,
 * AckReq=0. */
static const uint8_t known_b[RP_BTH_LEN] = {
	0x81, 0x5A, 0xFF, 0xFE, 0x40, 0x00, 0x00, 0x01, 0x00, 0xFF, 0xFF, 0xFF,
};
static const struct rp_bth known_b_hdr = {
	.opcode = 0x81, .se = false, .m = true, .pad = 1, .tver = 0xA, .pkey = 0xFFFE,
	.fecn = false, .becn = true, .dqpn = 0x000001, .ack_req = false, .psn = 0xFFFFFF,
};

static void assert_bth_equal(const struct rp_bth *a, const struct rp_bth *b)
{
	assert_int_equal(a->opcode, b->opcode);
	assert_int_equal(a->se, b->se);
	assert_int_equal(a->m, b->m);
	assert_int_equal(a->pad, b->pad);
	assert_int_equal(a->tver, b->tver);
	assert_int_equal(a->pkey, b->pkey);
	assert_int_equal(a->fecn, b->fecn);
	assert_int_equal(a->becn, b->becn);
	assert_int_equal(a->dqpn, b->dqpn);
	assert_int_equal(a->ack_req, b->ack_req);
	assert_int_equal(a->psn, b->psn);
}

static void test_build_known(void **state)
{
	uint8_t buf[RP_BTH_LEN + 4];

	(void)state;
	memset(buf, 0xEE, sizeof(buf));
	assert_int_equal(rp_bth_build(buf, sizeof(buf), &known_a_hdr), RP_BTH_LEN);
	assert_memory_equal(buf, known_a, RP_BTH_LEN);
	assert_int_equal(buf[RP_BTH_LEN], 0xEE); /* nothing past the header */
	assert_int_equal(rp_bth_build(buf, RP_BTH_LEN, &known_b_hdr), RP_BTH_LEN);
	assert_memory_equal(buf, known_b, RP_BTH_LEN);
}

static void test_parse_known(void **state)
{
	struct rp_bth b;

	(void)state;
	assert_int_equal(rp_bth_parse(known_a, sizeof(known_a), &b), RP_WIRE_OK);
	assert_bth_equal(&b, &known_a_hdr);
	assert_int_equal(rp_bth_parse(known_b, sizeof(known_b), &b), RP_WIRE_OK);
	assert_bth_equal(&b, &known_b_hdr);
}

static void test_parse_ignores_reserved_bits(void **state)
{
	uint8_t buf[RP_BTH_LEN];
	struct rp_bth b;

	(void)state;
	memcpy(buf, known_a, sizeof(buf));
	buf[4] |= 0x3F; /* reserved bits after FECN/BECN */
	buf[8] |= 0x7F; /* reserved bits after AckReq */
	assert_int_equal(rp_bth_parse(buf, sizeof(buf), &b), RP_WIRE_OK);
	assert_bth_equal(&b, &known_a_hdr);
}

static void test_build_masks_wide_fields(void **state)
{
	struct rp_bth h = known_a_hdr;
	uint8_t buf[RP_BTH_LEN];
	struct rp_bth b;

	(void)state;
	h.pad = 0xFE;           /* only the low 2 bits exist */
	h.tver = 0xF3;          /* only the low 4 */
	h.dqpn = 0xFFABCDEFu;   /* only 24 */
	h.psn = 0x7F123456u;
	assert_int_equal(rp_bth_build(buf, sizeof(buf), &h), RP_BTH_LEN);
	assert_int_equal(buf[1], 0x80 | 0x20 | 0x03);
	assert_memory_equal(buf + 5, known_a + 5, 3);
	assert_memory_equal(buf + 9, known_a + 9, 3);
	assert_int_equal(rp_bth_parse(buf, sizeof(buf), &b), RP_WIRE_OK);
	assert_int_equal(b.pad, 2);
	assert_int_equal(b.tver, 3);
	assert_int_equal(b.dqpn, 0xABCDEF);
	assert_int_equal(b.psn, 0x123456);
}

static void test_round_trip(void **state)
{
	uint8_t buf[RP_BTH_LEN];
	struct rp_bth h = { 0 }, b;

	(void)state;
	for (unsigned i = 0; i < 4096; i++) {
		h.opcode = (uint8_t)(i * 37);
		h.se = i & 1;
		h.m = (i >> 1) & 1;
		h.pad = (i >> 2) & 3;
		h.tver = (i >> 4) & 15;
		h.pkey = (uint16_t)(i * 0x1F3Bu);
		h.fecn = (i >> 8) & 1;
		h.becn = (i >> 9) & 1;
		h.dqpn = (i * 0x9E3779u) & RP_QPN_MASK;
		h.ack_req = (i >> 10) & 1;
		h.psn = (i * 0x7A5A5Bu) & RP_PSN_MASK;
		assert_int_equal(rp_bth_build(buf, sizeof(buf), &h), RP_BTH_LEN);
		assert_int_equal(rp_bth_parse(buf, sizeof(buf), &b), RP_WIRE_OK);
		assert_bth_equal(&b, &h);
	}
}

static void test_truncated(void **state)
{
	struct rp_bth b;
	uint8_t out[RP_BTH_LEN];

	(void)state;
	for (size_t len = 0; len < RP_BTH_LEN; len++) {
		uint8_t *buf = rp_test_dup_exact(known_a, len); /* ASan/valgrind catch a read past len */
		assert_int_equal(rp_bth_parse(buf, len, &b), RP_WIRE_ETRUNC);
		free(buf);
		assert_int_equal(rp_bth_build(out, len, &known_a_hdr), 0);
	}
}

static void test_psn_add_wraps(void **state)
{
	(void)state;
	assert_int_equal(rp_psn_add(0xFFFFFF, 1), 0);
	assert_int_equal(rp_psn_add(0xFFFFFE, 5), 3);
	assert_int_equal(rp_psn_add(0x000010, 0x20), 0x30);
}

struct op_expect {
	uint8_t op;
	const char *name;
	unsigned ext;
	bool payload;
};

static const struct op_expect op_expect[] = {
	{ RP_OP_RC_SEND_FIRST, "RC_SEND_FIRST", 0, true },
	{ RP_OP_RC_SEND_MIDDLE, "RC_SEND_MIDDLE", 0, true },
	{ RP_OP_RC_SEND_LAST, "RC_SEND_LAST", 0, true },
	{ RP_OP_RC_SEND_LAST_IMM, "RC_SEND_LAST_WITH_IMMEDIATE", RP_EXT_IMM, true },
	{ RP_OP_RC_SEND_ONLY, "RC_SEND_ONLY", 0, true },
	{ RP_OP_RC_SEND_ONLY_IMM, "RC_SEND_ONLY_WITH_IMMEDIATE", RP_EXT_IMM, true },
	{ RP_OP_RC_WRITE_FIRST, "RC_RDMA_WRITE_FIRST", RP_EXT_RETH, true },
	{ RP_OP_RC_WRITE_MIDDLE, "RC_RDMA_WRITE_MIDDLE", 0, true },
	{ RP_OP_RC_WRITE_LAST, "RC_RDMA_WRITE_LAST", 0, true },
	{ RP_OP_RC_WRITE_LAST_IMM, "RC_RDMA_WRITE_LAST_WITH_IMMEDIATE", RP_EXT_IMM, true },
	{ RP_OP_RC_WRITE_ONLY, "RC_RDMA_WRITE_ONLY", RP_EXT_RETH, true },
	{ RP_OP_RC_WRITE_ONLY_IMM, "RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE", RP_EXT_RETH | RP_EXT_IMM, true },
	{ RP_OP_RC_READ_REQUEST, "RC_RDMA_READ_REQUEST", RP_EXT_RETH, false },
	{ RP_OP_RC_READ_RESP_FIRST, "RC_RDMA_READ_RESPONSE_FIRST", RP_EXT_AETH, true },
	{ RP_OP_RC_READ_RESP_MIDDLE, "RC_RDMA_READ_RESPONSE_MIDDLE", 0, true },
	{ RP_OP_RC_READ_RESP_LAST, "RC_RDMA_READ_RESPONSE_LAST", RP_EXT_AETH, true },
	{ RP_OP_RC_READ_RESP_ONLY, "RC_RDMA_READ_RESPONSE_ONLY", RP_EXT_AETH, true },
	{ RP_OP_RC_ACK, "RC_ACKNOWLEDGE", RP_EXT_AETH, false },
	{ RP_OP_RC_ATOMIC_ACK, "RC_ATOMIC_ACKNOWLEDGE", RP_EXT_AETH | RP_EXT_ATOMIC_ACK, false },
	{ RP_OP_RC_CMP_SWAP, "RC_COMPARE_SWAP", RP_EXT_ATOMIC_ETH, false },
	{ RP_OP_RC_FETCH_ADD, "RC_FETCH_ADD", RP_EXT_ATOMIC_ETH, false },
	{ RP_OP_RC_SEND_LAST_INV, "RC_SEND_LAST_WITH_INVALIDATE", RP_EXT_IETH, true },
	{ RP_OP_RC_SEND_ONLY_INV, "RC_SEND_ONLY_WITH_INVALIDATE", RP_EXT_IETH, true },
	{ RP_OP_UD_SEND_ONLY, "UD_SEND_ONLY", RP_EXT_DETH, true },
	{ RP_OP_UD_SEND_ONLY_IMM, "UD_SEND_ONLY_WITH_IMMEDIATE", RP_EXT_DETH | RP_EXT_IMM, true },
	{ RP_OP_CNP, "CNP", RP_EXT_CNP_PAD, false },
};

static const struct op_expect *find_expect(unsigned op)
{
	for (size_t i = 0; i < sizeof(op_expect) / sizeof(op_expect[0]); i++)
		if (op_expect[i].op == op)
			return &op_expect[i];
	return NULL;
}

/* Every one of the 256 opcode values: the listed ones exactly, the rest unknown. */
static void test_opcode_table(void **state)
{
	(void)state;
	for (unsigned op = 0; op < 256; op++) {
		const struct rp_opcode_info *info = rp_opcode_info((uint8_t)op);
		const struct op_expect *e = find_expect(op);

		assert_non_null(info);
		if (e == NULL) {
			assert_null(info->name);
			assert_int_equal(info->ext, 0);
			assert_true(info->payload);
			continue;
		}
		assert_non_null(info->name);
		assert_string_equal(info->name, e->name);
		assert_int_equal(info->ext, e->ext);
		assert_int_equal(info->payload, e->payload);
	}
	/* Reserved RC 0x15 (RESYNC in RD), an RD and a vendor code are unknown. */
	assert_null(rp_opcode_info(0x15)->name);
	assert_null(rp_opcode_info(0x40)->name);
	assert_null(rp_opcode_info(0xFF)->name);
}

static void test_ext_len(void **state)
{
	(void)state;
	assert_int_equal(rp_ext_len(0), 0);
	assert_int_equal(rp_ext_len(RP_EXT_DETH), 8);
	assert_int_equal(rp_ext_len(RP_EXT_RETH), 16);
	assert_int_equal(rp_ext_len(RP_EXT_ATOMIC_ETH), 28);
	assert_int_equal(rp_ext_len(RP_EXT_AETH), 4);
	assert_int_equal(rp_ext_len(RP_EXT_ATOMIC_ACK), 8);
	assert_int_equal(rp_ext_len(RP_EXT_IMM), 4);
	assert_int_equal(rp_ext_len(RP_EXT_IETH), 4);
	assert_int_equal(rp_ext_len(RP_EXT_CNP_PAD), 16);
	assert_int_equal(rp_ext_len(RP_EXT_RETH | RP_EXT_IMM), 20);
	assert_int_equal(rp_ext_len(RP_EXT_AETH | RP_EXT_ATOMIC_ACK), 12);
	assert_int_equal(rp_ext_len(RP_EXT_DETH | RP_EXT_IMM), 12);
	assert_int_equal(rp_ext_len(rp_opcode_info(RP_OP_RC_CMP_SWAP)->ext), RP_ATOMIC_ETH_LEN);
	assert_int_equal(rp_ext_len(0xFFu), 8 + 16 + 28 + 4 + 8 + 4 + 4 + 16);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_known),
		cmocka_unit_test(test_parse_known),
		cmocka_unit_test(test_parse_ignores_reserved_bits),
		cmocka_unit_test(test_build_masks_wide_fields),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_psn_add_wraps),
		cmocka_unit_test(test_opcode_table),
		cmocka_unit_test(test_ext_len),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
