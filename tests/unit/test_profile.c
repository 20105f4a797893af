/* lib/profile: units, the table of bad profiles with their exact messages,
 * --set overrides, and the shipped profiles. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "profile/profile.h"
#include "wire/ipv4.h"
#include "wire/ipv6.h"
#include "wire/sport.h"

#define ERRLEN RP_PROFILE_ERR_LEN

static void test_sizes(void **state)
{
	(void)state;
	static const struct {
		const char *s;
		uint64_t v;
	} ok[] = {
		{"64", 64}, {"64B", 64}, {"4KiB", 4096}, {"1MiB", 1048576}, {"1GiB", 1073741824},
		{"1KB", 1000}, {"1MB", 1000000}, {"1.5KiB", 1536}, {" 2 KiB", 2048}, {"0", 0}, {"10000", 10000},
		{"64kib", 65536},
	};
	static const char *const bad[] = {"64K", "1.3B", "abc", "", "-1", "KiB", "1.0001KB", "99999999999999999999"};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		uint64_t v = 12345;
		assert_int_equal(rp_parse_size(ok[i].s, &v), 0);
		assert_int_equal(v, ok[i].v);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t v;
		assert_int_equal(rp_parse_size(bad[i], &v), -1);
	}
}

static void test_rates(void **state)
{
	(void)state;
	static const struct {
		const char *s;
		uint64_t bps;
		uint32_t ppm;
	} ok[] = {
		{"100G", 100000000000ull, 0}, {"25Gbps", 25000000000ull, 0}, {"400Mbit/s", 400000000ull, 0},
		{"12.5G", 12500000000ull, 0}, {"1T", 1000000000000ull, 0}, {"10kbps", 10000, 0}, {"500bps", 500, 0},
		{"40Gb/s", 40000000000ull, 0}, {"25%", 0, 250000}, {"12.5%", 0, 125000}, {"100%", 0, 1000000},
		{"0.5%", 0, 5000},
	};
	static const char *const bad[] = {"fast", "100", "0G", "101%", "0%", "%", "10Q", "1.5bps", "-5G", "25 %x"};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct rp_rate r;
		assert_int_equal(rp_parse_rate(ok[i].s, &r), 0);
		assert_int_equal(r.bps, ok[i].bps);
		assert_int_equal(r.ppm, ok[i].ppm);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rp_rate r;
		assert_int_equal(rp_parse_rate(bad[i], &r), -1);
	}
	struct rp_rate quarter = {.ppm = 250000}, third = {.ppm = 333333};
	assert_int_equal(rp_rate_bps(&quarter, 100000000000ull), 25000000000ull);
	assert_int_equal(rp_rate_bps(&third, 25000000000ull), 8333325000ull);
	uint64_t bps;
	assert_int_equal(rp_parse_bitrate("25%", &bps), -1);
}

static void test_durations_counts_names(void **state)
{
	(void)state;
	static const struct {
		const char *s;
		uint64_t ns;
	} ok[] = {
		{"50us", 50000}, {"1ms", 1000000}, {"2s", 2000000000ull}, {"100ns", 100}, {"1.5us", 1500},
		{"0", 0}, {"0.25ms", 250000}, {"3\xc2\xb5s", 3000},
	};
	static const char *const bad[] = {"50", "1.0001ns", "5m", "soon", "", "us"};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		uint64_t v;
		assert_int_equal(rp_parse_duration(ok[i].s, &v), 0);
		assert_int_equal(v, ok[i].ns);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t v;
		assert_int_equal(rp_parse_duration(bad[i], &v), -1);
	}
	uint64_t v;
	assert_int_equal(rp_parse_uint("1_000_000", UINT64_MAX, &v), 0);
	assert_int_equal(v, 1000000);
	assert_int_equal(rp_parse_uint("0xC0FFEE", UINT64_MAX, &v), 0);
	assert_int_equal(v, 0xC0FFEE);
	assert_int_equal(rp_parse_uint("1.5", UINT64_MAX, &v), -1);
	assert_int_equal(rp_parse_uint("300", 255, &v), -1);

	assert_int_equal(rp_ecn_parse("not-ect"), RP_ECN_NOT_ECT);
	assert_int_equal(rp_ecn_parse("ect0"), RP_ECN_ECT0);
	assert_int_equal(rp_ecn_parse("ECT1"), RP_ECN_ECT1);
	assert_int_equal(rp_ecn_parse("ce"), RP_ECN_CE);
	assert_int_equal(rp_ecn_parse("ect2"), -1);
	assert_int_equal(rp_verb_parse("write"), RP_VERB_WRITE);
	assert_int_equal(rp_verb_parse("write-imm"), RP_VERB_WRITE_IMM);
	assert_int_equal(rp_verb_parse("send_imm"), RP_VERB_SEND_IMM);
	assert_int_equal(rp_verb_parse("read-response"), RP_VERB_READ_RESP);
	assert_int_equal(rp_verb_parse("read"), -1);
	assert_int_equal(rp_pattern_parse("all-to-all"), RP_PATTERN_ALL_TO_ALL);
	assert_int_equal(rp_pattern_parse("fan_out"), RP_PATTERN_FAN_OUT);

	char buf[32];
	assert_string_equal(rp_format_size(65536, buf, sizeof(buf)), "64KiB");
	assert_string_equal(rp_format_size(10000, buf, sizeof(buf)), "10000B");
	assert_string_equal(rp_format_bps(12500000000ull, buf, sizeof(buf)), "12.5G");
	assert_string_equal(rp_format_ns(1500000, buf, sizeof(buf)), "1.5ms");
}

#define HOSTS                                                       \
	"hosts:\n"                                                  \
	"  - {name: h0, mac: \"02:00:00:00:00:01\", ipv4: 10.0.0.1}\n" \
	"  - {name: h1, mac: \"02:00:00:00:00:02\", ipv4: 10.0.0.2}\n"

static const struct bad_case {
	const char *yaml;
	const char *msg;
} bad_cases[] = {
	{HOSTS "traffic:\n  - {pattern: flow, src: h0, dst: h1, rate: fast}\n",
	 "bad.yaml:5:45: key 'traffic[0].rate': expected a rate like 100G, 25Gbps or 40%, got 'fast'"},
	{HOSTS "traffic:\n  - pattern: flow\n    src: h0\n    dst: h9\n",
	 "bad.yaml:7:10: key 'traffic[0].dst': no host named 'h9' (hosts: h0, h1)"},
	{HOSTS "traffic:\n  - pattern: flow\n    src: h0\n    dst: h1\n    mtu: 1500\n",
	 "bad.yaml:8:10: key 'traffic[0].mtu': expected one of 256, 512, 1024, 2048, 4096 (the RoCE path MTU), got '1500'"},
	{"hosts:\n  - {name: h0, mac: \"02:00:00:00:00:01\", ipv4: 10.0.0.1}\n"
	 "  - {name: h0, mac: \"02:00:00:00:00:02\", ipv4: 10.0.0.2}\ntraffic: []\n",
	 "bad.yaml:3:12: key 'hosts[1].name': duplicate host name 'h0' (also hosts[0])"},
	{HOSTS "trafic:\n  - {pattern: flow, src: h0, dst: h1}\n",
	 "bad.yaml:4:1: key 'trafic': unknown key; allowed: name, description, defaults, hosts, host_template, traffic, fabric, qpn_seed, lcores, certify, switches"},
	{HOSTS "traffic:\n  - {pattern: flow, src: h0, dst: h1, message_size: 64K}\n",
	 "bad.yaml:5:53: key 'traffic[0].message_size': expected a size like 4096, 64KiB or 1MB, got '64K'"},
	{HOSTS "traffic:\n  - {pattern: flow, src: h0, dst: h1, ecn: ect2}\n",
	 "bad.yaml:5:44: key 'traffic[0].ecn': expected one of not-ect, ect0, ect1, ce, got 'ect2'"},
	{HOSTS "traffic:\n  - {pattern: flow, src: h0, dst: h1, opcode: read}\n",
	 "bad.yaml:5:47: key 'traffic[0].opcode': expected one of write, write_imm, send, send_imm, read_resp, got 'read'"},
	{HOSTS "traffic:\n  - {pattern: flow, src: h0, dst: h1, burst_on: 10us}\n",
	 "bad.yaml:5:49: key 'traffic[0].burst_on': burst_on and burst_off go together: give both (above 0) or neither"},
	{HOSTS "traffic:\n  - {kind: pfc, host: h0, priorities: [3], fps: 4000}\n",
	 "bad.yaml:5:49: key 'traffic[0].fps': 4000 frames/s of 65535 quanta keep the link of 'h0' paused 134% of the "
	 "time at 100G; pass --allow-pause-storm to send a pause storm on purpose"},
	{HOSTS "traffic:\n  - {pattern: incast, senders: [h0, h1]}\n",
	 "bad.yaml:5:5: key 'traffic[0].receiver': missing; an incast needs a receiver host name"},
	{"hosts:\n  - {name: h0, ipv4: 10.0.0.1}\ntraffic: []\n",
	 "bad.yaml:2:5: key 'hosts[0].mac': missing; every host needs a MAC address like 02:00:00:00:00:01 (or auto: its port's own)"},
	{HOSTS "traffic:\n  - {pattern: flow, src: h0, dst: h1, duration: 1ms, packets: 10}\n",
	 "bad.yaml:5:54: key 'traffic[0].packets': conflicts with 'duration'; give one of duration, packets, messages"},
	{HOSTS "traffic:\n  - {pattern: flow, src: h0, dst: h1, rate: 200G}\n",
	 "bad.yaml:5:45: key 'traffic[0].rate': rate 200G is above the 100G link of host 'h0'"},
	{HOSTS "traffic:\n  - {pattern: flow, src: h0, dst: h1, dscp: 64}\n",
	 "bad.yaml:5:45: key 'traffic[0].dscp': expected a whole number from 0 to 63, got '64'"},
	{HOSTS "traffic:\n  - {pattern: flow, src: h0, dst: h1\n",
	 "bad.yaml:6:1: invalid YAML: did not find expected ',' or '}' (while parsing a flow mapping)"},
	{"", "bad.yaml:1:1: key '(top)': the profile is empty; expected a mapping with hosts and traffic"},
	{HOSTS "traffic:\n  - {pattern: ring, src: h0, dst: h1}\n",
	 "bad.yaml:5:15: key 'traffic[0].pattern': expected one of flow, incast, all-to-all, permutation, fan-out, got 'ring'"},
	{HOSTS "traffic:\n  - {pattern: flow, src: h0, dst: h0}\n",
	 "bad.yaml:5:35: key 'traffic[0].dst': src and dst are the same host 'h0'"},
	{"hosts:\n  - {name: h0, mac: \"02:00:00:00:00:01\", ipv4: 10.0.0.1, ipv6: fd00::1}\n"
	 "  - {name: h1, mac: \"02:00:00:00:00:02\", ipv6: fd00::2}\n"
	 "traffic:\n  - {pattern: flow, src: h0, dst: h1, ip: 4}\n",
	 "bad.yaml:5:5: key 'traffic[0]': ip is 4 but host 'h1' has no ipv4 address"},
	{HOSTS "traffic:\n  - {pattern: flow, src: h0, dst: h1, start: soon}\n",
	 "bad.yaml:5:46: key 'traffic[0].start': expected a duration like 50us, 1ms or 2s, got 'soon'"},
	{HOSTS "traffic:\n  - {pattern: flow, src: h0, dst: h1, vlan: 4095}\n",
	 "bad.yaml:5:45: key 'traffic[0].vlan': expected a VLAN id from 0 to 4094 or none, got '4095'"},
	{HOSTS "traffic:\n  - pattern: flow\n    src: h0\n    dst: h1\n    qps: 0\n",
	 "bad.yaml:8:10: key 'traffic[0].qps': expected a whole number from 1 to 256, got '0'"},
	{HOSTS "traffic:\n  - {kind: pfc, host: h0, frame: pause, priorities: [3], fps: 10}\n",
	 "bad.yaml:5:53: key 'traffic[0].priorities': a PAUSE frame has no priorities; remove the key or use frame: pfc"},
	{HOSTS "traffic:\n  - pattern: flow\n    src: h0\n    dst: h1\n    mtu: 1024\n    mtu: 2048\n",
	 "bad.yaml:9:5: duplicate key 'mtu' (first at line 8)"},
	{"hosts: {name: h0}\ntraffic: []\n", "bad.yaml:1:8: key 'hosts': expected a list of hosts, got a mapping"},
	{HOSTS "traffic:\n  - {pattern: flow, src: h0, dst: h1, colour: red}\n",
	 "bad.yaml:5:39: key 'traffic[0].colour': unknown key; allowed: name, kind, pattern, src, dst, opcode, "
	 "message_size, mtu, qps, dscp, ecn, vlan, pcp, sport, sport_base, rate, burst_on, burst_off, start, duration, "
	 "packets, messages, psn_start, ip, imm, nic_spread, rtt, phases"},
	{HOSTS "traffic:\n  - {pattern: all-to-all, hosts: [h0, h1], burst_on: 1us, burst_off: 1us}\n",
	 "bad.yaml:5:54: key 'traffic[0].burst_on': all-to-all makes its own phases; burst_on/burst_off do not apply to it"},
	/* Rate phases (issue 26). */
	{HOSTS "traffic:\n  - {pattern: flow, src: h0, dst: h1, phases: [{at: 1ms, rate: 20%}]}\n",
	 "bad.yaml:5:53: key 'traffic[0].phases[0].at': the first phase starts at 0 (the entry's start), got '1ms'"},
	{HOSTS "traffic:\n  - {pattern: flow, src: h0, dst: h1, phases: [{at: 0ms, rate: 20%}, {at: 0ms, rate: 80%}]}\n",
	 "bad.yaml:5:75: key 'traffic[0].phases[1].at': '0ms' is not after the previous phase's at; phases go in time order"},
	{HOSTS "traffic:\n  - {pattern: flow, src: h0, dst: h1, rate: 10G, phases: [{at: 0ms, rate: 20%}]}\n",
	 "bad.yaml:5:50: key 'traffic[0].phases': rate and phases do not go together: each phase gives its rate"},
	{HOSTS "traffic:\n  - {pattern: flow, src: h0, dst: h1, burst_on: 1us, burst_off: 1us, phases: [{at: 0ms, rate: 20%}]}\n",
	 "bad.yaml:5:70: key 'traffic[0].phases': phases and burst_on/burst_off do not go together; give one of them"},
	{HOSTS "traffic:\n  - {pattern: flow, src: h0, dst: h1, packets: 10, phases: [{at: 0ms, rate: 20%}]}\n",
	 "bad.yaml:5:48: key 'traffic[0].packets': phases end with the entry's duration; give duration, not packets or messages"},
	{HOSTS "traffic:\n  - {pattern: flow, src: h0, dst: h1, duration: 1ms, phases: [{at: 0ms, rate: 20%}, {at: 1ms, rate: 80%}]}\n",
	 "bad.yaml:5:90: key 'traffic[0].phases[1].at': '1ms' is not before the entry's end (its duration); the phase would never run"},
	{HOSTS "traffic:\n  - {pattern: flow, src: h0, dst: h1, phases: [{at: 0ms, rate: fast}]}\n",
	 "bad.yaml:5:64: key 'traffic[0].phases[0].rate': expected a rate like 100G, 25Gbps or 40%, got 'fast'"},
	{HOSTS "traffic:\n  - {pattern: flow, src: h0, dst: h1, phases: [{at: 0ms}]}\n",
	 "bad.yaml:5:48: key 'traffic[0].phases[0]': a phase needs at and rate, like {at: 10ms, rate: 80%}"},
	{HOSTS "traffic:\n  - {pattern: flow, src: h0, dst: h1, phases: [{at: 0ms, rate: 20%, colour: red}]}\n",
	 "bad.yaml:5:69: key 'traffic[0].phases[0].colour': unknown key; allowed: at, rate"},
	{HOSTS "traffic:\n  - {pattern: flow, src: h0, dst: h1, phases: []}\n",
	 "bad.yaml:5:47: key 'traffic[0].phases': expected 1 to 64 phases, got 0"},
	{HOSTS "traffic:\n  - {pattern: flow, src: h0, dst: h1, phases: [{at: 0ms, rate: 200G}]}\n",
	 "bad.yaml:5:64: key 'traffic[0].phases[0].rate': rate 200G is above the 100G link of host 'h0'"},
	{HOSTS "traffic:\n  - {pattern: flow, src: h0, dst: h1, phases: {at: 0ms, rate: 20%}}\n",
	 "bad.yaml:5:47: key 'traffic[0].phases': expected a list of phases like [{at: 0ms, rate: 20%}, {at: 10ms, rate: 80%}], got a mapping"},
	{HOSTS "traffic:\n  - {pattern: all-to-all, hosts: [h0, h1], phases: [{at: 0ms, rate: 20%}]}\n",
	 "bad.yaml:5:44: key 'traffic[0].phases': all-to-all makes its own phases; a rate over time does not apply to it"},
	{HOSTS "x: &a 1\ny: *a\n", "bad.yaml:5:4: YAML aliases (*name) are not supported in profiles"},
	{"hosts:\n  - {name: h0, mac: \"02:00:00:00:00:01\"}\ntraffic: []\n",
	 "bad.yaml:2:5: key 'hosts[0]': a host needs an ipv4 or an ipv6 address (or both)"},
	{"hosts:\n  - {name: h0, mac: \"02:00:00:00:00:01\", ipv4: 10.0.0.300}\ntraffic: []\n",
	 "bad.yaml:2:48: key 'hosts[0].ipv4': expected an IPv4 address like 10.0.0.1 or 10.1.0.2/24, or netdev, got "
	 "'10.0.0.300'"},
	/* Routed hosts: prefixes and next hops (issue 11). */
	{"hosts:\n  - {name: h0, mac: \"02:00:00:00:00:01\", ipv4: 10.1.0.2/33}\ntraffic: []\n",
	 "bad.yaml:2:48: key 'hosts[0].ipv4': expected an IPv4 address like 10.0.0.1 or 10.1.0.2/24, or netdev, got "
	 "'10.1.0.2/33'"},
	{"hosts:\n  - {name: h0, mac: \"02:00:00:00:00:01\", ipv4: 10.1.0.2/24, gateway: 10.2.0.1}\ntraffic: []\n",
	 "bad.yaml:2:70: key 'hosts[0].gateway': 10.2.0.1: expected one IPv4 next hop inside the host's subnet "
	 "10.1.0.2/24, other than the host"},
	{"hosts:\n  - {name: h0, mac: \"02:00:00:00:00:01\", ipv4: 10.1.0.2, gateway: 10.1.0.1}\ntraffic: []\n",
	 "bad.yaml:2:67: key 'hosts[0].gateway': an IPv4 gateway needs the host's ipv4 with its prefix, like 10.1.0.2/24"},
	{"hosts:\n  - {name: h0, mac: \"02:00:00:00:00:01\", ipv6: fd00:1::2/64, gateway: [fd00:1::1, fd00:1::3]}\n"
	 "traffic: []\n",
	 "bad.yaml:2:83: key 'hosts[0].gateway[1]': fd00:1::3: expected one IPv6 next hop inside the host's subnet "
	 "fd00:1::2/64, or a link-local one (fe80::/10), other than the host"},
	/* The subnet's network and broadcast addresses are no router's (issue 30): 10.1.0.0/24
	 * and 10.1.0.255/24; on a /30 (10.1.0.0-3) the broadcast is .3. */
	{"hosts:\n  - {name: h0, mac: \"02:00:00:00:00:01\", ipv4: 10.1.0.2/24, gateway: 10.1.0.0}\ntraffic: []\n",
	 "bad.yaml:2:70: key 'hosts[0].gateway': 10.1.0.0 is the network address of the host's subnet 10.1.0.2/24, no "
	 "router's: give the router's own, like 10.1.0.1"},
	{"hosts:\n  - {name: h0, mac: \"02:00:00:00:00:01\", ipv4: 10.1.0.2/24, gateway: 10.1.0.255}\ntraffic: []\n",
	 "bad.yaml:2:70: key 'hosts[0].gateway': 10.1.0.255 is the broadcast address of the host's subnet 10.1.0.2/24, "
	 "no router's: give the router's own, like 10.1.0.254"},
	{"hosts:\n  - {name: h0, mac: \"02:00:00:00:00:01\", ipv4: 10.1.0.1/30, gateway: 10.1.0.3}\ntraffic: []\n",
	 "bad.yaml:2:70: key 'hosts[0].gateway': 10.1.0.3 is the broadcast address of the host's subnet 10.1.0.1/30, "
	 "no router's: give the router's own, like 10.1.0.2"},
	/* A link-local gateway is accepted (test_gateways); a global one outside the subnet is not. */
	{"hosts:\n  - {name: h0, mac: \"02:00:00:00:00:01\", ipv6: fd00:1::2/64, gateway: fd00:2::1}\ntraffic: []\n",
	 "bad.yaml:2:71: key 'hosts[0].gateway': fd00:2::1: expected one IPv6 next hop inside the host's subnet "
	 "fd00:1::2/64, or a link-local one (fe80::/10), other than the host"},
	{"hosts:\n  - {name: h0, mac: \"02:00:00:00:00:01\", ipv4: 10.1.0.2/24, gateway_mac: \"02:00:00:00:00:fe\"}\n"
	 "traffic: []\n",
	 "bad.yaml:2:74: key 'hosts[0].gateway_mac': gateway_mac is the gateway's MAC; give gateway too"},
	/* One address per host, unicast MACs, one host per pair: end (issue 9, item 19). */
	{"hosts:\n  - {name: h0, mac: \"02:00:00:00:00:01\", ipv4: 10.0.0.1}\n"
	 "  - {name: h1, mac: \"02:00:00:00:00:01\", ipv4: 10.0.0.2}\ntraffic: []\n",
	 "bad.yaml:3:21: key 'hosts[1].mac': MAC 02:00:00:00:00:01 is also hosts[0]'s (h0); every host needs its own"},
	{"hosts:\n  - {name: h0, mac: \"02:00:00:00:00:01\", ipv4: 10.0.0.1}\n"
	 "  - {name: h1, mac: \"02:00:00:00:00:02\", ipv4: 10.0.0.1}\ntraffic: []\n",
	 "bad.yaml:3:48: key 'hosts[1].ipv4': address is also hosts[0]'s (h0); every host needs its own"},
	{"hosts:\n  - {name: h0, mac: \"02:00:00:00:00:01\", ipv6: fd00::1}\n"
	 "  - {name: h1, mac: \"02:00:00:00:00:02\", ipv6: \"fd00:0::1\"}\ntraffic: []\n",
	 "bad.yaml:3:48: key 'hosts[1].ipv6': address is also hosts[0]'s (h0); every host needs its own"},
	{"hosts:\n  - {name: h0, mac: \"03:00:00:00:00:01\", ipv4: 10.0.0.1}\ntraffic: []\n",
	 "bad.yaml:2:21: key 'hosts[0].mac': expected a unicast MAC (first byte even, like 02:...), got multicast "
	 "'03:00:00:00:00:01'"},
	{"hosts:\n  - {name: h0, mac: \"02:00:00:00:00:01\", ipv4: 10.0.0.1, port: \"pair:l0:2\"}\ntraffic: []\n",
	 "bad.yaml:2:64: key 'hosts[0].port': expected pair:LINK:0 or pair:LINK:1 (LINK: 1 to 20 letters, digits, - or _), "
	 "got 'pair:l0:2'"},
	{"hosts:\n  - {name: h0, mac: \"02:00:00:00:00:01\", ipv4: 10.0.0.1, port: \"pair:l0:0\"}\n"
	 "  - {name: h1, mac: \"02:00:00:00:00:02\", ipv4: 10.0.0.2, port: \"pair:l0:0\"}\ntraffic: []\n",
	 "bad.yaml:3:64: key 'hosts[1].port': 'pair:l0:0' is already hosts[0]'s port; each end of a pair link has one host"},
	/* certify: (docs/certify.md) and fabric.dscp_map */
	{"hosts:\n  - {name: h0, mac: \"02:00:00:00:00:01\", ipv4: 10.0.0.1}\n  - {name: h1, mac: \"02:00:00:00:00:02\", ipv4: 10.0.0.2}\ntraffic: [{pattern: flow, src: h0, dst: h1}]\ncertify: {jian: 0.9}\n",
	 "bad.yaml:5:11: key 'certify.jian': unknown key; allowed: lossless, lossy, dscp, max_incast, messages, ecn, "
	 "all_to_all, latency, ecmp, storm"},
	{"hosts:\n  - {name: h0, mac: \"02:00:00:00:00:01\", ipv4: 10.0.0.1}\n  - {name: h1, mac: \"02:00:00:00:00:02\", ipv4: 10.0.0.2}\ntraffic: [{pattern: flow, src: h0, dst: h1}]\n"
	 "certify: {all_to_all: {goodput: 190%}}\n",
	 "bad.yaml:5:33: key 'certify.all_to_all.goodput': expected a number from 0 to 1 (or a percentage like 90%), got '190%'"},
	{"hosts:\n  - {name: h0, mac: \"02:00:00:00:00:01\", ipv4: 10.0.0.1}\n  - {name: h1, mac: \"02:00:00:00:00:02\", ipv4: 10.0.0.2}\ntraffic: [{pattern: flow, src: h0, dst: h1}]\n"
	 "certify: {lossless: [3], lossy: 3}\n",
	 "bad.yaml:5:33: key 'certify.lossy': priority 3 is also in lossless"},
	{"hosts:\n  - {name: h0, mac: \"02:00:00:00:00:01\", ipv4: 10.0.0.1}\n  - {name: h1, mac: \"02:00:00:00:00:02\", ipv4: 10.0.0.2}\ntraffic: [{pattern: flow, src: h0, dst: h1}]\nfabric: {dscp_map: {64: 3}}\n",
	 "bad.yaml:5:21: key 'fabric.dscp_map.64': expected a DSCP 0..63 as the key, got '64'"},
	/* engine: verbs hosts (issue 10): what only a DPDK port does, one engine per entry, messages the
	 * receiver sees. */
	{"hosts:\n  - {name: h0, ipv4: 10.0.0.1, engine: fast}\ntraffic: []\n",
	 "bad.yaml:2:40: key 'hosts[0].engine': expected dpdk (crafted RoCEv2 on a DPDK port) or verbs (RC QPs on an "
	 "RDMA device), got 'fast'"},
	{"hosts:\n  - {name: h0, ipv4: 10.0.0.1, engine: verbs, port: net_null0}\ntraffic: []\n",
	 "bad.yaml:2:53: key 'hosts[0].port': host 'h0' has engine: verbs (its RDMA device's own transport); port is for "
	 "engine: dpdk hosts"},
	{"hosts:\n  - {name: h0, mac: \"02:00:00:00:00:01\", ipv4: 10.0.0.1, device: rxe0}\ntraffic: []\n",
	 "bad.yaml:2:66: key 'hosts[0].device': host 'h0' has engine: dpdk; device is for engine: verbs hosts"},
	{"hosts:\n  - {name: h0, ipv4: 10.0.0.1, engine: verbs, gid_index: 300}\ntraffic: []\n",
	 "bad.yaml:2:58: key 'hosts[0].gid_index': expected a whole number from 0 to 255, got '300'"},
	{"hosts:\n  - {name: h0, ipv4: 10.0.0.1, engine: verbs}\n"
	 "  - {name: h1, mac: \"02:00:00:00:00:02\", ipv4: 10.0.0.2, port: net_null0}\n"
	 "traffic:\n  - {pattern: flow, src: h0, dst: h1, opcode: send, messages: 1}\n",
	 "bad.yaml:5:5: key 'traffic[0]': hosts 'h0' (engine: verbs) and 'h1' (engine: dpdk) are in one entry; an "
	 "entry's hosts share one engine (give each engine its own entry)"},
	{"hosts:\n  - {name: h0, ipv4: 10.0.0.1, engine: verbs}\n  - {name: h1, ipv4: 10.0.0.2, engine: verbs}\n"
	 "traffic:\n  - {pattern: flow, src: h0, dst: h1, opcode: write, messages: 1}\n",
	 "bad.yaml:5:5: key 'traffic[0]': opcode write: engine: verbs sends messages each receiver sees (its probe: "
	 "flow, seq, tx time): use send, send_imm or write_imm"},
	{"hosts:\n  - {name: h0, ipv4: 10.0.0.1, engine: verbs}\n  - {name: h1, ipv4: 10.0.0.2, engine: verbs}\n"
	 "traffic:\n  - {pattern: flow, src: h0, dst: h1, opcode: send, message_size: 16, messages: 1}\n",
	 "bad.yaml:5:5: key 'traffic[0]': message_size 16 B: engine: verbs messages carry a 24 B probe; use at least 24 B"},
	{"lcores: 17\nhosts:\n  - {name: h0, mac: \"02:00:00:00:00:01\", ipv4: 10.0.0.1}\n"
	 "  - {name: h1, mac: \"02:00:00:00:00:02\", ipv4: 10.0.0.2}\n"
	 "traffic:\n  - {pattern: flow, src: h0, dst: h1, messages: 1}\n",
	 "bad.yaml:1:9: key 'lcores': expected a whole number from 1 to 16, got '17'"},
	{"defaults: {engine: verbs}\nhosts:\n  - {name: h0, ipv4: 10.0.0.1, impair: {drop_every: 2}}\ntraffic: []\n",
	 "bad.yaml:3:40: key 'hosts[0].impair': host 'h0' has engine: verbs (its RDMA device's own transport); impair is "
	 "for engine: dpdk hosts"},
	/* switches: (docs/profiles.md) */
