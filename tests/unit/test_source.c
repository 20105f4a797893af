/* lib/traffic packet source: every packet parses as valid RoCEv2 with a good
 * ICRC, PSNs and probe sequences are continuous, tx_ns is each packet's due time,
 * pacing is exact over a virtual second, paused priorities send nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "profile/profile.h"
#include "traffic/plan.h"
#include "traffic/source.h"
#include "wire/frame.h"

#define BURST 32
#define HOSTS                                                                         \
	"hosts:\n"                                                                    \
	"  - {name: a, mac: \"02:00:00:00:00:0a\", ipv4: 10.0.0.1, ipv6: fd00::a}\n" \
	"  - {name: b, mac: \"02:00:00:00:00:0b\", ipv4: 10.0.0.2, ipv6: fd00::b}\n"

static uint8_t mem[BURST][9216];
static uint8_t *bufs[BURST];

struct fixture {
	struct rp_profile *prof;
	struct rp_plan plan;
	struct rp_source *src;
};

static void setup(struct fixture *fx, const char *yaml, unsigned host, const struct rp_source_opts *o)
{
	char err[RP_PROFILE_ERR_LEN];
	struct rp_profile_opts po = {.allow_pause_storm = true};
	fx->prof = rp_profile_load_string("test.yaml", yaml, &po, err, sizeof(err));
	if (!fx->prof)
		fail_msg("%s", err);
	if (rp_plan_build(fx->prof, &fx->plan, err, sizeof(err)))
		fail_msg("%s", err);
	fx->src = rp_source_create(&fx->plan, host, o, err, sizeof(err));
	if (!fx->src)
		fail_msg("%s", err);
	for (int i = 0; i < BURST; i++)
		bufs[i] = mem[i];
}

static void teardown(struct fixture *fx)
{
	rp_source_destroy(fx->src);
	rp_plan_free(&fx->plan);
	rp_profile_free(fx->prof);
}

typedef void (*frame_fn)(void *ctx, const uint8_t *buf, uint16_t len, uint32_t flow_id, uint64_t now);

/* Clock advancing by step from t0 to t_end; each tick drains what is due. */
static uint64_t drive(struct rp_source *s, uint64_t t0, uint64_t t_end, uint64_t step, uint8_t mask, frame_fn fn,
		      void *ctx)
{
	uint16_t lens[BURST];
	uint32_t ids[BURST];
	uint64_t total = 0;
	for (uint64_t now = t0; now <= t_end; now += step) {
		unsigned n;
		do {
			n = rp_source_burst(s, now, mask, bufs, lens, ids, BURST);
			for (unsigned i = 0; i < n; i++) {
				assert_true(lens[i] <= rp_source_max_frame(s));
				if (fn)
					fn(ctx, bufs[i], lens[i], ids[i], now);
			}
			total += n;
		} while (n == BURST);
	}
	return total;
}

/* ---- validity and continuity ---- */

struct continuity {
	const struct rp_plan *plan;
	uint32_t next_psn[64][8];
	bool psn_seen[64][8];
	uint64_t next_seq[64];
	uint64_t last_ts[64];
	uint32_t msn[64][8];
	uint64_t packets;
	uint64_t probes;
};

static void check_frame(void *ctx, const uint8_t *buf, uint16_t len, uint32_t id, uint64_t now)
{
	struct continuity *c = ctx;
	const struct rp_flow *fl = &c->plan->flows[id];
	struct rp_frame f;
	assert_int_equal(rp_frame_parse(buf, len, len, &f), RP_KIND_ROCE);
	assert_true(f.icrc_checked);
	assert_true(f.icrc_ok);
	assert_int_equal(f.l3, fl->p.ip);
	assert_int_equal(f.eth.has_vlan, fl->p.has_vlan);
	if (fl->p.has_vlan)
		assert_int_equal(f.eth.pcp, fl->prio);
	assert_int_equal(fl->p.ip == 4 ? f.ip4.dscp : f.ip6.dscp, fl->p.dscp);
	assert_int_equal(fl->p.ip == 4 ? f.ip4.ecn : f.ip6.ecn, fl->p.ecn);
	uint32_t q = f.bth.dqpn - fl->rqpn;
	assert_true(q < fl->p.qps);
	if (c->psn_seen[id][q])
		assert_int_equal(f.bth.psn, c->next_psn[id][q]);
	else
		assert_int_equal(f.bth.psn, fl->p.psn_start);
	c->psn_seen[id][q] = true;
	c->next_psn[id][q] = (f.bth.psn + 1) & 0xFFFFFF;
	if (f.ext & RP_EXT_AETH) {
		bool first = f.bth.opcode == RP_OP_RC_READ_RESP_FIRST;
		assert_int_equal(f.aeth.msn, c->msn[id][q] + (first ? 0 : 1));
		if (!first)
			c->msn[id][q]++;
	}
	if (f.payload_len >= RP_PROBE_LEN) {
		assert_true(f.has_probe);
		assert_int_equal(f.probe.flow_id, id);
		assert_int_equal(f.probe.seq, c->next_seq[id]++);
		/* Its own due time: not after the burst, never more than the lag
		 * allowance's floor (10 us) before it with a clock this regular. */
		assert_true(f.probe.tx_ns <= now && now - f.probe.tx_ns <= RP_SOURCE_CATCHUP_NS);
		assert_true(f.probe.tx_ns >= c->last_ts[id]);
		c->last_ts[id] = f.probe.tx_ns;
		c->probes++;
	} else {
		assert_false(f.has_probe);
	}
	c->packets++;
}

