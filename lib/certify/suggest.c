/* --suggest: for each failing test, the knobs behind its cause swept as
 * --set points (the sweep machinery of `lab --sweep`: one profile override
 * per point), nearest to the current setting first; the first point that
 * makes the test pass is kept if then every test passes, and the next
 * failing test is taken with it applied. */
#include <stdlib.h>
#include <string.h>

#include "cert_internal.h"

#define MAX_CANDS 16
#define MAX_ACC 16
#define MAX_ROUNDS 4
#define SET_LEN 160

struct cand {
	char set[2][SET_LEN];
	size_t n;
};

struct cands {
	struct cand c[MAX_CANDS];
	size_t n;
};

static struct cand *add(struct cands *cs)
{
	if (cs->n == MAX_CANDS)
		return NULL;
	struct cand *c = &cs->c[cs->n++];
	c->n = 0;
	return c;
}

static void add1(struct cands *cs, const char *fmt, unsigned long long v)
{
	struct cand *c = add(cs);
	if (c)
		snprintf(c->set[c->n++], SET_LEN, fmt, v);
}

static void prio_list(uint8_t mask, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "[");
	for (unsigned p = 0, k = 0; p < 8; p++)
		if ((mask >> p) & 1u)
			n += (size_t)snprintf(buf + n, len - n, "%s%u", k++ ? ", " : "", p);
	snprintf(buf + n, len - n, "]");
}

static uint64_t kib_up(uint64_t b)
{
	return (b + 1023) / 1024;
}

/* The knobs behind a cause, nearest first. */
static void knobs(const char *code, const struct rp_cert_fabric *f, const struct rp_cert_intent *w, const json_t *e,
		  struct cands *cs)
{
	char list[32];
	cs->n = 0;
	prio_list(w->lossless, list, sizeof(list));
	if (strcmp(code, "pfc-off") == 0) {
		struct cand *c = add(cs);
		snprintf(c->set[c->n++], SET_LEN, "fabric.pfc.enabled=on");
		c = add(cs);
		snprintf(c->set[c->n++], SET_LEN, "fabric.pfc.enabled=on");
		snprintf(c->set[c->n++], SET_LEN, "fabric.pfc.priorities=%s", list);
	} else if (strcmp(code, "pfc-on-lossy") == 0) {
		struct cand *c = add(cs);
		snprintf(c->set[c->n++], SET_LEN, "fabric.pfc.priorities=%s", list);
	} else if (strcmp(code, "no-ecn") == 0) {
		struct cand *c = add(cs);
		snprintf(c->set[c->n++], SET_LEN, "fabric.ecn.priorities=%s", list);
	} else if (strcmp(code, "no-dcqcn") == 0) {
		add1(cs, "fabric.dcqcn.enabled=on%.0llu", 0);
	} else if (strcmp(code, "ecn-after-pfc") == 0) {
		/* kmin below XOFF, the largest first (nearest to what it is), kmax at twice kmin */
		static const unsigned div[] = {2, 4, 8, 16, 32};
		for (size_t i = 0; i < sizeof(div) / sizeof(div[0]); i++) {
			uint64_t k = f->xoff_bytes / div[i];
			if (k >= f->kmin && f->kmin < f->xoff_bytes)
				continue;
			struct cand *c = add(cs);
			if (!c)
				break;
			snprintf(c->set[c->n++], SET_LEN, "fabric.ecn.kmin=%lluB", (unsigned long long)k);
			snprintf(c->set[c->n++], SET_LEN, "fabric.ecn.kmax=%lluB", (unsigned long long)(2 * k));
		}
		add1(cs, "fabric.ecn.pmax=%llu%%", 20);
	} else if (strcmp(code, "dscp-map") == 0) {
		size_t i;
		json_t *r;
		struct cand *c = add(cs);
		size_t n = (size_t)snprintf(c->set[0], SET_LEN, "fabric.dscp_map={");
		unsigned k = 0;
		uint64_t checked = 0;
		json_array_foreach(json_object_get(json_object_get(e, "measured"), "dscps"), i, r)
			checked |= 1ull << (json_integer_value(json_object_get(r, "dscp")) & 63);
		/* the DSCPs the test checked, each on the hosts' priority (the others keep the switch's) */
		for (unsigned d = 0; d < 64 && n < SET_LEN; d++)
			if (f->dscp_to_prio[d] != (d >> 3) && !((checked >> d) & 1u))
				n += (size_t)snprintf(c->set[0] + n, SET_LEN - n, "%s%u: %u", k++ ? ", " : "", d, f->dscp_to_prio[d]);
		json_array_foreach(json_object_get(json_object_get(e, "measured"), "dscps"), i, r) {
			int d = (int)json_integer_value(json_object_get(r, "dscp"));
			int hp = (int)json_integer_value(json_object_get(r, "host_prio"));
			if (n < SET_LEN)
				n += (size_t)snprintf(c->set[0] + n, SET_LEN - n, "%s%d: %d", k++ ? ", " : "", d, hp);
		}
		if (n < SET_LEN)
			snprintf(c->set[0] + n, SET_LEN - n, "}");
		c->n = 1;
	} else if (strcmp(code, "headroom") == 0) {
		uint64_t req = 0;
		for (size_t i = 0; i < f->nlinks; i++) {
			struct rp_headroom h;
			if (rp_headroom_calc(&f->links[i].in, &h) == 0 && h.total_bytes > req)
				req = h.total_bytes;
		}
		static const unsigned pct[] = {100, 125, 150, 200, 300};
		for (size_t i = 0; i < sizeof(pct) / sizeof(pct[0]); i++)
			add1(cs, "fabric.pfc.headroom=%lluKiB", (unsigned long long)kib_up(req * pct[i] / 100));
		add1(cs, "fabric.pfc.headroom=auto%.0llu", 0);
	} else if (strcmp(code, "oversubscribed") == 0 && f->leaf_spine && f->spines) {
		uint64_t full = (uint64_t)f->hosts_per_leaf * f->host_bps / f->spines;
		for (uint64_t s = f->uplink_bps * 2; s < full && cs->n < MAX_CANDS - 1; s *= 2)
			add1(cs, "fabric.uplink.speed=%llubps", (unsigned long long)s);
		add1(cs, "fabric.uplink.speed=%llubps", (unsigned long long)full);
	} else if (strcmp(code, "no-watchdog") == 0 && f->watchdog_model) {
		static const unsigned us[] = {200, 100, 50};
		for (size_t i = 0; i < sizeof(us) / sizeof(us[0]); i++)
			if (!f->watchdog || us[i] * 1000ull < f->wd_detect_ns)
				add1(cs, "fabric.pfc.watchdog={detect: %lluus}", us[i]);
	} else if (strcmp(code, "unfair") == 0 || strcmp(code, "latency") == 0 || strcmp(code, "other") == 0) {
		add1(cs, "fabric.buffer=%lluB", (unsigned long long)(f->buffer_bytes * 2));
		add1(cs, "fabric.buffer=%lluB", (unsigned long long)(f->buffer_bytes * 4));
	}
}

