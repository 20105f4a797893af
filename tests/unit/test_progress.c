/* Progress lines' share done and time left (lib/stats/progress.h) against hand-written text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "stats/progress.h"

static void spans_in_their_unit(void **state)
{
	(void)state;
	char b[32];
	const struct {
		double s;
		const char *want;
	} c[] = {
		{0, "0.0 s"},     {-1, "0.0 s"},     {0.26, "0.3 s"},    {7.00001, "7.0 s"}, {9.94, "9.9 s"},
		{9.96, "10 s"},   {59.5, "60 s"},    {119.4, "119 s"},   {119.6, "2 min"},  {3599, "60 min"},
		{7199, "120 min"}, {7200, "2.0 h"},  {86400 * 2, "48.0 h"},
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		rp_progress_span(c[i].s, b, sizeof(b));
		assert_string_equal(b, c[i].want);
	}
}

static void left_says_share_and_rest(void **state)
{
	(void)state;
	char b[64];
	rp_progress_left(3.0, 10.0, b, sizeof(b));
	assert_string_equal(b, " of 10.0s (30%), 7.0 s left");
	rp_progress_left(1.00002, 3.00001, b, sizeof(b)); /* a flow's end a few us past the second */
	assert_string_equal(b, " of 3.0s (33%), 2.0 s left");
	rp_progress_left(9.9, 10.0, b, sizeof(b)); /* not 100% until it is */
	assert_string_equal(b, " of 10.0s (99%), 0.1 s left");
	rp_progress_left(2.99998, 3.00001, b, sizeof(b)); /* the line at 3.0 s, the last packet due after it */
	assert_string_equal(b, " of 3.0s (100%), 0.0 s left");
	rp_progress_left(12.0, 10.0, b, sizeof(b)); /* a drain past the planned end */
	assert_string_equal(b, " of 10.0s (100%), 0.0 s left");
	rp_progress_left(1.0, 7200.0, b, sizeof(b));
	assert_string_equal(b, " of 7200.0s (0%), 120 min left");
	rp_progress_left(3.0, 0, b, sizeof(b)); /* the end is not known: elapsed only */
	assert_string_equal(b, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(spans_in_their_unit),
		cmocka_unit_test(left_says_share_and_rest),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
