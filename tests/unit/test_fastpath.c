/* The RX fast path (lib/wire/fastpath.h, lib/stats/acct_fast.c) against the
 * general parser and against scapy.
 *
 * 1. The classifier on scapy's frames (tests/data/vectors.txt): it takes
 *    exactly the untagged RoCE frames with a SEND or RDMA WRITE request
 *    opcode (IBA vol. 1 table 38: 0x00-0x0B, 0x16, 0x17; scapy's opcode
 *    and vlan keys say which), and what it reads is what scapy wrote; on
 *    every frame and every single-bit change of the frames it takes, it
 *    agrees with rp_frame_parse (same fields, same ICRC verdict).
 * 2. Two accountants, one with the fast path and one with general_only, fed
 *    the same frames: scapy's (as they are, zero-padded, CE-marked, with a
 *    wrong ICRC, at the destination's port and at another) and a generated
 *    run, then compared whole: every call's class and replies, the packed
 *    result (flows, latency histograms bucket by bucket, ports, priorities,
 *    time series: rp_acct_pack, what ranks ship) and every QP's PSN state.
 *    The counts that say the test did what it meant come from the test's own
 *    choices: frames dropped, duplicated, CE-marked and corrupted on purpose,
 *    and the frames of the flows the fast path is for.
 *
 *   host a 10.0.0.1 / fd00::a --(source: 5 flows, 210 frames)--> test's impairments
 *        --> [fast accountant]  and  [general_only accountant]  port b (1), a few at a (0)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "vectors.h"
#include "../fuzz/fastpath_agree.h"

#include "profile/profile.h"
#include "stats/acct.h"
#include "report/acct_merge.h"
#include "stats/acct_pack.h"
#include "traffic/acct_cfg.h"
#include "traffic/plan.h"
#include "traffic/source.h"
#include "wire/classify.h"
#include "wire/fastpath.h"
#include "wire/frame.h"

/* IBA vol. 1 table 38, by hand: RC SEND FIRST .. ONLY WITH IMMEDIATE
 * (0x00-0x05), RDMA WRITE FIRST .. ONLY WITH IMMEDIATE (0x06-0x0B), SEND
 * LAST / ONLY WITH INVALIDATE (0x16, 0x17). */
static bool fast_opcode(uint64_t op)
{
	return op <= 0x0B || op == 0x16 || op == 0x17;
}

static bool vec_fast(const struct rp_vec *v)
{
	const char *k = kv_find(v, "kind");
	return k && !strcmp(k, "roce") && kv_u64(v, "vlan") == 0 && fast_opcode(kv_u64(v, "opcode"));
}

/* The vector's frame into buf: as scapy wrote it, or zero-padded to 60. */
static size_t vec_frame(const struct rp_vec *v, bool pad, uint8_t *buf)
{
	memcpy(buf, v->frame, v->len);
	if (!pad || v->len >= RP_ETH_MIN_FRAME)
		return v->len;
	memset(buf + v->len, 0, RP_ETH_MIN_FRAME - v->len);
	return RP_ETH_MIN_FRAME;
}

#define EXPECT(v, what, want, got)                                                                               \
	do {                                                                                                      \
		if ((uint64_t)(want) != (uint64_t)(got))                                                          \
			fail_msg("%s: %s is %llu, scapy wrote %llu", (v)->name, what, (unsigned long long)(got), \
				 (unsigned long long)(want));                                                    \
	} while (0)

/* ---- 1. the classifier ---------------------------------------------------------- */

