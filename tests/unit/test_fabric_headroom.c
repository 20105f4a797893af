/* The PFC headroom formula, term by term, against answers computed by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "fabric/headroom.h"

#define G100 100000000000ull

/* 100G, 100 m, MTU 4096 both ends, 394 quanta, no PHY delay:
 *   cable     2 x 100 m x 5 ns/m = 1000 ns x 12.5 B/ns = 12500
 *   MTU       4096 + 20                                 =  4116
 *   PFC       64 + 20                                   =    84
 *   response  394 x 512 bit / 8                         = 25216
 *   peer MTU  4096 + 20                                 =  4116
 *   cut-through total                                   = 46032
 *   + frame being received (store-and-forward) 4116     = 50148 */
static void known_case_by_hand(void **state)
{
	(void)state;
	struct rp_headroom_in in = {.speed_bps = G100, .cable_m = 100, .mtu = 4096, .response_quanta = 394};
	struct rp_headroom h;
	assert_int_equal(rp_headroom_calc(&in, &h), 0);
	assert_int_equal(h.cable_bytes, 12500);
	assert_int_equal(h.mtu_bytes, 4116);
	assert_int_equal(h.pfc_bytes, 84);
	assert_int_equal(h.response_bytes, 25216);
	assert_int_equal(h.peer_mtu_bytes, 4116);
	assert_int_equal(h.rx_frame_bytes, 4116);
	assert_int_equal(h.phy_bytes, 0);
	assert_int_equal(h.total_bytes, 50148);
	in.cut_through = true;
	assert_int_equal(rp_headroom_calc(&in, &h), 0);
	assert_int_equal(h.rx_frame_bytes, 0);
	assert_int_equal(h.total_bytes, 46032);
	assert_true(fabs(h.cable_ns - 1000.0) < 1e-9);
	assert_true(fabs(h.response_ns - 2017.28) < 1e-6);
}

/* 25G, 3 m, 9216 / 1500, 80 quanta, 245.76 ns PHY:
 *   cable 30 ns x 3.125 B/ns = 93.75 -> 94; PHY 491.52 ns -> 1536;
 *   9236 + 84 + 5120 + 1520 + 1520 (received) -> total 19110 */
static void rounding_and_peer_mtu(void **state)
{
	(void)state;
	struct rp_headroom_in in = {.speed_bps = 25000000000ull, .cable_m = 3, .mtu = 9216, .peer_mtu = 1500,
				    .response_quanta = 80, .phy_delay_ns = 245.76};
	struct rp_headroom h;
	assert_int_equal(rp_headroom_calc(&in, &h), 0);
	assert_int_equal(h.cable_bytes, 94);
	assert_int_equal(h.phy_bytes, 1536);
	assert_int_equal(h.mtu_bytes, 9236);
	assert_int_equal(h.peer_mtu_bytes, 1520);
	assert_int_equal(h.response_bytes, 5120);
	assert_int_equal(h.rx_frame_bytes, 1520);
	assert_int_equal(h.total_bytes, 19110);
}

static void defaults_follow_the_802_3_table(void **state)
{
	(void)state;
	assert_int_equal(rp_headroom_default_response_quanta(G100), 394);
	assert_int_equal(rp_headroom_default_response_quanta(10000000000ull), 60);
	assert_int_equal(rp_headroom_default_response_quanta(25000000000ull), 80);
	assert_int_equal(rp_headroom_default_response_quanta(50000000000ull), 147);
	assert_int_equal(rp_headroom_default_response_quanta(200000000000ull), 453);
	assert_int_equal(rp_headroom_default_response_quanta(400000000000ull), 905);
	assert_int_equal(rp_headroom_default_response_quanta(800000000000ull), 905);
	assert_int_equal(rp_headroom_default_response_quanta(1000000000ull), 2);
	assert_true(fabs(rp_headroom_default_phy_delay_ns(G100) - 1228.8) < 1e-9);
	assert_true(fabs(rp_headroom_default_phy_delay_ns(10000000000ull) - 819.2) < 1e-9);
	/* 50G has no interface entry: 100G's 122880 bit times at 50G */
	assert_true(fabs(rp_headroom_default_phy_delay_ns(50000000000ull) - 2457.6) < 1e-9);
}

static void bad_input_is_refused(void **state)
{
	(void)state;
	struct rp_headroom h;
	struct rp_headroom_in in = {.speed_bps = 0, .cable_m = 1, .mtu = 1500};
	assert_int_equal(rp_headroom_calc(&in, &h), -1);
	in = (struct rp_headroom_in){.speed_bps = G100, .cable_m = -1, .mtu = 1500};
	assert_int_equal(rp_headroom_calc(&in, &h), -1);
	in = (struct rp_headroom_in){.speed_bps = G100, .cable_m = 1, .mtu = 0};
	assert_int_equal(rp_headroom_calc(&in, &h), -1);
	in = (struct rp_headroom_in){.speed_bps = G100, .cable_m = NAN, .mtu = 1500};
	assert_int_equal(rp_headroom_calc(&in, &h), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(known_case_by_hand),
		cmocka_unit_test(rounding_and_peer_mtu),
		cmocka_unit_test(defaults_follow_the_802_3_table),
		cmocka_unit_test(bad_input_is_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
