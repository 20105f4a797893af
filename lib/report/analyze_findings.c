/* analyze's findings: what a capture says went wrong, one line each (analyze.h). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "analyze.h"

/* Findings: the lines that make an incident explain itself. */
static void add_finding(json_t *arr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_finding(json_t *arr, const char *fmt, ...)
{
	char line[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	json_array_append_new(arr, json_string(line));
}

/* PSNs seen twice, over the flow's QPs (the flow's own duplicates count probe
 * sequences when there are probes). */
static uint64_t sum_qp_duplicates(const struct rp_acct *a, size_t i)
{
	uint64_t n = 0;
	for (size_t q = 0; q < rp_acct_flow_nqps(a, i); q++) {
		struct rp_acct_qp_result qr;
		rp_acct_qp(a, i, q, &qr);
		n += qr.psn.duplicates;
	}
	return n;
}

static void flow_findings(const struct rp_acct *a, json_t *out)
{
	for (size_t i = 0; i < rp_acct_nflows(a); i++) {
		struct rp_acct_flow_result r;
		rp_acct_flow(a, i, &r);
		if (r.lost && !r.icrc_bad)
			add_finding(out, "flow %u %s -> %s: %" PRIu64 " of %" PRIu64 " packets lost before the capture point",
				    r.id, r.src, r.dst, r.lost, r.lost + r.rx_packets - r.duplicates);
		else if (r.lost)
			add_finding(out, "flow %u %s -> %s: %" PRIu64 " of %" PRIu64 " packets lost before the capture point "
				    "or at it (a bad ICRC)", r.id, r.src, r.dst, r.lost, r.lost + r.rx_packets - r.duplicates);
		if (r.head_lost)
			add_finding(out, "flow %u: %" PRIu64 " of those are the probes before its first one here (seq %" PRIu64
				    "), counted lost as the capture is taken to begin with the run; if it began later, they "
				    "were not lost",
				    r.id, r.head_lost, r.head_lost);
		if (r.icrc_bad)
			add_finding(out, "flow %u: %" PRIu64 " data frames with a bad ICRC (a NIC drops them: a corrupting "
				    "link, switch or sender), not counted received: lost, unless sent again", r.id, r.icrc_bad);
		if (r.reordered)
			add_finding(out, "flow %u: %" PRIu64 " packets arrived late (reordered: after a later one, not "
				    "resent), which a RoCE NIC takes for loss and answers with a NAK", r.id, r.reordered);
		if (r.retransmissions)
			add_finding(out, "flow %u: %" PRIu64 " packets resent (%" PRIu64 " go-back-N episodes after a NAK), %"
				    PRIu64 " of them seen before (duplicates)",
				    r.id, r.retransmissions, r.go_back_n, sum_qp_duplicates(a, i));
		if (r.ce)
			add_finding(out, "flow %u: %" PRIu64 " of %" PRIu64 " packets CE-marked (%.2f%%), %" PRIu64
				    " CNPs back to the sender",
				    r.id, r.ce, r.rx_packets, 100.0 * (double)r.ce / (double)r.rx_packets, r.cnp_rx);
		if (r.naks)
			add_finding(out, "flow %u: %" PRIu64 " NAKs", r.id, r.naks);
	}
}

static void port_findings(const struct rp_acct *a, uint64_t span, json_t *out)
{
	struct rp_acct_port_result p;
	rp_acct_port(a, 0, &p);
	for (unsigned q = 0; q < 8; q++) {
		const struct rp_acct_prio_result *x = &p.prio[q];
		if (!x->pfc_rx)
			continue;
		uint64_t within = x->paused_ns - x->paused_past_end_ns;
		char past[96] = "";
		if (x->paused_past_end_ns)
			snprintf(past, sizeof(past), "; %" PRIu64 " ns of it after the last frame, to the pause's expiry",
				 x->paused_past_end_ns);
		add_finding(out, "priority %u: %" PRIu64 " PFC/PAUSE frames, paused %" PRIu64 " ns (%.2f%% of the capture%s), "
			    "first at +%" PRIu64 " ns, %" PRIu64 " XOFF->XON",
			    q, x->pfc_rx, x->paused_ns, span ? 100.0 * (double)within / (double)span : 0.0, past,
			    x->first_pause_ns, x->xoff_to_xon);
	}
}

json_t *rp_analyze_findings(const struct rp_acct *a, const struct rp_capture_facts *ci)
{
	json_t *arr = json_array();
	flow_findings(a, arr);
	port_findings(a, ci->last_ns - ci->first_ns, arr);
	uint64_t flows_bad = 0;
	for (size_t i = 0; i < rp_acct_nflows(a); i++) {
		struct rp_acct_flow_result r;
		rp_acct_flow(a, i, &r);
		flows_bad += r.icrc_bad;
	}
	if (ci->classes[RP_RX_ICRC_BAD] > flows_bad)
		add_finding(arr, "%" PRIu64 " RoCE frames with a bad ICRC%s (a NIC drops them): counted as nothing their "
			    "headers say (ACK, NAK, CNP, data of no flow)", ci->classes[RP_RX_ICRC_BAD] - flows_bad,
			    flows_bad ? " besides the flows' data frames" : "");
	if (ci->classes[RP_RX_MALFORMED])
		add_finding(arr, "%" PRIu64 " malformed frames", ci->classes[RP_RX_MALFORMED]);
	uint64_t data = rp_acct_unmatched_data(a), rev = rp_acct_unmatched(a) - data;
	if (data && rp_acct_flows_dropped(a))
		add_finding(arr, "%" PRIu64 " data frames are in no flow: analyze follows the first %u flows, and "
			    "%" PRIu64 " frames came for more", data, RP_ACCT_MAX_DISCOVERED, rp_acct_flows_dropped(a));
	else if (data)
		add_finding(arr, "%" PRIu64 " data frames are in no flow (their probe's flow id is another host pair's)",
			    data);
	if (rev)
		add_finding(arr, "%" PRIu64 " RoCE frames matched no flow (ACK/NAK/CNP of QPs whose sender is ambiguous, "
			    "or that sent no data in the capture)", rev);
	if (ci->truncated)
		add_finding(arr, "the capture is truncated at frame %" PRIu64 ": the %" PRIu64 " frames before it are analysed",
			    ci->frames + 1, ci->frames);
	if (json_array_size(arr) == 0)
		add_finding(arr, "nothing wrong: no loss, no reordering, no resend, no bad ICRC, no CE, no pause");
	return arr;
}