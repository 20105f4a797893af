/* mksample OUT.pcap: a small, realistic capture built with lib/wire.
 *
 * Three hosts and a switch on one segment; RoCE on VLAN 100 priority 3,
 * DSCP 26, ECT(0), as a lossless RoCE fabric is usually set up:
 *
 *   A 192.0.2.1 / 2001:db8::1 ---+
 *   B 192.0.2.2 / 2001:db8::2 ---+--- switch b8:ce:f6:00:00:fe (PFC, PAUSE)
 *   C 192.0.2.3 (untagged UD) ---+
 *
 * A sends, writes, reads and does an atomic on B over four RC QPs; B answers
 * with ACKs, a PSN-sequence NAK and an RNR NAK; the switch marks one write CE
 * and B answers with a CNP; C sends UD datagrams to A; an IPv6 pair writes;
 * the switch sends PFC (priorities 3 and 4, then XON) and a PAUSE; an ARP
 * exchange starts it; a snaplen-cut frame and one with a corrupted ICRC end it.
 * Data payloads start with the probe (flow id, sequence, TX time).
 *
 * Read by tests/interop/tshark_check.py and by tools/quickstart.sh.
 * Exit 2 with one line on error. */
#include <pcap/pcap.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire/frame.h"
#include "wire/sport.h"

#define MKS_T0_NS 1700000000000000000ull /* 2023-11-14T22:13:20Z */
#define MKS_GAP_NS 1200u
#define MKS_MTU 1024u
#define MKS_VID 100
#define MKS_PCP 3
#define MKS_DSCP 26
#define MKS_CNP_DSCP 48
#define MKS_FRAME_MAX 2048

struct mks_host {
	uint8_t mac[6];
	uint32_t ip4;
	uint8_t ip6[16];
};

/* One direction of an RC (or UD) queue pair. */
struct mks_qp {
	const struct mks_host *from, *to;
	uint32_t sqpn, dqpn;
	uint8_t l3;
	bool vlan;
	uint32_t flow_id; /* probe flow id */
	uint64_t seq;     /* probe sequence */
};

struct mks_out {
	pcap_t *pc;
	pcap_dumper_t *dump;
	uint64_t t_ns;
	unsigned frames;
	const char *path;
};

static const struct mks_host host_a = {
	{0x02, 0x00, 0x00, 0x00, 0x00, 0x01}, 0xC0000201,
	{0x20, 0x01, 0x0d, 0xb8, [15] = 0x01}};
static const struct mks_host host_b = {
	{0x02, 0x00, 0x00, 0x00, 0x00, 0x02}, 0xC0000202,
	{0x20, 0x01, 0x0d, 0xb8, [15] = 0x02}};
static const struct mks_host host_c = {
	{0x02, 0x00, 0x00, 0x00, 0x00, 0x03}, 0xC0000203, {0}};
static const uint8_t switch_mac[6] = {0xb8, 0xce, 0xf6, 0x00, 0x00, 0xfe};

