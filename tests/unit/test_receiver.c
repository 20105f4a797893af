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
		unsigned n = rp_rcv_data(&q, interval, RP_CNP_FIRST, false, t, &pkt, out);
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
	assert_int_equal(rp_rcv_data(&q, 50000, RP_CNP_FIRST, false, 7, &pkt, out), 1);
	pkt.psn = 1;
	assert_int_equal(rp_rcv_data(&q, 50000, RP_CNP_FIRST, false, 7 + 49999, &pkt, out), 0);
	pkt.psn = 2;
	assert_int_equal(rp_rcv_data(&q, 50000, RP_CNP_FIRST, false, 7 + 50000, &pkt, out), 1);
	assert_int_equal(out[0].kind, RP_REPLY_CNP);
}

/* The paper's NP (Zhu et al. 2015, 3.1), N = 4 us: a CNP at once for the
 * first mark; a mark inside the window earns one CNP at the window's end,
 * which opens the next window. By hand:
 *   t=1000  CE  -> CNP now (at_ns 0); window [1000, 5000)
 *   t=2000  CE  -> CNP at 5000 (1000 + 4000); the next window [5000, 9000)
 *   t=3000  CE  -> nothing: the CNP due at 5000 covers it
 *   t=4999  --  -> nothing (not marked)
 *   t=6000  CE  -> CNP at 9000 (5000 + 4000)
 *   t=20000 CE  -> CNP now (20000 - 9000 >= 4000)
 *   t=21000 no CE; t=30000 no CE -> nothing: only marks earn CNPs
 * first mode, the same marks: CNPs at 1000, 6000 (6000 - 1000 >= 4000) and
 * 20000 only: 3 against 4. */
static void cnp_paper_window_end(void **state)
{
	(void)state;
	static const struct { uint64_t t; bool ce; unsigned n; uint64_t at; unsigned first_n; } step[] = {
		{1000, true, 1, 0, 1},  {2000, true, 1, 5000, 0}, {3000, true, 0, 0, 0},  {4999, false, 0, 0, 0},
		{6000, true, 1, 9000, 1}, {20000, true, 1, 0, 1}, {21000, false, 0, 0, 0}, {30000, false, 0, 0, 0},
	};
	struct rp_rcv_qp q, f;
	rp_rcv_qp_init(&q, true, 0);
	rp_rcv_qp_init(&f, true, 0);
	struct rp_reply_msg out[RP_REPLY_MAX];
	for (unsigned i = 0; i < sizeof(step) / sizeof(step[0]); i++) {
		struct rp_rcv_pkt pkt = {.opcode = RP_OP_RC_WRITE_ONLY, .psn = i, .ce = step[i].ce};
		assert_int_equal(rp_rcv_data(&q, 4000, RP_CNP_PAPER, false, step[i].t, &pkt, out), step[i].n);
		if (step[i].n) {
			assert_int_equal(out[0].kind, RP_REPLY_CNP);
			assert_int_equal(out[0].at_ns, step[i].at);
		}
		assert_int_equal(rp_rcv_data(&f, 4000, RP_CNP_FIRST, false, step[i].t, &pkt, out), step[i].first_n);
		if (step[i].first_n)
			assert_int_equal(out[0].at_ns, 0);
	}
	assert_int_equal(q.cnps, 4);
	assert_int_equal(f.cnps, 3);
}

/* CE on every packet, one every 1 us for 1 ms, N = 4 us: the paper's NP
 * sends a CNP every 4 us from the first: at 0, 4, ... 996 us (250), and the
 * marks of the last window [996, 1000) earn one more, due at 1000 us: 251.
 * First mode: 0, 4, ... 996 us: 250 (a mark lands on every window's edge;
 * the last window's marks are forgotten). A 2.5 us period: the paper's
 * windows still end every 4 us (251); first mode waits for the next mark
 * after each window: marks at 0, 5, 10 ... 995 us (2.5 us x 2 >= 4): 200. */
static void cnp_paper_steady(void **state)
{
	(void)state;
	static const struct { uint64_t period; bool paper; uint64_t cnps; } want[] = {
		{1000, true, 251}, {1000, false, 250}, {2500, true, 251}, {2500, false, 200}};
	for (unsigned w = 0; w < 4; w++) {
		struct rp_rcv_qp q;
		rp_rcv_qp_init(&q, true, 0);
		struct rp_reply_msg out[RP_REPLY_MAX];
		uint32_t psn = 0;
		uint64_t last_at = 0;
		for (uint64_t t = 0; t < 1000000; t += want[w].period) {
			struct rp_rcv_pkt pkt = {.opcode = RP_OP_RC_WRITE_ONLY, .psn = psn++, .ce = true};
			if (rp_rcv_data(&q, 4000, want[w].paper ? RP_CNP_PAPER : RP_CNP_FIRST, false, t, &pkt, out)) {
				uint64_t at = out[0].at_ns ? out[0].at_ns : t;
				if (q.cnps > 1)
					assert_true(at - last_at >= 4000);
				last_at = at;
			}
		}
		print_message("period %llu %s: %llu CNPs\n", (unsigned long long)want[w].period,
			      want[w].paper ? "paper" : "first", (unsigned long long)q.cnps);
		assert_int_equal(q.cnps, want[w].cnps);
	}
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
			unsigned n = rp_rcv_data(&q, 50000, RP_CNP_FIRST, false, psn, &pkt, out);
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
		unsigned n = rp_rcv_data(&q, 50000, RP_CNP_FIRST, false, psn, &pkt, out);
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
	assert_int_equal(rp_rcv_data(&q, 50000, RP_CNP_FIRST, true, 0, &p0, out), 1);
	for (uint32_t psn = 2; psn < 6; psn++) {
		struct rp_rcv_pkt pkt = {.opcode = RP_OP_RC_SEND_ONLY, .psn = psn};
		assert_int_equal(rp_rcv_data(&q, 50000, RP_CNP_FIRST, true, psn, &pkt, out), psn == 2 ? 1 : 0);
	}
	struct rp_rcv_pkt p1 = {.opcode = RP_OP_RC_SEND_ONLY, .psn = 1, .ack_req = true};
	assert_int_equal(rp_rcv_data(&q, 50000, RP_CNP_FIRST, true, 9, &p1, out), 1);
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
		cmocka_unit_test(cnp_paper_window_end),
		cmocka_unit_test(cnp_paper_steady),
		cmocka_unit_test(ack_carries_msn),
		cmocka_unit_test(one_nak_per_gap),
		cmocka_unit_test(reply_frames_parse_back),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
