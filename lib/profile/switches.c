/* The `switches:` section: switches whose counters `roceprobe run` samples
 * on its timebase (docs/profiles.md), each a lib/counters switch source
 * (sonic://, snmp://, exec:) and what its ports face: a host of the
 * profile, or another switch's port. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "counters/sources.h"
#include "units.h"

static const char *const switch_keys[] = {"name", "source", "credentials", "map", "interval", "optional", "ports",
					  NULL};

static int text(struct rp_vctx *c, const struct rp_node *map, const char *path, const char *k, char *out, size_t len)
{
	char key[RP_PATH_MAX];
	const char *s;
	const struct rp_node *n = rp_node_get(map, k);
	rp_path_key(key, path, k);
	if (!n)
		return 0;
	if (rp_vscalar(c, n, key, "a file path", &s))
		return -1;
	if (strlen(s) >= len)
		return rp_verr(c, &n->pos, key, "longer than %zu characters", len - 1);
	snprintf(out, len, "%s", s);
	return 0;
}

static int source(struct rp_vctx *c, const struct rp_node *map, const char *path, struct rp_switch_src *w)
{
	char key[RP_PATH_MAX], err[400];
	const char *s;
	struct rp_cnt_source src;
	const struct rp_node *n = rp_node_get(map, "source");
	rp_path_key(key, path, "source");
	if (!n)
		return rp_verr(c, &map->pos, key, "missing; switch '%s' needs a source: sonic://HOST[:PORT], "
			       "snmp://HOST[:PORT] or exec:CMD", w->name);
	if (rp_vscalar(c, n, key, "a switch source like sonic://10.0.0.1", &s))
		return -1;
	if (rp_cnt_source_parse(s, &src, err, sizeof(err)) != 0)
		return rp_verr(c, &n->pos, key, "switch '%s': %s", w->name, err);
	if (!rp_cnt_source_is_switch(&src))
		return rp_verr(c, &n->pos, key, "switch '%s': '%s' is a NIC's source; a switch's is sonic://HOST[:PORT], "
			       "snmp://HOST[:PORT] or exec:CMD", w->name, s);
	snprintf(w->source, sizeof(w->source), "%s", s);
	if (text(c, map, path, "credentials", w->credentials, sizeof(w->credentials)) ||
	    text(c, map, path, "map", w->map, sizeof(w->map)))
		return -1;
	const struct rp_node_kv *cred = rp_node_get_kv(map, "credentials"), *m = rp_node_get_kv(map, "map");
	if (src.kind == RP_CNT_SNMP && !cred)
		return rp_verr(c, &n->pos, key, "switch '%s': snmp:// needs credentials: FILE ('community NAME' or an "
			       "SNMPv3 user)", w->name);
	rp_path_key(key, path, cred ? "credentials" : "map");
	if (src.kind != RP_CNT_SNMP && cred)
		return rp_verr(c, &cred->key_pos, key, "switch '%s': credentials are for snmp:// sources", w->name);
	if (src.kind == RP_CNT_EXEC && !m)
		return rp_verr(c, &n->pos, key, "switch '%s': exec: needs map: FILE (the ports, and a JSON path per counter)",
			       w->name);
	if (src.kind != RP_CNT_EXEC && m)
		return rp_verr(c, &m->key_pos, key, "switch '%s': map is for exec: sources", w->name);
	return 0;
}

static int ports(struct rp_vctx *c, const struct rp_node *map, const char *path, struct rp_switch_src *w)
{
	char key[RP_PATH_MAX], item[RP_PATH_MAX];
	const struct rp_node *n = rp_node_get(map, "ports");
	rp_path_key(key, path, "ports");
	if (!n)
		return 0;
	if (rp_vtype(c, n, key, RP_NODE_MAP, "a mapping of switch port -> host, like {Ethernet0: h0}"))
		return -1;
	if (n->n && !(w->ports = calloc(n->n, sizeof(*w->ports))))
		return rp_verr(c, &n->pos, key, "out of memory");
	for (size_t i = 0; i < n->n; i++) {
		const struct rp_node_kv *kv = &n->kv[i];
		const char *s;
		rp_path_key(item, key, kv->key);
		if (strlen(kv->key) >= sizeof(w->ports[i].port))
			return rp_verr(c, &kv->key_pos, item, "a port name of at most %zu characters",
				       sizeof(w->ports[i].port) - 1);
		if (rp_vscalar(c, kv->val, item, "a host of the profile, or SWITCH:PORT", &s))
			return -1;
		if (strlen(s) >= sizeof(w->ports[i].peer))
			return rp_verr(c, &kv->val->pos, item, "longer than %zu characters", sizeof(w->ports[i].peer) - 1);
		snprintf(w->ports[i].port, sizeof(w->ports[i].port), "%s", kv->key);
		snprintf(w->ports[i].peer, sizeof(w->ports[i].peer), "%s", s);
		w->nports++;
		if (!strchr(s, ':') && rp_profile_host_index(c->prof, s) < 0 && rp_profile_server_index(c->prof, s) < 0)
			return rp_verr(c, &kv->val->pos, item, "switch '%s': port %s faces '%s', which is no host of the "
				       "profile (a host, or SWITCH:PORT for another switch's port)", w->name, kv->key, s);
	}
	return 0;
}

static int one(struct rp_vctx *c, const struct rp_node *map, const char *path, struct rp_switch_src *w)
{
	char key[RP_PATH_MAX];
	if (rp_vtype(c, map, path, RP_NODE_MAP, "a mapping with name and source") || rp_vkeys(c, map, path, switch_keys))
		return -1;
	const struct rp_node *n = rp_node_get(map, "name");
	rp_path_key(key, path, "name");
	if (!n)
		return rp_verr(c, &map->pos, key, "missing; every switch needs a name");
	if (rp_vname(c, n, key, w->name, sizeof(w->name)))
		return -1;
	for (size_t i = 0; i < c->prof->nswitches; i++)
		if (!strcmp(c->prof->switches[i].name, w->name))
			return rp_verr(c, &n->pos, key, "switch '%s' is named twice (switches[%zu] too)", w->name, i);
	w->interval_ns = 1000000000ull;
	if (source(c, map, path, w))
		return -1;
	if ((n = rp_node_get(map, "interval"))) {
		rp_path_key(key, path, "interval");
		if (rp_vduration(c, n, key, &w->interval_ns))
			return -1;
		if (w->interval_ns < 1000000 || w->interval_ns > 3600000000000ull)
			return rp_verr(c, &n->pos, key, "switch '%s': expected an interval from 1ms to 1h, got '%s'", w->name,
				       n->scalar);
	}
	if ((n = rp_node_get(map, "optional"))) {
		const char *s;
		int b;
		rp_path_key(key, path, "optional");
		if (rp_vscalar(c, n, key, "true or false", &s))
			return -1;
		if (rp_parse_bool(s, &b))
			return rp_verr(c, &n->pos, key, "switch '%s': expected true or false, got '%s'", w->name, s);
		w->optional = b;
	}
	return ports(c, map, path, w);
}

/* A port facing SWITCH:PORT names a switch of the section. */
static int peers(struct rp_vctx *c, const struct rp_node *list, const char *path)
{
	char key[RP_PATH_MAX], item[RP_PATH_MAX];
	const struct rp_profile *p = c->prof;
	for (size_t i = 0; i < p->nswitches; i++)
		for (size_t k = 0; k < p->switches[i].nports; k++) {
			const char *peer = p->switches[i].ports[k].peer, *colon = strchr(peer, ':');
			bool found = false;
			for (size_t j = 0; colon && j < p->nswitches; j++)
				found |= strlen(p->switches[j].name) == (size_t)(colon - peer) &&
					 !strncmp(p->switches[j].name, peer, (size_t)(colon - peer));
			if (!colon || (found && colon[1]))
				continue;
			const struct rp_node *ports = rp_node_get(list->items[i], "ports");
			rp_path_index(item, path, i);
			rp_path_key(key, item, "ports");
			rp_path_key(item, key, p->switches[i].ports[k].port);
			return rp_verr(c, &ports->kv[k].val->pos, item, "switch '%s': port %s faces '%s', which is %s",
				       p->switches[i].name, p->switches[i].ports[k].port, peer,
				       found ? "no port (SWITCH:PORT)" : "no switch of the section (SWITCH:PORT)");
		}
	return 0;
}

int rp_switches_parse(struct rp_vctx *c, const struct rp_node *n, const char *path)
{
	char item[RP_PATH_MAX];
	if (rp_vtype(c, n, path, RP_NODE_SEQ, "a list of switches, each {name, source, ...}"))
		return -1;
	if (n->n > RP_SWITCHES_MAX)
		return rp_verr(c, &n->pos, path, "%zu switches; at most %d", n->n, RP_SWITCHES_MAX);
	struct rp_profile *p = c->prof;
	if (n->n && !(p->switches = calloc(n->n, sizeof(*p->switches))))
		return rp_verr(c, &n->pos, path, "out of memory");
	for (size_t i = 0; i < n->n; i++) {
		rp_path_index(item, path, i);
		int rc = one(c, n->items[i], item, &p->switches[i]);
		p->nswitches++; /* freed with the profile, also half-made */
		if (rc)
			return -1;
	}
	return peers(c, n, path);
}
