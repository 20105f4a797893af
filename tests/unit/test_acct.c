/* The accountant on synthetic streams built with lib/wire, against known
 * answers: drops on purpose, a delay on purpose, CE marks on purpose, pause
 * quanta on purpose.
 *
 *   h1 192.0.2.1 (QP 0x100..) --- flow 0, DSCP 26, prio 3 ---> rx 192.0.2.9 (QP 0x200..)
 *   h2 192.0.2.2 (QP 0x100)   --- flow 1, 2 QPs, reply ----->  rx (QP 0x300..)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "stats/acct.h"
#include "stats/acct_result.h"
#include "wire/frame.h"

#define IP_H1 0xC0000201u
#define IP_H2 0xC0000202u
#define IP_RX 0xC0000209u
#define G100 100000000000ull

static const uint8_t mac_h[6] = {2, 0, 0, 0, 0, 1}, mac_rx[6] = {2, 0, 0, 0, 0, 9};

static struct rp_acct_flow_cfg flow_cfgs[2];
static const struct rp_acct_port_cfg port_cfgs[1] = {{.node = "rx", .port = 0, .speed_bps = G100}};

static void cfg_init(struct rp_acct_cfg *c)
{
	flow_cfgs[0] = (struct rp_acct_flow_cfg){.id = 0, .src = "h1", .dst = "rx", .l3 = 4, .src_ip4 = IP_H1,
						 .dst_ip4 = IP_RX, .lqpn = 0x100, .rqpn = 0x200, .qps = 1,
						 .prio = 3, .dscp = 26};
	flow_cfgs[1] = (struct rp_acct_flow_cfg){.id = 1, .src = "h2", .dst = "rx", .l3 = 4, .src_ip4 = IP_H2,
						 .dst_ip4 = IP_RX, .lqpn = 0x100, .rqpn = 0x300, .qps = 2,
						 .prio = 3, .dscp = 26, .reply = RP_ACCT_REPLY_ALL};
	*c = (struct rp_acct_cfg){.flows = flow_cfgs, .nflows = 2, .ports = port_cfgs, .nports = 1,
				  .start_ns = 0, .run_ns = 10000000, .latency = true};
}

struct pkt {
	uint32_t flow, qp, psn;
	uint64_t seq, tx_ns;
	bool probe, ce, ack_req;
	uint8_t opcode;
};

static size_t data_frame(uint8_t *buf, size_t cap, const struct pkt *p)
{
	const struct rp_acct_flow_cfg *c = &flow_cfgs[p->flow];
	uint8_t payload[64] = {0};
	struct rp_probe pr = {.flow_id = c->id, .seq = p->seq, .tx_ns = p->tx_ns};
	if (p->probe)
		rp_probe_build(payload, sizeof(payload), &pr);
	struct rp_roce_spec s = {.l3 = 4, .udp_sport = 0xC000, .payload = payload, .payload_len = sizeof(payload)};
	memcpy(s.eth.src, mac_h, 6);
	memcpy(s.eth.dst, mac_rx, 6);
	s.ip4 = (struct rp_ipv4){.dscp = c->dscp, .ecn = p->ce ? RP_ECN_CE : RP_ECN_ECT0, .ttl = 64,
				 .src = c->src_ip4, .dst = c->dst_ip4};
	s.bth = (struct rp_bth){.opcode = p->opcode ? p->opcode : RP_OP_RC_WRITE_ONLY, .pkey = 0xFFFF,
				.dqpn = c->rqpn + p->qp, .psn = p->psn, .ack_req = p->ack_req};
	size_t n = rp_roce_build(buf, cap, &s, NULL);
	assert_true(n > 0);
	return n;
}

static enum rp_rx_class feed(struct rp_acct *a, uint64_t now, const struct pkt *p, struct rp_reply *r)
{
	uint8_t buf[256];
	size_t n = data_frame(buf, sizeof(buf), p);
	return rp_acct_rx(a, 0, now, buf, n, n, r);
}

static struct rp_acct *make(struct rp_acct_cfg *c)
{
	char err[128];
	struct rp_acct *a = rp_acct_create(c, err, sizeof(err));
	assert_non_null(a);
	return a;
}

/* Latencies 1000 + (i * 37 % 40000) ns, then the same with 5000 ns added:
 * min, max and p50 move by 5000 (within the histogram's 1%). */