static void test_classifier_vs_scapy(void **state)
{
	(void)state;
	uint8_t buf[RP_VEC_FRAME_MAX];
	unsigned taken = 0, want_taken = 0;
	for (int i = 0; i < nvecs; i++) {
		const struct rp_vec *v = &vecs[i];
		want_taken += vec_fast(v);
		for (int pad = 0; pad < 2; pad++) {
			if (pad && v->len >= RP_ETH_MIN_FRAME)
				continue;
			size_t len = vec_frame(v, pad, buf);
			bool took;
			const char *bad = rp_fp_agree(buf, len, &took);
			if (bad)
				fail_msg("%s%s: the fast path and rp_frame_parse disagree on %s", v->name,
					 pad ? " (padded)" : "", bad);
			if (took != vec_fast(v))
				fail_msg("%s%s: the fast path %s it", v->name, pad ? " (padded)" : "",
					 took ? "took" : "did not take");
			if (!took)
				continue;
			taken += !pad;
			struct rp_fp_pkt fp = {0};
			assert_true(rp_fp_parse(buf, len, &fp));
			EXPECT(v, "l3", kv_u64(v, "l3"), fp.l3);
			EXPECT(v, "ecn", kv_u64(v, "ecn"), fp.ecn);
			EXPECT(v, "opcode", kv_u64(v, "opcode"), fp.opcode);
			EXPECT(v, "dqpn", kv_u64(v, "dqpn"), fp.dqpn);
			EXPECT(v, "psn", kv_u64(v, "psn"), fp.psn);
			EXPECT(v, "ack_req", kv_u64(v, "ack_req"), fp.ack_req);
			EXPECT(v, "payload_len", kv_u64(v, "payload_len"), fp.payload_len);
			EXPECT(v, "probe", kv_u64(v, "probe"), fp.has_probe);
			if (fp.has_probe) {
				EXPECT(v, "probe_flow", kv_u64(v, "probe_flow"), fp.probe.flow_id);
				EXPECT(v, "probe_seq", kv_u64(v, "probe_seq"), fp.probe.seq);
				EXPECT(v, "probe_ts", kv_u64(v, "probe_ts"), fp.probe.tx_ns);
			}
			EXPECT(v, "icrc ok (scapy's ICRC)", 1, rp_fp_icrc_ok(buf, &fp));
		}
	}
	print_message("fast path took %u of %d scapy frames\n", taken, nvecs);
	assert_int_equal(taken, want_taken);
	assert_true(taken >= 20);
}

/* Every single-bit change of every frame the fast path takes: lengths,
 * versions, ports, opcodes, pads and ICRC-covered bytes all move. */
static void test_classifier_bit_flips(void **state)
{
	(void)state;
	uint8_t buf[RP_VEC_FRAME_MAX];
	unsigned flips = 0, still = 0, bad_icrc = 0;
	for (int i = 0; i < nvecs; i++) {
		const struct rp_vec *v = &vecs[i];
		if (!vec_fast(v))
			continue;
		for (size_t pos = 0; pos < v->len; pos++) {
			for (int bit = 0; bit < 8; bit++) {
				size_t len = vec_frame(v, false, buf);
				buf[pos] ^= (uint8_t)(1u << bit);
				bool took;
				const char *bad = rp_fp_agree(buf, len, &took);
				if (bad)
					fail_msg("%s, byte %zu bit %d flipped: the fast path and rp_frame_parse "
						 "disagree on %s", v->name, pos, bit, bad);
				flips++;
				if (took) {
					struct rp_fp_pkt fp = {0};
					rp_fp_parse(buf, len, &fp);
					still++;
					bad_icrc += !rp_fp_icrc_ok(buf, &fp);
				}
			}
		}
	}
	print_message("%u flips: %u still taken, %u of those with a bad ICRC\n", flips, still, bad_icrc);
	assert_true(bad_icrc > 0 && still > bad_icrc);
}

/* ---- 2. the accountants --------------------------------------------------------- */

struct pair {
	struct rp_acct *fast, *gen;
	uint64_t calls;
};

static void pair_make(struct pair *p, const struct rp_acct_cfg *cfg)
{
	char err[256];
	struct rp_acct_cfg g = *cfg;
	g.general_only = true;
	p->fast = rp_acct_create(cfg, err, sizeof(err));
	if (!p->fast)
		fail_msg("%s", err);
	p->gen = rp_acct_create(&g, err, sizeof(err));
	if (!p->gen)
		fail_msg("%s", err);
	p->calls = 0;
}

