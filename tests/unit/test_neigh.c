/* ARP and IPv6 Neighbour Discovery (lib/wire/arp.h, nd.h) against frames
 * scapy 2.5 built (the expression above each), and every cut length. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "wire/arp.h"
#include "wire/ipv4.h"
#include "wire/ipv6.h"
#include "wire/nd.h"
#include "wire/neigh.h"
#include "wire/wire_err.h"

static size_t unhex(const char *s, uint8_t *out, size_t cap)
{
	size_t n = 0;
	for (; s[0] && s[1] && n < cap; s += 2) {
		unsigned v;
		assert_int_equal(sscanf(s, "%2x", &v), 1);
		out[n++] = (uint8_t)v;
	}
	return n;
}

static void mac(const char *s, uint8_t out[6])
{
	assert_int_equal(rp_mac_parse(s, out), 0);
}

static uint32_t ip4(const char *s)
{
	uint32_t a;
	assert_int_equal(rp_ipv4_addr_parse(s, &a), 0);
	return a;
}

static void ip6(const char *s, uint8_t out[16])
{
	assert_int_equal(rp_ipv6_addr_parse(s, out), 0);
}

/* Ether(dst="ff:ff:ff:ff:ff:ff", src="02:00:00:00:00:01")/ARP(op=1, hwsrc="02:00:00:00:00:01",
 *   psrc="10.1.0.2", hwdst="00:00:00:00:00:00", pdst="10.1.0.1"), zero-padded to 60 bytes */
static const char arp_request[] = "ffffffffffff020000000001080600010800060400010200000000010a0100020000000000000a0100010000"
				  "00000000000000000000000000000000";
/* Ether(dst="02:00:00:00:00:01", src="52:54:00:12:34:56")/ARP(op=2, hwsrc="52:54:00:12:34:56",
 *   psrc="10.1.0.1", hwdst="02:00:00:00:00:01", pdst="10.1.0.2"), padded */
static const char arp_reply[] = "020000000001525400123456080600010800060400025254001234560a0100010200000000010a0100020000"
				"00000000000000000000000000000000";
/* Ether(dst="33:33:ff:00:00:01", src="02:00:00:00:00:01")/IPv6(src="fd00:1::2", dst="ff02::1:ff00:1",
 *   hlim=255)/ICMPv6ND_NS(tgt="fd00:1::1")/ICMPv6NDOptSrcLLAddr(lladdr="02:00:00:00:00:01") */
static const char nd_ns[] = "3333ff00000102000000000186dd6000000000203afffd000001000000000000000000000002ff020000000000"
			    "0000000001ff00000187007d9600000000fd0000010000000000000000000000010101020000000001";
/* Ether(dst="02:00:00:00:00:01", src="52:54:00:12:34:56")/IPv6(src="fd00:1::1", dst="fd00:1::2",
 *   hlim=255)/ICMPv6ND_NA(tgt="fd00:1::1", R=1, S=1, O=1)/ICMPv6NDOptDstLLAddr(lladdr="52:54:00:12:34:56") */
static const char nd_na[] = "02000000000152540012345686dd6000000000203afffd000001000000000000000000000001fd0000010000"
			    "00000000000000000002880017dde0000000fd0000010000000000000000000000010201525400123456";

static void test_arp_build_as_scapy(void **state)
{
	(void)state;
	uint8_t want[64], buf[64];
	struct rp_arp a = {.op = RP_ARP_REQUEST, .spa = ip4("10.1.0.2"), .tpa = ip4("10.1.0.1")};
	mac("02:00:00:00:00:01", a.sha);
	size_t n = unhex(arp_request, want, sizeof(want));
	assert_int_equal(n, 60);
	assert_int_equal(rp_arp_frame_build(buf, sizeof(buf), rp_eth_broadcast, &a), 60);
	assert_memory_equal(buf, want, 60);
	assert_int_equal(rp_arp_frame_build(buf, 59, rp_eth_broadcast, &a), 0);

	struct rp_arp r = {.op = RP_ARP_REPLY, .spa = ip4("10.1.0.1"), .tpa = ip4("10.1.0.2")};
	mac("52:54:00:12:34:56", r.sha);
	mac("02:00:00:00:00:01", r.tha);
	assert_int_equal(unhex(arp_reply, want, sizeof(want)), 60);
	assert_int_equal(rp_arp_frame_build(buf, sizeof(buf), r.tha, &r), 60);
	assert_memory_equal(buf, want, 60);
}

