/* Per-rank partial results -> one result (lib/report/acct_merge.h), with three
 * synthetic ranks and no MPI. The same frames go once into ONE accountant
 * that sees every port (the one-process run: the reference, computed by the
 * existing code path) and once into three rank accountants, each with all
 * four flows but only its own host's port.
 *
 *   rank 0: h0 10.0.0.1 (100G)      f0: h0 -> h1  10 sent, seq 3 and 7 dropped on purpose
 *   rank 1: h1 10.0.0.2 (40G)       f1: h1 -> h2   6 sent, seq 2 delivered twice, CE on 0, 4
 *   rank 2: h2 10.0.0.3 (10G)       f2: h2 -> h0   5 sent, the last one (seq 4) dropped
 *                                   f3: h0 -> h2   4 sent, CE on 0, 1; h2 answers (CNP, ACK)
 *                                       and echoes every probe back to h0 (rtt: on)
 *   h1 receives PFC prio 3, 2000 quanta; h2 a PAUSE of 100 quanta.
 *
 * Common start 50 us, end 1 ms, 100 us bins. Latencies put there on purpose:
 * f0 1000 + 100 * seq, f1 1200, f2 20000, f3 3000 ns.
 */
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
#include "report/pause_order.h"
#include "report/result.h"
#include "report/windows.h"
#include "stats/acct.h"
#include "report/acct_merge.h"
#include "stats/acct_pack.h"
#include "stats/timeseries.h"
#include "wire/frame.h"

#define NH 3
#define NF 4
#define START 50000ull
#define END 1000000ull
#define G 1000000000ull

static const uint64_t speed[NH] = {100 * G, 40 * G, 10 * G};
static struct rp_acct_flow_cfg flows[NF];
static struct rp_acct_port_cfg all_ports[NH];
static const unsigned src_of[NF] = {0, 1, 2, 0}, dst_of[NF] = {1, 2, 0, 2};

static void mac_of(unsigned h, uint8_t m[6])
{
	const uint8_t b[6] = {2, 0, 0, 0, 0, (uint8_t)(h + 1)};
	memcpy(m, b, 6);
}

static void plan_init(void)
{
	static const char *const names[NH] = {"h0", "h1", "h2"};
	for (unsigned f = 0; f < NF; f++) {
		flows[f] = (struct rp_acct_flow_cfg){.id = f, .l3 = 4, .src_ip4 = 0x0A000001u + src_of[f],
						     .dst_ip4 = 0x0A000001u + dst_of[f], .lqpn = 0x100 + 16 * f,
						     .rqpn = 0x200 + 16 * f, .qps = 1, .prio = 3, .dscp = 26,
						     .reply = f == 3 ? RP_ACCT_REPLY_ALL : 0, .echo_every = f == 3};
		strcpy(flows[f].src, names[src_of[f]]);
		strcpy(flows[f].dst, names[dst_of[f]]);
	}
	for (unsigned h = 0; h < NH; h++) {
		all_ports[h] = (struct rp_acct_port_cfg){.port = 0, .speed_bps = speed[h]};
		strcpy(all_ports[h].node, names[h]);
	}
}

static struct rp_acct_cfg cfg_with(const struct rp_acct_port_cfg *ports, size_t nports)
{
	return (struct rp_acct_cfg){.flows = flows, .nflows = NF, .ports = ports, .nports = nports,
				    .start_ns = START, .run_ns = END - START, .latency = true, .flow_series = true};
}

static struct rp_acct *make(const struct rp_acct_cfg *c)
{
	char err[128];
	struct rp_acct *a = rp_acct_create(c, err, sizeof(err));
	assert_non_null(a);
	return a;
}

/* Two worlds fed the same frames: one accountant with port = host (ref),
 * or one accountant per rank whose only port (0) is its host's. */
struct world {
	struct rp_acct *ref;
	struct rp_acct *rank[NH];
	struct rp_acct *lcore[2]; /* one process, two RX lcores (rp_acct_absorb): frames split as queues would */
	bool every_port; /* each rank's accountant has every host's port, fed at its own (as run) */
};

static void deliver(struct world *w, unsigned host, uint64_t now, const uint8_t *buf, size_t len, bool answer);

static void replies(struct world *w, uint64_t now, struct rp_reply *r)
{
	for (unsigned i = 0; i < r->n; i++) {
		uint8_t buf[128];
		size_t len = rp_reply_build(r, i, buf, sizeof(buf));
		assert_true(len > 0);
		/* back to the data sender's host (its IP is 10.0.0.1 + host), 500 ns later */
		assert_true(r->ip4_dst - 0x0A000001u < NH);
		deliver(w, r->ip4_dst - 0x0A000001u, now + 500, buf, len, false);
	}
}

/* Which of two RX queues a frame lands on: f0's and f2's data by PSN parity
 * (halves of one flow on two lcores, as two QPs of it on two queues), f1
 * (its duplicate included) and f3 (CNP rule state: one QP is one queue) on
 * queue 1 and 0; PFC on 0, PAUSE, replies and the rest on 1. */
static unsigned lane_of(const uint8_t *buf, size_t len)
{
	struct rp_frame f;
	enum rp_frame_kind k = rp_frame_parse(buf, len, len, &f);
	if (k == RP_KIND_PFC)
		return 0;
	if (k != RP_KIND_ROCE)
		return 1;
	if (f.bth.dqpn == flows[0].rqpn || f.bth.dqpn == flows[2].rqpn)
		return f.bth.psn & 1;
	return f.bth.dqpn == flows[3].rqpn ? 0 : 1;
}

