/* One JSON line written straight into a fixed buffer: no JSON library per
 * line (jansson built, sorted and freed a tree per frame: 7-9x decode's
 * text time). For values that are numbers, hex strings, addresses or
 * strings from fixed tables; strings are escaped for safety all the same.
 * Integers print as signed 64-bit decimals, keys in the order written: byte
 * for byte what json_dumps(JSON_COMPACT | JSON_PRESERVE_ORDER) prints. A
 * line longer than the buffer is cut short, never overflows. */
#ifndef RP_REPORT_JLINE_H
#define RP_REPORT_JLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define RP_JLINE_CAP 2048

struct rp_jline {
	char b[RP_JLINE_CAP];
	size_t n;
	bool comma; /* a value was written at this level: the next one needs ',' */
};

/* key NULL: an array's item (or the line's outermost value). */
void rp_jline_open(struct rp_jline *w, const char *key, char c); /* '{' or '[' */
void rp_jline_close(struct rp_jline *w, char c);                 /* '}' or ']' */
void rp_jline_int(struct rp_jline *w, const char *key, int64_t v);
void rp_jline_str(struct rp_jline *w, const char *key, const char *s); /* NULL: null */
void rp_jline_bool(struct rp_jline *w, const char *key, bool v);
/* "0x" and 2 x bytes lower-case hex digits, zero-padded. */
void rp_jline_hex(struct rp_jline *w, const char *key, uint64_t v, unsigned bytes);
/* Ends the line with '\n' and writes it to out. */
void rp_jline_line(struct rp_jline *w, FILE *out);

#endif
