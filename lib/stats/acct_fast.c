/* The accountant's fast path: roceprobe's own data frames, in the layout
 * the builder writes (wire/fastpath.h), found and accounted without the
 * general parse. It takes a frame only where the general path would find
 * exactly the same flow and QP, and leaves everything else to it untouched:
 *
 * - the flow: the probe's flow_id through the id -> index table built at
 *   set-up, with the BTH DestQP inside that flow's QPs (what data_slot in
 *   acct.c tries first): two loads, one subtraction;
 * - not taken: frames without a probe (the general path finds those by
 *   addresses and DestQP in its map), flows that reply (the RoCE responder
 *   builds its answers from the full parse), and with dst_port_check a frame
 *   away from its destination (misdelivered, counted there).
 *
 * The ICRC is verified in full on every frame it takes, as rp_frame_parse
 * does (the same rp_icrc_verify). */
#include "acct_internal.h"
#include "wire/fastpath.h"

void rp_acct_pre(const uint8_t *buf, size_t caplen, size_t wire_len, struct rp_acct_pre *pre)
{
	pre->taken = caplen == wire_len && rp_fp_parse(buf, caplen, &pre->fp) && pre->fp.has_probe;
	pre->icrc_ok = pre->taken && rp_fp_icrc_ok(buf, &pre->fp);
}

bool rp_acct_rx_fast(struct rp_acct *a, struct acct_port *p, uint64_t now, const uint8_t *buf, size_t len,
		     const struct rp_acct_pre *pre, struct rp_reply *reply)
{
	const struct rp_fp_pkt *fp = &pre->fp;
	uint32_t fi = rp_acct_flow_of_id(a, fp->probe.flow_id);
	if (fi == RP_ACCT_NO_FLOW)
		return false;
	struct acct_flow *fl = &a->flows[fi];
	uint32_t q = (fp->dqpn - fl->cfg.rqpn) & RP_QPN_MASK;
	if (q >= fl->cfg.qps || (fl->cfg.reply && reply))
		return false;
	const uint8_t *dst_mac = rp_fp_eth_dst(buf);
	if (a->cfg.dst_port_check && !rp_acct_at_destination(a, p, fl, dst_mac))
		return false;
	struct acct_pkt k = {.opcode = fp->opcode, .psn = fp->psn, .ce = fp->ecn == RP_ECN_CE, .has_probe = true,
			     .probe = fp->probe, .payload_len = fp->payload_len, .dst_mac = dst_mac};
	rp_acct_data(a, p, fi, (uint16_t)q, now, len, &k, reply);
	rp_acct_port_rx(p, len, RP_RX_DATA, !pre->icrc_ok);
	return true;
}
