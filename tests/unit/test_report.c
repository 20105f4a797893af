/* result.json objects from an accountant, and the atomic writer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "report/pairs.h"
#include "report/result.h"

static struct rp_acct *one_flow_acct(void)
{
	static const struct rp_acct_flow_cfg fl = {.id = 0, .src = "h1", .dst = "rx", .l3 = 4, .src_ip4 = 1,
						   .dst_ip4 = 2, .lqpn = 18, .rqpn = 18, .qps = 1, .prio = 3, .dscp = 26};
	static const struct rp_acct_port_cfg port = {.node = "h1", .port = 0, .speed_bps = 100000000000ull};
	struct rp_acct_cfg c = {.flows = &fl, .nflows = 1, .ports = &port, .nports = 1, .run_ns = 1000000};
	char err[128];
	struct rp_acct *a = rp_acct_create(&c, err, sizeof(err));
	assert_non_null(a);
	rp_acct_set_tx(a, 0, 10, 1000);
	rp_acct_finish(a, 1000000, NULL);
	return a;
}

static void flow_fields_have_the_documented_names(void **state)
{
	(void)state;
	struct rp_acct *a = one_flow_acct();
	json_t *flows = rp_report_flows(a);
	json_t *f = json_array_get(flows, 0);
	const char *names[] = {"id", "src", "dst", "qpn", "dscp", "prio", "tx_packets", "tx_bytes", "rx_packets",
			       "rx_bytes", "lost", "reordered", "duplicates", "ce", "cnp_tx", "cnp_rx", "acks", "naks",
			       "goodput_gbps", "latency_ns"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		assert_non_null(json_object_get(f, names[i]));
	assert_int_equal(json_integer_value(json_object_get(f, "lost")), 10); /* nothing arrived */
	assert_int_equal(json_integer_value(json_object_get(f, "qpn")), 18);
	json_t *lat = json_object_get(f, "latency_ns");
	const char *lnames[] = {"count", "min", "mean", "stdev", "p50", "p90", "p99", "p999", "p9999", "p99999",
				"max", "histogram"};
	for (size_t i = 0; i < sizeof(lnames) / sizeof(lnames[0]); i++)
		assert_non_null(json_object_get(lat, lnames[i]));
	json_t *ports = rp_report_ports(a);
	json_t *p3 = json_array_get(json_object_get(json_array_get(ports, 0), "prio"), 3);
	assert_true(json_is_null(json_object_get(p3, "first_pause_ns")));
	assert_int_equal(json_integer_value(json_object_get(p3, "prio")), 3);
	json_t *ts = rp_report_timeseries(a);
	assert_int_equal(json_integer_value(json_object_get(ts, "bin_ns")), 100000);
	json_decref(flows);
	json_decref(ports);
	json_decref(ts);
	rp_acct_destroy(a);
}