__attribute__((noreturn, format(printf, 1, 2))) static void mks_die(const char *fmt, ...)
{
	va_list ap;
	fputs("mksample: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

/* ---- output --------------------------------------------------------------- */

static void mks_open(struct mks_out *o, const char *path)
{
	o->pc = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 65535, PCAP_TSTAMP_PRECISION_NANO);
	if (!o->pc)
		mks_die("cannot create a pcap handle");
	o->dump = pcap_dump_open(o->pc, path);
	if (!o->dump)
		mks_die("%s (give a writable OUT.pcap path)", pcap_geterr(o->pc));
	o->t_ns = MKS_T0_NS;
	o->frames = 0;
	o->path = path;
}

/* caplen < len records a snaplen cut. */
static void mks_emit_cut(struct mks_out *o, const uint8_t *buf, size_t caplen, size_t len)
{
	struct pcap_pkthdr h;
	memset(&h, 0, sizeof(h));
	h.ts.tv_sec = (time_t)(o->t_ns / 1000000000u);
	h.ts.tv_usec = (suseconds_t)(o->t_ns % 1000000000u); /* nanoseconds in a NANO file */
	h.caplen = (bpf_u_int32)caplen;
	h.len = (bpf_u_int32)len;
	pcap_dump((u_char *)o->dump, &h, buf);
	o->frames++;
	/* Wire time at 100 Gb/s plus a gap, with a little deterministic jitter. */
	o->t_ns += len * 8 / 100 + MKS_GAP_NS + (o->frames * 37u) % 211u;
}

static void mks_emit(struct mks_out *o, const uint8_t *buf, size_t len)
{
	mks_emit_cut(o, buf, len, len);
}

static void mks_close(struct mks_out *o)
{
	if (pcap_dump_flush(o->dump) != 0)
		mks_die("cannot write %s", o->path);
	pcap_dump_close(o->dump);
	pcap_close(o->pc);
}

/* ---- RoCE ----------------------------------------------------------------- */

static struct rp_roce_spec mks_spec(const struct mks_qp *q, uint8_t opcode, uint32_t psn)
{
	struct rp_roce_spec s;
	memset(&s, 0, sizeof(s));
	memcpy(s.eth.dst, q->to->mac, 6);
	memcpy(s.eth.src, q->from->mac, 6);
	s.eth.has_vlan = q->vlan;
	s.eth.pcp = q->vlan ? MKS_PCP : 0;
	s.eth.vid = q->vlan ? MKS_VID : 0;
	s.l3 = q->l3;
	uint32_t label = rp_flow_label(q->sqpn, q->dqpn);
	if (q->l3 == 4) {
		s.ip4 = (struct rp_ipv4){.dscp = MKS_DSCP, .ecn = RP_ECN_ECT0, .df = true, .ttl = 64,
					 .proto = RP_IPPROTO_UDP, .src = q->from->ip4, .dst = q->to->ip4};
	} else {
		s.ip6 = (struct rp_ipv6){.dscp = MKS_DSCP, .ecn = RP_ECN_ECT0, .flow_label = label,
					 .next_header = RP_IPPROTO_UDP, .hop_limit = 64};
		memcpy(s.ip6.src, q->from->ip6, 16);
		memcpy(s.ip6.dst, q->to->ip6, 16);
		s.udp_checksum = true;
	}
	s.udp_sport = rp_flow_label_to_sport(label);
	s.bth = (struct rp_bth){.opcode = opcode, .pkey = 0xFFFF, .dqpn = q->dqpn, .psn = psn & RP_PSN_MASK};
	return s;
}

/* Payload: the probe, then a byte pattern. */
static void mks_fill(struct mks_out *o, struct mks_qp *q, uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 7 + q->sqpn);
	if (len >= RP_PROBE_LEN) {
		struct rp_probe pr = {.flow_id = q->flow_id, .seq = q->seq++, .tx_ns = o->t_ns};
		rp_probe_build(p, len, &pr);
	}
}

static size_t mks_build(uint8_t *buf, const struct rp_roce_spec *s)
{
	size_t n = rp_roce_build(buf, MKS_FRAME_MAX, s, NULL);
	if (n == 0)
		mks_die("lib/wire refused to build opcode 0x%02x", s->bth.opcode);
	return n;
}

static void mks_roce(struct mks_out *o, struct rp_roce_spec *s, struct mks_qp *q, size_t payload_len)
{
	uint8_t payload[MKS_MTU], frame[MKS_FRAME_MAX];
	if (payload_len) {
		mks_fill(o, q, payload, payload_len);
		s->payload = payload;
		s->payload_len = payload_len;
	}
	mks_emit(o, frame, mks_build(frame, s));
}

static void mks_simple(struct mks_out *o, struct mks_qp *q, uint8_t opcode, uint32_t psn, size_t payload_len,
		       bool ack_req)
{
	struct rp_roce_spec s = mks_spec(q, opcode, psn);
	s.bth.ack_req = ack_req;
	mks_roce(o, &s, q, payload_len);
}

static void mks_aeth(struct mks_out *o, struct mks_qp *q, uint8_t opcode, uint32_t psn, uint8_t syndrome,
		     uint32_t msn, size_t payload_len)
{
	struct rp_roce_spec s = mks_spec(q, opcode, psn);
	s.aeth = (struct rp_aeth){.syndrome = syndrome, .msn = msn};
	mks_roce(o, &s, q, payload_len);
}

static void mks_ack(struct mks_out *o, struct mks_qp *q, uint32_t psn, uint32_t msn)
{
	mks_aeth(o, q, RP_OP_RC_ACK, psn, rp_aeth_syndrome(RP_AETH_ACK, 31), msn, 0);
}

