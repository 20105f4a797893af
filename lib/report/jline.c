/* One JSON line in a fixed buffer (jline.h). */
#include <string.h>

#include "jline.h"

static void jw_put(struct rp_jline *w, const char *s, size_t len)
{
	if (len > RP_JLINE_CAP - 1 - w->n) /* never with our values; a line cut short is still no overflow */
		len = RP_JLINE_CAP - 1 - w->n;
	memcpy(w->b + w->n, s, len);
	w->n += len;
}

static void jw_ch(struct rp_jline *w, char c)
{
	if (w->n < RP_JLINE_CAP - 1)
		w->b[w->n++] = c;
}

/* The separator and, inside an object, "key": */
static void jw_key(struct rp_jline *w, const char *key)
{
	if (w->comma)
		jw_ch(w, ',');
	w->comma = true;
	if (key) {
		jw_ch(w, '"');
		jw_put(w, key, strlen(key));
		jw_put(w, "\":", 2);
	}
}

void rp_jline_open(struct rp_jline *w, const char *key, char c)
{
	jw_key(w, key);
	jw_ch(w, c);
	w->comma = false;
}

void rp_jline_close(struct rp_jline *w, char c)
{
	jw_ch(w, c);
	w->comma = true;
}

void rp_jline_int(struct rp_jline *w, const char *key, int64_t v)
{
	char d[24];
	size_t i = sizeof(d);
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	do {
		d[--i] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		d[--i] = '-';
	jw_key(w, key);
	jw_put(w, d + i, sizeof(d) - i);
}

void rp_jline_str(struct rp_jline *w, const char *key, const char *s)
{
	jw_key(w, key);
	if (!s) {
		jw_put(w, "null", 4);
		return;
	}
	jw_ch(w, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			jw_ch(w, '\\');
			jw_ch(w, (char)c);
		} else if (c < 0x20) {
			char e[8];
			snprintf(e, sizeof(e), "\\u%04x", c);
			jw_put(w, e, 6);
		} else {
			jw_ch(w, (char)c);
		}
	}
	jw_ch(w, '"');
}

void rp_jline_bool(struct rp_jline *w, const char *key, bool v)
{
	jw_key(w, key);
	jw_put(w, v ? "true" : "false", v ? 4 : 5);
}

/* "0x" and 2 * bytes lower-case hex digits, zero-padded. */
void rp_jline_hex(struct rp_jline *w, const char *key, uint64_t v, unsigned bytes)
{
	static const char digits[] = "0123456789abcdef";
	char h[19] = "0x";
	for (unsigned i = 0; i < 2 * bytes; i++)
		h[2 + i] = digits[(v >> (4 * (2 * bytes - 1 - i))) & 0xF];
	h[2 + 2 * bytes] = '\0';
	rp_jline_str(w, key, h);
}

void rp_jline_line(struct rp_jline *w, FILE *out)
{
	w->b[w->n++] = '\n'; /* jw_put/jw_ch keep one byte for it */
	fwrite(w->b, 1, w->n, out);
}
