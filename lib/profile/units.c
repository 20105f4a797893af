#include "units.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A decimal number: mantissa and how many digits followed the point. */
struct decimal {
	uint64_t mant;
	unsigned frac;
};

static const char *skip_space(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* Reads digits[.digits]; returns the rest of the string or NULL. */
static const char *parse_decimal(const char *s, struct decimal *d)
{
	d->mant = 0;
	d->frac = 0;
	bool digits = false, point = false;
	for (;; s++) {
		if (isdigit((unsigned char)*s)) {
			if (__builtin_mul_overflow(d->mant, 10, &d->mant) ||
			    __builtin_add_overflow(d->mant, (uint64_t)(*s - '0'), &d->mant))
				return NULL;
			digits = true;
			if (point)
				d->frac++;
		} else if (*s == '.' && !point) {
			point = true;
		} else if (*s == '_' && digits && !point) {
			continue;
		} else {
			break;
		}
	}
	return digits && d->frac <= 12 ? s : NULL;
}

/* mant * unit / 10^frac, refused unless exact and in range. */
static int scale(const struct decimal *d, uint64_t unit, uint64_t *out)
{
	uint64_t v, div = 1;
	for (unsigned i = 0; i < d->frac; i++)
		div *= 10;
	if (__builtin_mul_overflow(d->mant, unit, &v) || v % div)
		return -1;
	*out = v / div;
	return 0;
}

struct unit {
	const char *name;
	uint64_t mult;
};

static int lookup(const struct unit *t, const char *s, uint64_t *mult)
{
	for (; t->name; t++) {
		if (strcasecmp(s, t->name) == 0) {
			*mult = t->mult;
			return 0;
		}
	}
	return -1;
}

static int parse_with(const char *s, const struct unit *units, uint64_t *out)
{
	struct decimal d;
	const char *rest = parse_decimal(skip_space(s), &d);
	uint64_t mult;
	if (!rest || lookup(units, skip_space(rest), &mult))
		return -1;
	return scale(&d, mult, out);
}

static const struct unit size_units[] = {
	{"", 1}, {"B", 1},
	{"KiB", 1ull << 10}, {"MiB", 1ull << 20}, {"GiB", 1ull << 30}, {"TiB", 1ull << 40},
	{"KB", 1000ull}, {"MB", 1000000ull}, {"GB", 1000000000ull}, {"TB", 1000000000000ull},
	{NULL, 0},
};

int rp_parse_size(const char *s, uint64_t *bytes)
{
	return parse_with(s, size_units, bytes);
}

static int prefix_mult(char c, uint64_t *mult)
{
	switch (c) {
	case 'k': case 'K': *mult = 1000ull; return 0;
	case 'm': case 'M': *mult = 1000000ull; return 0;
	case 'g': case 'G': *mult = 1000000000ull; return 0;
	case 't': case 'T': *mult = 1000000000000ull; return 0;
	default: return -1;
	}
}

int rp_parse_bitrate(const char *s, uint64_t *bps)
{
	struct decimal d;
	const char *rest = parse_decimal(skip_space(s), &d);
	if (!rest)
		return -1;
	rest = skip_space(rest);
	uint64_t mult = 1;
	bool have_prefix = prefix_mult(*rest, &mult) == 0;
	if (have_prefix)
		rest++;
	bool have_suffix = *rest != '\0';
	if (have_suffix && strcasecmp(rest, "bps") && strcmp(rest, "bit/s") && strcmp(rest, "b/s") &&
	    strcmp(rest, "bit"))
		return -1;
	if (!have_prefix && !have_suffix)
		return -1;
	if (scale(&d, mult, bps) || *bps == 0)
		return -1;
	return 0;
}

int rp_parse_rate(const char *s, struct rp_rate *r)
{
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (n && s[n - 1] == '%') {
		char tmp[64];
		if (n >= sizeof(tmp))
			return -1;
		memcpy(tmp, s, n - 1);
		tmp[n - 1] = '\0';
		struct decimal d;
		const char *rest = parse_decimal(skip_space(tmp), &d);
		uint64_t ppm;
		if (!rest || *skip_space(rest) || scale(&d, 10000, &ppm) || ppm == 0 || ppm > 1000000)
			return -1;
		*r = (struct rp_rate){.ppm = (uint32_t)ppm};
		return 0;
	}
	*r = (struct rp_rate){0};
	return rp_parse_bitrate(s, &r->bps);
}

uint64_t rp_rate_bps(const struct rp_rate *r, uint64_t link_bps)
{
	if (!r->ppm)
		return r->bps;
	/* link_bps <= 2^44 and ppm <= 10^6 < 2^20: the product fits. */
	return link_bps / 1000000u * r->ppm + (link_bps % 1000000u) * r->ppm / 1000000u;
}

static const struct unit time_units[] = {
	{"ns", 1}, {"us", 1000}, {"\xc2\xb5s", 1000}, {"ms", 1000000}, {"s", 1000000000}, {NULL, 0},
};

int rp_parse_duration(const char *s, uint64_t *ns)
{
	if (strcmp(skip_space(s), "0") == 0) {
		*ns = 0;
		return 0;
	}
	return parse_with(s, time_units, ns);
}

int rp_parse_uint(const char *s, uint64_t max, uint64_t *v)
{
	s = skip_space(s);
	uint64_t x = 0;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		if (!isxdigit((unsigned char)*s))
			return -1;
		for (; isxdigit((unsigned char)*s); s++) {
			unsigned dgt = isdigit((unsigned char)*s) ? (unsigned)(*s - '0') : (unsigned)(tolower(*s) - 'a' + 10);
			if (x > (UINT64_MAX >> 4))
				return -1;
			x = x << 4 | dgt;
		}
	} else {
		struct decimal d;
		const char *rest = parse_decimal(s, &d);
		if (!rest || d.frac || strchr(s, '.'))
			return -1;
		x = d.mant;
		s = rest;
	}
	if (*skip_space(s) || x > max)
		return -1;
	*v = x;
	return 0;
}

