/* Per-QP PSN tracking: gaps, fills, retransmissions vs duplicates, go-back-N, wrap,
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

/* 0..9 sent; 3 arrives with a bad ICRC (rp_psn_hole: it holds its place),
 * 9 too (the tail: no later PSN would show it); so missing 2 in 2 gaps and
 * 8 packets, 8 messages. A hole at a PSN that is not the next one (12, or 2
 * again) is not trusted: false, nothing counted. NAK(3) at t=100, resend
 * 3..9 from t=150: go-back-N 1, 7 resent, 3 and 9 fill their gaps (filled 2,
 * missing 0), 4..8 seen before (duplicates 5), none late. */
static void bad_icrc_holds_its_place(void **state)
{
	(void)state;
	struct rp_psn p;
	struct rp_psn_event ev;
	rp_psn_init(&p);
	for (uint32_t i = 0; i < 10; i++) {
		if (i == 3 || i == 9)
			assert_true(rp_psn_hole(&p, i));
		else
			data(&p, i * 10, i, RP_OP_RC_SEND_ONLY, &ev);
	}
	assert_false(rp_psn_hole(&p, 12));
	assert_false(rp_psn_hole(&p, 2));
	assert_int_equal(p.next, 10);
	assert_int_equal(p.missing, 2);
	assert_int_equal(p.gaps, 2);
	assert_int_equal(p.packets, 8);
	assert_int_equal(p.messages, 8);
	assert_true(rp_psn_seen(&p, 2));
	assert_false(rp_psn_seen(&p, 3));
	assert_false(rp_psn_seen(&p, 10)); /* not yet sent */
	rp_psn_nak(&p, 100, 3);
	for (uint32_t i = 3; i < 10; i++)
		data(&p, 150 + i, i, RP_OP_RC_SEND_ONLY, &ev);
	assert_int_equal(p.go_back_n, 1);
	assert_int_equal(p.retransmissions, 7);
	assert_int_equal(p.filled, 2);
	assert_int_equal(p.missing, 0);
	assert_int_equal(p.duplicates, 5);
	assert_int_equal(p.reordered, 0);
	assert_int_equal(p.messages, 10);
	/* A QP's first packet arriving bad starts it there. */
	rp_psn_init(&p);
	assert_true(rp_psn_hole(&p, 500));
	data(&p, 1, 501, RP_OP_RC_SEND_ONLY, &ev);
	assert_int_equal(p.first, 500);
	assert_int_equal(p.missing, 1);
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
		assert_int_equal(ev.verdict, RP_PSN_DUPLICATE);
		assert_true(ev.resent);
	}
	assert_int_equal(p.missing, 0);
	assert_int_equal(p.filled, 1);
	/* 5..9 all sent again: 5 retransmitted, of which 4 (6..9) duplicates */
	assert_int_equal(p.retransmissions, 5);
	assert_int_equal(p.duplicates, 4);
	assert_int_equal(p.reordered, 0);
	assert_int_equal(p.go_back_n, 1);
	assert_int_equal(p.rewinds, 1);
	assert_int_equal(p.naks, 1);
}

/* 0..19 sent, 5 and 7 lost before the capture point; NAK(5); go-back-N
 * resends 5..14 (N = 10: k = 2 fill the gaps 5 and 7, 8 were seen: 6, 8..14),
 * then 15 and 16 (seen before: 2 more duplicates, resent too); 20..24 new, 26
 * before 25 (a late packet, no NAK: reordered, not resent), 27.
 * By hand: retransmissions 10 + 2 = 12, duplicates 8 + 2 = 10, filled 3
 * (5, 7, 25), reordered 1 (25), gaps 3 (5, 7, 25 skipped), missing 0. */
