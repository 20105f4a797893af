/* The fast classifier's promise (lib/wire/fastpath.h), checked on one frame:
 * where rp_fp_parse takes it, rp_frame_parse says RoCE with the same fields
 * and the same ICRC verdict. Shared by tests/fuzz/fuzz_fastpath.c (any
 * bytes) and tests/unit/test_fastpath.c (scapy's frames and every single-bit
 * change of them). Returns NULL, or the first field that disagrees. */
#ifndef RP_TESTS_FASTPATH_AGREE_H
#define RP_TESTS_FASTPATH_AGREE_H

#include <stddef.h>
#include <stdint.h>

#include "wire/fastpath.h"
#include "wire/frame.h"

/* took: whether the fast path took the frame. */
static inline const char *rp_fp_agree(const uint8_t *b, size_t len, bool *took)
{
	struct rp_fp_pkt fp = {0};
	static struct rp_frame f; /* large: not on a fuzzer's stack */
	rp_frame_parse(b, len, len, &f);
	*took = rp_fp_parse(b, len, &fp);
	if (!*took)
		return NULL;
	if (f.kind != RP_KIND_ROCE)
		return "kind";
	if (fp.l3 != f.l3)
		return "l3";
	if (fp.ecn != (f.l3 == 4 ? f.ip4.ecn : f.ip6.ecn))
		return "ecn";
	if (fp.opcode != f.bth.opcode)
		return "opcode";
	if (fp.dqpn != f.bth.dqpn)
		return "dqpn";
	if (fp.psn != f.bth.psn)
		return "psn";
	if (fp.ack_req != f.bth.ack_req)
		return "ack_req";
	if (fp.payload_len != f.payload_len || f.payload_cap != f.payload_len)
		return "payload_len";
	if (fp.has_probe != f.has_probe)
		return "has_probe";
	if (fp.has_probe && (fp.probe.flow_id != f.probe.flow_id || fp.probe.seq != f.probe.seq ||
			     fp.probe.tx_ns != f.probe.tx_ns))
		return "probe";
	if (memcmp(rp_fp_eth_dst(b), f.eth.dst, 6) != 0)
		return "eth_dst";
	if (!f.icrc_checked || rp_fp_icrc_ok(b, &fp) != f.icrc_ok)
		return "icrc";
	return NULL;
}

#endif
