#include "verbs/ep_json.h"

#include <string.h>

#include "report/outdir.h"
#include "report/result.h"
#include "report/result_doc.h"
#include "verbs/fair.h"

static json_t *jint(uint64_t v)
{
	return json_integer((json_int_t)v);
}

double rp_ep_peer_gbps(const struct rp_ep_peer *p)
{
	struct rp_run_result sum = {0};
	for (unsigned s = 0; s < p->nsizes; s++) {
		sum.bytes += p->res[s].client.bytes;
		sum.t_ns += p->res[s].client.t_ns;
	}
	return rp_ep_gbps(&sum);
}

double rp_ep_fairness(const struct rp_ep_report *rep)
{
	double x[RP_EP_MAX_CLIENTS];
	for (unsigned i = 0; i < rep->npeers; i++)
		x[i] = rp_ep_peer_gbps(&rep->peers[i]);
	return rp_jain_index(x, rep->npeers);
}

static json_t *config_json(const struct rp_ep_report *rep)
{
	const struct rp_ep_cfg *c = &rep->cfg;
	json_t *sizes = json_array();
	const struct rp_ep_peer *p = &rep->peers[0];
	if (rep->server)
		for (unsigned s = 0; s < p->nsizes; s++)
			json_array_append_new(sizes, jint(p->res[s].size));
	else
		for (unsigned s = 0; s < c->nsizes; s++)
			json_array_append_new(sizes, jint(c->sizes[s]));
	json_t *o = json_pack("{s:s, s:s, s:o, s:I, s:f, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:s}", "op",
			 rp_op_name(c->op), "mode", rp_mode_name(c->mode), "sizes", sizes, "iterations",
			 (json_int_t)c->iters, "duration_s", (double)c->duration_ns / 1e9, "qps", (int)c->nqp,
			 "tx_depth", (int)c->tx_depth, "rx_depth", (int)c->rx_depth, "cq_mod", (int)c->cq_mod,
			 "inline_size", (int)c->inline_size, "dscp", (int)c->dscp, "ecn", (int)c->ecn, "sl", (int)c->sl,
			 "clients", (int)(rep->server ? (c->clients ? c->clients : 1) : 1), "tcp_port",
			 (int)c->tcp_port, "connect", c->cm ? "rdma_cm" : "tcp");
	json_object_set_new(o, "qp_type", json_string(c->ud ? "ud" : "rc"));
	if (c->ud && !rep->server)
		json_object_set_new(o, "ud_timeout_ms", json_integer(c->ud_timeout_ms));
	return o;
}

static json_t *device_json(const struct rp_ep_report *rep)
{
	const struct rp_port_attr *p = &rep->port;
	json_t *o = json_pack("{s:s, s:i, s:s, s:s, s:b, s:i, s:i, s:i}", "name", p->dev_name, "port",
			      (int)p->port_num, "driver", rep->driver, "link_layer", rp_link_layer_name(p->link_layer),
			      "grh", p->link_layer == RP_LL_ETHERNET || rep->gid_index >= 0, "lid", (int)p->lid,
			      "path_mtu", (int)rep->mtu, "max_inline", (int)rep->max_inline);
	if (rep->gid_index >= 0) {
		json_object_set_new(o, "gid_index", json_integer(rep->gid_index));
		json_object_set_new(o, "gid", json_string(rep->gid));
		json_object_set_new(o, "netdev", json_string(rep->netdev));
	}
	return o;
}

static json_t *run_json(const struct rp_ep_report *rep, const struct rp_ep_size_result *sr)
{
	const struct rp_ep_cfg *c = &rep->cfg;
	const struct rp_run_result *r = &sr->client;
	json_t *o = json_pack("{s:I, s:I, s:I, s:I, s:f, s:f}", "size", (json_int_t)sr->size, "messages",
			      (json_int_t)r->msgs, "bytes", (json_int_t)r->bytes, "duration_ns", (json_int_t)r->t_ns,
			      "bw_gbps", rp_ep_gbps(r), "msg_rate_mpps",
			      r->t_ns ? (double)r->msgs * 1e3 / (double)r->t_ns : 0.0);
	if (c->mode == RP_MODE_LAT && sr->hist) {
		json_object_set_new(o, "latency_ns", rp_report_latency(sr->hist));
		json_object_set_new(o, "latency_kind", json_string(rp_lat_divisor(c->op) == 2 ? "half_rtt" : "rtt"));
		if (c->ud && !rep->server)
			json_object_set_new(o, "lost", jint(r->lost)); /* probes sent = messages + lost */
	}
	if (rp_op_needs_recv(c->op))
		json_object_set_new(o, "server",
				    json_pack("{s:I, s:I, s:f}", "messages", (json_int_t)sr->server.msgs, "bytes",
					      (json_int_t)sr->server.bytes, "bw_gbps", rp_ep_gbps(&sr->server)));
	return o;
}

