/* Whole frames: every opcode built by rp_roce_build parses back; every cut is
 * reported with the header it cut into; other kinds classify right. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "check.h"

#include "wire/frame.h"

static const uint8_t all_opcodes[] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D,
	0x0E, 0x0F, 0x10, 0x11, 0x12, 0x13, 0x14, 0x16, 0x17, 0x64, 0x65, 0x81,
};

static struct rp_roce_spec base_spec(uint8_t l3, uint8_t opcode, size_t payload_len)
{
	struct rp_roce_spec s = {
		.eth = {.dst = {0x02, 0, 0, 0, 0, 2}, .src = {0x02, 0, 0, 0, 0, 1}},
		.l3 = l3,
		.ip4 = {.dscp = 26, .ecn = RP_ECN_ECT0, .ttl = 64, .df = true, .src = 0xC0000201, .dst = 0xC0000202},
		.ip6 = {.dscp = 46, .ecn = RP_ECN_CE, .flow_label = 0xABCDE, .hop_limit = 7,
			.src = {0x20, 0x01, 0x0d, 0xb8, [15] = 1}, .dst = {0x20, 0x01, 0x0d, 0xb8, [15] = 2}},
		.udp_sport = 49458,
		.bth = {.opcode = opcode, .se = true, .pkey = 0xFFFF, .dqpn = 0x12, .ack_req = true, .psn = 0xFFFFFE},
		.reth = {.va = 0x00007f0000001000ull, .rkey = 0x1234, .dma_len = 4096},
		.aeth = {.syndrome = 0x1F, .msn = 3},
		.imm = 0xDEADBEEF,
		.ieth = 0xCAFE,
		.deth = {.qkey = 0x80010000, .src_qp = 0x99},
		.atomic = {.va = 0x1000, .rkey = 7, .swap_add = 1, .compare = 2},
		.atomic_ack = 0x1122334455667788ull,
		.payload_len = payload_len,
	};
	return s;
}

static void every_opcode_round_trips(void **state)
{
	(void)state;
	uint8_t buf[2048];
	for (int l3 = 4; l3 <= 6; l3 += 2)
		for (size_t i = 0; i < sizeof(all_opcodes); i++) {
			uint8_t op = all_opcodes[i];
			const struct rp_opcode_info *oi = rp_opcode_info(op);
			size_t plen = oi->payload ? 37 : 0;
			struct rp_roce_spec s = base_spec((uint8_t)l3, op, plen);
			s.eth.has_vlan = (i & 1) != 0;
			s.eth.pcp = 3;
			s.eth.vid = 100;
			struct rp_roce_layout lay;
			size_t n = rp_roce_build(buf, sizeof(buf), &s, &lay);
			assert_true(n >= RP_ETH_MIN_FRAME);
			assert_int_equal(n, lay.frame_len);

			struct rp_frame f;
			enum rp_frame_kind k = rp_frame_parse(buf, n, n, &f);
			assert_int_equal(k, op == RP_OP_CNP ? RP_KIND_CNP : RP_KIND_ROCE);
			assert_int_equal(f.l3, l3);
			assert_int_equal(f.bth.opcode, op);
			assert_int_equal(f.bth.psn, 0xFFFFFE);
			assert_int_equal(f.bth.dqpn, 0x12);
			assert_int_equal(f.bth.pad, (4 - plen % 4) % 4);
			assert_int_equal(f.ext, oi->ext);
			assert_int_equal(f.payload_len, plen);
			assert_int_equal(f.payload_off, lay.payload_off);
			assert_int_equal(f.eth.has_vlan, s.eth.has_vlan);
			assert_true(f.icrc_checked);
			assert_true(f.icrc_ok);
			if (oi->ext & RP_EXT_RETH)
				assert_true(f.reth.va == s.reth.va && f.reth.rkey == 0x1234 && f.reth.dma_len == 4096);
			if (oi->ext & RP_EXT_AETH)
				assert_true(f.aeth.syndrome == 0x1F && f.aeth.msn == 3);
			if (oi->ext & RP_EXT_IMM)
				assert_true(f.imm == 0xDEADBEEF);
			if (oi->ext & RP_EXT_DETH)
				assert_true(f.deth.qkey == 0x80010000 && f.deth.src_qp == 0x99);
			if (oi->ext & RP_EXT_ATOMIC_ACK)
				assert_true(f.atomic_ack == 0x1122334455667788ull);
			if (l3 == 4)
				assert_true(f.ip4.dscp == 26 && f.ip4.ecn == RP_ECN_ECT0 && f.ip4.checksum_ok);
			else
				assert_true(f.ip6.dscp == 46 && f.ip6.ecn == RP_ECN_CE && f.ip6.flow_label == 0xABCDE);
		}
}

static void write_only_layout_is_exact(void **state)
{
	(void)state;
	uint8_t buf[256];
	struct rp_roce_spec s = base_spec(4, RP_OP_RC_WRITE_ONLY, 32);
	struct rp_roce_layout lay;
	/* 14 eth + 20 ip + 8 udp + 12 bth + 16 reth + 32 payload + 4 icrc = 106 */
	assert_int_equal(rp_roce_build(buf, sizeof(buf), &s, &lay), 106);
	assert_int_equal(lay.l3_off, 14);
	assert_int_equal(lay.udp_off, 34);
	assert_int_equal(lay.bth_off, 42);
	assert_int_equal(lay.payload_off, 70);
	assert_int_equal(lay.icrc_off, 102);
	assert_int_equal(buf[12], 0x08);
	assert_int_equal(buf[16] << 8 | buf[17], 92); /* IPv4 total length */
	assert_int_equal(buf[38] << 8 | buf[39], 72); /* UDP length */
	assert_int_equal(buf[36] << 8 | buf[37], 4791);
	assert_int_equal(buf[40] | buf[41], 0); /* no UDP checksum asked */
	/* Too small a buffer builds nothing. */
	assert_int_equal(rp_roce_build(buf, 105, &s, NULL), 0);
	s.l3 = 5;
	assert_int_equal(rp_roce_build(buf, sizeof(buf), &s, NULL), 0);
}