static void deliver(struct world *w, unsigned host, uint64_t now, const uint8_t *buf, size_t len, bool answer)
{
	struct rp_reply r;
	if (w->lcore[0]) {
		rp_acct_rx(w->lcore[lane_of(buf, len)], host, now, buf, len, len, answer ? &r : NULL);
		if (answer)
			replies(w, now, &r);
	} else if (w->ref) {
		rp_acct_rx(w->ref, host, now, buf, len, len, answer ? &r : NULL);
		if (answer) {
			struct world only_ref = {.ref = w->ref};
			replies(&only_ref, now, &r);
		}
	} else {
		rp_acct_rx(w->rank[host], w->every_port ? host : 0, now, buf, len, len, answer ? &r : NULL);
		if (answer)
			replies(w, now, &r);
	}
}

static size_t frame_to(uint8_t *buf, size_t cap, unsigned f, uint64_t seq, uint64_t tx_ns, bool ce, bool ack_req,
		       uint32_t dqpn)
{
	const struct rp_acct_flow_cfg *c = &flows[f];
	uint8_t payload[64] = {0};
	struct rp_probe pr = {.flow_id = c->id, .seq = seq, .tx_ns = tx_ns};
	rp_probe_build(payload, sizeof(payload), &pr);
	struct rp_roce_spec s = {.l3 = 4, .udp_sport = 0xC000, .payload = payload, .payload_len = sizeof(payload)};
	mac_of(src_of[f], s.eth.src);
	mac_of(dst_of[f], s.eth.dst);
	s.ip4 = (struct rp_ipv4){.dscp = c->dscp, .ecn = ce ? RP_ECN_CE : RP_ECN_ECT0, .ttl = 64,
				 .src = c->src_ip4, .dst = c->dst_ip4};
	s.bth = (struct rp_bth){.opcode = RP_OP_RC_WRITE_ONLY, .pkey = 0xFFFF, .dqpn = dqpn, .psn = (uint32_t)seq,
				.ack_req = ack_req};
	size_t n = rp_roce_build(buf, cap, &s, NULL);
	assert_true(n > 0);
	return n;
}

static size_t data_frame(uint8_t *buf, size_t cap, unsigned f, uint64_t seq, uint64_t tx_ns, bool ce, bool ack_req)
{
	return frame_to(buf, cap, f, seq, tx_ns, ce, ack_req, flows[f].rqpn);
}

static const uint64_t sent[NF] = {10, 6, 5, 4};
static size_t frame_len;

/* Every frame of the scenario, in time order per receiver. */
static void play(struct world *w)
{
	uint8_t buf[256];
	size_t n;
	for (uint64_t i = 0; i < 10; i++) { /* f0: lat 1000 + 100 i, seq 3 and 7 dropped */
		uint64_t tx = 100000 + i * 10000;
		n = data_frame(buf, sizeof(buf), 0, i, tx, false, false);
		frame_len = n;
		if (i != 3 && i != 7)
			deliver(w, 1, tx + 1000 + 100 * i, buf, n, true);
	}
	for (uint64_t i = 0; i < 6; i++) { /* f1: lat 1200, CE on 0 and 4, seq 2 twice */
		uint64_t tx = 150000 + i * 10000;
		n = data_frame(buf, sizeof(buf), 1, i, tx, i == 0 || i == 4, false);
		deliver(w, 2, tx + 1200, buf, n, true);
		if (i == 2)
			deliver(w, 2, tx + 3200, buf, n, true);
	}
	for (uint64_t i = 0; i < 4; i++) { /* f2: lat 20000, seq 4 (the tail) dropped */
		uint64_t tx = 300000 + i * 10000;
		n = data_frame(buf, sizeof(buf), 2, i, tx, false, false);
		deliver(w, 0, tx + 20000, buf, n, true);
	}
	for (uint64_t i = 0; i < 4; i++) { /* f3: lat 3000, CE on 0 and 1, every packet asks for an ACK */
		uint64_t tx = 400000 + i * 10000;
		n = data_frame(buf, sizeof(buf), 3, i, tx, i < 2, true);
		deliver(w, 2, tx + 3000, buf, n, true);
	}
	uint16_t q[8] = {0};
	q[3] = 2000; /* 2000 * 512 bit / 40G = 25600 ns */
	n = rp_pfc_frame_build(buf, sizeof(buf), (const uint8_t[6]){2, 0, 0, 0, 0, 9}, 0x08, q);
	deliver(w, 1, 500000, buf, n, false);
	n = rp_pause_frame_build(buf, sizeof(buf), (const uint8_t[6]){2, 0, 0, 0, 0, 9}, 100); /* 100 * 512 / 10G = 5120 ns */
	deliver(w, 2, 600000, buf, n, false);
	n = frame_to(buf, sizeof(buf), 0, 0, 0, false, false, 0x20F); /* h0 -> h1 to a QP of no flow */
	deliver(w, 1, 700000, buf, n, false);
}

static struct rp_acct *reference(void)
{
	struct rp_acct_cfg c = cfg_with(all_ports, NH);
	struct world w = {.ref = make(&c)};
	play(&w);
	for (unsigned f = 0; f < NF; f++)
		rp_acct_set_tx(w.ref, f, sent[f], sent[f] * frame_len);
	rp_acct_finish(w.ref, END, NULL);
	return w.ref;
}

/* The ranks' run: combine the senders' side, finish, pack the owned flows.
 * subset: each rank's accountant holds only the flows its host sends or
 * receives (ids kept, positions not), as a 1024-host run must. */
