/* The suite: the nine tests in order, each judged, then the tests whose
 * failure another failing test explains (its cause is that test's) marked
 * as not judged, so each misconfiguration is one FAIL with its cause. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cert_internal.h"
#include "stats/progress.h"

static const struct rp_cert_test *const tests[RP_CERT_NTESTS] = {
	&rp_cert_t_pfc_incast, &rp_cert_t_lossy, &rp_cert_t_ecn, &rp_cert_t_dscp, &rp_cert_t_headroom,
	&rp_cert_t_storm,      &rp_cert_t_a2a,   &rp_cert_t_latency, &rp_cert_t_ecmp,
};

const char *rp_cert_test_name(unsigned id)
{
	return id >= 1 && id <= RP_CERT_NTESTS ? tests[id - 1]->name : NULL;
}

const char *rp_cert_test_title(unsigned id)
{
	return id >= 1 && id <= RP_CERT_NTESTS ? tests[id - 1]->title : NULL;
}

int rp_cert_parse_only(const char *list, unsigned *mask, char *err, size_t errlen)
{
	char buf[512];
	*mask = 0;
	if (strlen(list) >= sizeof(buf) || !*list) {
		snprintf(err, errlen, "--only: expected test numbers or names like 1,3,ecmp");
		return -1;
	}
	strcpy(buf, list);
	for (char *s = buf, *tok; (tok = strsep(&s, ",")) != NULL;) {
		char *end;
		unsigned long id = strtoul(tok, &end, 10);
		if (end == tok || *end) {
			id = 0;
			for (unsigned i = 1; i <= RP_CERT_NTESTS; i++)
				if (strcmp(tok, tests[i - 1]->name) == 0)
					id = i;
		}
		if (id < 1 || id > RP_CERT_NTESTS) {
			snprintf(err, errlen, "--only: no test '%s' (tests are 1..9: pfc-incast, lossy-isolation, "
					      "ecn-before-pfc, dscp-priority, headroom, pause-storm, all-to-all, latency, ecmp)",
				 tok);
			return -1;
		}
		*mask |= 1u << id;
	}
	return 0;
}

static double wall_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static enum rp_cert_verdict verdict_of(const struct rp_cert_t *t)
{
	return t->skipped ? RP_CERT_SKIP : t->marginal ? RP_CERT_MARGINAL : t->failed ? RP_CERT_FAIL : RP_CERT_PASS;
}

static json_t *entry_json(const struct rp_cert_test *d, struct rp_cert_t *t, double wall, json_t *seeds)
{
	enum rp_cert_verdict v = verdict_of(t);
	json_t *cause = json_null();
	if (v == RP_CERT_FAIL || v == RP_CERT_MARGINAL) {
		if (!t->cause_code[0])
			snprintf(t->cause_code, sizeof(t->cause_code), "other");
		if (!t->cause[0])
			snprintf(t->cause, sizeof(t->cause), "the criteria above were not met; the evidence has the runs");
		cause = json_pack("{s:s, s:s}", "code", t->cause_code, "text", t->cause);
	}
	json_t *e = json_pack("{s:i, s:s, s:s, s:s, s:o, s:o, s:o, s:{s:o, s:o}, s:o, s:n, s:f, s:o}", "id",
			      (int)d->id, "name", d->name, "title", d->title, "verdict", rp_cert_verdict_name(v), "reason",
			      v == RP_CERT_SKIP || v == RP_CERT_MARGINAL ? json_string(t->skip) : json_null(), "criteria",
			      t->criteria, "measured", t->measured, "evidence", "runs", t->runs, "plots", t->plots, "cause",
			      cause, "blocked_by", "wall_s", wall, "seeds", seeds ? seeds : json_null());
	return e;
}

static void t_free(struct rp_cert_t *t)
{
	json_decref(t->criteria);
	json_decref(t->measured);
	json_decref(t->runs);
	json_decref(t->plots);
}

static void t_init(struct rp_cert_t *t, unsigned id)
{
	*t = (struct rp_cert_t){.id = id, .criteria = json_array(), .measured = json_object(), .runs = json_array(),
				.plots = json_array()};
}

/* --metrics: the counts, the test under way, and test id's verdict (id 0: none). */
static void live_set(struct rp_cert_live *l, unsigned ntests, unsigned ndone, unsigned running, unsigned id,
		     int verdict)
{
	if (!l)
		return;
	pthread_mutex_lock(&l->lock);
	l->ntests = ntests;
	l->ndone = ndone;
	l->running = running;
	if (id && id <= RP_CERT_NTESTS)
		l->verdict[id] = verdict;
	pthread_mutex_unlock(&l->lock);
}