static void delay_shifts_latency(void **state)
{
	(void)state;
	struct rp_acct_flow_result r[2];
	for (int run = 0; run < 2; run++) {
		struct rp_acct_cfg c;
		cfg_init(&c);
		struct rp_acct *a = make(&c);
		for (uint64_t i = 0; i < 10000; i++) {
			uint64_t tx = 1000000 + i * 500;
			uint64_t lat = 1000 + (i * 37 % 40000) + (run ? 5000 : 0);
			struct pkt p = {.flow = 0, .psn = (uint32_t)i, .seq = i, .tx_ns = tx, .probe = true};
			assert_int_equal(feed(a, tx + lat, &p, NULL), RP_RX_DATA);
		}
		rp_acct_finish(a, 10000000, NULL);
		rp_acct_flow(a, 0, &r[run]);
		assert_int_equal(r[run].latency_ns.count, 10000);
		assert_int_equal(rp_acct_latency(a)->count, 10000);
		rp_acct_destroy(a);
	}
	assert_int_equal(r[1].latency_ns.min - r[0].latency_ns.min, 5000);
	assert_int_equal(r[1].latency_ns.max - r[0].latency_ns.max, 5000);
	assert_true(r[1].latency_ns.mean - r[0].latency_ns.mean > 4999.999);
	assert_true(r[1].latency_ns.mean - r[0].latency_ns.mean < 5000.001);
	double d = (double)r[1].latency_ns.pct[RP_P50] - (double)r[0].latency_ns.pct[RP_P50];
	double tol = 0.01 * (double)r[1].latency_ns.pct[RP_P50];
	assert_true(d > 5000 - tol && d < 5000 + tol);
	assert_true(r[1].latency_ns.stdev - r[0].latency_ns.stdev < 1e-6);
}

/* engine: verbs: whole messages with their probe, delivered by an RC QP,
 * through rp_acct_message. 1000 sent; every 10th (i % 10 == 9) never
 * arrives: 100 lost; seq 5 arrives twice: 1 duplicate; message 3 is
 * stamped after it arrived (clock offsets between machines): no latency,
 * clock_skew 1; every other one takes 2000 ns. A probe of another flow
 * is refused and counted unmatched. */
static void verbs_messages(void **state)
{
	(void)state;
	struct rp_acct_cfg c;
	cfg_init(&c);
	struct rp_acct *a = make(&c);
	for (uint64_t i = 0; i < 1000; i++) {
		if (i % 10 == 9)
			continue;
		uint64_t tx = 1000000 + i * 10000, now = i == 3 ? tx - 1 : tx + 2000;
		struct rp_probe pr = {.flow_id = 0, .seq = i, .tx_ns = tx};
		assert_int_equal(rp_acct_message(a, 0, 0, now, &pr, 4096), 0);
		if (i == 5)
			assert_int_equal(rp_acct_message(a, 0, 0, now + 1, &pr, 4096), 0);
	}
	struct rp_probe other = {.flow_id = 1, .seq = 0, .tx_ns = 0};
	assert_int_equal(rp_acct_message(a, 0, 0, 5000000, &other, 4096), -1);
	uint64_t sent[2] = {1000, 0};
	rp_acct_finish(a, 20000000, sent);
	struct rp_acct_flow_result r;
	rp_acct_flow(a, 0, &r);
	assert_int_equal(r.tx_packets, 1000);
	assert_int_equal(r.rx_packets, 901);
	assert_int_equal(r.rx_bytes, 901 * 4096);
	assert_int_equal(r.rx_payload_bytes, 900 * 4096);
	assert_int_equal(r.lost, 100);
	assert_int_equal(r.duplicates, 1);
	assert_int_equal(r.clock_skew, 1);
	assert_int_equal(r.latency_ns.count, 899);
	assert_int_equal(r.latency_ns.min, 2000);
	assert_int_equal(r.latency_ns.max, 2000);
	assert_int_equal(rp_acct_unmatched(a), 1);
	struct rp_acct_port_result pr;
	rp_acct_port(a, 0, &pr);
	assert_int_equal(pr.rx_frames, 901);
	assert_int_equal(pr.class_frames[RP_RX_DATA], 901);
	assert_int_equal(pr.class_frames[RP_RX_OTHER], 1);
	rp_acct_destroy(a);
}

