/* lib/traffic: segmentation, pacing totals, and plans: incast and all-to-all
 * send exactly the planned bytes to each destination; the staggered
 * all-to-all never gives a receiver two senders in one phase. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "profile/profile.h"
#include "traffic/acct_cfg.h"
#include "traffic/plan.h"
#include "traffic/segment.h"
#include "traffic/source.h"
#include "wire/frame.h"

#define BURST 32

/* ---- helpers ---- */

static struct rp_profile *load(const char *yaml)
{
	char err[RP_PROFILE_ERR_LEN];
	struct rp_profile *p = rp_profile_load_string("test.yaml", yaml, NULL, err, sizeof(err));
	if (!p)
		fail_msg("%s", err);
	return p;
}

static void build(const struct rp_profile *p, struct rp_plan *pl)
{
	char err[256];
	if (rp_plan_build(p, pl, err, sizeof(err)))
		fail_msg("%s", err);
}

/* n hosts h0..h{n-1} on 10.0.0.x with the given speed. */
static char *hosts_yaml(size_t n, const char *speed)
{
	char *s = malloc(128 * n + 64);
	if (!s)
		abort();
	size_t off = (size_t)sprintf(s, "hosts:\n");
	for (size_t i = 0; i < n; i++)
		off += (size_t)sprintf(s + off, "  - {name: h%zu, mac: \"02:00:00:00:00:%02zx\", ipv4: 10.0.0.%zu, speed: %s}\n",
				       i, i + 1, i + 1, speed);
	return s;
}

static struct rp_profile *load_with_hosts(size_t n, const char *speed, const char *traffic)
{
	char *h = hosts_yaml(n, speed);
	char *all = malloc(strlen(h) + strlen(traffic) + 1);
	if (!all)
		abort();
	strcpy(all, h);
	strcat(all, traffic);
	struct rp_profile *p = load(all);
	free(h);
	free(all);
	return p;
}

struct seen {
	uint16_t src;
	uint16_t dst;
	uint64_t tx_ns;
	uint32_t flow_id;
	struct rp_frame f;
};

struct capture {
	struct seen *v;
	size_t n;
	size_t cap;
};

static uint16_t host_by_mac(const struct rp_profile *p, const uint8_t *mac)
{
	for (size_t i = 0; i < p->nhosts; i++)
		if (memcmp(p->hosts[i].mac, mac, 6) == 0)
			return (uint16_t)i;
	fail_msg("unknown MAC");
	return 0;
}

/* Runs every host's source to the end on one virtual clock (always jumping
 * to the next due time) and parses every frame. */
static void run_all(const struct rp_plan *pl, struct capture *cap)
{
	size_t nh = pl->prof->nhosts;
	struct rp_source **src = calloc(nh, sizeof(*src));
	char err[256];
	for (size_t h = 0; h < nh; h++) {
		src[h] = rp_source_create(pl, (unsigned)h, NULL, err, sizeof(err));
		if (!src[h])
			fail_msg("%s", err);
	}
	static uint8_t mem[BURST][9216];
	uint8_t *bufs[BURST];
	uint16_t lens[BURST];
	uint32_t ids[BURST];
	for (int i = 0; i < BURST; i++)
		bufs[i] = mem[i];
	memset(cap, 0, sizeof(*cap));
	for (;;) {
		uint64_t now = UINT64_MAX;
		for (size_t h = 0; h < nh; h++) {
			uint64_t d = rp_source_next_due(src[h]);
			now = d < now ? d : now;
		}
		if (now == UINT64_MAX)
			break;
		for (size_t h = 0; h < nh; h++) {
			unsigned n = rp_source_burst(src[h], now, 0, bufs, lens, ids, BURST);
			for (unsigned i = 0; i < n; i++) {
				if (cap->n == cap->cap) {
					cap->cap = cap->cap ? cap->cap * 2 : 1024;
					cap->v = realloc(cap->v, cap->cap * sizeof(*cap->v));
				}
				struct seen *s = &cap->v[cap->n++];
				rp_frame_parse(bufs[i], lens[i], lens[i], &s->f);
				s->src = (uint16_t)h;
				s->dst = s->f.kind == RP_KIND_ROCE ? host_by_mac(pl->prof, s->f.eth.dst) : 0;
				s->tx_ns = now;
				s->flow_id = ids[i];
			}
		}
	}
	for (size_t h = 0; h < nh; h++) {
		assert_true(rp_source_done(src[h]));
		rp_source_destroy(src[h]);
	}
	free(src);
}

/* Payload bytes seen per (src, dst) equal the plan's, for every pair. */
static void assert_pair_bytes(const struct rp_plan *pl, const struct capture *cap)
{
	size_t nh = pl->prof->nhosts;
	uint64_t *got = calloc(nh * nh, sizeof(*got));
	for (size_t i = 0; i < cap->n; i++) {
		const struct seen *s = &cap->v[i];
		assert_int_equal(s->f.kind, RP_KIND_ROCE);
		assert_true(s->f.icrc_ok);
		got[s->src * nh + s->dst] += s->f.payload_len;
	}
	for (size_t a = 0; a < nh; a++)
		for (size_t b = 0; b < nh; b++)
			if (got[a * nh + b] != rp_plan_pair_bytes(pl, a, b))
				fail_msg("%zu -> %zu: sent %llu, planned %llu", a, b, (unsigned long long)got[a * nh + b],
					 (unsigned long long)rp_plan_pair_bytes(pl, a, b));
	free(got);
}

/* ---- segmentation ---- */

