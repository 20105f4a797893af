/* RX stamps moved to the packet clock (lib/dp/dp.h rp_dp_stamp_to_pkt), on
 * numbers worked by hand. A NIC clock of 156.25 MHz (6.4 ns a tick, the
 * rate of a ConnectX-4's free-running clock) read at tick 1,000,000 when the
 * packet clock read 5,000,000 ns: 15,625 ticks later is 100,000 ns later.
 * The host's time (a PMD with no clock to read) is the stamp less the
 * epoch. A stamp more than a second from the poll's time is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "dp/dp.h"

static struct rp_dp_rx_stamps nic_156(void)
{
	/* mult = 6.4 ns/tick in Q32: 6.4 * 2^32 = 27487790694.4 */
	return (struct rp_dp_rx_stamps){.kind = RP_DP_STAMP_NIC, .base_stamp = 1000000, .base_pkt = 5000000,
					.mult_q32 = 27487790694ull};
}

static void test_nic_ticks(void **state)
{
	(void)state;
	struct rp_dp_rx_stamps x = nic_156();
	uint64_t t = 0;
	assert_true(rp_dp_stamp_to_pkt(&x, 1000000 + 15625, 5100500, &t));
	/* 15625 * 27487790694 / 2^32 = 99999.99999854... -> 99999 (the shift floors) */
	assert_int_equal(t, 5000000 + 99999);
	/* before the base: 1,000 ticks earlier is 6,400 ns earlier (-6399.99999990 floored: -6400) */
	assert_true(rp_dp_stamp_to_pkt(&x, 1000000 - 1000, 5000000, &t));
	assert_int_equal(t, 5000000 - 6400);
}

static void test_host_time(void **state)
{
	(void)state;
	/* epoch 1,796,600,000.000000000 s (2026-12-07 in Unix time); packet 0 then */
	int64_t epoch = 1796600000ll * 1000000000ll;
	struct rp_dp_rx_stamps x = {.kind = RP_DP_STAMP_HOST, .base_stamp = epoch, .base_pkt = 0, .mult_q32 = 1ull << 32};
	uint64_t t = 0;
	assert_true(rp_dp_stamp_to_pkt(&x, epoch + 2500123456ll, 2500200000ull, &t));
	assert_int_equal(t, 2500123456ull);
}

static void test_file_us(void **state)
{
	(void)state;
	/* net_pcap's stamps are us (tv_sec * 1000000 + tv_usec): a file whose first
	 * frame is 1,700,000,000.000001 s sits at packet 0; a frame 49,799 us into
	 * it is 49,799,000 ns on; the mapping is 1000 ns a unit in Q32. */
	struct rp_dp_rx_stamps x = {.kind = RP_DP_STAMP_FILE, .unit_ns = 1000, .base_stamp = 1700000000000001ll,
				    .base_pkt = 0, .mult_q32 = 1000ull << 32};
	uint64_t t = 0;
	assert_true(rp_dp_stamp_to_pkt(&x, 1700000000049800ll, 1000000, &t));
	assert_int_equal(t, 49799000ull);
	/* the kernel's us on the host's time: epoch E = 1,796,678,164.556905825 s;
	 * s*1000 - E with base E/1000 = 1796678164556905 and base_pkt -(E%1000) = -825:
	 * 1,796,678,164,557,325 us is 419,175 ns after packet 0 */
	struct rp_dp_rx_stamps h = {.kind = RP_DP_STAMP_HOST, .unit_ns = 1000, .base_stamp = 1796678164556905ll,
				    .base_pkt = -825, .mult_q32 = 1000ull << 32};
	assert_true(rp_dp_stamp_to_pkt(&h, 1796678164557325ll, 500000, &t));
	assert_int_equal(t, 419175ull);
}

static void test_tx_tick(void **state)
{
	(void)state;
	/* --tx-start nic: the NIC tick of T0 + 100 us. A 156.25 MHz free-running
	 * clock read at tick 1,000,000 (packet 0) and 50 ms later at 8,812,500
	 * (50 ms * 156.25 MHz = 7,812,500 ticks): 100 us after packet 0 is
	 * 1,000,000 + 100,000 * 0.15625 = 1,015,625. A real-time clock in ns
	 * read 3 ns fast: T0 + 100 us + 3. */
	assert_int_equal(rp_dp_tick_at(1000000, 0, 8812500, 50000000, 100000), 1015625);
	assert_int_equal(rp_dp_tick_at(1796600000000000003ll, 20, 1796600000050000003ll, 50000020, 100000),
			 1796600000000099983ll);
}

static void test_refused(void **state)
{
	(void)state;
	struct rp_dp_rx_stamps x = nic_156();
	uint64_t t = 77;
	/* 1 s and a tick after the poll: 156,250,001 ticks past the base, poll at the base */
	assert_false(rp_dp_stamp_to_pkt(&x, 1000000 + 156250001, 5000000, &t));
	/* before the packet clock's start */
	assert_false(rp_dp_stamp_to_pkt(&x, 1000000 - 800000, 1000, &t));
	/* a file's stamp from a day earlier, taken as the host's time */
	int64_t epoch = 1796600000ll * 1000000000ll;
	struct rp_dp_rx_stamps h = {.kind = RP_DP_STAMP_HOST, .base_stamp = epoch, .mult_q32 = 1ull << 32};
	assert_false(rp_dp_stamp_to_pkt(&h, epoch - 86400ll * 1000000000ll, 5000000, &t));
	assert_int_equal(t, 77);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nic_ticks),
		cmocka_unit_test(test_host_time),
		cmocka_unit_test(test_file_us),
		cmocka_unit_test(test_tx_tick),
		cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
