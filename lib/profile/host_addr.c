/* A host's addresses: its MAC, IPv4/IPv6 with their prefix lengths, and the
 * gateway (next hop) for destinations outside those subnets. RoCEv2 is routed:
 * on an L3 fabric every NIC sits in its own small subnet behind its ToR. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "wire/eth.h"
#include "wire/ipv4.h"
#include "wire/ipv6.h"

/* "ADDR" or "ADDR/LEN": ADDR into out, LEN (0..max) into *plen, or
 * RP_PLEN_NONE without one. -1 for a bad length. */
static int split_prefix(const char *s, char *out, size_t cap, unsigned max, uint8_t *plen)
{
	const char *slash = strchr(s, '/');
	size_t n = slash ? (size_t)(slash - s) : strlen(s);
	if (n >= cap)
		return -1;
	memcpy(out, s, n);
	out[n] = '\0';
	*plen = RP_PLEN_NONE;
	if (!slash)
		return 0;
	char *end;
	unsigned long v = strtoul(slash + 1, &end, 10);
	if (!slash[1] || *end || v > max)
		return -1;
	*plen = (uint8_t)v;
	return 0;
}

bool rp_ipv4_same_subnet(uint32_t a, uint32_t b, unsigned plen)
{
	uint32_t mask = plen == 0 ? 0 : plen >= 32 ? UINT32_MAX : ~(UINT32_MAX >> plen);
	return (a & mask) == (b & mask);
}

bool rp_ipv6_same_subnet(const uint8_t a[16], const uint8_t b[16], unsigned plen)
{
	unsigned full = plen / 8, rest = plen % 8;
	if (memcmp(a, b, full) != 0)
		return false;
	uint8_t mask = (uint8_t)(0xFF << (8 - rest));
	return rest == 0 || (a[full] & mask) == (b[full] & mask);
}

bool rp_host_on_link4(const struct rp_host *h, uint32_t dst)
{
	return h->ipv4_plen == RP_PLEN_NONE || rp_ipv4_same_subnet(h->ipv4, dst, h->ipv4_plen);
}

bool rp_host_on_link6(const struct rp_host *h, const uint8_t dst[16])
{
	return h->ipv6_plen == RP_PLEN_NONE || rp_ipv6_same_subnet(h->ipv6, dst, h->ipv6_plen);
}

/* One gateway address: the family's host address needs a prefix, and the
 * gateway must lie inside that subnet and not be the host itself. */
static int one_gateway(struct rp_vctx *c, const struct rp_node *n, const char *key, struct rp_host *h)
{
	const char *s;
	uint32_t a4;
	uint8_t a6[16];
	char subnet[64];
	if (rp_vscalar(c, n, key, "a gateway address like 10.1.0.1", &s))
		return -1;
	if (rp_ipv4_addr_parse(s, &a4) == 0) {
		if (!h->has_ipv4 || h->ipv4_plen == RP_PLEN_NONE)
			return rp_verr(c, &n->pos, key, "an IPv4 gateway needs the host's ipv4 with its prefix, like 10.1.0.2/24");
		rp_ipv4_addr_format(h->ipv4, subnet);
		if (!rp_ipv4_same_subnet(a4, h->ipv4, h->ipv4_plen) || a4 == h->ipv4 || h->has_gw4)
			return rp_verr(c, &n->pos, key, "%s: expected one IPv4 next hop inside the host's subnet %s/%u, other than the host",
				       s, subnet, h->ipv4_plen);
		h->has_gw4 = true;
		h->gw4 = a4;
		return 0;
	}
	if (rp_ipv6_addr_parse(s, a6) == 0) {
		if (!h->has_ipv6 || h->ipv6_plen == RP_PLEN_NONE)
			return rp_verr(c, &n->pos, key, "an IPv6 gateway needs the host's ipv6 with its prefix, like fd00:1::2/64");
		rp_ipv6_addr_format(h->ipv6, subnet);
		if (!rp_ipv6_same_subnet(a6, h->ipv6, h->ipv6_plen) || !memcmp(a6, h->ipv6, 16) || h->has_gw6)
			return rp_verr(c, &n->pos, key, "%s: expected one IPv6 next hop inside the host's subnet %s/%u, other than the host",
				       s, subnet, h->ipv6_plen);
		h->has_gw6 = true;
		memcpy(h->gw6, a6, 16);
		return 0;
	}
	return rp_verr(c, &n->pos, key, "expected an IPv4 or IPv6 gateway address like 10.1.0.1, got '%s'", s);
}

/* gateway: ADDR or [ADDR, ADDR] (one per family); gateway_mac: MAC. */
static int host_gateways(struct rp_vctx *c, const struct rp_node *map, const char *path, struct rp_host *h)
{
	char key[RP_PATH_MAX];
	const struct rp_node *gw = rp_node_get(map, "gateway"), *gm = rp_node_get(map, "gateway_mac");
	rp_path_key(key, path, "gateway");
	if (gw && gw->type == RP_NODE_SEQ) {
		if (gw->n < 1 || gw->n > 2)
			return rp_verr(c, &gw->pos, key, "expected one gateway, or two (one IPv4, one IPv6)");
		for (size_t i = 0; i < gw->n; i++) {
			char k[RP_PATH_MAX];
			rp_path_index(k, key, i);
			if (one_gateway(c, gw->items[i], k, h))
				return -1;
		}
	} else if (gw && one_gateway(c, gw, key, h)) {
		return -1;
	}
	if (gm) {
		const char *s;
		rp_path_key(key, path, "gateway_mac");
		if (!gw)
			return rp_verr(c, &gm->pos, key, "gateway_mac is the gateway's MAC; give gateway too");
		if (rp_vscalar(c, gm, key, "a MAC address like 02:00:00:00:00:01", &s))
			return -1;
		if (rp_mac_parse(s, h->gw_mac) || (h->gw_mac[0] & 1))
			return rp_verr(c, &gm->pos, key, "expected a unicast MAC address like 02:00:00:00:00:fe, got '%s'", s);
		h->has_gw_mac = true;
	}
	return 0;
}