static void test_segment_10000_at_4096(void **state)
{
	(void)state;
	struct rp_seg s[3];
	assert_int_equal(rp_seg_count(10000, 4096), 3);
	for (uint32_t i = 0; i < 3; i++)
		assert_int_equal(rp_segment(RP_VERB_WRITE, 10000, 4096, i, &s[i]), 0);
	assert_int_equal(rp_segment(RP_VERB_WRITE, 10000, 4096, 3, &s[0]), -1);
	assert_int_equal(rp_segment(RP_VERB_WRITE, 10000, 4096, 0, &s[0]), 0);
	assert_int_equal(s[0].kind, RP_PKT_FIRST);
	assert_int_equal(s[0].opcode, RP_OP_RC_WRITE_FIRST);
	assert_int_equal(s[0].payload, 4096);
	assert_int_equal(s[0].ext, RP_EXT_RETH);
	assert_false(s[0].ack_req);
	assert_int_equal(s[1].kind, RP_PKT_MIDDLE);
	assert_int_equal(s[1].opcode, RP_OP_RC_WRITE_MIDDLE);
	assert_int_equal(s[1].payload, 4096);
	assert_int_equal(s[1].ext, 0);
	assert_false(s[1].ack_req);
	assert_int_equal(s[2].kind, RP_PKT_LAST);
	assert_int_equal(s[2].opcode, RP_OP_RC_WRITE_LAST);
	assert_int_equal(s[2].payload, 1808);
	assert_int_equal(s[2].ext, 0);
	assert_int_equal(s[2].pad, 0);
	assert_true(s[2].ack_req);
}

static void test_segment_verbs_and_pad(void **state)
{
	(void)state;
	struct rp_seg s;
	/* ONLY for messages that fit, including empty ones. */
	assert_int_equal(rp_segment(RP_VERB_WRITE, 4096, 4096, 0, &s), 0);
	assert_int_equal(s.opcode, RP_OP_RC_WRITE_ONLY);
	assert_int_equal(s.ext, RP_EXT_RETH);
	assert_true(s.ack_req);
	assert_int_equal(rp_segment(RP_VERB_SEND, 0, 1024, 0, &s), 0);
	assert_int_equal(s.opcode, RP_OP_RC_SEND_ONLY);
	assert_int_equal(s.payload, 0);
	/* Immediate data rides on LAST and ONLY. */
	assert_int_equal(rp_segment(RP_VERB_WRITE_IMM, 5000, 4096, 1, &s), 0);
	assert_int_equal(s.opcode, RP_OP_RC_WRITE_LAST_IMM);
	assert_int_equal(s.ext, RP_EXT_IMM);
	assert_int_equal(rp_segment(RP_VERB_WRITE_IMM, 100, 4096, 0, &s), 0);
	assert_int_equal(s.opcode, RP_OP_RC_WRITE_ONLY_IMM);
	assert_int_equal(s.ext, RP_EXT_RETH | RP_EXT_IMM);
	assert_int_equal(rp_segment(RP_VERB_SEND_IMM, 3000, 1024, 2, &s), 0);
	assert_int_equal(s.opcode, RP_OP_RC_SEND_LAST_IMM);
	assert_int_equal(s.payload, 952);
	assert_int_equal(rp_segment(RP_VERB_SEND_IMM, 3000, 1024, 0, &s), 0);
	assert_int_equal(s.opcode, RP_OP_RC_SEND_FIRST);
	assert_int_equal(s.ext, 0);
	/* Read responses: AETH on FIRST, LAST and ONLY, not MIDDLE; no AckReq. */
	uint8_t want_ext[3] = {RP_EXT_AETH, 0, RP_EXT_AETH};
	uint8_t want_op[3] = {RP_OP_RC_READ_RESP_FIRST, RP_OP_RC_READ_RESP_MIDDLE, RP_OP_RC_READ_RESP_LAST};
	for (uint32_t i = 0; i < 3; i++) {
		assert_int_equal(rp_segment(RP_VERB_READ_RESP, 9000, 4096, i, &s), 0);
		assert_int_equal(s.opcode, want_op[i]);
		assert_int_equal(s.ext, want_ext[i]);
		assert_false(s.ack_req);
	}
	assert_int_equal(rp_segment(RP_VERB_READ_RESP, 64, 4096, 0, &s), 0);
	assert_int_equal(s.opcode, RP_OP_RC_READ_RESP_ONLY);
	assert_int_equal(s.ext, RP_EXT_AETH);
	/* Pad to 4 bytes. */
	for (uint32_t size = 1000; size < 1008; size++) {
		assert_int_equal(rp_segment(RP_VERB_SEND, size, 4096, 0, &s), 0);
		assert_int_equal((s.payload + s.pad) % 4, 0);
		assert_true(s.pad < 4);
	}
	assert_int_equal(rp_segment(RP_VERB_SEND, 1001, 256, 3, &s), 0);
	assert_int_equal(s.payload, 233);
	assert_int_equal(s.pad, 3);
	/* Frame lengths: IPv4 WRITE_FIRST at 4096: 14 + 20 + 8 + 12 + 16 + 4096 + 4. */
	struct rp_frame_shape v4 = {.l3 = 4}, v6vlan = {.l3 = 6, .vlan = true};
	assert_int_equal(rp_segment(RP_VERB_WRITE, 10000, 4096, 0, &s), 0);
	assert_int_equal(rp_seg_frame_len(&v4, &s), 4170);
	assert_int_equal(rp_seg_frame_len(&v6vlan, &s), 4194);
	assert_int_equal(rp_segment(RP_VERB_SEND, 1, 4096, 0, &s), 0);
	assert_int_equal(rp_seg_frame_len(&v4, &s), 62); /* 14+20+8+12+1+3+4, above the 60 minimum */
	assert_int_equal(rp_segment(RP_VERB_SEND, 0, 4096, 0, &s), 0);
	assert_int_equal(rp_seg_frame_len(&v4, &s), 60); /* 58 padded to 60 */
	assert_int_equal(rp_l1_bits(60), 84 * 8);
}