#define SW HOSTS "traffic: [{pattern: flow, src: h0, dst: h1}]\nswitches:\n"
	{SW "  - {name: s1, source: sonic://127.0.0.1, colour: red}\n",
	 "bad.yaml:6:43: key 'switches[0].colour': unknown key; allowed: name, source, credentials, map, interval, optional, ports"},
	{SW "  - {name: s1, source: sonic://127.0.0.1}\n  - {name: s1, source: sonic://127.0.0.2}\n",
	 "bad.yaml:7:12: key 'switches[1].name': switch 's1' is named twice (switches[0] too)"},
	{SW "  - {name: s1, source: \"sonic://127.0.0.1:99999\"}\n",
	 "bad.yaml:6:24: key 'switches[0].source': switch 's1': source 'sonic://127.0.0.1:99999': port '99999' is not 1..65535"},
	{SW "  - {name: s1, source: ethtool:eth0}\n",
	 "bad.yaml:6:24: key 'switches[0].source': switch 's1': 'ethtool:eth0' is a NIC's source; a switch's is sonic://HOST[:PORT], snmp://HOST[:PORT] or exec:CMD"},
	{SW "  - {name: s1, source: sonic://127.0.0.1, interval: 5 parsecs}\n",
	 "bad.yaml:6:53: key 'switches[0].interval': expected a duration like 50us, 1ms or 2s, got '5 parsecs'"},
	{SW "  - {name: s1, source: sonic://127.0.0.1, ports: {Ethernet0: h0, Ethernet4: h7}}\n",
	 "bad.yaml:6:77: key 'switches[0].ports.Ethernet4': switch 's1': port Ethernet4 faces 'h7', which is no host of the profile (a host, or SWITCH:PORT for another switch's port)"},
	{SW "  - {name: s1, source: sonic://127.0.0.1, ports: {Ethernet0: \"s9:Ethernet0\"}}\n",
	 "bad.yaml:6:62: key 'switches[0].ports.Ethernet0': switch 's1': port Ethernet0 faces 's9:Ethernet0', which is no switch of the section (SWITCH:PORT)"},
	{SW "  - {name: s1, source: \"snmp://127.0.0.1\"}\n",
	 "bad.yaml:6:24: key 'switches[0].source': switch 's1': snmp:// needs credentials: FILE ('community NAME' or an SNMPv3 user)"},
	{SW "  - {source: sonic://127.0.0.1}\n",
	 "bad.yaml:6:5: key 'switches[0].name': missing; every switch needs a name"},