/* One frame into both: the same class and the same replies. */
static void pair_rx(struct pair *p, unsigned port, uint64_t now, const uint8_t *b, size_t len, bool replies)
{
	struct rp_reply rf, rg;
	enum rp_rx_class cf = rp_acct_rx(p->fast, port, now, b, len, len, replies ? &rf : NULL);
	enum rp_rx_class cg = rp_acct_rx(p->gen, port, now, b, len, len, replies ? &rg : NULL);
	p->calls++;
	if (cf != cg)
		fail_msg("frame %llu: fast path says %s, general path %s", (unsigned long long)p->calls,
			 rp_rx_class_name(cf), rp_rx_class_name(cg));
	if (!replies)
		return;
	assert_int_equal(rf.n, rg.n);
	for (unsigned i = 0; i < rf.n; i++) {
		uint8_t a[256], c[256];
		size_t na = rp_reply_build(&rf, i, a, sizeof(a)), nc = rp_reply_build(&rg, i, c, sizeof(c));
		assert_int_equal(na, nc);
		assert_memory_equal(a, c, na);
	}
}

/* Everything both accountants know, compared. */
static void pair_compare(struct pair *p, uint64_t end_ns, const uint64_t *tx)
{
	rp_acct_finish(p->fast, end_ns, tx);
	rp_acct_finish(p->gen, end_ns, tx);
	const struct rp_acct_result *rf = rp_acct_result(p->fast), *rg = rp_acct_result(p->gen);
	size_t nf = rp_acct_pack(rf, NULL, NULL, NULL, 0), ng = rp_acct_pack(rg, NULL, NULL, NULL, 0);
	assert_true(nf > 0);
	assert_int_equal(nf, ng);
	uint8_t *bf = malloc(nf), *bg = malloc(ng);
	assert_non_null(bf);
	assert_non_null(bg);
	rp_acct_pack(rf, NULL, NULL, bf, nf);
	rp_acct_pack(rg, NULL, NULL, bg, ng);
	for (size_t i = 0; i < nf; i++)
		if (bf[i] != bg[i])
			fail_msg("packed results differ from byte %zu of %zu", i, nf);
	free(bf);
	free(bg);
	for (size_t i = 0; i < rp_acct_nflows(p->fast); i++) {
		for (size_t q = 0; q < rp_acct_flow_nqps(p->fast, i); q++) {
			struct rp_acct_qp_result a, b;
			memset(&a, 0, sizeof(a));
			memset(&b, 0, sizeof(b));
			rp_acct_qp(p->fast, i, q, &a);
			rp_acct_qp(p->gen, i, q, &b);
			assert_memory_equal(&a.psn, &b.psn, sizeof(a.psn));
			assert_int_equal(a.ce, b.ce);
			assert_int_equal(a.acks + a.naks + a.cnps, b.acks + b.naks + b.cnps);
		}
		const struct rp_hist *ma = rp_acct_flow_msg_times(p->fast, i), *mb = rp_acct_flow_msg_times(p->gen, i);
		if (ma && mb) {
			assert_int_equal(ma->count, mb->count);
			assert_memory_equal(ma->b, mb->b, sizeof(ma->b));
		}
	}
	assert_int_equal(rp_acct_unmatched(p->fast), rp_acct_unmatched(p->gen));
	assert_int_equal(rp_acct_fast_frames(p->gen), 0);
}

/* ---- bursts, as lib/dp/rx.c hands them over --------------------------------------- */

/* Every frame a pair got, logged to be fed again in bursts. */
#define LOG_MAX 2048
struct logged {
	uint8_t b[RP_VEC_FRAME_MAX > 1200 ? RP_VEC_FRAME_MAX : 1200];
	uint16_t len;
	unsigned port;
	uint64_t now;
};
static struct logged flog[LOG_MAX];
static unsigned nlog;

static void log_frame(unsigned port, uint64_t now, const uint8_t *b, size_t len)
{
	assert_true(nlog < LOG_MAX && len <= sizeof(flog[0].b));
	memcpy(flog[nlog].b, b, len);
	flog[nlog].len = (uint16_t)len;
	flog[nlog].port = port;
	flog[nlog].now = now;
	nlog++;
}

