/* The emulated switch, one behaviour at a time, against hand-computed
 * answers: forwarding, classification, PFC received, strict priority, DWRR,
 * lossy tail drop, lossless headroom, ECN rewriting, counters, time series. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "fabric/cells.h"
#include "fabric/switch.h"
#include "wire/frame.h"

#define G100 100000000000ull
#define G10 10000000000ull
#define BIG 16384

static const uint8_t mac_a[6] = {0x02, 0, 0, 0, 0, 0x0a};
static const uint8_t mac_b[6] = {0x02, 0, 0, 0, 0, 0x0b};
static uint8_t out[BIG];

/* Ethernet + IPv4 header + zero payload, len bytes (no FCS). */
static size_t ip_frame(uint8_t *buf, size_t len, const uint8_t dst[6], uint8_t dscp, uint8_t ecn)
{
	struct rp_eth e = {.src = {0x02, 0, 0, 0, 0, 0x99}, .ethertype = RP_ETHERTYPE_IPV4};
	memcpy(e.dst, dst, 6);
	memset(buf, 0, len);
	size_t h = rp_eth_build(buf, len, &e);
	struct rp_ipv4 ip = {.dscp = dscp, .ecn = ecn, .total_len = (uint16_t)(len - h), .ttl = 64,
			     .proto = RP_IPPROTO_UDP, .src = 0x0A000001, .dst = 0x0A000002};
	rp_ipv4_build(buf + h, len - h, &ip);
	return len;
}

static size_t pfc_frame(uint8_t *buf, uint8_t enable, unsigned prio, uint16_t quanta)
{
	uint16_t q[RP_PFC_PRIOS] = {0};
	q[prio] = quanta;
	return rp_pfc_frame_build(buf, 64, mac_a, enable, q);
}

/* All lossy, no RED, no strict queues, big static limits: a plain switch
 * each test then bends. */
static void plain_cfg(struct rp_switch_cfg *c, unsigned nports, uint64_t rate)
{
	rp_switch_cfg_default(c, nports, rate);
	c->lossless_mask = 0;
	c->strict_mask = 0;
	for (unsigned t = 0; t < RP_SWITCH_TCS; t++) {
		c->queue[t].red = false;
		c->queue[t].limit = (struct rp_thresh){.bytes = 4u << 20};
	}
}

static struct rp_switch *make(const struct rp_switch_cfg *c)
{
	char err[160] = "";
	int rc = rp_switch_cfg_check(c, err, sizeof(err));
	if (rc)
		print_error("cfg: %s\n", err);
	assert_int_equal(rc, 0);
	struct rp_switch *sw = rp_switch_create(c);
	assert_non_null(sw);
	return sw;
}

static void ingress_ok(struct rp_switch *sw, uint64_t t, unsigned in, const uint8_t *f, size_t len, int outp,
		       struct rp_switch_rx *rx)
{
	assert_int_equal(rp_switch_ingress(sw, t, in, f, len, outp, rx), 0);
}

/* ---- forwarding and classification ---- */

static void fdb_forwards_and_classifies(void **state)
{
	(void)state;
	struct rp_switch_cfg c;
	plain_cfg(&c, 3, G100);
	struct rp_switch *sw = make(&c);
	uint8_t f[1500];
	struct rp_switch_rx rx;

	assert_int_equal(rp_switch_fdb_add(sw, mac_a, 1), 0);
	assert_int_equal(rp_switch_fdb_add(sw, mac_b, 2), 0);
	assert_int_equal(rp_switch_fdb_add(sw, mac_b, 3), -1); /* no port 3 */
	assert_int_equal(rp_switch_fdb_lookup(sw, mac_b), 2);

	ingress_ok(sw, 0, 0, f, ip_frame(f, 1000, mac_b, 26, RP_ECN_ECT0), -1, &rx);
	assert_int_equal(rx.verdict, RP_SW_QUEUED);
	assert_int_equal(rx.out_port, 2);
	assert_int_equal(rx.tc, 3); /* DSCP 26 >> 3 */
	assert_int_equal(rx.kick, 1ull << 2);

	const uint8_t stranger[6] = {0x02, 1, 2, 3, 4, 5};
	ingress_ok(sw, 0, 0, f, ip_frame(f, 1000, stranger, 0, 0), -1, &rx);
	assert_int_equal(rx.verdict, RP_SW_DROPPED);
	assert_int_equal(rx.drop, RP_DROP_NO_ROUTE);
	ingress_ok(sw, 0, 0, f, ip_frame(f, 1000, stranger, 0, 0), 1, &rx); /* caller-chosen port wins */
	assert_int_equal(rx.out_port, 1);
	ingress_ok(sw, 0, 0, f, 59, 1, &rx);
	assert_int_equal(rx.drop, RP_DROP_MALFORMED);
	assert_int_equal(rp_switch_ingress(sw, 0, 3, f, 100, 1, &rx), -1);

	struct rp_switch_port_stats ps;
	rp_switch_port_stats(sw, 0, &ps);
	assert_int_equal(ps.rx_pkts, 4);
	assert_int_equal(ps.drop_pkts[RP_DROP_NO_ROUTE], 1);
	assert_int_equal(ps.drop_pkts[RP_DROP_MALFORMED], 1);
	assert_string_equal(rp_switch_drop_name(RP_DROP_HEADROOM), "headroom");

	/* The frame leaves unchanged, at line rate: (1000 + 24) * 8 / 100G = 81.92 ns. */
	struct rp_switch_tx tx;
	assert_int_equal(rp_switch_next_tx(sw, 2, 100, out, sizeof(out), &tx), 1);
	assert_int_equal(tx.kind, RP_TX_DATA);
	assert_int_equal(tx.len, 1000);
	assert_int_equal(tx.start_ns, 100);
	assert_int_equal(tx.end_ns, 181);
	assert_int_equal(tx.arrive_ns, 181 + c.port[2].prop_ns);
	assert_false(tx.ce);
	ip_frame(f, 1000, mac_b, 26, RP_ECN_ECT0);
	assert_memory_equal(out, f, 1000);
	assert_int_equal(rp_switch_next_tx(sw, 2, 181, out, sizeof(out), &tx), 0);
	assert_int_equal(rp_switch_next_event_ns(sw, 2, 181), RP_SWITCH_NEVER);
	rp_switch_destroy(sw);
}

