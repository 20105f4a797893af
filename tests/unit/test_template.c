/* lib/profile/template.c and the addresses read at start (host_addr.c):
 * host_template expansions worked by hand (names, MACs, addresses, ports,
 * ranks written out below), host globs, the exact one-line errors, and the
 * address records every rank exchanges. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "profile/profile.h"
#include "wire/eth.h"
#include "wire/ipv4.h"

#define ERRLEN RP_PROFILE_ERR_LEN

static struct rp_profile *load(const char *yaml, size_t nranks, const struct rp_launch_rank *ranks, char *err)
{
	struct rp_profile_opts o = {.nranks = nranks, .ranks = ranks};
	return rp_profile_load_string("t.yaml", yaml, &o, err, ERRLEN);
}

static void expect_host(const struct rp_host *h, const char *name, const char *mac, const char *ip, unsigned plen,
			const char *port)
{
	char m[18], a[16];
	assert_string_equal(h->name, name);
	if (mac) {
		rp_mac_format(h->mac, m);
		assert_string_equal(m, mac);
		assert_true(h->mac_known);
	} else {
		assert_true(h->mac_auto);
		assert_false(h->mac_known);
	}
	if (ip) {
		rp_ipv4_addr_format(h->ipv4, a);
		assert_string_equal(a, ip);
		assert_int_equal(h->ipv4_plen, plen);
		assert_false(h->ip_pending);
	} else {
		assert_true(h->ipv4_netdev);
		assert_true(h->ip_pending);
	}
	assert_string_equal(h->port, port);
}

/* Four hosts from i alone: i = 0..3.
 *   name  h{i:02}                     h00 h01 h02 h03
 *   mac   ..:{i/256:02x}:{i%256+1:02x}  00:01 00:02 00:03 00:04
 *   ipv4  10.{i/2}.0.{i%2+1}/24       10.0.0.1 10.0.0.2 10.1.0.1 10.1.0.2
 *   gateway 10.{i/2}.0.254            10.0.0.254 10.0.0.254 10.1.0.254 10.1.0.254
 *   port  net_ring{3-i}               net_ring3 net_ring2 net_ring1 net_ring0 */
static void test_expand_index(void **state)
{
	(void)state;
	char err[ERRLEN];
	struct rp_profile *p = load("host_template:\n"
				    "  count: 4\n"
				    "  name: \"h{i:02}\"\n"
				    "  mac: \"02:00:00:00:{i/256:02x}:{i%256+1:02x}\"\n"
				    "  ipv4: \"10.{i/2}.0.{i%2+1}/24\"\n"
				    "  gateway: \"10.{i/2}.0.254\"\n"
				    "  port: \"net_ring{3-i}\"\n"
				    "traffic:\n"
				    "  - {pattern: all-to-all, hosts: \"h0*\", messages: 1}\n",
				    0, NULL, err);
	if (!p)
		fail_msg("%s", err);
	assert_int_equal(p->nhosts, 4);
	expect_host(&p->hosts[0], "h00", "02:00:00:00:00:01", "10.0.0.1", 24, "net_ring3");
	expect_host(&p->hosts[1], "h01", "02:00:00:00:00:02", "10.0.0.2", 24, "net_ring2");
	expect_host(&p->hosts[2], "h02", "02:00:00:00:00:03", "10.1.0.1", 24, "net_ring1");
	expect_host(&p->hosts[3], "h03", "02:00:00:00:00:04", "10.1.0.2", 24, "net_ring0");
	assert_int_equal(p->hosts[2].gw4, 0x0A0100FE); /* 10.1.0.254 */
	assert_int_equal(p->hosts[3].rank, -1);       /* no rank: host i on rank i when bound */
	assert_int_equal(p->traffic[0].nhosts, 4);    /* h0* is h00..h03 */
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(p->traffic[0].hosts[i], i);
	rp_profile_free(p);
}

/* Six ranks on two nodes, three each (what mpirun -np 6 --map-by node... gives as
 * nodes a, a, a, b, b, b): count: ranks is 6, host i on rank i.
 *   rank  node node_index local_rank   name            iface  ipv4
 *   0     a    0          0            a-0 (h0..)      eth0   10.0.0.1/24
 *   1     a    0          1            a-1             eth1   10.0.0.2/24
 *   2     a    0          2            a-2             eth2   10.0.0.3/24
 *   3     b    1          0            b-0             eth0   10.0.1.1/24
 *   4     b    1          1            b-1             eth1   10.0.1.2/24
 *   5     b    1          2            b-2             eth2   10.0.1.3/24 */
