/* analyze's text report (analyze.h). */
#include <inttypes.h>
#include <stdio.h>

#include "analyze.h"

static void print_summary_line(FILE *out, const char *what, const struct rp_hist *h)
{
	struct rp_hist_summary s;
	rp_hist_summarize(h, &s);
	if (!s.count)
		return;
	fprintf(out, "    %-18s n %" PRIu64 "  min %" PRIu64 "  p50 %" PRIu64 "  p99 %" PRIu64 "  max %" PRIu64 " ns\n", what,
	       s.count, s.min, s.pct[RP_P50], s.pct[RP_P99], s.max);
}

static void print_qp(FILE *out, const struct rp_acct_qp_result *q, uint64_t t0)
{
	const struct rp_psn *p = &q->psn;
	fprintf(out, "    qp 0x%06x", q->dqpn);
	if (q->lqpn_known)
		fprintf(out, " (sender 0x%06x)", q->lqpn);
	fprintf(out, ": psn %u..%u, %" PRIu64 " pkts, %" PRIu64 " gaps, %" PRIu64 " lost, %" PRIu64 " resent (%" PRIu64
	       " duplicates), %" PRIu64 " go-back-N, %" PRIu64 " late, %" PRIu64 " msgs, %" PRIu64 " CE\n",
	       p->first, (p->next - 1) & 0xFFFFFF, p->packets, p->gaps, p->missing, p->retransmissions, p->duplicates,
	       p->go_back_n, p->reordered, p->messages, q->ce);
	if (q->acks)
		fprintf(out, "      acks %" PRIu64 " at +%" PRIu64 "..+%" PRIu64 " ns\n", q->acks, rp_analyze_rel(q->ack_first_ns, t0),
		       rp_analyze_rel(q->ack_last_ns, t0));
	if (q->naks)
		fprintf(out, "      naks %" PRIu64 " at +%" PRIu64 "..+%" PRIu64 " ns\n", q->naks, rp_analyze_rel(q->nak_first_ns, t0),
		       rp_analyze_rel(q->nak_last_ns, t0));
	if (q->cnps)
		fprintf(out, "      cnps %" PRIu64 " at +%" PRIu64 "..+%" PRIu64 " ns\n", q->cnps, rp_analyze_rel(q->cnp_first_ns, t0),
		       rp_analyze_rel(q->cnp_last_ns, t0));
}

static void print_flows(FILE *out, bool latency, const struct rp_acct *a, uint64_t t0)
{
	for (size_t i = 0; i < rp_acct_nflows(a); i++) {
		struct rp_acct_flow_result r;
		rp_acct_flow(a, i, &r);
		fprintf(out, "flow %u %s -> %s qpn 0x%06x dscp %u prio %u: rx %" PRIu64 " pkts %" PRIu64 " B, lost %" PRIu64
		       ", reordered %" PRIu64 ", duplicates %" PRIu64 ", ce %" PRIu64 ", cnp_rx %" PRIu64 ", acks %" PRIu64
		       ", naks %" PRIu64 ", icrc_bad %" PRIu64 ", goodput %.3f Gbit/s\n",
		       r.id, r.src, r.dst, r.qpn, r.dscp, r.prio, r.rx_packets, r.rx_bytes, r.lost, r.reordered,
		       r.duplicates, r.ce, r.cnp_rx, r.acks, r.naks, r.icrc_bad, r.goodput_gbps);
		if (latency)
			print_summary_line(out, "latency", rp_acct_flow_latency(a, i));
		print_summary_line(out, "message FIRST->LAST", rp_acct_flow_msg_times(a, i));
		print_summary_line(out, "NAK -> resend", rp_acct_flow_nak_resend(a, i));
		for (size_t q = 0; q < rp_acct_flow_nqps(a, i); q++) {
			struct rp_acct_qp_result qr;
			rp_acct_qp(a, i, q, &qr);
			print_qp(out, &qr, t0);
		}
	}
}

void rp_analyze_print_text(FILE *out, const char *path, bool latency, const struct rp_acct *a,
			   const struct rp_capture_facts *ci)
{
	fprintf(out, "%s: %" PRIu64 " frames over %" PRIu64 " ns:", path, ci->frames, ci->last_ns - ci->first_ns);
	for (unsigned c = 0; c < RP_RX_CLASSES; c++)
		if (ci->classes[c])
			fprintf(out, " %s %" PRIu64, rp_rx_class_name(c), ci->classes[c]);
	fprintf(out, "\n\nfindings:\n");
	json_t *f = rp_analyze_findings(a, ci);
	size_t i;
	json_t *v;
	json_array_foreach(f, i, v)
		fprintf(out, "  - %s\n", json_string_value(v));
	json_decref(f);
	fprintf(out, "\n");
	print_flows(out, latency, a, ci->first_ns);
	struct rp_acct_port_result p;
	rp_acct_port(a, 0, &p);
	for (unsigned q = 0; q < 8; q++) {
		const struct rp_acct_prio_result *x = &p.prio[q];
		if (x->pfc_rx)
			fprintf(out, "prio %u: %" PRIu64 " pause frames, %" PRIu64 " quanta, paused %" PRIu64 " ns, %" PRIu64
			       " XOFF->XON, first at +%" PRIu64 " ns\n",
			       q, x->pfc_rx, x->quanta, x->paused_ns, x->xoff_to_xon, x->first_pause_ns);
	}
}