/* Segmentation as it goes on the wire: through a plan and the source. */
static void test_segment_on_wire(void **state)
{
	(void)state;
	struct rp_profile *p = load_with_hosts(2, "100G",
		"traffic:\n  - {pattern: flow, src: h0, dst: h1, message_size: 10000, mtu: 4096, messages: 2}\n"
		"  - {pattern: flow, src: h1, dst: h0, opcode: send, message_size: 1001, mtu: 256, messages: 1, "
		"psn_start: 0xFFFFFE}\n");
	struct rp_plan pl;
	build(p, &pl);
	assert_int_equal(pl.flows[0].tot.pkts, 6);
	assert_int_equal(pl.flows[0].payload_bytes, 20000);
	assert_int_equal(pl.flows[1].tot.pkts, 4);
	struct capture cap;
	run_all(&pl, &cap);
	assert_int_equal(cap.n, 10);
	size_t w = 0, s = 0;
	uint32_t want_psn_w[6] = {0, 1, 2, 3, 4, 5};
	uint32_t want_psn_s[4] = {0xFFFFFE, 0xFFFFFF, 0, 1};
	uint32_t want_len_s[4] = {256, 256, 256, 233};
	for (size_t i = 0; i < cap.n; i++) {
		const struct rp_frame *f = &cap.v[i].f;
		assert_int_equal(f->kind, RP_KIND_ROCE);
		assert_true(f->icrc_ok);
		if (cap.v[i].flow_id == 0) {
			unsigned k = (unsigned)(w % 3);
			assert_int_equal(f->bth.psn, want_psn_w[w]);
			assert_int_equal(f->payload_len, k < 2 ? 4096 : 1808);
			assert_int_equal(f->bth.pad, 0);
			assert_int_equal(f->bth.ack_req, k == 2);
			if (k == 0) {
				assert_int_equal(f->bth.opcode, RP_OP_RC_WRITE_FIRST);
				assert_true(f->ext & RP_EXT_RETH);
				assert_int_equal(f->reth.dma_len, 10000);
			} else {
				assert_int_equal(f->bth.opcode, k == 1 ? RP_OP_RC_WRITE_MIDDLE : RP_OP_RC_WRITE_LAST);
				assert_false(f->ext & RP_EXT_RETH);
			}
			w++;
		} else {
			assert_int_equal(f->bth.psn, want_psn_s[s]);
			assert_int_equal(f->payload_len, want_len_s[s]);
			assert_int_equal(f->bth.pad, s == 3 ? 3 : 0);
			s++;
		}
	}
	assert_int_equal(w, 6);
	assert_int_equal(s, 4);
	free(cap.v);
	rp_plan_free(&pl);
	rp_profile_free(p);
}

/* ---- pacing totals ---- */

static void pace_cfg(struct rp_pace_cfg *c, uint64_t rate, uint32_t size, uint32_t mtu)
{
	memset(c, 0, sizeof(*c));
	c->div = rate;
	c->npkts = rp_seg_count(size, mtu);
	uint64_t l1[RP_PKT_KINDS] = {0};
	struct rp_frame_shape sh = {.l3 = 4};
	for (uint32_t i = 0; i < c->npkts; i++) {
		struct rp_seg s;
		rp_segment(RP_VERB_WRITE, size, mtu, i, &s);
		l1[s.kind] = rp_l1_bits(rp_seg_frame_len(&sh, &s));
	}
	rp_pace_cfg_gaps(c, l1);
	c->end_ns = UINT64_MAX;
}

static void assert_totals_match(const struct rp_pace_cfg *c)
{
	struct rp_pace_totals fast, slow;
	rp_pace_totals(c, &fast);
	rp_pace_totals_slow(c, &slow);
	assert_int_equal(fast.pkts, slow.pkts);
	assert_int_equal(fast.msgs, slow.msgs);
	for (int k = 0; k < RP_PKT_KINDS; k++)
		assert_int_equal(fast.kind[k], slow.kind[k]);
}

static void test_pace_totals(void **state)
{
	(void)state;
	static const uint64_t rates[] = {100000000000ull, 33333333333ull, 7000000001ull, 1000000000ull};
	static const uint32_t sizes[] = {64, 4096, 10000, 65536, 100001};
	for (size_t r = 0; r < 4; r++) {
		for (size_t z = 0; z < 5; z++) {
			struct rp_pace_cfg c;
			pace_cfg(&c, rates[r], sizes[z], 4096);
			c.start_ns = 1234;
			c.stop = RP_STOP_DURATION;
			c.end_ns = c.start_ns + 200000;
			assert_totals_match(&c); /* continuous */
			c.period_ns = 10000;
			c.on_ns = 3000;
			assert_totals_match(&c); /* on/off bursts */
			c.on_ns = 0;
			c.burst_msgs = 1;
			c.period_ns = 3 * (c.msg_ns + 1);
			assert_totals_match(&c); /* message bursts (all-to-all) */
			c.stop = RP_STOP_PACKETS;
			c.stop_count = 37;
			assert_totals_match(&c);
			c.stop = RP_STOP_MESSAGES;
			c.stop_count = 5;
			assert_totals_match(&c);
		}
	}
	/* Rate phases: the fast totals walk the phases as the pacer steps them. */
	static const struct rp_rate_phase ph[] = {
		{.at_ns = 0, .rate = {.ppm = 200000}},
		{.at_ns = 7001, .rate = {.bps = 3000000007ull}},
		{.at_ns = 7002, .rate = {.ppm = 1000000}},
		{.at_ns = 90000, .rate = {.ppm = 10000}},
	};
	for (size_t r = 0; r < 4; r++) {
		for (size_t z = 0; z < 5; z++) {
			for (uint16_t n = 1; n <= 4; n++) {
				struct rp_pace_cfg c;
				pace_cfg(&c, rates[r], sizes[z], 4096);
				c.start_ns = 1234;
				c.stop = RP_STOP_DURATION;
				c.phases = ph;
				c.nphases = n;
				c.link_bps = rates[r];
				c.stop_ns = c.start_ns + 200000;
				rp_pace_phase_set(&c, 0);
				assert_totals_match(&c);
			}
		}
	}
	/* A continuous flow of 1098-byte frames at 10G for 1 s: every packet
	 * takes 8976 bits = 897.6 ns; ceil(1e9 / 897.6) = ceil(1114081.996). */
	struct rp_pace_cfg c;
	pace_cfg(&c, 10000000000ull, 1024, 1024);
	c.stop = RP_STOP_DURATION;
	c.end_ns = 1000000000ull;
	struct rp_pace_totals t;
	rp_pace_totals(&c, &t);
	assert_int_equal(t.pkts, 1114082);
}