static void pcp_is_trusted_when_asked(void **state)
{
	(void)state;
	struct rp_switch_cfg c;
	plain_cfg(&c, 2, G100);
	c.trust_pcp = true;
	struct rp_switch *sw = make(&c);
	uint8_t f[256];
	struct rp_eth e = {.has_vlan = true, .pcp = 5, .vid = 10, .ethertype = RP_ETHERTYPE_IPV4};
	memcpy(e.dst, mac_b, 6);
	memset(f, 0, sizeof(f));
	size_t h = rp_eth_build(f, sizeof(f), &e);
	struct rp_ipv4 ip = {.dscp = 26, .total_len = 200, .ttl = 1, .proto = 17};
	rp_ipv4_build(f + h, sizeof(f) - h, &ip);
	struct rp_switch_rx rx;
	ingress_ok(sw, 0, 0, f, h + 200, 1, &rx);
	assert_int_equal(rx.tc, 5);
	ingress_ok(sw, 0, 0, f, ip_frame(f, 200, mac_b, 26, 0), 1, &rx); /* untagged: DSCP */
	assert_int_equal(rx.tc, 3);
	rp_switch_destroy(sw);
}

static void bad_configs_are_named(void **state)
{
	(void)state;
	struct rp_switch_cfg c;
	char err[160];
	rp_switch_cfg_default(&c, 4, G100);
	assert_int_equal(rp_switch_cfg_check(&c, err, sizeof(err)), 0);
	c.queue[3].kmin = 300000;
	assert_int_equal(rp_switch_cfg_check(&c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "RED"));
	assert_null(rp_switch_create(&c));
	rp_switch_cfg_default(&c, 4, G100);
	c.port[0].headroom[3] = c.buffer_bytes;
	assert_int_equal(rp_switch_cfg_check(&c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "headroom"));
	rp_switch_cfg_default(&c, 4, G100);
	c.queue[0].weight = 0;
	assert_int_equal(rp_switch_cfg_check(&c, err, sizeof(err)), -1);
	rp_switch_cfg_default(&c, 0, G100);
	assert_int_equal(rp_switch_cfg_check(&c, err, sizeof(err)), -1);
}

/* ---- PFC received ---- */

/* Port 1 holds 3 frames on queue 3 and 3 on queue 1. PFC for priority 3,
 * 1000 quanta at 100G = 5120 ns, arrives at 1000: queue 1 drains, queue 3
 * waits exactly until 6120, then goes. */
static void received_pfc_pauses_exactly_the_named_queue(void **state)
{
	(void)state;
	struct rp_switch_cfg c;
	plain_cfg(&c, 2, G100);
	c.lossless_mask = 0x0A; /* priorities 1 and 3 */
	struct rp_switch *sw = make(&c);
	uint8_t f[1500];
	struct rp_switch_rx rx;
	struct rp_switch_tx tx;
	for (int i = 0; i < 3; i++) {
		ingress_ok(sw, 0, 0, f, ip_frame(f, 1000, mac_b, 24, 0), 1, &rx);
		ingress_ok(sw, 0, 0, f, ip_frame(f, 1000, mac_b, 8, 0), 1, &rx);
	}
	ingress_ok(sw, 1000, 1, f, pfc_frame(f, 0x08, 3, 1000), -1, &rx);
	assert_int_equal(rx.verdict, RP_SW_CONSUMED);
	assert_int_equal(rx.pfc_prios, 0x08);
	assert_int_equal(rx.kick, 1ull << 1);

	uint64_t t = 1000;
	for (int i = 0; i < 3; i++) {
		assert_int_equal(rp_switch_next_tx(sw, 1, t, out, sizeof(out), &tx), 1);
		assert_int_equal(tx.tc, 1);
		t = tx.end_ns;
	}
	assert_int_equal(rp_switch_next_tx(sw, 1, t, out, sizeof(out), &tx), 0);
	assert_int_equal(rp_switch_next_event_ns(sw, 1, t), 6120);
	assert_int_equal(rp_switch_next_tx(sw, 1, 6119, out, sizeof(out), &tx), 0);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(rp_switch_next_tx(sw, 1, i ? tx.end_ns : 6120, out, sizeof(out), &tx), 1);
		assert_int_equal(tx.tc, 3);
	}
	struct rp_switch_queue_stats q3, q1;
	rp_switch_queue_stats(sw, 1, 3, 100000, &q3);
	rp_switch_queue_stats(sw, 1, 1, 100000, &q1);
	assert_int_equal(q3.paused_ns, 5120);
	assert_int_equal(q3.pfc_rx, 1);
	assert_int_equal(q1.paused_ns, 0);
	assert_int_equal(q1.pfc_rx, 0);
	struct rp_switch_port_stats ps;
	rp_switch_port_stats(sw, 1, &ps);
	assert_int_equal(ps.pfc_rx, 1);
	rp_switch_destroy(sw);
}

