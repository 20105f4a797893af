/* Values as a person reads them in the certify reports: a key's label and
 * unit from its name (first_ce_ns -> "first CE", 3000 ns), sizes compared in
 * the unit that shows their difference, records as words (never raw JSON),
 * and axis ticks at round steps without exponents. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cert_internal.h"

enum unit { U_NONE, U_NS, U_BYTES, U_BPS, U_GBPS, U_PCT };

static const struct {
	const char *suffix;
	enum unit u;
} suffixes[] = {{"_ns", U_NS}, {"_bytes", U_BYTES}, {"_bps", U_BPS}, {"_gbps", U_GBPS}, {"_pct", U_PCT}};

/* Words written in capitals wherever they stand in a key. */
static const char *const caps[] = {"ce", "pfc", "ecn", "xoff", "xon", "mtu", "dscp", "cnp", "qp", "qpn", "phy",
				   "mac", "ecmp", "nak", "nic", "ip", "ttl", "id"};

static enum unit unit_of(const char *key, size_t *stem)
{
	size_t n = strlen(key);
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t s = strlen(suffixes[i].suffix);
		if (n > s && strcmp(key + n - s, suffixes[i].suffix) == 0) {
			*stem = n - s;
			return suffixes[i].u;
		}
	}
	*stem = n;
	return U_NONE;
}

void rp_cert_label(const char *key, char *buf, size_t len)
{
	size_t stem, o = 0;
	unit_of(key, &stem);
	for (size_t i = 0; i < stem && o + 1 < len;) {
		size_t w = i;
		while (w < stem && key[w] != '_' && key[w] != '.')
			w++;
		bool up = false;
		for (size_t c = 0; c < sizeof(caps) / sizeof(caps[0]); c++)
			up |= strlen(caps[c]) == w - i && strncmp(key + i, caps[c], w - i) == 0;
		for (size_t k = i; k < w && o + 1 < len; k++)
			buf[o++] = up && key[k] >= 'a' && key[k] <= 'z' ? (char)(key[k] - 'a' + 'A') : key[k];
		if (w < stem && o + 1 < len)
			buf[o++] = ' ';
		i = w + 1;
	}
	if (len)
		buf[o < len ? o : len - 1] = '\0';
}

void rp_cert_fmt_ns(double ns, char *buf, size_t len)
{
	if (ns < 10000)
		snprintf(buf, len, "%.0f ns", ns);
	else if (ns < 1e7)
		snprintf(buf, len, "%.2f us", ns / 1e3);
	else if (ns < 1e10)
		snprintf(buf, len, "%.3f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.3f s", ns / 1e9);
}

void rp_cert_fmt_bytes_pair(uint64_t a, uint64_t b, char *abuf, char *bbuf, size_t len)
{
	uint64_t big = a > b ? a : b;
	if (big >= 10240) {
		snprintf(abuf, len, "%.2f KiB", (double)a / 1024.0);
		snprintf(bbuf, len, "%.2f KiB", (double)b / 1024.0);
		if (a == b || strcmp(abuf, bbuf) != 0)
			return;
	}
	snprintf(abuf, len, "%llu B", (unsigned long long)a);
	snprintf(bbuf, len, "%llu B", (unsigned long long)b);
}

static void number(double v, enum unit u, char *buf, size_t len)
{
	switch (u) {
	case U_NS:
		rp_cert_fmt_ns(v, buf, len);
		return;
	case U_BYTES:
		rp_cert_fmt_bytes((uint64_t)(v < 0 ? 0 : v), buf, len);
		return;
	case U_BPS:
		snprintf(buf, len, "%.4g Gbit/s", v / 1e9);
		return;
	case U_GBPS:
		snprintf(buf, len, "%.4g Gbit/s", v);
		return;
	case U_PCT:
		snprintf(buf, len, "%.4g%%", v);
		return;
	case U_NONE:
		break;
	}
	if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.4g", v);
	if (strchr(buf, 'e')) /* a very small or large plain number: fixed, as many digits as it needs */
		snprintf(buf, len, fabs(v) < 1 ? "%.6f" : "%.0f", v);
}

/* s at buf + *o, cut at len (always terminated). */
static void append(char *buf, size_t len, size_t *o, const char *s)
{
	for (; *s && *o + 1 < len; s++)
		buf[(*o)++] = *s;
	if (*o < len)
		buf[*o] = '\0';
}

void rp_cert_kv_text(const char *key, const json_t *v, char *buf, size_t len)
{
	size_t stem, o = 0;
	enum unit u = key ? unit_of(key, &stem) : U_NONE;
	char part[256], label[128];
	if (len)
		buf[0] = '\0';
	if (json_is_string(v)) {
		snprintf(buf, len, "%s", json_string_value(v));
	} else if (json_is_number(v)) {
		number(json_number_value(v), u, buf, len);
	} else if (json_is_boolean(v)) {
		snprintf(buf, len, "%s", json_is_true(v) ? "yes" : "no");
	} else if (json_is_null(v) || !v) {
		snprintf(buf, len, "none");
	} else if (json_is_array(v)) {
		size_t i;
		json_t *x;
		if (!json_array_size(v))
			snprintf(buf, len, "none");
		json_array_foreach(v, i, x) {
			rp_cert_kv_text(key, x, part, sizeof(part));
			append(buf, len, &o, i ? ", " : "");
			append(buf, len, &o, json_is_object(x) ? "(" : "");
			append(buf, len, &o, part);
			append(buf, len, &o, json_is_object(x) ? ")" : "");
		}
	} else { /* a record: "label value, label value" */
		const char *k;
		json_t *x;
		bool first = true;
		json_object_foreach((json_t *)v, k, x) {
			rp_cert_label(k, label, sizeof(label));
			rp_cert_kv_text(k, x, part, sizeof(part));
			append(buf, len, &o, first ? "" : ", ");
			append(buf, len, &o, label);
			append(buf, len, &o, " ");
			append(buf, len, &o, part);
			first = false;
		}
	}
}

void rp_cert_value_text(const json_t *v, char *buf, size_t len)
{
	rp_cert_kv_text(NULL, v, buf, len);
}

double rp_cert_nice_step(double top, int ticks)
{
	if (!(top > 0) || ticks < 1)
		return 1;
	double raw = top / ticks, p = pow(10, floor(log10(raw))), m = raw / p;
	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 2.5 ? 2.5 : m <= 5 ? 5 : 10) * p;
}

void rp_cert_tick_text(double v, char *buf, size_t len)
{
	static const struct {
		double at;
		const char *suffix;
	} scale[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
	double a = fabs(v);
	for (size_t i = 0; i < sizeof(scale) / sizeof(scale[0]); i++)
		if (a >= 10 * scale[i].at || (a >= scale[i].at && fmod(a, scale[i].at / 10) == 0)) {
			snprintf(buf, len, "%.4g%s", v / scale[i].at, scale[i].suffix);
			return;
		}
	if (a == 0 || a >= 0.001)
		snprintf(buf, len, "%.4g", v);
	else
		snprintf(buf, len, "%.6f", v);
}
