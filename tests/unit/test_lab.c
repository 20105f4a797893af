/* lib/lab pieces on their own: the event queue's (time, seq) order, the
 * frame pool, DCQCN's cut and recovery against hand-worked numbers, and
 * qdepth.csv written from the lab's switches. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lab/capture.h"
#include "lab/dcqcn.h"
#include "lab/evq.h"
#include "lab/lab_internal.h"
#include "lab/pool.h"
#include "lab/report.h"
#include "traffic/plan.h"
#include "wire/eth.h"
#include "wire/ipv4.h"

static void evq_orders_by_time_then_insertion(void **state)
{
	(void)state;
	struct rp_evq q;
	struct rp_event e;
	static const uint64_t t[] = {50, 10, 30, 10, 50, 0, 30};
	rp_evq_init(&q);
	for (uint32_t i = 0; i < 7; i++)
		assert_int_equal(rp_evq_push(&q, t[i], 0, i, 0, 0), 0);
	static const uint32_t want[] = {5, 1, 3, 2, 6, 0, 4}; /* ties in push order */
	for (int i = 0; i < 7; i++) {
		assert_true(rp_evq_pop(&q, &e));
		assert_int_equal(e.node, want[i]);
	}
	assert_false(rp_evq_pop(&q, &e));
	rp_evq_free(&q);
}

/* At the same t: tie first (0 for plain pushes), then push order. */
static void evq_ties_then_insertion(void **state)
{
	(void)state;
	struct rp_evq q;
	struct rp_event e;
	static const uint64_t t[] = {10, 10, 10, 10, 5, 10};
	static const uint32_t tie[] = {7, 0, 3, 7, 9, 0};
	rp_evq_init(&q);
	for (uint32_t i = 0; i < 6; i++)
		assert_int_equal(rp_evq_push_tie(&q, t[i], tie[i], 0, i, 0, 0), 0);
	static const uint32_t want[] = {4, 1, 5, 2, 0, 3};
	for (int i = 0; i < 6; i++) {
		assert_true(rp_evq_pop(&q, &e));
		assert_int_equal(e.node, want[i]);
	}
	rp_evq_free(&q);
}

static void evq_many(void **state)
{
	(void)state;
	struct rp_evq q;
	struct rp_event e;
	uint64_t x = 88172645463325252ull, last = 0;
	rp_evq_init(&q);
	for (int i = 0; i < 5000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		rp_evq_push(&q, x % 1000, 0, 0, 0, 0);
	}
	for (int i = 0; i < 5000; i++) {
		assert_true(rp_evq_pop(&q, &e));
		assert_true(e.t >= last);
		last = e.t;
	}
	rp_evq_free(&q);
}

/* The calendar against the rule itself: events pushed while others run, at
 * distances inside the running bucket, across the calendar's buckets, and
 * beyond it (the far heap), with ties, must come out exactly in (t, tie,
 * push order) -- checked against a plain list of everything pushed, sorted
 * by that key with qsort, not against the queue. */
struct ref_ev {
	uint64_t t;
	uint32_t tie, id;
};

static int ref_cmp(const void *a, const void *b)
{
	const struct ref_ev *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->tie != y->tie)
		return x->tie < y->tie ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static void evq_calendar_exact_order(void **state)
{
	(void)state;
	enum { N = 60000 };
	static struct ref_ev pushed[N];
	static uint32_t popped[N];
	static const uint64_t span[] = {0, 40, 64, 700, 70000, 1048576, 1100000, 50000000};
	struct rp_evq q;
	struct rp_event e;
	uint64_t x = 0x9E3779B97F4A7C15ull, now = 0;
	uint32_t np = 0, no = 0, now_tie = 0;
	rp_evq_init(&q);
	while (no < N) {
		/* up to 3 pushes after each pop, at now + a random distance of a random span */
		for (int k = 0; k < 3 && np < N; k++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			uint64_t s = span[x % 8], t = now + (s ? (x >> 8) % (s + 1) : 0);
			uint32_t tie = (x >> 40) % 4 == 0 ? (uint32_t)((x >> 44) % 3) : 0;
			if (t == now && tie < now_tie) /* not ahead of what already ran */
				tie = now_tie;
			pushed[np] = (struct ref_ev){t, tie, np};
			assert_int_equal(rp_evq_push_tie(&q, t, tie, 0, np, 0, 0), 0);
			np++;
		}
		assert_true(rp_evq_pop(&q, &e));
		assert_true(e.t >= now);
		now = e.t;
		now_tie = e.tie;
		popped[no++] = e.node;
	}
	assert_false(rp_evq_pop(&q, &e));
	/* Every event pushed at or after the (t, tie) of the one that ran last: the
	 * order of the pops is the sorted order of the pushes. */
	qsort(pushed, N, sizeof(pushed[0]), ref_cmp);
	for (uint32_t i = 0; i < N; i++)
		assert_int_equal(popped[i], pushed[i].id);
	rp_evq_free(&q);
}

