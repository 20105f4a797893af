/* Switch ports and priorities, totals and headline numbers as JSON; the
 * queue-depth CSV from the same series. */
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab_internal.h"
#include "report/result.h"
#include "report/outdir.h"
#include "report/switch_json.h"

static json_t *jint(uint64_t v)
{
	return json_integer((json_int_t)v);
}

static json_t *jtime(uint64_t v)
{
	return v == RP_SWITCH_NEVER ? json_null() : jint(v);
}

static void peer_name(const struct rp_lab *lab, const struct rp_lab_port *p, char *out, size_t len)
{
	if (p->kind == RP_PEER_HOST)
		snprintf(out, len, "%s", lab->prof->hosts[p->peer].name);
	else if (p->kind == RP_PEER_SWITCH)
		snprintf(out, len, "%s:%u", lab->sw[p->peer].name, p->peer_port);
	else
		snprintf(out, len, "-");
}

/* The model's port (report/switch_json.h) plus what the lab placed: the
 * peer, the link, and the first XOFF it sent out of the port. */
static json_t *port_json(struct rp_lab *lab, unsigned s, unsigned p)
{
	const struct rp_lab_port *lp = &lab->sw[s].port[p];
	char peer[48];
	peer_name(lab, lp, peer, sizeof(peer));
	json_t *j = rp_switch_port_json(lab->sw[s].sw, p, lab->tot.end_ns, false);
	json_object_set_new(j, "peer", json_string(peer));
	json_object_set_new(j, "speed_bps", jint(lp->rate_bps));
	json_object_set_new(j, "prop_ns", jint(lp->prop_ns));
	json_object_set_new(j, "first_xoff_ns", jtime(lab->sw[s].first_xoff_ns[p]));
	return j;
}

static json_t *nic_json(const struct rp_lab *lab, unsigned h)
{
	const struct rp_lab_host *H = &lab->hosts[h];
	return json_pack("{s:s, s:s, s:i, s:I, s:I, s:I, s:I}", "name", lab->prof->hosts[h].name, "switch",
			 lab->sw[H->sw].name, "port", (int)H->sw_port, "tx_frames", (json_int_t)H->tx_frames, "tx_bytes",
			 (json_int_t)H->tx_bytes, "rx_frames", (json_int_t)H->rx_frames, "rx_bytes", (json_int_t)H->rx_bytes);
}

json_t *rp_lab_hosts_json(const struct rp_lab *lab)
{
	const struct rp_profile *p = lab->prof;
	json_t *a = json_array();
	for (size_t i = 0; i < p->nservers; i++) {
		const struct rp_server *sv = &p->servers[i];
		uint64_t tf = 0, tb = 0, rf = 0, rb = 0;
		json_t *nics = json_array();
		for (unsigned h = sv->nic0; h < sv->nic0 + sv->nnics; h++) {
			const struct rp_lab_host *H = &lab->hosts[h];
			tf += H->tx_frames;
			tb += H->tx_bytes;
			rf += H->rx_frames;
			rb += H->rx_bytes;
			json_array_append_new(nics, nic_json(lab, h));
		}
		json_array_append_new(a, json_pack("{s:s, s:I, s:I, s:I, s:I, s:o}", "name", sv->name, "tx_frames",
						   (json_int_t)tf, "tx_bytes", (json_int_t)tb, "rx_frames", (json_int_t)rf,
						   "rx_bytes", (json_int_t)rb, "nics", nics));
	}
	return a;
}

json_t *rp_lab_switches_json(struct rp_lab *lab)
{
	json_t *a = json_array();
	for (unsigned s = 0; s < lab->nsw; s++) {
		const struct rp_lab_switch *S = &lab->sw[s];
		json_t *ports = json_array();
		for (unsigned p = 0; p < S->nports; p++)
			json_array_append_new(ports, port_json(lab, s, p));
		json_array_append_new(a, json_pack("{s:s, s:s, s:o, s:o}", "name", S->name, "role", S->role, "buffer",
						   rp_switch_buffer_json(S->sw), "ports", ports));
	}
	return a;
}