static void test_every_packet_valid(void **state)
{
	(void)state;
	struct fixture fx;
	setup(&fx,
	      HOSTS "traffic:\n"
		    "  - {pattern: flow, src: a, dst: b, message_size: 10000, qps: 3, messages: 7, psn_start: 0xFFFFF0}\n"
		    "  - {pattern: flow, src: a, dst: b, opcode: send_imm, ip: 6, vlan: 10, pcp: 6, ecn: ce, "
		    "message_size: 3001, mtu: 1024, messages: 5, rate: 10G}\n"
		    "  - {pattern: flow, src: a, dst: b, opcode: read_resp, message_size: 9000, mtu: 2048, qps: 2, "
		    "messages: 6, dscp: 46}\n"
		    "  - {pattern: flow, src: a, dst: b, opcode: write_imm, message_size: 20, messages: 4, "
		    "sport: per-qp}\n"
		    "  - {pattern: flow, src: b, dst: a, messages: 3}\n",
	      0, NULL);
	assert_int_equal(rp_source_nflows(fx.src), 4);
	/* the largest frame (4170 B) plus the slack of the block copies */
	assert_int_equal(rp_source_max_frame(fx.src), 4170 + 32);
	struct continuity c = {.plan = &fx.plan};
	drive(fx.src, 0, 10000000, 100, 0, check_frame, &c);
	assert_true(rp_source_done(fx.src));
	assert_int_equal(rp_source_next_due(fx.src), UINT64_MAX);
	/* 7 messages of 10000 B in 3 packets (MTU 4096), 5 of 3001 B in 3 (MTU
	 * 1024), 6 of 9000 B in 5 (MTU 2048), 4 single packets: 70; the plan
	 * counts the same. */
	assert_int_equal(c.packets, 7 * 3 + 5 * 3 + 6 * 5 + 4);
	assert_int_equal(fx.plan.flows[0].tot.pkts + fx.plan.flows[1].tot.pkts + fx.plan.flows[2].tot.pkts +
				 fx.plan.flows[3].tot.pkts,
			 70);
	assert_int_equal(c.probes, c.packets - 4); /* only the 20 B messages are too short for a probe */
	for (size_t i = 0; i < 4; i++) {
		struct rp_source_flow_stats st;
		rp_source_flow_stats(fx.src, i, &st);
		assert_int_equal(st.flow_id, i);
		assert_true(st.done);
		assert_int_equal(st.tx_packets, fx.plan.flows[i].tot.pkts);
		assert_int_equal(st.tx_bytes, fx.plan.flows[i].frame_bytes);
		assert_int_equal(st.tx_payload, fx.plan.flows[i].payload_bytes);
		assert_int_equal(st.tx_messages, fx.plan.flows[i].tot.msgs);
		assert_int_equal(st.probes, c.next_seq[i]);
	}
	teardown(&fx);
}

/* Each packet is stamped with its own due time, not the burst's: a SEND of
 * 24 B is an 82 B frame, 106 B = 848 bits on the wire with preamble, IFG and
 * FCS, so at 1 Gbit/s packet k is due at 848 k ns exactly, and at 10 Gbit/s
 * at floor(84.8 k) ns. The clock ticks every 5 us (inside the 10 us lag
 * allowance, so no catch-up): ~6 (1G) and ~59 (10G) packets a tick, in
 * bursts of up to 32, each packet with a stamp of its own. */
struct stamps {
	uint64_t n[2];
	uint64_t bad[2];
	uint64_t same_in_burst; /* a flow's packet stamped like its previous one in the same burst */
	uint64_t prev_now[2], prev_ts[2];
};