#undef SW
};

static void test_bad_profiles(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		char err[ERRLEN] = "";
		struct rp_profile *p = rp_profile_load_string("bad.yaml", bad_cases[i].yaml, NULL, err, sizeof(err));
		if (p || strcmp(err, bad_cases[i].msg) != 0)
			fail_msg("case %zu:\n  want: %s\n  got:  %s", i, bad_cases[i].msg, p ? "(loaded)" : err);
		assert_null(strchr(err, '\n'));
	}
}

/* engine, device, gid_index: defaults for every host, a host's own keys win. */
static void test_engines(void **state)
{
	(void)state;
	char err[ERRLEN];
	struct rp_profile *p = rp_profile_load_string("ok.yaml",
		"defaults: {engine: verbs, device: rxe0}\n"
		"hosts:\n"
		"  - {name: h0, ipv4: 10.9.0.1}\n"
		"  - {name: h1, ipv4: 10.9.0.2, device: mlx5_1, gid_index: 3}\n"
		"  - {name: h2, mac: \"02:00:00:00:00:03\", ipv4: 10.9.0.3, engine: dpdk, port: net_null0}\n"
		"traffic:\n"
		"  - {pattern: flow, src: h0, dst: h1, opcode: write_imm, messages: 1}\n",
		NULL, err, sizeof(err));
	if (!p)
		fail_msg("%s", err);
	assert_int_equal(p->hosts[0].engine.engine, RP_ENGINE_VERBS);
	assert_string_equal(p->hosts[0].engine.device, "rxe0");
	assert_int_equal(p->hosts[0].engine.gid_index, -1);
	assert_true(p->hosts[0].mac_auto); /* the NIC's own */
	assert_string_equal(p->hosts[1].engine.device, "mlx5_1");
	assert_int_equal(p->hosts[1].engine.gid_index, 3);
	assert_int_equal(p->hosts[2].engine.engine, RP_ENGINE_DPDK);
	assert_string_equal(rp_engine_name(p->hosts[2].engine.engine), "dpdk");
	rp_profile_free(p);
}

