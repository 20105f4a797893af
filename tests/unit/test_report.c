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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(flow_fields_have_the_documented_names),
		cmocka_unit_test(atomic_write_replaces_the_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
