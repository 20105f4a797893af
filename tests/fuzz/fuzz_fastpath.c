/* libFuzzer harness: the RX fast path (lib/wire/fastpath.h and the
 * accountant's lib/stats/acct_fast.c) against the general parser on any
 * bytes.
 *
 * The first input byte says what the rest is: even, the frame itself; odd,
 * bytes XORed over one of roceprobe's own frames (IPv4 SEND ONLY with a
 * probe, or IPv6 WRITE ONLY), so mutations start where the fast path
 * decides and reach every check in it. For each frame:
 * - rp_fp_agree (fastpath_agree.h): where the fast path takes it,
 *   rp_frame_parse says RoCE with the same fields and ICRC verdict;
 * - two accountants, one with the fast path and one general_only, both with
 *   flows matching the base frames, get the frame at the destination port
 *   and at another: the same class every time, and the same counters for
 *   the ports and the flows (they run for the whole fuzzing session, so a
 *   divergence in state shows on any later input);
 * - two more get it twice in a row, as a burst the way lib/dp/rx.c hands
 *   one over (rp_acct_pre_n: equal lengths, so the ICRCs go side by side;
 *   rp_acct_rx_fast_n, rp_acct_rx_pre for what it leaves) and frame by frame
 *   through the general path: the same verdicts and state again. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "stats/acct.h"
#include "wire/fastpath.h"
#include "wire/frame.h"

#include "fastpath_agree.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FRAME_MAX 2048
#define NFLOWS 3

static uint8_t base[2][FRAME_MAX];
static size_t base_len[2];
static struct rp_acct *fast, *gen, *fastb, *genb;
static uint64_t now = 1000;

static const uint8_t mac_tx[6] = {2, 0, 0, 0, 0, 1}, mac_rx[6] = {2, 0, 0, 0, 0, 2};
static const uint8_t ip6_tx[16] = {0xfd, [15] = 1}, ip6_rx[16] = {0xfd, [15] = 2};

/* Accountant flow 1 of 3: 192.0.2.1 -> .2, QPs 0x100..0x103; flow 2 the
 * IPv6 one, QPs 0x200..0x201. Their ids (the probes' flow ids) are not
 * their indexes, as in a plan whose PFC sources come first: flow i has id
 * (i + 1) % 3. */
static size_t build(uint8_t *buf, int v6)
{
	uint8_t payload[64] = {0};
	struct rp_probe pr = {.flow_id = v6 ? 0 : 2, .seq = 5, .tx_ns = 500};
	rp_probe_build(payload, sizeof(payload), &pr);
	struct rp_roce_spec s = {.l3 = v6 ? 6 : 4, .udp_sport = 0xC000, .payload = payload,
				 .payload_len = v6 ? 40 : 24};
	memcpy(s.eth.src, mac_tx, 6);
	memcpy(s.eth.dst, mac_rx, 6);
	s.ip4 = (struct rp_ipv4){.dscp = 26, .ecn = RP_ECN_ECT0, .ttl = 64, .src = 0xC0000201u, .dst = 0xC0000202u};
	s.ip6 = (struct rp_ipv6){.dscp = 26, .ecn = RP_ECN_ECT0, .hop_limit = 64};
	memcpy(s.ip6.src, ip6_tx, 16);
	memcpy(s.ip6.dst, ip6_rx, 16);
	s.bth = (struct rp_bth){.opcode = v6 ? RP_OP_RC_WRITE_ONLY : RP_OP_RC_SEND_ONLY, .pkey = 0xFFFF,
				.dqpn = v6 ? 0x201 : 0x102, .psn = 7, .ack_req = true};
	s.reth = (struct rp_reth){.va = 0x1000, .rkey = 0x42, .dma_len = 40};
	return rp_roce_build(buf, FRAME_MAX, &s, NULL);
}

static void setup(void)
{
	static struct rp_acct_flow_cfg flows[NFLOWS];
	static const struct rp_acct_port_cfg ports[2] = {{.node = "rx", .speed_bps = 100000000000ull},
							 {.node = "tx", .speed_bps = 100000000000ull}};
	for (unsigned i = 0; i < NFLOWS; i++) {
		flows[i] = (struct rp_acct_flow_cfg){.id = (i + 1) % NFLOWS, .src = "tx", .dst = "rx", .l3 = 4,
						     .src_ip4 = 0xC0000201u, .dst_ip4 = 0xC0000202u,
						     .lqpn = 0x900 + 16 * i, .rqpn = 0x100 * i, .qps = 4, .prio = 3};
		memcpy(flows[i].dst_mac, mac_rx, 6);
	}
	flows[2].l3 = 6;
	flows[2].qps = 2;
	memcpy(flows[2].src_ip6, ip6_tx, 16);
	memcpy(flows[2].dst_ip6, ip6_rx, 16);
	struct rp_acct_cfg cfg = {.flows = flows, .nflows = NFLOWS, .ports = ports, .nports = 2, .run_ns = 1000000,
				  .latency = true, .track_psn = true, .dst_port_check = true};
	char err[128];
	fast = rp_acct_create(&cfg, err, sizeof(err));
	fastb = rp_acct_create(&cfg, err, sizeof(err));
	cfg.general_only = true;
	gen = rp_acct_create(&cfg, err, sizeof(err));
	genb = rp_acct_create(&cfg, err, sizeof(err));
	if (!fast || !gen || !fastb || !genb)
		__builtin_trap();
	for (int v6 = 0; v6 < 2; v6++)
		if (!(base_len[v6] = build(base[v6], v6)))
			__builtin_trap();
}