/* Every 7th of 10000 dropped, every 5th CE-marked; the tail (last 3) lost. */
static void drops_and_ce_exact(void **state)
{
	(void)state;
	struct rp_acct_cfg c;
	cfg_init(&c);
	struct rp_acct *a = make(&c);
	/* 10000 sent; dropped: i % 7 == 6 (i = 6, 13, ..., 9995: 1428) and the
	 * last three (9997..9999, none of them % 7 == 6): 1431 lost, 8569
	 * received. CE: i % 5 == 0 (2000) less those dropped, i % 35 == 20
	 * (20, 55, ..., 9995: 286): 1714. */
	const uint64_t n = 10000;
	for (uint64_t i = 0; i < n; i++) {
		if (i % 7 == 6 || i >= n - 3)
			continue;
		struct pkt p = {.flow = 0, .psn = (uint32_t)i, .seq = i, .tx_ns = i * 1000, .probe = true,
				.ce = i % 5 == 0};
		feed(a, i * 1000 + 2000, &p, NULL);
	}
	uint64_t tx[2] = {n, 0};
	rp_acct_finish(a, n * 1000 + 5000, tx);
	struct rp_acct_flow_result r;
	rp_acct_flow(a, 0, &r);
	assert_int_equal(r.lost, 1431);
	assert_int_equal(r.rx_packets, 8569);
	assert_int_equal(r.ce, 1714);
	assert_int_equal(r.reordered, 0);
	assert_int_equal(r.duplicates, 0);
	assert_int_equal(r.cnp_tx, 0); /* flow 0 does not reply */
	struct rp_acct_port_result pr;
	rp_acct_port(a, 0, &pr);
	assert_int_equal(pr.prio[3].ecn_marked, 1714);
	assert_int_equal(pr.class_frames[RP_RX_DATA], 8569);
	/* the time series holds every packet and CE of the run */
	const struct rp_ts *ts = rp_acct_timeseries(a);
	uint64_t pk = 0, tce = 0;
	for (size_t b = 0; b < rp_ts_nbins(ts); b++) {
		pk += rp_ts_get(ts, b)->c[RP_TS_RX_PACKETS];
		tce += rp_ts_get(ts, b)->c[RP_TS_CE];
	}
	assert_int_equal(pk, 8569);
	assert_int_equal(tce, 1714);
	rp_acct_destroy(a);
}

/* A run stopped with frames still in the fabric (the lab's fabric.max_time):
 * 100 sent, 0..59 received, 60..89 still in flight (switch buffers, wires),
 * 90..99 dropped: lost 10, not 40; in_flight 30 (tx = rx + lost + in flight). */
static void in_flight_not_lost(void **state)
{
	(void)state;
	struct rp_acct_cfg c;
	cfg_init(&c);
	struct rp_acct *a = make(&c);
	for (uint64_t i = 0; i < 60; i++) {
		struct pkt p = {.flow = 0, .psn = (uint32_t)i, .seq = i, .tx_ns = i * 1000, .probe = true};
		feed(a, i * 1000 + 2000, &p, NULL);
	}
	uint64_t tx[2] = {100, 0};
	rp_acct_set_in_flight(a, 0, 30);
	rp_acct_finish(a, 200000, tx);
	struct rp_acct_flow_result r;
	rp_acct_flow(a, 0, &r);
	assert_int_equal(r.tx_packets, 100);
	assert_int_equal(r.rx_packets, 60);
	assert_int_equal(r.lost, 10);
	assert_int_equal(rp_acct_flow_in_flight(a, 0), 30);
	assert_int_equal(rp_acct_flow_in_flight(a, 1), 0);
	rp_acct_destroy(a);
}

/* Flow 1 replies: CE on every packet every 10 us on both QPs for 1 ms; one
 * CNP per QP per 50 us -> 2 * 20; AckReq on every 4th -> ACKs; a gap -> a NAK. */