/* The PFC watchdog (watchdog.c). 100G, lossless 3, detect 10 us, restore
 * 20 us. At 0 a PFC of 65535 quanta pauses queue 3 of port 1 until 335539 ns
 * (65535 x 512 bits / 100 Gbit/s = 335539.2 ns); at 100 a frame for it arrives. Held
 * paused with a frame since 100, the storm is declared at 100 + 10000 =
 * 10100: the frame goes then, not at 335539. A PFC at 15000 keeps the storm
 * (a frame at 20000 goes at once); at 40000, 25000 ns after the last PFC
 * (>= 20000), PFC is honoured again and a new frame waits. */
static void watchdog_forwards_a_storm_and_restores(void **state)
{
	(void)state;
	struct rp_switch_cfg c;
	plain_cfg(&c, 2, G100);
	c.lossless_mask = 0x08;
	c.wd_detect_ns = 10000;
	c.wd_restore_ns = 20000;
	struct rp_switch *sw = make(&c);
	uint8_t f[1500];
	struct rp_switch_rx rx;
	struct rp_switch_tx tx;
	struct rp_switch_queue_stats q;
	ingress_ok(sw, 0, 1, f, pfc_frame(f, 0x08, 3, 0xFFFF), -1, &rx);
	ingress_ok(sw, 100, 0, f, ip_frame(f, 1000, mac_b, 24, 0), 1, &rx);
	assert_int_equal(rp_switch_next_tx(sw, 1, 100, out, sizeof(out), &tx), 0);
	assert_int_equal(rp_switch_next_event_ns(sw, 1, 100), 10100);
	assert_int_equal(rp_switch_next_tx(sw, 1, 10099, out, sizeof(out), &tx), 0);
	rp_switch_queue_stats(sw, 1, 3, 10099, &q);
	assert_int_equal(q.wd_storms, 0);
	assert_true(q.wd_first_ns == RP_SWITCH_NEVER);
	assert_int_equal(rp_switch_next_tx(sw, 1, 10100, out, sizeof(out), &tx), 1);
	assert_int_equal(tx.tc, 3);
	rp_switch_queue_stats(sw, 1, 3, 10100, &q);
	assert_int_equal(q.wd_storms, 1);
	assert_int_equal(q.wd_first_ns, 10100);
	ingress_ok(sw, 15000, 1, f, pfc_frame(f, 0x08, 3, 0xFFFF), -1, &rx);
	ingress_ok(sw, 20000, 0, f, ip_frame(f, 1000, mac_b, 24, 0), 1, &rx);
	assert_int_equal(rp_switch_next_tx(sw, 1, 20000, out, sizeof(out), &tx), 1);
	ingress_ok(sw, 40000, 0, f, ip_frame(f, 1000, mac_b, 24, 0), 1, &rx);
	assert_int_equal(rp_switch_next_tx(sw, 1, 40000, out, sizeof(out), &tx), 0);
	rp_switch_queue_stats(sw, 1, 3, 40000, &q);
	assert_int_equal(q.wd_restored, 1);
	assert_int_equal(q.wd_storms, 1);
	/* without a watchdog the same frame waits for the whole pause */
	c.wd_detect_ns = 0;
	struct rp_switch *plain = make(&c);
	ingress_ok(plain, 0, 1, f, pfc_frame(f, 0x08, 3, 0xFFFF), -1, &rx);
	ingress_ok(plain, 100, 0, f, ip_frame(f, 1000, mac_b, 24, 0), 1, &rx);
	assert_int_equal(rp_switch_next_tx(plain, 1, 100, out, sizeof(out), &tx), 0);
	assert_int_equal(rp_switch_next_event_ns(plain, 1, 100), 335539);
	rp_switch_destroy(plain);
	rp_switch_destroy(sw);
}

