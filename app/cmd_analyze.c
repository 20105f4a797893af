/* roceprobe analyze: explain a RoCEv2 capture (ours, a switch mirror, a NIC
 * dump) with the same accountant a live run uses, in discovery mode: flows
 * come from the traffic. Per QP: PSN gaps, losses, resends, go-back-N, ACK /
 * NAK / CNP timing, CE, message completion times; per priority: the PFC
 * timeline. Text by default, --json with result.json's metric names. */
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capin.h"
#include "cli.h"
#include "profile/units.h"
#include "report/result.h"
#include "stats/acct.h"

/* getopt_long's short options (rp_cli_bad_option names a bad one). */
static const char SHORTS[] = "jb:s:lh";

#define CMD "analyze"

struct analyze_opts {
	const char *path;
	bool json;
	uint64_t bin_ns;
	uint64_t speed_bps;
	bool latency;
};

struct capture_info {
	uint64_t frames;
	uint64_t first_ns, last_ns;
	uint64_t classes[RP_RX_CLASSES];
	bool truncated; /* the file ends inside a record: what is before it is analysed */
};

static void usage(FILE *out)
{
	fputs("usage: roceprobe analyze [--json] [--bin-us N] [--speed RATE] [--latency] PCAP|-\n"
	      "\n"
	      "Explain a RoCEv2 capture (pcap or pcapng; roceprobe's own, a switch mirror, a NIC\n"
	      "dump). Flows are found in the traffic: by the probe's flow id when roceprobe sent\n"
	      "them, else by (source IP, destination IP, destination QP); an RC connection used\n"
	      "both ways is two flows, each with its ACKs; RDMA READ responses count as the\n"
	      "requester's acks and fill the PSNs its READ took. For each flow and QP:\n"
	      "  lost           packets whose PSN (or probe sequence) never showed up\n"
	      "  reordered      late arrivals of a gap; duplicates: seen twice\n"
	      "  retransmissions  packets sent again: all that a go-back-N after a NAK resends,\n"
	      "                 whether they fill a gap or were seen before, and any other\n"
	      "                 duplicate; go_back_n: the NAK -> resend-from-that-PSN episodes\n"
	      "  acks, naks, cnp_rx           with first/last time and NAK -> resend latency\n"
	      "  ce             CE-marked packets; messages and their FIRST -> LAST times\n"
	      "and per priority the PFC / PAUSE timeline (frames, quanta, paused time).\n"
	      "Losses at the end of a QP's stream show only when the sender's count is known\n"
	      "(a live run's result.json); a capture cannot see them.\n"
	      "Bytes and goodput use the wire lengths, so a snaplen-cut capture counts in full.\n"
	      "PCAP '-' reads standard input (copied to $TMPDIR, else /tmp, as it is read\n"
	      "twice). A capture cut inside a record is analysed up to the cut, with one line\n"
	      "on stderr saying at which frame it is truncated.\n"
	      "\n"
	      "options:\n"
	      "  --json          one JSON object (\"schema\": \"roceprobe.analyze/1\") with \"flows\",\n"
	      "                  \"ports\" and \"timeseries\" named as in result.json\n"
	      "  --bin-us N      time series bin width in microseconds (default 100)\n"
	      "  --speed RATE    link speed for pause quanta -> time: quanta x 512 bit times\n"
	      "                  (default 100G). A pause still running at the last frame\n"
	      "                  counts to its expiry, not to the end of the capture\n"
	      "  --latency       latency = capture time - probe TX time (only when the capture\n"
	      "                  was taken with the clock that stamped the probes; a probe that\n"
	      "                  arrives before it was sent, or a delay over 1 s, shows it was\n"
	      "                  not: one line on stderr, exit 2)\n"
	      "\n"
	      "example: roceprobe analyze --json run.pcap | jq '.flows[] | {id, lost, ce}'\n"
	      "exit: 0 analysed, 2 unreadable input or bad option (one line on stderr)\n",
	      out);
}