static void test_bad_files(void **state)
{
	(void)state;
	char err[ERRLEN];
	const char *path = RP_TEST_DATA "/profiles/bad-rate.yaml";
	assert_null(rp_profile_load(path, NULL, err, sizeof(err)));
	char want[ERRLEN + 64];
	snprintf(want, sizeof(want), "%s:9:11: key 'traffic[0].rate': expected a rate like 100G, 25Gbps or 40%%, got 'fast'",
		 path);
	assert_string_equal(err, want);

	path = RP_TEST_DATA "/profiles/bad-storm.yaml";
	assert_null(rp_profile_load(path, NULL, err, sizeof(err)));
	assert_non_null(strstr(err, "bad-storm.yaml:9:10: key 'traffic[0].fps': 1000 frames/s of 65535 quanta"));
	assert_non_null(strstr(err, "--allow-pause-storm"));
	struct rp_profile_opts o = {.allow_pause_storm = true};
	struct rp_profile *p = rp_profile_load(path, &o, err, sizeof(err));
	assert_non_null(p);
	assert_int_equal(p->traffic[0].pfc.fps, 1000);
	assert_int_equal(p->traffic[0].pfc.prio_mask, 1u << 3);
	assert_int_equal(p->hosts[0].speed_bps, 25000000000ull);
	rp_profile_free(p);

	path = RP_TEST_DATA "/profiles/bad-phases.yaml";
	assert_null(rp_profile_load(path, NULL, err, sizeof(err)));
	snprintf(want, sizeof(want), "%s:13:14: key 'traffic[0].phases[2].at': '10ms' is not after the previous phase's at; "
		 "phases go in time order", path);
	assert_string_equal(err, want);

	assert_null(rp_profile_load(RP_TEST_DATA "/profiles/no-such-file.yaml", NULL, err, sizeof(err)));
	assert_non_null(strstr(err, "no-such-file.yaml: cannot open: "));
}

