/* The `hosts:` section: name, MAC, IPv4/IPv6, DPDK port and link speed. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static const char *const host_keys[] = {"name",    "mac",    "ipv4",   "ipv6",    "gateway", "gateway_mac", "port",
					"pci",     "speed",  "impair", "respond", "rank",    "node",        "engine", "device", "gid_index", "nics", NULL};
static const char *const impair_keys[] = {"drop_every", "drop_from", "drop_count", "ce_every", "delay", NULL};
static const char *const respond_keys[] = {"cnp", "ack", "nak", "cnp_dscp", "cnp_interval", "cnp_mode", NULL};

static bool pci_like(const char *s)
{
	/* [DDDD:]BB:DD.F */
	size_t colons = 0, dots = 0;
	for (const char *p = s; *p; p++) {
		if (*p == ':')
			colons++;
		else if (*p == '.')
			dots++;
		else if (!isxdigit((unsigned char)*p))
			return false;
	}
	return (colons == 1 || colons == 2) && dots == 1;
}

int rp_pair_parse(const char *devargs, char link[RP_PAIR_LINK_MAX + 1], int *side)
{
	if (strncmp(devargs, "pair:", 5) != 0)
		return 0;
	const char *name = devargs + 5, *colon = strchr(name, ':');
	size_t n = colon ? (size_t)(colon - name) : 0;
	if (n == 0 || n > RP_PAIR_LINK_MAX || (colon[1] != '0' && colon[1] != '1') || colon[2] != '\0')
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)name[i]) && name[i] != '-' && name[i] != '_')
			return -1;
	memcpy(link, name, n);
	link[n] = '\0';
	*side = colon[1] - '0';
	return 1;
}

/* A pair: end is well formed and no other host has it. */
static int host_pair(struct rp_vctx *c, const struct rp_node *port, const char *key, const struct rp_host *h)
{
	char link[RP_PAIR_LINK_MAX + 1];
	int side;
	int k = rp_pair_parse(h->port, link, &side);
	if (k < 0)
		return rp_verr(c, &port->pos, key,
			       "expected pair:LINK:0 or pair:LINK:1 (LINK: 1 to %d letters, digits, - or _), got '%s'",
			       RP_PAIR_LINK_MAX, h->port);
	for (size_t i = 0; k > 0 && i < c->prof->nhosts; i++)
		if (!strcmp(c->prof->hosts[i].port, h->port))
			return rp_verr(c, &port->pos, key, "'%s' is already hosts[%zu]'s port; each end of a pair link has one host",
				       h->port, (size_t)c->prof->hosts[i].server);
	return 0;
}

static int host_port(struct rp_vctx *c, const struct rp_node *map, const char *path, struct rp_host *h)
{
	char key[RP_PATH_MAX];
	const char *s;
	const struct rp_node *port = rp_node_get(map, "port"), *pci = rp_node_get(map, "pci");
	if (port && pci) {
		rp_path_key(key, path, "pci");
		return rp_verr(c, &pci->pos, key, "give either port (DPDK devargs) or pci, not both");
	}
	if (port) {
		rp_path_key(key, path, "port");
		if (rp_vscalar(c, port, key, "DPDK devargs like net_null0 or net_ring0", &s))
			return -1;
		if (strlen(s) >= sizeof(h->port))
			return rp_verr(c, &port->pos, key, "devargs longer than %zu characters", sizeof(h->port) - 1);
		strcpy(h->port, s);
		if (host_pair(c, port, key, h))
			return -1;
	}
	if (pci) {
		rp_path_key(key, path, "pci");
		if (rp_vscalar(c, pci, key, "a PCI address like 0000:03:00.0", &s))
			return -1;
		if (!pci_like(s) || strlen(s) >= sizeof(h->port))
			return rp_verr(c, &pci->pos, key, "expected a PCI address like 0000:03:00.0, got '%s'", s);
		strcpy(h->port, s);
		h->port_is_pci = true;
	}
	return 0;
}

static int opt_uint(struct rp_vctx *c, const struct rp_node *map, const char *path, const char *k, uint64_t max,
		    uint64_t *v)
{
	const struct rp_node *n = rp_node_get(map, k);
	char key[RP_PATH_MAX];
	rp_path_key(key, path, k);
	return n ? rp_vuint(c, n, key, 0, max, v) : 0;
}

static int host_impair(struct rp_vctx *c, const struct rp_node *map, const char *path, struct rp_impair *im)
{
	if (rp_vtype(c, map, path, RP_NODE_MAP, "a mapping of drop_every, drop_from, drop_count, ce_every, delay") ||
	    rp_vkeys(c, map, path, impair_keys))
		return -1;
	if (opt_uint(c, map, path, "drop_every", UINT32_MAX, &im->drop_every) ||
	    opt_uint(c, map, path, "drop_from", UINT32_MAX, &im->drop_from) ||
	    opt_uint(c, map, path, "drop_count", UINT32_MAX, &im->drop_count) ||
	    opt_uint(c, map, path, "ce_every", UINT32_MAX, &im->ce_every))
		return -1;
	const struct rp_node *n = rp_node_get(map, "delay");
	char key[RP_PATH_MAX];
	rp_path_key(key, path, "delay");
	return n ? rp_vduration(c, n, key, &im->delay_ns) : 0;
}