static void pool_reuses_slots(void **state)
{
	(void)state;
	struct rp_pool p;
	rp_pool_init(&p, 100);
	uint32_t a = rp_pool_get(&p), b = rp_pool_get(&p);
	assert_int_equal(a, 0);
	assert_int_equal(b, 1);
	assert_true(p.slot_size >= 100);
	rp_pool_put(&p, a);
	assert_int_equal(rp_pool_get(&p), 0);
	for (int i = 0; i < 1000; i++)
		assert_int_not_equal(rp_pool_get(&p), RP_POOL_NONE);
	assert_int_equal(p.in_use, 1002);
	rp_pool_free(&p);
}

/* mlx5's defaults (NVIDIA DOCA "DCQCN CC Parameters"): G 1019 (g = 5/1024),
 * alpha period 1 us, initial alpha 1023/1024. */
static struct rp_dcqcn params(void)
{
	return (struct rp_dcqcn){.enabled = true, .rpg_time_reset_ns = 300000, .rpg_byte_reset = 32767,
				 .rpg_threshold = 1, .rpg_ai_rate_bps = 5000000, .rpg_hai_rate_bps = 50000000,
				 .rpg_min_rate_bps = 1000000, .rpg_min_dec_fac = 50, .dce_tcp_g = 1019,
				 .dce_tcp_rtt_ns = 1000, .rate_reduce_monitor_period_ns = 4000,
				 .initial_alpha_value = 1023, .clamp_tgt_rate_after_time_inc = true};
}

/* Periodic alpha (mlx5), by hand, g = (1024 - 1019)/1024 = 5/1024:
 *   t=1000 CNP: cut with alpha0 = 1023/1024: rc = 100e9 (1 - 1023/2048)
 *               = 50048828125; the period [1000, 2000) has a CNP
 *   t=2000 CNP: the expiry at 2000 first: alpha1 = (1019/1024)(1023/1024) +
 *               5/1024 = 1047557/1048576 = 0.999028205871582; no cut (1 us <
 *               the 4 us monitor period)
 *   t=6000 CNP: expiry 3000 with F = 1: alpha2 = (1019/1024) alpha1 + 5/1024;
 *               4000, 5000, 6000 quiet: alpha3 = alpha2 (1019/1024)^3 =
 *               0.98447001931977; cut: rc = 50048828125 (1 - alpha3/2) =
 *               25413042729.42. (dce_tcp_g read as g = 1/1019, before issue
 *               31, alpha1 would be 0.99999907.) The target stays 100e9:
 *               no timer step (300 us) since the cut at 1000, and mlx5's
 *               default clamps it only after one (with clamp_tgt_rate on,
 *               the paper's rule, it would be 50048828125). */
static void dcqcn_cuts_by_alpha(void **state)
{
	(void)state;
	struct rp_dcqcn p = params();
	struct rp_dcqcn_state s;
	rp_dcqcn_init(&s, &p, 100000000000ull);
	assert_false(s.limited);
	rp_dcqcn_cnp(&s, 1000);
	assert_true(s.limited);
	assert_true(fabs(rp_dcqcn_rate(&s) - 50048828125.0) < 1);
	assert_true(fabs(s.rt - 100e9) < 1);
	rp_dcqcn_cnp(&s, 2000); /* within 4 us */
	assert_true(fabs(s.alpha - 1047557.0 / 1048576.0) < 1e-12);
	assert_true(fabs(rp_dcqcn_rate(&s) - 50048828125.0) < 1);
	assert_int_equal(s.cuts, 1);
	rp_dcqcn_cnp(&s, 6000);
	assert_true(fabs(s.alpha - 0.98447001931977) < 1e-12);
	assert_true(fabs(rp_dcqcn_rate(&s) - 25413042729.42) < 1);
	assert_true(fabs(s.rt - 100e9) < 1);
}

