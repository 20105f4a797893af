/* `host_template:` -- many hosts from one pattern (docs/profiles.md, "Host
 * templates"). The template's values are copied once per host with their
 * {placeholders} filled in, and the copies are validated exactly as a `hosts:`
 * list is (one host parser): a bad address names the template's line and the
 * host (host_template[5].ipv4). Pure: the launch (how many ranks, on which
 * nodes) comes in rp_profile_opts, so every rank expands the same hosts. */
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define TEXT_MAX 512
#define VALUE_MAX 1000000000000ll /* |values| stay far from overflow in + and -; * checks */

static const char *const template_keys[] = {"count", "name",  "mac",  "ipv4",   "ipv6",    "gateway", "gateway_mac",
					    "port",  "pci",   "speed", "impair", "respond", "rank",    "node",
					    "nics",  NULL};

/* What the placeholders of host i can name. */
struct tvars {
	int64_t i, count;
	const struct rp_profile_opts *o; /* the launch: o->nranks, o->ranks */
	int64_t rank;                    /* the rank that runs host i; -1: not known before binding (node:) */
	const char *no_rank;             /* why rank is not known */
};

struct expr {
	const char *p, *end;
	const struct tvars *v;
	char *why;
	size_t whylen;
	bool failed;
};

__attribute__((format(printf, 2, 3))) static int64_t efail(struct expr *e, const char *fmt, ...)
{
	if (!e->failed) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(e->why, e->whylen, fmt, ap);
		va_end(ap);
	}
	e->failed = true;
	return 0;
}

static void skip_space(struct expr *e)
{
	while (e->p < e->end && *e->p == ' ')
		e->p++;
}

/* The node of rank r and its place among the launch's nodes (by first rank). */
static const char *rank_node(const struct rp_profile_opts *o, int64_t r, char *buf, size_t len)
{
	if (o->ranks)
		return o->ranks[r].node;
	snprintf(buf, len, "node%" PRId64, r);
	return buf;
}

static int64_t node_index(const struct rp_profile_opts *o, int64_t r)
{
	char a[32], b[32];
	const char *mine = rank_node(o, r, a, sizeof(a));
	int64_t idx = 0;
	for (int64_t q = 0; q < r; q++) {
		const char *nq = rank_node(o, q, b, sizeof(b));
		bool first = true; /* q is the first rank of its node */
		for (int64_t k = 0; k < q && first; k++) {
			char c[32];
			first = strcmp(rank_node(o, k, c, sizeof(c)), nq) != 0;
		}
		if (!strcmp(nq, mine))
			return idx;
		idx += first;
	}
	return idx;
}

/* A launch placeholder needs the launch and the host's rank in it. */
static bool launch_known(struct expr *e, const char *name)
{
	const struct tvars *v = e->v;
	if (!v->o || v->o->nranks == 0)
		return efail(e, "{%s} needs the launch: it is known under mpirun/srun (roceprobe plan: give --ranks N)",
			     name), false;
	if (v->rank < 0)
		return efail(e, "{%s} is not known here: %s", name, v->no_rank), false;
	if ((size_t)v->rank >= v->o->nranks)
		return efail(e, "{%s}: host %" PRId64 " runs on rank %" PRId64 ", but %zu rank%s run", name, v->i, v->rank,
			     v->o->nranks, v->o->nranks == 1 ? "" : "s"), false;
	return true;
}

static int64_t variable(struct expr *e, const char *name)
{
	const struct tvars *v = e->v;
	if (!strcmp(name, "i"))
		return v->i;
	if (!strcmp(name, "count"))
		return v->count;
	if (!strcmp(name, "ranks")) {
		if (!v->o || v->o->nranks == 0)
			return efail(e, "{ranks} needs the launch: it is known under mpirun/srun (roceprobe plan: give --ranks N)");
		return (int64_t)v->o->nranks;
	}
	if (!strcmp(name, "rank") || !strcmp(name, "local_rank") || !strcmp(name, "node_index")) {
		if (!launch_known(e, name))
			return 0;
		if (name[0] == 'r')
			return v->rank;
		if (name[0] == 'l')
			return v->o->ranks ? v->o->ranks[v->rank].local_rank : 0;
		return node_index(v->o, v->rank);
	}
	if (!strcmp(name, "node"))
		return efail(e, "{node} is the node's hostname, a text: write it alone, as {node}");
	return efail(e, "unknown placeholder '%s'; known: i, count, ranks, rank, local_rank, node, node_index", name);
}

static int64_t sum(struct expr *e);

