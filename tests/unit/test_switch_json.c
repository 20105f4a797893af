/* The one writer of a switch's ports and priorities (report/switch_json.h),
 * behind the lab's result.json `switches[]` and `roceprobe switch --json`:
 * the lab's key names (`port`, null for "never"), every drop reason, and the
 * counts put there on purpose. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "report/switch_json.h"
#include "report/switch_sonic.h"
#include "wire/pfc.h"
#include "wire/eth.h"
#include "wire/ipv4.h"

static uint8_t frame[1000], out[16384];

static json_int_t geti(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	assert_non_null(v);
	assert_true(json_is_integer(v));
	return json_integer_value(v);
}

/* 1000-byte IPv4 frame with DSCP 26 (priority 3) to 02:..:0b. */
static void build_frame(void)
{
	struct rp_eth e = {.dst = {0x02, 0, 0, 0, 0, 0x0b}, .src = {0x02, 0, 0, 0, 0, 0x0a},
			   .ethertype = RP_ETHERTYPE_IPV4};
	size_t h = rp_eth_build(frame, sizeof(frame), &e);
	struct rp_ipv4 ip = {.dscp = 26, .total_len = (uint16_t)(sizeof(frame) - h), .ttl = 64, .proto = RP_IPPROTO_UDP,
			     .src = 0x0A000001, .dst = 0x0A000002};
	rp_ipv4_build(frame + h, sizeof(frame) - h, &ip);
}

/* Two 10G ports, priority 3 lossless (rp_switch_cfg_default). Three frames
 * in on port 0 for port 1 at t = 0, one of them sent at t = 0: port 0 rx 3
 * (3000 bytes), port 1 tx 1 (1000 bytes), queue (1, 3) enq 3 / 3000 bytes,
 * tx 1, two held in the buffer. No XOFF anywhere: first_xoff_ns null. */
static void keys_and_counts(void **state)
{
	(void)state;
	static struct rp_switch_cfg c;
	rp_switch_cfg_default(&c, 2, 10000000000ull);
	struct rp_switch *sw = rp_switch_create(&c);
	assert_non_null(sw);
	build_frame();
	struct rp_switch_rx rx;
	struct rp_switch_tx tx;
	for (int i = 0; i < 3; i++)
		assert_int_equal(rp_switch_ingress(sw, 0, 0, frame, sizeof(frame), 1, &rx), 0);
	assert_int_equal(rp_switch_next_tx(sw, 1, 0, out, sizeof(out), &tx), 1);

	json_t *p0 = rp_switch_port_json(sw, 0, 1000, false);
	assert_int_equal(geti(p0, "port"), 0);
	assert_int_equal(geti(p0, "rx_pkts"), 3);
	assert_int_equal(geti(p0, "rx_bytes"), 3000);
	assert_int_equal(geti(p0, "drop_pkts"), 0);
	json_t *drops = json_object_get(p0, "drops");
	assert_int_equal(json_object_size(drops), 6); /* malformed, no-route, tail, buffer, headroom, nomem */
	assert_int_equal(geti(drops, "tail"), 0);
	json_t *prio = json_object_get(p0, "prio");
	assert_int_equal(json_array_size(prio), 1); /* active only: priority 3's ingress group */
	json_t *q3 = json_array_get(prio, 0);
	assert_int_equal(geti(q3, "prio"), 3);
	assert_true(json_is_true(json_object_get(q3, "lossless")));
	json_t *pg = json_object_get(q3, "pg");
	assert_int_equal(geti(pg, "rx_pkts"), 3);
	assert_int_equal(geti(pg, "xoff_sent"), 0);
	assert_true(json_is_null(json_object_get(pg, "first_xoff_ns")));
	json_decref(p0);

	json_t *p1 = rp_switch_port_json(sw, 1, 1000, true);
	assert_int_equal(geti(p1, "port"), 1);
	assert_int_equal(geti(p1, "tx_pkts"), 1);
	assert_int_equal(geti(p1, "tx_bytes"), 1000);
	prio = json_object_get(p1, "prio");
	assert_int_equal(json_array_size(prio), 8); /* all_prios */
	for (int t = 0; t < 8; t++) {
		json_t *e = json_array_get(prio, (size_t)t);
		assert_int_equal(geti(e, "prio"), t);
		assert_int_equal(json_is_true(json_object_get(e, "lossless")), t == 3);
	}
	json_t *q = json_object_get(json_array_get(prio, 3), "queue");
	assert_int_equal(geti(q, "enq_pkts"), 3);
	assert_int_equal(geti(q, "enq_bytes"), 3000);
	assert_int_equal(geti(q, "tx_pkts"), 1);
	assert_int_equal(geti(q, "drop_pkts"), 0);
	json_decref(p1);

	json_t *b = rp_switch_buffer_json(sw);
	assert_int_equal(geti(b, "held_pkts"), 2);
	assert_int_equal(geti(b, "size"), 16 << 20);
	json_decref(b);
	rp_switch_destroy(sw);
}