static void test_arp_parse_scapy(void **state)
{
	(void)state;
	uint8_t f[64], m[6];
	struct rp_arp a;
	unhex(arp_reply, f, sizeof(f));
	assert_int_equal(rp_arp_parse(f + RP_ETH_HLEN, 60 - RP_ETH_HLEN, &a), RP_WIRE_OK);
	assert_int_equal(a.op, RP_ARP_REPLY);
	assert_int_equal(a.spa, 0x0a010001);
	assert_int_equal(a.tpa, 0x0a010002);
	mac("52:54:00:12:34:56", m);
	assert_memory_equal(a.sha, m, 6);
	mac("02:00:00:00:00:01", m);
	assert_memory_equal(a.tha, m, 6);
	for (size_t len = 0; len < RP_ARP_LEN; len++)
		assert_int_equal(rp_arp_parse(f + RP_ETH_HLEN, len, &a), RP_WIRE_ETRUNC);
	f[RP_ETH_HLEN + 7] = 3; /* op 3 (RARP request) */
	assert_int_equal(rp_arp_parse(f + RP_ETH_HLEN, 46, &a), RP_WIRE_EMALFORMED);
	f[RP_ETH_HLEN + 7] = 2;
	f[RP_ETH_HLEN + 1] = 6; /* hardware type 6 (IEEE 802) */
	assert_int_equal(rp_arp_parse(f + RP_ETH_HLEN, 46, &a), RP_WIRE_EMALFORMED);
}

static void test_nd_build_as_scapy(void **state)
{
	(void)state;
	uint8_t want[128], buf[128], dst_mac[6], src_mac[6];
	struct rp_nd ns = {.type = RP_ND_NS, .has_lladdr = true};
	ip6("fd00:1::2", ns.src);
	ip6("fd00:1::1", ns.target);
	rp_nd_solicited_node(ns.target, ns.dst);
	uint8_t sn[16];
	ip6("ff02::1:ff00:1", sn);
	assert_memory_equal(ns.dst, sn, 16);
	rp_ipv6_mcast_mac(ns.dst, dst_mac);
	mac("33:33:ff:00:00:01", src_mac);
	assert_memory_equal(dst_mac, src_mac, 6);
	mac("02:00:00:00:00:01", src_mac);
	memcpy(ns.lladdr, src_mac, 6);
	size_t n = unhex(nd_ns, want, sizeof(want));
	assert_int_equal(n, 86);
	assert_int_equal(rp_nd_frame_build(buf, sizeof(buf), src_mac, dst_mac, &ns), 86);
	assert_memory_equal(buf, want, 86); /* checksum 0x7d96 included */

	struct rp_nd na = {.type = RP_ND_NA, .has_lladdr = true,
			   .flags = RP_ND_FLAG_ROUTER | RP_ND_FLAG_SOLICITED | RP_ND_FLAG_OVERRIDE};
	ip6("fd00:1::1", na.src);
	ip6("fd00:1::2", na.dst);
	ip6("fd00:1::1", na.target);
	mac("52:54:00:12:34:56", na.lladdr);
	mac("02:00:00:00:00:01", dst_mac);
	assert_int_equal(unhex(nd_na, want, sizeof(want)), 86);
	assert_int_equal(rp_nd_frame_build(buf, sizeof(buf), na.lladdr, dst_mac, &na), 86);
	assert_memory_equal(buf, want, 86); /* checksum 0x17dd */
	assert_int_equal(rp_nd_frame_build(buf, 85, na.lladdr, dst_mac, &na), 0);
}