static int64_t atom(struct expr *e)
{
	skip_space(e);
	if (e->p >= e->end)
		return efail(e, "expected a number, a name or '(' at the end");
	if (*e->p == '(') {
		e->p++;
		int64_t x = sum(e);
		skip_space(e);
		if (e->p >= e->end || *e->p != ')')
			return efail(e, "expected ')'");
		e->p++;
		return x;
	}
	if (isdigit((unsigned char)*e->p)) {
		int64_t x = 0;
		while (e->p < e->end && isdigit((unsigned char)*e->p) && x < VALUE_MAX)
			x = x * 10 + (*e->p++ - '0');
		return x >= VALUE_MAX ? efail(e, "number too large") : x;
	}
	if (isalpha((unsigned char)*e->p) || *e->p == '_') {
		char name[24];
		size_t n = 0;
		while (e->p < e->end && (isalnum((unsigned char)*e->p) || *e->p == '_')) {
			if (n + 1 < sizeof(name))
				name[n++] = *e->p;
			e->p++;
		}
		name[n] = '\0';
		return variable(e, name);
	}
	return efail(e, "expected a number, a name or '(', got '%c'", *e->p);
}

static int64_t checked(struct expr *e, int64_t x)
{
	return x > VALUE_MAX || x < -VALUE_MAX ? efail(e, "value out of range") : x;
}

static int64_t product(struct expr *e)
{
	int64_t x = atom(e);
	for (;;) {
		skip_space(e);
		if (e->failed || e->p >= e->end || !strchr("*/%", *e->p))
			return x;
		char op = *e->p++;
		int64_t y = atom(e);
		if ((op == '/' || op == '%') && y == 0)
			return efail(e, "division by zero");
		int64_t r;
		if (op == '*' && __builtin_mul_overflow(x, y, &r))
			return efail(e, "value out of range");
		x = checked(e, op == '*' ? r : op == '/' ? x / y : x % y);
	}
}

static int64_t sum(struct expr *e)
{
	int64_t x = product(e);
	for (;;) {
		skip_space(e);
		if (e->failed || e->p >= e->end || (*e->p != '+' && *e->p != '-'))
			return x;
		char op = *e->p++;
		int64_t y = product(e);
		x = checked(e, op == '+' ? x + y : x - y);
	}
}

/* "[0][WIDTH][d|x|X]" after the ':' of {EXPR:FMT}, into a printf format. */
static int format_spec(const char *s, size_t n, char *fmt, size_t len)
{
	size_t k = 0;
	bool zero = k < n && s[k] == '0';
	k += zero;
	unsigned width = 0;
	while (k < n && isdigit((unsigned char)s[k]) && width < 100)
		width = width * 10 + (unsigned)(s[k++] - '0');
	char conv = 'd';
	if (k < n && (s[k] == 'd' || s[k] == 'x' || s[k] == 'X'))
		conv = s[k++];
	if (k != n || width > 32)
		return -1;
	snprintf(fmt, len, "%%%s%u%s", zero ? "0" : "", width, conv == 'd' ? PRId64 : conv == 'x' ? PRIx64 : PRIX64);
	return 0;
}

/* One {...} (without the braces) appended to out. */
static int placeholder(const struct tvars *v, const char *s, size_t n, char *out, size_t *used, size_t cap, char *why,
		       size_t whylen)
{
	const char *colon = memchr(s, ':', n);
	size_t en = colon ? (size_t)(colon - s) : n;
	char text[TEXT_MAX], fmt[16] = "%" PRId64;
	struct expr e = {.p = s, .end = s + en, .v = v, .why = why, .whylen = whylen};
	size_t a = 0, b = en;
	while (a < b && s[a] == ' ')
		a++;
	while (b > a && s[b - 1] == ' ')
		b--;
	if (b - a == 4 && !memcmp(s + a, "node", 4)) { /* the one text placeholder */
		if (colon)
			return snprintf(why, whylen, "{node} takes no format"), -1;
		if (!launch_known(&e, "node"))
			return -1;
		char nb[32];
		snprintf(text, sizeof(text), "%s", rank_node(v->o, v->rank, nb, sizeof(nb)));
	} else {
		if (colon && format_spec(colon + 1, n - en - 1, fmt, sizeof(fmt)))
			return snprintf(why, whylen, "bad format '%.*s': expected [0][WIDTH][d|x|X], like 02 or 02x",
					(int)(n - en - 1), colon + 1), -1;
		int64_t x = sum(&e);
		skip_space(&e);
		if (!e.failed && e.p < e.end)
			efail(&e, "unexpected '%c'", *e.p);
		if (!e.failed && x < 0)
			efail(&e, "{%.*s} is %" PRId64 " for host %" PRId64 ": placeholders must not be negative", (int)n, s, x,
			      v->i);
		if (e.failed)
			return -1;
		snprintf(text, sizeof(text), fmt, x);
	}
	size_t tl = strlen(text);
	if (*used + tl >= cap)
		return snprintf(why, whylen, "longer than %zu characters once filled in", cap - 1), -1;
	memcpy(out + *used, text, tl + 1);
	*used += tl;
	return 0;
}

