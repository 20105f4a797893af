/* Raw counters -> the vocabulary, deltas, and roceprobe.counters/1. */
#include "counters/snap.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static struct rp_cnt_val *find(struct rp_cnt_port *p, int scope, const char *name, int prio, int cls)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].cls == cls && p->v[i].prio == prio && p->v[i].scope == scope && strcmp(p->v[i].name, name) == 0)
			return &p->v[i];
	return NULL;
}

const struct rp_cnt_val *rp_cnt_find(const struct rp_cnt_port *p, const char *name, int prio, enum rp_cnt_class cls)
{
	return find((struct rp_cnt_port *)p, RP_CNT_AT_PORT, name, cls == RP_CNT_KEY ? prio : -1, (int)cls);
}

const struct rp_cnt_val *rp_cnt_find_at(const struct rp_cnt_port *p, enum rp_cnt_scope scope, int idx, const char *name,
					enum rp_cnt_class cls)
{
	return find((struct rp_cnt_port *)p, (int)scope, name, idx, (int)cls);
}

static struct rp_cnt_val *push(struct rp_cnt_port *p)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;
		struct rp_cnt_val *v = realloc(p->v, cap * sizeof(*v));
		if (!v)
			return NULL;
		p->v = v;
		p->cap = cap;
	}
	struct rp_cnt_val *v = &p->v[p->n++];
	memset(v, 0, sizeof(*v));
	return v;
}

struct rp_cnt_val *rp_cnt_port_push(struct rp_cnt_port *p)
{
	return push(p);
}

void rp_cnt_port_fold(struct rp_cnt_port *p, const struct rp_ctr *raw, size_t n)
{
	rp_cnt_port_fold_at(p, RP_CNT_AT_PORT, -1, raw, n);
}

void rp_cnt_port_fold_at(struct rp_cnt_port *p, enum rp_cnt_scope scope, int idx, const struct rp_ctr *raw, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct rp_ctr_key k = {.scale = 1};
		const char *name = raw[i].name;
		int cls = RP_CNT_RAW, prio = -1;
		uint64_t v = raw[i].value;
		char pre[64];
		if (rp_ctr_key((enum rp_ctr_src)raw[i].src, name, &k)) {
			cls = k.flags & RP_CTR_GAUGE ? RP_CNT_GAUGE : RP_CNT_KEY;
			prio = cls == RP_CNT_KEY ? k.prio : -1;
			name = k.name;
			v *= k.scale;
		}
		/* A queue's or PG's counters: its index in place of the priority;
		 * a priority key of the port has no place there and stays raw. */
		if (scope != RP_CNT_AT_PORT && cls != RP_CNT_RAW) {
			if (prio >= 0) {
				cls = RP_CNT_RAW;
				name = raw[i].name;
				v = raw[i].value;
			}
			prio = idx;
		}
		char at[64];
		if (scope != RP_CNT_AT_PORT && cls == RP_CNT_RAW) { /* under the port's raw, named by the object: q3.NAME */
			snprintf(at, sizeof(at), "%s%d.%.52s", scope == RP_CNT_AT_QUEUE ? "q" : "pg", idx, name);
			name = at;
			prio = -1;
		}
		struct rp_cnt_val *o = find(p, cls == RP_CNT_RAW ? RP_CNT_AT_PORT : (int)scope, name, prio, cls);
		if (o && cls == RP_CNT_KEY) {
			if (k.flags & RP_CTR_SUM)
				o->value += v;
			else if (v > o->value)
				o->value = v;
			continue;
		}
		if (o) { /* the same raw name from a second directory */
			snprintf(pre, sizeof(pre), "%s/%.56s", rp_ctr_src_name((enum rp_ctr_src)raw[i].src), raw[i].name);
			name = pre;
		}
		if (!(o = push(p)))
			return;
		snprintf(o->name, sizeof(o->name), "%s", name);
		o->prio = (int8_t)prio;
		o->cls = (uint8_t)cls;
		o->scope = (uint8_t)(cls == RP_CNT_RAW ? RP_CNT_AT_PORT : scope);
		o->value = v;
	}
}

struct rp_cnt_port *rp_cnt_add_port(struct rp_cnt_snap *s, const char *name)
{
	if (s->nports == RP_CNT_PORTS_MAX)
		return NULL;
	struct rp_cnt_port *p = &s->port[s->nports++];
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	return p;
}

void rp_cnt_snap_free(struct rp_cnt_snap *s)
{
	for (size_t i = 0; i < s->nports; i++) {
		free(s->port[i].v);
		s->port[i].v = NULL;
		s->port[i].n = s->port[i].cap = 0;
	}
	s->nports = 0;
}

