/* Per-QP PSN tracking: gaps, fills, retransmissions, go-back-N, wrap,
 * message completion times. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "stats/psn.h"
#include "wire/bth.h"

static void data(struct rp_psn *p, uint64_t t, uint32_t psn, uint8_t op, struct rp_psn_event *ev)
{
	rp_psn_data(p, t, psn, op, ev);
}

static void gaps_not_filled_are_lost(void **state)
{
	(void)state;
	struct rp_psn p;
	struct rp_psn_event ev;
	rp_psn_init(&p);
	/* i % 10 == 9 dropped: 9, 19, ..., 999 (100); 999 is the tail, so no
	 * gap shows it: 99 missing in 99 gaps, 900 messages. */
	for (uint32_t i = 0; i < 1000; i++) {
		if (i % 10 == 9)
			continue;
		data(&p, i, 100 + i, RP_OP_RC_WRITE_ONLY, &ev);
	}
	assert_int_equal(p.missing, 99);
	assert_int_equal(p.gaps, 99);
	assert_int_equal(p.retransmissions, 0);
	assert_int_equal(p.messages, 900);
}

static void wraps_at_24_bits(void **state)
{
	(void)state;
	struct rp_psn p;
	struct rp_psn_event ev;
	rp_psn_init(&p);
	for (uint32_t i = 0; i < 20; i++)
		if (i != 10)
			data(&p, i, (0xFFFFF8u + i) & RP_PSN_MASK, RP_OP_RC_SEND_ONLY, &ev);
	assert_int_equal(p.missing, 1);
	assert_int_equal(p.next, 12);
	assert_int_equal(rp_psn_diff(0xFFFFFF, 0), 1);
	assert_int_equal(rp_psn_diff(0, 0xFFFFFF), -1);
}

/* 0..9 sent; 5 lost before the capture; NAK(5) at t=100; resend 5..9 from t=150. */
static void go_back_n_after_nak(void **state)
{
	(void)state;
	struct rp_psn p;
	struct rp_psn_event ev;
	rp_psn_init(&p);
	for (uint32_t i = 0; i < 10; i++)
		if (i != 5)
			data(&p, i * 10, i, RP_OP_RC_WRITE_MIDDLE, &ev);
	assert_int_equal(p.missing, 1);
	rp_psn_nak(&p, 100, 5);
	data(&p, 150, 5, RP_OP_RC_WRITE_MIDDLE, &ev);
	assert_int_equal(ev.verdict, RP_PSN_FILLED);
	assert_true(ev.nak_resend);
	assert_int_equal(ev.nak_resend_ns, 50);
	for (uint32_t i = 6; i < 10; i++) {
		data(&p, 150 + i, i, RP_OP_RC_WRITE_MIDDLE, &ev);
		assert_int_equal(ev.verdict, RP_PSN_RETRANSMIT);
	}
	assert_int_equal(p.missing, 0);
	assert_int_equal(p.filled, 1);
	assert_int_equal(p.retransmissions, 4);
	assert_int_equal(p.go_back_n, 1);
	assert_int_equal(p.rewinds, 1);
	assert_int_equal(p.naks, 1);
}

static void message_completion_first_to_last(void **state)
{
	(void)state;
	struct rp_psn p;
	struct rp_psn_event ev;
	rp_psn_init(&p);
	data(&p, 1000, 0, RP_OP_RC_WRITE_FIRST, &ev);
	assert_false(ev.msg_done);
	data(&p, 1100, 1, RP_OP_RC_WRITE_MIDDLE, &ev);
	data(&p, 1250, 2, RP_OP_RC_WRITE_LAST, &ev);
	assert_true(ev.msg_done && ev.multi_packet);
	assert_int_equal(ev.msg_ns, 250);
	data(&p, 1300, 3, RP_OP_RC_SEND_ONLY, &ev);
	assert_true(ev.msg_done && !ev.multi_packet);
	data(&p, 1400, 3, RP_OP_RC_SEND_ONLY, &ev); /* a resend completes nothing new */
	assert_false(ev.msg_done);
	assert_int_equal(p.messages, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(gaps_not_filled_are_lost),
		cmocka_unit_test(wraps_at_24_bits),
		cmocka_unit_test(go_back_n_after_nak),
		cmocka_unit_test(message_completion_first_to_last),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