/* switch --publish's cells (report/switch_sonic.h), from counts put there on
 * purpose: keys_and_counts' three frames in on port 0 for port 1, one sent,
 * then a PFC frame into port 1 naming priority 3 (its queue's pfc_rx). */
static void sonic_cells(void **state)
{
	(void)state;
	static struct rp_switch_cfg c;
	rp_switch_cfg_default(&c, 2, 10000000000ull);
	struct rp_switch *sw = rp_switch_create(&c);
	assert_non_null(sw);
	build_frame();
	struct rp_switch_rx rx;
	struct rp_switch_tx tx;
	for (int i = 0; i < 3; i++)
		assert_int_equal(rp_switch_ingress(sw, 0, 0, frame, sizeof(frame), 1, &rx), 0);
	assert_int_equal(rp_switch_next_tx(sw, 1, 0, out, sizeof(out), &tx), 1);
	uint8_t pfc[64];
	const uint8_t src[6] = {0x02, 0, 0, 0, 0, 0x0b};
	uint16_t quanta[RP_PFC_PRIOS] = {[3] = 100};
	size_t n = rp_pfc_frame_build(pfc, sizeof(pfc), src, 1u << 3, quanta);
	assert_true(n >= 60);
	assert_int_equal(rp_switch_ingress(sw, 10, 1, pfc, n, -1, &rx), 0);
	assert_int_equal(rx.verdict, RP_SW_CONSUMED);

	static struct rp_sonic_snap s;
	rp_switch_sonic_snap(sw, 2, 1000, &s);
	assert_int_equal(s.nports, 2);
	assert_string_equal(s.port[0].name, "Ethernet0");
	assert_string_equal(s.port[1].name, "Ethernet1");
	assert_int_equal(s.port[0].in_octets, 3000);
	assert_int_equal(s.port[0].out_octets, 0);
	assert_int_equal(s.port[1].out_octets, 1000);
	assert_int_equal(s.port[0].pg[3].packets, 3);
	assert_int_equal(s.port[0].pg[3].dropped_packets, 0);
	assert_int_equal(s.port[1].queue[3].packets, 1);
	assert_int_equal(s.port[1].queue[3].bytes, 1000);
	assert_int_equal(s.port[1].queue[3].wm_bytes, 3000);
	assert_int_equal(s.port[1].queue[0].packets, 0);
	assert_int_equal(s.port[1].pfc_rx[3], 1);
	assert_int_equal(s.port[1].pfc_rx[2], 0);
	assert_int_equal(s.port[0].pfc_tx[3], 0);
	assert_int_equal(s.port[0].in_discards + s.port[1].out_discards, 0);
	rp_switch_destroy(sw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(keys_and_counts),
		cmocka_unit_test(sonic_cells),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