/* The failed criteria's measured values of a test entry, by name. */
static json_t *failed_values(const json_t *e, const json_t *names)
{
	json_t *o = json_object(), *c;
	size_t i;
	json_array_foreach(json_object_get(e, "criteria"), i, c) {
		const char *n = json_string_value(json_object_get(c, "name"));
		bool want = names ? json_object_get(names, n) != NULL : !json_is_true(json_object_get(c, "pass"));
		if (want)
			json_object_set(o, n, json_object_get(c, "got"));
	}
	return o;
}

static const json_t *entry(const json_t *tests, unsigned id)
{
	size_t i;
	json_t *e;
	json_array_foreach(tests, i, e)
		if ((unsigned)json_integer_value(json_object_get(e, "id")) == id)
			return e;
	return NULL;
}

/* The first test that failed, with every seed (FAIL) or some (MARGINAL). */
static const json_t *first_fail(const json_t *tests)
{
	size_t i;
	json_t *e;
	json_array_foreach(tests, i, e) {
		const char *v = json_string_value(json_object_get(e, "verdict"));
		if (strcmp(v, "FAIL") == 0 || strcmp(v, "MARGINAL") == 0)
			return e;
	}
	return NULL;
}

struct sctx {
	const struct rp_profile *prof;
	const struct rp_cert_opts *o;
	const char *acc[MAX_ACC * 2];
	char accbuf[MAX_ACC * 2][SET_LEN];
	size_t nacc;
};

/* Certify with the user's sets, the accepted ones and cand; only: the tests to run. */
static int try(struct sctx *s, const struct cand *cand, unsigned only, json_t **tests, bool *stopped, char *err,
	       size_t errlen)
{
	const char *sets[256];
	size_t n = 0;
	for (size_t i = 0; i < s->o->nsets && n < 200; i++)
		sets[n++] = s->o->sets[i];
	for (size_t i = 0; i < s->nacc; i++)
		sets[n++] = s->acc[i];
	for (size_t i = 0; cand && i < cand->n; i++)
		sets[n++] = cand->set[i];
	struct rp_cert_opts o = *s->o;
	o.sets = sets;
	o.nsets = n;
	o.only = only;
	o.progress = NULL;
	return rp_certify_run(s->prof, &o, tests, stopped, err, errlen);
}

static json_t *cand_json(const struct cand *c)
{
	json_t *a = json_array();
	for (size_t i = 0; i < c->n; i++)
		json_array_append_new(a, json_string(c->set[i]));
	return a;
}

static void cand_text(const struct cand *c, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < c->n && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s--set %s", i ? " " : "", c->set[i]);
}