static const struct rp_launch_rank two_nodes[] = {{"a", 0}, {"a", 1}, {"a", 2}, {"b", 0}, {"b", 1}, {"b", 2}};

static void test_expand_launch(void **state)
{
	(void)state;
	char err[ERRLEN];
	struct rp_profile *p = load("host_template:\n"
				    "  count: ranks\n"
				    "  name: \"{node}-{local_rank}\"\n"
				    "  port: \"net_af_packet{rank},iface=eth{local_rank}\"\n"
				    "  ipv4: \"10.0.{node_index}.{local_rank + 1}/24\"\n"
				    "traffic:\n"
				    "  - {pattern: incast, receiver: a-0, senders: \"b-*\", messages: 1}\n",
				    6, two_nodes, err);
	if (!p)
		fail_msg("%s", err);
	assert_int_equal(p->nhosts, 6);
	expect_host(&p->hosts[0], "a-0", NULL, "10.0.0.1", 24, "net_af_packet0,iface=eth0");
	expect_host(&p->hosts[1], "a-1", NULL, "10.0.0.2", 24, "net_af_packet1,iface=eth1");
	expect_host(&p->hosts[2], "a-2", NULL, "10.0.0.3", 24, "net_af_packet2,iface=eth2");
	expect_host(&p->hosts[3], "b-0", NULL, "10.0.1.1", 24, "net_af_packet3,iface=eth0");
	expect_host(&p->hosts[4], "b-1", NULL, "10.0.1.2", 24, "net_af_packet4,iface=eth1");
	expect_host(&p->hosts[5], "b-2", NULL, "10.0.1.3", 24, "net_af_packet5,iface=eth2");
	assert_int_equal(p->traffic[0].nhosts, 3); /* b-* : b-0, b-1, b-2 */
	assert_int_equal(p->traffic[0].hosts[0], 3);
	assert_int_equal(p->traffic[0].hosts[2], 5);
	rp_profile_free(p);

	/* senders: all is every host but the receiver: a-1, a-2, b-0, b-1, b-2 */
	p = load("host_template: {count: ranks, name: \"{node}-{local_rank}\", ipv4: \"10.0.0.{i+1}\", port: net_null0}\n"
		 "traffic: [{pattern: incast, receiver: a-0, senders: all, messages: 1}]\n",
		 6, two_nodes, err);
	if (!p)
		fail_msg("%s", err);
	assert_int_equal(p->traffic[0].nhosts, 5);
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(p->traffic[0].hosts[i], i + 1);
	rp_profile_free(p);

	/* Without the launch's nodes (plan --ranks 3): rank r alone on node{r}, local rank 0. */
	p = load("host_template: {count: ranks, name: \"{node}x{node_index}\", port: net_null0, ipv4: netdev}\n"
		 "traffic: [{pattern: all-to-all, hosts: all, messages: 1}]\n",
		 3, NULL, err);
	if (!p)
		fail_msg("%s", err);
	expect_host(&p->hosts[0], "node0x0", NULL, NULL, 0, "net_null0");
	expect_host(&p->hosts[2], "node2x2", NULL, NULL, 0, "net_null0");
	assert_int_equal(p->traffic[0].nhosts, 3);
	rp_profile_free(p);
}

/* rank: "{i/2}" puts hosts 0,1 on rank 0 and 2,3 on rank 1 of two ranks on node a:
 *   host  rank  local_rank  name         ipv4
 *   0     0     0           r0-0         10.9.0.2
 *   1     0     0           r0-1         10.9.0.3
 *   2     1     1           r1-0         10.9.1.2
 *   3     1     1           r1-1         10.9.1.3
 * (launch placeholders follow the host's rank; i%2 tells the hosts of a rank apart). */
static void test_expand_rank_key(void **state)
{
	(void)state;
	char err[ERRLEN];
	static const struct rp_launch_rank one_node[] = {{"a", 0}, {"a", 1}};
	struct rp_profile *p = load("host_template:\n"
				    "  count: 4\n"
				    "  rank: \"{i / 2}\"\n"
				    "  name: r{rank}-{i % 2}\n"
				    "  mac: \"02:00:00:00:0{local_rank}:{i:x}0\"\n"
				    "  ipv4: 10.9.{local_rank}.{i%2+2}\n"
				    "traffic:\n"
				    "  - {pattern: flow, src: r0-0, dst: r1-1, messages: 1}\n",
				    2, one_node, err);
	if (!p)
		fail_msg("%s", err);
	assert_int_equal(p->nhosts, 4);
	static const int rank[] = {0, 0, 1, 1};
	static const char *const name[] = {"r0-0", "r0-1", "r1-0", "r1-1"};
	static const char *const mac[] = {"02:00:00:00:00:00", "02:00:00:00:00:10", "02:00:00:00:01:20",
					  "02:00:00:00:01:30"};
	static const char *const ip[] = {"10.9.0.2", "10.9.0.3", "10.9.1.2", "10.9.1.3"};
	for (size_t i = 0; i < 4; i++) {
		expect_host(&p->hosts[i], name[i], mac[i], ip[i], RP_PLEN_NONE, "");
		assert_int_equal(p->hosts[i].rank, rank[i]);
	}
	rp_profile_free(p);
}

