/* --set path=value: edit the document tree before validation. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "node.h"

#define SET_MAX_DEPTH 16

struct set_path {
	char buf[256];
	char *part[SET_MAX_DEPTH];
	size_t n;
};

__attribute__((format(printf, 4, 5))) static int set_fail(char *err, size_t errlen, const char *src, const char *fmt, ...)
{
	int n = snprintf(err, errlen, "%s: ", src);
	if (n >= 0 && (size_t)n < errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static bool is_index(const char *s, size_t *out)
{
	if (!*s)
		return false;
	size_t v = 0;
	for (const char *p = s; *p; p++) {
		if (!isdigit((unsigned char)*p) || v > 1000000)
			return false;
		v = v * 10 + (size_t)(*p - '0');
	}
	*out = v;
	return true;
}

/* "traffic[0].rate" and "traffic.0.rate" both split into traffic / 0 / rate. */
static int split_path(const char *key, size_t keylen, struct set_path *p)
{
	if (keylen == 0 || keylen >= sizeof(p->buf))
		return -1;
	size_t j = 0;
	for (size_t i = 0; i < keylen; i++) {
		char c = key[i];
		if (c == '[')
			c = '.';
		else if (c == ']')
			continue;
		p->buf[j++] = c;
	}
	p->buf[j] = '\0';
	p->n = 0;
	for (char *s = p->buf;;) {
		char *dot = strchr(s, '.');
		if (dot)
			*dot = '\0';
		if (!*s || p->n == SET_MAX_DEPTH)
			return -1;
		p->part[p->n++] = s;
		if (!dot)
			return 0;
		s = dot + 1;
	}
}

static void relabel(struct rp_node *n, const char *src)
{
	n->pos = (struct rp_pos){.file = src};
	for (size_t i = 0; i < n->n; i++) {
		if (n->type == RP_NODE_MAP) {
			n->kv[i].key_pos = n->pos;
			relabel(n->kv[i].val, src);
		} else if (n->type == RP_NODE_SEQ) {
			relabel(n->items[i], src);
		}
	}
}

/* The value as a YAML flow value; a plain string when it does not parse. */
static struct rp_node *parse_value(const char *value, const char *src)
{
	char scratch[256];
	struct rp_node *v = NULL;
	if (*value)
		v = rp_yaml_load_string(src, value, strlen(value), scratch, sizeof(scratch));
	if (!v)
		v = rp_node_new_scalar(value, true, (struct rp_pos){.file = src});
	if (v)
		relabel(v, src);
	return v;
}

/* Walks (creating maps for missing keys) to the container of the last part. */
static struct rp_node *walk(struct rp_node *cur, const struct set_path *p, const char *src, char *err, size_t errlen)
{
	for (size_t i = 0; i + 1 < p->n; i++) {
		const char *part = p->part[i];
		size_t idx;
		if (cur->type == RP_NODE_SEQ) {
			if (!is_index(part, &idx) || idx >= cur->n) {
				set_fail(err, errlen, src, "'%s' is a list of %zu entries; '%s' is not an index into it",
					 i ? p->part[i - 1] : "(top)", cur->n, part);
				return NULL;
			}
			cur = cur->items[idx];
			continue;
		}
		if (cur->type != RP_NODE_MAP) {
			set_fail(err, errlen, src, "'%s' is a scalar; it has no key '%s'", i ? p->part[i - 1] : "(top)", part);
			return NULL;
		}
		struct rp_node *next = rp_node_get(cur, part);
		if (!next) {
			if (is_index(p->part[i + 1], &idx)) {
				set_fail(err, errlen, src, "there is no list '%s' to index", part);
				return NULL;
			}
			next = rp_node_new(RP_NODE_MAP, (struct rp_pos){.file = src});
			if (!next || rp_node_map_add(cur, part, (struct rp_pos){.file = src}, next)) {
				rp_node_free(next);
				set_fail(err, errlen, src, "out of memory");
				return NULL;
			}
		}
		cur = next;
	}
	return cur;
}

static int put_last(struct rp_node *parent, const char *part, const char *prev, struct rp_node *val, const char *src,
		    char *err, size_t errlen)
{
	size_t idx;
	if (parent->type == RP_NODE_SEQ) {
		if (!is_index(part, &idx) || idx > parent->n)
			return set_fail(err, errlen, src, "'%s' is a list of %zu entries; '%s' is not an index into it",
					prev, parent->n, part);
		if (idx == parent->n)
			return rp_node_seq_add(parent, val) ? set_fail(err, errlen, src, "out of memory") : 0;
		rp_node_free(parent->items[idx]);
		parent->items[idx] = val;
		return 0;
	}
	if (parent->type != RP_NODE_MAP)
		return set_fail(err, errlen, src, "'%s' is a scalar; it has no key '%s'", prev, part);
	for (size_t i = 0; i < parent->n; i++) {
		if (strcmp(parent->kv[i].key, part) == 0) {
			rp_node_free(parent->kv[i].val);
			parent->kv[i].val = val;
			return 0;
		}
	}
	return rp_node_map_add(parent, part, (struct rp_pos){.file = src}, val) ? set_fail(err, errlen, src, "out of memory") : 0;
}

int rp_node_set(struct rp_node **root, const char *src, char *err, size_t errlen)
{
	const char *assign = strncmp(src, "--set ", 6) == 0 ? src + 6 : src;
	const char *eq = strchr(assign, '=');
	struct set_path path;
	if (!eq || split_path(assign, (size_t)(eq - assign), &path))
		return set_fail(err, errlen, src, "expected key=value with a dotted key like traffic.0.rate=50G or defaults.mtu=1024");
	if ((*root)->type == RP_NODE_SCALAR && (*root)->scalar[0] == '\0') {
		struct rp_node *map = rp_node_new(RP_NODE_MAP, (*root)->pos);
		if (!map)
			return set_fail(err, errlen, src, "out of memory");
		rp_node_free(*root);
		*root = map;
	}
	struct rp_node *parent = walk(*root, &path, src, err, errlen);
	if (!parent)
		return -1;
	struct rp_node *val = parse_value(eq + 1, src);
	if (!val)
		return set_fail(err, errlen, src, "out of memory");
	const char *prev = path.n > 1 ? path.part[path.n - 2] : "(top)";
	if (put_last(parent, path.part[path.n - 1], prev, val, src, err, errlen)) {
		rp_node_free(val);
		return -1;
	}
	return 0;
}
