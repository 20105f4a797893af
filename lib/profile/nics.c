/* A host's `nics:` (docs/profiles.md, "Hosts with several NICs"): `nics: 8`,
 * or a list of NICs each with its own name, mac, ipv4, ipv6, gateway,
 * gateway_mac, port or pci (device, gid_index with engine: verbs). Each NIC
 * becomes one entry of hosts[] through the one host parser: its map is the
 * host's (less `nics`), named HOST.NIC, with the NIC's own keys over it and
 * what it does not give derived from the host's by its number r:
 * - mac: the host's + r (a board's NICs have consecutive MACs);
 * - ipv4, ipv6, gateway: with a prefix, r subnets up (10.0.0.1/24 -> NIC r
 *   10.0.r.1/24: one subnet per rail, as rail-optimised clusters number
 *   them); without, the address + r;
 * - everything else (speed, impair, respond, rank, node, engine, ...) as is.
 * port and pci cannot be derived: a host with ports names them per NIC. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "wire/eth.h"
#include "wire/ipv4.h"
#include "wire/ipv6.h"

static const char *const nic_keys[] = {"name", "mac", "ipv4",   "ipv6",      "gateway", "gateway_mac",
				       "port", "pci", "device", "gid_index", NULL};

int rp_host_nic_count(struct rp_vctx *c, const struct rp_node *map, const char *path, size_t *n)
{
	char key[RP_PATH_MAX];
	const struct rp_node *nics = rp_node_get(map, "nics");
	uint64_t v;
	*n = 1;
	if (!nics)
		return 0;
	rp_path_key(key, path, "nics");
	if (nics->type == RP_NODE_SEQ) {
		if (nics->n < 1 || nics->n > RP_NICS_MAX)
			return rp_verr(c, &nics->pos, key, "expected 1 to %d NICs, got %zu", RP_NICS_MAX, nics->n);
		*n = nics->n;
		return 0;
	}
	if (nics->type != RP_NODE_SCALAR || rp_vuint(c, nics, key, 1, RP_NICS_MAX, &v))
		return nics->type != RP_NODE_SCALAR
			       ? rp_verr(c, &nics->pos, key, "expected a NIC count 1..%d or a list of NICs, got %s",
					 RP_NICS_MAX, rp_node_type_name(nics->type))
			       : -1;
	*n = (size_t)v;
	return 0;
}

/* a (big-endian, len bytes) += r x 2^shift; -1 when it overflows. */
static int add_shifted(uint8_t *a, size_t len, uint64_t r, unsigned shift)
{
	if (shift >= len * 8)
		return r ? -1 : 0;
	size_t byte = len - 1 - shift / 8;
	unsigned __int128 carry = (unsigned __int128)r << (shift % 8);
	for (size_t i = byte + 1; i-- > 0 && carry;) {
		carry += a[i];
		a[i] = (uint8_t)carry;
		carry >>= 8;
	}
	return carry ? -1 : 0;
}

/* The host's prefix length of a family ("10.0.0.1/24" -> 24), or -1 without one. */
static int prefix_of(const struct rp_node *map, const char *family)
{
	const struct rp_node *n = rp_node_get(map, family);
	const char *slash = n && n->type == RP_NODE_SCALAR ? strchr(n->scalar, '/') : NULL;
	return slash ? atoi(slash + 1) : -1;
}

/* Address text s of NIC r: r subnets up with a prefix, else + r. 1: not an
 * address (left as it is for the host parser to judge), 0, or -1 when it
 * runs out of the address space. */
static int derive_ip(const char *s, int plen4, int plen6, unsigned r, char *out, size_t cap)
{
	char addr[64];
	const char *slash = strchr(s, '/');
	size_t l = slash ? (size_t)(slash - s) : strlen(s);
	if (l >= sizeof(addr))
		return 1;
	memcpy(addr, s, l);
	addr[l] = '\0';
	uint32_t a4;
	uint8_t a6[16];
	if (rp_ipv4_addr_parse(addr, &a4) == 0) {
		uint8_t b[4] = {(uint8_t)(a4 >> 24), (uint8_t)(a4 >> 16), (uint8_t)(a4 >> 8), (uint8_t)a4};
		if (add_shifted(b, 4, r, plen4 >= 0 && plen4 <= 32 ? 32u - (unsigned)plen4 : 0))
			return -1;
		rp_ipv4_addr_format((uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3], addr);
	} else if (rp_ipv6_addr_parse(addr, a6) == 0) {
		if (add_shifted(a6, 16, r, plen6 >= 0 && plen6 <= 128 ? 128u - (unsigned)plen6 : 0))
			return -1;
		rp_ipv6_addr_format(a6, addr);
	} else {
		return 1;
	}
	snprintf(out, cap, "%s%s", addr, slash ? slash : "");
	return 0;
}

static int derive_mac(const char *s, unsigned r, char *out)
{
	uint8_t mac[6];
	if (!strcmp(s, "auto") || rp_mac_parse(s, mac))
		return 1;
	if (add_shifted(mac, 6, r, 0))
		return -1;
	rp_mac_format(mac, out);
	return 0;
}

/* A copy of n, or NULL after the one line (out of memory). */
static struct rp_node *copy(struct rp_vctx *c, const struct rp_node *n, const char *key)
{
	struct rp_node *m = rp_node_clone(n);
	if (!m)
		rp_verr(c, &n->pos, key, "out of memory");
	return m;
}