/* Test entry e's verdict (result.json's words) into the live state. */
static void live_verdict(struct rp_cert_live *l, unsigned ntests, unsigned ndone, const json_t *e)
{
	const char *v = json_string_value(json_object_get(e, "verdict"));
	live_set(l, ntests, ndone, 0, (unsigned)json_integer_value(json_object_get(e, "id")),
		 !strcmp(v, "PASS") ? 1 : !strcmp(v, "FAIL") ? 0 : -1);
}

/* "6, 9" into buf: the seeds whose verdict is v. */
static void seeds_with(const uint64_t *seed, const enum rp_cert_verdict *v, size_t n, enum rp_cert_verdict want,
		       char *buf, size_t len)
{
	size_t k = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n && k < len; i++)
		if (v[i] == want)
			k += (size_t)snprintf(buf + k, len - k, "%s%llu", k ? ", " : "", (unsigned long long)seed[i]);
}

/* A seeded test: run with RP_CERT_SEEDS seeds of the engine's seed_key, from
 * the profile's; *t the one to report (the profile's seed's, or when the
 * seeds disagree the first failing one's, MARGINAL), every seed's runs in
 * its evidence, *seeds each seed's verdict. A first seed that ran nothing
 * (a SKIP on the fabric's shape) is not repeated. 0, 1 stopped, -1 error. */
static int run_seeded(struct rp_cert_ctx *c, const struct rp_cert_test *d, struct rp_cert_t *t, json_t **seeds)
{
	struct rp_cert_t ts[RP_CERT_SEEDS];
	enum rp_cert_verdict v[RP_CERT_SEEDS];
	uint64_t seed[RP_CERT_SEEDS];
	char set[128];
	size_t n = 0;
	int rc = 0;
	*seeds = json_array();
	for (; n < RP_CERT_SEEDS && rc == 0; n++) {
		seed[n] = c->prof->fabric.seed + n;
		snprintf(set, sizeof(set), "%s=%llu", c->o->eng->seed_key, (unsigned long long)seed[n]);
		c->seed_set = set;
		c->seed = seed[n];
		t_init(&ts[n], d->id);
		rc = d->run(c, &ts[n]);
		c->seed_set = NULL;
		if (rc || ts[n].stopped) {
			n++;
			break;
		}
		v[n] = verdict_of(&ts[n]);
		json_t *cause = ts[n].failed && ts[n].cause_code[0] ? json_string(ts[n].cause_code) : json_null();
		json_array_append_new(*seeds, json_pack("{s:I, s:s, s:o}", "seed", (json_int_t)seed[n], "verdict",
							rp_cert_verdict_name(v[n]), "cause", cause));
		if (ts[n].skipped && !json_array_size(ts[n].runs)) {
			n++;
			break;
		}
	}
	size_t pick = 0, npass = 0, nfail = 0;
	bool stopped = rc != 0 || ts[n - 1].stopped;
	for (size_t i = 0; !stopped && i < n; i++) {
		npass += v[i] == RP_CERT_PASS;
		nfail += v[i] == RP_CERT_FAIL;
	}
	for (size_t i = 0; !stopped && i < n; i++) /* the profile's seed's, unless it was not judged */
		if (v[i] != RP_CERT_SKIP) {
			pick = i;
			break;
		}
	for (size_t i = 0; !stopped && npass && nfail && i < n; i++) /* the seeds disagree: a failing one's */
		if (v[i] == RP_CERT_FAIL) {
			pick = i;
			break;
		}
	if (stopped)
		pick = n - 1;
	*t = ts[pick];
	for (size_t i = 0; i < n; i++) {
		if (i == pick)
			continue;
		size_t k;
		json_t *r;
		json_array_foreach(ts[i].runs, k, r)
			json_array_append(t->runs, r);
		t_free(&ts[i]);
	}
	if (!stopped && npass && nfail) {
		char ok[128], bad[128];
		seeds_with(seed, v, n, RP_CERT_PASS, ok, sizeof(ok));
		seeds_with(seed, v, n, RP_CERT_FAIL, bad, sizeof(bad));
		t->marginal = true;
		snprintf(t->skip, sizeof(t->skip),
			 "the verdict depends on the seed (%s: the switches' ECMP hash and RED draws): PASS with %s, FAIL "
			 "with %s (%s); the criteria below are seed %llu's",
			 c->o->eng->seed_key, ok, bad, t->cause_code[0] ? t->cause_code : "other",
			 (unsigned long long)seed[pick]);
	}
	return rc;
}

