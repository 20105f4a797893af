/* Ports whose devargs set their queue count (lib/dp/port.c,
 * rp_dp_unpolled_queues): the kernel or the NIC spreads the interface's
 * frames over every one of them, polled or not, so a queue roceprobe does
 * not poll is frames counted lost. The refusals and the ports let through,
 * worked by hand from the rule: net_af_packet takes qpairs=1 (or none) only;
 * net_af_xdp takes queue_count= up to the queues polled, net_pcap as many
 * RX streams; other drivers' devargs never refuse. (af-packet-lcores in tests/lab runs the veth case.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "dp/dp.h"

static bool refused(const char *devargs, unsigned pmd_rxq, unsigned n_rxq, char *err)
{
	err[0] = '\0';
	return rp_dp_unpolled_queues(devargs, "p0", pmd_rxq, n_rxq, err, RP_DP_ERRLEN);
}

static void test_af_packet(void **state)
{
	char err[RP_DP_ERRLEN];
	(void)state;
	assert_false(refused("net_af_packet0,iface=veth0", 1, 1, err));
	assert_false(refused("net_af_packet0,iface=veth0,qpairs=1", 1, 1, err));
	assert_true(refused("net_af_packet0,iface=veth0,qpairs=2", 2, 1, err));
	assert_string_equal(err, "port p0: qpairs=2 spreads the interface's frames over 2 sockets by the kernel's fanout "
				 "hash: drop qpairs= (one socket reads them all; --lcores still spreads the work)");
	/* as many lcores as sockets: still refused (the fanout is not the RSS each lcore's share assumes) */
	assert_true(refused("net_af_packet0,qpairs=4,iface=veth0", 4, 4, err));
	assert_non_null(strstr(err, "qpairs=4 spreads the interface's frames over 4 sockets"));
}

static void test_af_xdp(void **state)
{
	char err[RP_DP_ERRLEN];
	(void)state;
	assert_false(refused("net_af_xdp0,iface=eth1", 1, 1, err));
	assert_false(refused("net_af_xdp0,iface=eth1,queue_count=2", 2, 2, err));
	assert_false(refused("net_af_xdp0,iface=eth1,queue_count=2", 2, 4, err)); /* the port gets its 2 */
	assert_true(refused("net_af_xdp0,iface=eth1,queue_count=4", 4, 1, err));
	assert_string_equal(err, "port p0: queue_count=4 takes the frames of 4 NIC queues and 1 is polled (the others' "
				 "would go unread, counted lost): set queue_count=1, or run --lcores 4");
	assert_true(refused("net_af_xdp0,iface=eth1,queue_count=4", 4, 2, err));
	assert_non_null(strstr(err, "and 2 are polled"));
}

static void test_pcap(void **state)
{
	char err[RP_DP_ERRLEN];
	(void)state;
	assert_false(refused("net_pcap0,rx_pcap=a.pcap", 1, 1, err));
	assert_false(refused("net_pcap0,tx_pcap=out.pcap", 1, 1, err)); /* no RX stream: gen writing a file */
	assert_false(refused("net_pcap0,iface=eth1", 1, 1, err));
	assert_false(refused("net_pcap0,rx_iface=eth1,tx_iface=eth1", 1, 1, err));
	assert_false(refused("net_pcap0,rx_pcap=a.pcap,rx_pcap=b.pcap", 2, 2, err)); /* run --lcores 2 */
	assert_true(refused("net_pcap0,rx_pcap=a.pcap,rx_pcap=b.pcap", 2, 1, err));
	assert_string_equal(err, "port p0: 2 RX streams (rx_pcap=, rx_iface=, iface=) and 1 is polled: the others' "
				 "frames would never be read: give it at most 1 (merge files first: mergecap -w all.pcap "
				 "a.pcap b.pcap), or poll 2 (run --lcores 2)");
	assert_true(refused("net_pcap0,rx_pcap=a.pcap,rx_iface_in=eth1,iface=eth2", 3, 2, err));
	assert_non_null(strstr(err, "3 RX streams (rx_pcap=, rx_iface=, iface=) and 2 are polled"));
}

static void test_other_drivers(void **state)
{
	char err[RP_DP_ERRLEN];
	(void)state;
	/* a PMD's max_rx_queues is a capability there, not queues the frames are spread over */
	assert_false(refused("net_null0", 1024, 1, err));
	assert_false(refused("net_tap0,iface=tap0", 16, 1, err));
	assert_false(refused("pair:l:0", 1, 1, err));
	assert_string_equal(err, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_af_packet),
		cmocka_unit_test(test_af_xdp),
		cmocka_unit_test(test_pcap),
		cmocka_unit_test(test_other_drivers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
