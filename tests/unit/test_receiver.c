/* The RoCE receiver's decisions (CNP interval, ACK MSN, one NAK per gap) and
 * the reply frames, read back with lib/wire's parser. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "stats/receiver.h"
#include "wire/frame.h"

/* CE on every packet, one every period_ns, for span_ns: with an interval that
 * is a multiple of the period, a CNP goes out every interval/period packets. */
static void cnp_once_per_interval(void **state)
{
	(void)state;
	const uint64_t period = 10000, span = 1000000, interval = 50000;
	struct rp_rcv_qp q;
	rp_rcv_qp_init(&q, true, 0);
	struct rp_reply_msg out[RP_REPLY_MAX];
	uint64_t cnps = 0, expect = 0, last = 0;
	bool any = false;
	uint32_t psn = 0;
	for (uint64_t t = 0; t < span; t += period) {
		/* the rule, restated: the first CE, then whenever >= interval passed */
		if (!any || t - last >= interval) {
			expect++;
			last = t;
			any = true;
		}
		struct rp_rcv_pkt pkt = {.opcode = RP_OP_RC_WRITE_ONLY, .psn = psn++, .ce = true};
		unsigned n = rp_rcv_data(&q, interval, false, t, &pkt, out);
		for (unsigned i = 0; i < n; i++)
			cnps += out[i].kind == RP_REPLY_CNP;
	}
	assert_int_equal(expect, span / interval); /* 1 ms / 50 us = 20 */
	assert_int_equal(cnps, 20);
	assert_int_equal(q.cnps, 20);
}

static void cnp_interval_edge(void **state)
{
	(void)state;
	struct rp_rcv_qp q;
	rp_rcv_qp_init(&q, true, 0);
	struct rp_reply_msg out[RP_REPLY_MAX];
	struct rp_rcv_pkt pkt = {.opcode = RP_OP_RC_WRITE_ONLY, .ce = true};
	assert_int_equal(rp_rcv_data(&q, 50000, false, 7, &pkt, out), 1);
	pkt.psn = 1;
	assert_int_equal(rp_rcv_data(&q, 50000, false, 7 + 49999, &pkt, out), 0);
	pkt.psn = 2;
	assert_int_equal(rp_rcv_data(&q, 50000, false, 7 + 50000, &pkt, out), 1);
	assert_int_equal(out[0].kind, RP_REPLY_CNP);
}

/* 3-packet writes with AckReq on LAST: the MSN counts completed messages. */
static void ack_carries_msn(void **state)
{
	(void)state;
	struct rp_rcv_qp q;
	rp_rcv_qp_init(&q, true, 1000);
	struct rp_reply_msg out[RP_REPLY_MAX];
	uint32_t psn = 1000;
	for (uint32_t m = 1; m <= 5; m++) {
		const uint8_t ops[3] = {RP_OP_RC_WRITE_FIRST, RP_OP_RC_WRITE_MIDDLE, RP_OP_RC_WRITE_LAST};
		for (int i = 0; i < 3; i++) {
			struct rp_rcv_pkt pkt = {.opcode = ops[i], .psn = psn, .ack_req = i == 2};
			unsigned n = rp_rcv_data(&q, 50000, false, psn, &pkt, out);
			assert_int_equal(n, i == 2 ? 1 : 0);
			if (n) {
				assert_int_equal(out[0].kind, RP_REPLY_ACK);
				assert_int_equal(out[0].msn, m);
				assert_int_equal(out[0].psn, psn);
			}
			psn++;
		}
	}
	assert_int_equal(q.acks, 5);
}

