/* The one result builder: result.json's root from typed pieces, streamed
 * through report/doc.h or made as a tree. */
#include "result_doc.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct rp_result_out {
	struct rp_doc *d; /* streamed, or */
	json_t *tree;     /* a tree */
	const struct rp_report_flowset *fs;
	bool failed;
};

int rp_result_put(struct rp_result_out *o, const char *key, json_t *v)
{
	if (o->d)
		return rp_doc_put(o->d, key, v) == 0 ? 0 : (o->failed = true, -1);
	if (!v || json_object_set_new(o->tree, key, v) != 0)
		o->failed = true;
	return o->failed ? -1 : 0;
}

struct rp_doc *rp_result_doc(struct rp_result_out *o)
{
	return o->d;
}

const struct rp_report_flowset *rp_result_flowset(struct rp_result_out *o)
{
	return o->fs;
}

static json_t *environment(struct rp_result_env *e)
{
	char host[256] = "", started[32];
	if (!e->hostname)
		gethostname(host, sizeof(host) - 1);
	strftime(started, sizeof(started), "%Y-%m-%dT%H:%M:%SZ", gmtime(&e->started));
	json_t *env = json_pack("{s:s}", "roceprobe", e->version);
	if (env && e->dpdk && json_object_set_new(env, "dpdk", json_string(e->dpdk)) != 0) {
		json_decref(env);
		env = NULL;
	}
	if (env && (json_object_set_new(env, "hostname", json_string(e->hostname ? e->hostname : host)) ||
		    json_object_set_new(env, "started", json_string(started)) ||
		    (e->more && json_object_update(env, e->more) != 0))) {
		json_decref(env);
		env = NULL;
	}
	json_decref(e->more);
	e->more = NULL;
	return env;
}

/* The measured pieces' trees, freed once put or when never put. */
static void measured_free(struct rp_result_measured *m)
{
	if (!m)
		return;
	json_decref(m->ports);
	json_decref(m->timeseries);
	json_decref(m->capture);
	json_decref(m->interrupted_skipped);
	m->ports = m->timeseries = m->capture = m->interrupted_skipped = NULL;
}

static void pieces_free(struct rp_result_pieces *p)
{
	if (p->env) {
		json_decref(p->env->more);
		p->env->more = NULL;
	}
	measured_free(p->measured);
}

static int put_measured(struct rp_result_out *o, struct rp_result_measured *m)
{
	rp_result_put(o, "elapsed_ns", json_integer((json_int_t)m->elapsed_ns));
	rp_result_put(o, "interrupted", json_boolean(m->interrupted));
	if (m->interrupted_in)
		rp_result_put(o, "interrupted_in", json_string(m->interrupted_in));
	if (m->interrupted_skipped)
		rp_result_put(o, "interrupted_skipped", m->interrupted_skipped);
	m->interrupted_skipped = NULL;
	if (rp_report_doc_flows(o->d, m->fs))
		o->failed = true;
	rp_result_put(o, "ports", m->ports);
	m->ports = NULL;
	if (rp_doc_put_streams(o->d, "timeseries", m->timeseries, m->ts_streams, m->nts))
		o->failed = true;
	m->timeseries = NULL;
	rp_result_put(o, "capture", m->capture ? m->capture : json_null());
	m->capture = NULL;
	return o->failed ? -1 : 0;
}

/* Every piece in its order into o. */
static int put_all(struct rp_result_out *o, struct rp_result_pieces *p)
{
	rp_result_put(o, "schema", json_string(RP_RESULT_SCHEMA));
	rp_result_put(o, "kind", json_string(p->kind));
	if (p->profile_name)
		rp_result_put(o, "profile", json_pack("{s:s, s:s}", "name", p->profile_name, "path", p->profile_path));
	if (p->pre && p->pre(o, p->ctx))
		o->failed = true;
	if (p->env)
		rp_result_put(o, "environment", environment(p->env));
	if (p->measured && put_measured(o, p->measured))
		o->failed = true;
	if (p->ext && p->ext(o, p->ctx))
		o->failed = true;
	return o->failed ? -1 : 0;
}

int rp_result_write(const char *dir, struct rp_result_pieces *p, char *err, size_t errlen)
{
	char path[4096];
	struct rp_result_out o = {.fs = p->measured ? p->measured->fs : NULL};
	int rc = snprintf(path, sizeof(path), "%s/result.json", dir) < (int)sizeof(path) ? 0 : -1;
	if (rc)
		snprintf(err, errlen, "%s/result.json: the path is too long", dir);
	if (rc == 0 && o.fs)
		rc = rp_report_flowset_files(o.fs, dir, err, errlen);
	if (rc == 0 && !(o.d = rp_doc_open(path, err, errlen)))
		rc = -1;
	if (rc == 0) {
		err[0] = '\0';
		bool failed = put_all(&o, p) != 0;
		rc = rp_doc_close(o.d, failed, err, errlen);
		if (rc && !err[0]) /* a piece gave up without the document failing */
			snprintf(err, errlen, "cannot write %s: out of memory", path);
	}
	pieces_free(p);
	return rc;
}

json_t *rp_result_tree(struct rp_result_pieces *p)
{
	struct rp_result_out o = {.tree = json_object()};
	if (!o.tree || p->measured || put_all(&o, p)) {
		json_decref(o.tree);
		o.tree = NULL;
	}
	pieces_free(p);
	return o.tree;
}
