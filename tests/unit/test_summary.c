/* The one text summary writer (report/summary.h) from hand-made views:
 * every line below is a literal, its numbers worked out in the comments.
 *
 *   accountant: ports h0 (port 0) and h1 (port 1), 1 Gbit/s; run from 0 to 10 us
 *   flow 0  h0 -> h1 prio 3: 4 sent (rp_acct_set_tx), messages seq 0, 1, 3 of
 *           1000 B arrive at h1 at 1, 2 and 4 us with latencies 100, 200 and
 *           250 ns (below 256: the histogram's exact buckets)
 *             rx 3, lost 4 - 3 = 1, reordered 0, duplicates 0
 *             latency p50 200 (the 2nd of 3), p99 250, max 250
 *             goodput over the run: 3 x 1000 B x 8 / 10000 ns = 2.400 Gbit/s
 *             active 4 - 1 = 3 us = 0.003 ms; over it, n - 1 of n messages
 *             fill the span: 3000 x 8 x 2/3 / 3000 ns = 5.333 Gbit/s
 *   flow 1  h1 -> h0 prio 3: 2 sent, nothing arrives: lost 2, no latency ('-')
 *           goodput 0.000, active 0.000 ms
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "report/summary.h"
#include "stats/acct.h"
#include "wire/probe.h"

#define US 1000ull

static struct rp_acct *make(void)
{
	static const struct rp_acct_flow_cfg fl[2] = {
		{.id = 0, .src = "h0", .dst = "h1", .l3 = 4, .qps = 1, .prio = 3},
		{.id = 1, .src = "h1", .dst = "h0", .l3 = 4, .qps = 1, .prio = 3},
	};
	static const struct rp_acct_port_cfg ports[2] = {{.node = "h0", .port = 0, .speed_bps = 1000000000ull},
							 {.node = "h1", .port = 1, .speed_bps = 1000000000ull}};
	struct rp_acct_cfg c = {.flows = fl, .nflows = 2, .ports = ports, .nports = 2, .run_ns = 10 * US,
				.latency = true};
	char err[128];
	struct rp_acct *a = rp_acct_create(&c, err, sizeof(err));
	assert_non_null(a);
	static const uint64_t seq[3] = {0, 1, 3}, at[3] = {1 * US, 2 * US, 4 * US}, lat[3] = {100, 200, 250};
	for (unsigned i = 0; i < 3; i++) {
		struct rp_probe p = {.flow_id = 0, .seq = seq[i], .tx_ns = at[i] - lat[i]};
		assert_int_equal(rp_acct_message(a, 0, 1, at[i], &p, 1000), 0);
	}
	rp_acct_set_tx(a, 0, 4, 4000);
	rp_acct_set_tx(a, 1, 2, 2000);
	rp_acct_finish(a, 10 * US, NULL);
	return a;
}

/* The writer's text, a line at a time (lines[n] NULL). */
struct text {
	char *buf;
	size_t len;
	char *lines[64];
	size_t n;
};

static void write_text(const struct rp_summary *s, struct text *t)
{
	memset(t, 0, sizeof(*t));
	FILE *f = open_memstream(&t->buf, &t->len);
	assert_non_null(f);
	rp_summary_write(f, s);
	assert_int_equal(fclose(f), 0);
	for (char *p = t->buf, *nl; *p && t->n < 63; p = nl + 1) {
		nl = strchr(p, '\n');
		assert_non_null(nl); /* every line ends */
		*nl = '\0';
		t->lines[t->n++] = p;
	}
}

static void expect_lines(const struct text *t, const char *const *want, size_t n)
{
	for (size_t i = 0; i < n && i < t->n; i++)
		assert_string_equal(t->lines[i], want[i]);
	assert_int_equal(t->n, n);
}

/* Every line run and lab both show (flow .. lost) is the same bytes. */
#define SHARED_COLS 58 /* "%-4s %-8s %-8s %4s %10s %10s %8s": 4+1+8+1+8+1+4+1+10+1+10+1+8 */

/*   a run, interrupted: the flows with reord/dup and active ms, the note,
 *   the ports that received (h1: its 3 messages; h0 nothing, left out), a
 *   finding of rank 0's port, the session's lines, a capture per port */