static json_t *ctr_object(const struct rp_ctr *c, size_t n)
{
	json_t *o = json_object();
	for (size_t i = 0; i < n; i++)
		json_object_set_new(o, c[i].name, jint(c[i].value));
	return o;
}

static json_t *counters_json(const struct rp_ep_report *rep)
{
	static struct rp_ctr delta[RP_CTR_MAX], norm[RP_CTR_MAX];
	size_t nd = rp_ctr_delta(rep->before, rep->after, delta, RP_CTR_MAX);
	size_t nn = rp_ctr_fold(delta, nd, norm, RP_CTR_MAX);
	json_t *o = json_pack("{s:s, s:i, s:s, s:I, s:o, s:o}", "device", rep->ctr_src.dev, "port",
			      (int)rep->ctr_src.port, "netdev", rep->ctr_src.netdev, "elapsed_ns",
			      (json_int_t)(rep->after->t_ns - rep->before->t_ns), "delta", ctr_object(norm, nn),
			      "raw_delta", ctr_object(delta, nd));
	json_object_set_new(o, "interval_ms", json_integer(rep->cfg.counter_interval_ms));
	json_t *samples = json_array();
	for (size_t i = 0; i < rp_ctr_sampler_count(rep->sampler); i++) {
		const struct rp_ctr_sample *s = rp_ctr_sampler_get(rep->sampler, i);
		json_array_append_new(samples,
				      json_pack("{s:I, s:o}", "t_ns", (json_int_t)s->t_ns, "delta", ctr_object(s->c, s->n)));
	}
	json_object_set_new(o, "samples", samples);
	return o;
}

struct ep_doc {
	const struct rp_ep_report *rep;
	const char *version;
};

/* result.json's keys after the builder's head (no profile, no environment:
 * ep is one endpoint's run, its tool and version said here). */
static int ep_keys(struct rp_result_out *o, void *ctx)
{
	const struct ep_doc *e = ctx;
	const struct rp_ep_report *rep = e->rep;
	rp_result_put(o, "tool", json_string("roceprobe ep"));
	rp_result_put(o, "version", json_string(e->version));
	rp_result_put(o, "role", json_string(rep->server ? "server" : "client"));
	rp_result_put(o, "config", config_json(rep));
	rp_result_put(o, "device", device_json(rep));
	if (!rep->server) {
		json_t *runs = json_array();
		for (unsigned s = 0; s < rep->peers[0].nsizes; s++)
			json_array_append_new(runs, run_json(rep, &rep->peers[0].res[s]));
		rp_result_put(o, "peer", json_string(rep->peers[0].name));
		rp_result_put(o, "results", runs);
	} else {
		json_t *clients = json_array();
		for (unsigned i = 0; i < rep->npeers; i++) {
			const struct rp_ep_peer *p = &rep->peers[i];
			json_t *runs = json_array();
			uint64_t bytes = 0, t = 0;
			for (unsigned s = 0; s < p->nsizes; s++) {
				json_array_append_new(runs, run_json(rep, &p->res[s]));
				bytes += p->res[s].client.bytes;
				t += p->res[s].client.t_ns;
			}
			json_t *c = json_pack("{s:s, s:f, s:I, s:I, s:o}", "peer", p->name, "goodput_gbps",
					      rp_ep_peer_gbps(p), "bytes", (json_int_t)bytes, "duration_ns", (json_int_t)t,
					      "results", runs);
			if (p->status)
				json_object_set_new(c, "error", json_string(p->err));
			json_array_append_new(clients, c);
		}
		rp_result_put(o, "clients", clients);
		rp_result_put(o, "fairness", json_pack("{s:s, s:f}", "metric", "jain", "index", rp_ep_fairness(rep)));
		/* issue 33: connections refused before they became clients (no key, a wrong one, ...) */
		rp_result_put(o, "refused_connections", jint(rep->refused));
		rp_result_put(o, "key", json_boolean(rep->cfg.key != NULL));
	}
	rp_result_put(o, "elapsed_ns", jint(rep->t_end_ns - rep->t_start_ns));
	return rep->have_counters ? rp_result_put(o, "counters", counters_json(rep)) : 0;
}

json_t *rp_ep_json(const struct rp_ep_report *rep, const char *version)
{
	struct ep_doc e = {rep, version};
	struct rp_result_pieces p = {.kind = "verbs", .ext = ep_keys, .ctx = &e};
	return rp_result_tree(&p);
}

int rp_ep_write_json(const struct rp_ep_report *rep, const char *version, FILE *out, const char *dir, char *err,
		     size_t errlen)
{
	json_t *root = rp_ep_json(rep, version);
	int rc = 0;
	if (out) {
		json_dumpf(root, out, JSON_INDENT(2));
		fputc('\n', out);
	}
	if (dir) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/result.json", dir);
		if (rp_outdir_mkdirs(dir, err, errlen) || rp_report_write_atomic(path, root, err, errlen))
			rc = -1;
	}
	json_decref(root);
	return rc;
}