/* A copy of v (the host's value of key k) for NIC r. */
static struct rp_node *derived(struct rp_vctx *c, const struct rp_node *map, const char *k, const struct rp_node *v,
			       const char *path, unsigned r)
{
	char out[80], key[RP_PATH_MAX];
	rp_path_key(key, path, k);
	bool addr = !strcmp(k, "ipv4") || !strcmp(k, "ipv6") || !strcmp(k, "gateway"), mac = !strcmp(k, "mac");
	if (v->type == RP_NODE_SEQ && !strcmp(k, "gateway")) { /* [v4, v6] */
		struct rp_node *s = rp_node_new(RP_NODE_SEQ, v->pos);
		if (!s)
			rp_verr(c, &v->pos, key, "out of memory");
		for (size_t i = 0; s && i < v->n; i++) {
			struct rp_node *item = derived(c, map, k, v->items[i], path, r);
			if (!item || rp_node_seq_add(s, item)) {
				if (item)
					rp_verr(c, &v->pos, key, "out of memory");
				rp_node_free(item);
				rp_node_free(s);
				return NULL;
			}
		}
		return s;
	}
	if (v->type != RP_NODE_SCALAR || (!addr && !mac) || r == 0)
		return copy(c, v, key);
	int rc = mac ? derive_mac(v->scalar, r, out)
		     : derive_ip(v->scalar, prefix_of(map, "ipv4"), prefix_of(map, "ipv6"), r, out, sizeof(out));
	if (rc < 0) {
		rp_verr(c, &v->pos, key, "'%s' + %u for NIC %u runs out of %s", v->scalar, r, r,
			mac ? "MAC addresses" : "addresses");
		return NULL;
	}
	if (rc)
		return copy(c, v, key);
	struct rp_node *d = rp_node_new_scalar(out, true, v->pos);
	if (!d)
		rp_verr(c, &v->pos, key, "out of memory");
	return d;
}

static int add(struct rp_vctx *c, struct rp_node *m, const char *k, struct rp_pos pos, struct rp_node *v,
	       const char *path)
{
	if (v && rp_node_map_add(m, k, pos, v) == 0)
		return 0;
	if (!v) /* the reason is written */
		return -1;
	rp_node_free(v);
	return rp_verr(c, &pos, path, "out of memory");
}

/* NIC r of n: its own map (the list form), or NULL for `nics: N`. */
static int nic_item(struct rp_vctx *c, const struct rp_node *map, const char *path, unsigned r,
		    const struct rp_node **item, char *name, size_t len)
{
	const struct rp_node *nics = rp_node_get(map, "nics");
	char key[RP_PATH_MAX], ikey[RP_PATH_MAX];
	rp_path_key(key, path, "nics");
	snprintf(name, len, "nic%u", r);
	*item = NULL;
	if (nics->type != RP_NODE_SEQ)
		return 0;
	rp_path_index(ikey, key, r);
	*item = nics->items[r];
	if (rp_vtype(c, *item, ikey, RP_NODE_MAP, "a NIC mapping with name, mac, ipv4/ipv6 and port") ||
	    rp_vkeys(c, *item, ikey, nic_keys))
		return -1;
	const struct rp_node *n = rp_node_get(*item, "name");
	rp_path_key(key, ikey, "name");
	return n ? rp_vname(c, n, key, name, len) : 0;
}

struct rp_node *rp_host_nic_map(struct rp_vctx *c, const struct rp_node *map, const char *path, unsigned r)
{
	char npath[RP_PATH_MAX], key[RP_PATH_MAX], nic[RP_NAME_MAX], full[2 * RP_NAME_MAX + 2];
	const struct rp_node *item, *hname = rp_node_get(map, "name");
	rp_path_key(key, path, "nics");
	rp_path_index(npath, key, r);
	if (nic_item(c, map, path, r, &item, nic, sizeof(nic)))
		return NULL;
	struct rp_node *m = rp_node_new(RP_NODE_MAP, item ? item->pos : map->pos);
	if (!m) {
		rp_verr(c, &map->pos, path, "out of memory");
		return NULL;
	}
	snprintf(full, sizeof(full), "%s.%s", hname && hname->type == RP_NODE_SCALAR ? hname->scalar : "?", nic);
	struct rp_pos npos = hname ? hname->pos : map->pos;
	struct rp_node *nm = rp_node_new_scalar(full, true, npos);
	if (!nm)
		rp_verr(c, &npos, npath, "out of memory");
	if (add(c, m, "name", npos, nm, npath))
		goto fail;
	for (size_t i = 0; i < map->n; i++) {
		const char *k = map->kv[i].key;
		if (!strcmp(k, "name") || !strcmp(k, "nics") || (item && rp_node_get(item, k)))
			continue;
		if ((!strcmp(k, "port") || !strcmp(k, "pci"))) {
			rp_path_key(key, path, k);
			rp_verr(c, &map->kv[i].key_pos, key,
				"a host of several NICs has a port per NIC: give nics as a list with %s in each", k);
			goto fail;
		}
		if (add(c, m, k, map->kv[i].key_pos, derived(c, map, k, map->kv[i].val, npath, r), npath))
			goto fail;
	}
	for (size_t i = 0; item && i < item->n; i++)
		if (strcmp(item->kv[i].key, "name") &&
		    add(c, m, item->kv[i].key, item->kv[i].key_pos, copy(c, item->kv[i].val, npath), npath))
			goto fail;
	return m;
fail:
	rp_node_free(m);
	return NULL;
}