/* A Counter32 gone backwards: wrapped, with *d what it counted, when that
 * count fits interval_ns at speed_bps (snap.h). */
static bool wrapped(const struct rp_cnt_val *cv, const struct rp_cnt_val *bv, uint64_t speed_bps, uint64_t interval_ns,
		    uint64_t *d)
{
	if (cv->bits != 32 || !speed_bps || bv->value > UINT32_MAX || cv->value > UINT32_MAX)
		return false;
	uint64_t w = cv->value + (UINT64_C(1) << 32) - bv->value;
	size_t l = strlen(cv->name);
	bool octets = (l >= 5 && strcmp(cv->name + l - 5, "bytes") == 0) || strstr(cv->name, "Octets");
	double per_s = octets ? (double)speed_bps / 8 : (double)speed_bps / 672; /* 84 B: 64 + preamble + IFG */
	if ((double)w > per_s * (double)interval_ns / 1e9)
		return false;
	*d = w;
	return true;
}

void rp_cnt_delta(const struct rp_cnt_snap *prev, const struct rp_cnt_snap *cur, struct rp_cnt_snap *out)
{
	rp_cnt_snap_free(out);
	snprintf(out->source, sizeof(out->source), "%s", cur->source);
	out->t_ns = cur->t_ns;
	out->mono_ns = cur->mono_ns;
	for (size_t i = 0; i < cur->nports; i++) {
		const struct rp_cnt_port *c = &cur->port[i], *b = NULL;
		for (size_t j = 0; j < prev->nports && !b; j++)
			if (strcmp(prev->port[j].name, c->name) == 0)
				b = &prev->port[j];
		if (!b)
			continue;
		struct rp_cnt_port *o = rp_cnt_add_port(out, c->name);
		if (!o)
			return;
		snprintf(o->driver, sizeof(o->driver), "%s", c->driver);
		o->speed_bps = c->speed_bps;
		for (size_t k = 0; k < c->n; k++) {
			const struct rp_cnt_val *cv = &c->v[k];
			/* read the same way each time, a port's values come in the same order */
			const struct rp_cnt_val *bv = k < b->n ? &b->v[k] : NULL;
			if (!bv || bv->cls != cv->cls || bv->prio != cv->prio || bv->scope != cv->scope ||
			    strcmp(bv->name, cv->name) != 0)
				bv = find((struct rp_cnt_port *)b, cv->scope, cv->name, cv->prio, cv->cls);
			if (!bv)
				continue;
			struct rp_cnt_val *ov = push(o);
			if (!ov)
				return;
			*ov = *cv;
			if (cv->cls != RP_CNT_GAUGE) {
				uint64_t d = cv->value - bv->value;
				ov->reset = cv->value < bv->value &&
					    !wrapped(cv, bv, c->speed_bps, cur->mono_ns - prev->mono_ns, &d);
				ov->value = ov->reset ? 0 : d;
			}
		}
	}
}

static void set_u64(json_t *o, const char *k, uint64_t v)
{
	json_object_set_new(o, k, json_integer((json_int_t)v));
}

/* ports[].queues[] or .pgs[]: one object per index, ascending ("queue": 3
 * or "pg": 3, then its keys and gauges), or NULL when there is none. */
static json_t *objects_json(const struct rp_cnt_port *p, enum rp_cnt_scope scope)
{
	const char *idxname = scope == RP_CNT_AT_QUEUE ? "queue" : "pg";
	json_t *a = NULL;
	int hi = -1; /* the largest index there: no pass per index beyond it */
	for (size_t k = 0; k < p->n; k++)
		if (p->v[k].scope == scope && p->v[k].prio > hi)
			hi = p->v[k].prio;
	for (int idx = 0; idx <= hi; idx++) {
		json_t *o = NULL;
		for (size_t k = 0; k < p->n; k++) {
			const struct rp_cnt_val *v = &p->v[k];
			if (v->scope != scope || v->prio != idx)
				continue;
			if (!o) {
				o = json_object();
				set_u64(o, idxname, (uint64_t)idx);
			}
			set_u64(o, v->name, v->value);
		}
		if (o) {
			if (!a)
				a = json_array();
			json_array_append_new(a, o);
		}
	}
	return a;
}

void rp_cnt_val_name(const struct rp_cnt_val *v, char *name, size_t len)
{
	if (v->scope == RP_CNT_AT_QUEUE || v->scope == RP_CNT_AT_PG)
		snprintf(name, len, "%s%d.%s", v->scope == RP_CNT_AT_QUEUE ? "q" : "pg", v->prio, v->name);
	else if (v->prio >= 0)
		snprintf(name, len, "prio%d.%s", v->prio, v->name);
	else
		snprintf(name, len, "%s", v->name);
}

