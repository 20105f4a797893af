/* lib/run without mpirun: each rank of a synthetic launch (struct rp_cluster
 * filled by hand, as rp_cluster_init would on that rank) runs lib/run's
 * pure steps, and what a collective would carry between them is handed over
 * here: hosts on ranks, the rank's share of the plan, the QP records' routes,
 * the ranks' accountants merged on rank 0, the clock bounds, result.json
 * through lib/report's builder. Every expected
 * value is worked by hand in its comment. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>
#include <limits.h>
#include <unistd.h>

#include "run/merge.h"
#include "run/qp_route.h"
#include "run/report.h"
#include "run/run.h"
#include "stats/acct.h"
#include "report/acct_merge.h"
#include "stats/acct_pack.h"
#include "stats/acct_result.h"

#define NRANKS 3
static struct rp_run runs[NRANKS]; /* one per rank (big: static) */
static struct rp_rank_info infos[NRANKS];

#define H(i, extra) "  - {name: h" #i ", mac: \"02:00:00:00:00:0" #i "\", ipv4: 10.0.0." #i extra "}\n"

/* Ranks 0 and 1 on node a (local ranks 0, 1), rank 2 on node b. */
static struct rp_run *rank(int k, int size, bool launched)
{
	static const char *nodes[NRANKS] = {"a", "a", "b"};
	for (int i = 0; i < NRANKS; i++) {
		infos[i] = (struct rp_rank_info){.rank = i, .local_rank = i == 1};
		strcpy(infos[i].node, nodes[i]);
	}
	struct rp_run *r = &runs[k];
	memset(r, 0, sizeof(*r));
	r->cl = (struct rp_cluster){.launched = launched, .launcher = launched ? "mpirun" : "none", .rank = k,
				    .size = size, .ranks = infos};
	return r;
}

static void unbind(struct rp_run *r)
{
	free(r->launch);
	free(r->mine);
	free(r->host_rank);
	r->launch = NULL, r->mine = NULL, r->host_rank = NULL;
}

/* ---- placement ---- */

static void test_place_ranks(void **state)
{
	(void)state;
	const char *text = "hosts:\n" H(1, "") H(2, "") H(3, ", node: b") "traffic:\n"
			   "  - {pattern: flow, src: h1, dst: h3}\n";
	/* h1 is host 0 -> rank 0, h2 host 1 -> rank 1 (no key: host i on rank i),
	 * h3 names node b, whose only rank is 2: every rank computes the same. */
	for (int k = 0; k < NRANKS; k++) {
		struct rp_run *r = rank(k, NRANKS, true);
		struct rp_profile_opts po = {0};
		assert_int_equal(rp_run_bind(r, "p.yaml", text, &po), 0);
		assert_int_equal(r->host_rank[0], 0);
		assert_int_equal(r->host_rank[1], 1);
		assert_int_equal(r->host_rank[2], 2);
		for (int h = 0; h < 3; h++)
			assert_int_equal(r->mine[h], h == k);
		assert_string_equal(r->launch[2].node, "b"); /* what a host_template expands for */
		assert_int_equal(r->launch[1].local_rank, 1);
		unbind(r);
	}
}

static void test_place_errors(void **state)
{
	(void)state;
	/* One process, a host on rank 1: mpirun's line, nothing bound. */
	struct rp_run *r = rank(0, 1, false);
	struct rp_profile_opts po = {0};
	const char *text = "hosts:\n" H(1, "") H(2, ", rank: 1") "traffic:\n  - {pattern: flow, src: h1, dst: h2}\n";
	assert_int_equal(rp_run_bind(r, "p.yaml", text, &po), RP_RUN_USAGE);
	assert_string_equal(r->s.err, "the profile runs host 'h2' on rank 1, not in this one process: start it with "
				      "mpirun or srun (e.g. mpirun -np N roceprobe ...)");
	unbind(r);
	/* Bad YAML: the profile's own line, before any binding. */
	r = rank(0, 1, false);
	assert_int_equal(rp_run_bind(r, "p.yaml", "hosts: [\n", &po), RP_RUN_USAGE);
	assert_non_null(strstr(r->s.err, "p.yaml"));
	assert_null(r->mine);
	unbind(r);
}