static void run_view(void **state)
{
	(void)state;
	struct rp_acct *a = make();
	char *finding = "tx: 12 frames the NIC counted were not the source's";
	struct rp_env_port port = {.nfindings = 1, .findings = &finding};
	struct rp_rank_env env = {.present = true, .nports = 1, .ports = &port};
	const struct rp_summary_capture caps[2] = {{"h0", 7, 7, 0}, {"h1", 5, 4, 1}};
	struct rp_summary_run run = {.envs = &env, .nenvs = 1, .rate_warnings = "\nWARNING: flow 0 h0 -> h1 sent slow\n",
				     .next_hops = "\nnext hop 10.0.0.1: 02:00:00:00:00:09\n", .captures = caps,
				     .ncaptures = 2};
	struct rp_summary s = {.command = "run", .name = "pair", .elapsed_ns = 1500000000ull, .interrupted = true,
			       .acct = a, .cols = RP_SUMMARY_REORDER | RP_SUMMARY_ACTIVE, .max_flows = 2, .run = &run};
	static const char *const want[] = {
		"roceprobe run: pair, 1.500 s (interrupted by a signal)", /* 1.5e9 ns */
		"",
		"flow src      dst      prio         tx         rx     lost  reord    dup     ce    cnp    Gbit/s  active ms     p50 ns     p99 ns     max ns",
		"0    h0       h1          3          4          3        1      0      0      0      0     5.333      0.003        200        250        250",
		"1    h1       h0          3          2          0        2      0      0      0      0     0.000      0.000          -          -          -",
		"(Gbit/s: unique payload over the flow's active time, its first to last frame received)",
		"",
		"port             rx   misdeliv   PFC rx   PFC tx    paused ns (by priority: paused ns)",
		"h1                3          0        0        0            0 0/0/0/0/0/0/0/0",
		"",
		"FINDING: tx: 12 frames the NIC counted were not the source's",
		"",
		"WARNING: flow 0 h0 -> h1 sent slow",
		"",
		"next hop 10.0.0.1: 02:00:00:00:00:09",
		"",
		"capture-h0.pcap: 7 frames written, 0 dropped by the writer",
		"capture-h1.pcap: 4 frames written, 1 dropped by the writer",
	};
	struct text t;
	write_text(&s, &t);
	expect_lines(&t, want, sizeof(want) / sizeof(want[0]));
	free(t.buf);
	rp_acct_destroy(a);
}

/* The victim the lab's propagation names (as rp_lab_victim_item makes it). */
static json_t *victim(void *ctx, size_t i)
{
	(void)ctx;
	(void)i;
	return json_pack("{s:i, s:s, s:s, s:i, s:b, s:b, s:i, s:i}", "flow", 1, "src", "h1", "dst", "h0", "prio", 3,
			 "paused", 1, "slowed", 0, "sender_paused_ns", 4000, "late_ns", 900);
}

/*   a lab run stopped at fabric.max_time with frames in flight: one row of
 *   two (max_flows 1), flying and Gbit/s over the run; the headline as given;
 *   7 headroom drops (none on the accountant's ports: "by priority:" lists
 *   none); hosts received no PFC (the accountant saw none); one hop of
 *   pause; one victim; pairs none (NULL) */
