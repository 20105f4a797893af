/* The one result writer: a JSON document streamed to its file a piece at a
 * time (issue 27). result.json's root never exists as a whole: each piece
 * (a key and its value: a small jansson tree, or an array given an item at a
 * time) is written, then freed. The bytes are exactly what jansson's
 * json_dumps(root, JSON_INDENT(2)) and a newline would have written for the
 * whole root (jansson itself serialises every piece; this file only places
 * them), so a reader cannot tell. The file is written next to its path and
 * renamed over it when closed: readers see the old file or the whole new one.
 * JSON Lines files (DIR/flows.jsonl) are written here too. No printing:
 * errors go to err. */
#ifndef RP_REPORT_DOC_H
#define RP_REPORT_DOC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* An array written an item at a time: item(ctx, i) for i < n, each freed
 * once written (NULL: out of memory, the write fails). marker, where a
 * stream sits inside a tree given to rp_doc_put (or rp_report_write_atomic_
 * streams), is the empty array it stands for (found by identity). */
struct rp_report_stream {
	json_t *marker;
	size_t n;
	json_t *(*item)(void *ctx, size_t i);
	void *ctx;
};

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
/* "key": [items of s] (s->marker is not used). */
int rp_doc_stream(struct rp_doc *d, const char *key, const struct rp_report_stream *s);
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

#endif