/* ---- a rank's share of the plan ---- */

static struct rp_profile *prof;
static struct rp_plan plan;

/* h1 -> h2 (rtt: auto), h2 -> h3, h3 -> h1: plan flows 0, 1, 2. */
static void plan3(void)
{
	char err[512];
	const char *text = "hosts:\n" H(1, "") H(2, "") H(3, "") "traffic:\n"
			   "  - {name: a, pattern: flow, src: h1, dst: h2, messages: 10, rtt: auto}\n"
			   "  - {name: b, pattern: flow, src: h2, dst: h3, messages: 10}\n"
			   "  - {name: c, pattern: flow, src: h3, dst: h1, messages: 10}\n";
	prof = rp_profile_load_string("p.yaml", text, NULL, err, sizeof(err));
	if (!prof)
		fail_msg("%s", err);
	if (rp_plan_build(prof, &plan, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(plan.nflows, 3);
	assert_int_equal(plan.flows[0].src, 0);
	assert_int_equal(plan.flows[1].src, 1);
	assert_int_equal(plan.flows[2].src, 2);
}

static void unplan(void)
{
	rp_plan_free(&plan);
	rp_profile_free(prof);
}

/* Rank k of the three-host plan, each host on its rank, with its accountant
 * cfg as rp_run_accounting makes it. */
static struct rp_run *plan_rank(int k, int size)
{
	char err[512];
	struct rp_run *r = rank(k, size, true);
	r->s.prof = prof;
	r->s.plan = plan;
	r->mine = calloc(3, sizeof(*r->mine));
	r->host_rank = calloc(3, sizeof(*r->host_rank));
	for (int h = 0; h < 3; h++) {
		r->host_rank[h] = h % size;
		r->mine[h] = h % size == k;
	}
	if (rp_acct_cfg_from_plan(&r->s.plan, &r->acfg, &r->flow_of, err, sizeof(err)))
		fail_msg("%s", err);
	return r;
}

static void unplan_rank(struct rp_run *r)
{
	rp_acct_destroy(r->acct);
	rp_acct_cfg_free(&r->acfg);
	free(r->flow_of);
	free((void *)r->all_flows);
	free(r->all_flow_of);
	free((void *)r->all_ports);
	free(r->acct_port);
	free(r->mine);
	free(r->host_rank);
	memset(r, 0, sizeof(*r));
}

static void test_share(void **state)
{
	(void)state;
	plan3();
	struct rp_run *r = plan_rank(1, NRANKS);
	rp_run_auto_echoes(r);
	/* flow 0 (h1 on rank 0 -> h2 on rank 1) has rtt: auto across ranks: 1 in 64. */
	assert_int_equal(r->acfg.flows[0].echo_every, 64);
	assert_int_equal(r->acfg.flows[1].echo_every, 0);
	assert_int_equal(rp_run_share_flows(r), 0);
	/* Rank 1 runs h2: it receives flow 0 and sends flow 1; flow 2 (h3 -> h1) is not its. */
	assert_int_equal(r->acfg.nflows, 2);
	assert_int_equal(r->flow_of[0], 0);
	assert_int_equal(r->flow_of[1], 1);
	assert_int_equal(r->all_nflows, 3);
	assert_int_equal(r->all_flow_of[2], 2);
	/* One port, h2's: port 0 here; flow 0 arrives there, flow 1's receiver (h3) is elsewhere. */
	assert_int_equal(r->acfg.nports, 1);
	assert_int_equal(r->all_nports, 3);
	assert_int_equal(r->acct_port[0], UINT_MAX);
	assert_int_equal(r->acct_port[1], 0);
	assert_int_equal(r->acct_port[2], UINT_MAX);
	assert_int_equal(r->acfg.flows[0].dst_port, 0);
	assert_int_equal(r->acfg.flows[1].dst_port, UINT_MAX);
	assert_ptr_equal(r->rx[0].acct_port, r->acct_port);
	unplan_rank(r);

	/* A verbs rank keeps every port (lib/verbs names the receiver's host). */
	r = plan_rank(2, NRANKS);
	r->verbs_here = true;
	assert_int_equal(rp_run_share_flows(r), 0);
	assert_int_equal(r->acfg.nflows, 2); /* flows 1 (to h3) and 2 (from h3) */
	assert_int_equal(r->flow_of[0], 1);
	assert_int_equal(r->flow_of[1], 2);
	assert_int_equal(r->acfg.nports, 3);
	assert_null(r->acct_port);
	unplan_rank(r);
	unplan();
}

/* ---- the QP records' routes ---- */

static void test_qp_route(void **state)
{
	(void)state;
	/* Hosts 0..3 on ranks 0, 1, 2, 2. QPs: h0 -> h1 (records 0, 1), h1 -> h2
	 * (2, 3), h2 -> h3 (4, 5: both ends on rank 2, never sent). */
	const unsigned host[6] = {0, 1, 1, 2, 2, 3};
	const int host_rank[4] = {0, 1, 2, 2};
	enum { REC = 8, ONE = 4 + REC };
	char tables[NRANKS][6 * REC];
	uint8_t *out[NRANKS];
	size_t lens[NRANKS][NRANKS];
	for (int k = 0; k < NRANKS; k++) {
		memset(tables[k], 0, sizeof(tables[k]));
		for (int i = 0; i < 6; i++) /* the records this rank fills: "r<i>@<rank>" */
			if (host_rank[host[i]] == k)
				snprintf(tables[k] + i * REC, REC, "r%d@%d", i, k);
		const struct rp_qp_route q = {host, host_rank, 6, REC, k, NRANKS};
		assert_int_equal(rp_qp_route_pack(&q, tables[k], &out[k], lens[k]), 0);
	}
	/* rank 0 sends record 0 to rank 1; rank 1 record 1 to rank 0 and record 2
	 * to rank 2; rank 2 record 3 to rank 1: one 12-byte entry each. */
	const size_t want[NRANKS][NRANKS] = {{0, ONE, 0}, {ONE, 0, ONE}, {0, ONE, 0}};
	for (int k = 0; k < NRANKS; k++)
		for (int d = 0; d < NRANKS; d++)
			assert_int_equal(lens[k][d], want[k][d]);
	uint32_t idx;
	memcpy(&idx, out[1] + ONE, 4); /* rank 1's second entry (for rank 2) is record 2 */
	assert_int_equal(idx, 2);
	/* What alltoallv hands rank d: each rank's part for d, rank after rank. */
	for (int d = 0; d < NRANKS; d++) {
		uint8_t in[NRANKS * 2 * ONE];
		size_t total = 0;
		for (int k = 0; k < NRANKS; k++) {
			size_t at = 0;
			for (int e = 0; e < d; e++)
				at += lens[k][e];
			memcpy(in + total, out[k] + at, lens[k][d]);
			total += lens[k][d];
		}
		const struct rp_qp_route q = {host, host_rank, 6, REC, d, NRANKS};
		char err[128];
		assert_int_equal(rp_qp_route_unpack(&q, tables[d], in, total, err, sizeof(err)), 0);
	}
	assert_string_equal(tables[0] + 1 * REC, "r1@1"); /* h0's peer's record */
	assert_string_equal(tables[1] + 0 * REC, "r0@0");
	assert_string_equal(tables[1] + 3 * REC, "r3@2");
	assert_string_equal(tables[2] + 2 * REC, "r2@1");
	assert_string_equal(tables[2] + 5 * REC, "r5@2"); /* its own, filled here */
	/* Rank 0 is handed record 3 (h2's, read by h1's rank 1): refused. */
	const struct rp_qp_route q0 = {host, host_rank, 6, REC, 0, NRANKS};
	uint8_t bad[ONE] = {3, 0, 0, 0};
	char err[128];
	assert_int_equal(rp_qp_route_unpack(&q0, tables[0], bad, ONE, err, sizeof(err)), -1);
	assert_string_equal(err, "a QP record for entry 3 that is not this rank's to read");
	bad[0] = 6; /* beyond the table */
	assert_int_equal(rp_qp_route_unpack(&q0, tables[0], bad, ONE, err, sizeof(err)), -1);
	assert_string_equal(err, "a QP record for entry 6 that is not this rank's to read");
	assert_int_equal(rp_qp_route_unpack(&q0, tables[0], bad, ONE - 1, err, sizeof(err)), -1);
	for (int k = 0; k < NRANKS; k++)
		free(out[k]);
}

/* ---- the ranks' merge on rank 0 ---- */

static void test_merge_ranks(void **state)
{
	(void)state;
	plan3();
	/* Two ranks: h1 and h3 on rank 0 (hosts 0, 2), h2 on rank 1. What each
	 * flow's receiver's rank holds after rp_cluster_acct_finish: the senders'
	 * counts (flow 0: 1000 sent, flow 1: 700, flow 2: 500 within rank 0). */
	const uint64_t sent[3] = {1000, 700, 500};
	uint8_t *buf[2];
	size_t lens[2];
	char err[512];
	for (int k = 0; k < 2; k++) {
		struct rp_run *r = plan_rank(k, 2);
		r->acfg.run_ns = 5000000000ull;
		r->acfg.bin_ns = 100000; /* as rp_run_accounting sets it */
		assert_int_equal(rp_run_share_flows(r), 0);
		r->acct = rp_acct_create(&r->acfg, err, sizeof(err));
		assert_non_null(r->acct);
		for (size_t a = 0; a < rp_acct_nflows(r->acct); a++) {
			uint32_t f = r->flow_of[a];
			if (r->mine[plan.flows[f].dst])
				rp_acct_set_tx(r->acct, a, sent[f], sent[f] * 1000);
		}
		rp_acct_finish(r->acct, 1000000000ull, NULL);
		/* Every flow of the plan touches h1 or h3 on rank 0; rank 1 holds flows 0 and 1. */
		assert_int_equal(rp_acct_nflows(r->acct), k == 0 ? 3 : 2);
		bool own[3] = {0};
		rp_run_own_flows(r, own);
		/* rank 0 ships the flows it receives: 2 (h3 -> h1) and 1 (h2 -> h3); rank 1 flow 0. */
		if (k == 0) {
			assert_false(own[0]);
			assert_true(own[1]);
			assert_true(own[2]);
		} else {
			assert_true(own[0]);
			assert_false(own[1]);
		}
		lens[k] = rp_acct_pack(rp_acct_result(r->acct), own, NULL, NULL, 0);
		assert_true(lens[k] > 0);
		buf[k] = malloc(lens[k]);
		assert_int_equal(rp_acct_pack(rp_acct_result(r->acct), own, NULL, buf[k], lens[k]), lens[k]);
	}
	/* Rank 0's merged accountant: every flow and port of the plan, its series
	 * over what happened: end 1 s + linger 20 ms + no delay + 10 ms = 1.03 s. */
	struct rp_run *r0 = &runs[0];
	r0->s.g.end_ns = 1000000000ull;
	struct rp_acct_cfg mc;
	rp_run_merged_cfg(r0, &mc);
	assert_int_equal(mc.nflows, 3);
	assert_int_equal(mc.nports, 3);
	assert_int_equal(mc.run_ns, 1030000000ull);
	assert_true(mc.results_only);
	struct rp_acct *merged = rp_acct_create(&mc, err, sizeof(err));
	assert_non_null(merged);
	uint8_t *all = malloc(lens[0] + lens[1]);
	memcpy(all, buf[0], lens[0]);
	memcpy(all + lens[0], buf[1], lens[1]);
	size_t bad = 99;
	assert_int_equal(rp_acct_merge_block(rp_acct_merged(merged), all, lens, 2, NULL, &bad, err, sizeof(err)), 0);
	rp_acct_merge_done(rp_acct_merged(merged));
	for (size_t f = 0; f < 3; f++) { /* nothing was received: every sent frame lost */
		struct rp_acct_flow_result x;
		rp_acct_flow(merged, f, &x);
		assert_int_equal(x.tx_packets, sent[f]);
		assert_int_equal(x.rx_packets, 0);
		assert_int_equal(x.lost, sent[f]);
	}
	rp_acct_destroy(merged);
	free(all);
	free(buf[0]);
	free(buf[1]);
	unplan_rank(&runs[0]);
	unplan_rank(&runs[1]);
	unplan();
}

/* ---- clock bounds ---- */

static void test_clock_bounds(void **state)
{
	(void)state;
	struct rp_rank_env e = {.present = true, .pclock_gap = {-120, 80}};
	assert_int_equal(rp_run_packet_clock_err(&e), 120); /* the larger in size */
	e.present = false; /* a lost rank: none */
	assert_int_equal(rp_run_packet_clock_err(&e), 0);

	plan3();
	struct rp_run *r = plan_rank(0, NRANKS); /* h1, h2, h3 on ranks 0, 1, 2 */
	struct rp_clock_offset before[3] = {{0}, {1000, 300, 600, 0}, {-50, 40, 80, 0}};
	struct rp_clock_offset after[3] = {{0}, {1250, 200, 400, 0}, {-50, 40, 80, 0}};
	int64_t perr[3] = {40, 70, 0};
	r->offsets = before;
	r->offsets_after = after;
	r->rank_pclock_err = perr;
	assert_int_equal(rp_run_rank_clock_bound(r, 0), 40); /* rank 0: its packet clock only */
	assert_int_equal(rp_run_rank_clock_bound(r, 1), 370); /* 70 + before's bound 300 */
	/* flow 0, h1 (rank 0) -> h2 (rank 1): 40 + 370 */
	assert_int_equal(rp_run_flow_clock_bound(r, 0), 410);
	r->clocks_after = true;
	/* 70 + 300 + |1250 - 1000| + 300 + 200 = 1120 */
	assert_int_equal(rp_run_rank_clock_bound(r, 1), 1120);
	/* flow 1, h2 (rank 1) -> h3 (rank 2): 1120 + (0 + 40 + 0 + 40 + 40) */
	assert_int_equal(rp_run_flow_clock_bound(r, 1), 1240);
	r->host_rank[2] = 1; /* both ends on one rank: one clock, no error */
	assert_int_equal(rp_run_flow_clock_bound(r, 1), 0);
	r->cl.launched = false;
	assert_int_equal(rp_run_flow_clock_bound(r, 0), 0);
	r->offsets = r->offsets_after = NULL;
	r->rank_pclock_err = NULL;
	unplan_rank(r);
	unplan();
}

/* ---- result.json's run pieces ---- */

/* Rank 0 of two after the merge (h1, h3 on rank 0, h2 on rank 1: every flow
 * in its accountant), rank 1's clock known within 5 us: result.json through
 * lib/report's builder, then a DIR that is not there. */
static void test_write_result(void **state)
{
	(void)state;
	plan3();
	char err[512], dir[] = "/tmp/rp-test-run-XXXXXX", path[64];
	assert_non_null(mkdtemp(dir));
	struct rp_run *r = plan_rank(0, 2);
	struct rp_clock_offset off[2] = {{.bound_ns = 0}, {.offset_ns = 123, .bound_ns = 5000}};
	r->offsets = off;
	static struct rp_rank_env envs[2]; /* every rank's facts came (big: static) */
	memset(envs, 0, sizeof(envs));
	envs[0].present = envs[1].present = true;
	r->envs = envs;
	r->nenvs = 2;
	r->acfg.run_ns = 1000000000ull;
	r->acfg.bin_ns = 100000;
	r->acct = rp_acct_create(&r->acfg, err, sizeof(err));
	assert_non_null(r->acct);
	for (size_t a = 0; a < 3; a++) /* flow a sent 100 (a + 1) frames of 1000 B */
		rp_acct_set_tx(r->acct, a, 100 * (a + 1), 100000 * (a + 1));
	rp_acct_finish(r->acct, 1000000000ull, NULL);
	assert_int_equal(rp_run_write_result(r, dir, "p.yaml", "9.9", NULL, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/result.json", dir);
	json_error_t je;
	json_t *j = json_load_file(path, 0, &je);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "kind")), "dpdk");
	json_t *flows = json_object_get(j, "flows"), *hosts = json_object_get(j, "hosts"),
	       *c = json_object_get(j, "cluster");
	assert_int_equal(json_array_size(flows), 3);
	for (size_t a = 0; a < 3; a++) {
		json_t *f = json_array_get(flows, a);
		assert_int_equal(json_integer_value(json_object_get(f, "tx_packets")), 100 * (a + 1));
		assert_int_equal(json_integer_value(json_object_get(f, "tx_unsent")), 0);
		/* h1 -> h2 and h2 -> h3 cross ranks: rank 0's 0 + rank 1's 5000 ns; h3 -> h1 does not */
		json_t *b = json_object_get(f, "latency_bound_ns");
		if (a < 2)
			assert_int_equal(json_integer_value(b), 5000);
		else
			assert_null(b);
		assert_null(json_object_get(f, "incomplete"));
	}
	assert_int_equal(json_array_size(hosts), 3);
	for (size_t h = 0; h < 3; h++) { /* host h on rank h % 2: nodes a, a, a (ranks 0, 1, 0) */
		json_t *o = json_array_get(hosts, h);
		assert_int_equal(json_integer_value(json_object_get(o, "rank")), h % 2);
		assert_string_equal(json_string_value(json_object_get(o, "node")), "a");
		assert_string_equal(json_string_value(json_object_get(o, "mac_from")), "profile");
	}
	assert_string_equal(json_string_value(json_object_get(json_array_get(hosts, 1), "ipv4")), "10.0.0.2");
	/* the cluster: 2 ranks, a one-way latency off by at most both ranks' errors, 2 x 5000 */
	assert_int_equal(json_integer_value(json_object_get(c, "size")), 2);
	assert_string_equal(json_string_value(json_object_get(c, "launcher")), "mpirun");
	assert_int_equal(json_integer_value(json_object_get(c, "latency_bound_ns")), 10000);
	assert_int_equal(json_array_size(json_object_get(c, "ranks")), 2);
	assert_null(json_object_get(j, "incomplete"));
	assert_null(json_object_get(j, "verbs"));
	json_decref(j);
	unlink(path);
	assert_int_equal(rmdir(dir), 0);
	/* DIR gone: one line, RP_RUN_USAGE, nothing written */
	err[0] = 0;
	assert_int_equal(rp_run_write_result(r, dir, "p.yaml", "9.9", NULL, err, sizeof(err)), RP_RUN_USAGE);
	assert_non_null(strstr(err, dir));
	assert_null(strchr(err, '\n'));
	assert_int_equal(access(dir, F_OK), -1);
	unplan_rank(r);
	unplan();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_place_ranks), cmocka_unit_test(test_place_errors),
		cmocka_unit_test(test_share),       cmocka_unit_test(test_qp_route),
		cmocka_unit_test(test_merge_ranks), cmocka_unit_test(test_clock_bounds),
		cmocka_unit_test(test_write_result),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