/* The target at a cut, mlx5's clamp_tgt_rate and
 * clamp_tgt_rate_after_time_inc (NVIDIA DOCA "DCQCN CC Parameters":
 * defaults 0 and 1), by hand:
 *   t=0 cut: rc = 50048828125 (as above), target 100e9 (no timer step yet);
 *   t=1000: 32767 bytes sent, a byte-counter step: fast recovery, rc =
 *           (100e9 + 50048828125)/2 = 75024414062.5;
 *   t=5000 CNP: only a byte step since the cut: the target stays 100e9;
 *   t=305000 CNP: the timer step at 5000 + 300000 came first (rc halfway
 *           to 100e9): the target takes the current rate before the cut.
 * With clamp_tgt_rate on (the paper's R_T = R_C) every cut sets it; with
 * both off none does. */
static void dcqcn_target_clamp(void **state)
{
	(void)state;
	struct rp_dcqcn p = params();
	p.clamp_tgt_rate_after_time_inc = true;
	struct rp_dcqcn_state s;
	rp_dcqcn_init(&s, &p, 100000000000ull);
	rp_dcqcn_cnp(&s, 0);
	assert_true(fabs(s.rt - 100e9) < 1);
	rp_dcqcn_sent(&s, 1000, 32767);
	assert_true(fabs(rp_dcqcn_rate(&s) - 75024414062.5) < 1);
	rp_dcqcn_cnp(&s, 5000);
	assert_int_equal(s.cuts, 2);
	assert_true(fabs(s.rt - 100e9) < 1);
	double before = rp_dcqcn_rate(&s);
	rp_dcqcn_advance(&s, 305000);
	assert_int_equal(s.t_steps, 1);
	double stepped = (100e9 + before) / 2;
	assert_true(fabs(rp_dcqcn_rate(&s) - stepped) < 1);
	rp_dcqcn_cnp(&s, 305000);
	assert_true(fabs(s.rt - stepped) < 1);

	p.clamp_tgt_rate = true; /* the paper: every cut */
	rp_dcqcn_init(&s, &p, 100000000000ull);
	rp_dcqcn_cnp(&s, 0);
	assert_true(fabs(s.rt - 100e9) < 1);
	rp_dcqcn_cnp(&s, 5000);
	assert_true(fabs(s.rt - 50048828125.0) < 1);

	p.clamp_tgt_rate = p.clamp_tgt_rate_after_time_inc = false; /* never */
	rp_dcqcn_init(&s, &p, 100000000000ull);
	rp_dcqcn_cnp(&s, 0);
	rp_dcqcn_advance(&s, 300000);
	rp_dcqcn_cnp(&s, 300000);
	assert_true(fabs(s.rt - 100e9) < 1);
}

/* Per-CNP alpha (the paper's eq. 1-2), the same CNPs:
 *   t=1000: cut with alpha0 (rc 50048828125), then alpha1 = 1047557/1048576
 *           as above; the quiet timer restarts: next expiry 2000
 *   t=2000: that expiry first (no CNP in [1000, 2000)): alpha1 (1019/1024);
 *           then the CNP: alpha = (1019/1024)^2 alpha1 + 5/1024 =
 *           0.99417870223715 (periodic: 0.99902820587158, F was 1). */
static void dcqcn_alpha_per_cnp(void **state)
{
	(void)state;
	struct rp_dcqcn p = params();
	p.alpha_update = RP_ALPHA_PER_CNP;
	struct rp_dcqcn_state s;
	rp_dcqcn_init(&s, &p, 100000000000ull);
	rp_dcqcn_cnp(&s, 1000);
	assert_true(fabs(rp_dcqcn_rate(&s) - 50048828125.0) < 1);
	assert_true(fabs(s.alpha - 1047557.0 / 1048576.0) < 1e-12);
	assert_int_equal(s.next_alpha_ns, 2000);
	rp_dcqcn_cnp(&s, 2000);
	assert_true(fabs(s.alpha - 0.99417870223715) < 1e-12);
	assert_int_equal(s.next_alpha_ns, 3000);
}