/* The log again, in bursts of up to 32 frames of one port that share the
 * first one's time (a log whose ports alternate goes port by port): into p->fast as rx.c's rx_plain does (rp_acct_pre_n,
 * then rp_acct_rx_fast_n, rp_acct_rx_pre for each frame it leaves) and into
 * p->gen frame by frame at the same times. Returns the frames the fast path
 * took. */
static uint64_t replay_bursts(struct pair *p)
{
	if (nlog && flog[0].port != flog[1 % nlog].port) { /* alternating ports: each port's frames together */
		static struct logged sorted[LOG_MAX];
		unsigned m = 0;
		for (unsigned port = 0; port < 2; port++)
			for (unsigned i = 0; i < nlog; i++)
				if (flog[i].port == port)
					sorted[m++] = flog[i];
		assert_int_equal(m, nlog);
		memcpy(flog, sorted, m * sizeof(flog[0]));
	}
	for (unsigned i = 0; i < nlog;) {
		const uint8_t *buf[32];
		uint16_t caplen[32];
		uint32_t wire[32];
		struct rp_acct_pre pre[32];
		unsigned n = 0, port = flog[i].port;
		uint64_t now = flog[i].now;
		while (n < 32 && i + n < nlog && flog[i + n].port == port) {
			buf[n] = flog[i + n].b;
			caplen[n] = flog[i + n].len;
			wire[n] = flog[i + n].len;
			n++;
		}
		rp_acct_pre_n(buf, caplen, wire, n, pre);
		for (unsigned j = 0; j < n; j++) { /* the same as frame by frame */
			struct rp_acct_pre one;
			rp_acct_pre(buf[j], caplen[j], wire[j], &one);
			assert_int_equal(pre[j].taken, one.taken);
			assert_int_equal(pre[j].icrc_ok, one.icrc_ok);
		}
		for (unsigned j = 0; j < n;) {
			j += rp_acct_rx_fast_n(p->fast, port, now, buf + j, caplen + j, pre + j, n - j, false);
			if (j < n) {
				rp_acct_rx_pre(p->fast, port, now, buf[j], caplen[j], wire[j], &pre[j], NULL);
				j++;
			}
		}
		for (unsigned j = 0; j < n; j++)
			rp_acct_rx(p->gen, port, now, buf[j], caplen[j], wire[j], NULL);
		p->calls += n;
		i += n;
	}
	return rp_acct_fast_frames(p->fast);
}

static void pair_free(struct pair *p)
{
	rp_acct_destroy(p->fast);
	rp_acct_destroy(p->gen);
}

static void port_result(struct rp_acct *a, size_t i, struct rp_acct_port_result *out)
{
	memset(out, 0, sizeof(*out));
	rp_acct_port(a, i, out);
}

/* scapy's 192.0.2.1 -> 192.0.2.2 with DestQP 0x11 and probes of flow 7
 * (v4_probe_write): accountant flow 7, QPs 0x11 and 0x12, destination port
 * 0 and 02:00:00:00:00:02. The other flows match nothing. */
#define VEC_FLOWS 8
static void vec_cfg(struct rp_acct_cfg *c, struct rp_acct_flow_cfg *flows, struct rp_acct_port_cfg *ports, uint8_t reply)
{
	static const uint8_t mac_rx[6] = {2, 0, 0, 0, 0, 2};
	for (unsigned i = 0; i < VEC_FLOWS; i++) {
		flows[i] = (struct rp_acct_flow_cfg){.id = i, .src = "tx", .dst = "rx", .l3 = 4, .src_ip4 = 0xC0000201u,
						     .dst_ip4 = 0xC0000202u, .lqpn = 0x900 + 4 * i,
						     .rqpn = 0x500 + 4 * i, .qps = 2, .prio = 3, .dscp = 26};
		memcpy(flows[i].dst_mac, mac_rx, 6);
	}
	flows[7].rqpn = 0x11;
	flows[7].reply = reply;
	ports[0] = (struct rp_acct_port_cfg){.node = "rx", .speed_bps = 100000000000ull};
	ports[1] = (struct rp_acct_port_cfg){.node = "other", .speed_bps = 100000000000ull};
	*c = (struct rp_acct_cfg){.flows = flows, .nflows = VEC_FLOWS, .ports = ports, .nports = 2,
				  .run_ns = 10000000, .latency = true, .track_psn = true, .dst_port_check = true};
}