static int parse_opts(int argc, char **argv, struct analyze_opts *o)
{
	static const struct option longopts[] = {
		{"json", no_argument, NULL, 'j'},      {"bin-us", required_argument, NULL, 'b'},
		{"speed", required_argument, NULL, 's'}, {"latency", no_argument, NULL, 'l'},
		{"help", no_argument, NULL, 'h'},      {NULL, 0, NULL, 0},
	};
	*o = (struct analyze_opts){.bin_ns = 100000, .speed_bps = 100000000000ull};
	uint64_t v;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, SHORTS, longopts, NULL)) != -1) {
		switch (c) {
		case 'j': o->json = true; break;
		case 'l': o->latency = true; break;
		case 'b':
			if (rp_parse_uint(optarg, 1000000000ull, &v) || v == 0)
				return rp_cli_error(CMD, "--bin-us '%s': give a whole number of microseconds, 1 or more", optarg);
			o->bin_ns = v * 1000;
			break;
		case 's':
			if (rp_parse_bitrate(optarg, &o->speed_bps) || o->speed_bps == 0)
				return rp_cli_error(CMD, "--speed '%s': give a link speed such as 25G, 100G or 400G", optarg);
			break;
		case 'h': usage(stdout); return -1;
		default: return rp_cli_bad_option(CMD, SHORTS);
		}
	}
	if (optind + 1 != argc)
		return rp_cli_error(CMD, "give exactly one capture file (try 'roceprobe analyze --help')");
	o->path = argv[optind];
	return 0;
}

/* Pass 1: the time span, so the time series is sized before any frame counts. */
static int scan_span(struct rp_capin *in, struct capture_info *ci)
{
	struct pcap_pkthdr *h;
	const u_char *data;
	int rc;
	ci->first_ns = UINT64_MAX;
	while ((rc = rp_capin_next(in, &h, &data)) == 1) {
		uint64_t t = rp_capin_ts_ns(h);
		if (t < ci->first_ns)
			ci->first_ns = t;
		if (t > ci->last_ns)
			ci->last_ns = t;
	}
	if (ci->first_ns == UINT64_MAX)
		ci->first_ns = ci->last_ns = 0;
	return rc;
}

/* Pass 2: every frame through the accountant. */
static int feed_all(struct rp_capin *in, struct rp_acct *a, struct capture_info *ci)
{
	int rc = rp_capin_rewind(in);
	if (rc)
		return rc;
	struct pcap_pkthdr *h;
	const u_char *data;
	while ((rc = rp_capin_next(in, &h, &data)) == 1) {
		enum rp_rx_class c = rp_acct_rx(a, 0, rp_capin_ts_ns(h), data, h->caplen, h->len, NULL);
		ci->classes[c]++;
		ci->frames++;
	}
	ci->truncated = in->truncated;
	return rc;
}

static uint64_t rel(uint64_t t, uint64_t t0) { return t > t0 ? t - t0 : 0; }

static json_t *qp_json(const struct rp_acct_qp_result *q, uint64_t t0)
{
	json_t *o = json_object();
	json_object_set_new(o, "qpn", json_integer(q->dqpn));
	json_object_set_new(o, "sender_qpn", q->lqpn_known ? json_integer(q->lqpn) : json_null());
	const struct rp_psn *p = &q->psn;
	json_object_set_new(o, "psn_first", json_integer(p->first));
	json_object_set_new(o, "psn_next", json_integer(p->next));
	json_object_set_new(o, "packets", json_integer((json_int_t)p->packets));
	json_object_set_new(o, "gaps", json_integer((json_int_t)p->gaps));
	json_object_set_new(o, "lost", json_integer((json_int_t)p->missing));
	json_object_set_new(o, "filled", json_integer((json_int_t)p->filled));
	json_object_set_new(o, "retransmissions", json_integer((json_int_t)p->retransmissions));
	json_object_set_new(o, "duplicates", json_integer((json_int_t)p->duplicates));
	json_object_set_new(o, "reordered", json_integer((json_int_t)p->reordered));
	json_object_set_new(o, "go_back_n", json_integer((json_int_t)p->go_back_n));
	json_object_set_new(o, "rewinds", json_integer((json_int_t)p->rewinds));
	json_object_set_new(o, "messages", json_integer((json_int_t)p->messages));
	json_object_set_new(o, "ce", json_integer((json_int_t)q->ce));
	const struct {
		const char *name;
		uint64_t n, first, last;
	} ev[] = {{"acks", q->acks, q->ack_first_ns, q->ack_last_ns},
		  {"naks", q->naks, q->nak_first_ns, q->nak_last_ns},
		  {"cnp_rx", q->cnps, q->cnp_first_ns, q->cnp_last_ns}};
	for (size_t i = 0; i < 3; i++) {
		char k[32];
		json_object_set_new(o, ev[i].name, json_integer((json_int_t)ev[i].n));
		snprintf(k, sizeof(k), "%s_first_ns", ev[i].name);
		json_object_set_new(o, k, ev[i].n ? json_integer((json_int_t)rel(ev[i].first, t0)) : json_null());
		snprintf(k, sizeof(k), "%s_last_ns", ev[i].name);
		json_object_set_new(o, k, ev[i].n ? json_integer((json_int_t)rel(ev[i].last, t0)) : json_null());
	}
	return o;
}