/* Every cut of a complete frame, presented as the whole wire frame, is
 * malformed with a message naming the header; nothing reads past the cut. */
static void every_truncation_is_named(void **state)
{
	(void)state;
	uint8_t buf[256];
	struct rp_roce_spec s = base_spec(4, RP_OP_RC_WRITE_ONLY_IMM, 8);
	size_t n = rp_roce_build(buf, sizeof(buf), &s, NULL);
	for (size_t cut = 0; cut < n; cut++) {
		uint8_t *p = rp_test_dup_exact(buf, cut);
		struct rp_frame f;
		enum rp_frame_kind k = rp_frame_parse(p, cut, cut, &f);
		assert_int_equal(k, RP_KIND_MALFORMED);
		assert_true(strlen(f.error) > 0);
		free(p);
	}
	struct rp_frame f;
	/* Cut the IP total length so the BTH has only 8 of its 12 bytes. */
	uint8_t short_pkt[64];
	memcpy(short_pkt, buf, sizeof(short_pkt));
	short_pkt[16] = 0;
	short_pkt[17] = 20 + 8 + 8;
	short_pkt[38] = 0;
	short_pkt[39] = 16;
	assert_int_equal(rp_frame_parse(short_pkt, 14 + 36, 14 + 36, &f), RP_KIND_MALFORMED);
	assert_string_equal(f.error, "truncated BTH: 8 of 12 bytes");
	assert_int_equal(rp_frame_parse(buf, 20, 20, &f), RP_KIND_MALFORMED);
	assert_string_equal(f.error, "truncated IPv4 header: 6 of 20 bytes");
	assert_int_equal(rp_frame_parse(buf, 10, 10, &f), RP_KIND_MALFORMED);
	assert_string_equal(f.error, "truncated Ethernet header: 10 of 14 bytes");
	/* A header length under 20 (IHL 4): the message shows the total length the
	 * frame holds (WRITE ONLY with ImmDt, 8 bytes: IPv4 20 + UDP 8 + BTH 12 + RETH 16
	 * + ImmDt 4 + 8 + ICRC 4 = 72), not an unparsed 0. */
	uint8_t bad_ihl[128];
	memcpy(bad_ihl, buf, n);
	bad_ihl[14] = 0x44;
	assert_int_equal(rp_frame_parse(bad_ihl, n, n, &f), RP_KIND_MALFORMED);
	assert_string_equal(f.error, "bad IPv4 header: version 4, header length 16, total length 72");
}

/* A snaplen that cuts an extended header (a WRITE FIRST's RETH) leaves the
 * frame data: the header unparsed (not in ext), the payload the wire's. */
