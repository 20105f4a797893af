/* "roceprobe.incident/1" (replay.h, docs/results.md): the symptoms of the
 * evidence, every number from the accountant analyze uses. */
#include <stdlib.h>
#include <string.h>

#include "report/pause_order.h"
#include "replay.h"

static double frac(uint64_t part, uint64_t whole)
{
	return whole ? (double)part / (double)whole : 0.0;
}

static json_t *captures_json(const struct rp_replay_evidence *ev)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < ev->ncap; i++) {
		const struct rp_replay_capture *c = &ev->cap[i];
		json_t *o = json_pack("{s:s, s:s, s:I, s:I, s:I, s:I}", "file", c->path, "node", c->node, "frames",
				      (json_int_t)c->frames, "roce", (json_int_t)c->roce, "first_ns",
				      (json_int_t)(c->first_ns - ev->first_ns), "last_ns",
				      (json_int_t)(c->last_ns - ev->first_ns));
		json_object_set_new(o, "erspan", c->erspan ? json_pack("{s:i, s:i}", "type", (int)c->erspan, "session",
									c->session) : json_null());
		json_array_append_new(arr, o);
	}
	return arr;
}

/* Per file: its clock's offset to the first file's, and a mirror's timestamps. */
static json_t *clocks_json(const struct rp_replay_evidence *ev)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < ev->nfiles; i++) {
		const struct rp_replay_file *x = &ev->files[i];
		json_array_append_new(arr, json_pack("{s:s, s:b, s:o, s:I, s:o, s:I, s:I, s:I, s:I}", "file", x->path,
						     "aligned", x->aligned, "via",
						     x->via >= 0 ? json_string(ev->files[x->via].path) : json_null(),
						     "offset_ns", (json_int_t)x->offset_ns, "residual_ns",
						     x->aligned && x->residual_ns >= 0 ? json_integer(x->residual_ns) : json_null(),
						     "matched", (json_int_t)x->pairs, "erspan_frames", (json_int_t)x->erspan,
						     "erspan_ts_mirror", (json_int_t)x->erspan_ts_used, "erspan_ts_capture",
						     (json_int_t)x->erspan_ts_kept));
	}
	return arr;
}

static json_t *evidence_json(const struct rp_replay_evidence *ev)
{
	json_t *o = json_pack("{s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "captures", captures_json(ev), "frames",
			 (json_int_t)ev->frames, "roce_copies", (json_int_t)ev->roce_copies, "unique",
			 (json_int_t)ev->unique, "matched", (json_int_t)ev->matched, "malformed",
			 (json_int_t)ev->malformed, "start_ns", (json_int_t)ev->first_ns, "duration_ns",
			 (json_int_t)(ev->last_ns - ev->first_ns));
	json_object_set_new(o, "clocks", clocks_json(ev));
	json_object_set_new(o, "sampled", json_integer(ev->sampled));
	return o;
}

/* Paused ns of a port's priority in the bins [b0, b1]. */
static uint64_t paused_in(const struct rp_ts *ts, size_t port, unsigned prio, size_t b0, size_t b1)
{
	uint64_t s = 0;
	for (size_t b = b0; b <= b1 && b < rp_ts_nbins(ts); b++)
		s += rp_ts_paused_ns(ts, b, port, prio);
	return s;
}