static void check_stamp(void *ctx, const uint8_t *buf, uint16_t len, uint32_t id, uint64_t now)
{
	struct stamps *st = ctx;
	struct rp_frame f;
	assert_int_equal(rp_frame_parse(buf, len, len, &f), RP_KIND_ROCE);
	assert_true(f.icrc_ok && f.has_probe);
	assert_int_equal(len, 82);
	uint64_t k = st->n[id]++;
	uint64_t want = id == 0 ? 848 * k : 848 * k / 10;
	st->bad[id] += f.probe.tx_ns != want;
	st->same_in_burst += k && now == st->prev_now[id] && f.probe.tx_ns == st->prev_ts[id];
	st->prev_now[id] = now;
	st->prev_ts[id] = f.probe.tx_ns;
}

static void test_stamps_are_due_times(void **state)
{
	(void)state;
	struct fixture fx;
	setup(&fx,
	      HOSTS "traffic:\n"
		    "  - {pattern: flow, src: a, dst: b, opcode: send, message_size: 24, rate: 1G, messages: 3000}\n"
		    "  - {pattern: flow, src: a, dst: b, opcode: send, message_size: 24, rate: 10G, messages: 30000}\n",
	      0, NULL);
	struct stamps st = {0};
	drive(fx.src, 0, 3000000, 5000, 0, check_stamp, &st);
	assert_true(rp_source_done(fx.src));
	assert_int_equal(st.n[0], 3000);
	assert_int_equal(st.n[1], 30000);
	assert_int_equal(st.bad[0], 0);
	assert_int_equal(st.bad[1], 0);
	assert_int_equal(st.same_in_burst, 0);
	teardown(&fx);
}

/* Flows due together take turns of RP_SOURCE_TURN (16) packets, each packet
 * still stamped with its own due time. Two flows of 82 B frames at 10G
 * (82 + 24 B layer 1 = 848 bit: 84.8 ns apart, packet k due 848k/10 ns),
 * asked at now = 5000 ns: k = 0..58 of each are due (58 x 84.8 = 4918.4, 59 x
 * 84.8 = 5003.2). Bursts of 32: flow 0's k 0..15 then flow 1's k 0..15, twice
 * more (k 16..31, 32..47), then 11 of each (k 48..58), then nothing. Before
 * turns, the two alternated packet by packet (runs of one: half the rate). */
static void test_due_flows_take_turns(void **state)
{
	(void)state;
	struct fixture fx;
	setup(&fx,
	      HOSTS "traffic:\n"
		    "  - {pattern: flow, src: a, dst: b, opcode: send, message_size: 24, rate: 10G, messages: 1000}\n"
		    "  - {pattern: flow, src: a, dst: b, opcode: send, message_size: 24, rate: 10G, messages: 1000}\n",
	      0, NULL);
	assert_int_equal(RP_SOURCE_TURN, 16);
	uint16_t lens[BURST];
	uint32_t ids[BURST];
	const unsigned per_flow[] = {16, 16, 16, 11, 0};
	uint64_t k[2] = {0, 0};
	for (unsigned call = 0; call < 5; call++) {
		unsigned n = rp_source_burst(fx.src, 5000, 0, bufs, lens, ids, BURST);
		assert_int_equal(n, 2 * per_flow[call]);
		for (unsigned i = 0; i < n; i++) {
			uint32_t want_id = i < per_flow[call] ? 0 : 1;
			assert_int_equal(ids[i], want_id);
			struct rp_frame f;
			assert_int_equal(rp_frame_parse(bufs[i], lens[i], lens[i], &f), RP_KIND_ROCE);
			assert_true(f.icrc_ok && f.has_probe);
			assert_int_equal(f.probe.seq, k[want_id]);
			assert_int_equal(f.probe.tx_ns, 848 * k[want_id] / 10);
			k[want_id]++;
		}
	}
	assert_int_equal(k[0], 59);
	assert_int_equal(k[1], 59);
	teardown(&fx);
}

/* A PFC frame is never behind a data packet due after it: with PFC frames
 * due every 1 us (fps 10^6: frame j at j x 1000 ns) among the two 10G flows
 * above, when PFC frame j goes, no data packet stamped after j x 1000 ns went
 * before it. At now = 5000 ns: PFC frames 0..5 and 59 packets of each flow. */
