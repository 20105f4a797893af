/* The streamed document: containers, members and values written here in
 * jansson's JSON_INDENT(2) (or, for JSON Lines, JSON_COMPACT) text. */
#include "doc.h"

#include "report/outdir.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DOC_BUF (256u << 10)
#define DOC_DEPTH 32
#define INDENT 2

struct rp_doc {
	int fd;
	bool failed;
	int err_no;          /* errno of the first failure (0: out of memory) */
	const char *what;    /* what failed: "write", "fsync", ... */
	unsigned depth;      /* open containers: 1 is the root object */
	bool members[DOC_DEPTH]; /* container d has a member already */
	size_t used;
	char *path, *tmp;
	int track;           /* rp_outdir_track's slot for tmp */
	char buf[DOC_BUF];
};

static void fail(struct rp_doc *d, const char *what, int err_no)
{
	if (!d->failed) {
		d->failed = true;
		d->what = what;
		d->err_no = err_no;
	}
}

static void flush(struct rp_doc *d)
{
	size_t off = 0;
	while (!d->failed && off < d->used) {
		ssize_t w = write(d->fd, d->buf + off, d->used - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			fail(d, "cannot write", w < 0 ? errno : ENOSPC);
		else
			off += (size_t)w;
	}
	d->used = 0;
}

static void out_slow(struct rp_doc *d, const char *p, size_t n)
{
	while (n && !d->failed) {
		if (d->used == DOC_BUF)
			flush(d);
		size_t k = DOC_BUF - d->used < n ? DOC_BUF - d->used : n;
		memcpy(d->buf + d->used, p, k);
		d->used += k;
		p += k;
		n -= k;
	}
}

/* Per token of jansson's output: a copy into the buffer, mostly. */
static inline void out(struct rp_doc *d, const char *p, size_t n)
{
	if (n <= DOC_BUF - d->used) {
		memcpy(d->buf + d->used, p, n);
		d->used += n;
	} else {
		out_slow(d, p, n);
	}
}

static void spaces(struct rp_doc *d, unsigned depth)
{
	static const char sp[] = "                                                                ";
	size_t n = (size_t)depth * INDENT;
	for (; n > sizeof(sp) - 1; n -= sizeof(sp) - 1)
		out(d, sp, sizeof(sp) - 1);
	out(d, sp, n);
}

/* ---- values, in jansson's text (dump.c of jansson 2.14: JSON_INDENT(2) or
 * JSON_COMPACT, no other flag): "\n" and two spaces a level between the
 * members of a non-empty container, ": " after a key ("," and ":" compact),
 * "{}" and "[]" when empty, keys in insertion order, integers "%lld", reals
 * "%.17g" with ".0" added when there is no '.' or 'e' and the exponent's "+"
 * and leading zeros dropped, strings with \" \\ \b \f \n \r \t and
 * \u00XX escaped and everything else (valid UTF-8, jansson's own) as it is.
 * test_doc checks the bytes against jansson's. Written here for speed: a
 * million flows through json_dump_callback was most of the lab's output
 * time (a callback per token, snprintf per number). ---- */

static void newline(struct rp_doc *d, unsigned depth, bool compact)
{
	if (!compact) {
		out(d, "\n", 1);
		spaces(d, depth);
	}
}

static void dump_string(struct rp_doc *d, const char *s, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	const char *run = s, *end = s + len;
	out(d, "\"", 1);
	for (const char *p = s; p < end; p++) {
		unsigned char c = (unsigned char)*p;
		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		out(d, run, (size_t)(p - run));
		run = p + 1;
		char e[6] = {'\\', 0};
		switch (c) {
		case '"': e[1] = '"'; break;
		case '\\': e[1] = '\\'; break;
		case '\b': e[1] = 'b'; break;
		case '\f': e[1] = 'f'; break;
		case '\n': e[1] = 'n'; break;
		case '\r': e[1] = 'r'; break;
		case '\t': e[1] = 't'; break;
		default:
			memcpy(e + 1, "u00", 3);
			e[4] = hex[c >> 4];
			e[5] = hex[c & 15];
			out(d, e, 6);
			continue;
		}
		out(d, e, 2);
	}
	out(d, run, (size_t)(end - run));
	out(d, "\"", 1);
}

static void dump_integer(struct rp_doc *d, json_int_t v)
{
	char b[24], *p = b + sizeof(b);
	unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	out(d, p, (size_t)(b + sizeof(b) - p));
}

static void dump_real(struct rp_doc *d, double v)
{
	/* A whole number below 1e15 (a mean of one sample, a zero goodput): %.17g
	 * prints its digits and no exponent, jansson adds ".0"; -0 is not one. */
	if (fabs(v) < 1e15 && v == (double)(int64_t)v && !(v == 0 && signbit(v))) {
		dump_integer(d, (json_int_t)v);
		out(d, ".0", 2);
		return;
	}
	char b[40];
	int n = snprintf(b, sizeof(b), "%.17g", v);
	if (n < 0 || (size_t)n >= sizeof(b) - 3) {
		fail(d, "cannot write", 0);
		return;
	}
	size_t len = (size_t)n;
	if (!strchr(b, '.') && !strchr(b, 'e')) {
		memcpy(b + len, ".0", 3);
		len += 2;
	}
	char *start = strchr(b, 'e');
	if (start) {
		start++;
		char *end = start + 1;
		if (*start == '-')
			start++;
		while (*end == '0')
			end++;
		if (end != start) {
			memmove(start, end, len - (size_t)(end - b) + 1);
			len -= (size_t)(end - start);
		}
	}
	out(d, b, len);
}

static void dump_value(struct rp_doc *d, const json_t *v, unsigned depth, bool compact)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: {
		void *it = json_object_iter((json_t *)v);
		if (!it) {
			out(d, "{}", 2);
			return;
		}
		out(d, "{", 1);
		for (bool first = true; it; it = json_object_iter_next((json_t *)v, it), first = false) {
			if (!first)
				out(d, ",", 1);
			newline(d, depth + 1, compact);
			dump_string(d, json_object_iter_key(it), json_object_iter_key_len(it));
			out(d, ": ", compact ? 1 : 2);
			dump_value(d, json_object_iter_value(it), depth + 1, compact);
		}
		newline(d, depth, compact);
		out(d, "}", 1);
		return;
	}
	case JSON_ARRAY: {
		size_t n = json_array_size(v);
		if (!n) {
			out(d, "[]", 2);
			return;
		}
		out(d, "[", 1);
		for (size_t i = 0; i < n; i++) {
			if (i)
				out(d, ",", 1);
			newline(d, depth + 1, compact);
			dump_value(d, json_array_get(v, i), depth + 1, compact);
		}
		newline(d, depth, compact);
		out(d, "]", 1);
		return;
	}
	case JSON_STRING: dump_string(d, json_string_value(v), json_string_length(v)); return;
	case JSON_INTEGER: dump_integer(d, json_integer_value(v)); return;
	case JSON_REAL: dump_real(d, json_real_value(v)); return;
	case JSON_TRUE: out(d, "true", 4); return;
	case JSON_FALSE: out(d, "false", 5); return;
	case JSON_NULL: out(d, "null", 4); return;
	}
}