json_t *rp_cnt_port_json(const struct rp_cnt_port *p, bool delta)
{
	json_t *po = json_object(), *raw = json_object(), *gauges = json_object(), *resets = json_array();
	json_t *prio[8] = {0};
	json_object_set_new(po, "name", json_string(p->name));
	if (p->driver[0])
		json_object_set_new(po, "driver", json_string(p->driver));
	if (p->speed_bps)
		set_u64(po, "speed_bps", p->speed_bps);
	for (size_t k = 0; k < p->n; k++) {
		const struct rp_cnt_val *v = &p->v[k];
		if (v->reset) {
			char name[96];
			rp_cnt_val_name(v, name, sizeof(name));
			json_array_append_new(resets, json_string(name));
		}
		if (v->scope != RP_CNT_AT_PORT)
			continue; /* queues[], pgs[] */
		if (v->cls == RP_CNT_KEY && v->prio < 0)
			set_u64(po, v->name, v->value);
		if (v->cls == RP_CNT_KEY && v->prio >= 0 && v->prio < 8) {
			if (!prio[v->prio]) {
				prio[v->prio] = json_object();
				set_u64(prio[v->prio], "prio", (uint64_t)v->prio);
			}
			set_u64(prio[v->prio], v->name, v->value);
		}
		if (v->cls == RP_CNT_RAW)
			set_u64(raw, v->name, v->value);
		if (v->cls == RP_CNT_GAUGE)
			set_u64(gauges, v->name, v->value);
	}
	json_t *pa = json_array();
	for (int q = 0; q < 8; q++)
		if (prio[q])
			json_array_append_new(pa, prio[q]);
	json_object_set_new(po, "prio", pa);
	json_t *qa = objects_json(p, RP_CNT_AT_QUEUE), *ga = objects_json(p, RP_CNT_AT_PG);
	if (qa)
		json_object_set_new(po, "queues", qa);
	if (ga)
		json_object_set_new(po, "pgs", ga);
	json_object_set_new(po, "raw", raw);
	json_object_set_new(po, "gauges", gauges);
	if (delta)
		json_object_set_new(po, "resets", resets);
	else
		json_decref(resets);
	return po;
}

json_t *rp_cnt_json(const struct rp_cnt_snap *s, bool delta, uint64_t interval_ns)
{
	json_t *root = json_object();
	json_object_set_new(root, "schema", json_string("roceprobe.counters/1"));
	json_object_set_new(root, "kind", json_string(delta ? "delta" : "snapshot"));
	set_u64(root, "t_ns", s->t_ns);
	if (delta)
		set_u64(root, "interval_ns", interval_ns);
	json_object_set_new(root, "source", json_string(s->source));
	json_t *ports = json_array();
	for (size_t i = 0; i < s->nports; i++)
		json_array_append_new(ports, rp_cnt_port_json(&s->port[i], delta));
	json_object_set_new(root, "ports", ports);
	return root;
}

/* The queue or PG table: one row per index, one column per name any has
 * (gauges marked with a trailing '*'). */
static void print_objects(FILE *f, const struct rp_cnt_port *p, enum rp_cnt_scope scope)
{
	const struct rp_cnt_val *cols[24];
	size_t ncols = 0;
	for (size_t k = 0; k < p->n; k++) {
		if (p->v[k].scope != scope)
			continue;
		size_t c = 0;
		while (c < ncols && strcmp(cols[c]->name, p->v[k].name) != 0)
			c++;
		if (c == ncols && ncols < sizeof(cols) / sizeof(cols[0]))
			cols[ncols++] = &p->v[k];
	}
	if (!ncols)
		return;
	int w[24];
	fprintf(f, "  %5s", scope == RP_CNT_AT_QUEUE ? "queue" : "pg");
	for (size_t c = 0; c < ncols; c++) {
		w[c] = strlen(cols[c]->name) > 14 ? (int)strlen(cols[c]->name) : 14;
		fprintf(f, " %*s%s", w[c], cols[c]->name, cols[c]->cls == RP_CNT_GAUGE ? "*" : " ");
	}
	fputc('\n', f);
	for (int idx = 0; idx < 128; idx++) {
		bool any = false;
		for (size_t c = 0; c < ncols; c++)
			any |= rp_cnt_find_at(p, scope, idx, cols[c]->name, (enum rp_cnt_class)cols[c]->cls) != NULL;
		if (!any)
			continue;
		fprintf(f, "  %5d", idx);
		for (size_t c = 0; c < ncols; c++) {
			const struct rp_cnt_val *v = rp_cnt_find_at(p, scope, idx, cols[c]->name, (enum rp_cnt_class)cols[c]->cls);
			if (v)
				fprintf(f, " %*" PRIu64 " ", w[c], v->value);
			else
				fprintf(f, " %*s ", w[c], "-");
		}
		fputc('\n', f);
	}
	for (size_t c = 0; c < ncols; c++)
		if (cols[c]->cls == RP_CNT_GAUGE) {
			fputs("  (* a gauge: the level, not a count)\n", f);
			break;
		}
}

