#include "check.h"

#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int rp_verr(struct rp_vctx *c, const struct rp_pos *pos, const char *key, const char *fmt, ...)
{
	int n;
	if (pos->line)
		n = snprintf(c->err, c->errlen, "%s:%u:%u: key '%s': ", pos->file, pos->line, pos->col, key);
	else
		n = snprintf(c->err, c->errlen, "%s: key '%s': ", pos->file, key);
	if (n >= 0 && (size_t)n < c->errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

void rp_path_key(char *out, const char *parent, const char *key)
{
	if (parent && *parent)
		snprintf(out, RP_PATH_MAX, "%s.%s", parent, key);
	else
		snprintf(out, RP_PATH_MAX, "%s", key);
}

void rp_path_index(char *out, const char *parent, size_t i)
{
	snprintf(out, RP_PATH_MAX, "%s[%zu]", parent, i);
}

int rp_vkeys(struct rp_vctx *c, const struct rp_node *map, const char *path, const char *const *allowed)
{
	for (size_t i = 0; i < map->n; i++) {
		bool ok = false;
		for (const char *const *a = allowed; *a && !ok; a++)
			ok = strcmp(*a, map->kv[i].key) == 0;
		if (ok)
			continue;
		char list[320] = "", key[RP_PATH_MAX];
		size_t used = 0;
		for (const char *const *a = allowed; *a && used < sizeof(list); a++)
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", a == allowed ? "" : ", ", *a);
		rp_path_key(key, path, map->kv[i].key);
		return rp_verr(c, &map->kv[i].key_pos, key, "unknown key; allowed: %s", list);
	}
	return 0;
}

int rp_vtype(struct rp_vctx *c, const struct rp_node *n, const char *path, enum rp_node_type t, const char *what)
{
	if (n->type == t)
		return 0;
	if (n->type == RP_NODE_SCALAR)
		return rp_verr(c, &n->pos, path, "expected %s, got '%s'", what, n->scalar);
	return rp_verr(c, &n->pos, path, "expected %s, got %s", what, rp_node_type_name(n->type));
}

int rp_vscalar(struct rp_vctx *c, const struct rp_node *n, const char *path, const char *what, const char **s)
{
	if (n->type != RP_NODE_SCALAR)
		return rp_verr(c, &n->pos, path, "expected %s, got %s", what, rp_node_type_name(n->type));
	if (n->scalar[0] == '\0')
		return rp_verr(c, &n->pos, path, "expected %s, got nothing", what);
	*s = n->scalar;
	return 0;
}

int rp_vsize(struct rp_vctx *c, const struct rp_node *n, const char *path, uint64_t max, uint64_t *v)
{
	static const char what[] = "a size like 4096, 64KiB or 1MB";
	const char *s;
	if (rp_vscalar(c, n, path, what, &s))
		return -1;
	if (rp_parse_size(s, v))
		return rp_verr(c, &n->pos, path, "expected %s, got '%s'", what, s);
	if (*v > max) {
		char m[32];
		return rp_verr(c, &n->pos, path, "'%s' is larger than the maximum %s", s, rp_format_size(max, m, sizeof(m)));
	}
	return 0;
}

int rp_vrate(struct rp_vctx *c, const struct rp_node *n, const char *path, struct rp_rate *r)
{
	static const char what[] = "a rate like 100G, 25Gbps or 40%";
	const char *s;
	if (rp_vscalar(c, n, path, what, &s))
		return -1;
	if (rp_parse_rate(s, r))
		return rp_verr(c, &n->pos, path, "expected %s, got '%s'", what, s);
	return 0;
}

int rp_vspeed(struct rp_vctx *c, const struct rp_node *n, const char *path, uint64_t *bps)
{
	static const char what[] = "a link speed like 100G or 25Gbps";
	const char *s;
	if (rp_vscalar(c, n, path, what, &s))
		return -1;
	if (rp_parse_bitrate(s, bps) || *bps > 10000000000000ull)
		return rp_verr(c, &n->pos, path, "expected %s, got '%s'", what, s);
	return 0;
}

int rp_vduration(struct rp_vctx *c, const struct rp_node *n, const char *path, uint64_t *ns)
{
	static const char what[] = "a duration like 50us, 1ms or 2s";
	const char *s;
	if (rp_vscalar(c, n, path, what, &s))
		return -1;
	if (rp_parse_duration(s, ns) || *ns > 86400000000000ull)
		return rp_verr(c, &n->pos, path, "expected %s, got '%s'", what, s);
	return 0;
}

int rp_vuint(struct rp_vctx *c, const struct rp_node *n, const char *path, uint64_t min, uint64_t max, uint64_t *v)
{
	char what[64];
	snprintf(what, sizeof(what), "a whole number from %llu to %llu", (unsigned long long)min, (unsigned long long)max);
	const char *s;
	if (rp_vscalar(c, n, path, what, &s))
		return -1;
	if (rp_parse_uint(s, UINT64_MAX, v) || *v < min || *v > max)
		return rp_verr(c, &n->pos, path, "expected %s, got '%s'", what, s);
	return 0;
}

int rp_vname(struct rp_vctx *c, const struct rp_node *n, const char *path, char *out, size_t len)
{
	static const char what[] = "a name of letters, digits, '-', '_' or '.'";
	const char *s;
	if (rp_vscalar(c, n, path, what, &s))
		return -1;
	size_t l = strlen(s);
	bool ok = l < len;
	for (const char *p = s; ok && *p; p++)
		ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '-' ||
		     *p == '_' || *p == '.';
	if (!ok)
		return rp_verr(c, &n->pos, path, "expected %s (at most %zu characters), got '%s'", what, len - 1, s);
	memcpy(out, s, l + 1);
	return 0;
}

int rp_vhost(struct rp_vctx *c, const struct rp_node *n, const char *path, uint16_t *idx)
{
	const char *s;
	if (rp_vscalar(c, n, path, "a host name", &s))
		return -1;
	int i = rp_profile_host_index(c->prof, s);
	if (i >= 0) {
		*idx = (uint16_t)i;
		return 0;
	}
	char list[200] = "";
	size_t used = 0;
	for (size_t h = 0; h < c->prof->nhosts && used < sizeof(list) - 8; h++) {
		if (h == 8) {
			snprintf(list + used, sizeof(list) - used, ", ...");
			break;
		}
		used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", h ? ", " : "", c->prof->hosts[h].name);
	}
	return rp_verr(c, &n->pos, path, "no host named '%s' (hosts: %s)", s, list);
}

/* One entry of a host list: a name, `all`, or a glob (h*, rack1-?, h[0-3]):
 * appended to out in host order, each host once. */
static int host_entry(struct rp_vctx *c, const struct rp_node *n, const char *path, uint16_t *out, size_t *count)
{
	const char *s;
	if (rp_vscalar(c, n, path, "a host name, all, or a glob like h*", &s))
		return -1;
	bool all = !strcmp(s, "all") && rp_profile_host_index(c->prof, s) < 0;
	if (!all && !strpbrk(s, "*?[")) {
		uint16_t idx;
		if (rp_vhost(c, n, path, &idx))
			return -1;
		for (size_t j = 0; j < *count; j++)
			if (out[j] == idx)
				return rp_verr(c, &n->pos, path, "host '%s' is listed twice", s);
		out[(*count)++] = idx;
		return 0;
	}
	size_t matched = 0;
	for (size_t h = 0; h < c->prof->nhosts; h++) {
		if (!all && fnmatch(s, c->prof->hosts[h].name, 0) != 0)
			continue;
		matched++;
		bool seen = false;
		for (size_t j = 0; j < *count && !seen; j++)
			seen = out[j] == h;
		if (!seen)
			out[(*count)++] = (uint16_t)h;
	}
	if (!matched)
		return rp_verr(c, &n->pos, path, "'%s' matches no host name", s);
	return 0;
}

int rp_vhost_list(struct rp_vctx *c, const struct rp_node *n, const char *path, uint16_t *out, size_t *count)
{
	*count = 0;
	if (n->type == RP_NODE_SCALAR)
		return host_entry(c, n, path, out, count);
	if (rp_vtype(c, n, path, RP_NODE_SEQ, "a list of host names like [h1, h2]"))
		return -1;
	if (n->n == 0)
		return rp_verr(c, &n->pos, path, "expected at least one host name, got an empty list");
	if (n->n > RP_MAX_HOSTS)
		return rp_verr(c, &n->pos, path, "at most %d hosts, got %zu", RP_MAX_HOSTS, n->n);
	for (size_t i = 0; i < n->n; i++) {
		char key[RP_PATH_MAX];
		rp_path_index(key, path, i);
		if (host_entry(c, n->items[i], key, out, count))
			return -1;
	}
	return 0;
}