static void snaplen_cuts_an_extended_header(void **state)
{
	(void)state;
	uint8_t buf[2048];
	struct rp_roce_spec s = base_spec(4, RP_OP_RC_WRITE_FIRST, 1024);
	size_t n = rp_roce_build(buf, sizeof(buf), &s, NULL);
	struct rp_frame f;
	/* 14 + 20 + 8 + 12 = 54: the BTH whole, 10 of the RETH's 16 bytes */
	assert_int_equal(rp_frame_parse(buf, 64, n, &f), RP_KIND_ROCE);
	assert_int_equal(f.bth.opcode, RP_OP_RC_WRITE_FIRST);
	assert_false(f.ext & RP_EXT_RETH);
	assert_int_equal(f.payload_len, 1024);
	assert_int_equal(f.payload_cap, 0);
	assert_false(f.has_probe || f.icrc_checked);
	/* the BTH itself cut: still malformed, named */
	assert_int_equal(rp_frame_parse(buf, 50, n, &f), RP_KIND_MALFORMED);
	assert_string_equal(f.error, "truncated BTH: 8 of 12 bytes");
}

/* A snaplen cut is not a malformed frame: headers parse, the ICRC is unchecked. */
static void snaplen_keeps_headers(void **state)
{
	(void)state;
	uint8_t buf[2048];
	struct rp_roce_spec s = base_spec(4, RP_OP_RC_WRITE_ONLY, 1024);
	size_t n = rp_roce_build(buf, sizeof(buf), &s, NULL);
	struct rp_frame f;
	assert_int_equal(rp_frame_parse(buf, 128, n, &f), RP_KIND_ROCE);
	assert_false(f.icrc_checked);
	assert_int_equal(f.reth.dma_len, 4096);
	assert_int_equal(f.bth.psn, 0xFFFFFE);
	/* The payload length is the wire's, from the IP/UDP lengths: 1024, not the
	 * 128 - (14 Eth + 20 IPv4 + 8 UDP + 12 BTH + 16 RETH) = 58 bytes captured. */
	assert_int_equal(n, 14 + 20 + 8 + 12 + 16 + 1024 + 4);
	assert_int_equal(f.payload_off, 70);
	assert_int_equal(f.payload_len, 1024);
	assert_int_equal(f.payload_cap, 58);

	/* IPv6 on VLAN 100, a 1001-byte payload (pad 3): 14 + 4 + 40 + 8 + 12 + 16 = 94
	 * header bytes, so a 128-byte snaplen holds 34 of the payload. */
	s = base_spec(6, RP_OP_RC_WRITE_ONLY, 1001);
	s.eth.has_vlan = true;
	s.eth.vid = 100;
	n = rp_roce_build(buf, sizeof(buf), &s, NULL);
	assert_int_equal(n, 94 + 1001 + 3 + 4);
	assert_int_equal(rp_frame_parse(buf, 128, n, &f), RP_KIND_ROCE);
	assert_int_equal(f.payload_len, 1001);
	assert_int_equal(f.payload_cap, 34);
	/* Uncut, the same frame says the same, and every payload byte is there. */
	assert_int_equal(rp_frame_parse(buf, n, n, &f), RP_KIND_ROCE);
	assert_true(f.icrc_checked && f.icrc_ok);
	assert_int_equal(f.payload_len, 1001);
	assert_int_equal(f.payload_cap, 1001);
}

/* Under a snaplen the wire lengths are still checked: a UDP length beyond
 * what the IP header says follows it is malformed, cut or not. */
static void snaplen_checks_wire_lengths(void **state)
{
	(void)state;
	uint8_t buf[2048];
	struct rp_roce_spec s = base_spec(4, RP_OP_RC_SEND_ONLY, 1024);
	size_t n = rp_roce_build(buf, sizeof(buf), &s, NULL);
	/* UDP length at 14 + 20 + 4: 8 + 12 + 1024 + 4 = 1048; make it 1049 */
	assert_int_equal(buf[38] << 8 | buf[39], 1048);
	buf[39]++;
	struct rp_frame f;
	assert_int_equal(rp_frame_parse(buf, 128, n, &f), RP_KIND_MALFORMED);
	assert_string_equal(f.error, "bad UDP length: 1049, 1048 bytes follow the IP header");
	assert_int_equal(rp_frame_parse(buf, n, n, &f), RP_KIND_MALFORMED);
	assert_string_equal(f.error, "bad UDP length: 1049, 1048 bytes follow the IP header");
}

