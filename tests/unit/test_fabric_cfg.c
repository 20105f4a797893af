/* One `fabric:` description -> one rp_switch_cfg, whoever builds the switch
 * (issue 13.3): the lab's topology and `roceprobe switch` (--profile's
 * section, its ports all at one speed on fabric.link) both go through
 * rp_fabric_switch_cfg, and give the same switch. The answers are worked by
 * hand from the profile text below and the headroom formula. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
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

/* Eight 100G hosts on one switch, 500 ns cables (100 m at 5 ns/m), a 4 MiB buffer, priority 3
 * lossless: certify-good.yaml's fabric with XOFF at %s. */
static struct rp_profile *eight(const char *xoff, const char *quanta, char *err, size_t errlen)
{
	char text[2048];
	size_t n = (size_t)snprintf(text, sizeof(text), "defaults: {speed: 100G, mtu: 4096, dscp: 26}\nhosts:\n");
	for (unsigned h = 0; h < 8; h++)
		n += (size_t)snprintf(text + n, sizeof(text) - n,
				      "  - {name: h%u, mac: \"02:00:00:00:0c:0%u\", ipv4: 10.12.0.%u}\n", h, h, h + 1);
	snprintf(text + n, sizeof(text) - n,
		 "traffic:\n  - {pattern: incast, senders: [h1, h2], receiver: h0, messages: 1}\n"
		 "fabric:\n  topology: single\n  link: {delay: 500ns}\n  buffer: 4MiB\n"
		 "  pfc: {priorities: [3], xoff: %s, xon_delta: 18KiB%s%s}\n",
		 xoff, quanta ? ", quanta: " : "", quanta ? quanta : "");
	return rp_profile_load_string("eight.yaml", text, NULL, err, errlen);
}

/* issue 30.4: XOFF per ingress PG must lie below the shared pool it fills, the buffer less
 * the headroom every port reserves per lossless priority, or the PG spills into headroom
 * first. Headroom `auto` at 100G, 500 ns, max_frame 9216 + 4: frame in flight 9220 + 20 =
 * 9240, PFC frame 84, cable 2 x 500 ns at 100 Gbit/s = 12500, peer's frame 9240, frame
 * being received 9240: 9240 + 84 + 12500 + 9240 + 9240 = 40304 B a port (certify test 5's
 * formula). 8 ports x 40304 = 322432; 4 MiB = 4194304; shared 4194304 - 322432 = 3871872.
 * XOFF 3871872 B is refused by the lab (and certify: rp_lab_check_fit) with one line, one
 * byte less runs; 8 MiB (the issue's) is refused. */
static void xoff_below_shared(void **state)
{
	(void)state;
	char err[512];
	static const char *const bad[] = {"8MiB", "3871872B"};
	for (size_t i = 0; i < 2; i++) {
		struct rp_profile *p = eight(bad[i], NULL, err, sizeof(err));
		if (!p)
			fail_msg("%s", err);
		assert_int_equal(rp_lab_check_fit(p, err, sizeof(err)), -1);
		char want[512];
		snprintf(want, sizeof(want),
			 "fabric: switch sw0: xoff %s B (priority 3) is not below the shared buffer it fills, 3871872 B: the "
			 "buffer's 4194304 B less 322432 B of PFC headroom reserved for 8 ports' lossless priorities (a PG "
			 "spills into headroom before XOFF): lower xoff below 3871872 B or raise the buffer",
			 i == 0 ? "8388608" : "3871872");
		assert_string_equal(err, want);
		rp_profile_free(p);
	}
	struct rp_profile *p = eight("3871871B", NULL, err, sizeof(err));
	assert_non_null(p);
	assert_int_equal(rp_lab_check_fit(p, err, sizeof(err)), 0);
	rp_profile_free(p);
}

