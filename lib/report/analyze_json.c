/* analyze's JSON document (analyze.h), in result.json's metric names. */
#include <stdio.h>

#include "analyze.h"
#include "result.h"

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
		json_object_set_new(o, k, ev[i].n ? json_integer((json_int_t)rp_analyze_rel(ev[i].first, t0)) : json_null());
		snprintf(k, sizeof(k), "%s_last_ns", ev[i].name);
		json_object_set_new(o, k, ev[i].n ? json_integer((json_int_t)rp_analyze_rel(ev[i].last, t0)) : json_null());
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
	json_object_set_new(o, "first_rx_ns", json_integer((json_int_t)rp_analyze_rel(r.first_rx_ns, t0)));
	json_object_set_new(o, "last_rx_ns", json_integer((json_int_t)rp_analyze_rel(r.last_rx_ns, t0)));
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

json_t *rp_analyze_json(const char *path, bool latency, const struct rp_acct *a, const struct rp_capture_facts *ci)
{
	json_t *classes = json_object();
	for (unsigned c = 0; c < RP_RX_CLASSES; c++)
		json_object_set_new(classes, rp_rx_class_name(c), json_integer((json_int_t)ci->classes[c]));
	json_t *cap = json_pack("{s:s, s:I, s:I, s:I, s:I, s:o, s:I, s:b}", "file", path, "frames",
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
	json_object_set_new(root, "findings", rp_analyze_findings(a, ci));
	json_object_set_new(root, "flows", flows);
	json_object_set_new(root, "ports", rp_report_ports(a));
	json_object_set_new(root, "latency_ns", rp_report_latency(latency ? rp_acct_latency(a) : NULL));
	json_object_set_new(root, "timeseries", rp_report_timeseries(a));
	return root;
}