static void ranks_run(uint8_t *buf[NH], size_t len[NH], bool subset, bool by_rows)
{
	struct world w = {0};
	struct rp_acct_cfg c[NH];
	static struct rp_acct_flow_cfg sub[NH][NF];
	int loc[NH][NF]; /* flow id -> the rank accountant's index, -1: not there */
	for (unsigned h = 0; h < NH; h++) {
		c[h] = cfg_with(&all_ports[h], 1);
		size_t n = 0;
		for (unsigned f = 0; f < NF; f++) {
			loc[h][f] = -1;
			if (!subset || src_of[f] == h || dst_of[f] == h) {
				loc[h][f] = (int)n;
				sub[h][n++] = flows[f];
			}
		}
		c[h].flows = sub[h];
		c[h].nflows = n;
		w.rank[h] = make(&c[h]);
	}
	if (subset) {
		assert_int_equal(c[0].nflows, 3); /* h0: f0, f2, f3 */
		assert_int_equal(c[1].nflows, 2); /* h1: f0, f1 */
	}
	play(&w);
	uint64_t tx[NH][RP_ACCT_TX_FIELDS * NF], sum[RP_ACCT_TX_FIELDS * NF] = {0};
	for (unsigned h = 0; h < NH; h++) {
		for (unsigned f = 0; f < NF; f++)
			if (src_of[f] == h)
				rp_acct_set_tx(w.rank[h], (size_t)loc[h][f], sent[f], sent[f] * frame_len);
		rp_acct_tx_export(w.rank[h], tx[h], NF);
		rp_acct_tx_combine(sum, tx[h], RP_ACCT_TX_FIELDS * NF); /* what MPI_Allreduce(SUM) does */
	}
	/* f3's ACKs and CNP arrived at h0 (rank 0), the only rank that counted them */
	assert_int_equal(tx[0][RP_ACCT_TX_FIELDS * 3 + 3], 4);
	assert_int_equal(tx[2][RP_ACCT_TX_FIELDS * 3 + 3], 0);
	assert_int_equal(sum[RP_ACCT_TX_FIELDS * 0], 10);
	assert_int_equal(sum[RP_ACCT_TX_FIELDS * 2], 5);
	/* by_rows: what lib/cluster/ship.c's alltoallv does instead: each flow's row
	 * from every rank that holds it, summed at its receiver's rank only. */
	for (unsigned f = 0; by_rows && f < NF; f++) {
		unsigned d = dst_of[f];
		uint64_t acc[RP_ACCT_TX_FIELDS], v[RP_ACCT_TX_FIELDS];
		rp_acct_tx_row(w.rank[d], (size_t)loc[d][f], acc);
		for (unsigned g = 0; g < NH; g++)
			if (g != d && loc[g][f] >= 0) {
				assert_int_equal(rp_acct_flow_index(w.rank[g], f), loc[g][f]);
				rp_acct_tx_row(w.rank[g], (size_t)loc[g][f], v);
				rp_acct_tx_combine(acc, v, RP_ACCT_TX_FIELDS);
			}
		rp_acct_tx_set_row(w.rank[d], (size_t)loc[d][f], acc);
	}
	for (unsigned h = 0; h < NH; h++) {
		if (!by_rows)
			rp_acct_tx_import(w.rank[h], sum, NF);
		rp_acct_finish(w.rank[h], END, NULL);
		bool own[NF] = {false};
		for (unsigned f = 0; f < NF; f++)
			if (dst_of[f] == h)
				own[loc[h][f]] = true;
		len[h] = rp_acct_pack(rp_acct_result(w.rank[h]), own, NULL, NULL, 0);
		buf[h] = malloc(len[h]);
		assert_non_null(buf[h]);
		assert_int_equal(rp_acct_pack(rp_acct_result(w.rank[h]), own, NULL, buf[h], len[h]), len[h]);
		rp_acct_destroy(w.rank[h]);
	}
}

/* Rank 0's merge target (a results_only accountant) of the ranks' buffers;
 * skip: a rank that sent nothing (died). */
static struct rp_acct *merged_as(uint8_t *buf[NH], const size_t len[NH], int skip)
{
	struct rp_acct_cfg c = cfg_with(all_ports, NH);
	c.results_only = true;
	struct rp_acct *m = make(&c);
	char err[160];
	for (unsigned h = 0; h < NH; h++) {
		if ((int)h == skip)
			continue;
		int rc = rp_acct_unpack_into(rp_acct_merged(m), buf[h], len[h], err, sizeof(err));
		if (rc)
			print_error("rank %u: %s\n", h, err);
		assert_int_equal(rc, 0);
	}
	rp_acct_merge_done(rp_acct_merged(m));
	return m;
}

static struct rp_acct *merged_of(uint8_t *buf[NH], const size_t len[NH])
{
	return merged_as(buf, len, -1);
}

struct fixture {
	struct rp_acct *ref, *merged;
	uint8_t *buf[NH];
	size_t len[NH];
};

static int setup(void **state)
{
	plan_init();
	struct fixture *fx = calloc(1, sizeof(*fx));
	fx->ref = reference();
	ranks_run(fx->buf, fx->len, false, false);
	fx->merged = merged_of(fx->buf, fx->len);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	rp_acct_destroy(fx->ref);
	rp_acct_destroy(fx->merged);
	for (unsigned h = 0; h < NH; h++)
		free(fx->buf[h]);
	free(fx);
	return 0;
}

/* Loss, duplicates, CE, replies per flow, worked by hand from the drawing. */
static void flows_exact(void **state)
{
	struct fixture *fx = *state;
	struct rp_acct_flow_result r[NF], ref;
	for (unsigned f = 0; f < NF; f++) {
		rp_acct_flow(fx->merged, f, &r[f]);
		rp_acct_flow(fx->ref, f, &ref);
		assert_int_equal(r[f].tx_packets, sent[f]);
		assert_int_equal(r[f].tx_bytes, sent[f] * frame_len);
		assert_int_equal(r[f].lost, ref.lost);
	}
	assert_int_equal(r[0].rx_packets, 8);
	assert_int_equal(r[0].lost, 2); /* 10 - 8 unique */
	assert_int_equal(r[1].rx_packets, 7);
	assert_int_equal(r[1].duplicates, 1);
	assert_int_equal(r[1].lost, 0); /* 6 - 6 unique */
	assert_int_equal(r[1].ce, 2);
	assert_int_equal(r[2].rx_packets, 4);
	assert_int_equal(r[2].lost, 1); /* the tail: only the sender's count shows it */
	assert_int_equal(r[3].ce, 2);
	assert_int_equal(r[3].cnp_tx, 2); /* CE at 403 and 413 us: 10 us apart, past the 4 us interval */
	assert_int_equal(r[3].cnp_rx, 2); /* counted at h0, on rank 0 */
	assert_int_equal(r[3].acks, 4);   /* four in-order packets asking for an ACK */
	assert_int_equal(r[3].naks, 0);
	assert_string_equal(r[2].src, "h2");
	assert_string_equal(r[2].dst, "h0");
}