static void dump_at(struct rp_doc *d, const json_t *v, unsigned depth)
{
	dump_value(d, v, depth, false);
}

/* The next member of the container open at depth d->depth: its separator,
 * line and indentation, and for an object its key. */
static void member(struct rp_doc *d, const char *key)
{
	unsigned k = d->depth;
	if (d->members[k - 1])
		out(d, ",", 1);
	d->members[k - 1] = true;
	out(d, "\n", 1);
	spaces(d, k);
	if (key) {
		dump_string(d, key, strlen(key));
		out(d, ": ", 2);
	}
}

static int open_container(struct rp_doc *d, const char *key, char c)
{
	if (d->depth == DOC_DEPTH) {
		fail(d, "cannot write (nested too deep)", 0);
		return -1;
	}
	if (d->depth)
		member(d, key);
	out(d, &c, 1);
	d->members[d->depth++] = false;
	return d->failed ? -1 : 0;
}

static void close_container(struct rp_doc *d, char c)
{
	if (!d->depth)
		return;
	if (d->members[--d->depth]) {
		out(d, "\n", 1);
		spaces(d, d->depth);
	}
	out(d, &c, 1);
}

/* A stream of either kind. */
struct src {
	json_t *marker;
	size_t n;
	json_t *(*item)(void *ctx, size_t i);
	void (*write)(struct rp_jw *w, void *ctx, size_t i);
	void *ctx;
};

static struct src from_item(const struct rp_report_stream *s)
{
	return (struct src){s->marker, s->n, s->item, NULL, s->ctx};
}

static struct src from_write(const struct rp_report_wstream *s)
{
	return (struct src){s->marker, s->n, NULL, s->write, s->ctx};
}

static const struct src *stream_of(const json_t *v, const struct src *s, size_t ns)
{
	for (size_t k = 0; json_is_array(v) && k < ns; k++)
		if (s[k].marker == v)
			return &s[k];
	return NULL;
}

