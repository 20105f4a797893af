/* counters.nics[]: the NIC counter series in a rank's record and in
 * result.json (rank_nics.h). */
#include "rank_nics.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters/snap.h"
#include "report/rank_env.h"

#define U(x) ((unsigned long long)(x))

static void put_text(struct rp_rec_wr *w, const char *s, size_t max)
{
	size_t n = strnlen(s, max);
	rp_rec_put32(w, n);
	if (w->buf && w->len + n <= w->cap)
		memcpy(w->buf + w->len, s, n);
	w->len += n;
}

/* Into a fixed buffer of len (its terminating NUL included). */
static void get_text(struct rp_rec_rd *r, char *out, size_t len)
{
	uint32_t n = rp_rec_get32(r);
	out[0] = '\0';
	if (r->bad)
		return;
	if (n >= len || n > r->len - r->off || memchr(r->p + r->off, '\0', n)) {
		rp_rec_fail(r, "rank record: a counter series string of %llu bytes at byte %llu (at most %llu, %llu left)",
			    U(n), U(r->off - 4), U(len - 1), U(r->len - r->off));
		return;
	}
	memcpy(out, r->p + r->off, n);
	out[n] = '\0';
	r->off += n;
}

void rp_env_put_nics(struct rp_rec_wr *w, const struct rp_cnt_series *s, uint32_t n)
{
	rp_rec_put32(w, n);
	for (uint32_t i = 0; i < n; i++) {
		put_text(w, s[i].host, sizeof(s[i].host) - 1);
		put_text(w, s[i].source, sizeof(s[i].source) - 1);
		put_text(w, s[i].reason, sizeof(s[i].reason) - 1);
		rp_rec_put64(w, s[i].interval_ns);
		rp_rec_put32(w, s[i].n);
		for (size_t k = 0; k < s[i].n; k++) {
			const struct rp_cnt_sample *m = &s[i].s[k];
			rp_rec_put64(w, m->t_ns);
			put_text(w, m->port.name, sizeof(m->port.name) - 1);
			put_text(w, m->port.driver, sizeof(m->port.driver) - 1);
			rp_rec_put32(w, m->port.n);
			for (size_t j = 0; j < m->port.n; j++) {
				const struct rp_cnt_val *v = &m->port.v[j];
				put_text(w, v->name, sizeof(v->name) - 1);
				rp_rec_put8(w, (uint8_t)(v->prio + 1));
				rp_rec_put8(w, v->cls);
				rp_rec_put8(w, v->reset);
				rp_rec_put64(w, v->value);
			}
		}
	}
}

void rp_env_free_nics(struct rp_cnt_series *s, uint32_t n)
{
	rp_cnt_series_free(s, n);
	free(s);
}

void rp_env_get_nics(struct rp_rec_rd *r, struct rp_cnt_series **out, uint32_t *nout)
{
	*out = NULL;
	*nout = 0;
	uint32_t n = rp_rec_get32(r);
	if (r->bad || !n || !rp_rec_fits(r, n, 12 + 8 + 4))
		return;
	struct rp_cnt_series *s = calloc(n, sizeof(*s));
	if (!s) {
		rp_rec_fail(r, "out of memory for %llu counter series of a rank record", U(n));
		return;
	}
	uint32_t done = 0;
	for (; done < n && !r->bad; done++) {
		struct rp_cnt_series *x = &s[done];
		get_text(r, x->host, sizeof(x->host));
		get_text(r, x->source, sizeof(x->source));
		get_text(r, x->reason, sizeof(x->reason));
		x->interval_ns = rp_rec_get64(r);
		uint32_t ns = rp_rec_get32(r);
		if (r->bad || !ns || !rp_rec_fits(r, ns, 8 + 8 + 4))
			continue;
		if (!(x->s = calloc(ns, sizeof(*x->s)))) {
			rp_rec_fail(r, "out of memory for %llu counter samples of a rank record", U(ns));
			continue;
		}
		x->cap = ns;
		for (uint32_t k = 0; k < ns && !r->bad; k++) {
			struct rp_cnt_sample *m = &x->s[x->n++];
			m->t_ns = rp_rec_get64(r);
			get_text(r, m->port.name, sizeof(m->port.name));
			get_text(r, m->port.driver, sizeof(m->port.driver));
			uint32_t nv = rp_rec_get32(r);
			if (r->bad || !nv || !rp_rec_fits(r, nv, 4 + 3 + 8))
				continue;
			if (!(m->port.v = calloc(nv, sizeof(*m->port.v)))) {
				rp_rec_fail(r, "out of memory for %llu counters of a rank record", U(nv));
				continue;
			}
			m->port.cap = nv;
			for (uint32_t j = 0; j < nv && !r->bad; j++) {
				struct rp_cnt_val *v = &m->port.v[m->port.n++];
				get_text(r, v->name, sizeof(v->name));
				unsigned prio = rp_rec_get8(r), cls = rp_rec_get8(r), reset = rp_rec_get8(r);
				v->value = rp_rec_get64(r);
				if (!r->bad && (prio > 8 || cls > RP_CNT_GAUGE || reset > 1))
					rp_rec_fail(r, "rank record: a counter with priority %u, class %u, reset %u at byte %llu",
						    prio, cls, reset, U(r->off - 11));
				v->prio = (int8_t)prio - 1;
				v->cls = (uint8_t)cls;
				v->reset = reset;
			}
		}
	}
	if (r->bad) {
		rp_env_free_nics(s, done);
		return;
	}
	*out = s;
	*nout = n;
}

