#include "node.h"

#include <stdlib.h>
#include <string.h>

struct rp_node *rp_node_new(enum rp_node_type type, struct rp_pos pos)
{
	struct rp_node *n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	n->type = type;
	n->pos = pos;
	return n;
}

struct rp_node *rp_node_new_scalar(const char *text, bool plain, struct rp_pos pos)
{
	struct rp_node *n = rp_node_new(RP_NODE_SCALAR, pos);
	if (!n)
		return NULL;
	n->scalar = strdup(text ? text : "");
	if (!n->scalar) {
		free(n);
		return NULL;
	}
	n->plain = plain;
	return n;
}

void rp_node_free(struct rp_node *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->n; i++) {
		if (n->type == RP_NODE_MAP) {
			free(n->kv[i].key);
			rp_node_free(n->kv[i].val);
		} else if (n->type == RP_NODE_SEQ) {
			rp_node_free(n->items[i]);
		}
	}
	free(n->kv);
	free(n->items);
	free(n->scalar);
	free(n);
}

struct rp_node *rp_node_clone(const struct rp_node *n)
{
	struct rp_node *m = n->type == RP_NODE_SCALAR ? rp_node_new_scalar(n->scalar, n->plain, n->pos)
						      : rp_node_new(n->type, n->pos);
	for (size_t i = 0; m && n->type != RP_NODE_SCALAR && i < n->n; i++) {
		struct rp_node *item = rp_node_clone(n->type == RP_NODE_MAP ? n->kv[i].val : n->items[i]);
		int rc = !item ? -1
			 : n->type == RP_NODE_MAP ? rp_node_map_add(m, n->kv[i].key, n->kv[i].key_pos, item)
						   : rp_node_seq_add(m, item);
		if (rc) {
			rp_node_free(item);
			rp_node_free(m);
			return NULL;
		}
	}
	return m;
}

static int grow(struct rp_node *n, size_t elem)
{
	if (n->n < n->cap)
		return 0;
	size_t cap = n->cap ? n->cap * 2 : 8;
	void **slot = n->type == RP_NODE_MAP ? (void **)&n->kv : (void **)&n->items;
	void *p = realloc(*slot, cap * elem);
	if (!p)
		return -1;
	*slot = p;
	n->cap = cap;
	return 0;
}

int rp_node_map_add(struct rp_node *map, const char *key, struct rp_pos key_pos, struct rp_node *val)
{
	if (map->type != RP_NODE_MAP || grow(map, sizeof(*map->kv)))
		return -1;
	char *k = strdup(key);
	if (!k)
		return -1;
	map->kv[map->n++] = (struct rp_node_kv){.key = k, .key_pos = key_pos, .val = val};
	return 0;
}

int rp_node_seq_add(struct rp_node *seq, struct rp_node *item)
{
	if (seq->type != RP_NODE_SEQ || grow(seq, sizeof(*seq->items)))
		return -1;
	seq->items[seq->n++] = item;
	return 0;
}

const struct rp_node_kv *rp_node_get_kv(const struct rp_node *map, const char *key)
{
	if (!map || map->type != RP_NODE_MAP)
		return NULL;
	for (size_t i = 0; i < map->n; i++)
		if (strcmp(map->kv[i].key, key) == 0)
			return &map->kv[i];
	return NULL;
}

struct rp_node *rp_node_get(const struct rp_node *map, const char *key)
{
	const struct rp_node_kv *kv = rp_node_get_kv(map, key);
	return kv ? kv->val : NULL;
}

const char *rp_node_type_name(enum rp_node_type t)
{
	switch (t) {
	case RP_NODE_SCALAR:
		return "a scalar";
	case RP_NODE_MAP:
		return "a mapping";
	case RP_NODE_SEQ:
		return "a list";
	}
	return "?";
}