static void receiver_replies(void **state)
{
	(void)state;
	struct rp_acct_cfg c;
	cfg_init(&c);
	struct rp_acct *a = make(&c);
	uint64_t cnp = 0, ack = 0, nak = 0;
	uint32_t psn[2] = {0, 0};
	uint64_t seq = 0;
	for (uint64_t t = 0; t < 1000000; t += 10000) {
		for (uint32_t q = 0; q < 2; q++) {
			if (q == 1 && t == 500000) {
				psn[1]++; /* a packet (PSN and probe seq) lost on QP 1 */
				seq++;
			}
			struct pkt p = {.flow = 1, .qp = q, .psn = psn[q]++, .seq = seq++, .tx_ns = t, .probe = true,
					.ce = true, .ack_req = psn[q] % 4 == 0};
			struct rp_reply r;
			feed(a, t + 1000, &p, &r);
			for (unsigned i = 0; i < r.n; i++) {
				uint8_t buf[128];
				size_t len = rp_reply_build(&r, i, buf, sizeof(buf));
				struct rp_frame f;
				assert_true(len > 0);
				rp_frame_parse(buf, len, len, &f);
				assert_int_equal(f.bth.dqpn, 0x100 + q); /* back to the sender's QP */
				assert_int_equal(f.ip4.dst, IP_H2);
				cnp += r.msg[i].kind == RP_REPLY_CNP;
				ack += r.msg[i].kind == RP_REPLY_ACK;
				nak += r.msg[i].kind == RP_REPLY_NAK;
				/* feed the reply back: the accountant counts it for flow 1's sender */
				assert_int_equal(rp_acct_rx(a, 0, t + 2000, buf, len, len, NULL),
						 r.msg[i].kind == RP_REPLY_CNP ? RP_RX_CNP
						 : r.msg[i].kind == RP_REPLY_ACK ? RP_RX_ACK : RP_RX_NAK);
			}
		}
	}
	rp_acct_finish(a, 1000000, NULL);
	struct rp_acct_flow_result r;
	rp_acct_flow(a, 1, &r);
	/* every packet CE, one each 10 us per QP: 10 us >= the 4 us default
	 * interval (receiver.h), so each of the 2 x 100 gets its CNP at once (it
	 * was 2 x 20 with 50 us) */
	assert_int_equal(cnp, 200);
	assert_int_equal(r.cnp_tx, 200);
	assert_int_equal(r.cnp_rx, 200);
	assert_int_equal(nak, 1);
	assert_int_equal(r.naks, 1);
	assert_int_equal(r.acks, ack);
	assert_true(ack >= 45);
	assert_int_equal(r.ce, 200);
	assert_int_equal(r.lost, 1);
	rp_acct_destroy(a);
}

/* PFC XOFF prio 3 with 65535 quanta at 100G twice (refresh), an XON, and a
 * PAUSE of 1000 quanta: paused_ns exact, and the bins add up to it. */
static void pfc_through_the_accountant(void **state)
{
	(void)state;
	struct rp_acct_cfg c;
	cfg_init(&c);
	c.bin_ns = 100000;
	struct rp_acct *a = make(&c);
	uint8_t buf[64];
	uint16_t q[8] = {0};
	q[3] = 65535;
	size_t n = rp_pfc_frame_build(buf, sizeof(buf), mac_rx, 0x08, q);
	assert_int_equal(rp_acct_rx(a, 0, 1000000, buf, n, n, NULL), RP_RX_PFC);
	assert_int_equal(rp_acct_rx(a, 0, 1200000, buf, n, n, NULL), RP_RX_PFC);
	q[3] = 0;
	n = rp_pfc_frame_build(buf, sizeof(buf), mac_rx, 0x08, q);
	assert_int_equal(rp_acct_rx(a, 0, 1250000, buf, n, n, NULL), RP_RX_PFC);
	rp_acct_pfc_tx(a, 0, buf, n); /* this port sent one too */
	n = rp_pause_frame_build(buf, sizeof(buf), mac_rx, 1000); /* 1000 * 512 bit / 100G = 5120 ns */
	assert_int_equal(rp_acct_rx(a, 0, 3000000, buf, n, n, NULL), RP_RX_PAUSE);
	rp_acct_finish(a, 5000000, NULL);
	struct rp_acct_port_result p;
	rp_acct_port(a, 0, &p);
	assert_int_equal(p.prio[3].paused_ns, 250000 + 5120);
	assert_int_equal(p.prio[3].pfc_rx, 4);
	assert_int_equal(p.prio[3].pfc_tx, 1);
	assert_int_equal(p.prio[2].pfc_tx, 0);
	assert_int_equal(p.prio[3].quanta, 2 * 65535 + 1000);
	assert_int_equal(p.prio[3].xoff_to_xon, 2);
	assert_true(p.prio[3].paused_ever);
	assert_int_equal(p.prio[3].first_pause_ns, 1000000);
	assert_int_equal(p.prio[0].paused_ns, 5120);
	assert_int_equal(p.pfc_frames, 3);
	assert_int_equal(p.pause_frames, 1);
	const struct rp_ts *ts = rp_acct_timeseries(a);
	uint64_t sum3 = 0, sum0 = 0, frames3 = 0;
	for (size_t b = 0; b < rp_ts_nbins(ts); b++) {
		sum3 += rp_ts_paused_ns(ts, b, 0, 3);
		sum0 += rp_ts_paused_ns(ts, b, 0, 0);
		frames3 += rp_ts_pfc_frames(ts, b, 0, 3);
		assert_true(rp_ts_paused_ns(ts, b, 0, 3) <= 100000);
	}
	assert_int_equal(sum3, 250000 + 5120);
	assert_int_equal(sum0, 5120);
	assert_int_equal(frames3, 4);
	assert_int_equal(rp_ts_paused_ns(ts, 10, 0, 3), 100000); /* 1.0 .. 1.1 ms: fully paused */
	assert_int_equal(rp_ts_paused_ns(ts, 12, 0, 3), 50000);  /* 1.2 .. 1.25 ms */
	rp_acct_destroy(a);
}