/* XON ends the pause at once; a priority that is not PFC-enabled ignores PFC. */
static void xon_resumes_and_lossy_priorities_ignore_pfc(void **state)
{
	(void)state;
	struct rp_switch_cfg c;
	plain_cfg(&c, 2, G100);
	c.lossless_mask = 0x08;
	struct rp_switch *sw = make(&c);
	uint8_t f[1500];
	struct rp_switch_rx rx;
	struct rp_switch_tx tx;
	ingress_ok(sw, 0, 0, f, ip_frame(f, 1000, mac_b, 24, 0), 1, &rx);
	ingress_ok(sw, 0, 0, f, ip_frame(f, 1000, mac_b, 0, 0), 1, &rx);
	ingress_ok(sw, 10, 1, f, pfc_frame(f, 0x09, 3, 0xFFFF), -1, &rx);
	assert_int_equal(rx.pfc_prios, 0x08); /* priority 0 named but not enabled */
	ingress_ok(sw, 10, 1, f, pfc_frame(f, 0x01, 0, 0xFFFF), -1, &rx);
	assert_int_equal(rx.pfc_prios, 0);
	assert_int_equal(rp_switch_next_tx(sw, 1, 20, out, sizeof(out), &tx), 1);
	assert_int_equal(tx.tc, 0);
	assert_int_equal(rp_switch_next_tx(sw, 1, tx.end_ns, out, sizeof(out), &tx), 0);
	ingress_ok(sw, 500, 1, f, pfc_frame(f, 0x08, 3, 0), -1, &rx);
	assert_int_equal(rx.kick, 1ull << 1);
	assert_int_equal(rp_switch_next_event_ns(sw, 1, 500), 500);
	assert_int_equal(rp_switch_next_tx(sw, 1, 500, out, sizeof(out), &tx), 1);
	assert_int_equal(tx.tc, 3);
	struct rp_switch_queue_stats q3;
	rp_switch_queue_stats(sw, 1, 3, 1000, &q3);
	assert_int_equal(q3.paused_ns, 490);
	rp_switch_destroy(sw);
}

/* ---- scheduler ---- */

/* Weights 1:2:5 over frames of 1000, 1500 and 300 bytes, every queue kept
 * backlogged: bytes sent share 1/8, 2/8, 5/8 within 1%. */
static void dwrr_shares_bytes_by_weight(void **state)
{
	(void)state;
	struct rp_switch_cfg c;
	plain_cfg(&c, 2, G100);
	c.queue[0].weight = 1;
	c.queue[1].weight = 2;
	c.queue[2].weight = 5;
	c.dwrr_quantum = 1500;
	struct rp_switch *sw = make(&c);
	const size_t len[3] = {1000, 1500, 300};
	uint8_t f[3][1500];
	struct rp_switch_rx rx;
	struct rp_switch_tx tx;
	for (int q = 0; q < 3; q++) {
		ip_frame(f[q], len[q], mac_b, (uint8_t)(q << 3), 0);
		for (int i = 0; i < 20; i++)
			ingress_ok(sw, 0, 0, f[q], len[q], 1, &rx);
	}
	uint64_t bytes[3] = {0}, t = 0, total = 0;
	for (int i = 0; i < 100000; i++) {
		assert_int_equal(rp_switch_next_tx(sw, 1, t, out, sizeof(out), &tx), 1);
		bytes[tx.tc] += tx.len;
		total += tx.len;
		t = tx.end_ns;
		ingress_ok(sw, t, 0, f[tx.tc], len[tx.tc], 1, &rx); /* stay backlogged */
	}
	const double w[3] = {1.0 / 8, 2.0 / 8, 5.0 / 8};
	for (int q = 0; q < 3; q++) {
		double share = (double)bytes[q] / (double)total;
		assert_true(share > w[q] * 0.99 && share < w[q] * 1.01);
	}
	rp_switch_destroy(sw);
}

/* Queue 6 strict and always backlogged: DWRR queues get nothing; once it
 * empties they run. */
static void strict_priority_starves_lower_queues(void **state)
{
	(void)state;
	struct rp_switch_cfg c;
	plain_cfg(&c, 2, G100);
	c.strict_mask = 0x40;
	struct rp_switch *sw = make(&c);
	uint8_t f6[500], f0[500];
	struct rp_switch_rx rx;
	struct rp_switch_tx tx;
	ip_frame(f6, 500, mac_b, 48, 0);
	ip_frame(f0, 500, mac_b, 0, 0);
	for (int i = 0; i < 10; i++) {
		ingress_ok(sw, 0, 0, f0, 500, 1, &rx);
		ingress_ok(sw, 0, 0, f6, 500, 1, &rx);
	}
	uint64_t t = 0;
	for (int i = 0; i < 1000; i++) {
		assert_int_equal(rp_switch_next_tx(sw, 1, t, out, sizeof(out), &tx), 1);
		assert_int_equal(tx.tc, 6);
		t = tx.end_ns;
		ingress_ok(sw, t, 0, f6, 500, 1, &rx);
	}
	for (int i = 0; i < 10; i++) { /* stop feeding queue 6: it drains first */
		assert_int_equal(rp_switch_next_tx(sw, 1, t, out, sizeof(out), &tx), 1);
		assert_int_equal(tx.tc, 6);
		t = tx.end_ns;
	}
	assert_int_equal(rp_switch_next_tx(sw, 1, t, out, sizeof(out), &tx), 1);
	assert_int_equal(tx.tc, 0);
	struct rp_switch_queue_stats q0;
	rp_switch_queue_stats(sw, 1, 0, t, &q0);
	assert_int_equal(q0.depth_pkts, 9);
	rp_switch_destroy(sw);
}

/* ---- lossy tail drop ---- */

/* 10G ports, 1226-byte frames: (1226 + 24) * 8 / 10G = 1000 ns each. Ports 0
 * and 1 each offer line rate into port 2 for 1 ms (1000 frames each), which
 * drains one frame per 1000 ns; queue limit 100 frames. After step k the
 * queue holds k + 1 frames until it would pass 100: from step 99 on, each
 * step's second frame is dropped, so 901 drops; 1000 frames drained, 99 left.
 * drops == offered - drained - left, to the byte. */