/* in with every {EXPR[:FMT]} filled in; {{ and }} are literal braces. */
static int fill(const struct tvars *v, const char *in, char *out, size_t cap, char *why, size_t whylen)
{
	size_t used = 0;
	out[0] = '\0';
	for (const char *p = in; *p;) {
		if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
			if (used + 1 >= cap)
				return snprintf(why, whylen, "longer than %zu characters once filled in", cap - 1), -1;
			out[used++] = *p;
			out[used] = '\0';
			p += 2;
			continue;
		}
		if (*p == '}')
			return snprintf(why, whylen, "a '}' without its '{' (write }} for a brace)"), -1;
		if (*p == '{') {
			const char *close = strchr(p, '}');
			if (!close)
				return snprintf(why, whylen, "a '{' without its '}' (write {{ for a brace)"), -1;
			if (placeholder(v, p + 1, (size_t)(close - p - 1), out, &used, cap, why, whylen))
				return -1;
			p = close + 1;
			continue;
		}
		if (used + 1 >= cap)
			return snprintf(why, whylen, "longer than %zu characters once filled in", cap - 1), -1;
		out[used++] = *p++;
		out[used] = '\0';
	}
	return 0;
}

/* A copy of the template value n for host v->i, every scalar filled in. */
static struct rp_node *copy(struct rp_vctx *c, const struct rp_node *n, const char *key, const struct tvars *v)
{
	char out[TEXT_MAX], why[256], k[RP_PATH_MAX];
	if (n->type == RP_NODE_SCALAR) {
		if (fill(v, n->scalar, out, sizeof(out), why, sizeof(why))) {
			rp_verr(c, &n->pos, key, "'%s': %s", n->scalar, why);
			return NULL;
		}
		struct rp_node *s = rp_node_new_scalar(out, n->plain, n->pos);
		if (!s)
			rp_verr(c, &n->pos, key, "out of memory");
		return s;
	}
	struct rp_node *m = rp_node_new(n->type, n->pos);
	for (size_t i = 0; m && i < n->n; i++) {
		struct rp_node *item;
		if (n->type == RP_NODE_MAP) {
			rp_path_key(k, key, n->kv[i].key);
			item = copy(c, n->kv[i].val, k, v);
			if (item && rp_node_map_add(m, n->kv[i].key, n->kv[i].key_pos, item) == 0)
				continue;
		} else {
			rp_path_index(k, key, i);
			item = copy(c, n->items[i], k, v);
			if (item && rp_node_seq_add(m, item) == 0)
				continue;
		}
		rp_node_free(item);
		rp_node_free(m);
		return NULL;
	}
	if (!m)
		rp_verr(c, &n->pos, key, "out of memory");
	return m;
}

static int template_count(struct rp_vctx *c, const struct rp_node *t, const char *path, uint64_t *count)
{
	char key[RP_PATH_MAX];
	const struct rp_node *n = rp_node_get(t, "count");
	const struct rp_profile_opts *o = c->opts;
	rp_path_key(key, path, "count");
	if (!n || (n->type == RP_NODE_SCALAR && !strcmp(n->scalar, "ranks"))) {
		if (!o || o->nranks == 0)
			return rp_verr(c, n ? &n->pos : &t->pos, key,
				       "%s: one host per rank, but the number of ranks is not known here: it is the "
				       "launcher's size under mpirun/srun (roceprobe plan: give --ranks N), or give a number",
				       n ? "ranks" : "missing, so ranks");
		if (o->nranks > RP_MAX_HOSTS)
			return rp_verr(c, n ? &n->pos : &t->pos, key, "ranks: %zu ranks run, at most %d hosts", o->nranks,
				       RP_MAX_HOSTS);
		*count = o->nranks;
		return 0;
	}
	if (rp_vuint(c, n, key, 1, RP_MAX_HOSTS, count))
		return -1;
	/* Host i on rank i: the launch must have exactly that many ranks. */
	if (o && o->nranks && !rp_node_get(t, "rank") && !rp_node_get(t, "node") && *count != o->nranks)
		return rp_verr(c, &n->pos, key,
			       "%" PRIu64 " hosts, host i on rank i, but %zu rank%s run: start %" PRIu64
			       " (mpirun -np %" PRIu64 "), write count: ranks, or place the hosts with rank: or node:",
			       *count, o->nranks, o->nranks == 1 ? "" : "s", *count, *count);
	return 0;
}