/* An XOFF of 65535 quanta at 100G at 1.0 ms, the run (a capture) ending at
 * 1.1 ms: 65535 * 512 bit / 100e9 bit/s = 335539.2 ns, so 335539 ns paused
 * with pause_to_expiry, 235539 of them after the end; 100000 without (a live
 * run counts its own span). */
static void pause_to_expiry_past_the_end(void **state)
{
	(void)state;
	for (int expiry = 0; expiry <= 1; expiry++) {
		struct rp_acct_cfg c;
		cfg_init(&c);
		c.run_ns = 1100000;
		c.pause_to_expiry = expiry;
		struct rp_acct *a = make(&c);
		uint8_t buf[64];
		uint16_t q[8] = {[3] = 65535};
		size_t n = rp_pfc_frame_build(buf, sizeof(buf), mac_rx, 0x08, q);
		rp_acct_rx(a, 0, 1000000, buf, n, n, NULL);
		rp_acct_finish(a, 1100000, NULL);
		struct rp_acct_port_result p;
		rp_acct_port(a, 0, &p);
		assert_int_equal(p.prio[3].paused_ns, expiry ? 335539 : 100000);
		assert_int_equal(p.prio[3].paused_past_end_ns, expiry ? 235539 : 0);
		assert_int_equal(p.prio[3].xoff_to_xon, expiry ? 1 : 0);
		rp_acct_destroy(a);
	}
}

/* Discovery: no configured flows; probe-less frames of two QPs, every 10th
 * dropped, one resend: lost, retransmissions and CE from PSNs alone. */
static void discovery_without_probes(void **state)
{
	(void)state;
	struct rp_acct_cfg c;
	cfg_init(&c);
	c.nflows = 0;
	c.discover = true;
	c.track_psn = true;
	c.latency = false;
	struct rp_acct *a = make(&c);
	/* 1000 frames; dropped: i % 10 == 5 (5, 15, ..., 995: 100, all on QP 1,
	 * none its last). CE: i % 3 == 0 (0, 3, ..., 999: 334) less those
	 * dropped, i % 30 == 15 (15, 45, ..., 975: 33): 301. */
	for (uint32_t i = 0; i < 1000; i++) {
		if (i % 10 == 5)
			continue;
		struct pkt p = {.flow = i % 2, .psn = 7 + i / 2, .ce = i % 3 == 0};
		assert_int_equal(feed(a, i * 100, &p, NULL), RP_RX_DATA);
	}
	struct pkt again = {.flow = 0, .psn = 7 + 2};
	feed(a, 200000, &again, NULL);
	rp_acct_finish(a, 300000, NULL);
	assert_int_equal(rp_acct_nflows(a), 2);
	uint64_t lost = 0, tce = 0, retx = 0;
	for (size_t i = 0; i < 2; i++) {
		struct rp_acct_flow_result r;
		rp_acct_flow(a, i, &r);
		lost += r.lost;
		tce += r.ce;
		retx += r.retransmissions;
	}
	assert_int_equal(lost, 100);
	assert_int_equal(tce, 301);
	assert_int_equal(retx, 1);
	rp_acct_destroy(a);
}

