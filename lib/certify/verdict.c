/* A test's criteria, cause, skip reason and plots as it fills them. */
#include <stdarg.h>
#include <string.h>

#include "cert_internal.h"

const char *rp_cert_verdict_name(enum rp_cert_verdict v)
{
	return v == RP_CERT_PASS ? "PASS" : v == RP_CERT_FAIL ? "FAIL" : v == RP_CERT_MARGINAL ? "MARGINAL" : "SKIP";
}

void rp_cert_crit(struct rp_cert_t *t, const char *name, const char *want, json_t *got, bool pass)
{
	json_array_append_new(t->criteria, json_pack("{s:s, s:s, s:o, s:b}", "name", name, "want", want, "got",
						     got ? got : json_null(), "pass", pass));
	if (!pass)
		t->failed = true;
}

/* The first cause found stays: it is the one the criteria met first. */
void rp_cert_fail(struct rp_cert_t *t, const char *code, const char *fmt, ...)
{
	t->failed = true;
	if (t->cause_code[0])
		return;
	snprintf(t->cause_code, sizeof(t->cause_code), "%s", code);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t->cause, sizeof(t->cause), fmt, ap);
	va_end(ap);
}

void rp_cert_skip(struct rp_cert_t *t, const char *fmt, ...)
{
	t->skipped = true;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t->skip, sizeof(t->skip), fmt, ap);
	va_end(ap);
}

json_t *rp_cert_plot(struct rp_cert_t *t, const char *title, const char *x, const char *y, const char *kind)
{
	json_t *p = json_pack("{s:s, s:s, s:s, s:s, s:[]}", "title", title, "x", x, "y", y, "kind", kind, "series");
	json_array_append_new(t->plots, p);
	return p;
}

json_t *rp_cert_series(json_t *plot, const char *name)
{
	json_t *s = json_pack("{s:s, s:[]}", "name", name, "points");
	json_array_append_new(json_object_get(plot, "series"), s);
	return s;
}

void rp_cert_point(json_t *series, double x, double y)
{
	json_array_append_new(json_object_get(series, "points"), json_pack("[f, f]", x, y));
}

/* Causes and the tests meant to catch them. */
static const struct {
	const char *code;
	unsigned owners;
} owners[] = {
	{"pfc-off", 1u << 1},      {"pfc-on-lossy", 1u << 2}, {"ecn-after-pfc", 1u << 3}, {"no-ecn", 1u << 3},
	{"no-cnp", 1u << 3},       {"no-dcqcn", 1u << 3},     {"dscp-map", 1u << 4},      {"headroom", 1u << 5},
	{"no-watchdog", 1u << 6},  {"wd-not-restored", 1u << 6}, {"oversubscribed", (1u << 7) | (1u << 9)}, {"unfair", 1u << 7},
	{"latency", 1u << 8},      {"ecmp-imbalance", 1u << 9},
};

unsigned rp_cert_cause_owners(const char *code)
{
	for (size_t i = 0; i < sizeof(owners) / sizeof(owners[0]); i++)
		if (strcmp(owners[i].code, code) == 0)
			return owners[i].owners;
	return 0;
}

void rp_cert_fmt_bytes(uint64_t b, char *buf, size_t len)
{
	if (b >= (1u << 20) && b % (1u << 20) == 0)
		snprintf(buf, len, "%llu MiB", (unsigned long long)(b >> 20));
	else if (b >= 10240)
		snprintf(buf, len, "%.2f KiB", (double)b / 1024.0);
	else
		snprintf(buf, len, "%llu B", (unsigned long long)b);
}