static void test_nd_parse_scapy(void **state)
{
	(void)state;
	uint8_t f[128], a[16], m[6];
	struct rp_nd nd;
	unhex(nd_na, f, sizeof(f));
	assert_int_equal(rp_nd_parse(f + RP_ETH_HLEN, 72, &nd), RP_WIRE_OK);
	assert_int_equal(nd.type, RP_ND_NA);
	assert_int_equal(nd.flags, 0xE0);
	assert_true(nd.checksum_ok);
	assert_true(nd.has_lladdr);
	mac("52:54:00:12:34:56", m);
	assert_memory_equal(nd.lladdr, m, 6);
	ip6("fd00:1::1", a);
	assert_memory_equal(nd.target, a, 16);
	assert_memory_equal(nd.src, a, 16);

	unhex(nd_ns, f, sizeof(f));
	assert_int_equal(rp_nd_parse(f + RP_ETH_HLEN, 72, &nd), RP_WIRE_OK);
	assert_int_equal(nd.type, RP_ND_NS);
	assert_true(nd.checksum_ok && nd.has_lladdr);
	mac("02:00:00:00:00:01", m);
	assert_memory_equal(nd.lladdr, m, 6);

	for (size_t len = 0; len < 72; len++) /* the IPv6 header, then its payload length (32), cut */
		assert_int_equal(rp_nd_parse(f + RP_ETH_HLEN, len, &nd), RP_WIRE_ETRUNC);
	f[RP_ETH_HLEN + 7] = 64; /* hop limit 64: not from the link */
	assert_int_equal(rp_nd_parse(f + RP_ETH_HLEN, 72, &nd), RP_WIRE_EMALFORMED);
	f[RP_ETH_HLEN + 7] = 255;
	f[RP_ETH_HLEN + RP_IPV6_HLEN + 24 + 1] = 0; /* an option of length 0 */
	assert_int_equal(rp_nd_parse(f + RP_ETH_HLEN, 72, &nd), RP_WIRE_EMALFORMED);
	f[RP_ETH_HLEN + RP_IPV6_HLEN + 24 + 1] = 1;
	f[RP_ETH_HLEN + RP_IPV6_HLEN + 2] ^= 1; /* a flipped checksum bit */
	assert_int_equal(rp_nd_parse(f + RP_ETH_HLEN, 72, &nd), RP_WIRE_OK);
	assert_false(nd.checksum_ok);
}


/* rp_neigh_*: a port with MAC 02:00:00:00:00:01, 10.1.0.2 and fd00:1::2;
 * the router 52:54:00:12:34:56, 10.1.0.1 and fd00:1::1. Every frame below is
 * what scapy 2.5 builds for the expression above it. */
static void self_port(struct rp_neigh_self *s)
{
	memset(s, 0, sizeof(*s));
	mac("02:00:00:00:00:01", s->mac);
	s->has_ip4 = true;
	s->ip4 = ip4("10.1.0.2");
	s->has_ip6 = true;
	ip6("fd00:1::2", s->ip6);
}

/* Ether(dst="ff:ff:ff:ff:ff:ff", src=R)/ARP(op=1, hwsrc=R, psrc="10.1.0.1", pdst="10.1.0.2") */
static const char req_from_router[] = "ffffffffffff525400123456080600010800060400015254001234560a0100010000000000000a01000200"
				      "0000000000000000000000000000000000";
/* Ether(dst=R, src=M)/ARP(op=2, hwsrc=M, psrc="10.1.0.2", hwdst=R, pdst="10.1.0.1") */
static const char our_reply[] = "525400123456020000000001080600010800060400020200000000010a0100025254001234560a01000100"
				"0000000000000000000000000000000000";