/* The 4 ICRC bytes of a RoCE vector, where scapy's lengths put them. */
static size_t vec_icrc_off(const struct rp_vec *v)
{
	uint64_t pad = kv_u64(v, "pad");
	return (size_t)(kv_u64(v, "payload_off") + kv_u64(v, "payload_len") + pad);
}

static void feed_vectors(struct pair *p, bool replies, uint64_t *fast_want, uint64_t *bad_want)
{
	uint8_t buf[RP_VEC_FRAME_MAX];
	uint64_t now = 1000;
	*fast_want = *bad_want = 0;
	nlog = 0;
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < nvecs; i++) {
			const struct rp_vec *v = &vecs[i];
			const char *kind = kv_find(v, "kind");
			bool roce = kind && (!strcmp(kind, "roce") || !strcmp(kind, "cnp"));
			bool ours = vec_fast(v) && kv_u64(v, "probe") && kv_u64(v, "probe_flow") == 7 &&
				    kv_u64(v, "dqpn") - 0x11 < 2;
			/* variant 0 as is, 1 zero-padded, 2 CE-marked, 3 a wrong ICRC */
			for (int var = 0; var < 4; var++) {
				size_t len = vec_frame(v, var == 1, buf);
				if (var == 2 && (!roce || rp_frame_set_ecn(buf, len, RP_ECN_CE)))
					continue;
				if (var == 3) {
					if (!roce)
						continue;
					buf[vec_icrc_off(v)] ^= 0x40;
					*bad_want += 1; /* at port 0 */
				}
				for (unsigned port = 0; port < 2; port++) {
					pair_rx(p, port, now, buf, len, replies);
					log_frame(port, now, buf, len);
					now += 1000;
					/* a bad ICRC goes to the general path: class icrc_bad */
					*fast_want += ours && port == 0 && !replies && var != 3;
				}
			}
		}
	}
}

static void test_acct_vectors(void **state)
{
	(void)state;
	struct rp_acct_flow_cfg flows[VEC_FLOWS];
	struct rp_acct_port_cfg ports[2];
	struct rp_acct_cfg cfg;
	struct pair p;
	uint64_t fast_want, bad_want;
	struct rp_acct_port_result pr;

	/* No responder (every other v4 frame to DestQP 0x11 finds flow 7 too, by
	 * its addresses, on the general path): the fast path takes flow 7's frames at port 0. */
	vec_cfg(&cfg, flows, ports, 0);
	pair_make(&p, &cfg);
	feed_vectors(&p, false, &fast_want, &bad_want);
	print_message("scapy frames, no responder: %llu calls, %llu fast (want %llu)\n",
		      (unsigned long long)p.calls, (unsigned long long)rp_acct_fast_frames(p.fast),
		      (unsigned long long)fast_want);
	assert_true(fast_want >= 9); /* v4_probe_write: 3 variants (not the bad ICRC) x 3 rounds */
	assert_int_equal(rp_acct_fast_frames(p.fast), fast_want);
	port_result(p.fast, 0, &pr);
	assert_int_equal(pr.icrc_bad, bad_want);
	pair_compare(&p, 1000 + p.calls * 1000, NULL);
	pair_free(&p);

	/* The same frames in bursts (each frame's port and the burst's time). */
	uint64_t end = 1000 + p.calls * 1000;
	pair_make(&p, &cfg);
	assert_int_equal(replay_bursts(&p), fast_want);
	port_result(p.fast, 0, &pr);
	assert_int_equal(pr.icrc_bad, bad_want);
	pair_compare(&p, end, NULL);
	pair_free(&p);

	/* Flow 7 replies: its frames take the general path, the answers match. */
	vec_cfg(&cfg, flows, ports, RP_ACCT_REPLY_ALL);
	pair_make(&p, &cfg);
	feed_vectors(&p, true, &fast_want, &bad_want);
	assert_int_equal(rp_acct_fast_frames(p.fast), 0);
	pair_compare(&p, 1000 + p.calls * 1000, NULL);
	pair_free(&p);
}

