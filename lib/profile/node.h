/* A small generic YAML document tree (map / seq / scalar) that remembers where
 * each node came from, so validation can name file:line:col. */
#ifndef RP_PROFILE_NODE_H
#define RP_PROFILE_NODE_H

#include <stdbool.h>
#include <stddef.h>

enum rp_node_type { RP_NODE_SCALAR, RP_NODE_MAP, RP_NODE_SEQ };

/* Where a node starts: file (or "--set k=v") and 1-based line:col; line 0
 * means "no position" (a node made by --set). */
struct rp_pos {
	const char *file;
	unsigned line;
	unsigned col;
};

struct rp_node;

struct rp_node_kv {
	char *key;
	struct rp_pos key_pos;
	struct rp_node *val;
};

struct rp_node {
	enum rp_node_type type;
	struct rp_pos pos;
	char *scalar;          /* RP_NODE_SCALAR: the text, never NULL */
	bool plain;            /* scalar was written without quotes */
	struct rp_node_kv *kv; /* RP_NODE_MAP */
	struct rp_node **items; /* RP_NODE_SEQ */
	size_t n;
	size_t cap;
};

struct rp_node *rp_node_new(enum rp_node_type type, struct rp_pos pos);
struct rp_node *rp_node_new_scalar(const char *text, bool plain, struct rp_pos pos);
void rp_node_free(struct rp_node *n);
/* A deep copy (positions kept), or NULL when out of memory. */
struct rp_node *rp_node_clone(const struct rp_node *n);
/* Appends; returns 0 or -1 when out of memory. */
int rp_node_map_add(struct rp_node *map, const char *key, struct rp_pos key_pos, struct rp_node *val);
int rp_node_seq_add(struct rp_node *seq, struct rp_node *item);
/* The value under key, or NULL (also NULL when map is NULL or not a map). */
struct rp_node *rp_node_get(const struct rp_node *map, const char *key);
const struct rp_node_kv *rp_node_get_kv(const struct rp_node *map, const char *key);
const char *rp_node_type_name(enum rp_node_type t); /* "a scalar", "a mapping", "a list" */

/* Parse YAML text into a tree. file names the source in positions and must
 * outlive the tree. On error returns NULL and writes one line
 * "FILE:L:C: ..." into err. Aliases and multiple documents are refused. */
struct rp_node *rp_yaml_load_string(const char *file, const char *text, size_t len, char *err, size_t errlen);
struct rp_node *rp_yaml_load_file(const char *path, char *err, size_t errlen);

/* Apply one "--set path=value" to the tree (see docs/profiles.md). The
 * value is read as a YAML flow value (so "[h1, h2]" is a list) and falls
 * back to a plain string. Missing map keys are created, missing list
 * elements are not. src must outlive the tree (it labels the new nodes). */
int rp_node_set(struct rp_node **root, const char *src, char *err, size_t errlen);

#endif