static void mks_write(struct mks_out *o, struct mks_qp *q, uint8_t opcode, uint32_t psn, size_t len,
		      uint64_t va, uint32_t dma_len, uint8_t ecn)
{
	struct rp_roce_spec s = mks_spec(q, opcode, psn);
	s.reth = (struct rp_reth){.va = va, .rkey = 0x00001a2b, .dma_len = dma_len};
	s.ip4.ecn = ecn;
	s.ip6.ecn = ecn;
	s.bth.ack_req = opcode != RP_OP_RC_WRITE_FIRST && opcode != RP_OP_RC_WRITE_MIDDLE;
	s.imm = 0x0000beef;
	mks_roce(o, &s, q, len);
}

static void mks_cnp(struct mks_out *o, const struct mks_qp *q)
{
	struct rp_roce_spec s = mks_spec(q, RP_OP_CNP, 0);
	uint8_t frame[MKS_FRAME_MAX];
	/* As ConnectX NICs send them: UDP source port 0, DSCP 48, BECN set. */
	s.udp_sport = 0;
	s.ip4.dscp = MKS_CNP_DSCP;
	s.ip4.ecn = RP_ECN_NOT_ECT;
	s.ip6.dscp = MKS_CNP_DSCP;
	s.ip6.ecn = RP_ECN_NOT_ECT;
	s.bth.becn = true;
	mks_emit(o, frame, mks_build(frame, &s));
}

/* ---- other frames ------------------------------------------------------------ */

static void mks_arp(struct mks_out *o, const struct mks_host *from, const struct mks_host *to, bool reply)
{
	static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	uint8_t f[RP_ETH_MIN_FRAME] = {0};
	memcpy(f, reply ? to->mac : bcast, 6);
	memcpy(f + 6, from->mac, 6);
	f[12] = 0x08, f[13] = 0x06;                     /* ARP */
	f[14] = 0x00, f[15] = 0x01, f[16] = 0x08, f[17] = 0x00; /* Ethernet, IPv4 */
	f[18] = 6, f[19] = 4, f[20] = 0, f[21] = reply ? 2 : 1;
	memcpy(f + 22, from->mac, 6);
	for (int i = 0; i < 4; i++) {
		f[28 + i] = (uint8_t)(from->ip4 >> (24 - 8 * i));
		f[38 + i] = (uint8_t)(to->ip4 >> (24 - 8 * i));
	}
	if (reply)
		memcpy(f + 32, to->mac, 6);
	mks_emit(o, f, sizeof(f));
}

static void mks_pfc(struct mks_out *o, uint8_t enable, uint16_t q3, uint16_t q4)
{
	uint16_t quanta[RP_PFC_PRIOS] = {0};
	uint8_t f[RP_MACCTL_FRAME_LEN];
	quanta[3] = q3;
	quanta[4] = q4;
	if (rp_pfc_frame_build(f, sizeof(f), switch_mac, enable, quanta) == 0)
		mks_die("lib/wire refused to build a PFC frame");
	mks_emit(o, f, sizeof(f));
}

static void mks_pause(struct mks_out *o, uint16_t quanta)
{
	uint8_t f[RP_MACCTL_FRAME_LEN];
	if (rp_pause_frame_build(f, sizeof(f), switch_mac, quanta) == 0)
		mks_die("lib/wire refused to build a PAUSE frame");
	mks_emit(o, f, sizeof(f));
}

/* A SEND_ONLY captured with a snaplen that cuts it inside the BTH. */
static void mks_cut_in_bth(struct mks_out *o, struct mks_qp *q, uint32_t psn)
{
	struct rp_roce_spec s = mks_spec(q, RP_OP_RC_SEND_ONLY, psn);
	uint8_t frame[MKS_FRAME_MAX];
	s.payload_len = 64;
	size_t n = mks_build(frame, &s);
	size_t bth = rp_eth_hlen(&s.eth) + RP_IPV4_HLEN + RP_UDP_HLEN;
	mks_emit_cut(o, frame, bth + 6, n);
}

/* A SEND_ONLY whose ICRC a bad cable (or a buggy NIC) got wrong. */
static void mks_bad_icrc(struct mks_out *o, struct mks_qp *q, uint32_t psn)
{
	struct rp_roce_spec s = mks_spec(q, RP_OP_RC_SEND_ONLY, psn);
	struct rp_roce_layout lay;
	uint8_t payload[128], frame[MKS_FRAME_MAX];
	mks_fill(o, q, payload, sizeof(payload));
	s.payload = payload;
	s.payload_len = sizeof(payload);
	s.bth.ack_req = true;
	if (rp_roce_build(frame, sizeof(frame), &s, &lay) == 0)
		mks_die("lib/wire refused to build a SEND_ONLY");
	frame[lay.icrc_off + 1] ^= 0x10;
	mks_emit(o, frame, lay.frame_len);
}