/* Histograms bucket for bucket. f0's 8 samples 1000, 1100, 1200, 1400, 1500,
 * 1600, 1800, 1900: p50 is the 4th, 1400, reported as its bucket's top 1407
 * (buckets of 8 ns in [1024, 2048)); p99 the 8th, 1900 (top 1903 clamped to
 * the max). All 22: 1000, 1100, 1200 x7, 1400 ... 1900, 3000 x4, 20000 x4:
 * p50 the 11th = 1500 -> 1503, p99 the 22nd = 20000. */
static void latency_merged_exactly(void **state)
{
	struct fixture *fx = *state;
	struct rp_hist_summary s;
	rp_hist_summarize(rp_acct_flow_latency(fx->merged, 0), &s);
	assert_int_equal(s.count, 8);
	assert_int_equal(s.min, 1000);
	assert_int_equal(s.max, 1900);
	assert_int_equal(s.pct[RP_P50], 1407);
	assert_int_equal(s.pct[RP_P99], 1900);
	rp_hist_summarize(rp_acct_flow_latency(fx->merged, 1), &s);
	assert_int_equal(s.count, 6); /* the duplicate has no latency */
	assert_int_equal(s.min, 1200);
	assert_int_equal(s.pct[RP_P99], 1200);
	const struct rp_hist *m = rp_acct_latency(fx->merged), *ref = rp_acct_latency(fx->ref);
	rp_hist_summarize(m, &s);
	assert_int_equal(s.count, 22);
	assert_int_equal(s.min, 1000);
	assert_int_equal(s.max, 20000);
	assert_int_equal(s.pct[RP_P50], 1503);
	assert_int_equal(s.pct[RP_P99], 20000);
	assert_memory_equal(m->b, ref->b, sizeof(m->b));
	assert_memory_equal(&m->sums, &ref->sums, sizeof(m->sums));
}

/* h1: 2000 quanta at 40G = 2000 * 512 / 40 = 25600 ns on prio 3, first at
 * 500 us - 50 us start = 450000; h2: PAUSE 100 quanta at 10G = 5120 ns on
 * every priority, first at 550000. */
static void ports_exact(void **state)
{
	struct fixture *fx = *state;
	struct rp_acct_port_result p;
	rp_acct_port(fx->merged, 1, &p);
	assert_string_equal(p.node, "h1");
	assert_int_equal(p.prio[3].paused_ns, 25600);
	assert_int_equal(p.prio[3].quanta, 2000);
	assert_int_equal(p.prio[3].pfc_rx, 1);
	assert_int_equal(p.prio[3].xoff_to_xon, 1);
	assert_true(p.prio[3].paused_ever);
	assert_int_equal(p.prio[3].first_pause_ns, 450000);
	assert_false(p.prio[2].paused_ever);
	assert_int_equal(p.rx_frames, 8 + 1 + 1); /* f0's data, the PFC, the stray frame */
	assert_int_equal(rp_acct_unmatched(fx->merged), 1);
	assert_int_equal(rp_acct_unmatched(fx->ref), 1);
	rp_acct_port(fx->merged, 2, &p);
	assert_int_equal(p.pause_frames, 1);
	for (unsigned q = 0; q < 8; q++) {
		assert_int_equal(p.prio[q].paused_ns, 5120);
		assert_int_equal(p.prio[q].first_pause_ns, 550000);
	}
	assert_int_equal(p.prio[3].ecn_marked, 4); /* f1's two and f3's two */
	rp_acct_port(fx->merged, 0, &p);
	assert_int_equal(p.rx_frames, 4 + 4 + 2 + 4); /* f2's data, f3's ACKs and CNPs, f3's echoes */
	assert_int_equal(p.class_frames[RP_RX_ECHO], 4);
	assert_int_equal(p.class_frames[RP_RX_DATA], 4); /* f2's only: an echo is never data */
}

/* f3's echoes: h2 echoes each of its 4 probes (a CE-marked AckReq one as the
 * third reply after CNP and ACK: RP_REPLY_MAX), back at h0 500 ns after the
 * data arrived, which was 3000 ns after it left: every RTT is 3500 ns, on
 * h0's clock, merged from rank 0 (the sender's) into rank 2's row. */
static void echoes_round_trip(void **state)
{
	struct fixture *fx = *state;
	struct rp_acct_flow_result r, ref;
	rp_acct_flow(fx->merged, 3, &r);
	rp_acct_flow(fx->ref, 3, &ref);
	assert_int_equal(r.echo_tx, 4);
	assert_int_equal(r.echo_rx, 4);
	assert_int_equal(r.rtt_ns.count, 4);
	assert_int_equal(r.rtt_ns.min, 3500);
	assert_int_equal(r.rtt_ns.max, 3500);
	assert_int_equal(ref.rtt_ns.count, 4);
	assert_int_equal(ref.rtt_ns.min, 3500);
	assert_int_equal(r.acks, 4); /* the echoes did not count as ACKs */
	rp_acct_flow(fx->merged, 1, &r);
	assert_int_equal(r.echo_tx + r.echo_rx + r.rtt_ns.count, 0); /* f1 does not echo */
	/* shown: a one-way p50 (3000 -> bucket top 3007) above a bound of 2000 ns is the
	 * figure; below a bound of 4000 ns the round trip is. */
	rp_acct_flow(fx->merged, 3, &r);
	assert_string_equal(rp_report_latency_shown(&r, 2000, NULL, 0), "one-way");
	assert_string_equal(rp_report_latency_shown(&r, 4000, NULL, 0), "rtt");
	rp_acct_flow(fx->merged, 2, &r);
	assert_string_equal(rp_report_latency_shown(&r, 30000, NULL, 0), "none");
}