/* Ether(dst=bcast, src=M)/ARP(op=1, hwsrc=M, psrc="0.0.0.0", pdst="10.1.0.2") (RFC 5227 probe) */
static const char arp_probe[] = "ffffffffffff02000000000108060001080006040001020000000001000000000000000000000a01000200"
				"0000000000000000000000000000000000";
/* Ether(dst=bcast, src=M)/ARP(op=1, hwsrc=M, psrc="10.1.0.2", pdst="10.1.0.2") (gratuitous) */
static const char garp[] = "ffffffffffff020000000001080600010800060400010200000000010a0100020000000000000a01000200"
			   "0000000000000000000000000000000000";
/* Ether(dst=M, src=R)/ARP(op=2, hwsrc=R, psrc="10.1.0.2", hwdst=M, pdst="0.0.0.0"): Linux answering our
 * probe for an address it holds */
static const char probe_answer[] = "020000000001525400123456080600010800060400025254001234560a01000202000000000100000000"
				   "000000000000000000000000000000000000";
/* Ether(dst="33:33:ff:00:00:02", src=R)/IPv6(src="fd00:1::1", dst="ff02::1:ff00:2", hlim=255)/
 *   ICMPv6ND_NS(tgt="fd00:1::2")/ICMPv6NDOptSrcLLAddr(lladdr=R) */
static const char ns_from_router[] = "3333ff00000252540012345686dd6000000000203afffd000001000000000000000000000001ff020000"
				     "0000000000000001ff0000028700f8d900000000fd0000010000000000000000000000020101525400123456";
/* Ether(dst=R, src=M)/IPv6(src="fd00:1::2", dst="fd00:1::1", hlim=255)/ICMPv6ND_NA(tgt="fd00:1::2", R=0,
 *   S=1, O=1)/ICMPv6NDOptDstLLAddr(lladdr=M) */
static const char our_na[] = "52540012345602000000000186dd6000000000203afffd000001000000000000000000000002fd000001000000"
			     "00000000000000000188001c9860000000fd0000010000000000000000000000020201020000000001";
/* Ether(dst="33:33:00:00:00:01", src=M)/IPv6(src="fd00:1::2", dst="ff02::1", hlim=255)/
 *   ICMPv6ND_NA(tgt="fd00:1::2", R=0, S=0, O=1)/ICMPv6NDOptDstLLAddr(lladdr=M) */
static const char unsol_na[] = "33330000000102000000000186dd6000000000203afffd000001000000000000000000000002ff0200000000"
			       "0000000000000000000188005a9720000000fd0000010000000000000000000000020201020000000001";
/* Ether(dst="33:33:ff:00:00:02", src=M)/IPv6(src="::", dst="ff02::1:ff00:2", hlim=255)/ICMPv6ND_NS(tgt="fd00:1::2") */
static const char dad_ns[] = "3333ff00000202000000000186dd6000000000183aff00000000000000000000000000000000ff0200000000000000"
			     "000001ff00000287007da200000000fd000001000000000000000000000002";
/* the same NA as unsol_na, but from R with lladdr R: someone else holds fd00:1::2 */
static const char dad_answer[] = "33330000000152540012345686dd6000000000203afffd000001000000000000000000000002ff02000000"
				 "00000000000000000000018800d5db20000000fd0000010000000000000000000000020201525400123456";