static void lossy_tail_drop_is_exact(void **state)
{
	(void)state;
	const size_t L = 1226;
	struct rp_switch_cfg c;
	plain_cfg(&c, 3, G10);
	c.queue[0].limit = (struct rp_thresh){.bytes = 100 * L};
	struct rp_switch *sw = make(&c);
	uint8_t f[1500];
	struct rp_switch_rx rx;
	struct rp_switch_tx tx;
	ip_frame(f, L, mac_b, 0, 0);
	uint64_t offered = 0, drained = 0, dropped = 0;
	for (uint64_t k = 0; k < 1000; k++) {
		uint64_t t = k * 1000;
		for (unsigned in = 0; in < 2; in++) {
			ingress_ok(sw, t, in, f, L, 2, &rx);
			offered += L;
			if (rx.verdict == RP_SW_DROPPED) {
				assert_int_equal(rx.drop, RP_DROP_TAIL);
				dropped += L;
			}
		}
		assert_int_equal(rp_switch_next_tx(sw, 2, t, out, sizeof(out), &tx), 1);
		assert_int_equal(tx.end_ns, t + 1000);
		drained += tx.len;
	}
	struct rp_switch_queue_stats q;
	rp_switch_queue_stats(sw, 2, 0, 1000000, &q);
	assert_int_equal(dropped, 901 * L);
	assert_int_equal(drained, 1000 * L);
	assert_int_equal(q.depth_bytes, 99 * L);
	assert_int_equal(offered, 2000 * L);
	assert_int_equal(q.drop_bytes[RP_DROP_TAIL], 901 * L); /* 2000 L offered - 1000 L drained - 99 L left */
	assert_int_equal(q.drop_pkts[RP_DROP_TAIL], 901);
	assert_int_equal(q.max_depth_bytes, 100 * L);
	assert_int_equal(q.tx_bytes, 1000 * L);
	rp_switch_destroy(sw);
}

/* Dynamic threshold, alpha 1, shared pool of 10 frames, nothing draining: a
 * frame is admitted while depth + L <= (S - depth), i.e. depth <= 4.5 L:
 * exactly 5 frames stay. */
static void dynamic_threshold_known_answer(void **state)
{
	(void)state;
	const size_t L = 1000;
	struct rp_switch_cfg c;
	plain_cfg(&c, 2, G100);
	c.buffer_bytes = 10 * L;
	c.queue[0].limit = (struct rp_thresh){.dynamic = true, .alpha = 1.0};
	struct rp_switch *sw = make(&c);
	uint8_t f[1500];
	struct rp_switch_rx rx;
	ip_frame(f, L, mac_b, 0, 0);
	unsigned queued = 0;
	for (int i = 0; i < 20; i++) {
		ingress_ok(sw, 0, 0, f, L, 1, &rx);
		queued += rx.verdict == RP_SW_QUEUED;
	}
	assert_int_equal(queued, 5);
	struct rp_switch_buffer_stats b;
	rp_switch_buffer_stats(sw, &b);
	assert_int_equal(b.shared_used, 5 * L);
	assert_int_equal(b.pkts, 5);
	rp_switch_destroy(sw);
}

/* ---- lossless: threshold, headroom, XOFF and XON frames ---- */

/* XOFF at 10 frames, headroom 3 frames, nothing draining: frames 1-10 go to
 * the shared pool (the 10th reaches the threshold: XOFF), 11-13 to headroom,
 * 14-20 are headroom overflows. The XOFF leaves on the ingress port ahead of
 * everything, from the port's MAC; draining to XON level sends quanta 0. */