/* rpg_threshold F = 5 means five fast-recovery steps (issue 31, item 3; it
 * gave F - 1): after cuts at 0 and 5 us, target = 50048828125 (the first
 * cut's rate: clamp_tgt_rate on, the paper's rule); timer steps each 300 us (no byte steps: 1 GB counter):
 * steps 1..5 keep the target (current halves its gap to it), step 6 adds
 * R_AI: 50048828125 + 5000000 = 50053828125. */
static void dcqcn_fast_recovery_steps(void **state)
{
	(void)state;
	struct rp_dcqcn p = params();
	p.rpg_threshold = 5;
	p.rpg_byte_reset = 1000000000ull;
	p.clamp_tgt_rate = true;
	struct rp_dcqcn_state s;
	rp_dcqcn_init(&s, &p, 100000000000ull);
	rp_dcqcn_cnp(&s, 0);
	rp_dcqcn_cnp(&s, 5000);
	assert_true(fabs(s.rt - 50048828125.0) < 1);
	double rc = rp_dcqcn_rate(&s);
	for (unsigned k = 1; k <= 5; k++) {
		rp_dcqcn_advance(&s, 5000 + 300000ull * k);
		rc = (50048828125.0 + rc) / 2;
		assert_true(fabs(s.rt - 50048828125.0) < 1);
		assert_true(fabs(rp_dcqcn_rate(&s) - rc) < 1);
	}
	rp_dcqcn_advance(&s, 5000 + 300000ull * 6);
	assert_true(fabs(s.rt - 50053828125.0) < 1);
}

/* rpg_min_dec_fac as mlx5 means it: the new rate keeps at least that % of
 * the old (100: no cut). alpha0 1023/1024 would keep 50.05 %: with 75 the
 * floor keeps 75 %, 100e9 -> 75e9; with 100 the rate stays. */
static void dcqcn_min_dec_fac(void **state)
{
	(void)state;
	struct rp_dcqcn p = params();
	struct rp_dcqcn_state s;
	p.rpg_min_dec_fac = 75;
	rp_dcqcn_init(&s, &p, 100000000000ull);
	rp_dcqcn_cnp(&s, 0);
	assert_true(fabs(rp_dcqcn_rate(&s) - 75e9) < 1);
	p.rpg_min_dec_fac = 100;
	rp_dcqcn_init(&s, &p, 100000000000ull);
	rp_dcqcn_cnp(&s, 0);
	assert_true(fabs(rp_dcqcn_rate(&s) - 100e9) < 1);
}

/* Timer steps with F = 1: the first is fast recovery (current halfway to
 * the target 100e9: (100e9 + 50048828125)/2 = 75024414062.5), the second
 * additive (target capped at line rate); recovery ends at line rate. */
static void dcqcn_recovers(void **state)
{
	(void)state;
	struct rp_dcqcn p = params();
	struct rp_dcqcn_state s;
	rp_dcqcn_init(&s, &p, 100000000000ull);
	rp_dcqcn_cnp(&s, 0);
	rp_dcqcn_advance(&s, 300000);
	assert_true(fabs(s.rt - 100e9) < 1);
	assert_true(fabs(rp_dcqcn_rate(&s) - 75024414062.5) < 1);
	assert_int_equal(rp_dcqcn_next_change(&s), 600000);
	rp_dcqcn_advance(&s, 300000 * 40);
	assert_false(s.limited);
	assert_int_equal(rp_dcqcn_next_change(&s), UINT64_MAX);
	assert_true(fabs(rp_dcqcn_rate(&s) - 100e9) < 1);
}

static void dcqcn_min_rate_floor(void **state)
{
	(void)state;
	struct rp_dcqcn p = params();
	struct rp_dcqcn_state s;
	p.rpg_min_rate_bps = 10000000000ull;
	rp_dcqcn_init(&s, &p, 100000000000ull);
	for (uint64_t t = 0; t < 20; t++)
		rp_dcqcn_cnp(&s, t * 5000);
	assert_true(fabs(rp_dcqcn_rate(&s) - 10e9) < 1);
}

static const char *const QPROFILE = "name: q\n"
				    "defaults: {speed: 25G, mtu: 4096}\n"
				    "hosts:\n"
				    "  - {name: h0, mac: \"02:00:00:00:00:00\", ipv4: 10.0.0.100, port: net_null0}\n"
				    "  - {name: h1, mac: \"02:00:00:00:00:01\", ipv4: 10.0.0.1, port: net_null1}\n"
				    "  - {name: h2, mac: \"02:00:00:00:00:02\", ipv4: 10.0.0.2, port: net_null2}\n"
				    "traffic:\n"
				    "  - {name: t, pattern: incast, senders: [h1, h2], receiver: h0, messages: 1}\n"
				    "fabric: {qdepth_bin: 10us}\n";