/* ---- a generated run ------------------------------------------------------------ */

/* 5 flows from a to b, 210 frames (all 100G flows start at 0):
 *   send4   IPv4 SEND, 4 QPs, 40 x 2500 B at MTU 1024: 3 packets each (1024,
 *           1024, 452 B payload, a probe in each) = 120 frames   fast path
 *   write6  IPv6 WRITE_ONLY_IMM, 2 QPs, 30 x 100 B: 30 frames     fast path
 *   vlan    IPv4 WRITE_ONLY with an 802.1Q tag, 20 x 64 B         general
 *   tiny    IPv4 SEND_ONLY of 8 B (no room for a probe), 20        general
 *   rresp   IPv4 READ RESPONSE FIRST/LAST, 10 x 1500 B: 20 frames  general
 * RUN_PFC_FIRST puts two PFC sources of host b before them: the plan numbers
 * every source, so the RDMA flows are plan flows (probe flow ids) 2..6 but
 * the accountant's flows 0..4 (it keeps RDMA flows only, in plan order). */
#define RUN_HEAD                                                                                                \
	"name: fastpath\n"                                                                                       \
	"defaults: {speed: 100G, dscp: 26, ecn: ect0, mtu: 1024}\n"                                              \
	"hosts:\n"                                                                                               \
	"  - {name: a, mac: \"02:00:00:00:00:0a\", ipv4: 10.0.0.1, ipv6: fd00::a}\n"                              \
	"  - {name: b, mac: \"02:00:00:00:00:0b\", ipv4: 10.0.0.2, ipv6: fd00::b}\n"                              \
	"traffic:\n"
#define RUN_RDMA                                                                                                \
	"  - {name: send4, pattern: flow, src: a, dst: b, opcode: send, qps: 4, message_size: 2500, messages: 40}\n" \
	"  - {name: write6, pattern: flow, src: a, dst: b, ip: 6, opcode: write_imm, qps: 2, message_size: 100,"   \
	" messages: 30}\n"                                                                                       \
	"  - {name: vlan, pattern: flow, src: a, dst: b, vlan: 7, opcode: write, message_size: 64, messages: 20}\n"  \
	"  - {name: tiny, pattern: flow, src: a, dst: b, opcode: send, message_size: 8, messages: 20}\n"             \
	"  - {name: rresp, pattern: flow, src: a, dst: b, opcode: read_resp, message_size: 1500, messages: 10}\n"
static const char *const RUN_PROFILE = RUN_HEAD RUN_RDMA;
static const char *const RUN_PFC_FIRST =
	RUN_HEAD "  - {name: p, kind: pfc, host: b, priorities: [3], quanta: 500, fps: 1000, duration: 1ms}\n"
		 "  - {name: q, kind: pfc, host: b, frame: pause, quanta: 100, fps: 1000, duration: 1ms}\n" RUN_RDMA;
#define RUN_FRAMES 210
#define RUN_FLOWS 5

struct run_frame {
	uint8_t b[1200];
	uint16_t len;
	uint32_t flow; /* the accountant's index */
	uint64_t tx_ns;
};

static struct run_frame frames[RUN_FRAMES + 1];