static void assert_json_equal(json_t *a, json_t *b, const char *what)
{
	if (!json_equal(a, b)) {
		char *sa = json_dumps(a, JSON_SORT_KEYS | JSON_COMPACT), *sb = json_dumps(b, JSON_SORT_KEYS | JSON_COMPACT);
		print_error("%s differ:\nmerged    %s\nreference %s\n", what, sa, sb);
		free(sa);
		free(sb);
		fail();
	}
}

/* result.json's flows, ports and latency equal the one-process run's, key for
 * key; the time series too except the per-bin percentiles (an upper bound). */
static void report_equals_one_process(void **state)
{
	struct fixture *fx = *state;
	json_t *a = rp_report_flows(fx->merged), *b = rp_report_flows(fx->ref);
	assert_json_equal(a, b, "flows");
	json_decref(a);
	json_decref(b);
	a = rp_report_ports(fx->merged), b = rp_report_ports(fx->ref);
	assert_json_equal(a, b, "ports");
	json_decref(a);
	json_decref(b);
	a = rp_report_latency(rp_acct_latency(fx->merged)), b = rp_report_latency(rp_acct_latency(fx->ref));
	assert_json_equal(a, b, "latency");
	json_decref(a);
	json_decref(b);
	a = rp_report_timeseries(fx->merged), b = rp_report_timeseries(fx->ref);
	/* Bin 1 (150..250 us): rank 1 has f0's 1500, 1600, 1800, 1900 (p50 the
	 * 2nd, 1600 -> 1607), rank 2 f1's 1200 x6 (p50 1200). The true p50 of
	 * the 10 is the 5th, 1200 (-> 1207); merged is the max over ranks, 1607. */
	json_t *ml = json_object_get(a, "latency_ns"), *rl = json_object_get(b, "latency_ns");
	assert_int_equal(json_integer_value(json_array_get(json_object_get(rl, "p50"), 1)), 1207);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(ml, "p50"), 1)), 1607);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(ml, "count"), 1)), 10);
	static const char *const pct[] = {"p50", "p90", "p99", "p999"};
	for (unsigned k = 0; k < 4; k++) {
		json_t *mp = json_object_get(ml, pct[k]), *rp = json_object_get(rl, pct[k]);
		assert_int_equal(json_array_size(mp), json_array_size(rp));
		for (size_t i = 0; i < json_array_size(mp); i++)
			assert_true(json_integer_value(json_array_get(mp, i)) >= json_integer_value(json_array_get(rp, i)));
		json_object_del(ml, pct[k]);
		json_object_del(rl, pct[k]);
	}
	assert_json_equal(a, b, "timeseries");
	json_decref(a);
	json_decref(b);
}

static void assert_same_text(json_t *a, json_t *b, const char *what)
{
	char *sa = json_dumps(a, JSON_INDENT(2)), *sb = json_dumps(b, JSON_INDENT(2));
	assert_non_null(sa);
	assert_non_null(sb);
	if (strcmp(sa, sb))
		print_error("%s differ:\n%s\n%s\n", what, sa, sb);
	assert_string_equal(sa, sb);
	free(sa);
	free(sb);
	json_decref(a);
	json_decref(b);
}

/* Rank 0's merge target (cfg.results_only: a result, acct_result.h) packed
 * and merged again into a fresh one is the same result: result.json's
 * objects as text, byte for byte, and the packed bytes (every field,
 * histogram bucket and series cell). Its PFC cells are sparse, with every
 * rank's buffer and with rank 1's missing. */
static void merged_result_round_trips(void **state)
{
	struct fixture *fx = *state;
	for (int skip = -1; skip < NH; skip += 2) {
		struct rp_acct *rows = merged_as(fx->buf, fx->len, skip);
		/* h1's PFC (prio 3, 2000 quanta at 40G = 25600 ns, at 500 us: bin 4) in a sparse cell */
		const struct rp_ts *t = rp_acct_timeseries(rows);
		assert_int_equal(rp_ts_pfc_frames(t, 4, 1, 3), skip == 1 ? 0 : 1);
		assert_int_equal(rp_ts_paused_ns(t, 4, 1, 3), skip == 1 ? 0 : 25600);
		assert_null(rp_ts_cell_find(t, 4, 1, 2));
		if (skip >= 0) { /* an unowned flow's row has no names until a rank's is in */
			rp_acct_destroy(rows);
			continue;
		}
		size_t n = rp_acct_pack(rp_acct_result(rows), NULL, NULL, NULL, 0);
		assert_true(n > 0);
		uint8_t *a = malloc(n), *b = malloc(n);
		assert_int_equal(rp_acct_pack(rp_acct_result(rows), NULL, NULL, a, n), n);
		struct rp_acct_cfg c = cfg_with(all_ports, NH);
		c.results_only = true;
		struct rp_acct *again = make(&c);
		char err[160];
		assert_int_equal(rp_acct_unpack_into(rp_acct_merged(again), a, n, err, sizeof(err)), 0);
		rp_acct_merge_done(rp_acct_merged(again));
		assert_same_text(rp_report_flows(again), rp_report_flows(rows), "flows");
		assert_same_text(rp_report_ports(again), rp_report_ports(rows), "ports");
		assert_same_text(rp_report_timeseries(again), rp_report_timeseries(rows), "timeseries");
		assert_same_text(rp_report_latency(rp_acct_latency(again)), rp_report_latency(rp_acct_latency(rows)),
				 "latency");
		assert_same_text(rp_report_pairs(again, NULL), rp_report_pairs(rows, NULL), "pairs");
		assert_same_text(rp_report_pause_order(again), rp_report_pause_order(rows), "pause order");
		assert_int_equal(rp_acct_pack(rp_acct_result(again), NULL, NULL, b, n), n);
		assert_memory_equal(a, b, n);
		free(a);
		free(b);
		rp_acct_destroy(again);
		rp_acct_destroy(rows);
	}
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	static char buf[1 << 20];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return strdup(buf);
}