static void test_pfc_not_overtaken_by_turns(void **state)
{
	(void)state;
	struct fixture fx;
	setup(&fx,
	      HOSTS "traffic:\n"
		    "  - {pattern: flow, src: a, dst: b, opcode: send, message_size: 24, rate: 10G, messages: 1000}\n"
		    "  - {pattern: flow, src: a, dst: b, opcode: send, message_size: 24, rate: 10G, messages: 1000}\n"
		    "  - {kind: pfc, host: a, priorities: [3], quanta: 500, fps: 1000000, duration: 1s}\n",
	      0, NULL);
	uint16_t lens[BURST];
	uint32_t ids[BURST];
	uint64_t pfc = 0, data = 0, max_stamp = 0;
	unsigned n;
	while ((n = rp_source_burst(fx.src, 5000, 0, bufs, lens, ids, BURST)) != 0) {
		for (unsigned i = 0; i < n; i++) {
			if (ids[i] == 2) {
				assert_true(max_stamp <= pfc * 1000);
				pfc++;
				continue;
			}
			struct rp_frame f;
			assert_int_equal(rp_frame_parse(bufs[i], lens[i], lens[i], &f), RP_KIND_ROCE);
			if (f.probe.tx_ns > max_stamp)
				max_stamp = f.probe.tx_ns;
			data++;
		}
	}
	assert_int_equal(pfc, 6);
	assert_int_equal(data, 2 * 59);
	teardown(&fx);
}

/* Kept buffers (rp_source_burst_shaped): each shape has its own buffers,
 * zeroed once and then reused with whatever bytes they keep; their first 60
 * bytes are scribbled over before each use (as a receiver marking CE in
 * place would). Every frame must still parse, verify and continue its flow.
 * The shapes, worked by hand (Ethernet 14, VLAN 4, IPv4 20 / IPv6 40, UDP 8,
 * BTH 12, RETH 16, AETH 4, ImmDt 4, probe 24, ICRC 4; head = headers + probe):
 *   flow 0 WRITE 10000 B, MTU 4096:  FIRST 4170 (head 94), MIDDLE 4154 (78), LAST 1866 (78)
 *   flow 1 SEND_IMM 3001 B, v6+VLAN: FIRST = MIDDLE 1106 (102), LAST 1042 (106: ImmDt, pad 3)
 *   flow 2 READ_RESP 9000 B, MTU 2048: FIRST 2110 (82: AETH), MIDDLE 2106 (78), LAST 870 (82)
 *   flow 3 WRITE_IMM 20 B: 98 B, a ninth shape: past RP_SOURCE_SHAPES (written whole, shape 0). */
static uint8_t kept_mem[RP_SOURCE_SHAPES + 1][BURST][9216];

static void test_shaped_buffers_keep_frames(void **state)
{
	(void)state;
	struct fixture fx;
	setup(&fx,
	      HOSTS "traffic:\n"
		    "  - {pattern: flow, src: a, dst: b, message_size: 10000, qps: 3, messages: 7, psn_start: 0xFFFFF0}\n"
		    "  - {pattern: flow, src: a, dst: b, opcode: send_imm, ip: 6, vlan: 10, pcp: 6, ecn: ce, "
		    "message_size: 3001, mtu: 1024, messages: 5, rate: 10G}\n"
		    "  - {pattern: flow, src: a, dst: b, opcode: read_resp, message_size: 9000, mtu: 2048, qps: 2, "
		    "messages: 6, dscp: 46}\n"
		    "  - {pattern: flow, src: a, dst: b, opcode: write_imm, message_size: 20, messages: 4, "
		    "sport: per-qp}\n",
	      0, NULL);
	struct rp_source_shape sh[RP_SOURCE_SHAPES];
	const struct rp_source_shape want[RP_SOURCE_SHAPES] = {{4170, 94}, {4154, 78}, {1866, 78}, {1106, 102},
								 {1042, 106}, {2110, 82}, {2106, 78}, {870, 82}};
	assert_int_equal(rp_source_shapes(fx.src, sh), 8);
	for (int i = 0; i < 8; i++) {
		assert_int_equal(sh[i].len, want[i].len);
		assert_int_equal(sh[i].head, want[i].head);
	}
	memset(kept_mem, 0, sizeof(kept_mem));
	uint8_t *kb[RP_SOURCE_SHAPES + 1][BURST];
	for (int k = 0; k <= RP_SOURCE_SHAPES; k++)
		for (int i = 0; i < BURST; i++)
			kb[k][i] = kept_mem[k][i];
	struct continuity c = {.plan = &fx.plan};
	uint16_t lens[BURST];
	uint32_t ids[BURST];
	unsigned shape = 0, switches = 0;
	for (uint64_t now = 0; now <= 10000000 && !rp_source_done(fx.src); now += 100) {
		for (;;) {
			for (int i = 0; i < BURST; i++)
				memset(kb[shape][i], 0xA5, 60);
			unsigned next, n = rp_source_burst_shaped(fx.src, now, 0, shape, kb[shape], lens, ids, BURST, &next);
			for (unsigned i = 0; i < n; i++) {
				assert_true(shape == 0 || lens[i] == sh[shape - 1].len);
				check_frame(&c, kb[shape][i], lens[i], ids[i], now);
			}
			if (n < BURST && next == shape)
				break;
			switches += next != shape;
			shape = next;
		}
	}
	assert_true(rp_source_done(fx.src));
	assert_int_equal(c.packets, 7 * 3 + 5 * 3 + 6 * 5 + 4);
	assert_true(switches >= 8); /* every shape's buffers were asked for */
	for (size_t i = 0; i < 4; i++) {
		struct rp_source_flow_stats st;
		rp_source_flow_stats(fx.src, i, &st);
		assert_int_equal(st.tx_packets, fx.plan.flows[i].tot.pkts);
		assert_int_equal(st.probes, c.next_seq[i]);
	}
	teardown(&fx);
}