/* Two gaps give two NAKs, each with the PSN that was expected. */
static void one_nak_per_gap(void **state)
{
	(void)state;
	struct rp_rcv_qp q;
	rp_rcv_qp_init(&q, true, 0);
	struct rp_reply_msg out[RP_REPLY_MAX];
	uint32_t naks = 0, nak_psn[4];
	for (uint32_t psn = 0; psn < 100; psn++) {
		if (psn == 10 || psn == 11 || psn == 50)
			continue;
		struct rp_rcv_pkt pkt = {.opcode = RP_OP_RC_SEND_ONLY, .psn = psn};
		unsigned n = rp_rcv_data(&q, 50000, false, psn, &pkt, out);
		for (unsigned i = 0; i < n; i++)
			if (out[i].kind == RP_REPLY_NAK)
				nak_psn[naks++] = out[i].psn;
	}
	assert_int_equal(naks, 2);
	assert_int_equal(nak_psn[0], 10);
	assert_int_equal(nak_psn[1], 50);

	/* strict: one NAK, then silence until the expected PSN comes back */
	rp_rcv_qp_init(&q, true, 0);
	struct rp_rcv_pkt p0 = {.opcode = RP_OP_RC_SEND_ONLY, .psn = 0, .ack_req = true};
	assert_int_equal(rp_rcv_data(&q, 50000, true, 0, &p0, out), 1);
	for (uint32_t psn = 2; psn < 6; psn++) {
		struct rp_rcv_pkt pkt = {.opcode = RP_OP_RC_SEND_ONLY, .psn = psn};
		assert_int_equal(rp_rcv_data(&q, 50000, true, psn, &pkt, out), psn == 2 ? 1 : 0);
	}
	struct rp_rcv_pkt p1 = {.opcode = RP_OP_RC_SEND_ONLY, .psn = 1, .ack_req = true};
	assert_int_equal(rp_rcv_data(&q, 50000, true, 9, &p1, out), 1);
	assert_int_equal(out[0].kind, RP_REPLY_ACK);
	assert_int_equal(q.naks, 1);
}

static struct rp_reply sample_reply(void)
{
	struct rp_reply r = {.n = 3, .l3 = 4, .ip4_src = 0xC0000202, .ip4_dst = 0xC0000201, .dqpn = 0x123,
			     .udp_sport = 0xC123, .dscp = 26, .ecn = RP_ECN_ECT0, .cnp_dscp = 48, .cnp_pcp = 6};
	r.msg[0] = (struct rp_reply_msg){.kind = RP_REPLY_CNP};
	r.msg[1] = (struct rp_reply_msg){.kind = RP_REPLY_ACK, .psn = 77, .msn = 5};
	const uint8_t a[6] = {2, 0, 0, 0, 0, 1}, b[6] = {2, 0, 0, 0, 0, 2};
	memcpy(r.eth.dst, a, 6);
	memcpy(r.eth.src, b, 6);
	r.eth.has_vlan = true;
	r.eth.vid = 100;
	r.eth.pcp = 3;
	return r;
}

static void reply_frames_parse_back(void **state)
{
	(void)state;
	struct rp_reply r = sample_reply();
	r.n = 2;
	uint8_t buf[256];
	struct rp_frame f;
	size_t len = rp_reply_build(&r, 0, buf, sizeof(buf));
	assert_true(len >= 60);
	assert_int_equal(rp_frame_parse(buf, len, len, &f), RP_KIND_CNP);
	assert_true(f.bth.becn);
	assert_int_equal(f.bth.dqpn, 0x123);
	assert_int_equal(f.ip4.dscp, 48);
	assert_int_equal(f.eth.pcp, 6);
	assert_int_equal(f.ip4.dst, 0xC0000201);
	assert_true(f.ext & RP_EXT_CNP_PAD);
	assert_true(f.icrc_ok);

	len = rp_reply_build(&r, 1, buf, sizeof(buf));
	assert_int_equal(rp_frame_parse(buf, len, len, &f), RP_KIND_ROCE);
	assert_int_equal(f.bth.opcode, RP_OP_RC_ACK);
	assert_int_equal(f.aeth.syndrome, 0x1F);
	assert_int_equal(f.aeth.msn, 5);
	assert_int_equal(f.bth.psn, 77);
	assert_int_equal(f.ip4.dscp, 26);
	assert_int_equal(f.udp.sport, 0xC123);
	assert_true(f.icrc_ok);

	r.msg[1] = (struct rp_reply_msg){.kind = RP_REPLY_NAK, .psn = 40, .msn = 2};
	len = rp_reply_build(&r, 1, buf, sizeof(buf));
	assert_int_equal(rp_frame_parse(buf, len, len, &f), RP_KIND_ROCE);
	assert_int_equal(f.aeth.syndrome, 0x60);
	assert_int_equal(f.bth.psn, 40);
	assert_int_equal(rp_reply_build(&r, 2, buf, sizeof(buf)), 0);
	assert_int_equal(rp_reply_build(&r, 0, buf, 20), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cnp_once_per_interval),
		cmocka_unit_test(cnp_interval_edge),
		cmocka_unit_test(ack_carries_msn),
		cmocka_unit_test(one_nak_per_gap),
		cmocka_unit_test(reply_frames_parse_back),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
