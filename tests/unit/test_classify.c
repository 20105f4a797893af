/* One frame classifier (issue 13): the fast accessors of wire/classify.h,
 * the capture tap's classifier built on them (lib/pcap/classify.h) and
 * the full parse (rp_frame_parse) give every frame the same kind and CE flag.
 *
 * Known answers: every frame of tests/data/vectors.txt carries the kind and
 * ECN scapy was told to write (kind=, ecn=); the hand-made frames below say
 * what each one is in a comment. Then each frame is cut at every length and
 * the classifiers must still agree: where rp_frame_parse says pfc, pause,
 * roce or cnp the fast ones say the same, and where the fast ones say one of
 * those and the full parse does not, it found the frame malformed. The cut
 * copies are exactly that many heap bytes, so a read past the length shows
 * under ASan/valgrind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check.h"

#include "pcap/classify.h"
#include "wire/classify.h"
#include "wire/frame.h"

#define VEC_FILE RP_TEST_DATA "/vectors.txt"

static enum rp_frame_kind capk_to_kind(enum rp_capture_kind k)
{
	switch (k) {
	case RP_CAPK_ROCE:
	case RP_CAPK_NAK: return RP_KIND_ROCE;
	case RP_CAPK_CNP: return RP_KIND_CNP;
	case RP_CAPK_PFC: return RP_KIND_PFC;
	case RP_CAPK_PAUSE: return RP_KIND_PAUSE;
	default: return RP_KIND_OTHER;
	}
}

static bool definite(enum rp_frame_kind k)
{
	return k == RP_KIND_ROCE || k == RP_KIND_CNP || k == RP_KIND_PFC || k == RP_KIND_PAUSE;
}

static struct rp_frame f; /* big: not on the stack */

/* The three classifiers on the first n bytes of frame; returns the fast kind. */
static enum rp_frame_kind agree(const char *name, const uint8_t *frame, size_t n)
{
	uint8_t *b = rp_test_dup_exact(frame, n);
	enum rp_frame_kind full = rp_frame_parse(b, n, n, &f);
	enum rp_frame_kind fast = rp_cls_kind(b, n);
	struct rp_pcap_cls c = rp_pcap_classify(b, (uint32_t)n);
	bool ce = rp_cls_ce(b, n);
	bool ok = (!definite(full) || fast == full) && (!definite(fast) || full == fast || full == RP_KIND_MALFORMED) &&
		  capk_to_kind(c.kind) == fast && c.ce == ce;
	if (f.l3 == 4 && ce != (f.ip4.ecn == RP_ECN_CE))
		ok = false;
	if (f.l3 == 6 && ce != (f.ip6.ecn == RP_ECN_CE))
		ok = false;
	if (!ok)
		print_error("%s cut at %zu: rp_frame_parse %s (l3 %u), rp_cls_kind %s ce %d, capture kind %d ce %d\n", name,
			    n, rp_frame_kind_name(full), f.l3, rp_frame_kind_name(fast), ce, (int)c.kind, c.ce);
	free(b);
	assert_true(ok);
	return fast;
}