static json_t *series_json(const struct rp_cnt_series *s)
{
	json_t *o = json_object(), *samples = json_array();
	json_object_set_new(o, "host", json_string(s->host));
	json_object_set_new(o, "source", s->source[0] ? json_string(s->source) : json_null());
	if (s->reason[0])
		json_object_set_new(o, "reason", json_string(s->reason));
	json_object_set_new(o, "interval_ns", json_integer((json_int_t)s->interval_ns));
	json_object_set_new(o, "port", s->n ? json_string(s->s[0].port.name) : json_null());
	json_object_set_new(o, "driver", s->n && s->s[0].port.driver[0] ? json_string(s->s[0].port.driver) : json_null());
	for (size_t k = 0; k < s->n; k++) {
		json_t *m = json_object(), *p = rp_cnt_port_json(&s->s[k].port, true);
		json_object_set_new(m, "t_ns", json_integer((json_int_t)s->s[k].t_ns));
		json_object_del(p, "name");
		json_object_del(p, "driver");
		json_object_update(m, p);
		json_decref(p);
		json_array_append_new(samples, m);
	}
	json_object_set_new(o, "samples", samples);
	return o;
}

json_t *rp_env_counters_json(const struct rp_rank_env *e, size_t n)
{
	json_t *nics = json_array();
	for (size_t r = 0; r < n; r++)
		for (uint32_t i = 0; e[r].present && i < e[r].nnics; i++)
			json_array_append_new(nics, series_json(&e[r].nics[i]));
	return json_pack("{s:o}", "nics", nics);
}

json_t *rp_switch_series_json(const char *name, const char *source, uint64_t interval_ns, bool optional,
			      json_t *ports, const char *reason, const struct rp_cnt_series *s)
{
	json_t *o = json_object(), *samples = json_array();
	json_object_set_new(o, "name", json_string(name));
	json_object_set_new(o, "source", json_string(source));
	json_object_set_new(o, "interval_ns", json_integer((json_int_t)interval_ns));
	json_object_set_new(o, "optional", json_boolean(optional));
	json_object_set_new(o, "ports", ports ? ports : json_object());
	if (reason && reason[0])
		json_object_set_new(o, "reason", json_string(reason));
	for (size_t k = 0; s && k < s->n; k++) {
		const struct rp_cnt_sample *m = &s->s[k];
		json_t *ps = json_array();
		for (size_t j = 0; j < m->nports; j++)
			json_array_append_new(ps, rp_cnt_port_json(&m->ports[j], true));
		json_array_append_new(samples, json_pack("{s:I, s:I, s:o}", "t_ns", (json_int_t)m->t_ns, "dur_ns",
							 (json_int_t)m->dur_ns, "ports", ps));
	}
	json_object_set_new(o, "samples", samples);
	return o;
}
