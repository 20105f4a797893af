/* `roceprobe switch` below app/: its flags over a `fabric:` description
 * (profile/switch_flags.c) and its summary and progress line from typed
 * facts (report/switch_summary.c), without DPDK. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "profile/switch_cfg.h"
#include "report/switch_summary.h"
#include "wire/eth.h"
#include "wire/ipv4.h"

#define G10 10000000000ull

static void ecn_marking(void **state)
{
	(void)state;
	struct rp_fabric f;
	/* no --profile, no --ecn: nothing marked, whatever the description says */
	rp_fabric_init_switch(&f);
	f.ecn_mask = 0x08;
	rp_switch_flags_ecn(&f, &(struct rp_switch_flags){0});
	assert_int_equal(f.ecn_mask, 0);
	/* --ecn with lossless 3,4: those */
	rp_fabric_init_switch(&f);
	f.pfc_off = false;
	f.lossless_mask = 0x18;
	rp_switch_flags_ecn(&f, &(struct rp_switch_flags){.ecn = true});
	assert_int_equal(f.ecn_mask, 0x18);
	/* --ecn, nothing lossless: priority 3 */
	rp_fabric_init_switch(&f);
	rp_switch_flags_ecn(&f, &(struct rp_switch_flags){.ecn = true});
	assert_int_equal(f.ecn_mask, 0x08);
	/* --ecn-prio 0,2 wins */
	rp_switch_flags_ecn(&f, &(struct rp_switch_flags){.ecn = true, .ecn_prio_given = true, .ecn_prio = 0x05});
	assert_int_equal(f.ecn_mask, 0x05);
	/* --profile's ecn.priorities stay without --ecn */
	rp_fabric_init_switch(&f);
	f.ecn_mask = 0x10;
	rp_switch_flags_ecn(&f, &(struct rp_switch_flags){.from_profile = true});
	assert_int_equal(f.ecn_mask, 0x10);
}

/* The description: the switch's defaults, or a profile's (none here: its
 * error); a static XOFF at or below the XON delta refused. */