static struct rp_profile *load_small(const char *const *sets, size_t nsets, char *err)
{
	struct rp_profile_opts o = {.sets = sets, .nsets = nsets};
	return rp_profile_load(RP_TEST_DATA "/profiles/good-small.yaml", &o, err, ERRLEN);
}

static void test_set_overrides(void **state)
{
	(void)state;
	char err[ERRLEN];
	struct rp_profile *p = load_small(NULL, 0, err);
	assert_non_null(p);
	assert_int_equal(p->traffic[0].p.rate.ppm, 250000);
	assert_int_equal(p->traffic[0].p.mtu, 4096);
	rp_profile_free(p);

	const char *sets[] = {"traffic.0.rate=50G", "defaults.mtu=1024", "traffic[0].dst=h2", "defaults.dscp=46",
			      "hosts.2.speed=400G", "traffic.0.qps=3"};
	p = load_small(sets, 6, err);
	assert_non_null(p);
	assert_int_equal(p->traffic[0].p.rate.bps, 50000000000ull);
	assert_int_equal(p->traffic[0].p.rate.ppm, 0);
	assert_int_equal(p->traffic[0].p.mtu, 1024);
	assert_int_equal(p->traffic[0].peers[0], 2);
	assert_int_equal(p->traffic[0].p.dscp, 46);
	assert_int_equal(rp_flow_params_prio(&p->traffic[0].p), 46 >> 3);
	assert_int_equal(p->hosts[2].speed_bps, 400000000000ull);
	assert_int_equal(p->traffic[0].p.qps, 3);
	rp_profile_free(p);

	/* A list value, and a whole new traffic entry appended at index 1. */
	const char *sets2[] = {"traffic.1={pattern: incast, receiver: h0, senders: [h1, h2], packets: 5}"};
	p = load_small(sets2, 1, err);
	assert_non_null(p);
	assert_int_equal(p->ntraffic, 2);
	assert_int_equal(p->traffic[1].pattern, RP_PATTERN_INCAST);
	assert_int_equal(p->traffic[1].nhosts, 2);
	assert_int_equal(p->traffic[1].p.stop, RP_STOP_PACKETS);
	rp_profile_free(p);

	/* Errors name the --set that caused them. */
	const char *bad1[] = {"traffic.0.rate=fast"};
	assert_null(load_small(bad1, 1, err));
	assert_string_equal(err, "--set traffic.0.rate=fast: key 'traffic[0].rate': expected a rate like 100G, 25Gbps "
				 "or 40%, got 'fast'");
	const char *bad2[] = {"traffic.5.rate=1G"};
	assert_null(load_small(bad2, 1, err));
	assert_string_equal(err, "--set traffic.5.rate=1G: 'traffic' is a list of 1 entries; '5' is not an index into it");
	const char *bad3[] = {"norate"};
	assert_null(load_small(bad3, 1, err));
	assert_string_equal(err, "--set norate: expected key=value with a dotted key like traffic.0.rate=50G or "
				 "defaults.mtu=1024");
	const char *bad4[] = {"defaults.colour=red"};
	assert_null(load_small(bad4, 1, err));
	assert_non_null(strstr(err, "--set defaults.colour=red: key 'defaults.colour': unknown key; allowed: speed, "));
	const char *bad5[] = {"traffic.0.rate.x=1"};
	assert_null(load_small(bad5, 1, err));
	assert_string_equal(err, "--set traffic.0.rate.x=1: 'rate' is a scalar; it has no key 'x'");
}