/* ---- plans ---- */

/* phases: 20% of 100G for 10 us, then 80% to 30 us. 1024 B WRITE ONLY frames
 * of 14 + 20 + 8 + 12 + 16 + 1024 + 4 = 1098 B, 8976 bits on the wire: 448.8 ns
 * at 20G, 112.2 ns at 80G. Phase 0 starts messages in [0, 10 us): ceil(10000 /
 * 448.8) = 23, the 24th due at 23 x 448.8 = 10322.4 ns, where phase 1 starts
 * (at 10322, its remainder dropped); phase 1 starts ceil((30000 - 10322) /
 * 112.2) = 176 in [10322, 30000): 199 packets, the last done at 10322 + 176 x
 * 112.2 = 30069.2 ns; on average (20G x 10 + 80G x 20) / 30 = 60G. */
static void test_rate_phases(void **state)
{
	(void)state;
	struct rp_profile *p = load_with_hosts(2, "100G",
		"traffic:\n  - {pattern: flow, src: h0, dst: h1, message_size: 1024, mtu: 1024, duration: 30us,\n"
		"     phases: [{at: 0ms, rate: 20%}, {at: 10us, rate: 80%}]}\n");
	struct rp_plan pl;
	build(p, &pl);
	assert_int_equal(pl.nflows, 1);
	const struct rp_flow *f = &pl.flows[0];
	assert_int_equal(f->tot.pkts, 199);
	assert_int_equal(f->end_ns, 30070);
	assert_true(f->avg_bps > 59.99e9 && f->avg_bps < 60.01e9);
	assert_true(f->peak_bps > 79.99e9 && f->peak_bps < 80.01e9);
	assert_true(pl.load[0].tx_bps > 59.99e9 && pl.load[0].tx_bps < 60.01e9);
	struct capture cap;
	run_all(&pl, &cap);
	assert_int_equal(cap.n, 199);
	size_t before = 0;
	for (size_t i = 0; i < cap.n; i++)
		before += cap.v[i].tx_ns < 10000;
	assert_int_equal(before, 23);
	assert_int_equal(cap.v[22].tx_ns, 22 * 4488 / 10); /* 9873.6 */
	assert_int_equal(cap.v[23].tx_ns, 10322);
	for (size_t i = 24; i < cap.n; i++) {
		uint64_t gap = cap.v[i].tx_ns - cap.v[i - 1].tx_ns;
		assert_true(gap == 112 || gap == 113);
	}
	assert_int_equal(cap.v[cap.n - 1].tx_ns, 10322 + 175 * 1122 / 10); /* 29957.5 */
	assert_pair_bytes(&pl, &cap);
	free(cap.v);
	/* The same on a clock whose plan time 0 is 5 s (the run engine's T0): the
	 * phase boundary and the end move with it. */
	char err[256];
	struct rp_source_opts o = {.time0_ns = 5000000000ull};
	struct rp_source *src = rp_source_create(&pl, 0, &o, err, sizeof(err));
	if (!src)
		fail_msg("%s", err);
	static uint8_t mem[BURST][9216];
	uint8_t *bufs[BURST];
	uint16_t lens[BURST];
	for (int i = 0; i < BURST; i++)
		bufs[i] = mem[i];
	uint64_t n = 0, t23 = 0, last = 0;
	for (uint64_t now; (now = rp_source_next_due(src)) != UINT64_MAX;) {
		unsigned k = rp_source_burst(src, now, 0, bufs, lens, NULL, 1);
		if (k && n == 23)
			t23 = now;
		last = k ? now : last;
		n += k;
	}
	assert_int_equal(n, 199);
	assert_int_equal(t23, 5000000000ull + 10322);
	assert_int_equal(last, 5000000000ull + 29957);
	rp_source_destroy(src);
	rp_plan_free(&pl);
	rp_profile_free(p);
}

static void test_incast_exact_bytes(void **state)
{
	(void)state;
	struct rp_profile *p = load_with_hosts(9, "100G",
		"traffic:\n  - {pattern: incast, receiver: h0, message_size: 64KiB, mtu: 4096, dscp: 26, ecn: ect0, "
		"messages: 5, qps: 2}\n"
		"  - {pattern: incast, receiver: h8, senders: [h1, h2], message_size: 10000, rate: 40%, duration: 37us}\n");
	struct rp_plan pl;
	build(p, &pl);
	assert_int_equal(pl.nflows, 10);
	for (size_t s = 1; s <= 8; s++)
		assert_int_equal(rp_plan_pair_bytes(&pl, s, 0), 5 * 65536);
	/* 40G, 10000 B messages of 3 frames (4170 + 4154 + 1870 B + 3 x 24 B of
	 * layer-1 overhead = 81648 bits = 2041.2 ns): 37 us starts 19 messages. */
	assert_int_equal(rp_plan_pair_bytes(&pl, 1, 8), 19 * 10000);
	assert_int_equal(rp_plan_pair_bytes(&pl, 2, 8), 19 * 10000);
	/* 8 x 100G into h0: 800% of its link. */
	assert_true(pl.load[0].rx_bps > 7.99e11 && pl.load[0].rx_bps < 8.01e11);
	assert_true(pl.load[1].tx_bps > 1.39e11 && pl.load[1].tx_bps < 1.41e11);
	struct capture cap;
	run_all(&pl, &cap);
	assert_pair_bytes(&pl, &cap);
	free(cap.v);
	rp_plan_free(&pl);
	rp_profile_free(p);
}

