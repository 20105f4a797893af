/* libyaml event stream -> rp_node tree. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "node.h"

struct loader {
	yaml_parser_t parser;
	const char *file;
	char *err;
	size_t errlen;
	bool failed;
};

__attribute__((format(printf, 3, 4))) static void fail(struct loader *l, yaml_mark_t mark, const char *fmt, ...)
{
	if (l->failed)
		return;
	l->failed = true;
	int n = snprintf(l->err, l->errlen, "%s:%zu:%zu: ", l->file, mark.line + 1, mark.column + 1);
	if (n < 0 || (size_t)n >= l->errlen)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(l->err + n, l->errlen - (size_t)n, fmt, ap);
	va_end(ap);
}

static struct rp_pos pos_of(const struct loader *l, yaml_mark_t m)
{
	return (struct rp_pos){.file = l->file, .line = (unsigned)m.line + 1, .col = (unsigned)m.column + 1};
}

/* Next event; false (with the error set) on a syntax error. */
static bool next_event(struct loader *l, yaml_event_t *ev)
{
	if (yaml_parser_parse(&l->parser, ev))
		return true;
	const char *problem = l->parser.problem ? l->parser.problem : "unreadable input";
	if (l->parser.context)
		fail(l, l->parser.problem_mark, "invalid YAML: %s (%s)", problem, l->parser.context);
	else
		fail(l, l->parser.problem_mark, "invalid YAML: %s", problem);
	return false;
}

static struct rp_node *load_node(struct loader *l, yaml_event_t *ev);

static struct rp_node *load_seq(struct loader *l, yaml_event_t *start)
{
	struct rp_node *seq = rp_node_new(RP_NODE_SEQ, pos_of(l, start->start_mark));
	yaml_event_t ev;
	while (seq && next_event(l, &ev)) {
		if (ev.type == YAML_SEQUENCE_END_EVENT) {
			yaml_event_delete(&ev);
			return seq;
		}
		struct rp_node *item = load_node(l, &ev);
		yaml_event_delete(&ev);
		if (!item || rp_node_seq_add(seq, item)) {
			rp_node_free(item);
			break;
		}
	}
	rp_node_free(seq);
	return NULL;
}

static bool add_pair(struct loader *l, struct rp_node *map, yaml_event_t *kev)
{
	if (kev->type != YAML_SCALAR_EVENT) {
		fail(l, kev->start_mark, "a mapping key must be a plain word, not a list or mapping");
		return false;
	}
	const char *key = (const char *)kev->data.scalar.value;
	const struct rp_node_kv *dup = rp_node_get_kv(map, key);
	if (dup) {
		fail(l, kev->start_mark, "duplicate key '%s' (first at line %u)", key, dup->key_pos.line);
		return false;
	}
	yaml_event_t vev;
	if (!next_event(l, &vev))
		return false;
	struct rp_node *val = load_node(l, &vev);
	yaml_event_delete(&vev);
	if (!val || rp_node_map_add(map, key, pos_of(l, kev->start_mark), val)) {
		rp_node_free(val);
		return false;
	}
	return true;
}

static struct rp_node *load_map(struct loader *l, yaml_event_t *start)
{
	struct rp_node *map = rp_node_new(RP_NODE_MAP, pos_of(l, start->start_mark));
	yaml_event_t kev;
	while (map && next_event(l, &kev)) {
		if (kev.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&kev);
			return map;
		}
		bool ok = add_pair(l, map, &kev);
		yaml_event_delete(&kev);
		if (!ok)
			break;
	}
	rp_node_free(map);
	return NULL;
}

static struct rp_node *load_node(struct loader *l, yaml_event_t *ev)
{
	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		return rp_node_new_scalar((const char *)ev->data.scalar.value,
					  ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE, pos_of(l, ev->start_mark));
	case YAML_SEQUENCE_START_EVENT:
		return load_seq(l, ev);
	case YAML_MAPPING_START_EVENT:
		return load_map(l, ev);
	case YAML_ALIAS_EVENT:
		fail(l, ev->start_mark, "YAML aliases (*name) are not supported in profiles");
		return NULL;
	default:
		fail(l, ev->start_mark, "unexpected YAML event");
		return NULL;
	}
}

/* Skips STREAM_START and DOCUMENT_START; returns the root or an empty-document
 * marker (a plain empty scalar at 1:1). */
static struct rp_node *load_document(struct loader *l)
{
	yaml_event_t ev;
	struct rp_node *root = NULL;
	while (!l->failed && next_event(l, &ev)) {
		yaml_event_type_t t = ev.type;
		if (t == YAML_STREAM_START_EVENT || t == YAML_DOCUMENT_START_EVENT) {
			yaml_event_delete(&ev);
			continue;
		}
		if (t == YAML_STREAM_END_EVENT) {
			yaml_event_delete(&ev);
			break;
		}
		if (t == YAML_DOCUMENT_END_EVENT) {
			yaml_event_delete(&ev);
			continue;
		}
		if (root) {
			fail(l, ev.start_mark, "only one YAML document per profile (remove the extra '---')");
			yaml_event_delete(&ev);
			break;
		}
		root = load_node(l, &ev);
		yaml_event_delete(&ev);
	}
	if (l->failed) {
		rp_node_free(root);
		return NULL;
	}
	if (!root)
		root = rp_node_new_scalar("", true, (struct rp_pos){.file = l->file, .line = 1, .col = 1});
	return root;
}

struct rp_node *rp_yaml_load_string(const char *file, const char *text, size_t len, char *err, size_t errlen)
{
	struct loader l = {.file = file, .err = err, .errlen = errlen};
	if (errlen)
		err[0] = '\0';
	if (!yaml_parser_initialize(&l.parser)) {
		snprintf(err, errlen, "%s: out of memory", file);
		return NULL;
	}
	yaml_parser_set_input_string(&l.parser, (const unsigned char *)text, len);
	struct rp_node *root = load_document(&l);
	yaml_parser_delete(&l.parser);
	if (!root && err[0] == '\0')
		snprintf(err, errlen, "%s: out of memory", file);
	return root;
}

struct rp_node *rp_yaml_load_file(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		return NULL;
	}
	char *buf = NULL;
	size_t len = 0, cap = 0;
	for (;;) {
		if (len + 4096 > cap) {
			cap = cap ? cap * 2 : 65536;
			char *p = realloc(buf, cap);
			if (!p) {
				free(buf);
				fclose(f);
				snprintf(err, errlen, "%s: out of memory", path);
				return NULL;
			}
			buf = p;
		}
		size_t got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
	}
	bool bad = ferror(f);
	fclose(f);
	if (bad) {
		free(buf);
		snprintf(err, errlen, "%s: read error", path);
		return NULL;
	}
	struct rp_node *root = rp_yaml_load_string(path, buf, len, err, errlen);
	free(buf);
	return root;
}