static void test_neigh_answers_arp(void **state)
{
	(void)state;
	struct rp_neigh_self self;
	self_port(&self);
	uint8_t f[128], want[128], reply[128], r[6];
	size_t n = unhex(req_from_router, f, sizeof(f));
	struct rp_neigh_rx rx;
	assert_int_equal(rp_neigh_rx(&self, f, n, &rx, reply, sizeof(reply)), RP_NEIGH_ARP_REQUEST);
	assert_int_equal(rx.reply_len, 60);
	assert_int_equal(unhex(our_reply, want, sizeof(want)), 60);
	assert_memory_equal(reply, want, 60);
	/* the asker's binding is learnt, and it is no conflict */
	assert_true(rx.has_binding);
	assert_int_equal(rx.l3, 4);
	assert_int_equal(rx.ip4, 0x0a010001);
	mac("52:54:00:12:34:56", r);
	assert_memory_equal(rx.mac, r, 6);
	assert_false(rx.conflict);
	/* for another address: no answer */
	f[RP_ETH_HLEN + 27] = 3; /* tpa 10.1.0.3 */
	assert_int_equal(rp_neigh_rx(&self, f, n, &rx, reply, sizeof(reply)), RP_NEIGH_ARP_REQUEST);
	assert_int_equal(rx.reply_len, 0);
	/* our own reply, seen as the router would: a reply binding 10.1.0.2 to us */
	n = unhex(our_reply, f, sizeof(f));
	assert_int_equal(rp_neigh_rx(&self, f, n, &rx, reply, sizeof(reply)), RP_NEIGH_ARP_REPLY);
	assert_false(rx.conflict);
	assert_int_equal(rx.reply_len, 0);
	/* cut short: nothing */
	for (size_t len = 0; len < RP_ETH_HLEN + RP_ARP_LEN; len++)
		assert_int_equal(rp_neigh_rx(&self, f, len, &rx, reply, sizeof(reply)), RP_NEIGH_NONE);
}

static void test_neigh_builds_as_scapy(void **state)
{
	(void)state;
	struct rp_neigh_self self;
	self_port(&self);
	uint8_t buf[128], want[128];
	assert_int_equal(rp_neigh_probe_build(&self, 4, buf, sizeof(buf)), unhex(arp_probe, want, sizeof(want)));
	assert_memory_equal(buf, want, 60);
	assert_int_equal(rp_neigh_announce_build(&self, 4, buf, sizeof(buf)), unhex(garp, want, sizeof(want)));
	assert_memory_equal(buf, want, 60);
	assert_int_equal(rp_neigh_request_build(&self, 4, ip4("10.1.0.1"), NULL, buf, sizeof(buf)), 60);
	assert_int_equal(unhex(arp_request, want, sizeof(want)), 60); /* the request above: the same port asking 10.1.0.1 */
	assert_memory_equal(buf, want, 60);
	size_t n = unhex(unsol_na, want, sizeof(want));
	assert_int_equal(n, 86);
	assert_int_equal(rp_neigh_announce_build(&self, 6, buf, sizeof(buf)), 86);
	assert_memory_equal(buf, want, 86);
	n = unhex(dad_ns, want, sizeof(want));
	assert_int_equal(n, 78);
	assert_int_equal(rp_neigh_probe_build(&self, 6, buf, sizeof(buf)), 78);
	assert_memory_equal(buf, want, 78);
	/* an NS for fd00:1::1 from fd00:1::2 is nd_ns above but from fd00:1::2 */
	uint8_t tgt[16];
	ip6("fd00:1::1", tgt);
	n = unhex(nd_ns, want, sizeof(want));
	assert_int_equal(rp_neigh_request_build(&self, 6, 0, tgt, buf, sizeof(buf)), 86);
	assert_memory_equal(buf, want, 86);
	/* a family the port has no address in */
	self.has_ip6 = false;
	assert_int_equal(rp_neigh_request_build(&self, 6, 0, tgt, buf, sizeof(buf)), 0);
	assert_int_equal(rp_neigh_announce_build(&self, 6, buf, sizeof(buf)), 0);
}

