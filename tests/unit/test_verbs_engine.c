/* lib/verbs/engine.c's pure part: which flows are verbs flows and where each
 * QP record of the exchange table lives, from a real plan (no RDMA device).
 *
 *   h0, h1 (engine: verbs): flow 0 h0 -> h1, 2 QPs   records 0..3
 *   h2, h3 (engine: dpdk):  flow 1 h2 -> h3          no records
 *   h1 -> h0, 3 QPs:        flow 2                   records 4..9
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "verbs/engine.h"

static void layout_of_a_mixed_plan(void **state)
{
	(void)state;
	char err[RP_PROFILE_ERR_LEN];
	struct rp_profile *p = rp_profile_load_string("t.yaml",
		"hosts:\n"
		"  - {name: h0, ipv4: 10.9.0.1, engine: verbs}\n"
		"  - {name: h1, ipv4: 10.9.0.2, engine: verbs, device: rxe0}\n"
		"  - {name: h2, mac: \"02:00:00:00:00:03\", ipv4: 10.9.0.3, port: net_null0}\n"
		"  - {name: h3, mac: \"02:00:00:00:00:04\", ipv4: 10.9.0.4, port: net_null1}\n"
		"traffic:\n"
		"  - {pattern: flow, src: h0, dst: h1, opcode: send, qps: 2, messages: 10}\n"
		"  - {pattern: flow, src: h2, dst: h3, opcode: write, messages: 10}\n"
		"  - {pattern: flow, src: h1, dst: h0, opcode: write_imm, qps: 3, messages: 10}\n",
		NULL, err, sizeof(err));
	if (!p)
		fail_msg("%s", err);
	struct rp_plan plan;
	assert_int_equal(rp_plan_build(p, &plan, err, sizeof(err)), 0);
	assert_int_equal(plan.nflows, 3);
	assert_true(rp_vengine_is_verbs(&plan, 0));
	assert_false(rp_vengine_is_verbs(&plan, 1));
	assert_true(rp_vengine_is_verbs(&plan, 2));
	size_t base[3];
	assert_int_equal(rp_vengine_layout(&plan, base), 2 * 2 + 2 * 3);
	assert_int_equal(base[0], 0);
	assert_int_equal(base[1], SIZE_MAX);
	assert_int_equal(base[2], 4);
	/* [sender's, receiver's] per QP: flow 0 h0/h1 x 2, flow 2 h1/h0 x 3. */
	static const unsigned owner[10] = {0, 1, 0, 1, 1, 0, 1, 0, 1, 0};
	for (size_t r = 0; r < 10; r++)
		assert_int_equal(rp_vengine_rec_host(&plan, r), owner[r]);
	rp_plan_free(&plan);
	rp_profile_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(layout_of_a_mixed_plan),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