/* One failing test: its knobs swept until one passes. 1 found, 0 not, -1 error. */
static int sweep_test(struct sctx *s, const json_t *e, json_t *step, struct cand *chosen, char *err, size_t errlen)
{
	struct rp_cert_fabric fab;
	struct rp_cert_intent want;
	struct cands cs;
	unsigned id = (unsigned)json_integer_value(json_object_get(e, "id"));
	const char *code = json_string_value(json_object_get(json_object_get(e, "cause"), "code"));
	const char *sets[256];
	size_t n = 0;
	for (size_t i = 0; i < s->o->nsets && n < 200; i++)
		sets[n++] = s->o->sets[i];
	for (size_t i = 0; i < s->nacc; i++)
		sets[n++] = s->acc[i];
	if (s->o->eng->describe(s->o->eng->ctx, sets, n, &fab, err, errlen))
		return -1;
	rp_cert_intent(s->prof, &fab, &want);
	knobs(code, &fab, &want, e, &cs);
	json_t *tried = json_object_get(step, "tried");
	for (size_t k = 0; k < cs.n; k++) {
		json_t *tests = NULL;
		bool stopped = false;
		char text[2 * SET_LEN + 16], e2[512];
		cand_text(&cs.c[k], text, sizeof(text));
		if (try(s, &cs.c[k], 1u << id, &tests, &stopped, e2, sizeof(e2))) {
			json_array_append_new(tried, json_pack("{s:s, s:s, s:s}", "set", text, "verdict", "invalid", "error", e2));
			continue;
		}
		const json_t *te = entry(tests, id);
		const char *v = te ? json_string_value(json_object_get(te, "verdict")) : "none";
		json_array_append_new(tried, json_pack("{s:s, s:s}", "set", text, "verdict", v));
		bool pass = te && strcmp(v, "PASS") == 0;
		json_decref(tests);
		if (stopped)
			return 0;
		if (pass) {
			*chosen = cs.c[k];
			json_object_set_new(step, "chosen", json_string(text));
			return 1;
		}
	}
	return 0;
}

int rp_certify_suggest(const struct rp_profile *prof, const struct rp_cert_opts *o, const json_t *tests0, json_t **out,
		       char *err, size_t errlen)
{
	struct sctx *s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	s->prof = prof;
	s->o = o;
	json_t *steps = json_array(), *now = json_deep_copy(tests0);
	int rc = 0;
	bool found = false;
	for (int round = 0; round < MAX_ROUNDS && rc >= 0; round++) {
		const json_t *e = first_fail(now);
		if (!e) {
			found = true;
			break;
		}
		if (o->stop && *o->stop)
			break;
		unsigned id = (unsigned)json_integer_value(json_object_get(e, "id"));
		json_t *before = failed_values(e, NULL);
		json_t *step = json_pack("{s:i, s:s, s:s, s:[], s:n, s:o, s:n}", "test", (int)id, "name", rp_cert_test_name(id),
					 "cause", json_string_value(json_object_get(json_object_get(e, "cause"), "code")), "tried",
					 "chosen", "before", before, "after");
		json_array_append_new(steps, step);
		struct cand chosen;
		rc = sweep_test(s, e, step, &chosen, err, errlen);
		if (rc <= 0 || s->nacc + chosen.n > MAX_ACC * 2)
			break;
		for (size_t i = 0; i < chosen.n; i++) {
			snprintf(s->accbuf[s->nacc], SET_LEN, "%s", chosen.set[i]);
			s->acc[s->nacc] = s->accbuf[s->nacc];
			s->nacc++;
		}
		json_t *all = NULL;
		bool stopped = false;
		if (try(s, NULL, o->only, &all, &stopped, err, errlen)) {
			rc = -1;
			break;
		}
		const json_t *after = entry(all, id);
		json_object_set_new(step, "after", after ? failed_values(after, before) : json_null());
		json_decref(now);
		now = all;
		if (stopped)
			break;
	}
	if (rc < 0) {
		json_decref(steps);
		json_decref(now);
		free(s);
		return -1;
	}
	json_t *sets = json_array();
	for (size_t i = 0; i < s->nacc; i++)
		json_array_append_new(sets, json_string(s->acc[i]));
	unsigned pass, fail, skip, marginal;
	rp_cert_count(now, &pass, &fail, &skip, &marginal);
	*out = json_pack("{s:b, s:o, s:o, s:{s:i, s:i, s:i, s:i}}", "found", found && s->nacc > 0, "sets", sets, "steps",
			 steps, "with_sets", "pass", (int)pass, "fail", (int)fail, "skip", (int)skip, "marginal",
			 (int)marginal);
	if (!found)
		json_object_set_new(*out, "note", json_string(first_fail(now) ? "a failing test has no knob the lab can turn, or none of its points passed" : ""));
	json_decref(now);
	free(s);
	(void)cand_json;
	return 0;
}

bool rp_cert_set_replaced(const char *set, const json_t *fix_sets)
{
	size_t i, k = strcspn(set, "=");
	json_t *x;
	json_array_foreach(fix_sets, i, x) {
		const char *f = json_string_value(x);
		if (f && strcspn(f, "=") == k && strncmp(f, set, k) == 0)
			return true;
	}
	return false;
}