static void same_state(struct rp_acct *fast, struct rp_acct *gen)
{
	for (size_t i = 0; i < 2; i++) {
		struct rp_acct_port_result a, b;
		rp_acct_port(fast, i, &a);
		rp_acct_port(gen, i, &b);
		if (a.rx_frames != b.rx_frames || a.rx_bytes != b.rx_bytes || a.icrc_bad != b.icrc_bad ||
		    a.misdelivered != b.misdelivered || memcmp(a.class_frames, b.class_frames, sizeof(a.class_frames)))
			__builtin_trap();
		for (unsigned q = 0; q < 8; q++)
			if (a.prio[q].ecn_marked != b.prio[q].ecn_marked)
				__builtin_trap();
	}
	for (size_t i = 0; i < NFLOWS; i++) {
		struct rp_acct_flow_result a, b;
		rp_acct_flow(fast, i, &a);
		rp_acct_flow(gen, i, &b);
		if (a.rx_packets != b.rx_packets || a.rx_bytes != b.rx_bytes || a.rx_payload_bytes != b.rx_payload_bytes ||
		    a.ce != b.ce || a.reordered != b.reordered || a.duplicates != b.duplicates ||
		    a.stale != b.stale || a.clock_skew != b.clock_skew || a.misdelivered != b.misdelivered ||
		    a.first_rx_ns != b.first_rx_ns || a.last_rx_ns != b.last_rx_ns)
			__builtin_trap();
		const struct rp_hist *ha = rp_acct_flow_latency(fast, i), *hb = rp_acct_flow_latency(gen, i);
		if (ha->count != hb->count || ha->min != hb->min || ha->max != hb->max)
			__builtin_trap();
		for (size_t q = 0; q < rp_acct_flow_nqps(fast, i); q++) {
			struct rp_acct_qp_result qa, qb;
			rp_acct_qp(fast, i, q, &qa);
			rp_acct_qp(gen, i, q, &qb);
			if (memcmp(&qa.psn, &qb.psn, sizeof(qa.psn)) || qa.ce != qb.ce)
				__builtin_trap();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t frame[FRAME_MAX];
	if (!fast)
		setup();
	if (size < 1 || size > FRAME_MAX)
		return 0;
	size_t len = size - 1;
	if (data[0] & 1) {
		int v6 = (data[0] >> 1) & 1;
		/* Over the base frame; the input may shorten or lengthen it. */
		memcpy(frame, base[v6], base_len[v6]);
		memset(frame + base_len[v6], 0, FRAME_MAX - base_len[v6]);
		for (size_t i = 0; i < len; i++)
			frame[i] ^= data[1 + i];
		if (len < base_len[v6] && !(data[0] & 4))
			len = base_len[v6];
	} else {
		memcpy(frame, data + 1, len);
	}
	bool took;
	if (rp_fp_agree(frame, len, &took))
		__builtin_trap();
	for (unsigned port = 0; port < 2; port++) {
		enum rp_rx_class a = rp_acct_rx(fast, port, now, frame, len, len, NULL);
		enum rp_rx_class b = rp_acct_rx(gen, port, now, frame, len, len, NULL);
		if (a != b)
			__builtin_trap();
		now += 100;
	}
	same_state(fast, gen);
	for (unsigned port = 0; port < 2; port++) {
		const uint8_t *buf[2] = {frame, frame};
		uint16_t caplen[2] = {(uint16_t)len, (uint16_t)len};
		uint32_t wire[2] = {(uint32_t)len, (uint32_t)len};
		struct rp_acct_pre pre[2], one;
		rp_acct_pre_n(buf, caplen, wire, 2, pre);
		rp_acct_pre(frame, len, len, &one);
		if (pre[0].taken != one.taken || pre[1].taken != one.taken || pre[0].icrc_ok != one.icrc_ok ||
		    pre[1].icrc_ok != one.icrc_ok)
			__builtin_trap();
		for (unsigned j = 0; j < 2;) {
			j += rp_acct_rx_fast_n(fastb, port, now, buf + j, caplen + j, pre + j, 2 - j, false);
			if (j < 2) {
				rp_acct_rx_pre(fastb, port, now, buf[j], caplen[j], wire[j], &pre[j], NULL);
				j++;
			}
		}
		rp_acct_rx(genb, port, now, frame, len, len, NULL);
		rp_acct_rx(genb, port, now, frame, len, len, NULL);
		now += 100;
	}
	same_state(fastb, genb);
	return 0;
}