static void lab_view(void **state)
{
	(void)state;
	struct rp_acct *a = make();
	json_t *prop = json_pack("{s:{s:s, s:i}, s:i, s:i, s:[{s:s, s:i, s:s, s:i, s:i}]}", "congested", "switch",
				 "leaf0", "port", 2, "congestion_start_ns", 1838, "depth", 1, "hops", "switch", "leaf0",
				 "port", 0, "paused", "h1", "hop", 1, "after_congestion_ns", 2921);
	struct rp_summary_lab lab = {
		.events = 52606, .hops = 19250, .wall_s = 0.014, .truncated = true, .loss_pct = 50.0, .paused_pct = 12.5,
		.goodput_gbps = 2.4, .lost = 3, .drops = 7, .in_flight = 2, .latency_samples = 3, .p99_ns = 250,
		.p999_ns = 250, .max_queue_bytes = 4096, .in_flight_total = 2, .in_flight_on_links = 1, .sw_drops = 7,
		.pfc_tx = 4, .xoff_sent = 2, .xon_sent = 2, .propagation = prop, .victims = {NULL, 1, victim, NULL}};
	lab.drop_reasons[RP_DROP_HEADROOM] = 7;
	struct rp_summary s = {.command = "lab", .name = "incast", .elapsed_ns = 1606000, .acct = a,
			       .cols = RP_SUMMARY_IN_FLIGHT, .max_flows = 1, .lab = &lab};
	static const char *const want[] = {
		/* 1606000 ns = 1.606 ms; 0.014 s wall to 2 places */
		"roceprobe lab: incast, 1.606 ms virtual (stopped at fabric.max_time), 52606 events, 19250 hops, 0.01 s wall",
		"",
		"flow src      dst      prio         tx         rx     lost  flying     ce    cnp    Gbit/s     p50 ns     p99 ns     max ns",
		"0    h0       h1          3          4          3        1       0      0      0     2.400        200        250        250",
		"... 1 more flows in result.json (the pairs that stand out are below)", /* 2 flows, 1 listed */
		"(Gbit/s: unique payload over the whole run, idle time included; pairs: over each flow's active time)",
		"",
		"loss 50.0000% (3 lost, 7 switch drops), most paused host priority 12.50%,",
		"latency p99 250 ns p99.9 250 ns, goodput 2.400 Gbit/s, deepest queue 4096 bytes",
		/* 2 in flight of which 1 on links: 2 - 1 = 1 in switch buffers */
		"in flight 2 (not lost, not in the loss %): 1 in switch buffers, 1 on links, when the run stopped",
		"switch drops: 7 by reason: headroom 7, by priority:",
		"PFC: switches sent 4 frames (XOFF 2, refresh 0, XON 2), hosts received 0",
		"pause propagation: congestion began at leaf0 port 2 at 1838 ns; 1 ports sent XOFF, depth 1: leaf0:0 -> h1 "
		"(hop 1, +2921 ns)",
		"victim: flow 1 h1 -> h0 prio 3, to a receiver nobody oversubscribes: paused, sender paused 4000 ns, 900 ns late",
	};
	struct text t;
	write_text(&s, &t);
	expect_lines(&t, want, sizeof(want) / sizeof(want[0]));
	free(t.buf);
	json_decref(prop);
	rp_acct_destroy(a);
}

/* A run under a launcher whose rank 1 (host h1) died 2 ms after the start:
 * flow 0 h0 -> h1 lost its receiver (rx, lost unknown), flow 1 h1 -> h0 its
 * sender (tx, lost unknown). Both flows cross ranks with a one-way bound
 * of 500 ns: flow 0's p50 200 < 500 is below it, flow 1 has no sample. */
static const char *side(void *ctx, size_t i)
{
	(void)ctx;
	return i == 0 ? "receiver" : "sender";
}

static bool cross(void *ctx, size_t i)
{
	(void)ctx;
	(void)i;
	return true;
}

static int64_t bound(void *ctx, size_t i)
{
	(void)ctx;
	(void)i;
	return 500;
}

static void run_lost_rank(void **state)
{
	(void)state;
	struct rp_acct *a = make();
	const struct rp_summary_rank ranks[2] = {
		{.node = "n0", .pclock_err_ns = 40, .clock_bound_ns = 40},
		{.node = "n1", .lost = true, .offset_ns = -1200, .bound_ns = 250, .clock_bound_ns = 300},
	};
	const char *const names[2] = {"h0", "h1"};
	const int host_rank[2] = {0, 1};
	struct rp_summary_run run = {.launched = true, .nranks = 2, .ranks = ranks, .nhosts = 2, .host_names = names,
				     .host_rank = host_rank, .lost = true, .lost_after_ns = 2000000, .lost_side = side,
				     .cross_rank = cross, .flow_bound = bound};
	struct rp_summary s = {.command = "run", .name = "pair", .elapsed_ns = 3000000, .acct = a,
			       .cols = RP_SUMMARY_REORDER | RP_SUMMARY_ACTIVE, .max_flows = 2, .run = &run};
	static const char *const want[] = {
		"roceprobe run: pair, 0.003 s",
		"",
		"INCOMPLETE: lost 0.002 s after the start: rank 1 (node n1; hosts h1); the others stopped and counted what they had: the flows of those hosts have the",
		"other side's counts only, their loss unknown (result.json: incomplete, flows[].incomplete)",
		"",
		"flow src      dst      prio         tx         rx     lost  reord    dup     ce    cnp    Gbit/s  active ms     p50 ns     p99 ns     max ns",
		"0    h0       h1          3          4    unknown  unknown      0      0      0      0     5.333      0.003        200        250        250",
		"1    h1       h0          3    unknown          0  unknown      0      0      0      0     0.000      0.000          -          -          -",
		"(Gbit/s: unique payload over the flow's active time, its first to last frame received)",
		"",
		"port             rx   misdeliv   PFC rx   PFC tx    paused ns (by priority: paused ns)",
		"h1                3          0        0        0            0 0/0/0/0/0/0/0/0",
		"",
		"clocks: offset to rank 0 before / after the run (+- bound), drift; the packet clock's",
		"largest gap to the rank's corrected clock",
		"rank 0   n0           (the reference); packet clock 40 ns", /* rank 1 died: not listed */
		/* the worst rank bound 300 (the dead rank's counts too), twice: 600 */
		"one-way latency across ranks is right within +- 600 ns; 1 of 2 cross-rank flows have a p50 below their bound: their one-way latency is",
		"not a measurement (flows[].latency_below_bound); 0 of them show the round trip instead (the others: set rtt: auto or on for an echo)",
	};
	struct text t;
	write_text(&s, &t);
	expect_lines(&t, want, sizeof(want) / sizeof(want[0]));
	free(t.buf);
	rp_acct_destroy(a);
}