static void corrupted_icrc_is_caught(void **state)
{
	(void)state;
	uint8_t buf[256];
	struct rp_roce_spec s = base_spec(6, RP_OP_RC_SEND_ONLY, 40);
	size_t n = rp_roce_build(buf, sizeof(buf), &s, NULL);
	struct rp_frame f;
	buf[n - 10] ^= 0x01; /* a payload bit */
	rp_frame_parse(buf, n, n, &f);
	assert_true(f.icrc_checked);
	assert_false(f.icrc_ok);
}

static void udp_checksum_is_valid(void **state)
{
	(void)state;
	uint8_t buf[256];
	for (int l3 = 4; l3 <= 6; l3 += 2) {
		struct rp_roce_spec s = base_spec((uint8_t)l3, RP_OP_RC_SEND_ONLY, 33);
		s.udp_checksum = true;
		struct rp_roce_layout lay;
		size_t n = rp_roce_build(buf, sizeof(buf), &s, &lay);
		assert_true(n > 0);
		/* Summing the pseudo header and the datagram, checksum included, gives 0xFFFF. */
		size_t l4 = lay.icrc_off + 4 - lay.udp_off;
		uint32_t sum = 17 + (uint32_t)l4;
		const uint8_t *addr = buf + lay.l3_off + (l3 == 4 ? 12 : 8);
		for (size_t i = 0; i < (l3 == 4 ? 8u : 32u); i += 2)
			sum += (uint32_t)addr[i] << 8 | addr[i + 1];
		for (size_t i = 0; i < l4; i += 2)
			sum += (uint32_t)buf[lay.udp_off + i] << 8 | (i + 1 < l4 ? buf[lay.udp_off + i + 1] : 0);
		while (sum >> 16)
			sum = (sum & 0xFFFF) + (sum >> 16);
		assert_int_equal(sum, 0xFFFF);
		struct rp_frame f;
		rp_frame_parse(buf, n, n, &f);
		assert_true(f.icrc_ok); /* the UDP checksum is masked out of the ICRC */
	}
}

static void control_and_other_frames(void **state)
{
	(void)state;
	uint8_t buf[64];
	const uint8_t src[6] = {2, 0, 0, 0, 0, 1};
	const uint16_t q[8] = {0, 0, 0, 65535, 256, 0, 0, 0};
	struct rp_frame f;
	assert_int_equal(rp_pfc_frame_build(buf, sizeof(buf), src, 0x18, q), 60);
	assert_int_equal(rp_frame_parse(buf, 60, 60, &f), RP_KIND_PFC);
	assert_int_equal(f.macctl.enable, 0x18);
	assert_int_equal(f.macctl.quanta[3], 65535);
	assert_int_equal(rp_pause_frame_build(buf, sizeof(buf), src, 65535), 60);
	assert_int_equal(rp_frame_parse(buf, 60, 60, &f), RP_KIND_PAUSE);
	assert_int_equal(f.macctl.quanta[0], 65535);
	assert_int_equal(rp_frame_parse(buf, 15, 15, &f), RP_KIND_MALFORMED);
	assert_string_equal(f.error, "truncated MAC control: 1 of 4 bytes");
	rp_pfc_frame_build(buf, sizeof(buf), src, 0x18, q);
	assert_int_equal(rp_frame_parse(buf, 24, 24, &f), RP_KIND_MALFORMED);
	assert_string_equal(f.error, "truncated PFC: 10 of 20 bytes");
	rp_pause_frame_build(buf, sizeof(buf), src, 65535);
	buf[12] = 0x08;
	buf[13] = 0x06; /* ARP */
	assert_int_equal(rp_frame_parse(buf, 60, 60, &f), RP_KIND_OTHER);
	assert_string_equal(rp_frame_kind_name(RP_KIND_CNP), "cnp");
	/* IPv4 UDP to another port is not RoCE. */
	uint8_t rbuf[128];
	struct rp_roce_spec s = base_spec(4, RP_OP_RC_SEND_ONLY, 8);
	size_t n = rp_roce_build(rbuf, sizeof(rbuf), &s, NULL);
	rbuf[36] = 0x00;
	rbuf[37] = 53;
	assert_int_equal(rp_frame_parse(rbuf, n, n, &f), RP_KIND_OTHER);
}

