/* A workload's latency during and outside an aggression (report/windows.h)
 * from the time series' per-bin histograms, merged from two synthetic ranks
 * (acct_pack.h) bucket by bucket. No MPI, no verbs: messages go in through
 * rp_acct_message as the verbs engine hands them over.
 *
 *   bins of 1 ms from 0; the aggression window [2.5 ms, 5 ms)
 *   bin   0 [0,1)  1 [1,2)  2 [2,3)  3 [3,4)  4 [4,5)  5 [5,6)
 *         outside  outside  edge     during   during   outside
 *   rank A (h1 receives f0, workload):  0.5 ms 1000 ns, 1.5 ms 1100, 2.7 ms 7000,
 *                                       3.5 ms 5000, 4.5 ms 6000, 5.5 ms 1200
 *   rank B (h0 receives f1, workload):  3.2 ms 9000, 5.2 ms 1300
 *          (h0 receives f2, the aggressor, not binned): 3.3 ms 500000
 *   during:  5000, 6000, 9000        -> count 3, min 5000, max 9000, p50 the 2nd: 6000's bucket
 *   outside: 1000, 1100, 1200, 1300  -> count 4, max 1300, p50 the 2nd: 1100's bucket
 *   edge: bin 2, 1 sample (7000), in neither row.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "report/windows.h"
#include "stats/acct.h"
#include "report/acct_merge.h"
#include "stats/acct_pack.h"
#include "wire/pfc.h"
#include "wire/probe.h"

#define MS 1000000ull
#define NF 3

static struct rp_acct_flow_cfg flows[NF];
static struct rp_acct_port_cfg ports[2];
static const struct rp_report_window win = {.name = "burst", .start_ns = 2 * MS + MS / 2, .end_ns = 5 * MS};

static struct rp_acct *make_as(bool results_only)
{
	static const char *const src[NF] = {"h0", "h1", "d0"}, *const dst[NF] = {"h1", "h0", "h0"};
	for (unsigned f = 0; f < NF; f++) {
		flows[f] = (struct rp_acct_flow_cfg){.id = f, .l3 = 4, .qps = 1, .bin_hist = f < 2};
		strcpy(flows[f].src, src[f]);
		strcpy(flows[f].dst, dst[f]);
	}
	strcpy(ports[0].node, "h0");
	strcpy(ports[1].node, "h1");
	ports[0].speed_bps = ports[1].speed_bps = 1000000000ull;
	struct rp_acct_cfg c = {.flows = flows, .nflows = NF, .ports = ports, .nports = 2, .run_ns = 10 * MS,
				.bin_ns = MS, .latency = true, .bin_hist = true, .results_only = results_only};
	char err[128];
	struct rp_acct *a = rp_acct_create(&c, err, sizeof(err));
	assert_non_null(a);
	return a;
}

static struct rp_acct *make(void) { return make_as(false); }
/* rank 0's merge target (acct_result.h) */
static struct rp_acct *make_merged(void) { return make_as(true); }

static void msg(struct rp_acct *a, unsigned flow, unsigned port, uint64_t seq, uint64_t at, uint64_t lat)
{
	struct rp_probe p = {.flow_id = flow, .seq = seq, .tx_ns = at - lat};
	assert_int_equal(rp_acct_message(a, flow, port, at, &p, 4096), 0);
}

static void feed_a(struct rp_acct *a)
{
	static const uint64_t at[] = {500, 1500, 2700, 3500, 4500, 5500}, lat[] = {1000, 1100, 7000, 5000, 6000, 1200};
	for (unsigned i = 0; i < 6; i++)
		msg(a, 0, 1, i, at[i] * 1000, lat[i]);
}

static void feed_b(struct rp_acct *a)
{
	msg(a, 1, 0, 0, 3200 * 1000, 9000);
	msg(a, 1, 0, 1, 5200 * 1000, 1300);
	msg(a, 2, 0, 0, 3300 * 1000, 500000);
}

static uint64_t bucket(uint64_t v)
{
	return rp_hist_bucket_hi(rp_hist_index(v));
}

