/* One `fabric:` description -> one rp_switch_cfg, whoever builds the switch
 * (issue 13.3): the lab's topology and `roceprobe switch` (--profile's
 * section, its ports all at one speed on fabric.link) both go through
 * rp_fabric_switch_cfg, and give the same switch. The answers are worked by
 * hand from the profile text below and the headroom formula. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "lab/lab_internal.h"
#include "profile/switch_cfg.h"
#include "traffic/plan.h"

/* Three 25G hosts on one switch, every knob of the section moved off its
 * default. */
static const char *const PROFILE = "name: cfg\n"
				   "defaults: {speed: 25G, mtu: 1024, dscp: 26}\n" /* frames of 1098 B: under max_frame */
				   "hosts:\n"
				   "  - {name: h0, mac: \"02:00:00:00:00:00\", ipv4: 10.0.0.100, port: net_null0}\n"
				   "  - {name: h1, mac: \"02:00:00:00:00:01\", ipv4: 10.0.0.1, port: net_null1}\n"
				   "  - {name: h2, mac: \"02:00:00:00:00:02\", ipv4: 10.0.0.2, port: net_null2}\n"
				   "traffic:\n"
				   "  - {name: t, pattern: incast, senders: [h1, h2], receiver: h0, messages: 1}\n"
				   "fabric:\n"
				   "  buffer: 4MiB\n"
				   "  max_frame: 4096\n"
				   "  link: {cable: 20m}\n"
				   "  pfc: {priorities: [3, 4], xoff: 64KiB, xon_delta: 8KiB, quanta: 1000, refresh: 25%}\n"
				   "  ecn: {priorities: [3], kmin: 10KB, kmax: 100KB, pmax: 2%}\n"
				   "  lossy: {limit: 256KiB}\n"
				   "  seed: 7\n";

/* The known answer for every port of that switch. Headroom (`auto`, 25G,
 * 20 m, max_frame 4096 + 4, pfc.response 0, no PHY delay): frame in flight
 * 4100 + 20 = 4120, PFC frame 84, cable 2 x 20 m x 5 ns/m = 200 ns at
 * 25 Gbit/s = 625, peer's frame 4120, frame being received 4120:
 * 4120 + 84 + 625 + 4120 + 4120 = 13069 bytes. */
static void assert_known(const struct rp_switch_cfg *c)
{
	assert_int_equal(c->nports, 3);
	assert_int_equal(c->buffer_bytes, 4u << 20);
	assert_int_equal(c->max_frame, 4096);
	assert_int_equal(c->lossless_mask, 0x18);
	assert_int_equal(c->pfc_quanta, 1000);
	assert_int_equal(c->pfc_refresh_pct, 25);
	assert_int_equal(c->seed, 7);
	for (unsigned t = 0; t < RP_SWITCH_TCS; t++) {
		assert_false(c->pg[t].xoff.dynamic);
		assert_int_equal(c->pg[t].xoff.bytes, 65536);
		assert_int_equal(c->pg[t].xon_delta, 8192);
		assert_false(c->queue[t].limit.dynamic);
		assert_int_equal(c->queue[t].limit.bytes, 262144);
		assert_int_equal(c->queue[t].red, t == 3);
		assert_int_equal(c->queue[t].kmin, 10000);
		assert_int_equal(c->queue[t].kmax, 100000);
		assert_true(c->queue[t].pmax == 0.02);
	}
	for (unsigned p = 0; p < 3; p++) {
		const uint8_t mac[6] = {0x02, 0xFF, 0, 0, 0, (uint8_t)p};
		assert_int_equal(c->port[p].rate_bps, 25000000000ull);
		assert_int_equal(c->port[p].prop_ns, 100);
		assert_memory_equal(c->port[p].mac, mac, 6);
		for (unsigned t = 0; t < RP_SWITCH_TCS; t++)
			assert_int_equal(c->port[p].headroom[t], t == 3 || t == 4 ? 13069 : 0);
	}
}

