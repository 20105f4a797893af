/* A reproduction's symptoms against its incident's (fidelity.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fidelity.h"
#include "profile/units.h"

static const char *const names[RP_SYM_N] = {"goodput", "ce_fraction", "cnp_rate", "loss", "retransmissions",
					     "pfc_frames", "paused_timeline", "victims", "pause_order"};
static const double defaults[RP_SYM_N] = {0.10, 0.25, 0.25, 0.25, 0.25, 0.25, 0.20, 0.34, 0.34};
static const char *const kinds[RP_SYM_N] = {"number", "number", "number", "number", "number",
					    "number", "series", "set",    "set"};

const char *rp_replay_symptom_name(unsigned s)
{
	return s < RP_SYM_N ? names[s] : "?";
}

void rp_replay_tol_default(struct rp_replay_tol *t)
{
	memcpy(t->t, defaults, sizeof(t->t));
}

int rp_replay_tol_parse(struct rp_replay_tol *t, const char *kv, char *err, size_t errlen)
{
	const char *eq = strchr(kv, '=');
	double v;
	if (!eq) {
		snprintf(err, errlen, "--tolerance: expected SYMPTOM=X (goodput=0.1), got '%s'", kv);
		return -1;
	}
	for (unsigned s = 0; s < RP_SYM_N; s++)
		if (strlen(names[s]) == (size_t)(eq - kv) && strncmp(kv, names[s], (size_t)(eq - kv)) == 0) {
			if (rp_parse_share(eq + 1, 1, 0.0, 1e6, &v)) {
				snprintf(err, errlen, "--tolerance %s: expected a distance of 0 or more (0.1 or 10%%), got '%s'",
					 names[s], eq + 1);
				return -1;
			}
			t->t[s] = v;
			return 0;
		}
	snprintf(err, errlen, "--tolerance: no symptom '%.*s' (goodput, ce_fraction, cnp_rate, loss, retransmissions, "
		 "pfc_frames, paused_timeline, victims, pause_order)", (int)(eq - kv), kv);
	return -1;
}

int rp_replay_incident_check(const json_t *doc, char *err, size_t errlen)
{
	static const char *const arrays[] = {"ports", "pause_order", "victims", "flows"};
	const char *schema = json_string_value(json_object_get(doc, "schema"));
	if (!json_is_object(doc) || !schema || strcmp(schema, "roceprobe.incident/1") != 0) {
		snprintf(err, errlen, "not a \"roceprobe.incident/1\" document (what 'replay infer' writes)");
		return -1;
	}
	for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++)
		if (!json_is_array(json_object_get(doc, arrays[i]))) {
			snprintf(err, errlen, "roceprobe.incident/1 without its \"%s\" array", arrays[i]);
			return -1;
		}
	if (!json_is_object(json_object_get(doc, "totals")) || !json_is_object(json_object_get(doc, "evidence")) ||
	    json_integer_value(json_object_get(doc, "bin_ns")) <= 0) {
		snprintf(err, errlen, "roceprobe.incident/1 without \"totals\", \"evidence\" or a \"bin_ns\" above 0");
		return -1;
	}
	return 0;
}

const char **rp_replay_incident_nodes(const json_t *inc, size_t *n)
{
	const json_t *caps = json_object_get(json_object_get(inc, "evidence"), "captures");
	const char **v = calloc(json_array_size(caps) + 1, sizeof(*v));
	size_t i;
	json_t *c;
	*n = 0;
	if (!v)
		return NULL;
	json_array_foreach(caps, i, c) {
		const char *s = json_string_value(json_object_get(c, "node"));
		if (s)
			v[(*n)++] = s;
	}
	return v;
}

static double num(const json_t *o, const char *k)
{
	return json_number_value(json_object_get(o, k));
}

static double rel_err(double o, double r)
{
	if (o == 0)
		return r == 0 ? 0.0 : 1.0;
	return fabs(r - o) / fabs(o);
}

/* A flow's key: "src -> dst prio P" and, for the k-th flow of those (k >= 2,
 * in flows[] order), " #k". Keyed and sorted once per side: an incident of
 * 4096 flows is matched in n log n, not n^2 JSON walks. */
#define KEY_MAX 200
struct fkey {
	char key[KEY_MAX];
	size_t idx;
};