static json_t *row(json_t *o, const char *side)
{
	size_t i;
	json_t *x;
	json_array_foreach(json_object_get(o, "latency"), i, x)
		if (!strcmp(json_string_value(json_object_get(x, "window")), side))
			return json_object_get(x, "latency_ns");
	fail_msg("no row %s", side);
	return NULL;
}

static int64_t num(json_t *o, const char *k)
{
	return json_integer_value(json_object_get(o, k));
}

static void check(struct rp_acct *a)
{
	json_t *o = rp_report_windows(a, &win, 1);
	assert_non_null(o);
	json_t *during = row(o, "during"), *outside = row(o, "outside");
	assert_int_equal(num(during, "count"), 3);
	assert_int_equal(num(during, "min"), 5000);
	assert_int_equal(num(during, "max"), 9000);
	assert_int_equal(num(during, "p50"), bucket(6000));
	assert_int_equal(num(during, "p99"), 9000); /* the 3rd's bucket, clamped to the max */
	assert_int_equal(num(outside, "count"), 4);
	assert_int_equal(num(outside, "max"), 1300);
	assert_int_equal(num(outside, "p50"), bucket(1100));
	assert_int_equal(num(o, "edge_bins"), 1);
	assert_int_equal(num(o, "edge_samples"), 1);
	assert_int_equal(num(o, "bin_ns"), MS);
	/* bins with samples: 0 1 2 3 4 5, each with its side */
	static const char *const side[] = {"outside", "outside", "edge", "during", "during", "outside"};
	json_t *bins = json_object_get(o, "bins");
	assert_int_equal(json_array_size(bins), 6);
	for (size_t b = 0; b < 6; b++) {
		json_t *x = json_array_get(bins, b);
		assert_int_equal(num(x, "bin"), b);
		assert_int_equal(num(x, "start_ns"), b * MS);
		assert_string_equal(json_string_value(json_object_get(x, "window")), side[b]);
	}
	assert_int_equal(num(json_object_get(json_array_get(bins, 3), "latency_ns"), "count"), 2); /* 5000, 9000 */
	json_decref(o);
}

/* One accountant that sees both ranks' messages: the reference. */
static void one_process(void **state)
{
	(void)state;
	struct rp_acct *a = make();
	feed_a(a);
	feed_b(a);
	rp_acct_finish(a, 6 * MS, NULL);
	check(a);
	rp_acct_destroy(a);
}

static uint8_t *pack(struct rp_acct *a, const bool *own, size_t *len)
{
	*len = rp_acct_pack(rp_acct_result(a), own, NULL, NULL, 0);
	uint8_t *buf = malloc(*len);
	assert_non_null(buf);
	assert_int_equal(rp_acct_pack(rp_acct_result(a), own, NULL, buf, *len), *len);
	return buf;
}

/* Two ranks, each with its receivers' flows, merged by rank 0: the same rows
 * and each bin's histogram equal to the reference's, bucket for bucket. */
