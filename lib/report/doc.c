/* The streamed document: containers and member separators placed here in
 * jansson's JSON_INDENT(2) layout, every value serialised by jansson
 * (json_dump_callback) and indented to its depth on the way out. */
#include "doc.h"

#include <errno.h>
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

static void out(struct rp_doc *d, const char *p, size_t n)
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

static void spaces(struct rp_doc *d, unsigned depth)
{
	static const char sp[] = "                                                                ";
	size_t n = (size_t)depth * INDENT;
	for (; n > sizeof(sp) - 1; n -= sizeof(sp) - 1)
		out(d, sp, sizeof(sp) - 1);
	out(d, sp, n);
}

/* jansson's output of a value at depth: each line after its first indented. */
struct reindent {
	struct rp_doc *d;
	unsigned depth;
};

static int reindent_cb(const char *p, size_t n, void *arg)
{
	struct reindent *r = arg;
	const char *nl;
	while (n && (nl = memchr(p, '\n', n))) {
		size_t k = (size_t)(nl - p) + 1;
		out(r->d, p, k);
		spaces(r->d, r->depth);
		p += k;
		n -= k;
	}
	out(r->d, p, n);
	return r->d->failed ? -1 : 0;
}

static void dump_at(struct rp_doc *d, const json_t *v, unsigned depth)
{
	struct reindent r = {d, depth};
	if (json_dump_callback(v, reindent_cb, &r, JSON_INDENT(INDENT) | JSON_ENCODE_ANY) != 0)
		fail(d, "cannot write", d->failed ? d->err_no : 0);
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
		json_t *s = json_string(key);
		if (!s)
			fail(d, "cannot write", 0);
		else
			dump_at(d, s, k);
		json_decref(s);
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

static const struct rp_report_stream *stream_of(const json_t *v, const struct rp_report_stream *s, size_t ns)
{
	for (size_t k = 0; json_is_array(v) && k < ns; k++)
		if (s[k].marker == v)
			return &s[k];
	return NULL;
}

static bool holds_stream(const json_t *v, const struct rp_report_stream *s, size_t ns)
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

static void items(struct rp_doc *d, const struct rp_report_stream *s)
{
	for (size_t i = 0; i < s->n && !d->failed; i++) {
		json_t *v = s->item(s->ctx, i);
		member(d, NULL);
		if (!v)
			fail(d, "cannot write", 0);
		else
			dump_at(d, v, d->depth);
		json_decref(v);
	}
}

/* key (NULL in an array): v at the current depth, streams in place of their markers. */
static void value(struct rp_doc *d, const char *key, json_t *v, const struct rp_report_stream *s, size_t ns)
{
	const struct rp_report_stream *st = stream_of(v, s, ns);
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
		if (d->fd < 0) {
			snprintf(err, errlen, "cannot create a temporary file next to %s: %s", path, strerror(errno));
		} else if (fchmod(d->fd, 0644) != 0) { /* mkstemp makes 0600; results are for everyone to read */
			snprintf(err, errlen, "cannot chmod %s: %s", d->tmp, strerror(errno));
			close(d->fd);
			unlink(d->tmp);
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

int rp_doc_put_streams(struct rp_doc *d, const char *key, json_t *v, const struct rp_report_stream *s, size_t ns)
{
	if (!v)
		fail(d, "cannot write", 0);
	else if (!d->failed)
		value(d, key, v, s, ns);
	json_decref(v);
	return d->failed ? -1 : 0;
}

int rp_doc_put(struct rp_doc *d, const char *key, json_t *v)
{
	return rp_doc_put_streams(d, key, v, NULL, 0);
}

int rp_doc_stream(struct rp_doc *d, const char *key, const struct rp_report_stream *s)
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

static int plain_cb(const char *p, size_t n, void *arg)
{
	struct rp_doc *d = arg;
	out(d, p, n);
	return d->failed ? -1 : 0;
}

int rp_doc_write_lines(const char *path, const struct rp_report_stream *s, char *err, size_t errlen)
{
	struct rp_doc *d = rp_doc_open(path, err, errlen);
	if (!d)
		return -1;
	d->used = 0; /* no "{": lines only */
	for (size_t i = 0; i < s->n && !d->failed; i++) {
		json_t *v = s->item(s->ctx, i);
		if (!v || json_dump_callback(v, plain_cb, d, JSON_COMPACT | JSON_ENCODE_ANY) != 0)
			fail(d, "cannot write", d->failed ? d->err_no : 0);
		out(d, "\n", 1);
		json_decref(v);
	}
	return finish(d, false, err, errlen);
}