static bool holds_stream(const json_t *v, const struct src *s, size_t ns)
{
	if (!ns || !(json_is_object(v) || json_is_array(v)))
		return false;
	if (stream_of(v, s, ns))
		return true;
	const char *k;
	size_t i;
	json_t *x;
	if (json_is_object(v)) {
		json_object_foreach((json_t *)v, k, x)
			if (holds_stream(x, s, ns))
				return true;
	} else {
		json_array_foreach(v, i, x)
			if (holds_stream(x, s, ns))
				return true;
	}
	return false;
}

static void write_item(struct rp_doc *d, const struct src *s, size_t i, unsigned depth, bool compact);

/* Every 4096 items of a stream: a stop gives the file up (report/outdir.h),
 * and the watch hears how far it is. */
#define WATCH_EVERY 4096u

static void watch_point(struct rp_doc *d, size_t done, size_t n)
{
	if (rp_outdir_cancelled())
		fail(d, "stopped by a signal while writing", ECANCELED);
	else
		rp_outdir_progress(d->path, done, n);
}

static void items(struct rp_doc *d, const struct src *s)
{
	for (size_t i = 0; i < s->n && !d->failed; i++) {
		member(d, NULL);
		write_item(d, s, i, d->depth, false);
		if (i % WATCH_EVERY == WATCH_EVERY - 1)
			watch_point(d, 0, 0); /* a list inside a document: its share is not the file's */
	}
}

/* key (NULL in an array): v at the current depth, streams in place of their markers. */
static void value(struct rp_doc *d, const char *key, json_t *v, const struct src *s, size_t ns)
{
	const struct src *st = stream_of(v, s, ns);
	if (!holds_stream(v, s, ns)) {
		member(d, key);
		dump_at(d, v, d->depth);
		return;
	}
	if (open_container(d, key, json_is_object(v) ? '{' : '['))
		return;
	const char *k;
	size_t i;
	json_t *x;
	if (st)
		items(d, st);
	else if (json_is_object(v))
		json_object_foreach(v, k, x)
			value(d, k, x, s, ns);
	else
		json_array_foreach(v, i, x)
			value(d, NULL, x, s, ns);
	close_container(d, json_is_object(v) ? '}' : ']');
}

struct rp_doc *rp_doc_open(const char *path, char *err, size_t errlen)
{
	struct rp_doc *d = calloc(1, sizeof(*d));
	size_t len = strlen(path);
	if (d && (d->path = strdup(path)) && (d->tmp = malloc(len + 16))) {
		snprintf(d->tmp, len + 16, "%s.tmpXXXXXX", path);
		d->fd = mkstemp(d->tmp);
		d->track = d->fd < 0 ? -1 : rp_outdir_track(d->tmp); /* a second signal removes it */
		if (d->fd < 0) {
			snprintf(err, errlen, "cannot create a temporary file next to %s: %s", path, strerror(errno));
		} else if (fchmod(d->fd, 0644) != 0) { /* mkstemp makes 0600; results are for everyone to read */
			snprintf(err, errlen, "cannot chmod %s: %s", d->tmp, strerror(errno));
			close(d->fd);
			unlink(d->tmp);
			rp_outdir_untrack(d->track);
		} else {
			out(d, "{", 1);
			d->members[d->depth++] = false;
			return d;
		}
	} else {
		snprintf(err, errlen, "cannot write %s: out of memory", path);
	}
	if (d) {
		free(d->path);
		free(d->tmp);
	}
	free(d);
	return NULL;
}

static int put(struct rp_doc *d, const char *key, json_t *v, const struct src *s, size_t ns)
{
	if (!v)
		fail(d, "cannot write", 0);
	else if (!d->failed)
		value(d, key, v, s, ns);
	json_decref(v);
	return d->failed ? -1 : 0;
}

#define MAX_STREAMS 16

int rp_doc_put_streams(struct rp_doc *d, const char *key, json_t *v, const struct rp_report_stream *s, size_t ns)
{
	struct src x[MAX_STREAMS];
	if (ns > MAX_STREAMS)
		fail(d, "cannot write (too many streams)", 0);
	for (size_t k = 0; k < ns && k < MAX_STREAMS; k++)
		x[k] = from_item(&s[k]);
	return put(d, key, v, x, ns < MAX_STREAMS ? ns : MAX_STREAMS);
}

int rp_doc_put_wstreams(struct rp_doc *d, const char *key, json_t *v, const struct rp_report_wstream *s, size_t ns)
{
	struct src x[MAX_STREAMS];
	if (ns > MAX_STREAMS)
		fail(d, "cannot write (too many streams)", 0);
	for (size_t k = 0; k < ns && k < MAX_STREAMS; k++)
		x[k] = from_write(&s[k]);
	return put(d, key, v, x, ns < MAX_STREAMS ? ns : MAX_STREAMS);
}

