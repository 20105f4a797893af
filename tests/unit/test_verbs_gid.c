/* RoCE source GID selection on fake GID tables shaped like real ones:
 * per address a RoCE v1 and a RoCE v2 entry, link-local first. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "verbs/gid.h"

static struct rp_gid_entry ent(int index, enum rp_gid_type t, const char *kind, uint8_t last)
{
	struct rp_gid_entry e = {.index = index, .type = t};
	if (strcmp(kind, "ll") == 0) { /* fe80::5054:ff:fe9a:NN */
		e.gid[0] = 0xfe;
		e.gid[1] = 0x80;
		e.gid[8] = 0x50;
		e.gid[15] = last;
	} else if (strcmp(kind, "v4") == 0) { /* ::ffff:10.9.0.NN */
		e.gid[10] = e.gid[11] = 0xff;
		e.gid[12] = 10;
		e.gid[13] = 9;
		e.gid[15] = last;
	} else if (strcmp(kind, "v6") == 0) { /* 2001:db8::NN */
		e.gid[0] = 0x20;
		e.gid[1] = 0x01;
		e.gid[2] = 0x0d;
		e.gid[3] = 0xb8;
		e.gid[15] = last;
	}
	strcpy(e.netdev, "eth0");
	return e;
}

/* rxe0 with IPv4 10.9.0.1: 0 v1 fe80, 1 v2 fe80, 2 v1 ::ffff:10.9.0.1, 3 v2 ::ffff:10.9.0.1 */
static void prefers_roce_v2_ipv4_mapped(void **state)
{
	(void)state;
	struct rp_gid_entry t[] = {
		ent(0, RP_GID_TYPE_IB_ROCE_V1, "ll", 1),
		ent(1, RP_GID_TYPE_ROCE_V2, "ll", 1),
		ent(2, RP_GID_TYPE_IB_ROCE_V1, "v4", 1),
		ent(3, RP_GID_TYPE_ROCE_V2, "v4", 1),
	};
	char err[160];
	int i = rp_gid_select(t, 4, -1, err, sizeof(err));
	assert_int_equal(i, 3);
	assert_int_equal(t[i].index, 3);
	char s[64];
	rp_gid_format(t[i].gid, s, sizeof(s));
	assert_string_equal(s, "::ffff:10.9.0.1");
}

static void order_in_table_does_not_matter(void **state)
{
	(void)state;
	struct rp_gid_entry t[] = {
		ent(5, RP_GID_TYPE_ROCE_V2, "v6", 9),
		ent(7, RP_GID_TYPE_ROCE_V2, "v4", 2),
		ent(1, RP_GID_TYPE_ROCE_V2, "ll", 1),
		ent(4, RP_GID_TYPE_ROCE_V2, "v4", 3),
	};
	char err[160];
	int i = rp_gid_select(t, 4, -1, err, sizeof(err));
	assert_int_equal(t[i].index, 4); /* lowest index among RoCE v2 IPv4-mapped */
}

static void falls_back_to_global_ipv6_then_link_local(void **state)
{
	(void)state;
	char err[160];
	struct rp_gid_entry t[] = {
		ent(0, RP_GID_TYPE_IB_ROCE_V1, "ll", 1),
		ent(1, RP_GID_TYPE_ROCE_V2, "ll", 1),
		ent(2, RP_GID_TYPE_IB_ROCE_V1, "v6", 1),
		ent(3, RP_GID_TYPE_ROCE_V2, "v6", 1),
	};
	assert_int_equal(t[rp_gid_select(t, 4, -1, err, sizeof(err))].index, 3);
	assert_int_equal(t[rp_gid_select(t, 2, -1, err, sizeof(err))].index, 1);
}

static void override_wins_even_for_roce_v1(void **state)
{
	(void)state;
	struct rp_gid_entry t[] = {
		ent(0, RP_GID_TYPE_IB_ROCE_V1, "ll", 1),
		ent(1, RP_GID_TYPE_ROCE_V2, "ll", 1),
		ent(2, RP_GID_TYPE_IB_ROCE_V1, "v4", 1),
		ent(3, RP_GID_TYPE_ROCE_V2, "v4", 1),
	};
	char err[160];
	assert_int_equal(t[rp_gid_select(t, 4, 2, err, sizeof(err))].index, 2);
	assert_int_equal(t[rp_gid_select(t, 4, 1, err, sizeof(err))].index, 1);
	assert_int_equal(rp_gid_select(t, 4, 9, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "GID index 9"));
}