static void malformed_and_other(void **state)
{
	(void)state;
	struct rp_acct_cfg c;
	cfg_init(&c);
	struct rp_acct *a = make(&c);
	uint8_t buf[256];
	struct pkt p = {.flow = 0, .probe = true};
	size_t n = data_frame(buf, sizeof(buf), &p);
	assert_int_equal(rp_acct_rx(a, 0, 1, buf, 10, 10, NULL), RP_RX_MALFORMED);
	buf[12] = 0x86, buf[13] = 0x00; /* an unknown EtherType */
	assert_int_equal(rp_acct_rx(a, 0, 2, buf, n, n, NULL), RP_RX_OTHER);
	assert_int_equal(rp_acct_rx(a, 7, 3, buf, n, n, NULL), RP_RX_OTHER); /* an unknown port is harmless */
	rp_acct_finish(a, 10, NULL);
	rp_acct_destroy(a);
}

/* dst_port_check: two ports, "h1" (0) and "rx" (1). 100 frames of flow 0
 * arrive at h1's own port (a loopback), 30 at rx's port with rx's MAC and
 * 5 at rx's port with another host's MAC: only the 30 are received, the
 * other 105 are misdelivered, and lost = 100 + 30 + 5 sent - 30 = 105. */
static void misdelivered_not_received(void **state)
{
	(void)state;
	static const struct rp_acct_port_cfg two[2] = {{.node = "h1", .speed_bps = G100}, {.node = "rx", .speed_bps = G100}};
	struct rp_acct_cfg c;
	cfg_init(&c);
	flow_cfgs[0].dst_port = 1;
	memcpy(flow_cfgs[0].dst_mac, mac_rx, 6);
	c.ports = two;
	c.nports = 2;
	c.dst_port_check = true;
	struct rp_acct *a = make(&c);
	uint8_t buf[256];
	for (uint32_t i = 0; i < 135; i++) {
		struct pkt p = {.flow = 0, .psn = i, .seq = i, .tx_ns = i * 1000, .probe = true};
		size_t n = data_frame(buf, sizeof(buf), &p);
		unsigned port = i < 100 ? 0 : 1;
		if (i >= 130)
			buf[5] = 0x42; /* destination MAC 02:00:00:00:00:42: not rx's */
		enum rp_rx_class want = i >= 100 && i < 130 ? RP_RX_DATA : RP_RX_OTHER;
		assert_int_equal(rp_acct_rx(a, port, i * 1000 + 500, buf, n, n, NULL), want);
	}
	uint64_t tx[2] = {135, 0};
	rp_acct_finish(a, 200000, tx);
	struct rp_acct_flow_result r;
	rp_acct_flow(a, 0, &r);
	assert_int_equal(r.rx_packets, 30);
	assert_int_equal(r.misdelivered, 105);
	assert_int_equal(r.lost, 105);
	struct rp_acct_port_result p0, p1;
	rp_acct_port(a, 0, &p0);
	rp_acct_port(a, 1, &p1);
	assert_int_equal(p0.misdelivered, 100);
	assert_int_equal(p1.misdelivered, 5);
	assert_int_equal(p0.misdelivered_bytes, 100 * p0.rx_bytes / p0.rx_frames);
	flow_cfgs[0].dst_port = 0;
	memset(flow_cfgs[0].dst_mac, 0, 6);
	rp_acct_destroy(a);
}

/* 50 WRITE ONLY of flow 0 (probe seq = PSN = i), the 5th, 10th, ... 50th
 * (i % 5 == 4) with a payload byte flipped after its ICRC was computed: a NIC
 * drops those 10, so they are class icrc_bad, the flow's icrc_bad 10, not
 * received (rx 40, payload 40 x 64 B) and lost 10, the last one (seq 49)
 * included although nothing follows it: it held its place. The same without
 * the sender's count and with it (50 - 40 unique = 10). Then seq 4 arrives
 * again whole (a resend): received, late, lost 9. Ports: icrc_bad 10, data 40. */