static void lossless_headroom_and_pfc_frames(void **state)
{
	(void)state;
	const size_t L = 1000;
	struct rp_switch_cfg c;
	plain_cfg(&c, 2, G100);
	c.lossless_mask = 0x08;
	c.pg[3].xoff = (struct rp_thresh){.bytes = 10 * L};
	c.pg[3].xon_delta = 4 * L;
	c.port[0].headroom[3] = 3 * L;
	c.port[1].headroom[3] = 3 * L;
	c.pfc_quanta = 1000;
	struct rp_switch *sw = make(&c);
	uint8_t f[1500];
	struct rp_switch_rx rx;
	struct rp_switch_tx tx;
	ip_frame(f, L, mac_b, 24, 0);
	unsigned shared = 0, hdrm = 0, drops = 0;
	for (int i = 1; i <= 20; i++) {
		ingress_ok(sw, 0, 0, f, L, 1, &rx);
		if (rx.verdict == RP_SW_DROPPED) {
			assert_int_equal(rx.drop, RP_DROP_HEADROOM);
			drops++;
		} else if (rx.headroom) {
			hdrm++;
		} else {
			shared++;
		}
		if (i == 10) {
			assert_int_equal(rx.xoff, 0x08);
			assert_int_equal(rx.kick, (1ull << 0) | (1ull << 1));
		} else {
			assert_int_equal(rx.xoff, 0);
		}
	}
	assert_int_equal(shared, 10);
	assert_int_equal(hdrm, 3);
	assert_int_equal(drops, 7);

	assert_int_equal(rp_switch_next_event_ns(sw, 0, 0), 0);
	assert_int_equal(rp_switch_next_tx(sw, 0, 0, out, sizeof(out), &tx), 1);
	assert_int_equal(tx.kind, RP_TX_PFC);
	assert_int_equal(tx.len, 60);
	assert_int_equal(tx.pfc_xoff, 0x08);
	struct rp_frame pf;
	assert_int_equal(rp_frame_parse(out, tx.len, tx.len, &pf), RP_KIND_PFC);
	assert_memory_equal(pf.eth.src, c.port[0].mac, 6);
	assert_int_equal(pf.macctl.enable, 0x08);
	assert_int_equal(pf.macctl.quanta[3], 1000);
	/* refresh due at half of 5120 ns */
	assert_int_equal(rp_switch_next_event_ns(sw, 0, tx.end_ns), 2560);

	/* Drain port 1: 13 frames held; XON at <= 6 frames held, i.e. at the 7th dequeue. */
	uint64_t t = 0, xon_at = 0;
	for (int i = 1; i <= 7; i++) {
		assert_int_equal(rp_switch_next_tx(sw, 1, t, out, sizeof(out), &tx), 1);
		t = tx.end_ns;
		assert_int_equal(tx.kick, i == 7 ? 1ull << 0 : 0);
		xon_at = tx.start_ns; /* decided as the 7th frame starts leaving */
	}
	struct rp_switch_pg_stats pg;
	rp_switch_pg_stats(sw, 0, 3, t, &pg);
	assert_false(pg.xoff);
	assert_int_equal(pg.max_bytes, 13 * L);
	assert_int_equal(pg.max_headroom_bytes, 3 * L);
	assert_int_equal(pg.bytes, 6 * L);
	assert_int_equal(pg.headroom_bytes, 0); /* headroom was given back first */
	assert_int_equal(pg.drop_pkts, 7);
	assert_int_equal(pg.first_xoff_ns, 0);
	assert_int_equal(rp_switch_next_tx(sw, 0, t, out, sizeof(out), &tx), 1);
	assert_int_equal(tx.kind, RP_TX_PFC);
	assert_int_equal(tx.pfc_xon, 0x08);
	assert_int_equal(rp_frame_parse(out, tx.len, tx.len, &pf), RP_KIND_PFC);
	assert_int_equal(pf.macctl.enable, 0x08);
	assert_int_equal(pf.macctl.quanta[3], 0);
	rp_switch_pg_stats(sw, 0, 3, t, &pg);
	assert_int_equal(pg.xoff_sent, 1);
	assert_int_equal(pg.xon_sent, 1);
	assert_int_equal(pg.xoff_ns, xon_at);
	assert_int_equal(rp_switch_next_event_ns(sw, 0, tx.end_ns), RP_SWITCH_NEVER);
	rp_switch_destroy(sw);
}

/* Dynamic XOFF, alpha 1, shared pool of 10 frames (headroom carved out of
 * the buffer first): the PG takes a frame into shared while it holds
 * <= (S - L) / 2, so 5 frames; after the 5th the threshold alpha x free is
 * 5 frames too: XOFF there, and the 6th goes to headroom. */
static void dynamic_xoff_known_answer(void **state)
{
	(void)state;
	const size_t L = 1000;
	struct rp_switch_cfg c;
	plain_cfg(&c, 2, G100);
	c.lossless_mask = 0x08;
	c.pg[3].xoff = (struct rp_thresh){.dynamic = true, .alpha = 1.0};
	c.port[0].headroom[3] = 2 * L;
	c.port[1].headroom[3] = 2 * L;
	c.buffer_bytes = 14 * L;
	struct rp_switch *sw = make(&c);
	uint8_t f[1500];
	struct rp_switch_rx rx;
	ip_frame(f, L, mac_b, 24, 0);
	for (int i = 1; i <= 8; i++) {
		ingress_ok(sw, 0, 0, f, L, 1, &rx);
		assert_int_equal(rx.xoff, i == 5 ? 0x08 : 0);
		assert_int_equal(rx.verdict, i <= 7 ? RP_SW_QUEUED : RP_SW_DROPPED);
		assert_int_equal(rx.headroom, i == 6 || i == 7);
	}
	struct rp_switch_buffer_stats b;
	rp_switch_buffer_stats(sw, &b);
	assert_int_equal(b.shared_size, 10 * L);
	assert_int_equal(b.shared_used, 5 * L);
	assert_int_equal(b.headroom_used, 2 * L);
	rp_switch_destroy(sw);
}

/* XOFF decided while the port toward the peer is busy, withdrawn (XON level
 * reached) before that transmitter frees: the peer was never told, so no
 * PFC frame at all. */