/* A FAIL whose cause belongs to another test that failed for that cause:
 * not judged here (SKIP, blocked_by that test). */
static void block(json_t *arr)
{
	size_t i, j;
	json_t *e, *o;
	json_array_foreach(arr, i, e) {
		if (strcmp(json_string_value(json_object_get(e, "verdict")), "FAIL") != 0)
			continue;
		const char *code = json_string_value(json_object_get(json_object_get(e, "cause"), "code"));
		unsigned owners = rp_cert_cause_owners(code), id = (unsigned)json_integer_value(json_object_get(e, "id"));
		if (!owners || ((owners >> id) & 1u))
			continue;
		json_array_foreach(arr, j, o) {
			unsigned oid = (unsigned)json_integer_value(json_object_get(o, "id"));
			json_t *oc = json_object_get(o, "cause");
			if (!((owners >> oid) & 1u) || !json_is_object(oc) ||
			    strcmp(json_string_value(json_object_get(oc, "code")), code) != 0)
				continue;
			char why[RP_CERT_LINE];
			snprintf(why, sizeof(why), "not judged: it fails for the cause test %u (%s) reports (%s); fix that first",
				 oid, rp_cert_test_name(oid), code);
			json_object_set_new(e, "verdict", json_string("SKIP"));
			json_object_set_new(e, "reason", json_string(why));
			json_object_set_new(e, "blocked_by", json_integer((json_int_t)oid));
			break;
		}
	}
}