static void bad_icrc_not_received(void **state)
{
	(void)state;
	for (int with_tx = 0; with_tx < 2; with_tx++) {
		struct rp_acct_cfg c;
		cfg_init(&c);
		c.track_psn = true;
		struct rp_acct *a = make(&c);
		uint8_t buf[256];
		for (uint32_t i = 0; i < 51; i++) {
			uint32_t s = i < 50 ? i : 4;
			struct pkt p = {.flow = 0, .psn = s, .seq = s, .tx_ns = i * 1000, .probe = true};
			size_t n = data_frame(buf, sizeof(buf), &p);
			bool bad = i < 50 && i % 5 == 4;
			if (bad)
				buf[n - 4 - 8] ^= 0x01; /* a payload byte (the probe is the payload's first 24) */
			assert_int_equal(rp_acct_rx(a, 0, i * 1000 + 500, buf, n, n, NULL), bad ? RP_RX_ICRC_BAD : RP_RX_DATA);
			if (i == 49) { /* before the resend: all 10 lost, the tail too */
				struct rp_acct_flow_result r;
				rp_acct_flow(a, 0, &r);
				assert_int_equal(r.rx_packets, 40);
				assert_int_equal(r.icrc_bad, 10);
			}
		}
		uint64_t tx[2] = {50, 0};
		rp_acct_finish(a, 100000, with_tx ? tx : NULL);
		struct rp_acct_flow_result r;
		rp_acct_flow(a, 0, &r);
		assert_int_equal(r.rx_packets, 41);
		assert_int_equal(r.icrc_bad, 10);
		assert_int_equal(r.lost, 9);
		assert_int_equal(r.reordered, 1);
		assert_int_equal(r.rx_payload_bytes, 41 * 64);
		assert_int_equal(r.latency_ns.count, 41);
		struct rp_acct_qp_result q;
		rp_acct_qp(a, 0, 0, &q);
		assert_int_equal(q.psn.missing, 9); /* 10 holes, PSN 4 filled */
		assert_int_equal(q.psn.packets, 41);
		struct rp_acct_port_result pr;
		rp_acct_port(a, 0, &pr);
		assert_int_equal(pr.icrc_bad, 10);
		assert_int_equal(pr.class_frames[RP_RX_ICRC_BAD], 10);
		assert_int_equal(pr.class_frames[RP_RX_DATA], 41);
		assert_int_equal(pr.rx_frames, 51);
		rp_acct_destroy(a);
	}
}

/* 11 frames of 64 B payload 1000 ns apart, in a run of 1 ms: over the run
 * 11 x 512 bit / 1 ms = 0.005632 Gbit/s; over the active span (10 us, ten
 * gaps of 1000 ns) 512 bit / 1000 ns = 0.512 Gbit/s. */
static void goodput_over_the_active_span(void **state)
{
	(void)state;
	struct rp_acct_cfg c;
	cfg_init(&c);
	struct rp_acct *a = make(&c);
	for (uint32_t i = 0; i < 11; i++) {
		struct pkt p = {.flow = 0, .psn = i, .seq = i, .tx_ns = 100000 + i * 1000, .probe = true};
		feed(a, 100500 + i * 1000, &p, NULL);
	}
	rp_acct_finish(a, 1000000, NULL);
	struct rp_acct_flow_result r;
	rp_acct_flow(a, 0, &r);
	assert_int_equal(r.active_ns, 10000);
	assert_true(r.goodput_gbps > 0.005631 && r.goodput_gbps < 0.005633);
	assert_true(r.goodput_active_gbps > 0.5119 && r.goodput_active_gbps < 0.5121);
	rp_acct_destroy(a);
}

/* The finish closes the accountant into a plain result (acct_result.h):
 * flow 0 sends seq 0..9, seq 3 dropped on purpose, each 2000 ns late; the
 * getters read the live flows before and the result after. A results_only
 * accountant is a merge target: the plan's names, zero counters. */
