/* lib/report/result_doc: result.json's root from typed pieces, in one order,
 * streamed or as a tree. The streamed file is jansson's text of the tree
 * (the truth is jansson's json_dumps), pieces left NULL are left out, and a
 * piece that fails leaves no result.json.
 *
 *   a lab-like document: schema, kind, profile, environment {roceprobe,
 *   hostname, started 1970-01-01T00:00:00Z (0 s), wall_s}, elapsed_ns 5000,
 *   interrupted false, flows [1 flow], ports, timeseries, capture null, then
 *   the engine's "extra": 7
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "report/result.h"
#include "report/result_doc.h"

static char dir[] = "/tmp/rp-test-result-doc-XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	char *s = malloc((size_t)n + 1);
	assert_non_null(s);
	assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
	s[n] = '\0';
	fclose(f);
	return s;
}

static struct rp_acct *one_flow(void)
{
	static const struct rp_acct_flow_cfg fl = {.id = 0, .src = "h0", .dst = "h1", .l3 = 4, .qps = 1, .prio = 3};
	static const struct rp_acct_port_cfg port = {.node = "h1", .port = 0, .speed_bps = 1000000000ull};
	struct rp_acct_cfg c = {.flows = &fl, .nflows = 1, .ports = &port, .nports = 1, .run_ns = 5000};
	char err[128];
	struct rp_acct *a = rp_acct_create(&c, err, sizeof(err));
	assert_non_null(a);
	rp_acct_set_tx(a, 0, 2, 200);
	rp_acct_finish(a, 5000, NULL);
	return a;
}

static int extra(struct rp_result_out *o, void *ctx)
{
	(void)ctx;
	assert_non_null(rp_result_doc(o));
	assert_non_null(rp_result_flowset(o));
	return rp_result_put(o, "extra", json_integer(7));
}

static int fails(struct rp_result_out *o, void *ctx)
{
	(void)o;
	(void)ctx;
	return -1;
}

static void streamed_in_order(void **state)
{
	(void)state;
	struct rp_acct *a = one_flow();
	const struct rp_report_flowset fs = {.acct = a, .item = rp_report_flow_item, .ctx = a};
	struct rp_result_env env = {.version = "9.9", .hostname = "box", .started = 0,
				    .more = json_pack("{s:f}", "wall_s", 0.5)};
	struct rp_result_measured m = {.elapsed_ns = 5000, .fs = &fs, .ports = rp_report_ports(a),
				       .timeseries = rp_report_timeseries(a)};
	struct rp_result_pieces p = {.kind = "lab", .profile_name = "one", .profile_path = "one.yaml", .env = &env,
				     .measured = &m, .ext = extra};
	char err[256], path[128];
	assert_int_equal(rp_result_write(dir, &p, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/result.json", dir);
	char *got = slurp(path);
	/* the truth: the same root made by jansson, dumped by jansson */
	json_t *root = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:s, s:s, s:s, s:f}, s:i, s:b, s:o, s:o, s:o, s:n, s:i}",
				 "schema", "roceprobe.result/1", "kind", "lab", "profile", "name", "one", "path",
				 "one.yaml", "environment", "roceprobe", "9.9", "hostname", "box", "started",
				 "1970-01-01T00:00:00Z", "wall_s", 0.5, "elapsed_ns", 5000, "interrupted", 0, "flows",
				 rp_report_flows(a), "ports", rp_report_ports(a), "timeseries", rp_report_timeseries(a),
				 "capture", "extra", 7);
	char *want = json_dumps(root, JSON_INDENT(2));
	assert_non_null(want);
	assert_int_equal(strlen(got), strlen(want) + 1); /* and its newline */
	assert_memory_equal(got, want, strlen(want));
	free(want);
	free(got);
	json_decref(root);
	rp_acct_destroy(a);
}

/* ep's and certify's shape: no profile or no environment, keys before it. */
static int before(struct rp_result_out *o, void *ctx)
{
	(void)ctx;
	assert_null(rp_result_doc(o)); /* a tree */
	return rp_result_put(o, "engine", json_string("lab"));
}

static void tree_leaves_out_null_pieces(void **state)
{
	(void)state;
	struct rp_result_pieces ep = {.kind = "verbs"};
	json_t *t = rp_result_tree(&ep);
	char *s = json_dumps(t, JSON_COMPACT);
	assert_string_equal(s, "{\"schema\":\"roceprobe.result/1\",\"kind\":\"verbs\"}");
	free(s);
	json_decref(t);
	struct rp_result_env env = {.version = "9.9", .dpdk = "22.11.4", .hostname = "box", .started = 86400};
	struct rp_result_pieces cert = {.kind = "certify", .profile_name = "p", .profile_path = "p.yaml", .pre = before,
					.env = &env};
	t = rp_result_tree(&cert);
	s = json_dumps(t, JSON_COMPACT);
	/* 86400 s after the epoch: the next day */
	assert_string_equal(s, "{\"schema\":\"roceprobe.result/1\",\"kind\":\"certify\",\"profile\":{\"name\":\"p\","
			       "\"path\":\"p.yaml\"},\"engine\":\"lab\",\"environment\":{\"roceprobe\":\"9.9\","
			       "\"dpdk\":\"22.11.4\",\"hostname\":\"box\",\"started\":\"1970-01-02T00:00:00Z\"}}");
	free(s);
	json_decref(t);
}

static void a_failing_piece_leaves_no_file(void **state)
{
	(void)state;
	char sub[160], path[200], err[256];
	snprintf(sub, sizeof(sub), "%s/fail", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	struct rp_result_pieces p = {.kind = "lab", .ext = fails};
	assert_int_equal(rp_result_write(sub, &p, err, sizeof(err)), -1);
	assert_true(err[0] != '\0');
	snprintf(path, sizeof(path), "%s/result.json", sub);
	assert_int_equal(access(path, F_OK), -1);
	struct rp_result_pieces t = {.kind = "verbs", .ext = fails};
	assert_null(rp_result_tree(&t));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(streamed_in_order),
		cmocka_unit_test(tree_leaves_out_null_pieces),
		cmocka_unit_test(a_failing_piece_leaves_no_file),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
