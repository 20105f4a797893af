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
 *   builds its answers from the full parse), probes to be echoed (the same),
 *   and with dst_port_check a frame
 *   away from its destination (misdelivered, counted there).
 *
 * The ICRC is verified in full on every frame (rp_acct_pre, the same
 * rp_icrc_verify as rp_frame_parse); one that fails is left to the general
 * path, which accounts it as a bad-ICRC frame (RP_RX_ICRC_BAD). */
#include "acct_internal.h"
#include "wire/fastpath.h"

void rp_acct_pre(const uint8_t *buf, size_t caplen, size_t wire_len, struct rp_acct_pre *pre)
{
	pre->taken = caplen == wire_len && rp_fp_parse(buf, caplen, &pre->fp) && pre->fp.has_probe;
	pre->icrc_ok = pre->taken && rp_fp_icrc_ok(buf, &pre->fp);
}

#define PRE_CHUNK 32

/* Classification of the chunk first, then the ICRC of the frames taken, in
 * pairs (rp_icrc_verify_n): the same verdicts as rp_acct_pre frame by frame. */
static void pre_chunk(const uint8_t *const buf[], const uint16_t caplen[], const uint32_t wire_len[], unsigned n,
		      struct rp_acct_pre pre[])
{
	const uint8_t *l3[PRE_CHUNK];
	uint32_t len[PRE_CHUNK];
	uint8_t idx[PRE_CHUNK];
	bool ok[PRE_CHUNK];
	unsigned m = 0;
	for (unsigned i = 0; i < n; i++) {
		struct rp_acct_pre *p = &pre[i];
		p->taken = caplen[i] == wire_len[i] && rp_fp_parse(buf[i], caplen[i], &p->fp) && p->fp.has_probe;
		p->icrc_ok = false;
		if (p->taken) {
			l3[m] = buf[i] + RP_FP_L3_OFF;
			len[m] = p->fp.icrc_len;
			idx[m++] = (uint8_t)i;
		}
	}
	rp_icrc_verify_n(l3, len, m, ok);
	for (unsigned k = 0; k < m; k++)
		pre[idx[k]].icrc_ok = ok[k];
}

void rp_acct_pre_n(const uint8_t *const buf[], const uint16_t caplen[], const uint32_t wire_len[], unsigned n,
		   struct rp_acct_pre pre[])
{
	for (unsigned i = 0; i < n; i += PRE_CHUNK)
		pre_chunk(buf + i, caplen + i, wire_len + i, n - i < PRE_CHUNK ? n - i : PRE_CHUNK, pre + i);
}

/* The flow and QP of a frame the fast path may account (RP_ACCT_NO_FLOW:
 * it leaves the frame to the general path, nothing touched). */
static RP_FP_INLINE uint32_t fast_flow(const struct rp_acct *a, const struct acct_port *p, const uint8_t *buf,
				 const struct rp_fp_pkt *fp, bool replies, uint16_t *qp)
{
	uint32_t fi = rp_acct_flow_of_id(a, fp->probe.flow_id);
	if (fi == RP_ACCT_NO_FLOW)
		return fi;
	const struct acct_flow *fl = &a->flows[fi];
	uint32_t q = (fp->dqpn - fl->cfg.rqpn) & RP_QPN_MASK;
	if (q >= fl->cfg.qps || (fl->cfg.reply && replies) || (replies && rp_acct_echoes(fl, fp->probe.seq)))
		return RP_ACCT_NO_FLOW;
	if (a->cfg.dst_port_check && !rp_acct_at_destination(a, p, fl, rp_fp_eth_dst(buf)))
		return RP_ACCT_NO_FLOW;
	*qp = (uint16_t)q;
	return fi;
}