/* issue 30.5: quanta that hold a sender between refreshes. A quantum is 512 bit times = 64
 * byte times at any speed (5.12 ns at 100G); a PFC frame is 60 B + FCS 4 + preamble/SFD 8 +
 * IFG 12 = 84 B on the wire (6.72 ns at 100G): one quantum cannot even cover it. The refresh
 * falls due at refresh (50%) of the pause, may wait behind one max_frame frame on the
 * switch's transmitter and then takes the PFC frame's time; the other 50% must cover both:
 *   max_frame 9216: 84 + 9216 + 24 = 9324 B = 74592 bits; / 50% = 149184; / 512 = 291.4 -> 292
 *   max_frame 4170 (a 4096 B MTU WRITE's first frame: 14 + 20 + 8 + 12 + 16 + 4096 + 4):
 *     84 + 4194 = 4278 B = 34224 bits; / 50% = 68448; / 512 = 133.7 -> 134
 *   max_frame 1514 at refresh 25%: 84 + 1538 = 1622 B = 12976 bits; / 75% = 17301.3; / 512
 *     = 33.8 -> 34
 * Speed cancels (both sides are bit times of the same port), so one check covers every port.
 * Measured in the lab (3 senders into h0 at 100G while h0 and h2 send to h1, 4170 B frames):
 * quanta 67 (the pause = one PFC frame + one frame, no refresh term) still lost 1 frame in
 * headroom, 85 lost 1, 90 and up none; 134 none. */
static void quanta_hold_sender(void **state)
{
	(void)state;
	assert_int_equal(rp_switch_min_quanta(9216, 50), 292);
	assert_int_equal(rp_switch_min_quanta(4170, 50), 134);
	assert_int_equal(rp_switch_min_quanta(1514, 25), 34);
	char err[512];
	assert_null(eight("128KiB", "1", err, sizeof(err)));
	assert_string_equal(err, "eight.yaml:17:66: key 'fabric.pfc.quanta': 1 quanta (1 x 512 bit times) cannot hold a "
				 "sender between refreshes: the 50% of the pause left when the refresh is due (pfc.refresh) "
				 "must cover a PFC frame (84 B) and a max_frame frame (9216 + 24 B) on the wire; the smallest "
				 "that works is 292");
	assert_null(eight("128KiB", "291", err, sizeof(err)));
	struct rp_profile *p = eight("128KiB", "292", err, sizeof(err));
	assert_non_null(p);
	rp_profile_free(p);

	/* `roceprobe switch --lossless 3 --quanta Q` on 1514 B ports (its flags, no profile) */
	static struct rp_fabric f;
	static struct rp_fabric_switch fs;
	static struct rp_switch_cfg c;
	rp_fabric_init_switch(&f);
	f.lossless_mask = 1u << 3;
	f.max_frame = 1514;
	f.pfc_refresh_pct = 25;
	f.pfc_quanta = 33;
	rp_fabric_switch_uniform(&f, 2, 10000000000ull, &fs);
	rp_fabric_switch_cfg(&f, &fs, &c);
	assert_int_equal(rp_switch_cfg_check(&c, err, sizeof(err)), -1);
	assert_string_equal(err, "PFC quanta 33 cannot hold a sender between refreshes: the 75% of the pause left when "
				 "the refresh is due must cover a PFC frame (84 B) and a max frame (1514 + 24 B) on the wire; "
				 "the smallest that works is 34");
	f.pfc_quanta = 34;
	rp_fabric_switch_cfg(&f, &fs, &c);
	assert_int_equal(rp_switch_cfg_check(&c, err, sizeof(err)), 0);
	f.lossless_mask = 0; /* nothing lossless: no XOFF is ever sent, any quanta */
	f.pfc_quanta = 1;
	rp_fabric_switch_cfg(&f, &fs, &c);
	assert_int_equal(rp_switch_cfg_check(&c, err, sizeof(err)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lab_and_switch_agree),
		cmocka_unit_test(switch_defaults),
		cmocka_unit_test(xoff_below_shared),
		cmocka_unit_test(quanta_hold_sender),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