/* Host a's frames; first: the plan flow id of the first RDMA flow. */
static unsigned make_run(const char *yaml, uint32_t first, struct rp_profile **prof, struct rp_plan *plan,
			 uint64_t tx[RUN_FLOWS])
{
	char err[RP_PROFILE_ERR_LEN];
	*prof = rp_profile_load_string("fastpath.yaml", yaml, NULL, err, sizeof(err));
	if (!*prof)
		fail_msg("%s", err);
	if (rp_plan_build(*prof, plan, err, sizeof(err)))
		fail_msg("%s", err);
	struct rp_source *src = rp_source_create(plan, 0, NULL, err, sizeof(err));
	if (!src)
		fail_msg("%s", err);
	assert_true(rp_source_max_frame(src) <= sizeof(frames[0].b));
	unsigned n = 0;
	for (uint64_t now = 0; !rp_source_done(src) && now < 10000000; now += 100) {
		uint8_t *bufs[32];
		uint16_t lens[32];
		uint32_t ids[32];
		unsigned got;
		do {
			for (unsigned i = 0; i < 32; i++)
				bufs[i] = frames[n + i < RUN_FRAMES ? n + i : RUN_FRAMES].b;
			got = rp_source_burst(src, now, 0, bufs, lens, ids, 32);
			assert_true(n + got <= RUN_FRAMES);
			for (unsigned i = 0; i < got; i++) {
				assert_true(ids[i] >= first && ids[i] - first < RUN_FLOWS);
				frames[n + i].len = lens[i];
				frames[n + i].flow = ids[i] - first;
				frames[n + i].tx_ns = now;
				tx[ids[i] - first]++;
			}
			n += got;
		} while (got == 32);
	}
	assert_true(rp_source_done(src));
	rp_source_destroy(src);
	return n;
}