static void description(void **state)
{
	(void)state;
	struct rp_fabric f;
	char err[512];
	assert_int_equal(rp_switch_flags_fabric(NULL, &f, err, sizeof(err)), 0);
	assert_int_equal(f.lossless_mask, 0);
	assert_int_equal(f.ecn_mask, 0);
	assert_int_equal(f.max_frame, 9216);
	err[0] = '\0';
	assert_int_equal(rp_switch_flags_fabric("/nonexistent/p.yaml", &f, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent/p.yaml"));
	rp_fabric_init_switch(&f);
	f.xoff = (struct rp_fabric_thresh){.bytes = 10240};
	f.xon_delta = 10240;
	assert_int_equal(rp_switch_flags_check(&f, err, sizeof(err)), -1);
	assert_string_equal(err, "--xon-delta (10240 B) must be below --xoff (10240 B)");
	f.xon_delta = 10239;
	assert_int_equal(rp_switch_flags_check(&f, err, sizeof(err)), 0);
	f.xoff.dynamic = true; /* a dynamic XOFF is checked by the model's settings */
	f.xon_delta = 1 << 30;
	assert_int_equal(rp_switch_flags_check(&f, err, sizeof(err)), 0);
}

static void largest_frame(void **state)
{
	(void)state;
	struct rp_fabric f;
	char err[128];
	struct rp_switch_flags none = {0}, given = {.max_frame_given = true};
	rp_fabric_init_switch(&f); /* fabric.max_frame 9216 */
	assert_int_equal(rp_switch_flags_max_frame(&f, &none, 0, err, sizeof(err)), 0);
	assert_int_equal(f.max_frame, 9216); /* no port says */
	assert_int_equal(rp_switch_flags_max_frame(&f, &none, 1514, err, sizeof(err)), 0);
	assert_int_equal(f.max_frame, 1514); /* af_packet's */
	f.max_frame = 9216;
	assert_int_equal(rp_switch_flags_max_frame(&f, &none, 1000, err, sizeof(err)), 0);
	assert_int_equal(f.max_frame, 1514); /* never below */
	f.max_frame = 9216;
	assert_int_equal(rp_switch_flags_max_frame(&f, &given, 1514, err, sizeof(err)), -1);
	assert_string_equal(err, "--max-frame 9216: a port takes frames up to 1514 bytes");
	f.max_frame = 4000;
	assert_int_equal(rp_switch_flags_max_frame(&f, &given, 9000, err, sizeof(err)), 0);
	assert_int_equal(f.max_frame, 4000);
}

/* 2 ports at 10G, 500 ns, max_frame 9216, priority 3 lossless: headroom
 * 9240 + 84 + 1250 + 9240 + 9240 = 29054 B a port, so a 4 MiB buffer
 * shares 4194304 - 2 x 29054 = 4136196 B, below an 8 MiB XOFF. */
static void checked_cfg(void **state)
{
	(void)state;
	struct rp_fabric f;
	static struct rp_switch_cfg c;
	char err[600];
	rp_fabric_init_switch(&f);
	f.pfc_off = false;
	f.lossless_mask = 0x08;
	f.buffer_bytes = 4194304;
	f.xoff = (struct rp_fabric_thresh){.bytes = 8388608};
	assert_int_equal(rp_switch_flags_cfg(&f, 2, G10, false, &c, err, sizeof(err)), -1);
	const char *says = "switch settings: xoff 8388608 B (priority 3) is not below the shared buffer it fills, 4136196 B";
	assert_true(strncmp(err, says, strlen(says)) == 0);
	f.xoff.bytes = 131072;
	assert_int_equal(rp_switch_flags_cfg(&f, 2, G10, true, &c, err, sizeof(err)), 0);
	assert_int_equal(c.port[0].headroom[3], 29054);
	assert_int_equal(c.port[1].rate_bps, G10);
	assert_int_equal(c.fdb_size, 4096);
	assert_true(c.trust_pcp);
}

/* Two 10G ports; three 1000-byte frames in on port 0 for port 1, one out. */
static void summary(void **state)
{
	(void)state;
	static struct rp_switch_cfg c;
	static uint8_t frame[1000], out[16384];
	rp_switch_cfg_default(&c, 2, G10);
	struct rp_switch *sw = rp_switch_create(&c);
	assert_non_null(sw);
	struct rp_eth e = {.dst = {0x02, 0, 0, 0, 0, 0x0b}, .src = {0x02, 0, 0, 0, 0, 0x0a},
			   .ethertype = RP_ETHERTYPE_IPV4};
	size_t h = rp_eth_build(frame, sizeof(frame), &e);
	struct rp_ipv4 ip = {.dscp = 26, .total_len = (uint16_t)(sizeof(frame) - h), .ttl = 64, .proto = RP_IPPROTO_UDP,
			     .src = 0x0A000001, .dst = 0x0A000002};
	rp_ipv4_build(frame + h, sizeof(frame) - h, &ip);
	struct rp_switch_rx rx;
	struct rp_switch_tx tx;
	for (int i = 0; i < 3; i++)
		assert_int_equal(rp_switch_ingress(sw, 0, 0, frame, sizeof(frame), 1, &rx), 0);
	assert_int_equal(rp_switch_next_tx(sw, 1, 0, out, sizeof(out), &tx), 1);

	struct rp_switch_edge e0 = {.rx_frames = 3, .rx_bytes = 3000, .flooded = 0}, e1 = {.tx_frames = 1, .tx_bytes = 1000};
	struct rp_switch_rt_port ports[2] = {
		{.devargs = "net_null0", .driver = "net_null", .edge = &e0, .pmd_missed = 7, .capture = "x-p0.pcap",
		 .cap_written = 3},
		{.devargs = "net_null1", .driver = "net_null", .edge = &e1, .capture = ""},
	};
	struct rp_switch_rt_facts f = {.sw = sw, .cfg = &c, .nports = 2, .port = ports, .end_ns = 1500000000ull,
				       .interrupted = true};
	json_t *j = rp_switch_rt_json(&f);
	assert_string_equal(json_string_value(json_object_get(j, "schema")), "roceprobe.switch/2");
	assert_true(json_real_value(json_object_get(j, "elapsed_s")) == 1.5);
	assert_true(json_is_true(json_object_get(j, "interrupted")));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "config"), "speed_bps")), G10);
	json_t *p0 = json_array_get(json_object_get(j, "ports"), 0), *p1 = json_array_get(json_object_get(j, "ports"), 1);
	assert_string_equal(json_string_value(json_object_get(p0, "devargs")), "net_null0");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(p0, "edge"), "rx_frames")), 3);
	assert_int_equal(json_integer_value(json_object_get(p0, "pmd_missed")), 7);
	assert_int_equal(json_integer_value(json_object_get(p0, "rx_pkts")), 3); /* the model's, switch_json.h */
	assert_int_equal(json_integer_value(json_object_get(json_object_get(p0, "capture"), "written")), 3);
	assert_null(json_object_get(p1, "capture")); /* no capture: no key */
	assert_int_equal(json_integer_value(json_object_get(j, "drops")), 0);
	json_decref(j);

	char *t = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&t, &len);
	rp_switch_rt_print_text(o, &f);
	fclose(o);
	assert_true(strncmp(t, "roceprobe switch: 2 ports at 10G, buffer ", 41) == 0);
	assert_non_null(strstr(t, ", 1.500 s (interrupted)\nport 0 net_null0 (net_null): rx 3 tx 0 (PFC 0), dropped 0, "));
	assert_non_null(strstr(t, "PMD missed 7, unsent 0\n"));
	/* two frames still queued for port 1 at stop */
	assert_non_null(strstr(t, "\ndrops 0; buffer max shared "));
	assert_non_null(strstr(t, ", frames held at stop 2\n"));
	free(t);

	/* the line a second: 1.5M and 12k frames over 1 s, 999 over 1 s */
	struct rp_switch_edge was = {0}, now = {.rx_frames = 1500000, .tx_frames = 12000};
	struct rp_switch_port_stats s0 = {0}, s1 = {.ecn_marked = 4, .pfc_tx = 2, .pfc_rx = 1, .pause_rx = 1};
	o = open_memstream(&t, &len);
	rp_switch_rt_progress_port(o, 1, 1.0, &now, &was, &s1, &s0, 0);
	now.rx_frames = 999;
	rp_switch_rt_progress_port(o, 1, 1.0, &now, &was, &s0, &s0, 0);
	fclose(o);
	assert_string_equal(t, " | 1 rx 1.50M tx 12.0k pps drop 0 ecn 4 pfc 2/2 maxq 0B"
			       " | 1 rx 999 tx 12.0k pps drop 0 ecn 0 pfc 0/0 maxq 0B");
	free(t);
	rp_switch_destroy(sw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ecn_marking),
		cmocka_unit_test(description),
		cmocka_unit_test(largest_frame),
		cmocka_unit_test(checked_cfg),
		cmocka_unit_test(summary),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