/* Runs of small single-packet messages on one QP (the specialised path):
 * PSNs wrap, probes and ICRCs stay valid, bursts come back full. */
static void test_small_message_runs_valid(void **state)
{
	(void)state;
	struct fixture fx;
	setup(&fx,
	      HOSTS "traffic:\n"
		    "  - {pattern: flow, src: a, dst: b, message_size: 24, messages: 500, psn_start: 0xFFFF00, rate: 100G}\n"
		    "  - {pattern: flow, src: a, dst: b, message_size: 64, ip: 6, messages: 300, rate: 40G}\n",
	      0, NULL);
	struct continuity c = {.plan = &fx.plan};
	drive(fx.src, 0, 1000000, 1000, 0, check_frame, &c);
	assert_true(rp_source_done(fx.src));
	assert_int_equal(c.packets, 800);
	assert_int_equal(c.probes, 800);
	for (size_t i = 0; i < 2; i++) {
		struct rp_source_flow_stats st;
		rp_source_flow_stats(fx.src, i, &st);
		assert_int_equal(st.tx_packets, fx.plan.flows[i].tot.pkts);
		assert_int_equal(st.tx_bytes, fx.plan.flows[i].frame_bytes);
		assert_int_equal(st.tx_payload, fx.plan.flows[i].payload_bytes);
		assert_int_equal(st.tx_messages, fx.plan.flows[i].tot.msgs);
		assert_int_equal(st.probes, c.next_seq[i]);
	}
	teardown(&fx);
}

/* ---- pacing ---- */

struct rate_count {
	uint64_t packets;
	uint64_t bits;
};

static void count_l1(void *ctx, const uint8_t *buf, uint16_t len, uint32_t id, uint64_t now)
{
	(void)buf;
	(void)id;
	(void)now;
	struct rate_count *r = ctx;
	r->packets++;
	r->bits += ((uint64_t)len + 24) * 8;
}

static void pace_one_second(const char *yaml, uint64_t step, uint64_t want_packets, double want_bps)
{
	struct fixture fx;
	setup(&fx, yaml, 0, NULL);
	assert_int_equal(fx.plan.flows[0].tot.pkts, want_packets);
	struct rate_count r = {0};
	drive(fx.src, 0, 1000000000ull + 100000, step, 0, count_l1, &r);
	assert_true(rp_source_done(fx.src));
	assert_int_equal(r.packets, want_packets);
	double achieved = (double)r.bits; /* over one second */
	assert_true(achieved > want_bps * 0.99 && achieved < want_bps * 1.01);
	teardown(&fx);
}

static void test_pacing_one_virtual_second(void **state)
{
	(void)state;
	/* 1024 B WRITE_ONLY frames of 1098 B = 8976 bits at 10G: one every
	 * 897.6 ns; packets due before 1 s: ceil(1e9 / 897.6) = 1114082. */
	pace_one_second(HOSTS "traffic:\n  - {pattern: flow, src: a, dst: b, message_size: 1KiB, mtu: 1024, "
			      "rate: 10G, duration: 1s}\n",
			1000, 1114082, 1e10);
	/* 25% of 100G, 64 KiB messages (16 frames of 4170/4154 B): a message
	 * is 16 x 4178 x 8 + 128 = 534912 bits = 21396.48 ns; 46737 messages
	 * start before 1 s, 747792 packets. Coarse clock: 7 us steps. */
	pace_one_second(HOSTS "traffic:\n  - {pattern: flow, src: a, dst: b, message_size: 64KiB, rate: 25%, "
			      "duration: 1s}\n",
			7000, 747792, 2.5e10);
}

/* ---- PFC gating ---- */

struct per_flow {
	uint64_t n[8];
	uint64_t pfc;
	uint64_t pause;
};