static void atomic_write_replaces_the_file(void **state)
{
	(void)state;
	char dir[] = "/tmp/rp_report_XXXXXX", path[64], err[256];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/result.json", dir);
	json_t *root = json_pack("{s:s, s:i}", "schema", "roceprobe.result/1", "n", 1);
	assert_int_equal(rp_report_write_atomic(path, root, err, sizeof(err)), 0);
	json_object_set_new(root, "n", json_integer(2));
	assert_int_equal(rp_report_write_atomic(path, root, err, sizeof(err)), 0);
	json_error_t je;
	json_t *back = json_load_file(path, 0, &je);
	assert_non_null(back);
	assert_int_equal(json_integer_value(json_object_get(back, "n")), 2);
	json_decref(back);
	assert_int_equal(rp_report_write_atomic("/nonexistent-dir/result.json", root, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent-dir/result.json"));
	json_decref(root);
	unlink(path);
	rmdir(dir);
}

/* rp_pairs_flag on rows as a run would give them: issue 30's cases. */
static struct rp_pair_result row(double good, double expected, uint64_t tx, uint64_t lost_lossless, uint64_t tx_lossy,
				 uint64_t lost_lossy)
{
	struct rp_pair_result r = {.flows = 1, .goodput_gbps = good, .expected_gbps = expected, .p99_ns = 1000};
	r.tx_packets = tx + tx_lossy;
	r.lost = lost_lossless + lost_lossy;
	r.loss_pct = r.tx_packets ? 100.0 * (double)r.lost / (double)r.tx_packets : 0;
	r.lost_lossless = lost_lossless;
	r.tx_lossy = tx_lossy;
	r.lost_lossy = lost_lossy;
	return r;
}

static void flag(const struct rp_pair_result *rows, size_t n, unsigned *fl, double *bar)
{
	double peers[8];
	struct rp_pairs_medians med;
	assert_int_equal(rp_pairs_flag(rows, n, fl, peers, bar, &med), 0);
}

static void a_pair_at_its_own_plan_is_not_slow(void **state)
{
	(void)state;
	/* Three pairs planned at 40G reaching 39.5, one planned at 10G reaching 9.9.
	 * The median rule: median 39.5, 9.9 < 0.9 x 39.5 = 35.55: SLOW at its plan.
	 * Against its plan: 9.9 / 10 = 0.99 >= 0.9; nothing stands out. */
	struct rp_pair_result r[4] = {row(39.5, 40, 1000, 0, 0, 0), row(39.5, 40, 1000, 0, 0, 0),
				      row(39.5, 40, 1000, 0, 0, 0), row(9.9, 10, 250, 0, 0, 0)};
	unsigned fl[4];
	double bar[4];
	flag(r, 4, fl, bar);
	for (int i = 0; i < 4; i++)
		assert_int_equal(fl[i], 0);
	/* the others reached 39.5 / 40 = 0.9875 of theirs: 0.9 x 0.9875 x 10 = 8.8875 */
	assert_true(bar[3] > 8.8874 && bar[3] < 8.8876);
	/* One pair alone at half its plan: 50 < 0.9 x 100: SLOW (no peers to scale by). */
	struct rp_pair_result one = row(50, 100, 1000, 0, 0, 0);
	flag(&one, 1, fl, bar);
	assert_int_equal(fl[0], RP_PAIR_SLOW);
	/* Four pairs reached 0.8, 0.8, 0.8 and 0.5 of their plans (a fabric slower than
	 * planned). For 0.5 the others' median is 0.8: SLOW below 0.9 x 0.8 = 0.72 of
	 * plan, and 0.5 is; for each 0.8 the others' median (0.8, 0.8, 0.5) is 0.8 and
	 * 0.8 >= 0.72: the one at 0.5 stands out, not the whole fabric. */
	struct rp_pair_result f[4] = {row(80, 100, 1000, 0, 0, 0), row(8, 10, 100, 0, 0, 0), row(40, 50, 500, 0, 0, 0),
				      row(10, 20, 200, 0, 0, 0)};
	flag(f, 4, fl, bar);
	assert_int_equal(fl[0], 0);
	assert_int_equal(fl[1], 0);
	assert_int_equal(fl[2], 0);
	assert_int_equal(fl[3], RP_PAIR_SLOW);
	assert_true(bar[3] > 14.39 && bar[3] < 14.41); /* 0.9 x 0.8 x 20 = 14.4 Gbit/s */
}

static void loss_on_a_lossless_priority_stands_out(void **state)
{
	(void)state;
	/* Two pairs, one losing 10%: the median rule took the median of 0% and 10%,
	 * 5%, and 10% is not above 2 x 5%: "none stands out". */
	struct rp_pair_result two[2] = {row(90, 91, 1000, 100, 0, 0), row(91, 91, 1000, 0, 0, 0)};
	unsigned fl[4];
	double bar[4];
	flag(two, 2, fl, bar);
	assert_int_equal(fl[0], RP_PAIR_LOSSY); /* 100 lost on a lossless priority */
	assert_int_equal(fl[1], 0);
	/* The same on a lossy priority: its peer lost 0%, 10% > 2 x 0%: LOSSY. */
	struct rp_pair_result lossy[2] = {row(90, 91, 0, 0, 1000, 100), row(91, 91, 0, 0, 1000, 0)};
	flag(lossy, 2, fl, bar);
	assert_int_equal(fl[0], RP_PAIR_LOSSY);
	assert_int_equal(fl[1], 0);
	/* Three pairs losing 26%, 30% and 35% on a lossless priority beside a loss-free
	 * pair planned at 20 Mbit/s that reached 19.9: the median rule (median goodput
	 * of 0.07, 0.07, 0.06, 0.0199 is 0.065) called the 20M pair SLOW (0.0199 <
	 * 0.0585) and no loss above 2 x 28%. Each against its plan: the three LOSSY,
	 * the 20M pair (0.995 of its plan) nothing. */
	struct rp_pair_result mix[4] = {row(0.07, 0.1, 1000, 260, 0, 0), row(0.07, 0.1, 1000, 300, 0, 0),
					row(0.06, 0.1, 1000, 350, 0, 0), row(0.0199, 0.02, 1000, 0, 0, 0)};
	flag(mix, 4, fl, bar);
	assert_int_equal(fl[0], RP_PAIR_LOSSY);
	assert_int_equal(fl[1], RP_PAIR_LOSSY);
	assert_int_equal(fl[2], RP_PAIR_LOSSY | RP_PAIR_SLOW); /* 0.6 of plan; the others' median 0.7: 0.6 < 0.63 */
	assert_int_equal(fl[3], 0);
	/* Lossy pairs all losing alike (a congested lossy queue, by design): 30%, 32%,
	 * 31%: each against the others' median (31.5, 30.5, 31): none above 2 x. */
	struct rp_pair_result same[3] = {row(50, 50, 0, 0, 1000, 300), row(50, 50, 0, 0, 1000, 320),
					 row(50, 50, 0, 0, 1000, 310)};
	flag(same, 3, fl, bar);
	assert_int_equal(fl[0] | fl[1] | fl[2], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(flow_fields_have_the_documented_names),
		cmocka_unit_test(atomic_write_replaces_the_file),
		cmocka_unit_test(a_pair_at_its_own_plan_is_not_slow),
		cmocka_unit_test(loss_on_a_lossless_priority_stands_out),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