static json_t *flow_json(const struct rp_acct *a, size_t i, uint64_t t0)
{
	struct rp_acct_flow_result r;
	rp_acct_flow(a, i, &r);
	json_t *o = rp_report_flow(&r, rp_acct_flow_latency(a, i));
	json_object_set_new(o, "retransmissions", json_integer((json_int_t)r.retransmissions));
	json_object_set_new(o, "go_back_n", json_integer((json_int_t)r.go_back_n));
	json_object_set_new(o, "messages", json_integer((json_int_t)r.messages));
	json_object_set_new(o, "first_rx_ns", json_integer((json_int_t)rel(r.first_rx_ns, t0)));
	json_object_set_new(o, "last_rx_ns", json_integer((json_int_t)rel(r.last_rx_ns, t0)));
	json_object_set_new(o, "msg_completion_ns", rp_report_latency(rp_acct_flow_msg_times(a, i)));
	json_object_set_new(o, "nak_to_resend_ns", rp_report_latency(rp_acct_flow_nak_resend(a, i)));
	json_t *qps = json_array();
	for (size_t q = 0; q < rp_acct_flow_nqps(a, i); q++) {
		struct rp_acct_qp_result qr;
		rp_acct_qp(a, i, q, &qr);
		json_array_append_new(qps, qp_json(&qr, t0));
	}
	json_object_set_new(o, "qps", qps);
	return o;
}

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

static json_t *findings(const struct rp_acct *a, const struct capture_info *ci)
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

static json_t *result_json(const struct analyze_opts *o, const struct rp_acct *a, const struct capture_info *ci)
{
	json_t *classes = json_object();
	for (unsigned c = 0; c < RP_RX_CLASSES; c++)
		json_object_set_new(classes, rp_rx_class_name(c), json_integer((json_int_t)ci->classes[c]));
	json_t *cap = json_pack("{s:s, s:I, s:I, s:I, s:I, s:o, s:I, s:b}", "file", o->path, "frames",
				(json_int_t)ci->frames, "first_ns", (json_int_t)ci->first_ns, "last_ns",
				(json_int_t)ci->last_ns, "duration_ns", (json_int_t)(ci->last_ns - ci->first_ns),
				"classes", classes, "unmatched", (json_int_t)rp_acct_unmatched(a), "truncated",
				ci->truncated);
	json_t *flows = json_array();
	for (size_t i = 0; i < rp_acct_nflows(a); i++)
		json_array_append_new(flows, flow_json(a, i, ci->first_ns));
	json_t *root = json_object();
	json_object_set_new(root, "schema", json_string("roceprobe.analyze/1"));
	json_object_set_new(root, "capture", cap);
	json_object_set_new(root, "findings", findings(a, ci));
	json_object_set_new(root, "flows", flows);
	json_object_set_new(root, "ports", rp_report_ports(a));
	json_object_set_new(root, "latency_ns", rp_report_latency(o->latency ? rp_acct_latency(a) : NULL));
	json_object_set_new(root, "timeseries", rp_report_timeseries(a));
	return root;
}