static void count_kinds(void *ctx, const uint8_t *buf, uint16_t len, uint32_t id, uint64_t now)
{
	(void)now;
	struct per_flow *pf = ctx;
	struct rp_frame f;
	enum rp_frame_kind k = rp_frame_parse(buf, len, len, &f);
	if (k == RP_KIND_PFC) {
		assert_int_equal(f.macctl.enable, 1u << 3);
		assert_int_equal(f.macctl.quanta[3], 500);
		pf->pfc++;
	} else if (k == RP_KIND_PAUSE) {
		assert_int_equal(f.macctl.quanta[0], 1000);
		pf->pause++;
	} else {
		assert_int_equal(k, RP_KIND_ROCE);
		assert_true(f.icrc_ok);
	}
	pf->n[id]++;
}

#define GATED                                                                                           \
	HOSTS "traffic:\n"                                                                              \
	      "  - {pattern: flow, src: a, dst: b, message_size: 4KiB, rate: 1G, dscp: 26, duration: 1ms}\n" \
	      "  - {pattern: flow, src: a, dst: b, message_size: 4KiB, rate: 1G, pcp: 5, duration: 1ms}\n"   \
	      "  - {kind: pfc, host: a, priorities: [3], quanta: 500, fps: 10000, duration: 1ms}\n"       \
	      "  - {kind: pfc, host: a, frame: pause, quanta: 1000, fps: 2000, duration: 1ms}\n"

static void test_paused_priorities_send_nothing(void **state)
{
	(void)state;
	struct fixture fx;
	setup(&fx, GATED, 0, NULL);
	struct per_flow pf = {0};
	/* Priority 3 (DSCP 26) paused: flow 0 sends nothing, flow 1 and the
	 * MAC control frames go on. */
	drive(fx.src, 0, 2000000, 1000, 1u << 3, count_kinds, &pf);
	assert_int_equal(pf.n[0], 0);
	assert_int_equal(pf.n[1], fx.plan.flows[1].tot.pkts);
	assert_int_equal(pf.pfc, 10);
	assert_int_equal(pf.pause, 2);
	assert_false(rp_source_done(fx.src)); /* flow 0 still waits */
	assert_int_equal(rp_source_next_due_unpaused(fx.src, 1u << 3), UINT64_MAX);
	assert_int_equal(rp_source_next_due(fx.src), 0);
	teardown(&fx);

	/* Everything paused: only PFC/PAUSE frames. */
	setup(&fx, GATED, 0, NULL);
	memset(&pf, 0, sizeof(pf));
	drive(fx.src, 0, 2000000, 1000, 0xFF, count_kinds, &pf);
	assert_int_equal(pf.n[0] + pf.n[1], 0);
	assert_int_equal(pf.pfc + pf.pause, 12);
	teardown(&fx);
}

static void test_catch_up_is_capped(void **state)
{
	(void)state;
	struct fixture fx;
	struct rp_source_opts o = {.catchup_ns = 5000};
	/* 1 KiB frames at 10G: 897.6 ns each; the lag allowance is
	 * max(5 us, 32 x 898 ns) = 28.7 us, i.e. at most 32 packets at once. */
	setup(&fx, HOSTS "traffic:\n  - {pattern: flow, src: a, dst: b, message_size: 1KiB, mtu: 1024, rate: 10G, "
			 "duration: 10ms}\n",
	      0, &o);
	uint16_t lens[BURST];
	uint64_t sent = drive(fx.src, 0, 100000, 1000, 0, NULL, NULL);
	assert_int_equal(sent, 112); /* ceil(100 us / 897.6 ns) */
	/* Paused for 1 ms, then released: no burst of 1100 packets. */
	assert_int_equal(drive(fx.src, 101000, 1100000, 1000, 0xFF, NULL, NULL), 0);
	unsigned n = rp_source_burst(fx.src, 1100000, 0, bufs, lens, NULL, BURST);
	assert_int_equal(n, 1);
	assert_int_equal(rp_source_next_due(fx.src), 1100000 + 897);
	/* A caller 20 us late (within the allowance) catches up fully. */
	uint64_t late = drive(fx.src, 1120000, 1120000, 1, 0, NULL, NULL);
	assert_int_equal(late, 22); /* due times 1100897 .. 1119750 */
	teardown(&fx);
}

/* ---- bursts and time ---- */

struct window_check {
	uint64_t start;
	uint64_t period;
	uint64_t on;
	uint64_t packets;
};

static void check_window(void *ctx, const uint8_t *buf, uint16_t len, uint32_t id, uint64_t now)
{
	(void)buf;
	(void)len;
	(void)id;
	struct window_check *w = ctx;
	assert_true(now >= w->start);
	assert_true((now - w->start) % w->period < w->on);
	w->packets++;
}

