/* lib/report/plan_*.c: a plan as `roceprobe plan` shows it, text and JSON,
 * from a small profile whose numbers are worked out by hand below. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "profile/profile.h"
#include "report/plan_report.h"
#include "traffic/plan.h"

/* h0 -> h1: 4 messages of 4 KiB at MTU 1024 = 4 x 4 = 16 packets, 4 x 4096 =
 * 16384 payload bytes, at 25G of a 100G link = 25%. */
static const char ONE[] = "hosts:\n"
			  "  - {name: h0, mac: \"02:00:00:00:00:01\", ipv4: 10.0.0.1, speed: 100G}\n"
			  "  - {name: h1, mac: \"02:00:00:00:00:02\", ipv4: 10.0.0.2, speed: 100G}\n"
			  "traffic:\n"
			  "  - {name: one, pattern: flow, src: h0, dst: h1, rate: 25G, messages: 4, message_size: 4KiB,"
			  " mtu: 1024}\n";

/* 2 senders at 60G each into h2's 100G link: 120 / 100 = 120% received. */
static const char INCAST[] = "hosts:\n"
			     "  - {name: s0, mac: \"02:00:00:00:00:01\", ipv4: 10.0.0.1, speed: 100G}\n"
			     "  - {name: s1, mac: \"02:00:00:00:00:02\", ipv4: 10.0.0.2, speed: 100G}\n"
			     "  - {name: r, mac: \"02:00:00:00:00:03\", ipv4: 10.0.0.3, speed: 100G}\n"
			     "traffic:\n"
			     "  - {name: in, pattern: incast, senders: [s0, s1], receiver: r, rate: 60G, messages: 2,"
			     " message_size: 1KiB, mtu: 1024}\n";

struct built {
	struct rp_profile *p;
	struct rp_plan pl;
};

static void build(const char *yaml, struct built *b)
{
	char err[RP_PROFILE_ERR_LEN];
	b->p = rp_profile_load_string("t.yaml", yaml, NULL, err, sizeof(err));
	if (!b->p)
		fail_msg("%s", err);
	if (rp_plan_build(b->p, &b->pl, err, sizeof(err)))
		fail_msg("%s", err);
}

static void drop(struct built *b)
{
	rp_plan_free(&b->pl);
	rp_profile_free(b->p);
}

/* The text tables into a string (free it). */
static char *text_of(const struct rp_plan *pl, const int *host_rank)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	rp_plan_print_text(f, "t.yaml", pl, host_rank);
	fclose(f);
	return buf;
}

static void test_link_pct(void **state)
{
	(void)state;
	assert_true(rp_plan_link_pct(40e9, 100000000000ull) == 40.0);
	assert_true(rp_plan_link_pct(40e9, 0) == 0.0); /* a link of unknown speed */
}

static void test_text(void **state)
{
	(void)state;
	struct built b;
	build(ONE, &b);
	char *t = text_of(&b.pl, NULL);
	assert_non_null(strstr(t, "profile t.yaml\n\nhosts (2)\n"));
	assert_non_null(strstr(t, "\n  h0           (0)    02:00:00:00:00:01 10.0.0.1 "));
	/* "  %-12s -> %-12s %14" PRIu64 " B %12" PRIu64 " packets" */
	assert_non_null(strstr(t, "\n  h0           -> h1                    16384 B           16 packets\n"));
	/* "  %-12s %11.3f %7.1f%% %11.3f %7.1f%%" */
	assert_non_null(strstr(t, "\n  h0                25.000    25.0%       0.000     0.0%\n"));
	assert_non_null(strstr(t, "\n  h1                 0.000     0.0%      25.000    25.0%\n"));
	assert_null(strstr(t, "OVERSUBSCRIBED"));
	free(t);
	/* bound by a launch: host 0 on rank 3, host 1 on rank 5 */
	int ranks[2] = {3, 5};
	t = text_of(&b.pl, ranks);
	assert_non_null(strstr(t, "\n  h0           3      02:00:00:00:00:01"));
	assert_non_null(strstr(t, "\n  h1           5      02:00:00:00:00:02"));
	free(t);
	drop(&b);
}

static void test_text_oversubscribed(void **state)
{
	(void)state;
	struct built b;
	build(INCAST, &b);
	char *t = text_of(&b.pl, NULL);
	assert_non_null(strstr(t, "\n  r                  0.000     0.0%     120.000   120.0%  RX OVERSUBSCRIBED\n"));
	assert_null(strstr(t, "TX OVERSUBSCRIBED"));
	free(t);
	drop(&b);
}

static void test_json(void **state)
{
	(void)state;
	struct built b;
	build(ONE, &b);
	json_t *j = rp_plan_json("t.yaml", &b.pl, NULL);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "schema")), "roceprobe.plan/1");
	assert_string_equal(json_string_value(json_object_get(j, "profile")), "t.yaml");
	json_t *h = json_array_get(json_object_get(j, "hosts"), 0);
	assert_true(json_is_null(json_object_get(h, "rank")));
	assert_string_equal(json_string_value(json_object_get(h, "mac")), "02:00:00:00:00:01");
	json_t *pair = json_array_get(json_object_get(j, "pairs"), 0);
	assert_int_equal(json_array_size(json_object_get(j, "pairs")), 1);
	assert_string_equal(json_string_value(json_object_get(pair, "src")), "h0");
	assert_string_equal(json_string_value(json_object_get(pair, "dst")), "h1");
	assert_int_equal(json_integer_value(json_object_get(pair, "bytes")), 16384);
	assert_int_equal(json_integer_value(json_object_get(pair, "packets")), 16);
	json_t *f = json_array_get(json_object_get(j, "flows"), 0);
	assert_int_equal(json_integer_value(json_object_get(f, "packets")), 16);
	assert_int_equal(json_integer_value(json_object_get(f, "messages")), 4);
	assert_int_equal(json_integer_value(json_object_get(f, "message_size")), 4096);
	assert_int_equal(json_array_size(json_object_get(f, "udp_sports")), 1); /* qps 1 */
	json_t *port = json_array_get(json_object_get(j, "ports"), 0);
	assert_true(json_real_value(json_object_get(port, "tx_pct")) == 25.0);
	assert_true(json_is_false(json_object_get(port, "oversubscribed")));
	json_decref(j);
	int ranks[2] = {3, 5};
	j = rp_plan_json("t.yaml", &b.pl, ranks);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(json_object_get(j, "hosts"), 1), "rank")), 5);
	json_decref(j);
	drop(&b);
	build(INCAST, &b);
	j = rp_plan_json("t.yaml", &b.pl, NULL);
	port = json_array_get(json_object_get(j, "ports"), 2);
	assert_true(json_real_value(json_object_get(port, "rx_pct")) == 120.0);
	assert_true(json_is_true(json_object_get(port, "oversubscribed")));
	json_decref(j);
	drop(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_link_pct),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_text_oversubscribed),
		cmocka_unit_test(test_json),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