static void agree_every_cut(const char *name, const uint8_t *frame, size_t len)
{
	for (size_t n = 0; n <= len; n++)
		agree(name, frame, n);
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static enum rp_frame_kind kind_of(const char *s)
{
	static const enum rp_frame_kind all[] = {RP_KIND_ROCE, RP_KIND_CNP, RP_KIND_PFC, RP_KIND_PAUSE, RP_KIND_OTHER};
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (strcmp(s, rp_frame_kind_name(all[i])) == 0)
			return all[i];
	return RP_KIND_MALFORMED;
}

/* Every scapy vector: its kind and CE as scapy wrote them, from all three. */
static void test_vectors(void **state)
{
	(void)state;
	FILE *fp = fopen(VEC_FILE, "r");
	assert_non_null(fp);
	char *line = NULL;
	size_t cap = 0;
	int n = 0, nce = 0, nnak = 0;
	static uint8_t frame[4096];
	while (getline(&line, &cap, fp) > 0) {
		if (line[0] == '#' || line[0] == '\n')
			continue;
		char *bar1 = strchr(line, '|'), *bar2 = bar1 ? strchr(bar1 + 1, '|') : NULL;
		assert_non_null(bar2);
		*bar1 = '\0';
		size_t len = 0;
		for (const char *h = bar1 + 1; h + 1 < bar2; h += 2) {
			assert_true(len < sizeof(frame) && hexval(h[0]) >= 0 && hexval(h[1]) >= 0);
			frame[len++] = (uint8_t)(hexval(h[0]) << 4 | hexval(h[1]));
		}
		const char *k = strstr(bar2, "kind="), *e = strstr(bar2, " ecn=");
		assert_non_null(k);
		char kind[16] = "";
		sscanf(k + 5, "%15[a-z]", kind);
		enum rp_frame_kind want = kind_of(kind);
		if (agree(line, frame, len) != want || rp_frame_parse(frame, len, len, &f) != want) {
			print_error("%s: scapy says %s\n", line, kind);
			fail();
		}
		bool want_ce = e && atoi(e + 5) == 3;
		assert_int_equal(rp_cls_ce(frame, len), want_ce);
		nce += want_ce;
		struct rp_pcap_cls c = rp_pcap_classify(frame, (uint32_t)len);
		/* A NAK to the capture: opcode 0x11 with AETH syndrome bits 7..5 = 011
		 * (0x60 sequence error, 0x62 remote access; 0x2e is an RNR NAK, 001). */
		const char *syn = strstr(bar2, "aeth_syndrome=");
		bool want_nak = strstr(bar2, "opcode=0x11 ") && syn && (strtoul(syn + 14, NULL, 16) >> 5) == 3;
		if ((c.kind == RP_CAPK_NAK) != want_nak) {
			print_error("%s: capture kind %d, scapy's NAK %d\n", line, (int)c.kind, want_nak);
			fail();
		}
		nnak += want_nak;
		agree_every_cut(line, frame, len);
		n++;
	}
	free(line);
	fclose(fp);
	/* 67 vectors in the file today (4 cnp, 3 pause, 4 pfc, 56 roce); 3 NAKs with syndrome 011 (0x60 twice, 0x62) */
	assert_int_equal(n, 67);
	assert_int_equal(nnak, 3);
	assert_int_equal(nce, 4); /* ecn=3 in four vectors */
}

/* A RoCEv2 SEND Only over IPv4 (UDP 4791, BTH opcode 0x04), with room before
 * it for tags: the base the hand-made frames below wrap. */
static size_t roce_v4(uint8_t *b, size_t tags, const uint8_t *tag_bytes)
{
	static const uint8_t macs[12] = {2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1};
	memcpy(b, macs, 12);
	memcpy(b + 12, tag_bytes, tags * 4);
	size_t o = 12 + tags * 4;
	b[o++] = 0x08, b[o++] = 0x00;
	static const uint8_t ip[20] = {0x45, 0x03 /* CE */, 0, 20 + 8 + 12 + 4, 0, 0, 0x40, 0, 64, 17, 0, 0,
				       192, 0, 2, 1, 192, 0, 2, 2};
	memcpy(b + o, ip, 20);
	o += 20;
	static const uint8_t udp_bth_icrc[24] = {0xc0, 0, 0x12, 0xb7, 0, 24, 0, 0, 0x04, 0, 0xff, 0xff,
						 0,    0, 0,    1,    0, 0,  0, 0, 0,    0, 0,    0};
	memcpy(b + o, udp_bth_icrc, 24);
	return o + 24;
}

static void test_tags(void **state)
{
	(void)state;
	uint8_t b[128];
	static const uint8_t one[] = {0x81, 0x00, 0x60, 0x64};
	static const uint8_t qinq[] = {0x88, 0xa8, 0x00, 0x0a, 0x81, 0x00, 0x60, 0x64};
	static const uint8_t dot1q2[] = {0x81, 0x00, 0x00, 0x0a, 0x81, 0x00, 0x60, 0x64};
	size_t n = roce_v4(b, 0, NULL);
	/* Untagged and one 802.1Q tag: RoCE (the ICRC is not right: malformed to
	 * the full parse is allowed, but then the fast ones must still say roce). */
	assert_int_equal(agree("untagged", b, n), RP_KIND_ROCE);
	assert_true(rp_cls_ce(b, n));
	agree_every_cut("untagged", b, n);
	n = roce_v4(b, 1, one);
	assert_int_equal(agree("802.1Q", b, n), RP_KIND_ROCE);
	assert_int_equal(rp_cls_opcode(b, n), 0x04);
	agree_every_cut("802.1Q", b, n);
	/* QinQ (802.1ad outer tag) and two 802.1Q tags: "other" for everyone. */
	n = roce_v4(b, 2, qinq);
	assert_int_equal(agree("QinQ", b, n), RP_KIND_OTHER);
	assert_int_equal(rp_frame_parse(b, n, n, &f), RP_KIND_OTHER);
	assert_int_equal(rp_pcap_classify(b, (uint32_t)n).kind, RP_CAPK_OTHER);
	assert_false(rp_cls_ce(b, n));
	agree_every_cut("QinQ", b, n);
	n = roce_v4(b, 2, dot1q2);
	assert_int_equal(agree("double 802.1Q", b, n), RP_KIND_OTHER);
	assert_int_equal(rp_frame_parse(b, n, n, &f), RP_KIND_OTHER);
	agree_every_cut("double 802.1Q", b, n);
	/* UDP length 0 to port 4791 (found by fuzz_frame): RoCE to the fast
	 * classifiers, malformed to the full parse, which used to call it "other"
	 * because rp_udp_parse refuses the header and the port read 0. */
	n = roce_v4(b, 0, NULL);
	b[14 + 20 + 4] = 0, b[14 + 20 + 5] = 0;
	assert_int_equal(agree("UDP length 0", b, n), RP_KIND_ROCE);
	assert_int_equal(rp_frame_parse(b, n, n, &f), RP_KIND_MALFORMED);
	assert_string_equal(f.error, "bad UDP length: 0, 24 bytes follow the IP header"); /* IP total 44 - 20 */
	agree_every_cut("UDP length 0", b, n);
	/* A non-first IPv4 fragment (offset 8 x 8 bytes) has no UDP header. */
	n = roce_v4(b, 0, NULL);
	b[14 + 6] = 0x00, b[14 + 7] = 0x08;
	assert_int_equal(agree("fragment", b, n), RP_KIND_OTHER);
	assert_int_equal(rp_frame_parse(b, n, n, &f), RP_KIND_OTHER);
	assert_false(rp_frame_is_roce_data(b, n));
	agree_every_cut("fragment", b, n);
}

/* A tagged PFC frame (class 3 paused): PFC to all three, opcode at 18. */
static void test_tagged_pfc(void **state)
{
	(void)state;
	uint8_t b[64] = {0x01, 0x80, 0xc2, 0, 0, 0x01, 2, 0, 0, 0, 0, 1, 0x81, 0x00, 0xe0, 0x00, 0x88, 0x08, 0x01, 0x01,
			 0x00, 0x08, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	size_t off = 0;
	assert_true(rp_cls_macctl(b, sizeof(b), &off));
	assert_int_equal(off, 18);
	assert_int_equal(rp_cls_macctl_op(b, sizeof(b)), 0x0101);
	assert_int_equal(agree("tagged PFC", b, sizeof(b)), RP_KIND_PFC);
	agree_every_cut("tagged PFC", b, sizeof(b));
	/* Untagged PAUSE: opcode 0x0001 at 14. */
	uint8_t p[60] = {0x01, 0x80, 0xc2, 0, 0, 0x01, 2, 0, 0, 0, 0, 1, 0x88, 0x08, 0x00, 0x01, 0xff, 0xff};
	assert_int_equal(rp_cls_macctl_op(p, sizeof(p)), 1);
	assert_int_equal(agree("PAUSE", p, sizeof(p)), RP_KIND_PAUSE);
	agree_every_cut("PAUSE", p, sizeof(p));
	assert_int_equal(rp_cls_macctl_op(p, 15), -1); /* the opcode's second byte cut */
}

/* ARP and ICMPv6 NS/NA: neigh for the capture, "other" as a kind. */
static void test_neigh(void **state)
{
	(void)state;
	uint8_t arp[42] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 1, 0x08, 0x06, 0, 1, 0x08, 0, 6, 4, 0, 1};
	assert_true(rp_cls_is_arp(arp, sizeof(arp)));
	assert_true(rp_pcap_classify(arp, sizeof(arp)).neigh);
	assert_int_equal(agree("ARP", arp, sizeof(arp)), RP_KIND_OTHER);
	assert_false(rp_cls_is_arp(arp, 13));
	agree_every_cut("ARP", arp, sizeof(arp));
	/* IPv6, next header 58, ICMPv6 type 135 (NS), then 136 (NA), 128 (echo) */
	uint8_t nd[78] = {0x33, 0x33, 0xff, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x86, 0xdd, 0x60, 0, 0, 0, 0, 24, 58, 255};
	nd[14 + 40] = 135;
	assert_true(rp_cls_is_nd(nd, sizeof(nd)));
	assert_true(rp_pcap_classify(nd, sizeof(nd)).neigh);
	assert_false(rp_cls_is_nd(nd, 14 + 40)); /* the type byte cut */
	agree_every_cut("NS", nd, sizeof(nd));
	nd[14 + 40] = 136;
	assert_true(rp_cls_is_nd(nd, sizeof(nd)));
	nd[14 + 40] = 128;
	assert_false(rp_cls_is_nd(nd, sizeof(nd)));
	assert_false(rp_pcap_classify(nd, sizeof(nd)).neigh);
	/* An IPv6 frame with traffic class ECN = 3: CE (byte 1 bits 5..4). */
	nd[15] = 0x30;
	assert_true(rp_cls_ce(nd, sizeof(nd)));
	assert_true(rp_pcap_classify(nd, sizeof(nd)).ce);
	agree_every_cut("IPv6 CE", nd, sizeof(nd));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors),
		cmocka_unit_test(test_tags),
		cmocka_unit_test(test_tagged_pfc),
		cmocka_unit_test(test_neigh),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