/* A mixed run's aggression: after the windows' table (report/windows.h,
 * test_windows), one pause line per host of result.json's aggression.pause,
 * each of its three kinds: a DPDK host's frames, a verbs host's NIC
 * counters, a NIC without them. */
static void run_aggression(void **state)
{
	(void)state;
	struct rp_acct *a = make();
	const struct rp_report_window w = {.name = "burst", .start_ns = 2 * US, .end_ns = 5 * US};
	json_t *pause = json_pack("[{s:s, s:s, s:i, s:i}, {s:s, s:s, s:{s:i, s:i}}, {s:s, s:s, s:s, s:s}]", "host", "d0",
				  "engine", "dpdk", "pfc_frames", 12, "paused_ns", 3400, "host", "v0", "engine", "verbs",
				  "counters", "pause_rx", 5, "pause_tx", 0, "host", "v1", "engine", "verbs", "pause",
				  "not available", "why", "rxe0 (driver rxe, netdev eth0) has no pause counters");
	struct rp_summary_run run = {.windows = &w, .nwindows = 1, .pause = pause};
	struct rp_summary s = {.command = "run", .name = "mixed", .acct = a, .cols = RP_SUMMARY_REORDER | RP_SUMMARY_ACTIVE,
			       .max_flows = 0, .run = &run};
	struct text t;
	write_text(&s, &t);
	assert_true(t.n > 4);
	assert_string_equal(t.lines[t.n - 4], "pause during the aggression:");
	assert_string_equal(t.lines[t.n - 3], "  d0       dpdk  12 PFC/PAUSE frames received, paused 3400 ns");
	assert_string_equal(t.lines[t.n - 2], "  v0       verbs pause_rx 5 pause_tx 0 (NIC counters, whole run)");
	assert_string_equal(t.lines[t.n - 1],
			    "  v1       verbs not available: rxe0 (driver rxe, netdev eth0) has no pause counters");
	free(t.buf);
	json_decref(pause);
	rp_acct_destroy(a);
}

/* run and lab say a flow's counts the same way: header and rows agree up to
 * the lost column (90ddd54's lab wrote tx, rx and lost a column narrower). */
static void run_and_lab_rows_agree(void **state)
{
	(void)state;
	struct rp_acct *a = make();
	struct rp_summary_run run = {0};
	struct rp_summary_lab lab = {.propagation = NULL};
	struct rp_summary r = {.command = "run", .name = "x", .acct = a, .cols = RP_SUMMARY_REORDER | RP_SUMMARY_ACTIVE,
			       .max_flows = 2, .run = &run};
	struct rp_summary l = {.command = "lab", .name = "x", .acct = a, .cols = RP_SUMMARY_IN_FLIGHT, .max_flows = 2,
			       .lab = &lab};
	struct text tr, tl;
	write_text(&r, &tr);
	write_text(&l, &tl);
	for (size_t i = 2; i < 5; i++) { /* the header, flow 0, flow 1 */
		assert_true(strlen(tr.lines[i]) > SHARED_COLS && strlen(tl.lines[i]) > SHARED_COLS);
		assert_memory_equal(tr.lines[i], tl.lines[i], SHARED_COLS);
	}
	assert_string_equal(tl.lines[3] + SHARED_COLS, "       0      0      0     2.400        200        250        250");
	free(tr.buf);
	free(tl.buf);
	rp_acct_destroy(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(run_view),
		cmocka_unit_test(lab_view),
		cmocka_unit_test(run_lost_rank),
		cmocka_unit_test(run_aggression),
		cmocka_unit_test(run_and_lab_rows_agree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