static json_t *ports_json(const struct rp_replay_evidence *ev)
{
	const struct rp_ts *ts = rp_acct_timeseries(ev->acct);
	uint64_t span = ev->last_ns - ev->first_ns;
	json_t *arr = json_array();
	for (size_t i = 0; i < rp_acct_nports(ev->acct); i++) {
		struct rp_acct_port_result p;
		rp_acct_port(ev->acct, i, &p);
		json_t *prios = json_array();
		for (unsigned q = 0; q < 8; q++) {
			const struct rp_acct_prio_result *x = &p.prio[q];
			if (!x->pfc_rx)
				continue;
			json_t *bins = json_array();
			for (size_t b = 0; b < rp_ts_nbins(ts); b++)
				json_array_append_new(bins, json_real(frac(rp_ts_paused_ns(ts, b, i, q), ev->bin_ns)));
			json_array_append_new(
				prios, json_pack("{s:i, s:I, s:I, s:f, s:o, s:I, s:o}", "prio", (int)q, "pfc_rx",
						 (json_int_t)x->pfc_rx, "paused_ns", (json_int_t)x->paused_ns, "paused_fraction",
						 frac(x->paused_ns - x->paused_past_end_ns, span), "first_pause_ns",
						 x->paused_ever ? json_integer((json_int_t)x->first_pause_ns) : json_null(),
						 "xoff_to_xon", (json_int_t)x->xoff_to_xon, "paused_fraction_bins", bins));
		}
		json_array_append_new(arr, json_pack("{s:s, s:s, s:o}", "node", p.node, "capture", ev->cap[i].path,
						     "prio", prios));
	}
	return arr;
}

/* A destination is congested when its flows were CE-marked, or when two
 * sources sent to it at overlapping times. */
static bool *congested_hosts(const struct rp_replay_model *m)
{
	bool *c = calloc(m->ev->nhosts + 1, sizeof(bool));
	for (size_t i = 0; c && i < m->nflows; i++) {
		const struct rp_replay_flow *x = &m->flows[i];
		struct rp_acct_flow_result r;
		rp_acct_flow(m->ev->acct, x->acct, &r);
		if (r.ce)
			c[x->dst] = true;
		for (size_t j = 0; j < m->nflows; j++) {
			const struct rp_replay_flow *y = &m->flows[j];
			if (y->dst == x->dst && y->src != x->src && y->start_ns <= x->start_ns + x->active_ns &&
			    x->start_ns <= y->start_ns + y->active_ns)
				c[x->dst] = true;
		}
	}
	return c;
}

int64_t rp_replay_sender_paused(const struct rp_replay_model *m, const struct rp_replay_flow *x)
{
	const struct rp_replay_evidence *ev = m->ev;
	struct rp_acct_flow_result r;
	rp_acct_flow(ev->acct, x->acct, &r);
	unsigned prio = r.prio;
	for (size_t c = 0; c < ev->ncap; c++)
		if (ev->cap[c].host == x->src) {
			size_t b0 = (size_t)(x->start_ns / ev->bin_ns), b1 = (size_t)((x->start_ns + x->active_ns) / ev->bin_ns);
			return (int64_t)paused_in(rp_acct_timeseries(ev->acct), c, prio, b0, b1);
		}
	return -1;
}

/* A flow's entry; a victim also into victims ("flow": its index in flows, which holds
 * flows_before before it). */
static json_t *flow_json(const struct rp_replay_model *m, const struct rp_replay_flow *x, const bool *congested,
			 json_t *victims, const json_t *flows_before)
{
	struct rp_acct_flow_result r;
	rp_acct_flow(m->ev->acct, x->acct, &r);
	const struct rp_replay_host *h = m->ev->hosts;
	int64_t paused = rp_replay_sender_paused(m, x);
	bool victim = paused > 0 && congested && !congested[x->dst];
	double secs = (double)x->active_ns / 1e9;
	json_t *o = json_pack("{s:i, s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:I, s:I, s:I, s:I, s:f, s:I, s:f}", "id",
			      (int)r.id, "src", h[x->src].name, "dst", h[x->dst].name, "src_ip", r.src, "dst_ip", r.dst,
			      "dscp", (int)r.dscp, "prio", (int)r.prio, "qps", (int)x->qps, "start_ns",
			      (json_int_t)x->start_ns, "active_ns", (json_int_t)x->active_ns, "rx_packets",
			      (json_int_t)r.rx_packets, "rx_bytes", (json_int_t)r.rx_bytes, "goodput_gbps",
			      secs > 0 ? (double)r.rx_payload_bytes * 8 / secs / 1e9 : 0.0, "ce", (json_int_t)r.ce,
			      "ce_fraction", frac(r.ce, r.rx_packets));
	json_object_set_new(o, "cnp", json_integer((json_int_t)r.cnp_rx));
	json_object_set_new(o, "cnp_per_s", json_real(secs > 0 ? (double)r.cnp_rx / secs : 0.0));
	bool psn = m->ev->sampled <= 1; /* a sample's PSN gaps are the sampling's: loss and resends not measured */
	json_object_set_new(o, "lost", psn ? json_integer((json_int_t)r.lost) : json_null());
	json_object_set_new(o, "retransmissions", psn ? json_integer((json_int_t)r.retransmissions) : json_null());
	json_object_set_new(o, "go_back_n", json_integer((json_int_t)r.go_back_n));
	json_object_set_new(o, "naks", json_integer((json_int_t)r.naks));
	json_object_set_new(o, "sender_paused_ns", paused >= 0 ? json_integer(paused) : json_null());
	json_object_set_new(o, "victim", json_boolean(victim));
	if (victim)
		json_array_append_new(victims, json_pack("{s:I, s:s, s:s, s:i, s:I}", "flow",
							 (json_int_t)json_array_size(flows_before), "src", h[x->src].name,
							 "dst", h[x->dst].name, "prio", (int)r.prio, "sender_paused_ns",
							 (json_int_t)paused));
	return o;
}