int rp_parse_share(const char *s, int pct, double lo, double hi, double *v)
{
	char *end;
	double x = strtod(s, &end);
	if (pct && end != s && *end == '%' && end[1] == '\0')
		x /= 100.0;
	else if (end == s || *end)
		return -1;
	if (!(x >= lo && x <= hi))
		return -1;
	*v = x;
	return 0;
}

int rp_parse_bool(const char *s, int *v)
{
	static const char *const yes[] = {"yes", "true", "on", "1"};
	static const char *const no[] = {"no", "false", "off", "0"};
	for (size_t i = 0; i < 4; i++) {
		if (strcasecmp(s, yes[i]) == 0) {
			*v = 1;
			return 0;
		}
		if (strcasecmp(s, no[i]) == 0) {
			*v = 0;
			return 0;
		}
	}
	return -1;
}

/* value / div with up to 3 decimals, trailing zeros dropped. */
static void format_scaled(uint64_t value, uint64_t div, const char *unit, char *out, size_t len)
{
	uint64_t whole = value / div;
	uint64_t milli = (value % div) * 1000 / div;
	if (milli == 0)
		snprintf(out, len, "%llu%s", (unsigned long long)whole, unit);
	else if (milli % 100 == 0)
		snprintf(out, len, "%llu.%llu%s", (unsigned long long)whole, (unsigned long long)(milli / 100), unit);
	else if (milli % 10 == 0)
		snprintf(out, len, "%llu.%02llu%s", (unsigned long long)whole, (unsigned long long)(milli / 10), unit);
	else
		snprintf(out, len, "%llu.%03llu%s", (unsigned long long)whole, (unsigned long long)milli, unit);
}

char *rp_format_size(uint64_t bytes, char *out, size_t len)
{
	if (bytes >= (1ull << 30) && bytes % (1ull << 30) == 0)
		snprintf(out, len, "%lluGiB", (unsigned long long)(bytes >> 30));
	else if (bytes >= (1ull << 20) && bytes % (1ull << 20) == 0)
		snprintf(out, len, "%lluMiB", (unsigned long long)(bytes >> 20));
	else if (bytes >= 1024 && bytes % 1024 == 0)
		snprintf(out, len, "%lluKiB", (unsigned long long)(bytes >> 10));
	else
		snprintf(out, len, "%lluB", (unsigned long long)bytes);
	return out;
}

char *rp_format_bps(uint64_t bps, char *out, size_t len)
{
	if (bps >= 1000000000000ull)
		format_scaled(bps, 1000000000000ull, "T", out, len);
	else if (bps >= 1000000000ull)
		format_scaled(bps, 1000000000ull, "G", out, len);
	else if (bps >= 1000000ull)
		format_scaled(bps, 1000000ull, "M", out, len);
	else if (bps >= 1000ull)
		format_scaled(bps, 1000ull, "K", out, len);
	else
		snprintf(out, len, "%llubps", (unsigned long long)bps);
	return out;
}

char *rp_format_ns(uint64_t ns, char *out, size_t len)
{
	if (ns >= 1000000000ull)
		format_scaled(ns, 1000000000ull, "s", out, len);
	else if (ns >= 1000000ull)
		format_scaled(ns, 1000000ull, "ms", out, len);
	else if (ns >= 1000ull)
		format_scaled(ns, 1000ull, "us", out, len);
	else
		snprintf(out, len, "%lluns", (unsigned long long)ns);
	return out;
}