/* A host's MAC is a unicast source address, and no two hosts share a MAC or
 * an IP address: a frame to either would reach both, or neither. */
static int host_addr_unique(struct rp_vctx *c, const struct rp_node *map, const char *path, const struct rp_host *h)
{
	char key[RP_PATH_MAX], s[40];
	const struct rp_node *mac = rp_node_get(map, "mac");
	rp_path_key(key, path, "mac");
	rp_mac_format(h->mac, s);
	if (h->mac_auto)
		goto addresses; /* the port's own MAC: known when it opens */
	if (h->mac[0] & 1)
		return rp_verr(c, &mac->pos, key, "expected a unicast MAC (first byte even, like 02:...), got multicast '%s'", s);
	if (!(h->mac[0] | h->mac[1] | h->mac[2] | h->mac[3] | h->mac[4] | h->mac[5]))
		return rp_verr(c, &mac->pos, key, "expected a unicast MAC like 02:00:00:00:00:01, got 00:00:00:00:00:00");
	for (size_t i = 0; i < c->prof->nhosts; i++) {
		const struct rp_host *o = &c->prof->hosts[i];
		if (!o->mac_auto && !memcmp(o->mac, h->mac, 6))
			return rp_verr(c, &mac->pos, key, "MAC %s is also hosts[%zu]'s (%s); every host needs its own", s, i,
				       o->name);
	}
addresses:
	for (size_t i = 0; i < c->prof->nhosts; i++) {
		const struct rp_host *o = &c->prof->hosts[i];
		if (h->has_ipv4 && o->has_ipv4 && o->ipv4 == h->ipv4) {
			rp_path_key(key, path, "ipv4");
			return rp_verr(c, &rp_node_get(map, "ipv4")->pos, key, "address is also hosts[%zu]'s (%s); every host needs its own",
				       i, o->name);
		}
		if (h->has_ipv6 && o->has_ipv6 && !memcmp(o->ipv6, h->ipv6, 16)) {
			rp_path_key(key, path, "ipv6");
			return rp_verr(c, &rp_node_get(map, "ipv6")->pos, key, "address is also hosts[%zu]'s (%s); every host needs its own",
				       i, o->name);
		}
	}
	return 0;
}

int rp_host_addr_parse(struct rp_vctx *c, const struct rp_node *map, const char *path, struct rp_host *h)
{
	char key[RP_PATH_MAX], addr[64];
	const char *s;
	const struct rp_node *n;
	if ((n = rp_node_get(map, "mac"))) {
		rp_path_key(key, path, "mac");
		if (rp_vscalar(c, n, key, "a MAC address like 02:00:00:00:00:01, or auto", &s))
			return -1;
		if (!strcmp(s, "auto"))
			h->mac_auto = true;
		else if (rp_mac_parse(s, h->mac))
			return rp_verr(c, &n->pos, key, "expected a MAC address like 02:00:00:00:00:01 or auto, got '%s'", s);
	} else if (h->port_is_pci || h->engine.engine == RP_ENGINE_VERBS) {
		h->mac_auto = true; /* a NIC's burned-in address */
	} else {
		rp_path_key(key, path, "mac");
		return rp_verr(c, &map->pos, key,
			       "missing; every host needs a MAC address like 02:00:00:00:00:01 (or auto: its port's own)");
	}
	h->ipv4_plen = h->ipv6_plen = RP_PLEN_NONE;
	if ((n = rp_node_get(map, "ipv4"))) {
		rp_path_key(key, path, "ipv4");
		if (rp_vscalar(c, n, key, "an IPv4 address like 10.0.0.1", &s))
			return -1;
		if (split_prefix(s, addr, sizeof(addr), 32, &h->ipv4_plen) || rp_ipv4_addr_parse(addr, &h->ipv4))
			return rp_verr(c, &n->pos, key, "expected an IPv4 address like 10.0.0.1 or 10.1.0.2/24, got '%s'", s);
		h->has_ipv4 = true;
	}
	if ((n = rp_node_get(map, "ipv6"))) {
		rp_path_key(key, path, "ipv6");
		if (rp_vscalar(c, n, key, "an IPv6 address like fd00::1", &s))
			return -1;
		if (split_prefix(s, addr, sizeof(addr), 128, &h->ipv6_plen) || rp_ipv6_addr_parse(addr, h->ipv6))
			return rp_verr(c, &n->pos, key, "expected an IPv6 address like fd00::1 or fd00:1::2/64, got '%s'", s);
		h->has_ipv6 = true;
	}
	if (!h->has_ipv4 && !h->has_ipv6)
		return rp_verr(c, &map->pos, path, "a host needs an ipv4 or an ipv6 address (or both)");
	if (host_addr_unique(c, map, path, h) || host_gateways(c, map, path, h))
		return -1;
	return 0;
}