static void test_all_to_all_exact_bytes(void **state)
{
	(void)state;
	struct rp_profile *p = load_with_hosts(8, "100G",
		"traffic:\n  - {pattern: all-to-all, message_size: 256KiB, messages: 3}\n"
		"  - {pattern: all-to-all, hosts: [h0, h1, h2], message_size: 5000, mtu: 1024, rate: 10%, duration: 50us, "
		"start: 1ms}\n");
	struct rp_plan pl;
	build(p, &pl);
	assert_int_equal(pl.nflows, 8 * 7 + 3 * 2);
	for (size_t a = 0; a < 8; a++)
		for (size_t b = 0; b < 8; b++)
			if (a != b && (a > 2 || b > 2))
				assert_int_equal(rp_plan_pair_bytes(&pl, a, b), 3 * 262144);
	/* Each port sends one message at a time at full rate: 100%, not more. */
	for (size_t h = 0; h < 8; h++)
		assert_true(pl.load[h].rx_bps <= 1.0001e11 + (h <= 2 ? 1.01e10 : 0));
	struct capture cap;
	run_all(&pl, &cap);
	assert_pair_bytes(&pl, &cap);
	free(cap.v);
	rp_plan_free(&pl);
	rp_profile_free(p);
}

static void check_phases(size_t n)
{
	char traffic[160];
	snprintf(traffic, sizeof(traffic),
		 "traffic:\n  - {pattern: all-to-all, message_size: 8KiB, mtu: 4096, messages: 2, qps: 2, start: 3us}\n");
	struct rp_profile *p = load_with_hosts(n, "100G", traffic);
	struct rp_plan pl;
	build(p, &pl);
	assert_int_equal(pl.nphases, n - 1);
	assert_int_equal(pl.nflows, n * (n - 1));
	/* In the plan: every phase is a permutation without fixed points. */
	for (size_t ph = 0; ph < pl.nphases; ph++) {
		uint8_t rx[RP_MAX_HOSTS] = {0}, tx[RP_MAX_HOSTS] = {0};
		size_t flows = 0;
		for (size_t i = 0; i < pl.nflows; i++) {
			const struct rp_flow *f = &pl.flows[i];
			if (f->phase != pl.phases[ph].k)
				continue;
			flows++;
			assert_int_not_equal(f->src, f->dst);
			assert_int_equal(f->dst, (f->src + f->phase) % n);
			assert_int_equal(rx[f->dst]++, 0);
			assert_int_equal(tx[f->src]++, 0);
		}
		assert_int_equal(flows, n);
	}
	/* On the wire: map each packet to its global phase slot from its time;
	 * a receiver must see a single sender per slot. */
	uint64_t phase_ns = pl.phases[0].len_ns;
	uint64_t start = pl.phases[0].start_ns;
	struct capture cap;
	run_all(&pl, &cap);
	size_t slots = 2 * (n - 1);
	int *sender = malloc(n * slots * sizeof(*sender));
	for (size_t i = 0; i < n * slots; i++)
		sender[i] = -1;
	for (size_t i = 0; i < cap.n; i++) {
		const struct seen *s = &cap.v[i];
		size_t slot = (size_t)((s->tx_ns - start) / phase_ns);
		assert_true(slot < slots);
		int *who = &sender[s->dst * slots + slot];
		if (*who >= 0 && *who != s->src)
			fail_msg("N=%zu: receiver %u has senders %d and %u in slot %zu", n, s->dst, *who, s->src, slot);
		*who = s->src;
		assert_int_equal(s->dst, (s->src + slot % (n - 1) + 1) % n);
	}
	assert_pair_bytes(&pl, &cap);
	free(sender);
	free(cap.v);
	rp_plan_free(&pl);
	rp_profile_free(p);
}

static void test_all_to_all_one_sender_per_phase(void **state)
{
	(void)state;
	for (size_t n = 2; n <= 16; n++)
		check_phases(n);
}

static void test_all_to_all_phase_is_slowest_sender(void **state)
{
	(void)state;
	struct rp_profile *p = load(
		"hosts:\n"
		"  - {name: a, mac: \"02:00:00:00:00:01\", ipv4: 10.0.0.1, speed: 100G}\n"
		"  - {name: b, mac: \"02:00:00:00:00:02\", ipv4: 10.0.0.2, speed: 25G}\n"
		"  - {name: c, mac: \"02:00:00:00:00:03\", ipv4: 10.0.0.3, speed: 100G}\n"
		"traffic:\n  - {pattern: all-to-all, message_size: 4096, messages: 1}\n");
	struct rp_plan pl;
	build(p, &pl);
	/* One WRITE_ONLY of 4096 B: 14+20+8+12+16+4096+4 = 4170 B + 24 = 33552
	 * bits; at 25G that is 1342.08 ns, so the phase is 1343 ns. */
	assert_int_equal(rp_plan_phase_ns(&pl, 0), 1343);
	assert_int_equal(pl.phases[1].start_ns, 1343);
	assert_int_equal(pl.phases[0].period_ns, 2 * 1343);
	rp_plan_free(&pl);
	rp_profile_free(p);
}


/* `mac: auto`: the destination's MAC is its port's own, unknown until the
 * port opens, so an on-link flow to it is asked by ARP (IPv4) or ND (IPv6);
 * the pci: host without mac defaults to auto; two auto hosts do not clash.
 *   a 10.0.0.1 (02:..:01) -> b 10.0.0.2 (mac: auto)     a fd00::1 -> c fd00::3 (pci:, no mac) */