/* The rank of host v->i: rank: (filled without launch placeholders), -1 with node:, else i. */
static int template_rank(struct rp_vctx *c, const struct rp_node *t, const char *path, struct tvars *v)
{
	const struct rp_node *r = rp_node_get(t, "rank");
	char key[RP_PATH_MAX], out[TEXT_MAX], why[256];
	v->rank = rp_node_get(t, "node") ? -1 : v->i;
	v->no_rank = "the host's rank follows from node: when the hosts are bound";
	if (!r)
		return 0;
	rp_path_key(key, path, "rank");
	if (rp_vtype(c, r, key, RP_NODE_SCALAR, "a rank like 3 or \"{i}\""))
		return -1;
	v->rank = -1;
	v->no_rank = "rank: itself may use i and count only";
	if (fill(v, r->scalar, out, sizeof(out), why, sizeof(why)))
		return rp_verr(c, &r->pos, key, "'%s': %s", r->scalar, why);
	char *end;
	long long x = strtoll(out, &end, 10);
	if (!out[0] || *end || x < 0 || x >= RP_MAX_RANKS)
		return rp_verr(c, &r->pos, key, "'%s' is '%s': expected a rank 0..%d", r->scalar, out, RP_MAX_RANKS - 1);
	v->rank = x;
	return 0;
}

static struct rp_node *one_host(struct rp_vctx *c, const struct rp_node *t, const char *path, struct tvars *v)
{
	static const struct {
		const char *key, *value;
	} dflt[] = {{"name", "h{i}"}, {"mac", "auto"}};
	char key[RP_PATH_MAX];
	if (template_rank(c, t, path, v))
		return NULL;
	struct rp_node *m = rp_node_new(RP_NODE_MAP, t->pos);
	for (size_t k = 0; m && k < t->n; k++) {
		if (!strcmp(t->kv[k].key, "count"))
			continue;
		rp_path_key(key, path, t->kv[k].key);
		struct rp_node *val = copy(c, t->kv[k].val, key, v);
		if (!val || rp_node_map_add(m, t->kv[k].key, t->kv[k].key_pos, val)) {
			rp_node_free(val);
			rp_node_free(m);
			return NULL;
		}
	}
	for (size_t k = 0; m && k < sizeof(dflt) / sizeof(dflt[0]); k++) {
		if (rp_node_get(m, dflt[k].key))
			continue;
		struct tvars none = *v;
		char out[TEXT_MAX], why[64];
		fill(&none, dflt[k].value, out, sizeof(out), why, sizeof(why));
		struct rp_node *val = rp_node_new_scalar(out, true, t->pos);
		if (!val || rp_node_map_add(m, dflt[k].key, t->pos, val)) {
			rp_node_free(val);
			rp_node_free(m);
			return NULL;
		}
	}
	if (!m)
		rp_verr(c, &t->pos, path, "out of memory");
	return m;
}

int rp_host_template_parse(struct rp_vctx *c, const struct rp_node *t, const char *path)
{
	uint64_t count;
	if (rp_vtype(c, t, path, RP_NODE_MAP, "a host template: count, name, port, mac, ipv4, ... with {placeholders}") ||
	    rp_vkeys(c, t, path, template_keys) || template_count(c, t, path, &count))
		return -1;
	struct rp_node *seq = rp_node_new(RP_NODE_SEQ, t->pos);
	int rc = seq ? 0 : rp_verr(c, &t->pos, path, "out of memory");
	for (uint64_t i = 0; rc == 0 && i < count; i++) {
		char key[RP_PATH_MAX];
		struct tvars v = {.i = (int64_t)i, .count = (int64_t)count, .o = c->opts};
		rp_path_index(key, path, i);
		struct rp_node *h = one_host(c, t, key, &v);
		if (!h || rp_node_seq_add(seq, h)) {
			rp_node_free(h);
			rc = -1;
		}
	}
	if (rc == 0)
		rc = rp_hosts_parse(c, seq, path);
	rp_node_free(seq);
	return rc;
}