struct qdepth_col {
	char name[64];
	const uint64_t *bins;
	size_t n;
};

static void qdepth_rows(FILE *f, const struct qdepth_col *c, size_t ncols)
{
	size_t rows = 0;
	for (size_t i = 0; i < ncols; i++)
		rows = c[i].n > rows ? c[i].n : rows;
	fputs("bin", f);
	for (size_t i = 0; i < ncols; i++)
		fprintf(f, ",%s", c[i].name);
	fputc('\n', f);
	for (size_t j = 0; j < rows; j++) {
		fprintf(f, "%zu", j);
		for (size_t i = 0; i < ncols; i++)
			fprintf(f, ",%" PRIu64, j < c[i].n ? c[i].bins[j] : 0);
		fputc('\n', f);
	}
}

struct qdepth_cols {
	const struct qdepth_col *c;
	size_t n;
};

static void qdepth_body(FILE *f, void *ctx)
{
	const struct qdepth_cols *q = ctx;
	qdepth_rows(f, q->c, q->n);
}

int rp_lab_write_qdepth_csv(struct rp_lab *lab, const char *path, char *err, size_t errlen)
{
	size_t max = 0, n = 0;
	for (unsigned s = 0; s < lab->nsw; s++)
		max += (size_t)lab->sw[s].nports * RP_SWITCH_TCS;
	struct qdepth_col *c = calloc(max ? max : 1, sizeof(*c));
	if (!c) {
		snprintf(err, errlen, "cannot write %s: out of memory", path);
		return -1;
	}
	for (unsigned s = 0; s < lab->nsw; s++)
		for (unsigned p = 0; p < lab->sw[s].nports; p++)
			for (unsigned tc = 0; tc < RP_SWITCH_TCS; tc++) {
				c[n].n = rp_switch_qdepth_series_cut(lab->sw[s].sw, p, tc, lab->tot.end_ns, &c[n].bins);
				if (c[n].n)
					snprintf(c[n++].name, sizeof(c[0].name), "%s:%u:%u", lab->sw[s].name, p, tc);
			}
	struct qdepth_cols q = {.c = c, .n = n};
	int rc = rp_outdir_write_text(path, qdepth_body, &q, err, errlen); /* whole or absent */
	free(c);
	return rc;
}

static json_t *dcqcn_json(const struct rp_lab *lab)
{
	json_t *a = json_array();
	for (size_t h = 0; h < lab->nhosts; h++)
		for (size_t i = 0; i < lab->hosts[h].nflows; i++) {
			const struct rp_lab_flow *f = &lab->hosts[h].flows[i];
			if (!f->dcqcn_on)
				continue;
			const struct rp_dcqcn_state *d = f->dcqcn;
			json_array_append_new(a, json_pack("{s:i, s:o, s:o, s:o, s:f, s:f, s:f}", "flow", (int)f->plan_flow,
							   "cnps", jint(d->cnps), "cuts", jint(d->cuts), "increases",
							   jint(d->increases), "min_rate_gbps", d->min_rate_seen / 1e9,
							   "final_rate_gbps", rp_dcqcn_rate(d) / 1e9, "alpha", d->alpha));
		}
	return a;
}