/* What `run` writes from rank 0's merge: result.json with its flows, pairs
 * and ports' series written an item at a time is byte for byte the file
 * with the whole arrays in it; flows.jsonl (a large run's) holds one line per flow of the
 * plan (NF = 4, the drawing above), each the flow's object. */
static void streamed_files_equal_whole(void **state)
{
	struct fixture *fx = *state;
	struct rp_acct *m = merged_as(fx->buf, fx->len, -1);
	char dir[] = "/tmp/rp_merge_XXXXXX", whole[64], streamed[64], lines[64], err[256];
	assert_non_null(mkdtemp(dir));
	snprintf(whole, sizeof(whole), "%s/whole.json", dir);
	snprintf(streamed, sizeof(streamed), "%s/streamed.json", dir);
	snprintf(lines, sizeof(lines), "%s/flows.jsonl", dir);
	json_t *root = json_pack("{s:s, s:o, s:o, s:o, s:o}", "schema", "roceprobe.result/1", "flows", rp_report_flows(m),
				 "ports", rp_report_ports(m), "timeseries", rp_report_timeseries(m), "pairs", rp_report_pairs(m, NULL));
	assert_int_equal(rp_report_write_atomic(whole, root, err, sizeof(err)), 0);
	json_decref(root);
	struct rp_pairs *pairs = rp_pairs_build(m, NULL);
	json_t *flows = json_array(), *rows = json_array(), *out = json_array(), *tports = NULL;
	root = json_pack("{s:s, s:O, s:o, s:o, s:{s:O, s:O}}", "schema", "roceprobe.result/1", "flows", flows, "ports",
			 rp_report_ports(m), "timeseries", rp_report_timeseries_apart(m, &tports), "pairs", "rows", rows,
			 "outliers", out);
	assert_non_null(tports);
	const struct rp_report_stream st[] = {
		{flows, rp_acct_nflows(m), rp_report_flow_item, m},
		{rows, rp_pairs_nrows(pairs), rp_pairs_row_item, pairs},
		{out, rp_pairs_noutliers(pairs), rp_pairs_outlier_item, pairs},
		{tports, rp_acct_nports(m), rp_report_port_series_item, m}, /* h1's PFC and h2's PAUSE in it */
	};
	assert_int_equal(rp_pairs_nrows(pairs), 4); /* h0->h1, h1->h2, h2->h0, h0->h2 */
	assert_int_equal(rp_report_write_atomic_streams(streamed, root, st, 4, err, sizeof(err)), 0);
	char *a = slurp(whole), *b = slurp(streamed);
	assert_string_equal(a, b);
	free(a);
	free(b);
	assert_int_equal(rp_report_write_jsonl(lines, &st[0], err, sizeof(err)), 0);
	FILE *f = fopen(lines, "r");
	assert_non_null(f);
	char line[1 << 16];
	size_t n = 0;
	json_t *want = rp_report_flows(m);
	while (fgets(line, sizeof(line), f)) {
		assert_non_null(strchr(line, '\n'));
		json_t *got = json_loads(line, 0, NULL);
		assert_non_null(got);
		assert_true(n < 4);
		assert_json_equal(got, json_array_get(want, n), "flows.jsonl line");
		json_decref(got);
		n++;
	}
	fclose(f);
	assert_int_equal(n, 4);
	json_decref(want);
	json_decref(flows);
	json_decref(rows);
	json_decref(out);
	json_decref(root);
	rp_pairs_free(pairs);
	rp_acct_destroy(m);
	unlink(whole);
	unlink(streamed);
	unlink(lines);
	rmdir(dir);
}

/* Two lcores' accountants of one process, each with every port and a share
 * of the frames (f0 and f2 split in halves), absorbed into one before the
 * finish: result.json's flows, ports and latency equal the one-accountant
 * run's key for key; the time series too, but the per-bin percentiles (an
 * upper bound, as the ranks'). */
static void lcores_equal_one(void **state)
{
	struct fixture *fx = *state;
	struct rp_acct_cfg c = cfg_with(all_ports, NH);
	struct world w = {.lcore = {make(&c), make(&c)}};
	play(&w);
	assert_int_equal(rp_acct_absorb(w.lcore[0], w.lcore[1]), 0);
	rp_acct_destroy(w.lcore[1]);
	struct rp_acct *m = w.lcore[0];
	for (unsigned f = 0; f < NF; f++)
		rp_acct_set_tx(m, f, sent[f], sent[f] * frame_len);
	rp_acct_finish(m, END, NULL);
	struct rp_acct_flow_result r;
	rp_acct_flow(m, 0, &r);
	assert_int_equal(r.lost, 2); /* 10 sent, 8 unique over both halves */
	assert_int_equal(r.reordered, 0); /* each half in order: no false reordering */
	rp_acct_flow(m, 1, &r);
	assert_int_equal(r.duplicates, 1);
	json_t *a = rp_report_flows(m), *b = rp_report_flows(fx->ref);
	assert_json_equal(a, b, "flows");
	json_decref(a);
	json_decref(b);
	a = rp_report_ports(m), b = rp_report_ports(fx->ref);
	assert_json_equal(a, b, "ports");
	json_decref(a);
	json_decref(b);
	a = rp_report_latency(rp_acct_latency(m)), b = rp_report_latency(rp_acct_latency(fx->ref));
	assert_json_equal(a, b, "latency");
	json_decref(a);
	json_decref(b);
	a = rp_report_timeseries(m), b = rp_report_timeseries(fx->ref);
	json_t *ml = json_object_get(a, "latency_ns"), *rl = json_object_get(b, "latency_ns");
	static const char *const pct[] = {"p50", "p90", "p99", "p999"};
	for (unsigned k = 0; k < 4; k++) {
		json_t *mp = json_object_get(ml, pct[k]), *rp = json_object_get(rl, pct[k]);
		for (size_t i = 0; i < json_array_size(mp); i++)
			assert_true(json_integer_value(json_array_get(mp, i)) >= json_integer_value(json_array_get(rp, i)));
		json_object_del(ml, pct[k]);
		json_object_del(rl, pct[k]);
	}
	assert_json_equal(a, b, "timeseries");
	json_decref(a);
	json_decref(b);
	rp_acct_destroy(m);
}