static void xoff_withdrawn_before_sent_sends_nothing(void **state)
{
	(void)state;
	const size_t L = 1000;
	struct rp_switch_cfg c;
	plain_cfg(&c, 2, G100);
	c.lossless_mask = 0x08;
	c.pg[3].xoff = (struct rp_thresh){.bytes = 2 * L};
	c.pg[3].xon_delta = L;
	c.port[0].headroom[3] = 4 * L;
	struct rp_switch *sw = make(&c);
	uint8_t f[1500], g[9216];
	struct rp_switch_rx rx;
	struct rp_switch_tx tx;
	ip_frame(g, 9000, mac_a, 0, 0); /* keeps port 0 busy for 722 ns */
	ingress_ok(sw, 0, 1, g, 9000, 0, &rx);
	assert_int_equal(rp_switch_next_tx(sw, 0, 0, out, sizeof(out), &tx), 1);
	ip_frame(f, L, mac_b, 24, 0);
	ingress_ok(sw, 10, 0, f, L, 1, &rx);
	ingress_ok(sw, 10, 0, f, L, 1, &rx);
	assert_int_equal(rx.xoff, 0x08);
	assert_int_equal(rp_switch_next_event_ns(sw, 0, 10), tx.end_ns); /* due, but the wire is busy */
	assert_int_equal(rp_switch_next_tx(sw, 1, 20, out, sizeof(out), &tx), 1); /* 1 frame left: XON level */
	assert_int_equal(tx.kick, 0);
	assert_int_equal(rp_switch_next_event_ns(sw, 0, 20), RP_SWITCH_NEVER);
	assert_int_equal(rp_switch_next_tx(sw, 0, 1000, out, sizeof(out), &tx), 0);
	struct rp_switch_pg_stats pg;
	rp_switch_pg_stats(sw, 0, 3, 1000, &pg);
	assert_int_equal(pg.xoff_sent + pg.xon_sent, 0);
	assert_int_equal(pg.first_xoff_ns, 10);
	assert_int_equal(pg.xoff_ns, 10);
	rp_switch_destroy(sw);
}

/* 802.3x PAUSE stops every queue; other MAC control opcodes are consumed
 * and counted. */
static void pause_frame_stops_every_queue(void **state)
{
	(void)state;
	struct rp_switch_cfg c;
	plain_cfg(&c, 2, G100);
	struct rp_switch *sw = make(&c);
	uint8_t f[1500];
	struct rp_switch_rx rx;
	struct rp_switch_tx tx;
	ingress_ok(sw, 0, 0, f, ip_frame(f, 1000, mac_b, 0, 0), 1, &rx);
	ingress_ok(sw, 0, 0, f, ip_frame(f, 1000, mac_b, 56, 0), 1, &rx);
	ingress_ok(sw, 0, 1, f, rp_pause_frame_build(f, sizeof(f), mac_a, 100), -1, &rx); /* 512 ns */
	assert_int_equal(rx.verdict, RP_SW_CONSUMED);
	assert_int_equal(rx.pfc_prios, 0xFF);
	assert_int_equal(rp_switch_next_tx(sw, 1, 0, out, sizeof(out), &tx), 0);
	assert_int_equal(rp_switch_next_event_ns(sw, 1, 0), 512);
	assert_int_equal(rp_switch_next_tx(sw, 1, 512, out, sizeof(out), &tx), 1);
	rp_pfc_frame_build(f, sizeof(f), mac_a, 0, (uint16_t[8]){0});
	f[15] = 0x02; /* opcode 0x0002: not PAUSE, not PFC */
	ingress_ok(sw, 600, 1, f, 60, -1, &rx);
	assert_int_equal(rx.verdict, RP_SW_CONSUMED);
	struct rp_switch_port_stats ps;
	rp_switch_port_stats(sw, 1, &ps);
	assert_int_equal(ps.pause_rx, 1);
	assert_int_equal(ps.macctl_other_rx, 1);
	rp_switch_destroy(sw);
}

/* ---- ECN rewriting ---- */

static size_t roce_frame(uint8_t *buf, uint8_t l3, uint8_t ecn, size_t payload)
{
	struct rp_roce_spec s = {.l3 = l3, .udp_sport = 0xC000};
	memcpy(s.eth.dst, mac_b, 6);
	memcpy(s.eth.src, mac_a, 6);
	s.ip4 = (struct rp_ipv4){.dscp = 26, .ecn = ecn, .ttl = 64, .src = 0x0A000001, .dst = 0x0A000002, .df = true};
	s.ip6 = (struct rp_ipv6){.dscp = 26, .ecn = ecn, .hop_limit = 64, .flow_label = 0x12345};
	s.ip6.src[15] = 1;
	s.ip6.dst[15] = 2;
	s.bth = (struct rp_bth){.opcode = RP_OP_RC_SEND_ONLY, .pkey = 0xFFFF, .dqpn = 0x11, .psn = 7};
	s.payload_len = payload;
	return rp_roce_build(buf, BIG, &s, NULL);
}

/* RED with kmin = kmax = 0 marks every ECT frame that leaves a queue behind
 * it: CE set, IPv4 checksum fixed, ICRC still valid; Not-ECT untouched. */
static void ce_rewrite_keeps_frames_valid(void **state)
{
	(void)state;
	struct rp_switch_cfg c;
	plain_cfg(&c, 2, G100);
	c.queue[3].red = true;
	c.queue[3].kmin = c.queue[3].kmax = 0;
	c.queue[3].pmax = 1.0;
	struct rp_switch *sw = make(&c);
	uint8_t f[BIG];
	struct rp_switch_rx rx;
	struct rp_switch_tx tx;
	struct rp_frame pf;
	const uint8_t kinds[3][2] = {{4, RP_ECN_ECT0}, {6, RP_ECN_ECT1}, {4, RP_ECN_NOT_ECT}};
	for (int k = 0; k < 3; k++) {
		size_t n = roce_frame(f, kinds[k][0], kinds[k][1], 1024);
		ingress_ok(sw, 0, 0, f, n, 1, &rx);
		ingress_ok(sw, 0, 0, f, n, 1, &rx);
		assert_int_equal(rx.tc, 3);
	}
	/* Six frames leave, two of each kind; all but the last have a frame
	 * behind them; the two Not-ECT ones (4, 5) are never marked. */
	static const bool want_ce[6] = {true, true, true, true, false, false};
	uint64_t t = 0;
	for (int i = 0; i < 6; i++) {
		int k = i / 2;
		assert_int_equal(rp_switch_next_tx(sw, 1, t, out, sizeof(out), &tx), 1);
		t = tx.end_ns;
		assert_int_equal(rp_frame_parse(out, tx.len, tx.len, &pf), RP_KIND_ROCE);
		assert_true(pf.icrc_checked && pf.icrc_ok);
		bool want = want_ce[i];
		assert_int_equal(tx.ce, want);
		uint8_t ecn = pf.l3 == 4 ? pf.ip4.ecn : pf.ip6.ecn;
		assert_int_equal(ecn, want ? RP_ECN_CE : kinds[k][1]);
		if (pf.l3 == 4)
			assert_true(pf.ip4.checksum_ok);
		else
			assert_int_equal(pf.ip6.flow_label, 0x12345);
	}
	struct rp_switch_queue_stats q;
	rp_switch_queue_stats(sw, 1, 3, t, &q);
	assert_int_equal(q.ecn_marked, 4);
	rp_switch_destroy(sw);
}