void rp_cnt_print(FILE *f, const struct rp_cnt_snap *s)
{
	fprintf(f, "%s\n", s->source);
	for (size_t i = 0; i < s->nports; i++) {
		const struct rp_cnt_port *p = &s->port[i];
		size_t nraw = 0;
		fprintf(f, "port %s%s%s%s", p->name, p->driver[0] ? " (" : "", p->driver, p->driver[0] ? ")" : "");
		if (p->speed_bps)
			fprintf(f, " %g Gbit/s", (double)p->speed_bps / 1e9);
		fputc('\n', f);
		for (size_t k = 0; k < p->n; k++) {
			if (p->v[k].cls == RP_CNT_KEY && p->v[k].prio < 0 && p->v[k].scope == RP_CNT_AT_PORT)
				fprintf(f, "  %-28s %20" PRIu64 "\n", p->v[k].name, p->v[k].value);
			nraw += p->v[k].cls == RP_CNT_RAW;
		}
		/* The priority table: one column per key any priority has. */
		const char *cols[24];
		size_t ncols = 0;
		for (size_t k = 0; k < p->n; k++) {
			if (p->v[k].cls != RP_CNT_KEY || p->v[k].prio < 0 || p->v[k].scope != RP_CNT_AT_PORT)
				continue;
			size_t c = 0;
			while (c < ncols && strcmp(cols[c], p->v[k].name) != 0)
				c++;
			if (c == ncols && ncols < sizeof(cols) / sizeof(cols[0]))
				cols[ncols++] = p->v[k].name;
		}
		if (ncols) {
			fprintf(f, "  %4s", "prio");
			for (size_t c = 0; c < ncols; c++)
				fprintf(f, " %14s", cols[c]);
			fputc('\n', f);
			for (int q = 0; q < 8; q++) {
				bool any = false;
				for (size_t c = 0; c < ncols; c++)
					any |= rp_cnt_find(p, cols[c], q, RP_CNT_KEY) != NULL;
				if (!any)
					continue;
				fprintf(f, "  %4d", q);
				for (size_t c = 0; c < ncols; c++) {
					const struct rp_cnt_val *v = rp_cnt_find(p, cols[c], q, RP_CNT_KEY);
					if (v)
						fprintf(f, " %14" PRIu64, v->value);
					else
						fprintf(f, " %14s", "-");
				}
				fputc('\n', f);
			}
		}
		print_objects(f, p, RP_CNT_AT_QUEUE);
		print_objects(f, p, RP_CNT_AT_PG);
		for (size_t k = 0; k < p->n; k++)
			if (p->v[k].cls == RP_CNT_GAUGE && p->v[k].scope == RP_CNT_AT_PORT)
				fprintf(f, "  %-28s %20" PRIu64 "  (gauge)\n", p->v[k].name, p->v[k].value);
		if (nraw) {
			fprintf(f, "  raw (%zu, names as the driver gives them):\n", nraw);
			for (size_t k = 0; k < p->n; k++)
				if (p->v[k].cls == RP_CNT_RAW)
					fprintf(f, "    %-32s %20" PRIu64 "\n", p->v[k].name, p->v[k].value);
		}
	}
}

void rp_cnt_print_delta(FILE *f, const struct rp_cnt_snap *d, double t_s)
{
	fprintf(f, "%9.3f %s", t_s, d->source);
	for (size_t i = 0; i < d->nports; i++) {
		const struct rp_cnt_port *p = &d->port[i];
		size_t shown = 0;
		if (d->nports > 1)
			fprintf(f, " [%s]", p->name);
		for (size_t k = 0; k < p->n; k++) {
			const struct rp_cnt_val *v = &p->v[k];
			if (v->cls == RP_CNT_GAUGE || (!v->value && !v->reset))
				continue;
			char name[96];
			rp_cnt_val_name(v, name, sizeof(name));
			fprintf(f, " %s", name);
			if (v->reset)
				fputs("=reset", f);
			else
				fprintf(f, "+%" PRIu64, v->value);
			shown++;
		}
		if (!shown)
			fputs(" (no change)", f);
	}
	fputc('\n', f);
}