/* The per-bin histograms of a mixed run's workload absorb bucket by bucket
 * too: a window's rows (during / outside, every bin's histogram) equal one
 * accountant's, sample for sample. The window [250 us, 500 us) holds part
 * of f1 and f2 (play's drawing), the rest is outside or on an edge. */
static void lcores_bin_hists(void **state)
{
	(void)state;
	struct rp_acct_flow_cfg keep[NF];
	memcpy(keep, flows, sizeof(keep));
	for (unsigned f = 0; f < NF; f++)
		flows[f].bin_hist = true;
	struct rp_acct_cfg c = cfg_with(all_ports, NH);
	c.bin_hist = true;
	struct world one = {.ref = make(&c)}, two = {.lcore = {make(&c), make(&c)}};
	play(&one);
	play(&two);
	assert_int_equal(rp_acct_absorb(two.lcore[0], two.lcore[1]), 0);
	rp_acct_destroy(two.lcore[1]);
	struct rp_acct *acc[2] = {one.ref, two.lcore[0]};
	for (unsigned k = 0; k < 2; k++) {
		for (unsigned f = 0; f < NF; f++)
			rp_acct_set_tx(acc[k], f, sent[f], sent[f] * frame_len);
		rp_acct_finish(acc[k], END, NULL);
	}
	const struct rp_report_window win = {.name = "w", .start_ns = 250000, .end_ns = 500000};
	json_t *a = rp_report_windows(acc[1], &win, 1), *b = rp_report_windows(acc[0], &win, 1);
	assert_non_null(a);
	assert_true(json_array_size(json_object_get(b, "bins")) > 0); /* the workload has samples in bins */
	assert_json_equal(a, b, "windows");
	json_decref(a);
	json_decref(b);
	rp_acct_destroy(acc[0]);
	rp_acct_destroy(acc[1]);
	memcpy(flows, keep, sizeof(keep));
}

/* Ranks that hold only their hosts' flows (found by id, not position) give
 * the same result.json flows and ports. */
static void shares_equal_one_process(struct fixture *fx, bool by_rows)
{
	uint8_t *buf[NH];
	size_t len[NH];
	ranks_run(buf, len, true, by_rows);
	struct rp_acct *m = merged_of(buf, len);
	struct rp_acct_flow_result r;
	rp_acct_flow(m, 2, &r);
	assert_int_equal(r.lost, 1);
	rp_acct_flow(m, 3, &r);
	assert_int_equal(r.acks, 4);
	json_t *a = rp_report_flows(m), *b = rp_report_flows(fx->ref);
	assert_json_equal(a, b, "flows (subset ranks)");
	json_decref(a);
	json_decref(b);
	a = rp_report_ports(m), b = rp_report_ports(fx->ref);
	assert_json_equal(a, b, "ports (subset ranks)");
	json_decref(a);
	json_decref(b);
	rp_acct_destroy(m);
	for (unsigned h = 0; h < NH; h++)
		free(buf[h]);
}

static void ranks_with_their_flows_only(void **state)
{
	shares_equal_one_process(*state, false);
}

/* The senders' side sent to each flow's receiver's rank only (rows, as the
 * alltoallv of lib/cluster/ship.c) instead of a plan-wide sum: the same result
 * as one process, key for key (f3's 4 ACKs and its echoes counted at h0 reach
 * h2's row; f2's tail loss needs h2's tx at h0). */
static void ranks_exchange_rows(void **state)
{
	shares_equal_one_process(*state, true);
}

/* Streaming: the same rows one at a time, nothing held per flow. */
struct rows {
	unsigned n;
	uint64_t lost, lat_count;
};
static int count_row(void *ctx, const struct rp_acct_flow_result *row, const struct rp_hist *lat)
{
	struct rows *r = ctx;
	r->n++;
	r->lost += row->lost;
	r->lat_count += lat->count;
	return 0;
}

static void rows_stream(void **state)
{
	struct fixture *fx = *state;
	struct rows r = {0};
	char err[160];
	struct rp_hist *agg = malloc(sizeof(*agg));
	rp_hist_init(agg);
	for (unsigned h = 0; h < NH; h++)
		assert_int_equal(rp_acct_unpack_rows(fx->buf[h], fx->len[h], count_row, &r, agg, err, sizeof(err)), 0);
	assert_int_equal(r.n, 4);
	assert_int_equal(r.lost, 2 + 0 + 1 + 0);
	assert_int_equal(r.lat_count, 22);
	/* the aggregate of the drawing (see latency_merged_exactly), bucket for bucket */
	struct rp_hist_summary s;
	rp_hist_summarize(agg, &s);
	assert_int_equal(s.count, 22);
	assert_int_equal(s.min, 1000);
	assert_int_equal(s.max, 20000);
	assert_int_equal(s.pct[RP_P50], 1503);
	assert_int_equal(s.pct[RP_P99], 20000);
	assert_memory_equal(agg->b, rp_acct_latency(fx->ref)->b, sizeof(agg->b));
	free(agg);
}

/* Every cut length is an error and installs nothing; every byte flipped is
 * an error or a sound buffer, never a crash (valgrind watches). */