static void two_ranks(void **state)
{
	(void)state;
	struct rp_acct *ra = make(), *rb = make(), *m = make_merged(), *ref = make();
	feed_a(ra);
	feed_b(rb);
	feed_a(ref);
	feed_b(ref);
	rp_acct_finish(ra, 6 * MS, NULL);
	rp_acct_finish(rb, 6 * MS, NULL);
	rp_acct_finish(ref, 6 * MS, NULL);
	static const bool own_a[NF] = {true, false, false}, own_b[NF] = {false, true, true};
	size_t la, lb;
	uint8_t *ba = pack(ra, own_a, &la), *bb = pack(rb, own_b, &lb);
	char err[256];
	assert_int_equal(rp_acct_unpack_into(rp_acct_merged(m), ba, la, err, sizeof(err)), 0);
	assert_int_equal(rp_acct_unpack_into(rp_acct_merged(m), bb, lb, err, sizeof(err)), 0);
	rp_acct_merge_done(rp_acct_merged(m));
	check(m);
	const struct rp_ts *tm = rp_acct_timeseries(m), *tr = rp_acct_timeseries(ref);
	struct rp_hist *hm = malloc(sizeof(*hm)), *hr = malloc(sizeof(*hr));
	for (size_t b = 0; b < 8; b++) {
		rp_hist_init(hm);
		rp_hist_init(hr);
		rp_shist_merge_into(hm, rp_ts_hist(tm, b));
		rp_shist_merge_into(hr, rp_ts_hist(tr, b));
		assert_int_equal(hm->count, hr->count);
		assert_memory_equal(hm->b, hr->b, sizeof(hm->b));
	}
	/* a cut buffer is refused, and nothing is left half-merged */
	struct rp_acct *cut = make_merged();
	assert_int_not_equal(rp_acct_unpack_into(rp_acct_merged(cut), ba, la - 3, err, sizeof(err)), 0);
	assert_int_equal(rp_ts_hist(rp_acct_timeseries(cut), 0)->count, 0);
	free(hm);
	free(hr);
	free(ba);
	free(bb);
	rp_acct_destroy(cut);
	rp_acct_destroy(ra);
	rp_acct_destroy(rb);
	rp_acct_destroy(m);
	rp_acct_destroy(ref);
}

/* Without bin_hist there is no table to make. */
static void not_mixed(void **state)
{
	(void)state;
	struct rp_acct_cfg c = {.flows = flows, .nflows = NF, .ports = ports, .nports = 2, .run_ns = 10 * MS,
				.bin_ns = MS, .latency = true};
	char err[128];
	struct rp_acct *a = rp_acct_create(&c, err, sizeof(err));
	assert_non_null(a);
	assert_null(rp_report_windows(a, &win, 1));
	assert_null(rp_ts_hist(rp_acct_timeseries(a), 0));
	rp_acct_destroy(a);
}

/* PFC at port h0 (index 0): one frame at 3.5 ms (during), one at 1.5 ms (outside), one at
 * 2.7 ms (the edge bin): 1 frame during, paused 100 quanta x 512 bit / 1 Gbit/s = 51200 ns
 * (the port's speed: 1G). */
static void pause_during(void **state)
{
	(void)state;
	struct rp_acct *a = make();
	uint8_t buf[64], src[6] = {2, 0, 0, 0, 0, 9};
	uint16_t q[RP_PFC_PRIOS] = {0, 0, 0, 100};
	size_t len = rp_pfc_frame_build(buf, sizeof(buf), src, 1u << 3, q);
	assert_true(len > 0);
	static const uint64_t at[] = {1500, 2700, 3500};
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(rp_acct_rx(a, 0, at[i] * 1000, buf, len, len, NULL), RP_RX_PFC);
	rp_acct_finish(a, 6 * MS, NULL);
	uint64_t frames, ns;
	rp_report_window_pause(a, 0, &win, 1, &frames, &ns);
	assert_int_equal(frames, 1);
	assert_int_equal(ns, 51200);
	rp_report_window_pause(a, 1, &win, 1, &frames, &ns);
	assert_int_equal(frames, 0);
	assert_int_equal(ns, 0);
	rp_acct_destroy(a);
}

static void sides(void **state)
{
	(void)state;
	assert_int_equal(rp_report_window_side(3 * MS, 4 * MS, &win, 1), RP_WINDOW_DURING);
	assert_int_equal(rp_report_window_side(4 * MS, 5 * MS, &win, 1), RP_WINDOW_DURING);
	assert_int_equal(rp_report_window_side(5 * MS, 6 * MS, &win, 1), RP_WINDOW_OUTSIDE);
	assert_int_equal(rp_report_window_side(2 * MS, 3 * MS, &win, 1), RP_WINDOW_EDGE);
	assert_int_equal(rp_report_window_side(0, MS, &win, 1), RP_WINDOW_OUTSIDE);
	assert_int_equal(rp_report_window_side(0, MS, &win, 0), RP_WINDOW_OUTSIDE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(one_process),
		cmocka_unit_test(two_ranks),
		cmocka_unit_test(not_mixed),
		cmocka_unit_test(pause_during),
		cmocka_unit_test(sides),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