static void no_roce_v2_gid_is_an_error(void **state)
{
	(void)state;
	struct rp_gid_entry t[] = {
		ent(0, RP_GID_TYPE_IB_ROCE_V1, "ll", 1),
		ent(1, RP_GID_TYPE_IB_ROCE_V1, "v4", 1),
		ent(2, RP_GID_TYPE_UNKNOWN, "v4", 1),
	};
	char err[160] = "";
	assert_int_equal(rp_gid_select(t, 3, -1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no RoCE v2 GID"));
	assert_non_null(strstr(err, "pick a GID by its index")); /* ep names its option, --gid-index */
	assert_null(strstr(err, "--")); /* lib/verbs words settings, not CLI options */
	assert_int_equal(rp_gid_select(t, 0, -1, err, sizeof(err)), -1);
}

static void zero_entries_are_never_chosen(void **state)
{
	(void)state;
	struct rp_gid_entry t[] = {ent(0, RP_GID_TYPE_ROCE_V2, "zero", 0), ent(1, RP_GID_TYPE_ROCE_V2, "ll", 1)};
	char err[160];
	assert_int_equal(t[rp_gid_select(t, 2, -1, err, sizeof(err))].index, 1);
	assert_int_equal(rp_gid_select(t, 2, 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "empty"));
}

/* A run's host picks the RoCE v2 GID of its own address (two addresses on
 * the netdev: 10.9.0.1 and 10.9.0.2), not the lowest; none: an error. */
static void picks_the_hosts_address(void **state)
{
	(void)state;
	struct rp_gid_entry t[] = {
		ent(0, RP_GID_TYPE_IB_ROCE_V1, "ll", 1), ent(1, RP_GID_TYPE_ROCE_V2, "ll", 1),
		ent(2, RP_GID_TYPE_IB_ROCE_V1, "v4", 1), ent(3, RP_GID_TYPE_ROCE_V2, "v4", 1),
		ent(4, RP_GID_TYPE_IB_ROCE_V1, "v4", 2), ent(5, RP_GID_TYPE_ROCE_V2, "v4", 2),
	};
	char err[256];
	uint8_t want[16] = {[10] = 0xff, [11] = 0xff, [12] = 10, [13] = 9, [14] = 0, [15] = 2};
	assert_int_equal(t[rp_gid_select_addr(t, 6, -1, want, err, sizeof(err))].index, 5);
	want[15] = 1;
	assert_int_equal(t[rp_gid_select_addr(t, 6, -1, want, err, sizeof(err))].index, 3);
	assert_int_equal(t[rp_gid_select_addr(t, 6, 4, want, err, sizeof(err))].index, 4); /* gid_index wins */
	assert_int_equal(t[rp_gid_select_addr(t, 6, -1, NULL, err, sizeof(err))].index, 3);
	want[15] = 7;
	assert_int_equal(rp_gid_select_addr(t, 6, -1, want, err, sizeof(err)), -1);
	assert_string_equal(err, "no RoCE v2 GID ::ffff:10.9.0.7 (the host's address) in the port's GID table: give the "
				 "netdev that address, or pick a GID with gid_index");
}

static void sysfs_type_text(void **state)
{
	(void)state;
	assert_int_equal(rp_gid_type_parse("RoCE v2\n"), RP_GID_TYPE_ROCE_V2);
	assert_int_equal(rp_gid_type_parse("IB/RoCE v1\n"), RP_GID_TYPE_IB_ROCE_V1);
	assert_int_equal(rp_gid_type_parse(""), RP_GID_TYPE_UNKNOWN);
	struct rp_gid_entry v4 = ent(0, RP_GID_TYPE_ROCE_V2, "v4", 1), ll = ent(0, RP_GID_TYPE_ROCE_V2, "ll", 1);
	assert_true(rp_gid_is_ipv4_mapped(v4.gid));
	assert_false(rp_gid_is_ipv4_mapped(ll.gid));
	assert_true(rp_gid_is_link_local(ll.gid));
	assert_false(rp_gid_is_link_local(v4.gid));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(prefers_roce_v2_ipv4_mapped),
		cmocka_unit_test(order_in_table_does_not_matter),
		cmocka_unit_test(falls_back_to_global_ipv6_then_link_local),
		cmocka_unit_test(override_wins_even_for_roce_v1),
		cmocka_unit_test(no_roce_v2_gid_is_an_error),
		cmocka_unit_test(zero_entries_are_never_chosen),
		cmocka_unit_test(sysfs_type_text),
		cmocka_unit_test(picks_the_hosts_address),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