static void test_defaults_and_resolution(void **state)
{
	(void)state;
	char err[ERRLEN];
	struct rp_profile *p = rp_profile_load_string("ok.yaml",
		"defaults: {speed: 25G, message_size: 4KiB, ecn: ce, vlan: 7, pcp: 5, sport: fixed, sport_base: 50000}\n"
		"hosts:\n"
		"  - {name: a, mac: \"02:00:00:00:00:01\", ipv6: fd00::1, port: net_ring0}\n"
		"  - {name: b, mac: \"02:00:00:00:00:02\", ipv6: fd00::2, pci: \"0000:03:00.1\", speed: 100G}\n"
		"  - {name: c, mac: \"02:00:00:00:00:03\", ipv4: 10.0.0.3, ipv6: fd00::3}\n"
		"traffic:\n"
		"  - {pattern: all-to-all, messages: 2}\n"
		"  - {pattern: fan-out, sender: c, vlan: none, packets: 7}\n"
		"  - {pattern: permutation, seed: 42, hosts: [a, b, c]}\n"
		"  - {kind: pfc, host: b, frame: pause, quanta: 100, fps: 10}\n",
		NULL, err, sizeof(err));
	if (!p)
		fail_msg("%s", err);
	assert_int_equal(p->nhosts, 3);
	assert_int_equal(p->hosts[0].speed_bps, 25000000000ull);
	assert_int_equal(p->hosts[1].speed_bps, 100000000000ull);
	assert_string_equal(p->hosts[0].port, "net_ring0");
	assert_false(p->hosts[0].port_is_pci);
	assert_true(p->hosts[1].port_is_pci);
	const struct rp_traffic *t = &p->traffic[0];
	assert_int_equal(t->nhosts, 3);
	assert_int_equal(t->p.ip, 6); /* a and b have only IPv6 */
	assert_int_equal(t->p.msg_size, 4096);
	assert_int_equal(t->p.ecn, RP_ECN_CE);
	assert_true(t->p.has_vlan);
	assert_int_equal(t->p.vid, 7);
	assert_int_equal(rp_flow_params_prio(&t->p), 5);
	assert_int_equal(t->p.sport, RP_SPORT_FIXED);
	assert_int_equal(t->p.sport_base, 50000);
	assert_int_equal(t->p.stop, RP_STOP_MESSAGES);
	assert_int_equal(t->p.stop_value, 2);
	t = &p->traffic[1];
	assert_string_equal(t->name, "traffic1");
	assert_int_equal(t->npeers, 2); /* everyone but the sender */
	assert_false(t->p.has_vlan);
	assert_int_equal(t->p.stop, RP_STOP_PACKETS);
	t = &p->traffic[2];
	assert_int_equal(t->seed, 42);
	t = &p->traffic[3];
	assert_int_equal(t->kind, RP_TRAFFIC_PFC);
	assert_true(t->pfc.pause);
	assert_int_equal(t->pfc.quanta, 100);
	assert_int_equal(t->p.stop, RP_STOP_DURATION); /* the built-in default: 1s */
	assert_int_equal(t->p.stop_value, 1000000000ull);
	rp_profile_free(p);
}