int rp_doc_put(struct rp_doc *d, const char *key, json_t *v)
{
	return put(d, key, v, NULL, 0);
}

static int stream(struct rp_doc *d, const char *key, const struct src *s)
{
	if (!s->n) {
		json_t *empty = json_array();
		return rp_doc_put(d, key, empty);
	}
	if (open_container(d, key, '[') == 0) {
		items(d, s);
		close_container(d, ']');
	}
	return d->failed ? -1 : 0;
}

int rp_doc_stream(struct rp_doc *d, const char *key, const struct rp_report_stream *s)
{
	const struct src x = from_item(s);
	return stream(d, key, &x);
}

int rp_doc_wstream(struct rp_doc *d, const char *key, const struct rp_report_wstream *s)
{
	const struct src x = from_write(s);
	return stream(d, key, &x);
}

int rp_doc_begin(struct rp_doc *d, const char *key)
{
	return open_container(d, key, '{');
}

int rp_doc_end(struct rp_doc *d)
{
	if (d->depth > 1)
		close_container(d, '}');
	return d->failed ? -1 : 0;
}

/* The file's end: flushed, fsynced, closed, renamed over the path. */
static int finish(struct rp_doc *d, bool failed, char *err, size_t errlen)
{
	flush(d);
	if (!d->failed && fsync(d->fd) != 0)
		fail(d, "cannot fsync", errno);
	if (close(d->fd) != 0)
		fail(d, "cannot close", errno);
	if (!d->failed && !failed && rename(d->tmp, d->path) != 0)
		fail(d, "cannot rename over", errno);
	int rc = d->failed || failed ? -1 : 0;
	if (d->failed)
		snprintf(err, errlen, "%s %s: %s", d->what, strcmp(d->what, "cannot rename over") ? d->tmp : d->path,
			 d->err_no ? strerror(d->err_no) : "out of memory");
	if (rc)
		unlink(d->tmp);
	rp_outdir_untrack(d->track);
	free(d->path);
	free(d->tmp);
	free(d);
	return rc;
}

int rp_doc_close(struct rp_doc *d, bool failed, char *err, size_t errlen)
{
	while (d->depth > 1)
		close_container(d, '}');
	close_container(d, '}');
	out(d, "\n", 1);
	return finish(d, failed, err, errlen);
}

int rp_doc_write(const char *path, json_t *root, const struct rp_report_stream *s, size_t ns, char *err,
		 size_t errlen)
{
	struct rp_doc *d = rp_doc_open(path, err, errlen);
	if (!d)
		return -1;
	if (!json_is_object(root)) { /* not a document: whatever it is, as jansson writes it */
		d->used = d->depth = 0;
		dump_at(d, root, 0);
		out(d, "\n", 1);
		return finish(d, false, err, errlen);
	}
	const char *k;
	json_t *x;
	json_object_foreach(root, k, x)
		rp_doc_put_streams(d, k, json_incref(x), s, ns);
	return rp_doc_close(d, false, err, errlen);
}

static int write_lines(const char *path, const struct src *s, char *err, size_t errlen)
{
	struct rp_doc *d = rp_doc_open(path, err, errlen);
	if (!d)
		return -1;
	d->used = 0; /* no "{": lines only */
	for (size_t i = 0; i < s->n && !d->failed; i++) {
		write_item(d, s, i, 0, true);
		out(d, "\n", 1);
		if (i % WATCH_EVERY == WATCH_EVERY - 1)
			watch_point(d, i + 1, s->n);
	}
	return finish(d, false, err, errlen);
}

int rp_doc_write_lines(const char *path, const struct rp_report_stream *s, char *err, size_t errlen)
{
	const struct src x = from_item(s);
	return write_lines(path, &x, err, errlen);
}

int rp_doc_write_wlines(const char *path, const struct rp_report_wstream *s, char *err, size_t errlen)
{
	const struct src x = from_write(s);
	return write_lines(path, &x, err, errlen);
}

/* ---- rp_jw: the typed writer, into a document or into a tree ---- */

struct rp_jw {
	struct rp_doc *d;     /* text: the document */
	unsigned depth;       /* text: the depth of the item's first line */
	bool compact;
	unsigned n;           /* open containers */
	bool members[DOC_DEPTH], is_obj[DOC_DEPTH];
	json_t *stack[DOC_DEPTH]; /* tree: the open containers; stack[0] is the root once made */
	json_t *root;
	bool oom;
};