static void generated_run(const char *yaml, uint32_t first)
{
	struct rp_profile *prof;
	struct rp_plan plan;
	uint64_t tx[RUN_FLOWS] = {0};
	unsigned n = make_run(yaml, first, &prof, &plan, tx);
	assert_int_equal(n, RUN_FRAMES);
	assert_int_equal(tx[0], 120);
	assert_int_equal(tx[1], 30);
	assert_int_equal(tx[2], 20);
	assert_int_equal(tx[3], 20);
	assert_int_equal(tx[4], 20);

	struct rp_acct_cfg cfg;
	char err[256];
	assert_int_equal(rp_acct_cfg_from_plan(&plan, &cfg, NULL, err, sizeof(err)), 0);
	assert_int_equal(cfg.nflows, RUN_FLOWS);
	for (unsigned i = 0; i < RUN_FLOWS; i++)
		assert_int_equal(cfg.flows[i].id, first + i);
	cfg.track_psn = true;      /* as `run` sets them */
	cfg.dst_port_check = true;
	struct pair p;
	pair_make(&p, &cfg);

	/* The test's impairments, by frame index k: drop (k % 23 == 5), send
	 * twice (k % 13 == 6), mark CE (k % 7 == 3), flip a bit of the UDP
	 * source port (covered by the ICRC, read by no counter: k % 31 == 11),
	 * swap with the next (k % 17 == 9), deliver at port a instead of b
	 * (k % 37 == 1: misdelivered). Counted per flow as they are done. A
	 * frame with a bad ICRC is nothing but that (a NIC drops it): not
	 * received at b (the flow's icrc_bad), not misdelivered at a. */
	uint64_t drops[RUN_FLOWS] = {0}, feeds[RUN_FLOWS] = {0}, ce[RUN_FLOWS] = {0}, mis[RUN_FLOWS] = {0};
	uint64_t icrc[RUN_FLOWS] = {0};
	uint64_t away[RUN_FLOWS] = {0}; /* frames (not copies) that went to port a, or arrived bad */
	uint64_t bad_at_b = 0, fast_want = 0;
	unsigned order[RUN_FRAMES];
	nlog = 0;
	for (unsigned k = 0; k < n; k++)
		order[k] = k;
	for (unsigned k = 0; k + 1 < n; k++) {
		if (k % 17 == 9) {
			unsigned t = order[k];
			order[k] = order[k + 1];
			order[k + 1] = t;
		}
	}
	for (unsigned k = 0; k < n; k++) {
		struct run_frame *f = &frames[order[k]];
		unsigned fl = f->flow;
		if (k % 23 == 5) {
			drops[fl]++;
			continue;
		}
		bool marked = k % 7 == 3, bad = k % 31 == 11;
		if (marked)
			assert_int_equal(rp_frame_set_ecn(f->b, f->len, RP_ECN_CE), 0);
		if (bad) {
			size_t udp = rp_cls_udp(f->b, f->len);
			assert_true(udp > 0);
			f->b[udp] ^= 0x80;
		}
		unsigned port = k % 37 == 1 ? 0 : 1;
		away[fl] += port == 0 || bad;
		for (int copy = 0; copy < (k % 13 == 6 ? 2 : 1); copy++) {
			pair_rx(&p, port, f->tx_ns + 2000 + k, f->b, f->len, false);
			log_frame(port, f->tx_ns + 2000 + k, f->b, f->len);
			if (port == 0) {
				mis[fl] += !bad;
				continue;
			}
			bad_at_b += bad;
			icrc[fl] += bad;
			if (bad)
				continue;
			feeds[fl]++;
			ce[fl] += marked;
			fast_want += fl <= 1; /* send4 and write6 */
		}
	}
	pair_compare(&p, 20000000, tx);
	print_message("generated run (first RDMA flow %u): %llu calls, %llu fast (want %llu), %llu with a bad ICRC\n",
		      first, (unsigned long long)p.calls, (unsigned long long)rp_acct_fast_frames(p.fast),
		      (unsigned long long)fast_want, (unsigned long long)bad_at_b);
	assert_int_equal(rp_acct_fast_frames(p.fast), fast_want);
	struct rp_acct_port_result pr;
	port_result(p.fast, 1, &pr);
	assert_int_equal(pr.icrc_bad, bad_at_b);
	assert_true(bad_at_b > 0);
	for (unsigned fl = 0; fl < RUN_FLOWS; fl++) {
		struct rp_acct_flow_result r;
		rp_acct_flow(p.fast, fl, &r);
		assert_int_equal(r.id, first + fl);
		assert_int_equal(r.rx_packets, feeds[fl]);
		assert_int_equal(r.ce, ce[fl]);
		assert_int_equal(r.misdelivered, mis[fl]);
		assert_int_equal(r.icrc_bad, icrc[fl]);
		if (fl <= 1) /* probes: lost = sent - unique probe sequences */
			assert_int_equal(r.lost, drops[fl] + away[fl]);
	}
	pair_free(&p);

	/* The same frames in bursts, as lib/dp/rx.c hands them to the accountant. */
	pair_make(&p, &cfg);
	assert_int_equal(replay_bursts(&p), fast_want);
	pair_compare(&p, 20000000, tx);
	port_result(p.fast, 1, &pr);
	assert_int_equal(pr.icrc_bad, bad_at_b);
	for (unsigned fl = 0; fl < RUN_FLOWS; fl++) {
		struct rp_acct_flow_result r;
		rp_acct_flow(p.fast, fl, &r);
		assert_int_equal(r.rx_packets, feeds[fl]);
		assert_int_equal(r.ce, ce[fl]);
		assert_int_equal(r.misdelivered, mis[fl]);
		if (fl <= 1)
			assert_int_equal(r.lost, drops[fl] + away[fl]);
	}
	pair_free(&p);
	rp_acct_cfg_free(&cfg);
	rp_plan_free(&plan);
	rp_profile_free(prof);
}

static void test_acct_generated_run(void **state)
{
	(void)state;
	generated_run(RUN_PROFILE, 0);
}

/* The same frames with PFC sources first: the probe's flow id is not the
 * accountant's index, and the fast path still takes every frame it can. */
static void test_acct_generated_run_pfc_first(void **state)
{
	(void)state;
	generated_run(RUN_PFC_FIRST, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classifier_vs_scapy),
		cmocka_unit_test(test_classifier_bit_flips),
		cmocka_unit_test(test_acct_vectors),
		cmocka_unit_test(test_acct_generated_run),
		cmocka_unit_test(test_acct_generated_run_pfc_first),
	};
	return cmocka_run_group_tests(tests, load_vectors, free_vectors);
}