static void lab_and_switch_agree(void **state)
{
	(void)state;
	char err[512];
	struct rp_profile *prof = rp_profile_load_string("cfg.yaml", PROFILE, NULL, err, sizeof(err));
	assert_non_null(prof);
	struct rp_plan plan;
	assert_int_equal(rp_plan_build(prof, &plan, err, sizeof(err)), 0);
	struct rp_lab_opts lo = {0};
	struct rp_lab *lab = rp_lab_create(prof, &plan, &lo, err, sizeof(err));
	assert_non_null(lab);

	/* The lab's path: its topology placed the switch. */
	static struct rp_switch_cfg from_lab, from_switch;
	from_lab = *rp_switch_config(lab->sw[0].sw);
	assert_known(&from_lab);

	/* `roceprobe switch --profile cfg.yaml --speed 25G` with three --port:
	 * the section as loaded, ports all at --speed on fabric.link. */
	static struct rp_fabric_switch fs;
	rp_fabric_switch_uniform(&prof->fabric, 3, 25000000000ull, &fs);
	fs.fdb_size = from_lab.fdb_size;       /* the caller's: hosts + 16 in the lab, 4096 in switch */
	fs.qdepth_bins = from_lab.qdepth_bins; /* the lab's series length follows its run */
	rp_fabric_switch_cfg(&prof->fabric, &fs, &from_switch);
	assert_known(&from_switch);
	assert_memory_equal(&from_lab, &from_switch, sizeof(from_lab));

	rp_lab_destroy(lab);
	rp_plan_free(&plan);
	rp_profile_free(prof);
}

/* `roceprobe switch` without --profile: the lab's defaults (docs/lab.md)
 * but no lossless priority and no ECN. At 10G: buffer 16 MiB, XOFF 128 KiB
 * static, XON 18 KiB below it, ports 500 ns away, lossy dynamic alpha 1,
 * quanta 65535 refreshed at 50%, no headroom (nothing lossless). With
 * priority 3 made lossless (--lossless 3) and af_packet's 1514-byte frames,
 * headroom `auto`: 1538 + 84 + (2 x 500 ns at 10G = 1250) + 1538 + 1538 =
 * 5948 bytes. */
static void switch_defaults(void **state)
{
	(void)state;
	static struct rp_fabric f;
	static struct rp_fabric_switch fs;
	static struct rp_switch_cfg c;
	rp_fabric_init_switch(&f);
	rp_fabric_switch_uniform(&f, 2, 10000000000ull, &fs);
	rp_fabric_switch_cfg(&f, &fs, &c);
	assert_int_equal(c.lossless_mask, 0);
	assert_int_equal(c.buffer_bytes, 16u << 20);
	assert_int_equal(c.max_frame, 9216);
	assert_int_equal(c.pfc_quanta, 65535);
	assert_int_equal(c.pfc_refresh_pct, 50);
	assert_int_equal(c.seed, 1);
	for (unsigned t = 0; t < RP_SWITCH_TCS; t++) {
		assert_false(c.queue[t].red);
		assert_true(c.queue[t].limit.dynamic);
		assert_true(c.queue[t].limit.alpha == 1.0);
		assert_int_equal(c.pg[t].xoff.bytes, 131072);
		assert_int_equal(c.pg[t].xon_delta, 18432);
		for (unsigned p = 0; p < 2; p++)
			assert_int_equal(c.port[p].headroom[t], 0);
	}
	for (unsigned p = 0; p < 2; p++)
		assert_int_equal(c.port[p].prop_ns, 500);

	f.lossless_mask = 1u << 3;
	f.max_frame = 1514;
	rp_fabric_switch_cfg(&f, &fs, &c);
	assert_int_equal(c.port[0].headroom[3], 5948);
	assert_int_equal(c.port[1].headroom[3], 5948);
	assert_int_equal(c.port[0].headroom[2], 0);
	char err[200];
	assert_int_equal(rp_switch_cfg_check(&c, err, sizeof(err)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lab_and_switch_agree),
		cmocka_unit_test(switch_defaults),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