/* ---- the conversation -------------------------------------------------------- */

struct mks_qps {
	struct mks_qp send, send_r, write, write_r, read, read_r, ud, v6, v6_r;
};

static void mks_qps_init(struct mks_qps *q)
{
	q->send = (struct mks_qp){&host_a, &host_b, 0x000011, 0x0000d2, 4, true, 1, 0};
	q->send_r = (struct mks_qp){&host_b, &host_a, 0x0000d2, 0x000011, 4, true, 0, 0};
	q->write = (struct mks_qp){&host_a, &host_b, 0x000012, 0x0000d3, 4, true, 2, 0};
	q->write_r = (struct mks_qp){&host_b, &host_a, 0x0000d3, 0x000012, 4, true, 0, 0};
	q->read = (struct mks_qp){&host_a, &host_b, 0x000013, 0x0000d4, 4, true, 3, 0};
	q->read_r = (struct mks_qp){&host_b, &host_a, 0x0000d4, 0x000013, 4, true, 4, 0};
	q->ud = (struct mks_qp){&host_c, &host_a, 0x000045, 0x000020, 4, false, 5, 0};
	q->v6 = (struct mks_qp){&host_a, &host_b, 0x000030, 0x0000e0, 6, true, 6, 0};
	q->v6_r = (struct mks_qp){&host_b, &host_a, 0x0000e0, 0x000030, 6, true, 0, 0};
}

static void mks_sends(struct mks_out *o, struct mks_qps *q)
{
	mks_simple(o, &q->send, RP_OP_RC_SEND_FIRST, 1000, MKS_MTU, false);
	mks_simple(o, &q->send, RP_OP_RC_SEND_MIDDLE, 1001, MKS_MTU, false);
	struct rp_roce_spec s = mks_spec(&q->send, RP_OP_RC_SEND_LAST, 1002);
	s.bth.se = s.bth.ack_req = true;
	mks_roce(o, &s, &q->send, 300);
	mks_ack(o, &q->send_r, 1002, 1);
	s = mks_spec(&q->send, RP_OP_RC_SEND_ONLY_IMM, 1003);
	s.bth.se = s.bth.ack_req = true;
	s.imm = 0x11223344;
	mks_roce(o, &s, &q->send, 61); /* pad 3 */
	mks_ack(o, &q->send_r, 1003, 2);
}

static void mks_writes(struct mks_out *o, struct mks_qps *q)
{
	const uint64_t va = 0x00007f3a12340000ull;
	mks_write(o, &q->write, RP_OP_RC_WRITE_FIRST, 5000, MKS_MTU, va, 2600, RP_ECN_ECT0);
	mks_write(o, &q->write, RP_OP_RC_WRITE_MIDDLE, 5001, MKS_MTU, 0, 0, RP_ECN_CE); /* marked */
	mks_write(o, &q->write, RP_OP_RC_WRITE_LAST, 5002, 552, 0, 0, RP_ECN_ECT0);
	mks_cnp(o, &q->write_r);
	mks_ack(o, &q->write_r, 5002, 1);
	mks_write(o, &q->write, RP_OP_RC_WRITE_ONLY, 5003, 256, va + 4096, 256, RP_ECN_ECT0);
	mks_write(o, &q->write, RP_OP_RC_WRITE_ONLY_IMM, 5004, 64, va + 8192, 64, RP_ECN_ECT0);
	mks_ack(o, &q->write_r, 5004, 3);
	/* 5005 and 5006 are lost: B answers 5007 with a PSN sequence NAK. */
	mks_write(o, &q->write, RP_OP_RC_WRITE_ONLY, 5007, 128, va + 12288, 128, RP_ECN_ECT0);
	mks_aeth(o, &q->write_r, RP_OP_RC_ACK, 5005, rp_aeth_syndrome(RP_AETH_NAK, RP_NAK_PSN_SEQ_ERR), 3, 0);
}