static void test_next_hop_mac_auto(void **state)
{
	(void)state;
	struct rp_profile *p = load(
		"hosts:\n"
		"  - {name: a, mac: \"02:00:00:00:00:01\", ipv4: 10.0.0.1, ipv6: fd00::1}\n"
		"  - {name: b, mac: auto, ipv4: 10.0.0.2}\n"
		"  - {name: c, ipv6: fd00::3, pci: \"0000:03:00.0\"}\n"
		"traffic:\n"
		"  - {pattern: flow, src: a, dst: b, packets: 1}\n"
		"  - {pattern: flow, src: a, dst: c, packets: 1, ip: 6}\n");
	assert_true(p->hosts[1].mac_auto && p->hosts[2].mac_auto && !p->hosts[0].mac_auto);
	struct rp_plan pl;
	build(p, &pl);
	const struct rp_next_hop *b = &pl.flows[0].nh, *c = &pl.flows[1].nh;
	assert_true(!b->via_gateway && !b->mac_known && b->mac_from == RP_MAC_FROM_ARP);
	assert_int_equal(b->ip4, 0x0a000002);
	assert_true(!c->via_gateway && !c->mac_known && c->mac_from == RP_MAC_FROM_ND);
	assert_int_equal(c->ip6[15], 3);
	size_t first = 99;
	assert_int_equal(rp_plan_unresolved(&pl, &first), 2);
	assert_int_equal(first, 0);
	rp_plan_free(&pl);
	rp_profile_free(p);
}

/* Routed hosts: which frames go to the destination, which to the gateway,
 * and where each MAC comes from.
 *   h0 10.1.0.2/24 gw 10.1.0.1 (MAC by ARP)        h1 10.1.0.9/24: same subnet -> direct
 *   h2 10.2.0.2/24 (no gateway needed: it only receives)
 *   h3 fd00:1::2/64 gw fd00:1::1, gateway_mac 02:00:00:00:00:fe   h4 fd00:2::2/64 */
static void test_next_hops(void **state)
{
	(void)state;
	struct rp_profile *p = load(
		"hosts:\n"
		"  - {name: h0, mac: \"02:00:00:00:00:01\", ipv4: 10.1.0.2/24, gateway: 10.1.0.1}\n"
		"  - {name: h1, mac: \"02:00:00:00:00:02\", ipv4: 10.1.0.9/24}\n"
		"  - {name: h2, mac: \"02:00:00:00:00:03\", ipv4: 10.2.0.2/24}\n"
		"  - {name: h3, mac: \"02:00:00:00:00:04\", ipv6: fd00:1::2/64, gateway: fd00:1::1,\n"
		"     gateway_mac: \"02:00:00:00:00:fe\"}\n"
		"  - {name: h4, mac: \"02:00:00:00:00:05\", ipv6: fd00:2::2/64}\n"
		"traffic:\n"
		"  - {pattern: flow, src: h0, dst: h1, packets: 1}\n"
		"  - {pattern: flow, src: h0, dst: h2, packets: 1}\n"
		"  - {pattern: flow, src: h3, dst: h4, packets: 1}\n");
	struct rp_plan pl;
	build(p, &pl);
	const struct rp_next_hop *a = &pl.flows[0].nh, *b = &pl.flows[1].nh, *c = &pl.flows[2].nh;
	static const uint8_t h1_mac[6] = {2, 0, 0, 0, 0, 2}, gw_mac[6] = {2, 0, 0, 0, 0, 0xfe};
	assert_false(a->via_gateway);
	assert_true(a->mac_known && a->mac_from == RP_MAC_FROM_PROFILE);
	assert_memory_equal(a->mac, h1_mac, 6);
	assert_int_equal(a->ip4, 0x0a010009);
	assert_true(b->via_gateway && !b->mac_known && b->mac_from == RP_MAC_FROM_ARP);
	assert_int_equal(b->ip4, 0x0a010001);
	assert_true(c->via_gateway && c->mac_known && c->mac_from == RP_MAC_FROM_GATEWAY_MAC);
	assert_memory_equal(c->mac, gw_mac, 6);
	assert_int_equal(c->ip6[15], 1);
	size_t first = 99;
	assert_int_equal(rp_plan_unresolved(&pl, &first), 1);
	assert_int_equal(first, 1);
	/* The frames of h3's flow go to the gateway's MAC; their IP destination stays h4. */
	struct rp_frame f;
	static const uint32_t ids[1] = {2};
	char err[256];
	struct rp_source *src = rp_source_create_flows(&pl, ids, 1, NULL, err, sizeof(err));
	if (!src)
		fail_msg("%s", err);
	static uint8_t mem[9216];
	uint8_t *bufs[1] = {mem};
	uint16_t lens[1];
	uint32_t fid[1];
	assert_int_equal(rp_source_burst(src, rp_source_next_due(src), 0, bufs, lens, fid, 1), 1);
	assert_int_equal(rp_frame_parse(mem, lens[0], lens[0], &f), RP_KIND_ROCE);
	assert_memory_equal(f.eth.dst, gw_mac, 6);
	assert_memory_equal(f.ip6.dst, p->hosts[4].ipv6, 16);
	assert_true(f.icrc_ok);
	rp_source_destroy(src);
	rp_plan_free(&pl);

	/* Off the link without a gateway: the plan says which flow and what to add. */
	assert_true(rp_ipv4_same_subnet(0x0a010002, 0x0a0100fe, 24) && !rp_ipv4_same_subnet(0x0a010002, 0x0a010102, 24));
	assert_true(rp_ipv4_same_subnet(0x0a010002, 0x0a010003, 31) && !rp_ipv4_same_subnet(0x0a010002, 0x0a010004, 31));
	assert_true(rp_ipv4_same_subnet(0x0a010002, 0xc0000201, 0));
	rp_profile_free(p);
	p = load("hosts:\n"
		 "  - {name: h0, mac: \"02:00:00:00:00:01\", ipv4: 10.1.0.2/24}\n"
		 "  - {name: h1, mac: \"02:00:00:00:00:02\", ipv4: 10.2.0.2/24}\n"
		 "traffic:\n  - {pattern: flow, src: h0, dst: h1, packets: 1}\n");
	assert_int_equal(rp_plan_build(p, &pl, err, sizeof(err)), -1);
	assert_string_equal(err, "flow 0 (h0 -> h1): h1 is outside h0's subnet 10.1.0.2/24 and h0 has no IPv4 gateway; "
				 "give h0 a gateway:");
	rp_profile_free(p);
}