/* `nics:` (lib/profile/nics.c): NIC r's addresses are the host's moved by r,
 * worked by hand: MAC 02:00:00:00:00:fe + 3 = 02:00:00:00:01:01 (the carry);
 * 10.1.0.2/24 three /24 subnets up is 10.1.3.2/24, its gateway 10.1.3.254;
 * fd00:0:0:1::5/64 two /64 up is fd00:0:0:3::5; without a prefix + r. */
static void test_nics(void **state)
{
	(void)state;
	char err[ERRLEN], a[46];
	struct rp_profile *p = rp_profile_load_string("nics.yaml",
		"hosts:\n"
		"  - {name: a, nics: 4, mac: \"02:00:00:00:00:fe\", ipv4: 10.1.0.2/24, gateway: 10.1.0.254,\n"
		"     ipv6: fd00:0:0:1::5/64, speed: 25G}\n"
		"  - name: b\n"
		"    mac: \"02:00:00:00:10:00\"\n"
		"    ipv4: 10.9.0.1\n"
		"    nics: [{name: eth0, port: \"pair:l:0\"}, {name: eth1, mac: \"02:00:00:00:20:00\", port: \"pair:l:1\"}]\n"
		"  - {name: c, mac: \"02:00:00:00:30:00\", ipv4: 10.9.9.9}\n"
		"traffic:\n"
		"  - {pattern: flow, src: a.nic3, dst: b}\n"
		"  - {pattern: all-to-all, hosts: [\"*.nic0\", \"b.eth*\"]}\n"
		"  - {pattern: incast, receiver: c, nic_spread: hash}\n",
		NULL, err, sizeof(err));
	if (!p)
		fail_msg("%s", err);
	assert_int_equal(p->nhosts, 4 + 2 + 1);
	assert_int_equal(p->nservers, 3);
	assert_true(rp_profile_multi_nic(p));
	assert_string_equal(p->servers[0].name, "a");
	assert_int_equal(p->servers[0].nic0, 0);
	assert_int_equal(p->servers[0].nnics, 4);
	assert_int_equal(p->servers[1].nic0, 4);
	assert_int_equal(p->servers[2].nic0, 6);
	const struct rp_host *h = &p->hosts[3];
	assert_string_equal(h->name, "a.nic3");
	assert_int_equal(h->server, 0);
	assert_int_equal(h->nic, 3);
	static const uint8_t mac3[6] = {0x02, 0, 0, 0, 0x01, 0x01};
	assert_memory_equal(h->mac, mac3, 6);
	rp_ipv4_addr_format(h->ipv4, a);
	assert_string_equal(a, "10.1.3.2");
	assert_int_equal(h->ipv4_plen, 24);
	rp_ipv4_addr_format(h->gw4, a);
	assert_string_equal(a, "10.1.3.254");
	static const uint8_t v6_2[16] = {0xfd, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 5};
	assert_memory_equal(p->hosts[2].ipv6, v6_2, 16);
	assert_int_equal(h->speed_bps, 25000000000ull);
	assert_string_equal(p->hosts[4].name, "b.eth0");
	assert_string_equal(p->hosts[4].port, "pair:l:0");
	static const uint8_t mac_b1[6] = {0x02, 0, 0, 0, 0x20, 0x00};
	assert_memory_equal(p->hosts[5].mac, mac_b1, 6); /* its own, not 02:..:10:01 */
	rp_ipv4_addr_format(p->hosts[5].ipv4, a);
	assert_string_equal(a, "10.9.0.2"); /* no prefix: + 1 */
	assert_string_equal(p->hosts[6].name, "c");
	assert_int_equal(p->hosts[6].server, 2);
	/* src names a NIC, dst the whole host b; a glob with a '.' matches NIC names */
	const struct rp_traffic *t = &p->traffic[0];
	assert_int_equal(t->hosts[0], 3);
	assert_false(t->hosts_spread[0]);
	assert_int_equal(t->peers[0], 4);
	assert_true(t->peers_spread[0]);
	t = &p->traffic[1];
	assert_int_equal(t->nhosts, 3); /* a.nic0 (c's one NIC is named c), b.eth0, b.eth1 */
	assert_int_equal(t->hosts[0], 0);
	assert_int_equal(t->hosts[2], 5);
	assert_false(t->hosts_spread[0] || t->hosts_spread[1] || t->hosts_spread[2]);
	t = &p->traffic[2];
	assert_int_equal(t->nhosts, 2); /* every host but c: a and b, whole */
	assert_true(t->hosts_spread[0] && t->hosts_spread[1]);
	assert_int_equal(t->p.nic_spread, RP_NIC_HASH);
	rp_profile_free(p);
}

