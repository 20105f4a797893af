/* Impairments: the fates a test relies on, exactly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fabric/impair.h"

static void drop_every_and_burst(void **state)
{
	(void)state;
	struct rp_impair cfg = {.drop_every = 7, .drop_from = 100, .drop_count = 20, .ce_every = 5};
	struct rp_impair_state s;
	rp_impair_init(&s, &cfg);
	uint64_t drops = 0, marks = 0;
	for (int i = 1; i <= 10000; i++) {
		enum rp_impair_fate f = rp_impair_next(&s);
		drops += f == RP_IMPAIR_DROP;
		marks += f == RP_IMPAIR_MARK_CE;
	}
	/* every 7th: 1428; the burst 100..119 adds those not multiples of 7: 20 - 3 (105, 112, 119) */
	assert_int_equal(drops, 1428 + 17);
	assert_int_equal(s.dropped, drops);
	/* every 5th: 2000, less those dropped: multiples of 35 (285) and 100..119's 100,110,115 (105 is a 35) */
	assert_int_equal(marks, 2000 - 285 - 3);
	assert_true(rp_impair_active(&s));
	struct rp_impair none = {0};
	rp_impair_init(&s, &none);
	assert_false(rp_impair_active(&s));
	assert_int_equal(rp_impair_next(&s), RP_IMPAIR_PASS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(drop_every_and_burst),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
