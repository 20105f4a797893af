/* The Prometheus text format (prom.h). */
#include "prom.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/hist.h"

void rp_prom_init(struct rp_prom *p) { *p = (struct rp_prom){.buf = NULL}; }

void rp_prom_free(struct rp_prom *p)
{
	free(p->buf);
	rp_prom_init(p);
}

char *rp_prom_take(struct rp_prom *p, size_t *len)
{
	char *b = p->oom ? NULL : p->buf;
	if (!b)
		free(p->buf);
	*len = b ? p->len : 0;
	rp_prom_init(p);
	return b;
}

static bool room(struct rp_prom *p, size_t more)
{
	if (p->oom)
		return false;
	if (p->len + more + 1 <= p->cap)
		return true;
	size_t cap = p->cap ? p->cap : 4096;
	while (cap < p->len + more + 1)
		cap *= 2;
	char *b = realloc(p->buf, cap);
	if (!b) {
		p->oom = true;
		return false;
	}
	p->buf = b;
	p->cap = cap;
	return true;
}

void rp_prom_append(struct rp_prom *p, const char *text, size_t n)
{
	if (!room(p, n))
		return;
	memcpy(p->buf + p->len, text, n);
	p->len += n;
	p->buf[p->len] = '\0';
}

__attribute__((format(printf, 2, 3))) static void put(struct rp_prom *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !room(p, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(p->buf + p->len, p->cap - p->len, fmt, ap);
	va_end(ap);
	p->len += (size_t)n;
}

static void put_escaped(struct rp_prom *p, const char *s, bool help)
{
	for (; s && *s; s++) {
		if (*s == '\\')
			put(p, "\\\\");
		else if (*s == '\n')
			put(p, "\\n");
		else if (*s == '"' && !help)
			put(p, "\\\"");
		else
			put(p, "%c", *s);
	}
}

void rp_prom_family(struct rp_prom *p, const char *name, const char *type, const char *help)
{
	put(p, "# HELP %s ", name);
	put_escaped(p, help, true);
	put(p, "\n# TYPE %s %s\n", name, type);
}

/* name{a="x",b="y"} (with an extra label, le, for histogram buckets) */
static void head(struct rp_prom *p, const char *name, const char *suffix, const struct rp_prom_label *l, size_t nl,
		 const char *le)
{
	put(p, "%s%s", name, suffix);
	if (!nl && !le)
		return;
	put(p, "{");
	for (size_t i = 0; i < nl && i < RP_PROM_MAX_LABELS; i++) {
		put(p, "%s%s=\"", i ? "," : "", l[i].name);
		put_escaped(p, l[i].value, false);
		put(p, "\"");
	}
	if (le)
		put(p, "%sle=\"%s\"", nl ? "," : "", le);
	put(p, "}");
}

void rp_prom_u64(struct rp_prom *p, const char *name, const struct rp_prom_label *l, size_t nl, uint64_t v)
{
	head(p, name, "", l, nl, NULL);
	put(p, " %" PRIu64 "\n", v);
}

void rp_prom_f64(struct rp_prom *p, const char *name, const struct rp_prom_label *l, size_t nl, double v)
{
	head(p, name, "", l, nl, NULL);
	put(p, " %.17g\n", v);
}

/* The decimal of ns / 1e9 with no rounding: "1.5e-06" would be a rounding
 * of 1535 ns; "0.000001535" is it exactly. */
static void secs(char *out, size_t n, unsigned __int128 ns)
{
	uint64_t whole = (uint64_t)(ns / 1000000000u), frac = (uint64_t)(ns % 1000000000u);
	int k = snprintf(out, n, "%" PRIu64 ".%09" PRIu64, whole, frac);
	while (k > 2 && out[k - 1] == '0' && out[k - 2] != '.') /* 0.000001535, 2.0 */
		out[--k] = '\0';
}

void rp_prom_ns(struct rp_prom *p, const char *name, const struct rp_prom_label *l, size_t nl, uint64_t ns)
{
	char s[48];
	secs(s, sizeof(s), ns);
	head(p, name, "", l, nl, NULL);
	put(p, " %s\n", s);
}

#define EDGE_FIRST_POW 8  /* 255 ns: the last exact (one value a bucket) edge */
#define EDGE_LAST_POW 34  /* 2^34 - 1 ns, about 17 s */

size_t rp_prom_hist_edges(uint64_t *edges, size_t max)
{
	size_t n = 0;
	for (unsigned k = EDGE_FIRST_POW; k <= EDGE_LAST_POW; k++) {
		if (n < max)
			edges[n] = (1ull << k) - 1; /* the top of [2^(k-1), 2^k) */
		n++;
		if (k == EDGE_LAST_POW)
			break;
		if (n < max)
			edges[n] = 3ull * (1ull << (k - 1)) - 1; /* 1.5 x 2^k - 1: the top of the 64th of [2^k, 2^(k+1))'s 128 sub-buckets */
		n++;
	}
	return n;
}

void rp_prom_hist(struct rp_prom *p, const char *name, const struct rp_prom_label *l, size_t nl,
		  const struct rp_hist *h)
{
	uint64_t edges[2 * (EDGE_LAST_POW - EDGE_FIRST_POW) + 1];
	size_t ne = rp_prom_hist_edges(edges, sizeof(edges) / sizeof(edges[0]));
	uint64_t cum = 0;
	size_t b = 0;
	char le[48];
	for (size_t e = 0; e < ne; e++) {
		/* every bucket whose top is at or below the edge (edges are bucket tops) */
		while (b < RP_HIST_BUCKETS && rp_hist_bucket_hi(b) <= edges[e])
			cum += h->b[b++];
		secs(le, sizeof(le), edges[e]);
		head(p, name, "_bucket", l, nl, le);
		put(p, " %" PRIu64 "\n", cum);
	}
	head(p, name, "_bucket", l, nl, "+Inf");
	put(p, " %" PRIu64 "\n", h->count);
	char s[48];
	secs(s, sizeof(s), (unsigned __int128)h->sums.s[1] << 64 | h->sums.s[0]);
	head(p, name, "_sum", l, nl, NULL);
	put(p, " %s\n", s);
	head(p, name, "_count", l, nl, NULL);
	put(p, " %" PRIu64 "\n", h->count);
}