/* 1000-byte IPv4 frame from h0 with this DSCP. */
static size_t ip_frame(uint8_t *f, uint8_t dscp)
{
	struct rp_eth e = {.dst = {0x02, 0, 0, 0, 0, 0x01}, .src = {0x02, 0, 0, 0, 0, 0x00},
			   .ethertype = RP_ETHERTYPE_IPV4};
	size_t h = rp_eth_build(f, 1000, &e);
	struct rp_ipv4 ip = {.dscp = dscp, .total_len = (uint16_t)(1000 - h), .ttl = 64, .proto = RP_IPPROTO_UDP,
			     .src = 0x0A000064, .dst = 0x0A000001};
	rp_ipv4_build(f + h, 1000 - h, &ip);
	return 1000;
}

static char *slurp(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

/* The lab's switch sw0 (h0, h1, h2 on ports 0, 1, 2), bins of 10 us, fed by
 * hand at the model: at t = 0 three 1000-byte DSCP 26 frames (priority 3)
 * into port 0 for port 1, never sent, and two DSCP 0 frames (priority 0) for
 * port 2, sent at 15 us and 16 us. At virtual end 25 us: bins 0..2 (25 / 10
 * + 1); queue 1:3 holds 3000 in each; queue 2:0 holds 2000 in bins 0 and 1
 * (the largest depth in [10, 20) us is 2000, before 15 us), 0 in bin 2, its
 * series cut there; every other queue held nothing and has no column. */
static void qdepth_csv_known_answer(void **state)
{
	(void)state;
	char err[512];
	struct rp_profile *prof = rp_profile_load_string("q.yaml", QPROFILE, NULL, err, sizeof(err));
	assert_non_null(prof);
	struct rp_plan plan;
	assert_int_equal(rp_plan_build(prof, &plan, err, sizeof(err)), 0);
	struct rp_lab_opts lo = {0};
	struct rp_lab *lab = rp_lab_create(prof, &plan, &lo, err, sizeof(err));
	assert_non_null(lab);
	struct rp_switch *sw = lab->sw[0].sw;
	static uint8_t out[16384];
	struct rp_switch_rx rx;
	struct rp_switch_tx tx;
	/* The lab's switches hold frames by their pool slots (rp_switch_use_refs). */
	for (int i = 0; i < 5; i++) {
		uint32_t s = rp_pool_get(&lab->pool);
		size_t n = ip_frame(rp_pool_buf(&lab->pool, s), i < 3 ? 26 : 0);
		assert_int_equal(rp_switch_ingress_ref(sw, 0, 0, s, n, i < 3 ? 1 : 2, &rx), 0);
		assert_int_equal(rx.verdict, RP_SW_QUEUED);
	}
	assert_int_equal(rp_switch_next_tx(sw, 2, 15000, out, sizeof(out), &tx), 1);
	assert_int_equal(tx.ref, 3); /* the slots come back: no copy in out */
	assert_int_equal(rp_switch_next_tx(sw, 2, 16000, out, sizeof(out), &tx), 1);
	assert_int_equal(tx.ref, 4);
	lab->tot.end_ns = 25000;

	char dir[] = "/tmp/rp_test_lab_XXXXXX", path[64];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/qdepth.csv", dir);
	assert_int_equal(rp_lab_write_qdepth_csv(lab, path, err, sizeof(err)), 0);
	assert_string_equal(slurp(path), "bin,sw0:1:3,sw0:2:0\n"
					 "0,3000,2000\n"
					 "1,3000,2000\n"
					 "2,3000,0\n");
	unlink(path);
	rmdir(dir);
	/* A directory that is not there: -1 and the path in one message. */
	snprintf(path, sizeof(path), "%s/qdepth.csv", dir);
	assert_int_equal(rp_lab_write_qdepth_csv(lab, path, err, sizeof(err)), -1);
	char want[128];
	snprintf(want, sizeof(want), "cannot write %s: No such file or directory", path);
	assert_string_equal(err, want);

	rp_lab_destroy(lab);
	rp_plan_free(&plan);
	rp_profile_free(prof);
}

/* A capture whose writes fail (its file is /dev/full: the stream's buffer
 * cannot go out, ENOSPC): the first failure stops every capture sharing the
 * budget, names the file and the error, and what is counted is what the file
 * holds (/dev/full keeps nothing). Rotation onto a file that cannot be
 * opened is the same, never an error that ends the run. */
static void capture_write_failure_stops_all(void **state)
{
	(void)state;
	char dir[] = "/tmp/rp-test-lab-capXXXXXX", link[64], err[256], want[128];
	assert_non_null(mkdtemp(dir));
	snprintf(link, sizeof(link), "%s/capture-x.pcap", dir);
	assert_int_equal(symlink("/dev/full", link), 0);
	struct rp_lab_cap_budget b = {0};
	struct rp_lab_cap *x = rp_lab_cap_open(dir, "x", 128, 0, &b, err, sizeof(err));
	struct rp_lab_cap *y = rp_lab_cap_open(dir, "y", 128, 0, &b, err, sizeof(err));
	assert_non_null(x);
	assert_non_null(y);
	uint8_t frame[1000] = {0};
	/* 144 B a record: the stream's buffer (4 KiB or more) fills within 200 of them. */
	int n = 0;
	for (; n < 200 && !b.failed; n++)
		assert_int_equal(rp_lab_cap_write(x, 1000u * (unsigned)n, frame, sizeof(frame), err, sizeof(err)), 0);
	assert_true(b.failed && b.stopped);
	assert_true(n > 1 && n < 200);
	assert_int_equal(b.stopped_ns, 1000u * (unsigned)(n - 1));
	snprintf(want, sizeof(want), "cannot write %s: No space left on device", link);
	assert_string_equal(b.error, want);
	uint64_t y_before = rp_lab_cap_frames(y);
	assert_int_equal(rp_lab_cap_write(y, 1000u * (unsigned)n, frame, sizeof(frame), err, sizeof(err)), 0);
	assert_int_equal(rp_lab_cap_frames(y), y_before); /* y stopped too: one instant for all */
	rp_lab_cap_close(x, 999999);
	assert_int_equal(rp_lab_cap_frames(x), 0); /* none of it reached a file */
	assert_string_equal(b.error, want);   /* the first reason stays */
	rp_lab_cap_close(y, 999999);
	rp_lab_cap_free(x);
	rp_lab_cap_free(y);
	char ypath[64];
	snprintf(ypath, sizeof(ypath), "%s/capture-y.pcap", dir);
	unlink(ypath);
	unlink(link);
	/* Rotation into a directory that has gone: stops, says which file, returns 0. */
	struct rp_lab_cap_budget r = {0};
	struct rp_lab_cap *z = rp_lab_cap_open(dir, "z", 128, 4096, &r, err, sizeof(err));
	assert_non_null(z);
	char zpath[64];
	snprintf(zpath, sizeof(zpath), "%s/capture-z-0001.pcap", dir);
	unlink(zpath);
	rmdir(dir);
	for (n = 0; n < 100 && !r.failed; n++)
		assert_int_equal(rp_lab_cap_write(z, (unsigned)n, frame, sizeof(frame), err, sizeof(err)), 0);
	assert_true(r.failed);
	snprintf(want, sizeof(want), "cannot write %s/capture-z-0002.pcap: No such file or directory", dir);
	assert_string_equal(r.error, want);
	rp_lab_cap_close(z, 100);
	rp_lab_cap_free(z);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(evq_orders_by_time_then_insertion),
		cmocka_unit_test(evq_ties_then_insertion),
		cmocka_unit_test(evq_many),
		cmocka_unit_test(evq_calendar_exact_order),
		cmocka_unit_test(pool_reuses_slots),
		cmocka_unit_test(dcqcn_cuts_by_alpha),
		cmocka_unit_test(dcqcn_target_clamp),
		cmocka_unit_test(dcqcn_recovers),
		cmocka_unit_test(dcqcn_alpha_per_cnp),
		cmocka_unit_test(dcqcn_fast_recovery_steps),
		cmocka_unit_test(dcqcn_min_dec_fac),
		cmocka_unit_test(dcqcn_min_rate_floor),
		cmocka_unit_test(qdepth_csv_known_answer),
		cmocka_unit_test(capture_write_failure_stops_all),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