static const struct {
	const char *yaml;
	size_t nranks;
	const char *msg;
} bad[] = {
	{"host_template: {count: 2, name: \"h{j}\", mac: auto, ipv4: netdev}\ntraffic: []\n", 0,
	 "t.yaml:1:33: key 'host_template[0].name': 'h{j}': unknown placeholder 'j'; known: i, count, ranks, rank, "
	 "local_rank, node, node_index"},
	{"host_template: {count: 2, ipv4: \"10.0.0.{i+}\"}\ntraffic: []\n", 0,
	 "t.yaml:1:33: key 'host_template[0].ipv4': '10.0.0.{i+}': expected a number, a name or '(' at the end"},
	{"host_template: {count: 2, ipv4: \"10.0.0.{i/0}\"}\ntraffic: []\n", 0,
	 "t.yaml:1:33: key 'host_template[0].ipv4': '10.0.0.{i/0}': division by zero"},
	/* 999999999999 squared is about 1e24, past int64 (9.2e18): an error, not a wrapped value */
	{"host_template: {count: 2, ipv4: \"10.0.0.{999999999999*999999999999}\"}\ntraffic: []\n", 0,
	 "t.yaml:1:33: key 'host_template[0].ipv4': '10.0.0.{999999999999*999999999999}': value out of range"},
	{"host_template: {count: 2, ipv4: \"10.0.0.{i-1}\"}\ntraffic: []\n", 0,
	 "t.yaml:1:33: key 'host_template[0].ipv4': '10.0.0.{i-1}': {i-1} is -1 for host 0: placeholders must not be "
	 "negative"},
	{"host_template: {count: 2, ipv4: \"10.0.0.{i\"}\ntraffic: []\n", 0,
	 "t.yaml:1:33: key 'host_template[0].ipv4': '10.0.0.{i': a '{' without its '}' (write {{ for a brace)"},
	{"host_template: {count: 2, ipv4: \"10.0.0.{i:q}\"}\ntraffic: []\n", 0,
	 "t.yaml:1:33: key 'host_template[0].ipv4': '10.0.0.{i:q}': bad format 'q': expected [0][WIDTH][d|x|X], like "
	 "02 or 02x"},
	/* 10.0.0.255 + 1: the address itself is checked by the host parser, for host 1 */
	{"host_template: {count: 2, ipv4: \"10.0.0.{255+i}\"}\ntraffic: []\n", 0,
	 "t.yaml:1:33: key 'host_template[1].ipv4': expected an IPv4 address like 10.0.0.1 or 10.1.0.2/24, or netdev, "
	 "got '10.0.0.256'"},
	/* duplicates after expansion: i/2 gives hosts 0 and 1 one address, one name */
	{"host_template: {count: 4, name: \"h{i}\", ipv4: \"10.0.0.{i/2+1}\"}\ntraffic: []\n", 0,
	 "t.yaml:1:47: key 'host_template[1].ipv4': address is also hosts[0]'s (h0); every host needs its own"},
	{"host_template: {count: 4, name: \"h{i/2}\", ipv4: \"10.0.0.{i+1}\"}\ntraffic: []\n", 0,
	 "t.yaml:1:33: key 'host_template[1].name': duplicate host name 'h0' (also hosts[0])"},
	{"host_template: {count: 4, mac: \"02:00:00:00:00:0{i/2}\", ipv4: \"10.0.0.{i+1}\"}\ntraffic: []\n", 0,
	 "t.yaml:1:32: key 'host_template[1].mac': MAC 02:00:00:00:00:00 is also hosts[0]'s (h0); every host needs "
	 "its own"},
	/* the count and the ranks */
	{"host_template: {count: 8, ipv4: netdev}\ntraffic: []\n", 4,
	 "t.yaml:1:24: key 'host_template.count': 8 hosts, host i on rank i, but 4 ranks run: start 8 (mpirun -np 8), "
	 "write count: ranks, or place the hosts with rank: or node:"},
	{"host_template: {count: ranks, ipv4: netdev}\ntraffic: []\n", 0,
	 "t.yaml:1:24: key 'host_template.count': ranks: one host per rank, but the number of ranks is not known here: "
	 "it is the launcher's size under mpirun/srun (roceprobe plan: give --ranks N), or give a number"},
	{"host_template: {count: 2, node: n1, ipv4: \"10.0.{local_rank}.{i+1}\"}\ntraffic: []\n", 2,
	 "t.yaml:1:43: key 'host_template[0].ipv4': '10.0.{local_rank}.{i+1}': {local_rank} is not known here: the "
	 "host's rank follows from node: when the hosts are bound"},
	{"host_template: {count: 2, rank: \"{local_rank}\", ipv4: \"10.0.0.{i+1}\"}\ntraffic: []\n", 2,
	 "t.yaml:1:33: key 'host_template[0].rank': '{local_rank}': {local_rank} is not known here: rank: itself may use "
	 "i and count only"},
	{"host_template: {count: 3, rank: \"{i}\", ipv4: \"10.0.{rank}.1\"}\ntraffic: []\n", 2,
	 "t.yaml:1:46: key 'host_template[2].ipv4': '10.0.{rank}.1': {rank}: host 2 runs on rank 2, but 2 ranks run"},
	{"host_template: {count: 2, ipv4: \"10.0.{node}.1\"}\ntraffic: []\n", 0,
	 "t.yaml:1:33: key 'host_template[0].ipv4': '10.0.{node}.1': {node} needs the launch: it is known under "
	 "mpirun/srun (roceprobe plan: give --ranks N)"},
	{"hosts: [{name: a, mac: auto, ipv4: netdev}]\nhost_template: {count: 2}\ntraffic: []\n", 0,
	 "t.yaml:2:1: key 'host_template': give either hosts (a list) or host_template, not both"},
	{"host_template: {count: 2, ipv4: netdev, speeed: 1G}\ntraffic: []\n", 0,
	 "t.yaml:1:41: key 'host_template.speeed': unknown key; allowed: count, name, mac, ipv4, ipv6, gateway, "
	 "gateway_mac, port, pci, speed, impair, respond, rank, node, nics"},
	/* globs in traffic entries */
	{"host_template: {count: 2, ipv4: netdev}\ntraffic: [{pattern: all-to-all, hosts: \"x*\"}]\n", 0,
	 "t.yaml:2:40: key 'traffic[0].hosts': 'x*' matches no host name"},
};

