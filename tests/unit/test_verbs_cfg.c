/* lib/verbs's session settings without a device: the defaults, the mode's
 * defaults for what the user left out (perftest's), UD's rules as codes,
 * and the start PSNs from an explicit seed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "verbs/conn.h"
#include "verbs/ep.h"

static enum rp_ep_cfg_err settle(struct rp_ep_cfg *c, struct rp_ep_given g)
{
	size_t bad = 0;
	return rp_ep_cfg_settle(c, &g, &bad);
}

static void defaults_per_mode(void **state)
{
	(void)state;
	struct rp_ep_cfg c;
	rp_ep_cfg_init(&c);
	assert_int_equal(c.tcp_port, 18520);
	assert_int_equal(c.gid_index, -1);
	assert_int_equal(c.connect_timeout_ms, 30000);
	assert_int_equal(c.rx_depth, 512);
	assert_int_equal(c.nqp, 1);
	assert_int_equal(c.op, RP_OP_WRITE);
	assert_int_equal(c.mode, RP_MODE_LAT);
	assert_int_equal(settle(&c, (struct rp_ep_given){0}), RP_EPC_OK);
	/* lat: 2 B, 1000 iterations, tx depth 64, cq-mod 1, inline 220 */
	assert_int_equal(c.nsizes, 1);
	assert_int_equal(c.sizes[0], 2);
	assert_int_equal(c.iters, 1000);
	assert_int_equal(c.tx_depth, 64);
	assert_int_equal(c.cq_mod, 1);
	assert_int_equal(c.inline_size, 220);

	rp_ep_cfg_init(&c);
	c.mode = RP_MODE_BW;
	assert_int_equal(settle(&c, (struct rp_ep_given){0}), RP_EPC_OK);
	/* bw: 64 KiB, 5000 iterations, tx depth 128, cq-mod 100, no inline */
	assert_int_equal(c.sizes[0], 65536);
	assert_int_equal(c.iters, 5000);
	assert_int_equal(c.tx_depth, 128);
	assert_int_equal(c.cq_mod, 100);
	assert_int_equal(c.inline_size, 0);

	rp_ep_cfg_init(&c);
	c.mode = RP_MODE_RATE;
	assert_int_equal(settle(&c, (struct rp_ep_given){.sweep = true, .duration = true}), RP_EPC_OK);
	/* the sweep: 2, 4, ..., 8 MiB = 2^1 .. 2^23: 23 sizes; a duration, no iterations */
	assert_int_equal(c.nsizes, 23);
	assert_int_equal(c.sizes[22], 8388608);
	assert_int_equal(c.iters, 0);

	rp_ep_cfg_init(&c);
	c.tx_depth = 8;
	c.cq_mod = 0;
	c.inline_size = 0;
	assert_int_equal(settle(&c, (struct rp_ep_given){.tx_depth = true, .cq_mod = true, .inline_size = true}),
			 RP_EPC_OK);
	assert_int_equal(c.tx_depth, 8);  /* given: kept */
	assert_int_equal(c.cq_mod, 1);    /* 0 means every send */
	assert_int_equal(c.inline_size, 0);
}

static void combinations_refused(void **state)
{
	(void)state;
	struct rp_ep_cfg c;
	rp_ep_cfg_init(&c);
	assert_int_equal(settle(&c, (struct rp_ep_given){.iters = true, .duration = true}), RP_EPC_ITERS_AND_DURATION);
	rp_ep_cfg_init(&c);
	c.iters = 0;
	assert_int_equal(settle(&c, (struct rp_ep_given){.iters = true}), RP_EPC_ITERS_ZERO);
	rp_ep_cfg_init(&c);
	c.tx_depth = 3;
	assert_int_equal(settle(&c, (struct rp_ep_given){.tx_depth = true}), RP_EPC_TX_DEPTH);
	rp_ep_cfg_init(&c);
	c.rx_depth = 0;
	assert_int_equal(settle(&c, (struct rp_ep_given){0}), RP_EPC_RX_DEPTH);
	rp_ep_cfg_init(&c);
	c.nqp = 0;
	assert_int_equal(settle(&c, (struct rp_ep_given){0}), RP_EPC_QPS);
	rp_ep_cfg_init(&c);
	c.nqp = 2;
	assert_int_equal(settle(&c, (struct rp_ep_given){0}), RP_EPC_LAT_QPS);
	rp_ep_cfg_init(&c);
	c.ud_timeout_ms = 500;
	assert_int_equal(settle(&c, (struct rp_ep_given){0}), RP_EPC_UD_TIMEOUT);
}

static void ud_rules(void **state)
{
	(void)state;
	struct rp_ep_cfg c;
	rp_ep_cfg_init(&c);
	c.ud = true;
	assert_int_equal(settle(&c, (struct rp_ep_given){0}), RP_EPC_OK);
	assert_int_equal(c.op, RP_OP_SEND); /* UD's op, unless one was given */
	assert_int_equal(c.ud_timeout_ms, 1000);
	assert_int_equal(settle(&c, (struct rp_ep_given){.server = true}), RP_EPC_UD_SERVER);
	rp_ep_cfg_init(&c);
	c.ud = true;
	c.op = RP_OP_READ;
	assert_int_equal(settle(&c, (struct rp_ep_given){.op = true}), RP_EPC_UD_READ);
	c.op = RP_OP_WRITE_IMM;
	assert_int_equal(settle(&c, (struct rp_ep_given){.op = true}), RP_EPC_UD_WRITE);
	rp_ep_cfg_init(&c);
	c.ud = true;
	c.mode = RP_MODE_BW;
	assert_int_equal(settle(&c, (struct rp_ep_given){0}), RP_EPC_UD_MODE);
	rp_ep_cfg_init(&c);
	c.ud = c.cm = true;
	assert_int_equal(settle(&c, (struct rp_ep_given){0}), RP_EPC_UD_CM);
	rp_ep_cfg_init(&c);
	c.ud = true;
	assert_int_equal(settle(&c, (struct rp_ep_given){.sweep = true}), RP_EPC_UD_SWEEP);
	rp_ep_cfg_init(&c);
	c.ud = true;
	c.sizes[0] = 2;
	c.sizes[1] = 4096; /* fits the largest MTU */
	c.sizes[2] = 4097;
	c.nsizes = 3;
	size_t bad = 0;
	struct rp_ep_given g = {.sizes = true};
	assert_int_equal(rp_ep_cfg_settle(&c, &g, &bad), RP_EPC_UD_SIZE);
	assert_int_equal(bad, 4097);
}

/* splitmix64's first two outputs from state 0 are 0xe220a8397b1dcdaf and
 * 0x6e789e6aa1b965f4 (its reference implementation); a PSN is the low 24
 * bits. The same seed gives the same PSNs: no hidden global state. */
static void start_psns_from_the_seed(void **state)
{
	(void)state;
	assert_int_equal(rp_conn_start_psn(0, 0), 0x1dcdaf);
	assert_int_equal(rp_conn_start_psn(0, 1), 0xb965f4);
	assert_int_equal(rp_conn_start_psn(12345, 0), rp_conn_start_psn(12345, 0));
	for (unsigned q = 0; q < RP_MAX_QP; q++)
		assert_true(rp_conn_start_psn(7, q) <= 0xffffff);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults_per_mode),
		cmocka_unit_test(combinations_refused),
		cmocka_unit_test(ud_rules),
		cmocka_unit_test(start_psns_from_the_seed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