/* Text: the separator, line and key before a value of the open container. */
static void jw_member(struct rp_jw *w, const char *key)
{
	if (!w->n)
		return;
	if (w->members[w->n - 1])
		out(w->d, ",", 1);
	w->members[w->n - 1] = true;
	newline(w->d, w->depth + w->n, w->compact);
	if (key) {
		dump_string(w->d, key, strlen(key));
		out(w->d, ": ", w->compact ? 1 : 2);
	}
}

/* Tree: v into the open container (or as the root). */
static void jw_add(struct rp_jw *w, const char *key, json_t *v)
{
	if (!v) {
		w->oom = true;
		return;
	}
	if (!w->n) {
		json_decref(w->root);
		w->root = v;
	} else if (json_is_object(w->stack[w->n - 1])) {
		json_object_set_new_nocheck(w->stack[w->n - 1], key, v);
	} else {
		json_array_append_new(w->stack[w->n - 1], v);
	}
}

static void jw_open(struct rp_jw *w, const char *key, bool obj)
{
	if (w->n == DOC_DEPTH) {
		w->oom = true;
		return;
	}
	if (w->d) {
		jw_member(w, key);
		out(w->d, obj ? "{" : "[", 1);
		w->is_obj[w->n] = obj;
		w->members[w->n++] = false;
		return;
	}
	json_t *c = obj ? json_object() : json_array();
	if (!c) {
		w->oom = true;
		return;
	}
	jw_add(w, key, json_incref(c));
	w->is_obj[w->n] = obj;
	w->stack[w->n++] = c;
	json_decref(c);
}

void rp_jw_obj(struct rp_jw *w, const char *key)
{
	jw_open(w, key, true);
}

void rp_jw_arr(struct rp_jw *w, const char *key)
{
	jw_open(w, key, false);
}

void rp_jw_end(struct rp_jw *w)
{
	if (!w->n)
		return;
	w->n--;
	if (w->d) {
		if (w->members[w->n])
			newline(w->d, w->depth + w->n, w->compact);
		out(w->d, w->is_obj[w->n] ? "}" : "]", 1);
	}
}

void rp_jw_int(struct rp_jw *w, const char *key, int64_t v)
{
	if (!w->d)
		return jw_add(w, key, json_integer((json_int_t)v));
	jw_member(w, key);
	dump_integer(w->d, (json_int_t)v);
}

void rp_jw_real(struct rp_jw *w, const char *key, double v)
{
	if (!isfinite(v)) /* json_real refuses it: no member */
		return;
	if (!w->d)
		return jw_add(w, key, json_real(v));
	jw_member(w, key);
	dump_real(w->d, v);
}

void rp_jw_str(struct rp_jw *w, const char *key, const char *s)
{
	if (!s)
		return;
	if (!w->d)
		return jw_add(w, key, json_string(s));
	jw_member(w, key);
	dump_string(w->d, s, strlen(s));
}

void rp_jw_bool(struct rp_jw *w, const char *key, bool v)
{
	if (!w->d)
		return jw_add(w, key, json_boolean(v));
	jw_member(w, key);
	out(w->d, v ? "true" : "false", v ? 4 : 5);
}

void rp_jw_null(struct rp_jw *w, const char *key)
{
	if (!w->d)
		return jw_add(w, key, json_null());
	jw_member(w, key);
	out(w->d, "null", 4);
}

void rp_jw_json(struct rp_jw *w, const char *key, const json_t *v)
{
	if (!v) {
		w->oom = true;
		return;
	}
	if (!w->d)
		return jw_add(w, key, json_deep_copy(v));
	jw_member(w, key);
	dump_value(w->d, v, w->depth + w->n, w->compact);
}

json_t *rp_jw_tree(void (*write)(struct rp_jw *w, void *ctx, size_t i), void *ctx, size_t i)
{
	struct rp_jw w = {0};
	write(&w, ctx, i);
	if (w.oom || w.n) {
		json_decref(w.root);
		return NULL;
	}
	return w.root;
}

static void write_item(struct rp_doc *d, const struct src *s, size_t i, unsigned depth, bool compact)
{
	if (s->write) {
		struct rp_jw w = {.d = d, .depth = depth, .compact = compact};
		s->write(&w, s->ctx, i);
		if (w.oom || w.n)
			fail(d, "cannot write", 0);
		return;
	}
	json_t *v = s->item(s->ctx, i);
	if (!v)
		fail(d, "cannot write", 0);
	else
		dump_value(d, v, depth, compact);
	json_decref(v);
}
