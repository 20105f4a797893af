/* roceprobe.counters/1 back into a snapshot (snap.h): the one reader of
 * what rp_cnt_json writes, for `replay infer`'s counter evidence. */
#include "counters/snap.h"

#include <stdio.h>
#include <string.h>

/* A count or gauge member: a non-negative JSON integer. */
static int u64_of(json_t *v, uint64_t *out)
{
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return -1;
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

static int add(struct rp_cnt_port *p, const char *name, int prio, int cls, int scope, json_t *v)
{
	uint64_t x;
	struct rp_cnt_val *o;
	if (u64_of(v, &x) || !(o = rp_cnt_port_push(p)))
		return -1;
	snprintf(o->name, sizeof(o->name), "%s", name);
	o->prio = (int8_t)prio;
	o->cls = (uint8_t)cls;
	o->scope = (uint8_t)scope;
	o->value = x;
	return 0;
}

/* queues[] or pgs[]: {"queue": N, key: v, ...} */
static int objects(struct rp_cnt_port *p, json_t *a, int scope, const char *idxname)
{
	size_t i;
	json_t *o;
	if (!a)
		return 0;
	if (!json_is_array(a))
		return -1;
	json_array_foreach(a, i, o) {
		uint64_t idx;
		const char *k;
		json_t *v;
		if (!json_is_object(o) || u64_of(json_object_get(o, idxname), &idx) || idx > 127)
			return -1;
		json_object_foreach(o, k, v) {
			if (strcmp(k, idxname) == 0)
				continue;
			int cls = rp_ctr_key_is_gauge(k) ? RP_CNT_GAUGE : RP_CNT_KEY;
			if (add(p, k, (int)idx, cls, scope, v))
				return -1;
		}
	}
	return 0;
}

static const char *const not_counts[] = {"name", "driver", "speed_bps", "prio", "queues", "pgs", "raw", "gauges",
					 "resets"};

static bool is_count_key(const char *k)
{
	for (size_t i = 0; i < sizeof(not_counts) / sizeof(not_counts[0]); i++)
		if (strcmp(k, not_counts[i]) == 0)
			return false;
	return true;
}

static int port_read(struct rp_cnt_port *p, json_t *po)
{
	const char *k;
	json_t *v, *x;
	size_t i;
	uint64_t speed = 0;
	if ((x = json_object_get(po, "driver")) && json_is_string(x))
		snprintf(p->driver, sizeof(p->driver), "%s", json_string_value(x));
	if ((x = json_object_get(po, "speed_bps")) && !u64_of(x, &speed))
		p->speed_bps = speed;
	json_object_foreach(po, k, v)
		if (is_count_key(k) && add(p, k, -1, RP_CNT_KEY, RP_CNT_AT_PORT, v))
			return -1;
	json_t *pa = json_object_get(po, "prio");
	if (pa && !json_is_array(pa))
		return -1;
	json_array_foreach(pa, i, x) {
		uint64_t q;
		if (!json_is_object(x) || u64_of(json_object_get(x, "prio"), &q) || q > 7)
			return -1;
		json_object_foreach(x, k, v)
			if (strcmp(k, "prio") != 0 && add(p, k, (int)q, RP_CNT_KEY, RP_CNT_AT_PORT, v))
				return -1;
	}
	static const char *const cls_names[2] = {"raw", "gauges"};
	for (int c = 0; c < 2; c++) {
		json_t *o = json_object_get(po, cls_names[c]);
		if (o && !json_is_object(o))
			return -1;
		json_object_foreach(o, k, v)
			if (add(p, k, -1, c ? RP_CNT_GAUGE : RP_CNT_RAW, RP_CNT_AT_PORT, v))
				return -1;
	}
	if (objects(p, json_object_get(po, "queues"), RP_CNT_AT_QUEUE, "queue") ||
	    objects(p, json_object_get(po, "pgs"), RP_CNT_AT_PG, "pg"))
		return -1;
	json_t *ra = json_object_get(po, "resets");
	json_array_foreach(ra, i, x) { /* "prioN.key", "qN.key", "pgN.key" or "key": marked */
		const char *r = json_string_value(x);
		char name[96];
		for (size_t j = 0; r && j < p->n; j++) {
			rp_cnt_val_name(&p->v[j], name, sizeof(name));
			if (strcmp(name, r) == 0)
				p->v[j].reset = true;
		}
	}
	return 0;
}

int rp_cnt_json_read(const char *line, size_t len, struct rp_cnt_snap *out, bool *delta, uint64_t *interval_ns,
		     char *err, size_t errlen)
{
	json_error_t je;
	rp_cnt_snap_free(out);
	json_t *root = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je), *x, *po;
	const char *why = NULL, *kind = NULL;
	size_t i;
	if (!root) {
		snprintf(err, errlen, "not JSON (%s, column %d)", je.text, je.column);
		return -1;
	}
	if (!json_is_object(root) || !json_is_string(x = json_object_get(root, "schema")) ||
	    strcmp(json_string_value(x), "roceprobe.counters/1") != 0)
		why = "not a roceprobe.counters/1 line (its \"schema\")";
	else if (!json_is_string(x = json_object_get(root, "kind")) ||
		 (strcmp(kind = json_string_value(x), "delta") != 0 && strcmp(kind, "snapshot") != 0))
		why = "\"kind\" is neither \"snapshot\" nor \"delta\"";
	else if (u64_of(json_object_get(root, "t_ns"), &out->t_ns))
		why = "no \"t_ns\" count";
	else if (!json_is_string(x = json_object_get(root, "source")))
		why = "no \"source\"";
	else if (!json_is_array(json_object_get(root, "ports")))
		why = "no \"ports\" array";
	if (!why) {
		*delta = strcmp(kind, "delta") == 0;
		*interval_ns = 0;
		if (*delta && u64_of(json_object_get(root, "interval_ns"), interval_ns))
			why = "a \"delta\" without \"interval_ns\"";
		snprintf(out->source, sizeof(out->source), "%s", json_string_value(x));
		out->mono_ns = out->t_ns;
	}
	json_array_foreach(json_object_get(root, "ports"), i, po) {
		if (why)
			break;
		struct rp_cnt_port *p;
		if (!json_is_object(po) || !json_is_string(x = json_object_get(po, "name")))
			why = "a port without \"name\"";
		else if (!(p = rp_cnt_add_port(out, json_string_value(x))))
			why = "more ports than a source holds (" RP_CNT_PORTS_MAX_S ")";
		else if (port_read(p, po))
			why = "a port's counter is not a count (a non-negative integer) or not where the format puts it";
	}
	json_decref(root);
	if (why) {
		rp_cnt_snap_free(out);
		snprintf(err, errlen, "%s", why);
		return -1;
	}
	return 0;
}