static void probe_is_found_in_payload(void **state)
{
	(void)state;
	uint8_t payload[64] = {0}, buf[256];
	struct rp_probe p = {.flow_id = 7, .seq = 123456789012ull, .tx_ns = 987654321ull};
	assert_int_equal(rp_probe_build(payload, sizeof(payload), &p), RP_PROBE_LEN);
	struct rp_roce_spec s = base_spec(4, RP_OP_RC_WRITE_ONLY, sizeof(payload));
	s.payload = payload;
	size_t n = rp_roce_build(buf, sizeof(buf), &s, NULL);
	struct rp_frame f;
	rp_frame_parse(buf, n, n, &f);
	assert_true(f.has_probe);
	assert_int_equal(f.probe.flow_id, 7);
	assert_true(f.probe.seq == 123456789012ull);
	assert_true(f.probe.tx_ns == 987654321ull);
}

/* A switch marking CE keeps the frame valid: IPv4 checksum fixed, ICRC untouched. */
static void set_ecn_marks_ce(void **state)
{
	(void)state;
	uint8_t buf[256];
	for (int l3 = 4; l3 <= 6; l3 += 2) {
		struct rp_roce_spec s = base_spec((uint8_t)l3, RP_OP_RC_SEND_ONLY, 40);
		s.ip6.ecn = RP_ECN_ECT0;
		s.eth.has_vlan = l3 == 6;
		size_t n = rp_roce_build(buf, sizeof(buf), &s, NULL);
		assert_int_equal(rp_frame_set_ecn(buf, n, RP_ECN_CE), 0);
		struct rp_frame f;
		assert_int_equal(rp_frame_parse(buf, n, n, &f), RP_KIND_ROCE);
		assert_true(f.icrc_ok);
		if (l3 == 4) {
			assert_int_equal(f.ip4.ecn, RP_ECN_CE);
			assert_int_equal(f.ip4.dscp, 26);
			assert_true(f.ip4.checksum_ok);
		} else {
			assert_int_equal(f.ip6.ecn, RP_ECN_CE);
			assert_int_equal(f.ip6.dscp, 46);
			assert_int_equal(f.ip6.flow_label, 0xABCDE);
		}
	}
	uint8_t arp[60] = {[12] = 0x08, [13] = 0x06};
	assert_int_equal(rp_frame_set_ecn(arp, sizeof(arp), RP_ECN_CE), -1);
}

static void roce_data_at_a_glance(void **state)
{
	(void)state;
	uint8_t buf[256];
	for (size_t i = 0; i < sizeof(all_opcodes); i++) {
		struct rp_roce_spec s = base_spec(i & 1 ? 6 : 4, all_opcodes[i], rp_opcode_info(all_opcodes[i])->payload ? 8 : 0);
		s.eth.has_vlan = (i & 2) != 0;
		size_t n = rp_roce_build(buf, sizeof(buf), &s, NULL);
		bool data = all_opcodes[i] != RP_OP_RC_ACK && all_opcodes[i] != RP_OP_RC_ATOMIC_ACK && all_opcodes[i] != RP_OP_CNP;
		assert_int_equal(rp_frame_is_roce_data(buf, n), data);
		assert_false(rp_frame_is_roce_data(buf, 40)); /* cut before the BTH */
	}
	const uint8_t src[6] = {2, 0, 0, 0, 0, 1};
	const uint16_t q[8] = {0};
	rp_pfc_frame_build(buf, sizeof(buf), src, 0x08, q);
	assert_false(rp_frame_is_roce_data(buf, 60));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_opcode_round_trips),
		cmocka_unit_test(write_only_layout_is_exact),
		cmocka_unit_test(every_truncation_is_named),
		cmocka_unit_test(snaplen_keeps_headers),
		cmocka_unit_test(snaplen_cuts_an_extended_header),
		cmocka_unit_test(snaplen_checks_wire_lengths),
		cmocka_unit_test(corrupted_icrc_is_caught),
		cmocka_unit_test(udp_checksum_is_valid),
		cmocka_unit_test(control_and_other_frames),
		cmocka_unit_test(probe_is_found_in_payload),
		cmocka_unit_test(set_ecn_marks_ce),
		cmocka_unit_test(roce_data_at_a_glance),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