static int opt_bool(struct rp_vctx *c, const struct rp_node *map, const char *path, const char *k, bool *v)
{
	const struct rp_node *n = rp_node_get(map, k);
	if (!n)
		return 0;
	char key[RP_PATH_MAX];
	const char *s;
	rp_path_key(key, path, k);
	if (rp_vscalar(c, n, key, "on or off", &s))
		return -1;
	if (!strcmp(s, "on") || !strcmp(s, "true") || !strcmp(s, "yes"))
		*v = true;
	else if (!strcmp(s, "off") || !strcmp(s, "false") || !strcmp(s, "no"))
		*v = false;
	else
		return rp_verr(c, &n->pos, key, "expected on or off, got '%s'", s);
	return 0;
}

static int host_respond(struct rp_vctx *c, const struct rp_node *map, const char *path, struct rp_responder *r)
{
	if (rp_vtype(c, map, path, RP_NODE_MAP, "a mapping of cnp, ack, nak, cnp_dscp, cnp_interval, cnp_mode") ||
	    rp_vkeys(c, map, path, respond_keys))
		return -1;
	uint64_t dscp = r->cnp_dscp;
	if (opt_bool(c, map, path, "cnp", &r->cnp) || opt_bool(c, map, path, "ack", &r->ack) ||
	    opt_bool(c, map, path, "nak", &r->nak) || opt_uint(c, map, path, "cnp_dscp", 63, &dscp))
		return -1;
	r->cnp_dscp = (uint8_t)dscp;
	const struct rp_node *n = rp_node_get(map, "cnp_interval");
	char key[RP_PATH_MAX];
	rp_path_key(key, path, "cnp_interval");
	if (n && rp_vduration(c, n, key, &r->cnp_interval_ns))
		return -1;
	if (!(n = rp_node_get(map, "cnp_mode")))
		return 0;
	const char *s;
	rp_path_key(key, path, "cnp_mode");
	if (rp_vscalar(c, n, key, "paper or first", &s))
		return -1;
	if (strcmp(s, "paper") && strcmp(s, "first"))
		return rp_verr(c, &n->pos, key, "expected paper (a mark inside the CNP interval earns a CNP at its end) or first (it is forgotten), got '%s'", s);
	r->cnp_mode = strcmp(s, "paper") ? RP_CNP_FIRST : RP_CNP_PAPER;
	return 0;
}

static int host_behaviour(struct rp_vctx *c, const struct rp_node *map, const char *path, struct rp_host *h)
{
	char key[RP_PATH_MAX];
	const struct rp_node *n;
	h->responder = (struct rp_responder){.cnp_dscp = 48, .cnp_interval_ns = RP_CNP_INTERVAL_NS, .cnp_mode = RP_CNP_PAPER};
	if ((n = rp_node_get(map, "impair"))) {
		rp_path_key(key, path, "impair");
		if (host_impair(c, n, key, &h->impair))
			return -1;
	}
	if ((n = rp_node_get(map, "respond"))) {
		rp_path_key(key, path, "respond");
		if (host_respond(c, n, key, &h->responder))
			return -1;
	}
	return 0;
}

/* rank: and node: (where the host runs under a launcher; lib/cluster binds). */
static int host_placement(struct rp_vctx *c, const struct rp_node *map, const char *path, struct rp_host *h)
{
	char key[RP_PATH_MAX];
	const struct rp_node *rank = rp_node_get(map, "rank"), *node = rp_node_get(map, "node");
	uint64_t r;
	h->rank = -1;
	if (rank && node) {
		rp_path_key(key, path, "node");
		return rp_verr(c, &node->pos, key, "give either rank or node, not both");
	}
	if (rank) {
		rp_path_key(key, path, "rank");
		if (rp_vuint(c, rank, key, 0, RP_MAX_RANKS - 1, &r))
			return -1;
		h->rank = (int)r;
	}
	if (node) {
		const char *s;
		rp_path_key(key, path, "node");
		if (rp_vscalar(c, node, key, "a machine's hostname", &s))
			return -1;
		if (!*s || strlen(s) >= sizeof(h->node))
			return rp_verr(c, &node->pos, key, "expected a hostname of 1 to %zu characters, got '%s'",
				       sizeof(h->node) - 1, s);
		strcpy(h->node, s);
	}
	return 0;
}