static void print_summary_line(const char *what, const struct rp_hist *h)
{
	struct rp_hist_summary s;
	rp_hist_summarize(h, &s);
	if (!s.count)
		return;
	printf("    %-18s n %" PRIu64 "  min %" PRIu64 "  p50 %" PRIu64 "  p99 %" PRIu64 "  max %" PRIu64 " ns\n", what,
	       s.count, s.min, s.pct[RP_P50], s.pct[RP_P99], s.max);
}

static void print_qp(const struct rp_acct_qp_result *q, uint64_t t0)
{
	const struct rp_psn *p = &q->psn;
	printf("    qp 0x%06x", q->dqpn);
	if (q->lqpn_known)
		printf(" (sender 0x%06x)", q->lqpn);
	printf(": psn %u..%u, %" PRIu64 " pkts, %" PRIu64 " gaps, %" PRIu64 " lost, %" PRIu64 " resent (%" PRIu64
	       " duplicates), %" PRIu64 " go-back-N, %" PRIu64 " late, %" PRIu64 " msgs, %" PRIu64 " CE\n",
	       p->first, (p->next - 1) & 0xFFFFFF, p->packets, p->gaps, p->missing, p->retransmissions, p->duplicates,
	       p->go_back_n, p->reordered, p->messages, q->ce);
	if (q->acks)
		printf("      acks %" PRIu64 " at +%" PRIu64 "..+%" PRIu64 " ns\n", q->acks, rel(q->ack_first_ns, t0),
		       rel(q->ack_last_ns, t0));
	if (q->naks)
		printf("      naks %" PRIu64 " at +%" PRIu64 "..+%" PRIu64 " ns\n", q->naks, rel(q->nak_first_ns, t0),
		       rel(q->nak_last_ns, t0));
	if (q->cnps)
		printf("      cnps %" PRIu64 " at +%" PRIu64 "..+%" PRIu64 " ns\n", q->cnps, rel(q->cnp_first_ns, t0),
		       rel(q->cnp_last_ns, t0));
}

static void print_flows(const struct analyze_opts *o, const struct rp_acct *a, uint64_t t0)
{
	for (size_t i = 0; i < rp_acct_nflows(a); i++) {
		struct rp_acct_flow_result r;
		rp_acct_flow(a, i, &r);
		printf("flow %u %s -> %s qpn 0x%06x dscp %u prio %u: rx %" PRIu64 " pkts %" PRIu64 " B, lost %" PRIu64
		       ", reordered %" PRIu64 ", duplicates %" PRIu64 ", ce %" PRIu64 ", cnp_rx %" PRIu64 ", acks %" PRIu64
		       ", naks %" PRIu64 ", icrc_bad %" PRIu64 ", goodput %.3f Gbit/s\n",
		       r.id, r.src, r.dst, r.qpn, r.dscp, r.prio, r.rx_packets, r.rx_bytes, r.lost, r.reordered,
		       r.duplicates, r.ce, r.cnp_rx, r.acks, r.naks, r.icrc_bad, r.goodput_gbps);
		if (o->latency)
			print_summary_line("latency", rp_acct_flow_latency(a, i));
		print_summary_line("message FIRST->LAST", rp_acct_flow_msg_times(a, i));
		print_summary_line("NAK -> resend", rp_acct_flow_nak_resend(a, i));
		for (size_t q = 0; q < rp_acct_flow_nqps(a, i); q++) {
			struct rp_acct_qp_result qr;
			rp_acct_qp(a, i, q, &qr);
			print_qp(&qr, t0);
		}
	}
}