int rp_certify_run(const struct rp_profile *prof, const struct rp_cert_opts *o, json_t **out, bool *interrupted,
		   char *err, size_t errlen)
{
	struct rp_cert_ctx *c = calloc(1, sizeof(*c));
	char line[RP_CERT_LINE + 256];
	int rc = 0;
	*interrupted = false;
	*out = NULL;
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	c->prof = prof;
	c->o = o;
	c->cfg = &prof->certify;
	c->line_bps = prof->nhosts ? prof->hosts[0].speed_bps : prof->default_speed_bps;
	if (o->eng->describe(o->eng->ctx, o->sets, o->nsets, &c->fab, err, errlen)) {
		free(c);
		return -1;
	}
	rp_cert_intent(prof, &c->fab, &c->want);
	json_t *arr = json_array();
	/* Progress: "test 3 of 9", and the time left as the tests done so far took
	 * (a test's workloads, and so its runs, are known only once it builds them). */
	unsigned ntests = 0, ndone = 0;
	for (unsigned i = 0; i < RP_CERT_NTESTS; i++)
		ntests += !o->only || ((o->only >> tests[i]->id) & 1u);
	double start = wall_s();
	live_set(o->live, ntests, 0, 0, 0, 0);
	for (unsigned i = 0; i < RP_CERT_NTESTS && rc == 0; i++) {
		const struct rp_cert_test *d = tests[i];
		if (o->only && !((o->only >> d->id) & 1u))
			continue;
		if (o->stop && *o->stop) {
			*interrupted = true;
			break;
		}
		struct rp_cert_t t;
		json_t *seeds = NULL;
		double w0 = wall_s();
		live_set(o->live, ntests, ndone, d->id, 0, -2);
		/* A line as a test starts only once certify has run a second: a lab
		 * certify of a small fabric (0.1 s) keeps one line per test. */
		if (o->progress && w0 - start >= 1.0) {
			char left[32] = "";
			if (ndone)
				rp_progress_span((w0 - start) / ndone * (ntests - ndone), left, sizeof(left));
			snprintf(line, sizeof(line), "test %u %s (%u of %u)%s%s%s ...", d->id, d->name, ndone + 1, ntests,
				 ndone ? ", about " : "", left, ndone ? " left" : "");
			o->progress(line, o->progress_arg);
		}
		if (!c->fab.known && !c->fab.switch_counters && d->needs_switch && !(c->fab.switch_sources && d->counted)) {
			t_init(&t, d->id);
			rp_cert_skip(&t, "not judged on this fabric (engine %s): it needs %s, which the hosts cannot see and the engine does not read",
				     o->eng->name, d->needs_switch);
		} else if (d->seeded && o->eng->seed_key) {
			rc = run_seeded(c, d, &t, &seeds);
		} else {
			t_init(&t, d->id);
			rc = d->run(c, &t);
		}
		if (rc < 0) {
			snprintf(err, errlen, "%s", c->err);
			t_free(&t);
			json_decref(seeds);
			break;
		}
		if (rc == 1 || t.stopped) { /* the test that was running is not judged */
			*interrupted = true;
			t_free(&t);
			json_decref(seeds);
			rc = 0;
			break;
		}
		json_t *e = entry_json(d, &t, wall_s() - w0, seeds);
		json_array_append_new(arr, e);
		ndone++;
		live_verdict(o->live, ntests, ndone, e);
		if (o->progress) {
			json_t *cause = json_object_get(e, "cause");
			double now = wall_s();
			char left[32], tail[64] = "";
			/* the time left once certify has run a second (else "about 0s") */
			if (ndone < ntests && now - start >= 1.0) {
				rp_progress_span((now - start) / ndone * (ntests - ndone), left, sizeof(left));
				snprintf(tail, sizeof(tail), ", about %s left", left);
			}
			snprintf(line, sizeof(line), "test %u %s: %s%s%s (%.2f s; %u of %u done%s)", d->id, d->name,
				 json_string_value(json_object_get(e, "verdict")),
				 json_is_object(cause) || t.skipped ? ": " : "",
				 t.marginal || t.skipped ? t.skip : json_is_object(cause) ? json_string_value(json_object_get(cause, "text")) : "",
				 now - w0, ndone, ntests, tail);
			o->progress(line, o->progress_arg);
		}
	}
	free(c);
	if (rc < 0) {
		json_decref(arr);
		return -1;
	}
	block(arr);
	size_t k;
	json_t *e;
	json_array_foreach(arr, k, e) /* a FAIL another test's cause blocks is a SKIP now */
		live_verdict(o->live, ntests, ndone, e);
	*out = arr;
	return 0;
}

void rp_cert_count(const json_t *arr, unsigned *pass, unsigned *fail, unsigned *skip, unsigned *marginal)
{
	size_t i;
	json_t *e;
	*pass = *fail = *skip = *marginal = 0;
	json_array_foreach(arr, i, e) {
		const char *v = json_string_value(json_object_get(e, "verdict"));
		if (strcmp(v, "PASS") == 0)
			(*pass)++;
		else if (strcmp(v, "FAIL") == 0)
			(*fail)++;
		else if (strcmp(v, "MARGINAL") == 0)
			(*marginal)++;
		else
			(*skip)++;
	}
}

bool rp_cert_certified(const json_t *arr, unsigned only, bool interrupted, unsigned *judged, unsigned *asked)
{
	size_t i;
	json_t *e;
	unsigned need = only ? only : 1u << 1, got = 0;
	bool all_pass = true;
	*judged = 0;
	*asked = (unsigned)json_array_size(arr);
	json_array_foreach(arr, i, e) {
		const char *v = json_string_value(json_object_get(e, "verdict"));
		unsigned id = (unsigned)json_integer_value(json_object_get(e, "id"));
		if (strcmp(v, "SKIP") == 0)
			continue;
		(*judged)++;
		got |= 1u << id;
		all_pass = all_pass && strcmp(v, "PASS") == 0;
	}
	return !interrupted && all_pass && (got & need) == need;
}
