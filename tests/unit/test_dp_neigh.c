/* A next hop's MAC from the kernel's neighbour table (lib/dp/netdev.c
 * rp_dp_netdev_neigh, rtnetlink), what a port shared with the kernel uses: on
 * a veth whose peer lives in a netns of its own, the kernel has no entry at
 * first, is made to ask (ARP; for IPv6 a Neighbour Solicitation), and the MAC
 * found is the peer's, as its sysfs says. An address nobody holds: one error
 * after the timeout. Needs root (netns). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "dp/netdev.h"

static char ns[32], va[16], vb[16];
static const uint8_t fd77_1[16] = {0xfd, 0x77, [15] = 1}; /* va's own: the probes' source */

static int sh(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static int up(void **state)
{
	(void)state;
	int id = getpid() % 100000;
	snprintf(ns, sizeof(ns), "rpnb-%d", id);
	snprintf(va, sizeof(va), "rpn4a%d", id);
	snprintf(vb, sizeof(vb), "rpn4b%d", id);
	return sh("ip netns add %s && ip link add %s type veth peer name %s && ip link set %s netns %s && "
		  "ip addr add 198.18.77.1/24 dev %s && ip link set %s up && "
		  "ip addr add fd77::1/64 dev %s nodad && "
		  "ip -n %s addr add 198.18.77.2/24 dev %s && ip -n %s addr add fd77::2/64 dev %s nodad && "
		  "ip -n %s link set %s up && ip -n %s link set lo up",
		  ns, va, vb, vb, ns, va, va, va, ns, vb, ns, vb, ns, vb, ns) == 0 ? 0 : -1;
}

static int down(void **state)
{
	(void)state;
	sh("ip link del %s 2>/dev/null; ip netns del %s 2>/dev/null", va, ns);
	return 0;
}

static void test_peer_mac(void **state)
{
	(void)state;
	char path[128], text[32];
	snprintf(path, sizeof(path), "ip netns exec %s cat /sys/class/net/%s/address", ns, vb);
	FILE *p = popen(path, "r");
	assert_non_null(p);
	assert_non_null(fgets(text, sizeof(text), p));
	pclose(p);
	unsigned m[6];
	assert_int_equal(sscanf(text, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3], &m[4], &m[5]), 6);
	uint8_t mac[6] = {0};
	char err[256] = "";
	if (rp_dp_netdev_neigh(va, 4, 0xC6124D02u /* 198.18.77.2 */, NULL, 0xC6124D01u, NULL, mac, 2000, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	for (int i = 0; i < 6; i++)
		assert_int_equal(mac[i], m[i]);
	/* fd77::2: Neighbour Discovery, the same MAC */
	static const uint8_t fd77_2[16] = {0xfd, 0x77, [15] = 2};
	memset(mac, 0, sizeof(mac));
	if (rp_dp_netdev_neigh(va, 6, 0, fd77_2, 0, fd77_1, mac, 2000, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	for (int i = 0; i < 6; i++)
		assert_int_equal(mac[i], m[i]);
}

static void test_nobody(void **state)
{
	(void)state;
	uint8_t mac[6];
	char err[256] = "";
	assert_int_equal(rp_dp_netdev_neigh(va, 4, 0xC6124D09u /* 198.18.77.9: nobody */, NULL, 0xC6124D01u, NULL, mac, 300, err,
					    sizeof(err)), -1);
	assert_non_null(strstr(err, "no complete entry"));
	static const uint8_t fd77_9[16] = {0xfd, 0x77, [15] = 9};
	assert_int_equal(rp_dp_netdev_neigh(va, 6, 0, fd77_9, 0, fd77_1, mac, 300, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no complete entry"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_peer_mac),
		cmocka_unit_test(test_nobody),
	};
	return cmocka_run_group_tests(tests, up, down);
}