static void test_permutation_and_fan_out(void **state)
{
	(void)state;
	struct rp_profile *p = load_with_hosts(12, "100G",
		"traffic:\n  - {pattern: permutation, seed: 7, messages: 1}\n"
		"  - {pattern: fan-out, sender: h3, receivers: [h0, h1, h2], rate: 10G, packets: 10}\n");
	struct rp_plan pl;
	build(p, &pl);
	assert_int_equal(pl.nflows, 12 + 3);
	uint8_t in[12] = {0}, out[12] = {0};
	for (size_t i = 0; i < 12; i++) {
		const struct rp_flow *f = &pl.flows[i];
		assert_int_not_equal(f->src, f->dst);
		out[f->src]++;
		in[f->dst]++;
	}
	for (size_t h = 0; h < 12; h++) {
		assert_int_equal(in[h], 1);
		assert_int_equal(out[h], 1);
	}
	/* The same seed gives the same permutation. */
	struct rp_plan again;
	build(p, &again);
	for (size_t i = 0; i < 12; i++)
		assert_int_equal(again.flows[i].dst, pl.flows[i].dst);
	rp_plan_free(&again);
	for (size_t i = 12; i < 15; i++) {
		assert_int_equal(pl.flows[i].src, 3);
		assert_int_equal(pl.flows[i].dst, i - 12);
		assert_int_equal(pl.flows[i].tot.pkts, 10);
	}
	/* QPNs: each host numbers its QPs (sending and receiving ends alike)
	 * from its first QPN in flow order: h3 has used two by now, one per direction. */
	assert_int_equal(pl.flows[12].lqpn, rp_plan_first_qpn(p, 3) + 2);
	/* Hosts' first QPNs differ (as real NICs' do), inside [0x100, 0x100 + 0x7FFF00). */
	for (size_t h = 0; h + 1 < p->nhosts; h++) {
		assert_int_not_equal(rp_plan_first_qpn(p, h), rp_plan_first_qpn(p, h + 1));
		assert_true(rp_plan_first_qpn(p, h) >= 0x100 && rp_plan_first_qpn(p, h) < 0x800000);
	}
	struct capture cap;
	run_all(&pl, &cap);
	assert_pair_bytes(&pl, &cap);
	free(cap.v);
	rp_plan_free(&pl);
	rp_profile_free(p);
}

/* Which NIC each flow takes (traffic/nic_pick.c), worked by hand. a and b
 * have 4 NICs (hosts[0..3], [4..7]), c one (hosts[8]). Round-robin counts
 * only the flows where the source host picks:
 *   fan-out a -> b: both whole, a's pick 0: a.nic0 -> b.nic0
 *   fan-out a -> c: c has one NIC, a's pick 1: a.nic1 -> c
 *   a.nic3 -> b: b follows the NIC number: b.nic3 (a's count stays 2)
 *   c -> b: c's own pick 0: b.nic0
 *   a -> b.nic2: a follows: a.nic2
 *   incast a -> b: a's pick 2: a.nic2 -> b.nic2 */
static void test_nic_spread(void **state)
{
	(void)state;
	struct rp_profile *p = load("hosts:\n"
				    "  - {name: a, nics: 4, mac: \"02:00:00:00:01:00\", ipv4: 10.0.1.1}\n"
				    "  - {name: b, nics: 4, mac: \"02:00:00:00:02:00\", ipv4: 10.0.2.1}\n"
				    "  - {name: c, mac: \"02:00:00:00:03:00\", ipv4: 10.0.3.1}\n"
				    "traffic:\n"
				    "  - {pattern: fan-out, sender: a, receivers: [b, c], packets: 1}\n"
				    "  - {pattern: flow, src: a.nic3, dst: b, packets: 1}\n"
				    "  - {pattern: flow, src: c, dst: b, packets: 1}\n"
				    "  - {pattern: flow, src: a, dst: b.nic2, packets: 1}\n"
				    "  - {pattern: incast, senders: [a], receiver: b, packets: 1}\n");
	struct rp_plan pl;
	build(p, &pl);
	static const uint16_t want[][2] = {{0, 4}, {1, 8}, {3, 7}, {8, 4}, {2, 6}, {2, 6}};
	assert_int_equal(pl.nflows, 6);
	for (size_t i = 0; i < 6; i++) {
		assert_int_equal(pl.flows[i].src, want[i][0]);
		assert_int_equal(pl.flows[i].dst, want[i][1]);
	}
	rp_plan_free(&pl);
	rp_profile_free(p);
}

/* A mixed plan (issue 10): the verbs flows are the workload, binned as
 * histograms; each DPDK entry is an aggression window. By hand:
 *   burst: 1 KiB WRITE_ONLY = 14 + 20 + 8 + 12 + 16 + 1024 + 4 = 1098 B + 24 on the wire
 *          = 8976 bits at 8 Mbit/s = 1.122 ms a frame; start 3 s, no frame starts at or
 *          after 5 s: 1783 frames (the last at 3 s + 1782 x 1.122 ms), end 3 s + 1783 x 1.122 ms;
 *   pfc:   1000 frames/s from 1 s for 0.5 s: 500 frames 1 ms apart, end 1.5 s. */