static void test_on_off_bursts_and_time0(void **state)
{
	(void)state;
	struct fixture fx;
	struct rp_source_opts o = {.time0_ns = 5000000};
	setup(&fx, HOSTS "traffic:\n  - {pattern: flow, src: a, dst: b, message_size: 9000, mtu: 1024, rate: 100%, "
			 "burst_on: 20us, burst_off: 80us, start: 1ms, duration: 1ms}\n",
	      0, &o);
	assert_int_equal(rp_source_next_due(fx.src), 6000000);
	struct window_check w = {.start = 6000000, .period = 100000, .on = 20000};
	drive(fx.src, 0, 8000000, 1, 0, check_window, &w);
	assert_true(rp_source_done(fx.src));
	assert_int_equal(w.packets, fx.plan.flows[0].tot.pkts);
	assert_true(w.packets > 0);
	teardown(&fx);
}

static void test_pfc_frames_per_second(void **state)
{
	(void)state;
	struct fixture fx;
	setup(&fx, HOSTS "traffic:\n  - {kind: pfc, host: b, priorities: [3], quanta: 500, fps: 3000, duration: 1s}\n",
	      1, NULL);
	struct per_flow pf = {0};
	drive(fx.src, 0, 1000000000, 10000, 0xFF, count_kinds, &pf);
	assert_int_equal(pf.pfc, 3000);
	assert_int_equal(fx.plan.flows[0].tot.pkts, 3000);
	assert_true(rp_source_done(fx.src));
	teardown(&fx);
}

/* ---- a next hop that moves (rp_source_set_next_hop_mac) ---- */

struct moved {
	const struct rp_plan *plan;
	const uint8_t *want; /* the gateway's MAC the a -> b frames must carry now */
	uint64_t via, direct;
};

static void check_moved(void *ctx, const uint8_t *buf, uint16_t len, uint32_t id, uint64_t now)
{
	(void)now;
	struct moved *m = ctx;
	struct rp_frame f;
	assert_int_equal(rp_frame_parse(buf, len, len, &f), RP_KIND_ROCE);
	assert_true(f.icrc_checked && f.icrc_ok); /* the MAC is outside the ICRC */
	static const uint8_t a_mac[6] = {2, 0, 0, 0, 0, 0x0a}, c_mac[6] = {2, 0, 0, 0, 0, 0x0c};
	assert_memory_equal(f.eth.src, a_mac, 6);
	if (m->plan->flows[id].dst == 1) {
		assert_memory_equal(f.eth.dst, m->want, 6);
		m->via++;
	} else {
		assert_memory_equal(f.eth.dst, c_mac, 6); /* on the link, the profile's MAC: never moved */
		m->direct++;
	}
}

/* rp_source_flow_burst_zeroed (the lab's pool slots): into one buffer reused
 * packet after packet, whose bytes outside the zeros it was told of are
 * poisoned in between, every frame is byte for byte what plain
 * rp_source_flow_burst writes into a fresh 0xAA-filled buffer (a second
 * source of the same plan), and what it says is zero is zero; every third
 * packet is told nothing is zero and finds the whole buffer poisoned. 16 KiB WRITEs
 * at MTU 4096: FIRST, MIDDLE, MIDDLE, LAST, 4154..4170 B frames whose
 * payload after the probe is zeros. */
static void test_zeroed_tail_same_bytes(void **state)
{
	(void)state;
	struct fixture fx;
	setup(&fx, HOSTS "traffic:\n  - {pattern: flow, src: a, dst: b, message_size: 16KiB, messages: 3}\n", 0, NULL);
	char err[256];
	struct rp_source *ref = rp_source_create(&fx.plan, 0, NULL, err, sizeof(err));
	assert_non_null(ref);
	static uint8_t zb[9216], rb[9216];
	uint16_t zero[2] = {0, sizeof(zb)}, zl, rl;
	memset(zb, 0, sizeof(zb));
	unsigned n = 0, known = 0;
	for (uint64_t now = 0; !rp_source_flow_done(fx.src, 0); now = rp_source_flow_next_due(fx.src, 0)) {
		memset(rb, 0xAA, sizeof(rb));
		assert_int_equal(rp_source_flow_burst(ref, 0, now, 0, rb, &rl), 1);
		if (n % 3 == 2) /* every third: nothing known zero, all of it poisoned */
			zero[0] = zero[1] = 0;
		for (size_t b = 0; b < sizeof(zb); b++) /* what another user of the slot left */
			if (b < zero[0] || b >= zero[1])
				zb[b] = 0xAA;
		known += zero[1] > zero[0];
		assert_int_equal(rp_source_flow_burst_zeroed(fx.src, 0, now, 0, zb, &zl, zero), 1);
		assert_int_equal(zl, rl);
		assert_memory_equal(zb, rb, rl);
		assert_true(zero[1] > zero[0] && zero[1] <= zl);
		for (size_t b = zero[0]; b < zero[1]; b++)
			assert_int_equal(zb[b], 0);
		n++;
	}
	assert_int_equal(n, 12);
	assert_int_equal(known, 8); /* 12 less every third: the first all of a fresh buffer, then the last tail */
	rp_source_destroy(ref);
	teardown(&fx);
}