json_t *rp_lab_totals_json(const struct rp_lab *lab)
{
	const struct rp_lab_totals *t = &lab->tot;
	json_t *o = json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:o, s:o}", "topology",
			 rp_topology_name(lab->fab->topology), "virtual_ns", jint(t->end_ns),
			 "events", jint(t->events), "hops", jint(t->hops), "host_tx_frames", jint(t->tx_frames),
			 "host_tx_bytes", jint(t->tx_bytes), "host_rx_frames", jint(t->rx_frames), "host_rx_bytes",
			 jint(t->rx_bytes), "switch_drops", jint(t->sw_drops), "switch_drop_bytes", jint(t->sw_drop_bytes),
			 "truncated", t->truncated, "impair_dropped", jint(t->impair_dropped), "dcqcn", dcqcn_json(lab));
	json_object_set_new(o, "stopped", json_boolean(t->stopped));
	json_object_set_new(o, "in_flight", jint(t->in_flight));
	json_object_set_new(o, "in_flight_on_links", jint(t->in_flight_on_links));
	json_object_set_new(o, "capture_bytes", jint(t->capture_bytes));
	json_object_set_new(o, "capture_stopped_ns", t->capture_stopped ? jint(t->capture_stopped_ns) : json_null());
	json_object_set_new(o, "capture_complete", lab->opts.capture_dir || lab->nmirrors ? json_boolean(!t->capture_stopped) : json_null());
	json_object_set_new(o, "capture_error", t->capture_failed ? json_string(t->capture_error) : json_null());
	json_object_set_new(o, "capture_room_limited", json_boolean(t->capture_room_limited && t->capture_stopped &&
								   !t->capture_failed));
	json_object_set_new(o, "qdepth_bin_ns", jint(lab->fab->qdepth_bin_ns));
	return o;
}

/* The mirrors' files (lab --mirror): node "SWITCH:PORT". */
static void mirrors_json(const struct rp_lab *lab, json_t *a)
{
	bool rot = lab->opts.capture_rotate != 0;
	for (size_t i = 0; i < lab->nmirrors; i++) {
		const struct rp_lab_mirror *m = &lab->mirrors[i];
		char file[200], base[48];
		if (!m->name[0])
			continue; /* the same port given twice */
		snprintf(base, sizeof(base), "%s-%u", lab->sw[m->sw].name, m->port);
		json_t *files = json_array();
		for (unsigned k = 1; k <= m->files; k++) {
			rp_lab_cap_file("mirror", base, rot, k, file, sizeof(file));
			json_array_append_new(files, json_string(file));
		}
		rp_lab_cap_file("mirror", base, rot, 1, file, sizeof(file));
		json_array_append_new(a, json_pack("{s:s, s:s, s:o, s:o}", "node", m->name, "path", file, "files", files,
						   "frames", jint(m->frames)));
	}
}

json_t *rp_lab_capture_json(const struct rp_lab *lab)
{
	if (!lab->opts.capture_dir && !lab->nmirrors)
		return json_null();
	json_t *a = json_array();
	mirrors_json(lab, a);
	for (size_t h = 0; h < lab->nhosts && lab->opts.capture_dir; h++) {
		const struct rp_lab_host *H = &lab->hosts[h];
		const char *name = lab->prof->hosts[h].name;
		bool rot = lab->opts.capture_rotate != 0;
		char file[160];
		json_t *files = json_array();
		for (unsigned k = 1; k <= H->cap_files; k++) {
			rp_lab_cap_name(name, rot, k, file, sizeof(file));
			json_array_append_new(files, json_string(file));
		}
		rp_lab_cap_name(name, rot, 1, file, sizeof(file));
		json_array_append_new(a, json_pack("{s:s, s:s, s:o, s:o}", "node", name, "path", file, "files", files,
						   "frames", jint(H->cap_frames)));
	}
	return a;
}

static uint64_t max_queue(const struct rp_lab *lab)
{
	uint64_t m = 0;
	for (unsigned s = 0; s < lab->nsw; s++)
		for (unsigned p = 0; p < lab->sw[s].nports; p++)
			for (unsigned tc = 0; tc < RP_SWITCH_TCS; tc++) {
				struct rp_switch_queue_stats q;
				rp_switch_queue_stats(lab->sw[s].sw, p, tc, lab->tot.end_ns, &q);
				m = q.max_depth_bytes > m ? q.max_depth_bytes : m;
			}
	return m;
}