/* ---- storage and series ---- */

static void cells_round_trip_every_size(void **state)
{
	(void)state;
	struct rp_cells cl;
	static uint8_t src[9216], dst[9216];
	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(i * 7 + 3);
	assert_int_equal(rp_cells_init(&cl, 300), 0);
	for (size_t len = 60; len <= 9216; len += 97) {
		uint32_t a = rp_cells_store(&cl, src, len), b = rp_cells_store(&cl, src + 1, len);
		assert_true(a != RP_CELL_NONE && b != RP_CELL_NONE);
		rp_cells_load(&cl, a, dst, len);
		assert_memory_equal(dst, src, len);
		rp_cells_release(&cl, a, len);
		rp_cells_load(&cl, b, dst, len);
		assert_memory_equal(dst, src + 1, len);
		rp_cells_release(&cl, b, len);
		assert_int_equal(cl.nfree, 300);
	}
	assert_int_equal(rp_cells_store(&cl, src, 64 * 301), RP_CELL_NONE);
	rp_cells_fini(&cl);
	/* the worst mix fits: 65-byte frames waste nearly a cell each */
	assert_true(rp_cells_needed(65 * 1000, 60) >= 2 * 1000);
}

/* Bins of 1000 ns: depth L from 500, 2L from 2500, L from 3500 (a dequeue):
 * bins 0..6 read L, L, 2L, 2L, L, L, L at 6000. */
static void queue_depth_series_fills_bins(void **state)
{
	(void)state;
	const size_t L = 1000;
	struct rp_switch_cfg c;
	plain_cfg(&c, 2, G100);
	c.qdepth_bin_ns = 1000;
	c.qdepth_bins = 10;
	struct rp_switch *sw = make(&c);
	uint8_t f[1500];
	struct rp_switch_rx rx;
	struct rp_switch_tx tx;
	ip_frame(f, L, mac_b, 0, 0);
	ingress_ok(sw, 500, 0, f, L, 1, &rx);
	ingress_ok(sw, 2500, 0, f, L, 1, &rx);
	const uint64_t *bins;
	assert_int_equal(rp_switch_qdepth_series(sw, 1, 0, 3000, &bins), 4);
	ingress_ok(sw, 3400, 1, f, pfc_frame(f, 0xFF, 0, 0), -1, &rx); /* nothing paused */
	ip_frame(f, L, mac_b, 0, 0);
	/* one leaves at 3500 */
	assert_int_equal(rp_switch_next_tx(sw, 1, 3500, out, sizeof(out), &tx), 1);
	size_t n = rp_switch_qdepth_series(sw, 1, 0, 6000, &bins);
	assert_int_equal(n, 7);
	const uint64_t want[7] = {L, L, 2 * L, 2 * L, L, L, L};
	for (size_t i = 0; i < n; i++)
		assert_int_equal(bins[i], want[i]);
	assert_int_equal(rp_switch_qdepth_series(sw, 1, 0, 50000, &bins), 10);
	assert_int_equal(bins[9], L);
	rp_switch_destroy(sw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fdb_forwards_and_classifies),
		cmocka_unit_test(pcp_is_trusted_when_asked),
		cmocka_unit_test(bad_configs_are_named),
		cmocka_unit_test(received_pfc_pauses_exactly_the_named_queue),
		cmocka_unit_test(xon_resumes_and_lossy_priorities_ignore_pfc),
		cmocka_unit_test(watchdog_forwards_a_storm_and_restores),
		cmocka_unit_test(dwrr_shares_bytes_by_weight),
		cmocka_unit_test(strict_priority_starves_lower_queues),
		cmocka_unit_test(lossy_tail_drop_is_exact),
		cmocka_unit_test(dynamic_threshold_known_answer),
		cmocka_unit_test(lossless_headroom_and_pfc_frames),
		cmocka_unit_test(dynamic_xoff_known_answer),
		cmocka_unit_test(xoff_withdrawn_before_sent_sends_nothing),
		cmocka_unit_test(pause_frame_stops_every_queue),
		cmocka_unit_test(ce_rewrite_keeps_frames_valid),
		cmocka_unit_test(cells_round_trip_every_size),
		cmocka_unit_test(queue_depth_series_fills_bins),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