static void test_neigh_answers_ns(void **state)
{
	(void)state;
	struct rp_neigh_self self;
	self_port(&self);
	uint8_t f[128], want[128], reply[128];
	size_t n = unhex(ns_from_router, f, sizeof(f));
	struct rp_neigh_rx rx;
	assert_int_equal(rp_neigh_rx(&self, f, n, &rx, reply, sizeof(reply)), RP_NEIGH_NS);
	assert_int_equal(rx.reply_len, 86);
	assert_int_equal(unhex(our_na, want, sizeof(want)), 86);
	assert_memory_equal(reply, want, 86); /* S and O set, to the solicitor's MAC */
	assert_true(rx.has_binding);
	assert_false(rx.conflict);
	/* a bad checksum: ignored */
	f[n - 1] ^= 1;
	assert_int_equal(rp_neigh_rx(&self, f, n, &rx, reply, sizeof(reply)), RP_NEIGH_NONE);
	/* the router's NA for fd00:1::1 (nd_na above): a binding, no answer */
	n = unhex(nd_na, f, sizeof(f));
	assert_int_equal(rp_neigh_rx(&self, f, n, &rx, reply, sizeof(reply)), RP_NEIGH_NA);
	assert_int_equal(rx.reply_len, 0);
	assert_true(rx.has_binding);
	assert_false(rx.conflict);
	uint8_t a[16];
	ip6("fd00:1::1", a);
	assert_memory_equal(rx.ip6, a, 16);
}

static void test_neigh_conflicts(void **state)
{
	(void)state;
	struct rp_neigh_self self;
	self_port(&self);
	uint8_t f[128], reply[128], r[6];
	mac("52:54:00:12:34:56", r);
	struct rp_neigh_rx rx;
	size_t n = unhex(probe_answer, f, sizeof(f));
	assert_int_equal(rp_neigh_rx(&self, f, n, &rx, reply, sizeof(reply)), RP_NEIGH_ARP_REPLY);
	assert_true(rx.conflict);
	assert_memory_equal(rx.mac, r, 6);
	n = unhex(dad_answer, f, sizeof(f));
	assert_int_equal(rp_neigh_rx(&self, f, n, &rx, reply, sizeof(reply)), RP_NEIGH_NA);
	assert_true(rx.conflict);
	assert_memory_equal(rx.mac, r, 6);
	/* our own gratuitous ARP and unsolicited NA coming back (a loop, a hub): no conflict, no answer */
	n = unhex(garp, f, sizeof(f));
	assert_int_equal(rp_neigh_rx(&self, f, n, &rx, reply, sizeof(reply)), RP_NEIGH_ARP_REQUEST);
	assert_false(rx.conflict);
	assert_int_equal(rx.reply_len, 0);
	n = unhex(unsol_na, f, sizeof(f));
	assert_int_equal(rp_neigh_rx(&self, f, n, &rx, reply, sizeof(reply)), RP_NEIGH_NA);
	assert_false(rx.conflict);
	/* someone else's DAD probe for our address is answered (to all-nodes, S clear) */
	n = unhex(dad_ns, f, sizeof(f));
	f[6] = 0x52; /* from another MAC */
	assert_int_equal(rp_neigh_rx(&self, f, n, &rx, reply, sizeof(reply)), RP_NEIGH_NS);
	assert_int_equal(rx.reply_len, 86);
	uint8_t want[128];
	unhex(unsol_na, want, sizeof(want));
	assert_memory_equal(reply, want, 86);
	/* our own DAD probe coming back: not answered */
	n = unhex(dad_ns, f, sizeof(f));
	assert_int_equal(rp_neigh_rx(&self, f, n, &rx, reply, sizeof(reply)), RP_NEIGH_NS);
	assert_int_equal(rx.reply_len, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arp_build_as_scapy),
		cmocka_unit_test(test_arp_parse_scapy),
		cmocka_unit_test(test_nd_build_as_scapy),
		cmocka_unit_test(test_nd_parse_scapy),
		cmocka_unit_test(test_neigh_answers_arp),
		cmocka_unit_test(test_neigh_builds_as_scapy),
		cmocka_unit_test(test_neigh_answers_ns),
		cmocka_unit_test(test_neigh_conflicts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