static void go_back_n_counts_resent_apart_from_duplicates(void **state)
{
	(void)state;
	struct rp_psn p;
	struct rp_psn_event ev;
	rp_psn_init(&p);
	uint64_t t = 0;
	for (uint32_t i = 0; i < 20; i++)
		if (i != 5 && i != 7)
			data(&p, t++, i, RP_OP_RC_SEND_ONLY, &ev);
	rp_psn_nak(&p, t++, 5);
	unsigned resent = 0, fills = 0;
	for (uint32_t i = 5; i < 15; i++) {
		data(&p, t++, i, RP_OP_RC_SEND_ONLY, &ev);
		resent += ev.resent;
		fills += ev.verdict == RP_PSN_FILLED;
	}
	assert_int_equal(resent, 10);
	assert_int_equal(fills, 2);
	assert_int_equal(p.retransmissions, 10);
	assert_int_equal(p.duplicates, 8);
	data(&p, t++, 15, RP_OP_RC_SEND_ONLY, &ev);
	data(&p, t++, 16, RP_OP_RC_SEND_ONLY, &ev);
	assert_true(ev.resent && ev.verdict == RP_PSN_DUPLICATE);
	for (uint32_t i = 20; i < 25; i++) {
		data(&p, t++, i, RP_OP_RC_SEND_ONLY, &ev);
		assert_false(ev.resent);
	}
	data(&p, t++, 26, RP_OP_RC_SEND_ONLY, &ev);
	data(&p, t++, 25, RP_OP_RC_SEND_ONLY, &ev);
	assert_int_equal(ev.verdict, RP_PSN_FILLED);
	assert_false(ev.resent);
	data(&p, t++, 27, RP_OP_RC_SEND_ONLY, &ev);
	assert_int_equal(p.retransmissions, 12);
	assert_int_equal(p.duplicates, 10);
	assert_int_equal(p.filled, 3);
	assert_int_equal(p.reordered, 1);
	assert_int_equal(p.gaps, 3);
	assert_int_equal(p.missing, 0);
	assert_int_equal(p.go_back_n, 1);
	assert_int_equal(p.packets, 18 + 10 + 2 + 5 + 3);
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

/* A message whose LAST is lost: the next message's FIRST (after the gap)
 * starts its own time, 100000 -> 102000 ns is 2000, not 102000 - 1000. */
static void message_after_a_lost_last(void **state)
{
	(void)state;
	struct rp_psn p;
	struct rp_psn_event ev;
	rp_psn_init(&p);
	data(&p, 1000, 0, RP_OP_RC_WRITE_FIRST, &ev);
	data(&p, 1100, 1, RP_OP_RC_WRITE_MIDDLE, &ev); /* PSN 2, its LAST, never arrives */
	data(&p, 100000, 3, RP_OP_RC_WRITE_FIRST, &ev);
	assert_int_equal(ev.verdict, RP_PSN_GAP);
	data(&p, 101000, 4, RP_OP_RC_WRITE_MIDDLE, &ev);
	data(&p, 102000, 5, RP_OP_RC_WRITE_LAST, &ev);
	assert_true(ev.msg_done && ev.multi_packet);
	assert_int_equal(ev.msg_ns, 2000);
	/* the same FIRST again (a duplicate) does not restart its message */
	data(&p, 103000, 6, RP_OP_RC_WRITE_FIRST, &ev);
	data(&p, 103500, 7, RP_OP_RC_WRITE_MIDDLE, &ev);
	data(&p, 103700, 6, RP_OP_RC_WRITE_FIRST, &ev);
	assert_int_equal(ev.verdict, RP_PSN_DUPLICATE);
	data(&p, 104000, 8, RP_OP_RC_WRITE_LAST, &ev);
	assert_true(ev.msg_done && ev.multi_packet);
	assert_int_equal(ev.msg_ns, 1000);
}

/* The window holds no bitmap while every PSN came in order (win.h); what it
 * remembers must not depend on that. 0..99 in order: 50 again is a
 * duplicate and seen, 100 not yet seen. Then 105 (101..104 skipped: the
 * bitmap is made here, with 0..100 in it): 50 and 100 still seen, 102
 * fills a gap (late: reordered), 103 is not seen, 102 again a duplicate. */
static void dense_window_then_bitmap(void **state)
{
	(void)state;
	struct rp_psn p;
	struct rp_psn_event ev;
	rp_psn_init(&p);
	for (uint32_t i = 0; i <= 100; i++) {
		data(&p, i, i, RP_OP_RC_SEND_ONLY, &ev);
		assert_int_equal(ev.verdict, RP_PSN_IN_ORDER);
	}
	assert_null(p.win.bits);
	assert_true(rp_psn_seen(&p, 50));
	assert_true(rp_psn_seen(&p, 0));
	assert_false(rp_psn_seen(&p, 101));
	data(&p, 200, 50, RP_OP_RC_SEND_ONLY, &ev);
	assert_int_equal(ev.verdict, RP_PSN_DUPLICATE);
	assert_null(p.win.bits);
	data(&p, 300, 105, RP_OP_RC_SEND_ONLY, &ev);
	assert_int_equal(ev.verdict, RP_PSN_GAP);
	assert_non_null(p.win.bits);
	assert_int_equal(p.skipped, 4);
	assert_true(rp_psn_seen(&p, 50));
	assert_true(rp_psn_seen(&p, 100));
	assert_true(rp_psn_seen(&p, 0));
	assert_false(rp_psn_seen(&p, 103));
	data(&p, 400, 102, RP_OP_RC_SEND_ONLY, &ev);
	assert_int_equal(ev.verdict, RP_PSN_FILLED);
	data(&p, 500, 102, RP_OP_RC_SEND_ONLY, &ev);
	assert_int_equal(ev.verdict, RP_PSN_DUPLICATE);
	data(&p, 600, 7, RP_OP_RC_SEND_ONLY, &ev);
	assert_int_equal(ev.verdict, RP_PSN_DUPLICATE);
	assert_int_equal(p.missing, 3);
	assert_int_equal(p.duplicates, 3);
	assert_int_equal(p.filled, 1);
	rp_psn_free(&p);
	assert_null(p.win.bits);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(gaps_not_filled_are_lost),
		cmocka_unit_test(wraps_at_24_bits),
		cmocka_unit_test(bad_icrc_holds_its_place),
		cmocka_unit_test(go_back_n_after_nak),
		cmocka_unit_test(go_back_n_counts_resent_apart_from_duplicates),
		cmocka_unit_test(message_completion_first_to_last),
		cmocka_unit_test(message_after_a_lost_last),
		cmocka_unit_test(dense_window_then_bitmap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