static int host_parse(struct rp_vctx *c, const struct rp_node *map, const char *path, struct rp_host *h)
{
	char key[RP_PATH_MAX];
	if (rp_vtype(c, map, path, RP_NODE_MAP, "a host mapping with name, mac, ipv4/ipv6 and port") ||
	    rp_vkeys(c, map, path, host_keys))
		return -1;
	const struct rp_node *n = rp_node_get(map, "name");
	rp_path_key(key, path, "name");
	if (!n)
		return rp_verr(c, &map->pos, key, "missing; every host needs a name");
	if (rp_vname(c, n, key, h->name, sizeof(h->name)))
		return -1;
	int dup = rp_profile_host_index(c->prof, h->name);
	if (dup >= 0)
		return rp_verr(c, &n->pos, key, "duplicate host name '%s' (also hosts[%d])", h->name,
			       c->prof->hosts[dup].server);
	h->engine = c->prof->default_engine;
	if (rp_host_engine_parse(c, map, path, &h->engine) || rp_host_engine_check(c, map, path, h))
		return -1;
	if (host_port(c, map, path, h) || rp_host_addr_parse(c, map, path, h) || host_behaviour(c, map, path, h))
		return -1;
	h->speed_bps = c->prof->default_speed_bps;
	if ((n = rp_node_get(map, "speed"))) {
		rp_path_key(key, path, "speed");
		if (rp_vspeed(c, n, key, &h->speed_bps))
			return -1;
	}
	return host_placement(c, map, path, h);
}

/* The profile host of map: its server record, and its NICs as hosts[] entries. */
static int server_parse(struct rp_vctx *c, const struct rp_node *map, const char *path, size_t nnics)
{
	struct rp_profile *p = c->prof;
	struct rp_server *s = &p->servers[p->nservers];
	char key[RP_PATH_MAX];
	const struct rp_node *n = rp_node_get(map, "name");
	rp_path_key(key, path, "name");
	if (!n)
		return rp_verr(c, &map->pos, key, "missing; every host needs a name");
	if (rp_vname(c, n, key, s->name, sizeof(s->name)))
		return -1;
	int dup = rp_profile_server_index(p, s->name);
	bool expand = rp_node_get(map, "nics") != NULL;
	int nic = expand ? rp_profile_host_index(p, s->name) : -1;
	if (dup < 0 && nic >= 0)
		dup = p->hosts[nic].server;
	if (dup >= 0)
		return rp_verr(c, &n->pos, key, "duplicate host name '%s' (also hosts[%d])", s->name, dup);
	s->nic0 = (uint16_t)p->nhosts;
	s->nnics = (uint16_t)nnics;
	for (size_t r = 0; r < nnics; r++) {
		struct rp_host *h = &p->hosts[p->nhosts];
		int rc;
		if (!expand) {
			rc = host_parse(c, map, path, h);
		} else {
			struct rp_node *nic = rp_host_nic_map(c, map, path, (unsigned)r);
			char npath[RP_PATH_MAX];
			rp_path_key(key, path, "nics");
			rp_path_index(npath, key, r);
			rc = nic ? host_parse(c, nic, npath, h) : -1;
			rp_node_free(nic);
		}
		if (rc)
			return -1;
		h->server = (uint16_t)p->nservers;
		h->nic = (uint16_t)r;
		p->nhosts++;
	}
	p->nservers++;
	return 0;
}

int rp_hosts_parse(struct rp_vctx *c, const struct rp_node *n, const char *path)
{
	if (rp_vtype(c, n, path, RP_NODE_SEQ, "a list of hosts"))
		return -1;
	if (n->n < 1)
		return rp_verr(c, &n->pos, path, "expected at least one host, got an empty list");
	if (n->n > RP_MAX_HOSTS)
		return rp_verr(c, &n->pos, path, "at most %d hosts, got %zu", RP_MAX_HOSTS, n->n);
	size_t *nics = calloc(n->n, sizeof(*nics)), total = 0;
	if (!nics)
		return rp_verr(c, &n->pos, path, "out of memory");
	int rc = 0;
	for (size_t i = 0; i < n->n && rc == 0; i++) {
		char key[RP_PATH_MAX];
		rp_path_index(key, path, i);
		if (rp_vtype(c, n->items[i], key, RP_NODE_MAP, "a host mapping with name, mac, ipv4/ipv6 and port") ||
		    rp_vkeys(c, n->items[i], key, host_keys) || rp_host_nic_count(c, n->items[i], key, &nics[i]))
			rc = -1;
		else if ((total += nics[i]) > RP_MAX_HOSTS)
			rc = rp_verr(c, &n->items[i]->pos, key, "at most %d NICs in all hosts together, got %zu so far",
				     RP_MAX_HOSTS, total);
	}
	c->prof->hosts = rc ? NULL : calloc(total, sizeof(*c->prof->hosts));
	c->prof->servers = rc ? NULL : calloc(n->n, sizeof(*c->prof->servers));
	if (!rc && (!c->prof->hosts || !c->prof->servers))
		rc = rp_verr(c, &n->pos, path, "out of memory");
	for (size_t i = 0; i < n->n && rc == 0; i++) {
		char key[RP_PATH_MAX];
		rp_path_index(key, path, i);
		rc = server_parse(c, n->items[i], key, nics[i]);
	}
	free(nics);
	return rc;
}