static RP_FP_INLINE struct acct_pkt fast_pkt(const uint8_t *buf, const struct rp_fp_pkt *fp)
{
	return (struct acct_pkt){.opcode = fp->opcode, .psn = fp->psn, .ce = fp->ecn == RP_ECN_CE, .has_probe = true,
				 .probe = fp->probe, .payload_len = fp->payload_len, .dst_mac = rp_fp_eth_dst(buf)};
}

bool rp_acct_rx_fast(struct rp_acct *a, struct acct_port *p, uint64_t now, const uint8_t *buf, size_t len,
		     const struct rp_acct_pre *pre, struct rp_reply *reply)
{
	uint16_t q;
	uint32_t fi = fast_flow(a, p, buf, &pre->fp, reply != NULL, &q);
	if (fi == RP_ACCT_NO_FLOW)
		return false;
	struct acct_pkt k = fast_pkt(buf, &pre->fp);
	rp_acct_data_flow(a, p, &a->flows[fi], &a->flows[fi].qp[q], now, len, &k);
	rp_ts_rx(a->ts, now, fi, len, pre->fp.ecn == RP_ECN_CE);
	rp_acct_port_rx(p, len, RP_RX_DATA, false);
	a->fast_frames++;
	return true;
}

/* A run of one flow's frames in a burst, counted once (the same sums as
 * frame by frame: the frames share one arrival time). */
struct fast_run {
	uint32_t flow; /* RP_ACCT_NO_FLOW: none yet */
	uint64_t n, bytes, payload, ce;
};

static RP_FP_INLINE void run_flush(struct rp_acct *a, uint64_t now, const struct fast_run *r)
{
	if (!r->n)
		return;
	struct acct_flow *fl = &a->flows[r->flow];
	rp_acct_count_arrivals(fl, now, r->n, r->bytes);
	fl->r.rx_payload_bytes += r->payload;
	rp_ts_rx_n(a->ts, now, r->flow, r->n, r->bytes, r->ce);
}

/* The burst's frames share one arrival time, so a run of one flow's frames
 * is counted once: its arrivals and payload (struct fast_run), its
 * time-series bin, its latency samples recorded together (struct
 * acct_lat_batch), and the port's counters once per burst (the same sums,
 * in the same order, as frame by frame). */
unsigned rp_acct_rx_fast_n(struct rp_acct *a, unsigned port, uint64_t now_ns, const uint8_t *const buf[],
			   const uint16_t caplen[], const struct rp_acct_pre pre[], unsigned n, bool replies)
{
	if (!a->fast)
		return 0;
	struct acct_port *p = port < a->cfg.nports ? &a->ports[port] : NULL;
	struct fast_run run = {.flow = RP_ACCT_NO_FLOW};
	uint64_t bytes = 0;
	struct acct_lat_batch lb;
	lb.n = 0;
	unsigned i = 0;
	for (; i < n && pre[i].taken && pre[i].icrc_ok; i++) {
		const struct rp_fp_pkt *fp = &pre[i].fp;
		uint16_t q;
		uint32_t fi = fast_flow(a, p, buf[i], fp, replies, &q);
		if (fi == RP_ACCT_NO_FLOW)
			break;
		struct acct_flow *fl = &a->flows[fi];
		struct acct_pkt k = fast_pkt(buf[i], fp);
		bool dup = rp_acct_data_marks(a, p, fl, &fl->qp[q], now_ns, &k, &lb);
		if (fi != run.flow) {
			run_flush(a, now_ns, &run);
			run = (struct fast_run){.flow = fi};
		}
		run.n++;
		run.bytes += caplen[i];
		run.payload += dup ? 0 : fp->payload_len;
		run.ce += fp->ecn == RP_ECN_CE;
		bytes += caplen[i];
	}
	run_flush(a, now_ns, &run);
	rp_acct_lat_flush(a, &lb);
	if (p && i) {
		p->r.rx_frames += i;
		p->r.rx_bytes += bytes;
		p->r.class_frames[RP_RX_DATA] += i;
	}
	a->fast_frames += i;
	return i;
}