static void test_errors(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char err[ERRLEN] = "";
		struct rp_profile *p = load(bad[i].yaml, bad[i].nranks, NULL, err);
		if (p || strcmp(err, bad[i].msg) != 0)
			fail_msg("case %zu:\n  want: %s\n  got:  %s", i, bad[i].msg, p ? "(loaded)" : err);
		assert_null(strchr(err, '\n'));
	}
}

/* What rank 1 reads for its host h1 (mac: auto, ipv4: netdev) travels in a
 * record to rank 0's copy of the profile; then two hosts that read one
 * address are found. Addresses as a kernel would give them: 10.77.0.2/24. */
static void test_records(void **state)
{
	(void)state;
	char err[ERRLEN];
	const char *yaml = "host_template: {count: 3, port: \"net_af_packet{i},iface=v{i}\", ipv4: netdev}\n"
			   "traffic: [{pattern: all-to-all, messages: 1}]\n";
	struct rp_profile *r1 = load(yaml, 3, NULL, err), *r0 = load(yaml, 3, NULL, err);
	assert_non_null(r1);
	assert_non_null(r0);
	/* rank 1 opened its port and read its netdev */
	struct rp_host *h = &r1->hosts[1];
	static const uint8_t mac[6] = {0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0x01};
	memcpy(h->mac, mac, 6);
	h->mac_known = true;
	uint32_t ip = 0x0A4D0002; /* 10.77.0.2 */
	rp_host_addr_set_netdev(h, &ip, 24, NULL, 0);
	assert_false(h->ip_pending);
	struct rp_host_rec rec;
	rp_host_rec_export(h, &rec);
	assert_int_equal(rec.flags, RP_HOST_REC_MAC | RP_HOST_REC_IP4);
	/* a host whose rank read nothing sends nothing */
	struct rp_host_rec none;
	rp_host_rec_export(&r1->hosts[2], &none);
	assert_int_equal(none.flags, 0);
	rp_host_rec_import(&r0->hosts[2], &none);
	assert_true(r0->hosts[2].ip_pending);
	assert_false(r0->hosts[2].mac_known);
	/* rank 0 learns h1 */
	rp_host_rec_import(&r0->hosts[1], &rec);
	char m[18], a[16];
	rp_mac_format(r0->hosts[1].mac, m);
	rp_ipv4_addr_format(r0->hosts[1].ipv4, a);
	assert_string_equal(m, "02:aa:bb:cc:dd:01");
	assert_string_equal(a, "10.77.0.2");
	assert_int_equal(r0->hosts[1].ipv4_plen, 24);
	assert_false(r0->hosts[1].ip_pending);
	/* h0 and h2 still unread */
	assert_int_equal(rp_profile_addrs_check(r0, err, sizeof(err)), -1);
	assert_string_equal(err, "host 'h0': its ipv4: netdev address was not read by the rank that runs it");
	/* h0 reads 10.77.0.1/24, h2 reads h1's 10.77.0.2: a duplicate, named */
	uint32_t ip0 = 0x0A4D0001;
	rp_host_addr_set_netdev(&r0->hosts[0], &ip0, 24, NULL, 0);
	rp_host_addr_set_netdev(&r0->hosts[2], &ip, 24, NULL, 0);
	assert_int_equal(rp_profile_addrs_check(r0, err, sizeof(err)), -1);
	assert_string_equal(err, "hosts 'h1' (its netdev's) and 'h2' (its netdev's) have the same IPv4 address "
				 "10.77.0.2: every host needs its own");
	uint32_t ip2 = 0x0A4D0003;
	rp_host_addr_set_netdev(&r0->hosts[2], &ip2, 24, NULL, 0);
	assert_int_equal(rp_profile_addrs_check(r0, err, sizeof(err)), 0);
	/* one MAC on two ports */
	memcpy(r0->hosts[0].mac, mac, 6);
	r0->hosts[0].mac_known = true;
	assert_int_equal(rp_profile_addrs_check(r0, err, sizeof(err)), -1);
	assert_string_equal(err, "hosts 'h0' (its port's) and 'h1' (its port's) have the same MAC 02:aa:bb:cc:dd:01: "
				 "every host needs its own");
	rp_profile_free(r0);
	rp_profile_free(r1);
}