/* Gateways a router really has (issue 30): IPv6 link-local (fe80::1, what routers advertise;
 * the host's own address global), the IPv6 subnet-router anycast fd00:1:: (RFC 4291 2.6.1:
 * every router on the subnet answers it), both ends of an IPv4 /31 (RFC 3021). */
static void test_gateways(void **state)
{
	(void)state;
	static const struct {
		const char *addr, *gw;
	} ok[] = {{"ipv6: fd00:1::2/64", "fe80::1"},   {"ipv6: fd00:1::2/64", "fd00:1::"},
		  {"ipv6: \"2001:db8::2/127\"", "fe80::a:1"}, {"ipv4: 10.1.0.0/31", "10.1.0.1"},
		  {"ipv4: 10.1.0.1/31", "10.1.0.0"},   {"ipv4: 10.1.0.2/24", "10.1.0.254"}};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		char yaml[400], err[ERRLEN], got[46], want[46];
		snprintf(yaml, sizeof(yaml),
			 "hosts:\n  - {name: h0, mac: \"02:00:00:00:00:01\", %s, gateway: \"%s\"}\n"
			 "  - {name: h1, mac: \"02:00:00:00:00:02\", %s}\n"
			 "traffic:\n  - {pattern: flow, src: h0, dst: h1, messages: 1}\n",
			 ok[i].addr, ok[i].gw, ok[i].addr[3] == '6' ? "ipv6: fd00:9::9" : "ipv4: 10.9.0.9");
		struct rp_profile *p = rp_profile_load_string("gw.yaml", yaml, NULL, err, sizeof(err));
		if (!p)
			fail_msg("case %zu: %s", i, err);
		const struct rp_host *h = &p->hosts[0];
		if (h->has_gw6) {
			uint8_t a6[16];
			assert_int_equal(rp_ipv6_addr_parse(ok[i].gw, a6), 0);
			rp_ipv6_addr_format(a6, want);
			rp_ipv6_addr_format(h->gw6, got);
		} else {
			assert_true(h->has_gw4);
			snprintf(want, sizeof(want), "%s", ok[i].gw);
			rp_ipv4_addr_format(h->gw4, got);
		}
		assert_string_equal(got, want);
		rp_profile_free(p);
	}
}

/* switches: defaults, every key, a port facing another switch's port, and
 * --set reaching into the section. */
static void test_switches(void **state)
{
	(void)state;
	static const char text[] = HOSTS "traffic: [{pattern: flow, src: h0, dst: h1}]\n"
				   "switches:\n"
				   "  - {name: leaf1, source: \"sonic://10.0.0.11\", ports: {Ethernet0: h0, Ethernet48: "
				   "\"spine1:Ethernet0\"}}\n"
				   "  - {name: spine1, source: \"snmp://[fd00::21]:1161\", credentials: /etc/sw.snmp, "
				   "interval: 250ms, optional: true}\n"
				   "  - {name: x1, source: \"exec:cat x.json\", map: m.json}\n";
	static const char *const sets[] = {"switches.0.interval=2s", "switches.2.optional=yes"};
	struct rp_profile_opts o = {.sets = sets, .nsets = 2};
	char err[ERRLEN];
	struct rp_profile *p = rp_profile_load_string("sw.yaml", text, NULL, err, sizeof(err));
	if (!p)
		fail_msg("%s", err);
	assert_int_equal(p->nswitches, 3);
	const struct rp_switch_src *a = &p->switches[0], *b = &p->switches[1], *c = &p->switches[2];
	assert_string_equal(a->name, "leaf1");
	assert_string_equal(a->source, "sonic://10.0.0.11");
	assert_int_equal(a->interval_ns, 1000000000ull);
	assert_false(a->optional);
	assert_int_equal(a->nports, 2);
	assert_string_equal(a->ports[0].port, "Ethernet0");
	assert_string_equal(a->ports[0].peer, "h0");
	assert_string_equal(a->ports[1].peer, "spine1:Ethernet0");
	assert_string_equal(b->credentials, "/etc/sw.snmp");
	assert_int_equal(b->interval_ns, 250000000ull);
	assert_true(b->optional);
	assert_string_equal(c->map, "m.json");
	assert_false(c->optional);
	rp_profile_free(p);
	p = rp_profile_load_string("sw.yaml", text, &o, err, sizeof(err));
	if (!p)
		fail_msg("%s", err);
	assert_int_equal(p->switches[0].interval_ns, 2000000000ull);
	assert_true(p->switches[2].optional);
	rp_profile_free(p);
}

static void test_shipped_profiles(void **state)
{
	(void)state;
	static const char *const names[] = {"incast-8to1.yaml", "all-to-all-8.yaml", "flows-example.yaml"};
	char err[ERRLEN], path[512];
	for (size_t i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", RP_PROFILES_DIR, names[i]);
		struct rp_profile *p = rp_profile_load(path, NULL, err, sizeof(err));
		if (!p)
			fail_msg("%s", err);
		rp_profile_free(p);
	}
	snprintf(path, sizeof(path), "%s/pfc-storm.yaml", RP_PROFILES_DIR);
	assert_null(rp_profile_load(path, NULL, err, sizeof(err)));
	assert_non_null(strstr(err, "--allow-pause-storm"));
	struct rp_profile_opts o = {.allow_pause_storm = true};
	struct rp_profile *p = rp_profile_load(path, &o, err, sizeof(err));
	assert_non_null(p);
	rp_profile_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_durations_counts_names),
		cmocka_unit_test(test_bad_profiles),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_engines),
		cmocka_unit_test(test_set_overrides),
		cmocka_unit_test(test_defaults_and_resolution),
		cmocka_unit_test(test_nics),
		cmocka_unit_test(test_gateways),
		cmocka_unit_test(test_switches),
		cmocka_unit_test(test_shipped_profiles),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
