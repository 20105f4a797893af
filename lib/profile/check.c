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

int rp_vprio_mask(struct rp_vctx *c, const struct rp_node *n, const char *path, bool at_least_one, uint8_t *mask)
{
	char item[RP_PATH_MAX];
	uint64_t p;
	if (n->type == RP_NODE_SCALAR) {
		if (rp_vuint(c, n, path, 0, 7, &p))
			return -1;
		*mask = (uint8_t)(1u << p);
		return 0;
	}
	if (rp_vtype(c, n, path, RP_NODE_SEQ, "a list of priorities 0..7 like [3]"))
		return -1;
	if (at_least_one && n->n == 0)
		return rp_verr(c, &n->pos, path, "expected at least one priority, like [3]");
	*mask = 0;
	for (size_t i = 0; i < n->n; i++) {
		rp_path_index(item, path, i);
		if (rp_vuint(c, n->items[i], item, 0, 7, &p))
			return -1;
		*mask |= (uint8_t)(1u << p);
	}
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

bool rp_endpoints_overlap(const struct rp_profile *p, uint16_t a, bool as, uint16_t b, bool bs)
{
	if (as || bs)
		return p->hosts[a].server == p->hosts[b].server;
	return a == b;
}

int rp_vhost(struct rp_vctx *c, const struct rp_node *n, const char *path, uint16_t *idx, bool *spread)
{
	const char *s;
	if (rp_vscalar(c, n, path, "a host name", &s))
		return -1;
	int si = rp_profile_server_index(c->prof, s);
	if (si >= 0) {
		const struct rp_server *sv = &c->prof->servers[si];
		if (sv->nnics > 1 && !spread)
			return rp_verr(c, &n->pos, path, "host '%s' has %u NICs: name one of them (%s .. %s)", s, sv->nnics,
				       c->prof->hosts[sv->nic0].name, c->prof->hosts[sv->nic0 + sv->nnics - 1].name);
		*idx = sv->nic0;
		if (spread)
			*spread = sv->nnics > 1;
		return 0;
	}
	int i = rp_profile_host_index(c->prof, s);
	if (i >= 0) {
		*idx = (uint16_t)i;
		if (spread)
			*spread = false;
		return 0;
	}
	char list[200] = "";
	size_t used = 0;
	for (size_t h = 0; h < c->prof->nservers && used < sizeof(list) - 8; h++) {
		if (h == 8) {
			snprintf(list + used, sizeof(list) - used, ", ...");
			break;
		}
		used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", h ? ", " : "", c->prof->servers[h].name);
	}
	const char *dot = strchr(s, '.');
	if (dot) {
		char host[RP_NAME_MAX];
		size_t l = (size_t)(dot - s);
		int hs = -1;
		if (l < sizeof(host)) {
			memcpy(host, s, l);
			host[l] = '\0';
			hs = rp_profile_server_index(c->prof, host);
		}
		if (hs >= 0) {
			const struct rp_server *sv = &c->prof->servers[hs];
			return rp_verr(c, &n->pos, path, "host '%s' has no NIC '%s' (its NICs: %s .. %s)", host, dot + 1,
				       c->prof->hosts[sv->nic0].name, c->prof->hosts[sv->nic0 + sv->nnics - 1].name);
		}
	}
	return rp_verr(c, &n->pos, path, "no host named '%s' (hosts: %s)", s, list);
}

/* Appends endpoint (idx, spread) unless it is there already (error: twice). */
static int add_endpoint(struct rp_vctx *c, const struct rp_node *n, const char *path, uint16_t idx, bool spread,
			uint16_t *out, bool *out_spread, size_t *count, bool strict)
{
	for (size_t j = 0; j < *count; j++) {
		if (!rp_endpoints_overlap(c->prof, out[j], out_spread && out_spread[j], idx, spread))
			continue;
		if (!strict)
			return 0;
		const char *name = spread ? c->prof->servers[c->prof->hosts[idx].server].name : c->prof->hosts[idx].name;
		return out[j] == idx && (out_spread ? out_spread[j] : false) == spread
			       ? rp_verr(c, &n->pos, path, "host '%s' is listed twice", name)
			       : rp_verr(c, &n->pos, path, "'%s' is listed twice: as a host and as one of its NICs", name);
	}
	out[*count] = idx;
	if (out_spread)
		out_spread[*count] = spread;
	(*count)++;
	return 0;
}

/* One entry of a host list: a name, `all`, or a glob (h*, rack1-?, h[0-3]):
 * appended to out in host order, each host once. A glob with a '.' matches
 * NIC names (h*.nic0), any other the hosts' names. */
static int host_entry(struct rp_vctx *c, const struct rp_node *n, const char *path, uint16_t *out, bool *out_spread,
		      size_t *count)
{
	const struct rp_profile *p = c->prof;
	const char *s;
	if (rp_vscalar(c, n, path, "a host name, all, or a glob like h*", &s))
		return -1;
	bool all = !strcmp(s, "all") && rp_profile_server_index(p, s) < 0 && rp_profile_host_index(p, s) < 0;
	if (!all && !strpbrk(s, "*?[")) {
		uint16_t idx;
		bool spread = false;
		if (rp_vhost(c, n, path, &idx, out_spread ? &spread : NULL))
			return -1;
		return add_endpoint(c, n, path, idx, spread, out, out_spread, count, true);
	}
	size_t matched = 0;
	if (!all && strchr(s, '.')) {
		for (size_t h = 0; h < p->nhosts; h++)
			if (fnmatch(s, p->hosts[h].name, 0) == 0 && ++matched &&
			    add_endpoint(c, n, path, (uint16_t)h, false, out, out_spread, count, false))
				return -1;
	} else {
		for (size_t i = 0; i < p->nservers; i++) {
			const struct rp_server *sv = &p->servers[i];
			if (!all && fnmatch(s, sv->name, 0) != 0)
				continue;
			matched++;
			if (sv->nnics > 1 && !out_spread)
				return rp_verr(c, &n->pos, path, "host '%s' has %u NICs: name them (like %s.*)", sv->name,
					       sv->nnics, sv->name);
			if (add_endpoint(c, n, path, sv->nic0, sv->nnics > 1, out, out_spread, count, false))
				return -1;
		}
	}
	if (!matched)
		return rp_verr(c, &n->pos, path, "'%s' matches no host name", s);
	return 0;
}

int rp_vhost_list(struct rp_vctx *c, const struct rp_node *n, const char *path, uint16_t *out, bool *out_spread,
		  size_t *count)
{
	*count = 0;
	if (n->type == RP_NODE_SCALAR)
		return host_entry(c, n, path, out, out_spread, count);
	if (rp_vtype(c, n, path, RP_NODE_SEQ, "a list of host names like [h1, h2]"))
		return -1;
	if (n->n == 0)
		return rp_verr(c, &n->pos, path, "expected at least one host name, got an empty list");
	if (n->n > RP_MAX_HOSTS)
		return rp_verr(c, &n->pos, path, "at most %d hosts, got %zu", RP_MAX_HOSTS, n->n);
	for (size_t i = 0; i < n->n; i++) {
		char key[RP_PATH_MAX];
		rp_path_index(key, path, i);
		if (host_entry(c, n->items[i], key, out, out_spread, count))
			return -1;
	}
	return 0;
}
