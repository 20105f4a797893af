/* Replies held for later (stats/later.h): `run`'s paper-mode CNPs wait for
 * their window's end and go from the RX loop's clock check, earliest first. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "stats/later.h"

static struct rp_reply reply(uint32_t flow, uint64_t at)
{
	struct rp_reply r;
	memset(&r, 0, sizeof(r));
	r.n = 2; /* the CNP and an ACK decided together: only the CNP waits */
	r.msg[0] = (struct rp_reply_msg){.kind = RP_REPLY_CNP, .at_ns = at};
	r.msg[1] = (struct rp_reply_msg){.kind = RP_REPLY_ACK, .psn = 7};
	r.flow = flow;
	r.dqpn = 0x100 + flow;
	return r;
}

/* Three CNPs kept out of order (due 9000, 5000, 7000): nothing before 5000;
 * at 7000 the 5000 one then the 7000 one, each alone (n 1, at_ns 0, its
 * own address); the 9000 one at 9000. */
static void due_in_order(void **state)
{
	(void)state;
	static struct rp_later l;
	struct rp_reply out, a = reply(1, 9000), b = reply(2, 5000), c = reply(3, 7000);
	assert_true(rp_later_put(&l, &a, 0, 9000));
	assert_true(rp_later_put(&l, &b, 0, 5000));
	assert_true(rp_later_put(&l, &c, 0, 7000));
	assert_false(rp_later_take(&l, 4999, &out));
	assert_true(rp_later_take(&l, 7000, &out));
	assert_int_equal(out.flow, 2);
	assert_int_equal(out.n, 1);
	assert_int_equal(out.msg[0].kind, RP_REPLY_CNP);
	assert_int_equal(out.msg[0].at_ns, 0);
	assert_int_equal(out.dqpn, 0x102);
	assert_true(rp_later_take(&l, 7000, &out));
	assert_int_equal(out.flow, 3);
	assert_false(rp_later_take(&l, 8999, &out));
	assert_true(rp_later_take(&l, 9000, &out));
	assert_int_equal(out.flow, 1);
	assert_int_equal(l.n, 0);
	assert_int_equal(l.held, 3);
}

/* RP_LATER_MAX (16) kept; the 17th is refused (the caller sends it at
 * once) and counted. */
static void full_sends_now(void **state)
{
	(void)state;
	static struct rp_later l;
	struct rp_reply r = reply(1, 100);
	for (unsigned i = 0; i < RP_LATER_MAX; i++)
		assert_true(rp_later_put(&l, &r, 0, 100 + i));
	assert_false(rp_later_put(&l, &r, 0, 200));
	assert_int_equal(l.full, 1);
	struct rp_reply out;
	unsigned n = 0;
	while (rp_later_take(&l, 1000, &out))
		n++;
	assert_int_equal(n, 16);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(due_in_order),
		cmocka_unit_test(full_sends_now),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
