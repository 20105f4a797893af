/* The one result builder (issue 27): result.json's root from typed pieces,
 * in the order every command writes them, for run, lab, certify and ep:
 *   "schema": "roceprobe.result/1", "kind", "profile" {name, path}  (head)
 *   the engine's keys before the environment                         (pre)
 *   "environment" {roceprobe, dpdk, hostname, started, the engine's}  (env)
 *   "elapsed_ns", "interrupted", "flows", "ports", "timeseries",
 *   "capture"                                                        (measured)
 *   the engine's keys after                                          (ext)
 * A piece left NULL is left out. Streamed through report/doc.h (nothing
 * holds the whole document; flows and pairs beyond RP_REPORT_FLOWS_INLINE
 * go to .jsonl first, report/flowset.h), or, for the small documents a
 * command also prints or renders (certify, ep), made as a tree. The bytes
 * are the same either way. No printing: errors go to err. */
#ifndef RP_REPORT_RESULT_DOC_H
#define RP_REPORT_RESULT_DOC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "report/doc.h"
#include "report/flowset.h"

#define RP_RESULT_SCHEMA "roceprobe.result/1"

/* Where the pieces go: a streamed document or a tree. */
struct rp_result_out;

/* "key": v (stolen; NULL: out of memory, the document fails). 0 or -1. */
int rp_result_put(struct rp_result_out *o, const char *key, json_t *v);
/* The streamed document, for keys with streams (report/doc.h); NULL when
 * the pieces make a tree. */
struct rp_doc *rp_result_doc(struct rp_result_out *o);
/* The measured flowset (its pairs: rp_report_doc_pairs), NULL without. */
const struct rp_report_flowset *rp_result_flowset(struct rp_result_out *o);

/* The engine's keys, put through o in order. 0 or -1. */
typedef int (*rp_result_keys)(struct rp_result_out *o, void *ctx);

struct rp_result_env {
	const char *version;  /* "roceprobe": the binary's version */
	const char *dpdk;     /* "dpdk": the DPDK version a run linked; NULL: none */
	const char *hostname; /* NULL: this machine's (gethostname) */
	time_t started;       /* "started", UTC to the second */
	json_t *more;         /* the engine's members after "started" (stolen; NULL: none) */
};

/* What a run or a lab measured (the accountant's view). "interrupted_in"
 * and "interrupted_skipped" follow "interrupted" when set. */
struct rp_result_measured {
	uint64_t elapsed_ns;
	bool interrupted;
	const char *interrupted_in;         /* "run", "write": where a signal stopped it; NULL: none */
	json_t *interrupted_skipped;        /* stolen: what the stop left out, an array; NULL: nothing */
	const struct rp_report_flowset *fs; /* "flows" (and its pairs, for ext) */
	json_t *ports;                      /* stolen */
	json_t *timeseries;                 /* stolen; with its streams: */
	const struct rp_report_stream *ts_streams;
	size_t nts;
	json_t *capture;                    /* stolen; NULL: json null */
};

struct rp_result_pieces {
	const char *kind;                       /* "dpdk", "verbs", "mixed", "lab", "certify" */
	const char *profile_name, *profile_path; /* NULL name: no "profile" (ep) */
	rp_result_keys pre;                     /* NULL: none */
	struct rp_result_env *env;              /* NULL: no "environment" (ep) */
	struct rp_result_measured *measured;    /* NULL: none (certify, ep) */
	rp_result_keys ext;                     /* NULL: none */
	void *ctx;                              /* pre's and ext's */
};

/* DIR/result.json streamed (and, beyond RP_REPORT_FLOWS_INLINE flows,
 * DIR/flows.jsonl and DIR/pairs.jsonl first). Every stolen piece is freed
 * either way. 0, or -1 with err; on failure no result.json is left. */
int rp_result_write(const char *dir, struct rp_result_pieces *p, char *err, size_t errlen);
/* The same document as a tree (p->measured must be NULL). NULL: out of
 * memory, or a piece failed. */
json_t *rp_result_tree(struct rp_result_pieces *p);

#endif
