/* The one result writer: a JSON document streamed to its file a piece at a
 * time (issue 27). result.json's root never exists as a whole: each piece
 * (a key and its value: a small jansson tree, or an array given an item at a
 * time) is written, then freed. The bytes are exactly what jansson's
 * json_dumps(root, JSON_INDENT(2)) and a newline would have written for the
 * whole root (doc.c writes jansson's text itself, faster; test_doc holds it
 * to jansson's bytes), so a reader cannot tell. The file is written next to its path and
 * renamed over it when closed: readers see the old file or the whole new one.
 * JSON Lines files (DIR/flows.jsonl) are written here too. No printing:
 * errors go to err. */
#ifndef RP_REPORT_DOC_H
#define RP_REPORT_DOC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An array written an item at a time: item(ctx, i) for i < n, each freed
 * once written (NULL: out of memory, the write fails). marker, where a
 * stream sits inside a tree given to rp_doc_put (or rp_report_write_atomic_
 * streams), is the empty array it stands for (found by identity). */
struct rp_jw;
struct rp_report_stream {
	json_t *marker;
	size_t n;
	json_t *(*item)(void *ctx, size_t i);
	void *ctx;
};
/* The same, typed: write(w, ctx, i) writes item i through w, no tree (a
 * million flows' objects as jansson trees were most of what writing them
 * cost). */
struct rp_report_wstream {
	json_t *marker;
	size_t n;
	void (*write)(struct rp_jw *w, void *ctx, size_t i);
	void *ctx;
};

/* A typed JSON writer: one object's definition, written either straight
 * into a document (a stream's write) or into a jansson tree (rp_jw_tree),
 * the same bytes either way. key is NULL inside an array. A value jansson
 * would refuse (a real that is not finite, a NULL string) is left out, as
 * json_object_set_new leaves it out. */
void rp_jw_obj(struct rp_jw *w, const char *key);
void rp_jw_arr(struct rp_jw *w, const char *key);
void rp_jw_end(struct rp_jw *w);
void rp_jw_int(struct rp_jw *w, const char *key, int64_t v);
void rp_jw_real(struct rp_jw *w, const char *key, double v);
void rp_jw_str(struct rp_jw *w, const char *key, const char *s);
void rp_jw_bool(struct rp_jw *w, const char *key, bool v);
void rp_jw_null(struct rp_jw *w, const char *key);
/* A jansson tree (borrowed) as a value. */
void rp_jw_json(struct rp_jw *w, const char *key, const json_t *v);
/* What write(w, ctx, i) writes, as a tree (NULL: out of memory). */
json_t *rp_jw_tree(void (*write)(struct rp_jw *w, void *ctx, size_t i), void *ctx, size_t i);

struct rp_doc;

/* Starts path's document ("{"): a temporary file next to path, mode 0644.
 * NULL with err when it cannot be made. */
struct rp_doc *rp_doc_open(const char *path, char *err, size_t errlen);
/* "key": value, in the object open now; the value is stolen (freed here,
 * NULL is taken as a failed allocation). Any empty array of the value that
 * is one of streams[0..ns)'s marker is written from its stream instead. */
int rp_doc_put(struct rp_doc *d, const char *key, json_t *value);
int rp_doc_put_streams(struct rp_doc *d, const char *key, json_t *value, const struct rp_report_stream *streams,
		       size_t ns);
int rp_doc_put_wstreams(struct rp_doc *d, const char *key, json_t *value, const struct rp_report_wstream *streams,
			size_t ns);
/* "key": [items of s] (s->marker is not used). */
int rp_doc_stream(struct rp_doc *d, const char *key, const struct rp_report_stream *s);
int rp_doc_wstream(struct rp_doc *d, const char *key, const struct rp_report_wstream *s);
/* "key": { ... rp_doc_end }: an object whose members are pieces too. */
int rp_doc_begin(struct rp_doc *d, const char *key);
int rp_doc_end(struct rp_doc *d);
/* Ends the document ("}" and a newline), fsyncs it and renames it over its
 * path; frees d either way. After an earlier failure, or with failed set
 * (the caller gave up), nothing is renamed and the temporary file goes. 0,
 * or -1 with err. */
int rp_doc_close(struct rp_doc *d, bool failed, char *err, size_t errlen);

/* Writes root (with its streams, as rp_doc_put_streams) as a whole document
 * to path. root is borrowed. 0, or -1 with err. */
int rp_doc_write(const char *path, json_t *root, const struct rp_report_stream *s, size_t ns, char *err,
		 size_t errlen);
/* JSON Lines: each of the stream's items on a line of its own (compact), in
 * order, written and renamed as a document is. */
int rp_doc_write_lines(const char *path, const struct rp_report_stream *s, char *err, size_t errlen);
int rp_doc_write_wlines(const char *path, const struct rp_report_wstream *s, char *err, size_t errlen);

#endif