static void print_text(const struct analyze_opts *o, const struct rp_acct *a, const struct capture_info *ci)
{
	printf("%s: %" PRIu64 " frames over %" PRIu64 " ns:", o->path, ci->frames, ci->last_ns - ci->first_ns);
	for (unsigned c = 0; c < RP_RX_CLASSES; c++)
		if (ci->classes[c])
			printf(" %s %" PRIu64, rp_rx_class_name(c), ci->classes[c]);
	printf("\n\nfindings:\n");
	json_t *f = findings(a, ci);
	size_t i;
	json_t *v;
	json_array_foreach(f, i, v)
		printf("  - %s\n", json_string_value(v));
	json_decref(f);
	printf("\n");
	print_flows(o, a, ci->first_ns);
	struct rp_acct_port_result p;
	rp_acct_port(a, 0, &p);
	for (unsigned q = 0; q < 8; q++) {
		const struct rp_acct_prio_result *x = &p.prio[q];
		if (x->pfc_rx)
			printf("prio %u: %" PRIu64 " pause frames, %" PRIu64 " quanta, paused %" PRIu64 " ns, %" PRIu64
			       " XOFF->XON, first at +%" PRIu64 " ns\n",
			       q, x->pfc_rx, x->quanta, x->paused_ns, x->xoff_to_xon, x->first_pause_ns);
	}
}

/* No fabric holds a packet for a second (PFC watchdogs drop long before): a
 * longer one-way delay, or a probe that arrived before it was sent, means the
 * probes were stamped by another clock than the capture's. */
#define MAX_ONE_WAY_NS 1000000000ull

static int check_latency_clock(const struct rp_acct *a)
{
	uint64_t skew = 0, n = 0;
	for (size_t i = 0; i < rp_acct_nflows(a); i++) {
		struct rp_acct_flow_result r;
		rp_acct_flow(a, i, &r);
		skew += r.clock_skew;
	}
	struct rp_hist_summary s;
	rp_hist_summarize(rp_acct_latency(a), &s);
	n = s.count + skew;
	if (skew)
		return rp_cli_error(CMD, "--latency: %" PRIu64 " of %" PRIu64 " probes arrived before their TX time: the "
			    "capture's clock is not the one that stamped the probes; drop --latency", skew, n);
	if (s.count && s.max > MAX_ONE_WAY_NS)
		return rp_cli_error(CMD, "--latency: one-way delays up to %.3g s (min %.3g s): the capture's clock is not "
			    "the one that stamped the probes; drop --latency", (double)s.max / 1e9, (double)s.min / 1e9);
	return 0;
}

int rp_cmd_analyze(int argc, char **argv)
{
	struct analyze_opts o;
	int rc = parse_opts(argc, argv, &o);
	if (rc)
		return rc < 0 ? RP_EXIT_OK : rc;
	struct capture_info ci = {0};
	struct rp_capin in;
	if ((rc = rp_capin_open(&in, CMD, o.path, true)))
		return rc;
	if ((rc = scan_span(&in, &ci))) {
		rp_capin_close(&in);
		return rc;
	}
	struct rp_acct_port_cfg port = {.node = "capture", .port = 0, .speed_bps = o.speed_bps};
	struct rp_acct_cfg cfg = {.ports = &port, .nports = 1, .start_ns = ci.first_ns,
				  .run_ns = ci.last_ns - ci.first_ns, .bin_ns = o.bin_ns, .latency = o.latency,
				  .discover = true, .track_psn = true, .seq_from_first = true, .pause_to_expiry = true};
	char err[256];
	struct rp_acct *a = rp_acct_create(&cfg, err, sizeof(err));
	if (!a) {
		rp_capin_close(&in);
		return rp_cli_error(CMD, "%s", err);
	}
	ci.last_ns = ci.first_ns; /* recounted in order below */
	struct capture_info span = ci;
	rc = feed_all(&in, a, &ci);
	rp_capin_close(&in);
	ci.first_ns = span.first_ns;
	if (rc) {
		rp_acct_destroy(a);
		return rc;
	}
	rp_acct_finish(a, cfg.start_ns + cfg.run_ns, NULL);
	ci.last_ns = cfg.start_ns + cfg.run_ns;
	if (o.latency && (rc = check_latency_clock(a))) {
		rp_acct_destroy(a);
		return rc;
	}
	if (o.json) {
		json_t *root = result_json(&o, a, &ci);
		json_dumpf(root, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
		json_decref(root);
	} else {
		print_text(&o, a, &ci);
	}
	rp_acct_destroy(a);
	return RP_EXIT_OK;
}