/* A gateway next to ipv4: netdev is checked once the netdev's subnet is known. */
static void test_netdev_gateway(void **state)
{
	(void)state;
	char err[ERRLEN];
	struct rp_profile *p = load("host_template: {count: 2, ipv4: netdev, gateway: 10.5.0.1}\n"
				    "traffic: [{pattern: flow, src: h0, dst: h1, messages: 1}]\n",
				    0, NULL, err);
	if (!p)
		fail_msg("%s", err);
	uint32_t a = 0x0A050002, b = 0x0A060002; /* 10.5.0.2/24 (gateway inside), 10.6.0.2/24 (outside) */
	rp_host_addr_set_netdev(&p->hosts[0], &a, 24, NULL, 0);
	rp_host_addr_set_netdev(&p->hosts[1], &b, 24, NULL, 0);
	assert_int_equal(rp_profile_addrs_check(p, err, sizeof(err)), -1);
	assert_string_equal(err, "host 'h1': gateway 10.5.0.1 is not a next hop inside its netdev's subnet 10.6.0.2/24");
	rp_profile_free(p);
}

static void test_shipped_template(void **state)
{
	(void)state;
	char err[ERRLEN];
	struct rp_profile_opts o = {.nranks = 64};
	struct rp_profile *p = rp_profile_load(RP_PROFILES_DIR "/cluster-all2all-64.yaml", &o, err, sizeof(err));
	if (!p)
		fail_msg("%s", err);
	assert_int_equal(p->nhosts, 64);
	assert_string_equal(p->hosts[0].name, "cn01");
	assert_string_equal(p->hosts[63].name, "cn64");
	assert_true(p->hosts[63].mac_auto && p->hosts[63].ipv4_netdev && p->hosts[63].port_is_pci);
	assert_int_equal(p->traffic[0].nhosts, 64);
	rp_profile_free(p);
	/* 20 lines at most, as issue 10 asks */
	FILE *f = fopen(RP_PROFILES_DIR "/cluster-all2all-64.yaml", "r");
	assert_non_null(f);
	int lines = 0, c;
	while ((c = fgetc(f)) != EOF)
		lines += c == '\n';
	fclose(f);
	assert_true(lines <= 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_expand_index),   cmocka_unit_test(test_expand_launch),
		cmocka_unit_test(test_expand_rank_key), cmocka_unit_test(test_errors),
		cmocka_unit_test(test_records),         cmocka_unit_test(test_netdev_gateway),
		cmocka_unit_test(test_shipped_template),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