static void test_next_hop_moves(void **state)
{
	(void)state;
	static const char *yaml =
		"hosts:\n"
		"  - {name: a, mac: \"02:00:00:00:00:0a\", ipv4: 10.1.0.2/24, gateway: 10.1.0.1}\n"
		"  - {name: b, mac: \"02:00:00:00:00:0b\", ipv4: 10.2.0.2/24, gateway: 10.2.0.1}\n"
		"  - {name: c, mac: \"02:00:00:00:00:0c\", ipv4: 10.1.0.3/24}\n"
		"traffic:\n"
		"  - {pattern: flow, src: a, dst: b, message_size: 10000, qps: 3, messages: 20, rate: 10G}\n"
		"  - {pattern: flow, src: a, dst: c, message_size: 1024, messages: 20, rate: 1G}\n";
	static const uint8_t r1[6] = {0x52, 0, 0, 0, 0, 1}, r2[6] = {0x52, 0, 0, 0, 0, 2};
	char err[RP_PROFILE_ERR_LEN];
	struct rp_profile_opts po = {0};
	struct fixture fx;
	fx.prof = rp_profile_load_string("test.yaml", yaml, &po, err, sizeof(err));
	if (!fx.prof || rp_plan_build(fx.prof, &fx.plan, err, sizeof(err)))
		fail_msg("%s", err);
	/* What lib/dp's resolution does: a -> b goes to 10.1.0.1, found by ARP as r1. */
	struct rp_next_hop *nh = &fx.plan.flows[0].nh;
	assert_true(nh->via_gateway && nh->mac_from == RP_MAC_FROM_ARP && nh->ip4 == 0x0A010001);
	memcpy(nh->mac, r1, 6);
	nh->mac_known = true;
	assert_int_equal(fx.plan.flows[1].nh.mac_from, RP_MAC_FROM_PROFILE);
	if (!(fx.src = rp_source_create(&fx.plan, 0, NULL, err, sizeof(err))))
		fail_msg("%s", err);
	for (int i = 0; i < BURST; i++)
		bufs[i] = mem[i];
	struct moved m = {.plan = &fx.plan, .want = r1};
	/* 20 messages of 10000 B at 10 Gbit/s: 3 packets (MTU 4096) of 4170, 4170
	 * and 1890 B each: (4194 * 2 + 1914) * 8 / 10 ns = 8241.6 ns a message, so
	 * half of them (10) are due by 82.4 us. */
	drive(fx.src, 0, 82000, 100, 0, check_moved, &m);
	uint64_t before = m.via;
	assert_int_equal(before, 10 * 3);
	/* Another address, another family, a flow whose MAC the profile gave: nothing moves. */
	assert_int_equal(rp_source_set_next_hop_mac(fx.src, 4, 0x0A010009, NULL, r2), 0);
	assert_int_equal(rp_source_set_next_hop_mac(fx.src, 4, 0x0A010003, NULL, r2), 0);
	static const uint8_t six[16] = {0xfd};
	assert_int_equal(rp_source_set_next_hop_mac(fx.src, 6, 0, six, r2), 0);
	assert_int_equal(rp_source_set_next_hop_mac(fx.src, 4, 0x0A010001, NULL, r2), 1);
	m.want = r2;
	drive(fx.src, 82100, 10000000, 100, 0, check_moved, &m);
	assert_true(rp_source_done(fx.src));
	assert_int_equal(m.via, 20 * 3); /* every QP and packet kind moved: first, middle, last */
	assert_int_equal(m.direct, 20);
	teardown(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_packet_valid),
		cmocka_unit_test(test_small_message_runs_valid),
		cmocka_unit_test(test_pacing_one_virtual_second),
		cmocka_unit_test(test_shaped_buffers_keep_frames),
		cmocka_unit_test(test_stamps_are_due_times),
		cmocka_unit_test(test_due_flows_take_turns),
		cmocka_unit_test(test_pfc_not_overtaken_by_turns),
		cmocka_unit_test(test_paused_priorities_send_nothing),
		cmocka_unit_test(test_catch_up_is_capped),
		cmocka_unit_test(test_on_off_bursts_and_time0),
		cmocka_unit_test(test_pfc_frames_per_second),
		cmocka_unit_test(test_next_hop_moves),
		cmocka_unit_test(test_zeroed_tail_same_bytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