static void the_result_of_a_finish(void **state)
{
	(void)state;
	struct rp_acct_cfg c;
	cfg_init(&c);
	struct rp_acct *a = make(&c);
	for (uint64_t i = 0; i < 10; i++) {
		if (i == 3)
			continue;
		struct pkt p = {.flow = 0, .psn = (uint32_t)i, .seq = i, .tx_ns = 100000 + i * 1000, .probe = true};
		assert_int_equal(feed(a, p.tx_ns + 2000, &p, NULL), RP_RX_DATA);
	}
	struct rp_acct_flow_result r;
	assert_null(rp_acct_result(a));
	assert_null(rp_acct_merged(a)); /* a live accountant is no merge target */
	rp_acct_flow(a, 0, &r);
	assert_int_equal(r.rx_packets, 9);
	uint64_t tx[2] = {10, 0};
	rp_acct_finish(a, 1000000, tx);
	const struct rp_acct_result *res = rp_acct_result(a);
	assert_non_null(res);
	assert_int_equal(res->nflows, 2);
	assert_int_equal(res->nports, 1);
	assert_int_equal(res->start_ns, 0);
	assert_int_equal(res->end_ns, 1000000);
	assert_int_equal(res->bin_ns, 100000); /* RP_TS_BIN_NS */
	assert_true(res->finished && !res->discovered);
	assert_int_equal(rp_acct_result_id(res, 0), 0);
	assert_string_equal(rp_acct_result_src(res, 0), "h1");
	const struct rp_acct_flow_result *w = rp_acct_result_flow(res, 0);
	assert_string_equal(w->dst, "rx");
	assert_int_equal(w->rx_packets, 9);
	assert_int_equal(w->lost, 1); /* 10 sent - 9 received */
	const struct rp_shist *lat = rp_acct_result_lat(res, 0);
	assert_int_equal(lat->count, 9);
	assert_int_equal(lat->min, 2000);
	assert_int_equal(lat->max, 2000);
	assert_int_equal(res->agg.count, 9);
	assert_int_equal(rp_acct_result_flow(res, 1)->rx_packets, 0);
	assert_string_equal(res->ports[0].node, "rx");
	assert_int_equal(res->ports[0].rx_frames, 9);
	assert_int_equal(res->ports[0].class_frames[RP_RX_DATA], 9);
	assert_int_equal(res->ports[0].prio[5].prio, 5);
	/* the result views the flows' own rows: the getters read the same, no copy */
	assert_ptr_equal(rp_acct_flow_latency_sparse(a, 0), lat);
	assert_int_equal(rp_acct_flow_latency(a, 0)->count, 9);
	rp_acct_flow(a, 0, &r);
	assert_int_equal(r.lost, 1);
	assert_int_equal(rp_acct_result_index(res, 1), 1);
	assert_int_equal(rp_acct_result_index(res, 7), -1);
	rp_acct_destroy(a);

	c.results_only = true;
	struct rp_acct *m = make(&c);
	assert_null(rp_acct_result(m)); /* until rp_acct_merge_done */
	struct rp_acct_result *t = rp_acct_merged(m);
	assert_non_null(t);
	assert_int_equal(t->nflows, 2);
	assert_int_equal(rp_acct_result_id(t, 1), 1);
	assert_string_equal(rp_acct_result_src(t, 1), "h2");
	assert_int_equal(rp_acct_result_flow(t, 1)->rx_packets, 0);
	assert_int_equal(t->ports[0].speed_bps, G100);
	assert_int_equal(t->ports[0].prio[7].prio, 7);
	assert_ptr_equal(rp_acct_timeseries(m), t->ts);
	rp_acct_destroy(m);

	char err[128];
	struct rp_acct_result none;
	c.results_only = false;
	c.discover = true;
	assert_int_equal(rp_acct_result_init(&none, &c, err, sizeof(err)), -1);
	assert_string_equal(err, "a merged (results_only) accountant has the plan's flows, not discovery");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(delay_shifts_latency),
		cmocka_unit_test(drops_and_ce_exact),
		cmocka_unit_test(in_flight_not_lost),
		cmocka_unit_test(receiver_replies),
		cmocka_unit_test(pfc_through_the_accountant),
		cmocka_unit_test(pause_to_expiry_past_the_end),
		cmocka_unit_test(discovery_without_probes),
		cmocka_unit_test(malformed_and_other),
		cmocka_unit_test(misdelivered_not_received),
		cmocka_unit_test(bad_icrc_not_received),
		cmocka_unit_test(goodput_over_the_active_span),
		cmocka_unit_test(verbs_messages),
		cmocka_unit_test(the_result_of_a_finish),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