void rp_lab_headline(const struct rp_lab *lab, struct rp_lab_headline *o)
{
	uint64_t sent = 0;
	*o = (struct rp_lab_headline){.drops = lab->tot.sw_drops, .end_ns = lab->tot.end_ns};
	for (size_t i = 0; i < rp_acct_nflows(lab->acct); i++) {
		struct rp_acct_flow_result f;
		rp_acct_flow(lab->acct, i, &f);
		sent += f.tx_packets;
		o->lost += f.lost;
		o->in_flight += rp_acct_flow_in_flight(lab->acct, i);
		o->goodput_gbps += f.goodput_gbps;
	}
	/* Of the frames whose fate is known: the ones still in flight are neither. */
	sent = sent > o->in_flight ? sent - o->in_flight : 0;
	o->loss_pct = sent ? 100.0 * (double)o->lost / (double)sent : 0;
	for (size_t i = 0; i < rp_acct_nports(lab->acct); i++) {
		struct rp_acct_port_result p;
		rp_acct_port(lab->acct, i, &p);
		for (int q = 0; q < 8 && o->end_ns; q++) {
			double pct = 100.0 * (double)p.prio[q].paused_ns / (double)o->end_ns;
			o->paused_pct = pct > o->paused_pct ? pct : o->paused_pct;
		}
	}
	struct rp_hist_summary s;
	rp_hist_summarize(rp_acct_latency(lab->acct), &s);
	o->p99_ns = s.pct[2];
	o->p999_ns = s.pct[3];
	o->latency_samples = s.count;
	o->max_queue_bytes = max_queue(lab);
}

void rp_lab_fabric_sum(const struct rp_lab *lab, struct rp_lab_fabric_sum *o)
{
	*o = (struct rp_lab_fabric_sum){0};
	for (unsigned s = 0; s < lab->nsw; s++)
		for (unsigned p = 0; p < lab->sw[s].nports; p++) {
			struct rp_switch_port_stats st;
			rp_switch_port_stats(lab->sw[s].sw, p, &st);
			for (int d = 0; d < RP_DROP_REASONS; d++)
				o->drops[d] += st.drop_pkts[d];
			o->pfc_tx += st.pfc_tx;
			for (unsigned tc = 0; tc < RP_SWITCH_TCS; tc++) {
				struct rp_switch_pg_stats g;
				rp_switch_pg_stats(lab->sw[s].sw, p, tc, lab->tot.end_ns, &g);
				o->xoff_sent += g.xoff_sent;
				o->xon_sent += g.xon_sent;
				o->refresh_sent += g.refresh_sent;
			}
		}
}

json_t *rp_lab_headline_json(const struct rp_lab_headline *h)
{
	json_t *o = json_pack("{s:f, s:o, s:o, s:f, s:o, s:o, s:f, s:o, s:o}", "loss_pct", h->loss_pct, "lost", jint(h->lost),
			 "drops", jint(h->drops), "paused_pct", h->paused_pct, "p99_ns",
			 h->latency_samples ? jint(h->p99_ns) : json_null(), "p999_ns",
			 h->latency_samples ? jint(h->p999_ns) : json_null(), "goodput_gbps", h->goodput_gbps, "max_queue_bytes", jint(h->max_queue_bytes),
			 "virtual_ns", jint(h->end_ns));
	json_object_set_new(o, "in_flight", jint(h->in_flight));
	return o;
}

void rp_lab_flow_write(struct rp_jw *w, void *acct, size_t i)
{
	rp_jw_obj(w, NULL);
	rp_report_flow_members(w, acct, i);
	rp_jw_int(w, "in_flight", (int64_t)rp_acct_flow_in_flight(acct, i));
	rp_jw_end(w);
}

json_t *rp_lab_flow_item(void *acct, size_t i)
{
	return rp_jw_tree(rp_lab_flow_write, acct, i);
}