static void test_mixed_aggression(void **state)
{
	(void)state;
	static const char *const yaml =
		"hosts:\n"
		"  - {name: h0, engine: verbs, device: rxe0, ipv4: 10.9.0.1}\n"
		"  - {name: h1, engine: verbs, device: rxe0, ipv4: 10.9.0.2}\n"
		"  - {name: d0, mac: \"02:00:00:00:00:01\", ipv4: 10.9.0.11, port: net_null0, speed: 1G}\n"
		"  - {name: d1, mac: \"02:00:00:00:00:02\", ipv4: 10.9.0.12, port: net_null1, speed: 1G}\n"
		"traffic:\n"
		"  - {name: a2a, pattern: all-to-all, hosts: [h0, h1], opcode: send, message_size: 1KiB, rate: 1M, duration: 8s}\n"
		"  - {name: burst, pattern: flow, src: d0, dst: d1, opcode: write, message_size: 1KiB, mtu: 1024, rate: 8M,\n"
		"     start: 3s, duration: 2s}\n"
		"  - {name: pause, kind: pfc, host: d1, priorities: [3], quanta: 100, fps: 1000, start: 1s, duration: 500ms}\n";
	struct rp_profile *p = load(yaml);
	struct rp_plan pl;
	build(p, &pl);
	struct rp_plan_window w[4];
	assert_int_equal(rp_plan_aggression(&pl, w, 4), 2);
	assert_int_equal(w[0].traffic, 1);
	assert_int_equal(w[0].start_ns, 3000000000ull);
	assert_int_equal(w[0].end_ns, 3000000000ull + 1783ull * 1122000ull);
	assert_int_equal(w[1].traffic, 2);
	assert_int_equal(w[1].start_ns, 1000000000ull);
	assert_int_equal(w[1].end_ns, 1500000000ull);
	assert_int_equal(rp_plan_aggression(&pl, w, 1), 1); /* at most max */
	struct rp_acct_cfg c;
	uint32_t *flow_of;
	char err[256];
	assert_int_equal(rp_acct_cfg_from_plan(&pl, &c, &flow_of, err, sizeof(err)), 0);
	assert_true(c.bin_hist);
	assert_int_equal(c.nflows, 3); /* 2 all-to-all + burst; the PFC source is no accounted flow */
	for (size_t i = 0; i < c.nflows; i++)
		assert_int_equal(c.flows[i].bin_hist, pl.flows[flow_of[i]].traffic == 0);
	free(flow_of);
	rp_acct_cfg_free(&c);
	rp_plan_free(&pl);
	rp_profile_free(p);
	/* Without DPDK senders (or without verbs ones) nothing is an aggression. */
	p = load("hosts:\n  - {name: h0, engine: verbs, ipv4: 10.9.0.1}\n  - {name: h1, engine: verbs, ipv4: 10.9.0.2}\n"
		 "traffic:\n  - {pattern: flow, src: h0, dst: h1, opcode: send, message_size: 1KiB, messages: 10}\n");
	build(p, &pl);
	assert_int_equal(rp_plan_aggression(&pl, w, 4), 0);
	assert_int_equal(rp_acct_cfg_from_plan(&pl, &c, NULL, err, sizeof(err)), 0);
	assert_false(c.bin_hist);
	rp_acct_cfg_free(&c);
	rp_plan_free(&pl);
	rp_profile_free(p);
}

/* A mixed run with more aggression entries than the 16 `run` once reported:
 * 20 PFC entries, entry k from 10k ms, 5 frames 1 ms apart (fps 1000), so it
 * ends at 10k + 5 ms; one window each, in entry order, none lost. */
static void test_mixed_many_windows(void **state)
{
	(void)state;
	char yaml[4096];
	int n = snprintf(yaml, sizeof(yaml),
			 "hosts:\n"
			 "  - {name: h0, engine: verbs, device: rxe0, ipv4: 10.9.0.1}\n"
			 "  - {name: h1, engine: verbs, device: rxe0, ipv4: 10.9.0.2}\n"
			 "  - {name: d1, mac: \"02:00:00:00:00:02\", ipv4: 10.9.0.12, port: net_null1, speed: 1G}\n"
			 "traffic:\n"
			 "  - {name: a2a, pattern: all-to-all, hosts: [h0, h1], opcode: send, message_size: 1KiB, rate: 1M, "
			 "duration: 1s}\n");
	for (int k = 0; k < 20; k++)
		n += snprintf(yaml + n, sizeof(yaml) - (size_t)n,
			      "  - {kind: pfc, host: d1, priorities: [3], quanta: 100, fps: 1000, start: %dms, duration: 5ms}\n",
			      10 * k);
	struct rp_profile *p = load(yaml);
	struct rp_plan pl;
	build(p, &pl);
	assert_int_equal(p->ntraffic, 21);
	struct rp_plan_window w[21];
	assert_int_equal(rp_plan_aggression(&pl, w, p->ntraffic), 20);
	for (unsigned k = 0; k < 20; k++) {
		assert_int_equal(w[k].traffic, k + 1);
		assert_int_equal(w[k].start_ns, 10000000ull * k);
		assert_int_equal(w[k].end_ns, 10000000ull * k + 5000000ull);
	}
	rp_plan_free(&pl);
	rp_profile_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_segment_10000_at_4096),
		cmocka_unit_test(test_segment_verbs_and_pad),
		cmocka_unit_test(test_segment_on_wire),
		cmocka_unit_test(test_pace_totals),
		cmocka_unit_test(test_rate_phases),
		cmocka_unit_test(test_incast_exact_bytes),
		cmocka_unit_test(test_all_to_all_exact_bytes),
		cmocka_unit_test(test_all_to_all_one_sender_per_phase),
		cmocka_unit_test(test_all_to_all_phase_is_slowest_sender),
		cmocka_unit_test(test_permutation_and_fan_out),
		cmocka_unit_test(test_next_hops),
		cmocka_unit_test(test_nic_spread),
		cmocka_unit_test(test_next_hop_mac_auto),
		cmocka_unit_test(test_mixed_aggression),
		cmocka_unit_test(test_mixed_many_windows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