static int by_key_idx(const void *a, const void *b)
{
	const struct fkey *x = a, *y = b;
	int c = strcmp(x->key, y->key);
	return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

static struct fkey *flow_keys(const json_t *flows, size_t *n)
{
	*n = json_array_size(flows);
	struct fkey *k = calloc(*n + 1, sizeof(*k));
	for (size_t i = 0; k && i < *n; i++) {
		const json_t *f = json_array_get(flows, i);
		const char *s = json_string_value(json_object_get(f, "src")), *d = json_string_value(json_object_get(f, "dst"));
		snprintf(k[i].key, KEY_MAX - 12, "%s -> %s prio %d", s ? s : "?", d ? d : "?",
			 (int)json_integer_value(json_object_get(f, "prio")));
		k[i].idx = i;
	}
	if (!k)
		return NULL;
	qsort(k, *n, sizeof(*k), by_key_idx);
	for (size_t i = 1, run = 1; i < *n; i++) { /* the same base key: #2, #3, ... in flows[] order */
		size_t len = strlen(k[i - run].key);
		bool same = strncmp(k[i].key, k[i - run].key, len) == 0 && k[i].key[len] == '\0';
		run = same ? run + 1 : 1;
		if (same)
			snprintf(k[i].key + len, KEY_MAX - len, " #%zu", run);
	}
	qsort(k, *n, sizeof(*k), by_key_idx);
	return k;
}

static const struct fkey *find_key(const struct fkey *k, size_t n, const char *key)
{
	size_t lo = 0, hi = n;
	while (lo < hi) { /* the first entry >= key: keys are unique */
		size_t mid = (lo + hi) / 2;
		if (strcmp(k[mid].key, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && !strcmp(k[lo].key, key) ? &k[lo] : NULL;
}

/* Goodput per flow: the largest relative error; a flow of one side only is 1.
 * Listed in the original's flows[] order, then the reproduction's own. */
static double goodput(const json_t *o, const json_t *r, json_t *detail, double *so, double *sr)
{
	const json_t *fl[2] = {json_object_get(o, "flows"), json_object_get(r, "flows")};
	size_t n[2];
	struct fkey *k[2] = {flow_keys(fl[0], &n[0]), flow_keys(fl[1], &n[1])};
	double worst = 0;
	*so = *sr = 0;
	for (int side = 0; side < 2 && k[0] && k[1]; side++) {
		/* walk in flows[] order: the keys' index by flow */
		size_t *order = calloc(n[side] + 1, sizeof(size_t));
		for (size_t i = 0; order && i < n[side]; i++)
			order[k[side][i].idx] = i;
		for (size_t i = 0; order && i < n[side]; i++) {
			const struct fkey *mine = &k[side][order[i]];
			const struct fkey *other = find_key(k[!side], n[!side], mine->key);
			if (side && other)
				continue; /* counted from the original's side */
			double a = num(json_array_get(fl[side], mine->idx), "goodput_gbps");
			double b = other ? num(json_array_get(fl[!side], other->idx), "goodput_gbps") : 0.0;
			double vo = side ? 0.0 : a, vr = side ? a : b;
			double d = other ? rel_err(vo, vr) : 1.0;
			*so += vo;
			*sr += vr;
			worst = d > worst ? d : worst;
			json_array_append_new(detail, json_pack("{s:s, s:f, s:f, s:f}", "flow", mine->key, "original", vo,
								"reproduction", vr, "distance", d));
		}
		free(order);
	}
	free(k[0]);
	free(k[1]);
	return worst;
}

static double pfc_frames(const json_t *inc)
{
	double s = 0;
	size_t i, j;
	json_t *p, *q;
	json_array_foreach(json_object_get(inc, "ports"), i, p)
		json_array_foreach(json_object_get(p, "prio"), j, q)
			s += num(q, "pfc_rx");
	return s;
}

/* The (node, prio) entry of ports[], NULL when that point was never paused there. */
static const json_t *point(const json_t *inc, const char *node, json_int_t prio)
{
	size_t i, j;
	json_t *p, *q;
	json_array_foreach(json_object_get(inc, "ports"), i, p) {
		const char *n = json_string_value(json_object_get(p, "node"));
		if (n && !strcmp(n, node))
			json_array_foreach(json_object_get(p, "prio"), j, q)
				if (json_integer_value(json_object_get(q, "prio")) == prio)
					return q;
	}
	return NULL;
}

/* The first data frame: the earliest flows[].start_ns (ns since its evidence's first frame). */
static double first_data(const json_t *inc)
{
	double t = -1;
	size_t i;
	json_t *f;
	json_array_foreach(json_object_get(inc, "flows"), i, f)
		if (t < 0 || num(f, "start_ns") < t)
			t = num(f, "start_ns");
	return t < 0 ? 0 : t;
}

/* Bins the reproduction's series is moved by so that both first data frames
 * fall in the same bin: what came before them in either evidence (other
 * traffic, a capture started early) does not shift one timeline against the other. */
static long align_bins(const json_t *o, const json_t *r)
{
	double bin = num(o, "bin_ns");
	return bin > 0 ? lround((first_data(o) - first_data(r)) / bin) : 0;
}

/* A series' bin k, 0 outside it. */
static double bin_at(const json_t *bins, long k)
{
	return k < 0 ? 0.0 : json_number_value(json_array_get(bins, (size_t)k));
}

/* Paused fraction per bin, per point of either side, the reproduction's
 * aligned to the original's (align_bins): the normalised L1 of every point
 * together; per point its own in detail, with both series as measured. */
static double timeline(const json_t *o, const json_t *r, json_t *detail, double *po, double *pr)
{
	double num_all = 0, den_all = 0, bin = num(o, "bin_ns");
	long shift = align_bins(o, r);
	*po = *pr = 0;
	for (int side = 0; side < 2; side++) {
		size_t i, j;
		json_t *p, *q;
		json_array_foreach(json_object_get(side ? r : o, "ports"), i, p) {
			const char *node = json_string_value(json_object_get(p, "node"));
			json_array_foreach(json_object_get(p, "prio"), j, q) {
				json_int_t prio = json_integer_value(json_object_get(q, "prio"));
				if (!node || (side && point(o, node, prio)))
					continue; /* taken from the original's side */
				const json_t *a = side ? point(o, node, prio) : q, *b = side ? q : point(r, node, prio);
				const json_t *ba = json_object_get(a, "paused_fraction_bins"),
					     *bb = json_object_get(b, "paused_fraction_bins");
				long na = (long)json_array_size(ba), nb = (long)json_array_size(bb);
				long k0 = shift < 0 ? shift : 0, k1 = na > nb + shift ? na : nb + shift;
				double sa = 0, sb = 0, l1 = 0;
				for (long k = k0; k < k1; k++) { /* original bin k, reproduction bin k - shift */
					double x = bin_at(ba, k), y = bin_at(bb, k - shift);
					sa += x, sb += y, l1 += fabs(x - y);
				}
				num_all += l1, den_all += sa + sb;
				*po += sa * bin, *pr += sb * bin;
				json_t *ja = ba ? json_incref((json_t *)ba) : json_array();
				json_t *jb = bb ? json_incref((json_t *)bb) : json_array();
				json_array_append_new(detail, json_pack("{s:s, s:I, s:f, s:f, s:f, s:o, s:o}", "node", node, "prio",
									prio, "original_paused_ns", sa * bin,
									"reproduction_paused_ns", sb * bin, "distance",
									sa + sb > 0 ? l1 / (sa + sb) : 0.0, "original_bins",
									ja, "reproduction_bins", jb));
			}
		}
	}
	return den_all > 0 ? num_all / den_all : 0.0;
}

/* A string set as a JSON array (no duplicates). */
static void set_add(json_t *set, const char *s)
{
	size_t i;
	json_t *v;
	json_array_foreach(set, i, v)
		if (!strcmp(json_string_value(v), s))
			return;
	json_array_append_new(set, json_string(s));
}

static bool set_has(const json_t *set, const char *s)
{
	size_t i;
	json_t *v;
	json_array_foreach(set, i, v)
		if (!strcmp(json_string_value(v), s))
			return true;
	return false;
}

/* 1 - Jaccard; both empty: 0. */
static double set_distance(const json_t *a, const json_t *b)
{
	size_t both = 0, i;
	json_t *v;
	json_array_foreach(a, i, v)
		both += set_has(b, json_string_value(v));
	size_t uni = json_array_size(a) + json_array_size(b) - both;
	return uni ? 1.0 - (double)both / (double)uni : 0.0;
}

static json_t *victims_set(const json_t *inc)
{
	json_t *s = json_array(), *v;
	size_t i;
	char k[256];
	json_array_foreach(json_object_get(inc, "victims"), i, v) {
		const char *src = json_string_value(json_object_get(v, "src")), *dst = json_string_value(json_object_get(v, "dst"));
		snprintf(k, sizeof(k), "%s -> %s prio %d", src ? src : "?", dst ? dst : "?",
			 (int)json_integer_value(json_object_get(v, "prio")));
		set_add(s, k);
	}
	return s;
}

/* Every point paused ("h1 prio 3"), and "A < B" for each pair whose first
 * pauses are more than a bin apart: who was paused before whom. */
static json_t *order_set(const json_t *inc)
{
	const json_t *po = json_object_get(inc, "pause_order");
	double bin = num(inc, "bin_ns");
	json_t *s = json_array();
	char a[128], b[128], k[300];
	for (size_t i = 0; i < json_array_size(po); i++) {
		const json_t *x = json_array_get(po, i);
		snprintf(a, sizeof(a), "%s prio %d", json_string_value(json_object_get(x, "host")) ?: "?",
			 (int)json_integer_value(json_object_get(x, "prio")));
		set_add(s, a);
		for (size_t j = 0; j < json_array_size(po); j++) {
			const json_t *y = json_array_get(po, j);
			if (num(y, "first_pause_ns") - num(x, "first_pause_ns") <= bin)
				continue;
			snprintf(b, sizeof(b), "%s prio %d", json_string_value(json_object_get(y, "host")) ?: "?",
				 (int)json_integer_value(json_object_get(y, "prio")));
			snprintf(k, sizeof(k), "%s < %s", a, b);
			set_add(s, k);
		}
	}
	return s;
}

static const char *verdict_of(double d, double tol)
{
	return d <= tol ? "REPRODUCED" : d <= 2 * tol ? "PARTLY" : "NOT";
}

static json_t *symptom(unsigned s, double o, double r, double d, bool shown, const struct rp_replay_tol *tol)
{
	return json_pack("{s:s, s:s, s:f, s:f, s:f, s:f, s:s, s:b}", "name", names[s], "kind", kinds[s], "original", o,
			 "reproduction", r, "distance", d, "tolerance", tol->t[s], "verdict", verdict_of(d, tol->t[s]),
			 "in_incident", shown);
}

json_t *rp_replay_fidelity(const json_t *o, const json_t *r, const struct rp_replay_tol *tol)
{
	json_t *syms = json_array(), *detail = json_array(), *x;
	double so, sr, d;
	d = goodput(o, r, detail, &so, &sr);
	json_array_append_new(syms, x = symptom(RP_SYM_GOODPUT, so, sr, d, so > 0, tol));
	json_object_set_new(x, "flows", detail);
	static const char *const totals[] = {[RP_SYM_CE] = "ce_fraction", [RP_SYM_CNP] = "cnp_per_s",
					     [RP_SYM_LOSS] = "lost", [RP_SYM_RETRANS] = "retransmissions"};
	const json_t *to = json_object_get(o, "totals"), *tr = json_object_get(r, "totals");
	for (unsigned s = RP_SYM_CE; s <= RP_SYM_RETRANS; s++) {
		double a = num(to, totals[s]), b = num(tr, totals[s]);
		json_array_append_new(syms, symptom(s, a, b, rel_err(a, b), a > 0, tol));
	}
	so = pfc_frames(o), sr = pfc_frames(r);
	json_array_append_new(syms, symptom(RP_SYM_PFC, so, sr, rel_err(so, sr), so > 0, tol));
	detail = json_array();
	d = timeline(o, r, detail, &so, &sr);
	json_array_append_new(syms, x = symptom(RP_SYM_PAUSED, so, sr, d, so > 0, tol));
	json_object_set_new(x, "points", detail);
	json_object_set_new(x, "aligned_bins", json_integer(align_bins(o, r)));
	for (unsigned s = RP_SYM_VICTIMS; s <= RP_SYM_ORDER; s++) {
		json_t *a = s == RP_SYM_VICTIMS ? victims_set(o) : order_set(o);
		json_t *b = s == RP_SYM_VICTIMS ? victims_set(r) : order_set(r);
		json_array_append_new(syms, x = symptom(s, (double)json_array_size(a), (double)json_array_size(b),
							set_distance(a, b), json_array_size(a) > 0, tol));
		json_object_set_new(x, "original_set", a);
		json_object_set_new(x, "reproduction_set", b);
	}
	size_t i, all = 0, shown = 0, shown_not = 0;
	json_array_foreach(syms, i, x) {
		const char *v = json_string_value(json_object_get(x, "verdict"));
		bool in = json_is_true(json_object_get(x, "in_incident"));
		all += !strcmp(v, "REPRODUCED");
		shown += in;
		shown_not += in && !strcmp(v, "NOT");
	}
	const char *verdict = all == json_array_size(syms) ? "REPRODUCED" : shown && shown_not == shown ? "NOT" : "PARTLY";
	return json_pack("{s:s, s:o}", "verdict", verdict, "symptoms", syms);
}