static void truncated_and_corrupt(void **state)
{
	struct fixture *fx = *state;
	struct rp_acct_cfg c = cfg_with(all_ports, NH);
	c.results_only = true;
	struct rp_acct *m = make(&c);
	assert_int_equal(rp_acct_pack(rp_acct_result(m), NULL, NULL, NULL, 0), 0); /* not finished: nothing to ship */
	json_t *before = rp_report_flows(m);
	char err[160];
	unsigned errors = 0;
	for (unsigned h = 0; h < NH; h++) {
		for (size_t cut = 0; cut < fx->len[h]; cut++) {
			err[0] = 0;
			assert_int_equal(rp_acct_unpack_into(rp_acct_merged(m), fx->buf[h], cut, err, sizeof(err)), -1);
			assert_true(err[0] != 0);
			assert_int_equal(rp_acct_unpack_rows(fx->buf[h], cut, count_row, &(struct rows){0}, NULL, err, sizeof(err)), -1);
		}
		uint8_t *bad = malloc(fx->len[h]);
		for (size_t i = 0; i < fx->len[h]; i++) {
			memcpy(bad, fx->buf[h], fx->len[h]);
			bad[i] ^= 0xA5;
			errors += rp_acct_unpack_rows(bad, fx->len[h], count_row, &(struct rows){0}, NULL, err, sizeof(err)) != 0;
		}
		free(bad);
	}
	json_t *after = rp_report_flows(m);
	assert_json_equal(after, before, "flows after failed unpacks");
	assert_true(errors > 0);
	assert_int_equal(rp_acct_unpack_into(rp_acct_merged(m), NULL, 0, err, sizeof(err)), -1);
	/* another plan: rank 0's buffer names port h0, unknown to a cfg with h1 only */
	struct rp_acct_cfg c1 = cfg_with(&all_ports[1], 1);
	c1.results_only = true;
	struct rp_acct *m1 = make(&c1);
	assert_int_equal(rp_acct_unpack_into(rp_acct_merged(m1), fx->buf[0], fx->len[0], err, sizeof(err)), -1);
	assert_string_equal(err, "merge buffer: port h0:0 is not in the merged cfg");
	rp_acct_destroy(m1);
	json_decref(before);
	json_decref(after);
	rp_acct_destroy(m);
}

/* The ranks as `run` makes them: every rank's accountant is configured with
 * all three ports, fed only at its own (port index = host), and ships only
 * that one (own_port). Its PFC series must name the shipped record, not the
 * accountant's port index: h1's PFC (rank 1, port 1, record 0) lands in the
 * merged port h1, bin (500000 - 50000) / 100000 = 4, prio 3, as in the
 * one-process reference; h2's PAUSE (rank 2) on every priority of bin 5. */
static void ranks_with_every_port(void **state)
{
	(void)state;
	struct world w = {.every_port = true};
	struct rp_acct_cfg c = cfg_with(all_ports, NH);
	for (unsigned h = 0; h < NH; h++)
		w.rank[h] = make(&c);
	play(&w);
	uint64_t tx[RP_ACCT_TX_FIELDS * NF], sum[RP_ACCT_TX_FIELDS * NF] = {0};
	for (unsigned h = 0; h < NH; h++) {
		for (unsigned f = 0; f < NF; f++)
			if (src_of[f] == h)
				rp_acct_set_tx(w.rank[h], f, sent[f], sent[f] * frame_len);
		rp_acct_tx_export(w.rank[h], tx, NF);
		rp_acct_tx_combine(sum, tx, RP_ACCT_TX_FIELDS * NF);
	}
	uint8_t *buf[NH];
	size_t len[NH];
	for (unsigned h = 0; h < NH; h++) {
		rp_acct_tx_import(w.rank[h], sum, NF);
		rp_acct_finish(w.rank[h], END, NULL);
		bool own[NF], own_port[NH] = {false};
		for (unsigned f = 0; f < NF; f++)
			own[f] = dst_of[f] == h;
		own_port[h] = true;
		len[h] = rp_acct_pack(rp_acct_result(w.rank[h]), own, own_port, NULL, 0);
		buf[h] = malloc(len[h]);
		assert_non_null(buf[h]);
		assert_int_equal(rp_acct_pack(rp_acct_result(w.rank[h]), own, own_port, buf[h], len[h]), len[h]);
		rp_acct_destroy(w.rank[h]);
	}
	struct rp_acct *m = merged_of(buf, len), *ref = reference();
	const struct rp_ts *mt = rp_acct_timeseries(m), *rt = rp_acct_timeseries(ref);
	assert_int_equal(rp_ts_pfc_frames(mt, 4, 1, 3), 1);
	for (size_t b = 0; b < 10; b++)
		for (size_t p = 0; p < NH; p++)
			for (unsigned q = 0; q < 8; q++) {
				assert_int_equal(rp_ts_pfc_frames(mt, b, p, q), rp_ts_pfc_frames(rt, b, p, q));
				assert_int_equal(rp_ts_paused_ns(mt, b, p, q), rp_ts_paused_ns(rt, b, p, q));
			}
	assert_int_equal(rp_ts_paused_ns(mt, 4, 1, 3), 25600);
	for (unsigned h = 0; h < NH; h++)
		free(buf[h]);
	rp_acct_destroy(m);
	rp_acct_destroy(ref);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(flows_exact),
		cmocka_unit_test(latency_merged_exactly),
		cmocka_unit_test(ports_exact),
		cmocka_unit_test(echoes_round_trip),
		cmocka_unit_test(report_equals_one_process),
		cmocka_unit_test(merged_result_round_trips),
		cmocka_unit_test(streamed_files_equal_whole),
		cmocka_unit_test(ranks_with_their_flows_only),
		cmocka_unit_test(ranks_exchange_rows),
		cmocka_unit_test(ranks_with_every_port),
		cmocka_unit_test(rows_stream),
		cmocka_unit_test(lcores_equal_one),
		cmocka_unit_test(lcores_bin_hists),
		cmocka_unit_test(truncated_and_corrupt),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