static void mks_reads(struct mks_out *o, struct mks_qps *q)
{
	struct rp_roce_spec s = mks_spec(&q->read, RP_OP_RC_READ_REQUEST, 7000);
	s.reth = (struct rp_reth){.va = 0x0000560000abc000ull, .rkey = 0x00a0b0c0, .dma_len = 2500};
	s.bth.ack_req = true;
	mks_roce(o, &s, &q->read, 0);
	mks_aeth(o, &q->read_r, RP_OP_RC_READ_RESP_FIRST, 7000, 0x1f, 0, MKS_MTU);
	mks_simple(o, &q->read_r, RP_OP_RC_READ_RESP_MIDDLE, 7001, MKS_MTU, false);
	mks_aeth(o, &q->read_r, RP_OP_RC_READ_RESP_LAST, 7002, 0x1f, 1, 2500 - 2 * MKS_MTU);
	s = mks_spec(&q->read, RP_OP_RC_READ_REQUEST, 7003);
	s.reth = (struct rp_reth){.va = 0x0000560000abd000ull, .rkey = 0x00a0b0c0, .dma_len = 100};
	s.bth.ack_req = true;
	mks_roce(o, &s, &q->read, 0);
	mks_aeth(o, &q->read_r, RP_OP_RC_READ_RESP_ONLY, 7003, 0x1f, 2, 100);
}

static void mks_atomics_and_errors(struct mks_out *o, struct mks_qps *q)
{
	struct rp_roce_spec s = mks_spec(&q->read, RP_OP_RC_FETCH_ADD, 7004);
	s.atomic = (struct rp_atomic_eth){.va = 0x0000560000abe008ull, .rkey = 0x00a0b0c0, .swap_add = 1};
	s.bth.ack_req = true;
	mks_roce(o, &s, &q->read, 0);
	s = mks_spec(&q->read_r, RP_OP_RC_ATOMIC_ACK, 7004);
	s.aeth = (struct rp_aeth){.syndrome = 0x1f, .msn = 3};
	s.atomic_ack = 41;
	mks_roce(o, &s, &q->read_r, 0);
	/* B has no receive posted: RNR NAK with timer 14. */
	mks_simple(o, &q->send, RP_OP_RC_SEND_ONLY, 1004, 200, true);
	mks_aeth(o, &q->send_r, RP_OP_RC_ACK, 1004, rp_aeth_syndrome(RP_AETH_RNR_NAK, 14), 2, 0);
	mks_simple(o, &q->send, RP_OP_RC_SEND_ONLY, 1004, 200, true); /* the retry */
	mks_ack(o, &q->send_r, 1004, 3);
	s = mks_spec(&q->send, RP_OP_RC_SEND_ONLY_INV, 1005);
	s.ieth = 0x00001a2b;
	s.bth.se = s.bth.ack_req = true;
	mks_roce(o, &s, &q->send, 32);
	mks_ack(o, &q->send_r, 1005, 4);
}

static void mks_ud_and_v6(struct mks_out *o, struct mks_qps *q)
{
	for (uint32_t i = 0; i < 2; i++) {
		struct rp_roce_spec s = mks_spec(&q->ud, RP_OP_UD_SEND_ONLY, 300 + i);
		s.deth = (struct rp_deth){.qkey = 0x11111111, .src_qp = q->ud.sqpn};
		s.ip4.dscp = 0;
		mks_roce(o, &s, &q->ud, 256);
	}
	mks_write(o, &q->v6, RP_OP_RC_WRITE_ONLY, 9000, 512, 0x00007f0000100000ull, 512, RP_ECN_ECT0);
	mks_ack(o, &q->v6_r, 9000, 1);
	mks_write(o, &q->v6, RP_OP_RC_WRITE_ONLY, 9001, 512, 0x00007f0000100200ull, 512, RP_ECN_CE);
	mks_cnp(o, &q->v6_r);
	mks_ack(o, &q->v6_r, 9001, 2);
}

int main(int argc, char **argv)
{
	struct mks_out o;
	struct mks_qps q;
	if (argc != 2 || argv[1][0] == '-')
		mks_die("usage: mksample OUT.pcap");
	mks_qps_init(&q);
	mks_open(&o, argv[1]);
	mks_arp(&o, &host_a, &host_b, false);
	mks_arp(&o, &host_b, &host_a, true);
	mks_sends(&o, &q);
	mks_writes(&o, &q);
	mks_pfc(&o, 1u << 3 | 1u << 4, 65535, 256);
	mks_reads(&o, &q);
	mks_pfc(&o, 1u << 3, 0, 0); /* XON for priority 3 */
	mks_atomics_and_errors(&o, &q);
	mks_pause(&o, 65535);
	mks_ud_and_v6(&o, &q);
	mks_cut_in_bth(&o, &q.send, 1006);
	mks_bad_icrc(&o, &q.send, 1007);
	mks_close(&o);
	return 0;
}