json_t *rp_replay_incident_json(const struct rp_replay_model *m)
{
	const struct rp_replay_evidence *ev = m->ev;
	bool *congested = congested_hosts(m);
	json_t *flows = json_array(), *victims = json_array(), *cong = json_array();
	uint64_t pk = 0, ce = 0, cnp = 0, lost = 0, rt = 0;
	for (size_t i = 0; i < m->nflows; i++) {
		json_t *o = flow_json(m, &m->flows[i], congested, victims, flows);
		pk += (uint64_t)json_integer_value(json_object_get(o, "rx_packets"));
		ce += (uint64_t)json_integer_value(json_object_get(o, "ce"));
		cnp += (uint64_t)json_integer_value(json_object_get(o, "cnp"));
		lost += (uint64_t)json_integer_value(json_object_get(o, "lost"));
		rt += (uint64_t)json_integer_value(json_object_get(o, "retransmissions"));
		json_array_append_new(flows, o);
	}
	for (size_t h = 0; congested && h < ev->nhosts; h++)
		if (congested[h])
			json_array_append_new(cong, json_string(ev->hosts[h].name));
	free(congested);
	double secs = (double)(ev->last_ns - ev->first_ns) / 1e9;
	json_t *root = json_object();
	json_object_set_new(root, "schema", json_string("roceprobe.incident/1"));
	json_object_set_new(root, "evidence", evidence_json(ev));
	json_object_set_new(root, "bin_ns", json_integer((json_int_t)ev->bin_ns));
	struct rp_acct_port_result p0; /* every port counts pauses at one speed (--speed) */
	rp_acct_port(ev->acct, 0, &p0);
	json_object_set_new(root, "speed_bps", json_integer((json_int_t)p0.speed_bps));
	json_object_set_new(root, "totals",
			    json_pack("{s:I, s:I, s:f, s:I, s:f, s:I, s:I}", "rx_packets", (json_int_t)pk, "ce",
				      (json_int_t)ce, "ce_fraction", frac(ce, pk), "cnp", (json_int_t)cnp, "cnp_per_s",
				      secs > 0 ? (double)cnp / secs : 0.0, "lost", (json_int_t)lost, "retransmissions",
				      (json_int_t)rt));
	if (ev->sampled > 1) {
		json_t *t = json_object_get(root, "totals");
		json_object_set_new(t, "lost", json_null());
		json_object_set_new(t, "retransmissions", json_null());
	}
	json_object_set_new(root, "ports", ports_json(ev));
	json_object_set_new(root, "pause_order", rp_report_pause_order(ev->acct));
	json_object_set_new(root, "congested", cong);
	json_object_set_new(root, "victims", victims);
	json_object_set_new(root, "flows", flows);
	return root;
}
