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

/* Whether gw can be the IPv4 next hop of a host at self/plen: a router's
 * address inside the subnet, not the host's own, and not the subnet's network
 * or broadcast address (no router answers ARP for those), except on /31
 * (RFC 3021: both addresses are hosts'). 0 when it can; else 1, and for
 * those two what it is (in *what) and an address a router may have (*like). */
static int gw4_bad(uint32_t gw, uint32_t self, unsigned plen, const char **what, uint32_t *like)
{
	uint32_t host = plen >= 32 ? 0 : UINT32_MAX >> plen;
	*what = NULL;
	if (!rp_ipv4_same_subnet(gw, self, plen) || gw == self)
		return 1;
	if (plen < 31 && (gw & host) == 0)
		*what = "network", *like = gw + 1;
	else if (plen < 31 && (gw & host) == host)
		*what = "broadcast", *like = gw - 1;
	return *what ? 1 : 0;
}

static bool ipv6_link_local(const uint8_t a[16])
{
	return a[0] == 0xfe && (a[1] & 0xc0) == 0x80; /* fe80::/10 */
}

/* As gw4_bad for IPv6. A link-local gateway (fe80::/10, the next hop routers
 * advertise) is on the link of every port whatever the host's own prefix:
 * ND resolves it there. The subnet-router anycast address (host bits zero)
 * is accepted: RFC 4291 2.6.1 has every router on the subnet answer it, so
 * it names a router (and IPv6 has no broadcast address). */
static bool gw6_bad(const uint8_t gw[16], const uint8_t self[16], unsigned plen)
{
	return !memcmp(gw, self, 16) || (!ipv6_link_local(gw) && !rp_ipv6_same_subnet(gw, self, plen));
}

/* One gateway address: the family's host address needs a prefix, and the
 * gateway must be a router's address on the host's link (gw4_bad, gw6_bad). */
static int one_gateway(struct rp_vctx *c, const struct rp_node *n, const char *key, struct rp_host *h)
{
	const char *s, *what;
	uint32_t a4, like;
	uint8_t a6[16];
	char subnet[64], alt[16];
	if (rp_vscalar(c, n, key, "a gateway address like 10.1.0.1", &s))
		return -1;
	if (rp_ipv4_addr_parse(s, &a4) == 0 && h->ipv4_netdev && !h->has_gw4) {
		h->has_gw4 = true; /* inside the netdev's subnet: checked once it is read */
		h->gw4 = a4;
		return 0;
	}
	if (rp_ipv6_addr_parse(s, a6) == 0 && h->ipv6_netdev && !h->has_gw6) {
		h->has_gw6 = true;
		memcpy(h->gw6, a6, 16);
		return 0;
	}
	if (rp_ipv4_addr_parse(s, &a4) == 0) {
		if (!h->has_ipv4 || h->ipv4_plen == RP_PLEN_NONE)
			return rp_verr(c, &n->pos, key, "an IPv4 gateway needs the host's ipv4 with its prefix, like 10.1.0.2/24");
		rp_ipv4_addr_format(h->ipv4, subnet);
		bool bad = gw4_bad(a4, h->ipv4, h->ipv4_plen, &what, &like);
		if (bad && what && !h->has_gw4)
			return rp_verr(c, &n->pos, key, "%s is the %s address of the host's subnet %s/%u, no router's: give "
				       "the router's own, like %s", s, what, subnet, h->ipv4_plen,
				       (rp_ipv4_addr_format(like, alt), alt));
		if (bad || h->has_gw4)
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
		if (gw6_bad(a6, h->ipv6, h->ipv6_plen) || h->has_gw6)
			return rp_verr(c, &n->pos, key, "%s: expected one IPv6 next hop inside the host's subnet %s/%u, or a "
				       "link-local one (fe80::/10), other than the host", s, subnet, h->ipv6_plen);
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
			return rp_verr(c, &mac->pos, key, "MAC %s is also hosts[%zu]'s (%s); every host needs its own", s,
				       (size_t)o->server, o->name);
	}
addresses:
	for (size_t i = 0; i < c->prof->nhosts; i++) {
		const struct rp_host *o = &c->prof->hosts[i];
		if (h->has_ipv4 && o->has_ipv4 && !h->ipv4_netdev && !o->ipv4_netdev && o->ipv4 == h->ipv4) {
			rp_path_key(key, path, "ipv4");
			return rp_verr(c, &rp_node_get(map, "ipv4")->pos, key, "address is also hosts[%zu]'s (%s); every host needs its own",
				       (size_t)o->server, o->name);
		}
		if (h->has_ipv6 && o->has_ipv6 && !h->ipv6_netdev && !o->ipv6_netdev && !memcmp(o->ipv6, h->ipv6, 16)) {
			rp_path_key(key, path, "ipv6");
			return rp_verr(c, &rp_node_get(map, "ipv6")->pos, key, "address is also hosts[%zu]'s (%s); every host needs its own",
				       (size_t)o->server, o->name);
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
		h->mac_known = !h->mac_auto;
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
		if (!strcmp(s, "netdev"))
			h->ipv4_netdev = h->ip_pending = true;
		else if (split_prefix(s, addr, sizeof(addr), 32, &h->ipv4_plen) || rp_ipv4_addr_parse(addr, &h->ipv4))
			return rp_verr(c, &n->pos, key, "expected an IPv4 address like 10.0.0.1 or 10.1.0.2/24, or netdev, got '%s'",
				       s);
		h->has_ipv4 = true;
	}
	if ((n = rp_node_get(map, "ipv6"))) {
		rp_path_key(key, path, "ipv6");
		if (rp_vscalar(c, n, key, "an IPv6 address like fd00::1", &s))
			return -1;
		if (!strcmp(s, "netdev"))
			h->ipv6_netdev = h->ip_pending = true;
		else if (split_prefix(s, addr, sizeof(addr), 128, &h->ipv6_plen) || rp_ipv6_addr_parse(addr, h->ipv6))
			return rp_verr(c, &n->pos, key, "expected an IPv6 address like fd00::1 or fd00:1::2/64, or netdev, got '%s'",
				       s);
		h->has_ipv6 = true;
	}
	if (!h->has_ipv4 && !h->has_ipv6)
		return rp_verr(c, &map->pos, path, "a host needs an ipv4 or an ipv6 address (or both)");
	if (host_addr_unique(c, map, path, h) || host_gateways(c, map, path, h))
		return -1;
	return 0;
}


/* ---- addresses read at start ---- */

bool rp_profile_has_netdev(const struct rp_profile *p)
{
	for (size_t i = 0; i < p->nhosts; i++)
		if (p->hosts[i].ipv4_netdev || p->hosts[i].ipv6_netdev)
			return true;
	return false;
}

void rp_host_addr_set_netdev(struct rp_host *h, const uint32_t *ipv4, uint8_t plen4, const uint8_t *ipv6,
			     uint8_t plen6)
{
	if (h->ipv4_netdev && ipv4) {
		h->ipv4 = *ipv4;
		h->ipv4_plen = plen4;
	}
	if (h->ipv6_netdev && ipv6) {
		memcpy(h->ipv6, ipv6, 16);
		h->ipv6_plen = plen6;
	}
	h->ip_pending = (h->ipv4_netdev && !ipv4) || (h->ipv6_netdev && !ipv6);
}

void rp_host_rec_export(const struct rp_host *h, struct rp_host_rec *r)
{
	memset(r, 0, sizeof(*r));
	if (h->mac_auto && h->mac_known) {
		r->flags |= RP_HOST_REC_MAC;
		memcpy(r->mac, h->mac, 6);
	}
	if (!h->ip_pending && h->ipv4_netdev) {
		r->flags |= RP_HOST_REC_IP4;
		r->ipv4 = h->ipv4;
		r->plen4 = h->ipv4_plen;
	}
	if (!h->ip_pending && h->ipv6_netdev) {
		r->flags |= RP_HOST_REC_IP6;
		memcpy(r->ipv6, h->ipv6, 16);
		r->plen6 = h->ipv6_plen;
	}
}

void rp_host_rec_import(struct rp_host *h, const struct rp_host_rec *r)
{
	if ((r->flags & RP_HOST_REC_MAC) && h->mac_auto) {
		memcpy(h->mac, r->mac, 6);
		h->mac_known = true;
	}
	bool want4 = h->ipv4_netdev, want6 = h->ipv6_netdev;
	if (!h->ip_pending || !(want4 || want6))
		return;
	if (want4 != !!(r->flags & RP_HOST_REC_IP4) || want6 != !!(r->flags & RP_HOST_REC_IP6))
		return; /* the rank could not read them: stays pending */
	if (want4) {
		h->ipv4 = r->ipv4;
		h->ipv4_plen = r->plen4;
	}
	if (want6) {
		memcpy(h->ipv6, r->ipv6, 16);
		h->ipv6_plen = r->plen6;
	}
	h->ip_pending = false;
}

static int gw_check(const struct rp_host *h, char *err, size_t errlen)
{
	char a[46], g[46], alt[16];
	const char *what = NULL;
	uint32_t like = 0;
	if (h->ipv4_netdev && h->has_gw4 &&
	    (h->ipv4_plen == RP_PLEN_NONE || gw4_bad(h->gw4, h->ipv4, h->ipv4_plen, &what, &like))) {
		rp_ipv4_addr_format(h->ipv4, a);
		rp_ipv4_addr_format(h->gw4, g);
		if (what)
			snprintf(err, errlen, "host '%s': gateway %s is the %s address of its netdev's subnet %s/%u, no "
				 "router's: give the router's own, like %s", h->name, g, what, a, h->ipv4_plen,
				 (rp_ipv4_addr_format(like, alt), alt));
		else
			snprintf(err, errlen, "host '%s': gateway %s is not a next hop inside its netdev's subnet %s/%u", h->name,
				 g, a, h->ipv4_plen == RP_PLEN_NONE ? 32 : h->ipv4_plen);
		return -1;
	}
	if (h->ipv6_netdev && h->has_gw6 &&
	    (h->ipv6_plen == RP_PLEN_NONE || gw6_bad(h->gw6, h->ipv6, h->ipv6_plen))) {
		rp_ipv6_addr_format(h->ipv6, a);
		rp_ipv6_addr_format(h->gw6, g);
		snprintf(err, errlen, "host '%s': gateway %s is not a next hop inside its netdev's subnet %s/%u (nor link-local)",
			 h->name, g, a, h->ipv6_plen == RP_PLEN_NONE ? 128 : h->ipv6_plen);
		return -1;
	}
	return 0;
}

static const char *origin(const struct rp_host *h, int what)
{
	if (what == 0)
		return h->mac_auto ? " (its port's)" : "";
	return (what == 4 ? h->ipv4_netdev : h->ipv6_netdev) ? " (its netdev's)" : "";
}

int rp_profile_addrs_check(const struct rp_profile *p, char *err, size_t errlen)
{
	for (size_t i = 0; i < p->nhosts; i++) {
		const struct rp_host *h = &p->hosts[i];
		char s[46];
		if (h->ip_pending) {
			snprintf(err, errlen, "host '%s': its %s: netdev address was not read by the rank that runs it", h->name,
				 h->ipv4_netdev ? "ipv4" : "ipv6");
			return -1;
		}
		if (gw_check(h, err, errlen))
			return -1;
		for (size_t j = 0; j < i; j++) {
			const struct rp_host *o = &p->hosts[j];
			int what = -1;
			if (h->mac_known && o->mac_known && !memcmp(h->mac, o->mac, 6))
				what = 0, rp_mac_format(h->mac, s);
			else if (h->has_ipv4 && o->has_ipv4 && h->ipv4 == o->ipv4)
				what = 4, rp_ipv4_addr_format(h->ipv4, s);
			else if (h->has_ipv6 && o->has_ipv6 && !memcmp(h->ipv6, o->ipv6, 16))
				what = 6, rp_ipv6_addr_format(h->ipv6, s);
			if (what < 0)
				continue;
			snprintf(err, errlen, "hosts '%s'%s and '%s'%s have the same %s %s: every host needs its own", o->name,
				 origin(o, what), h->name, origin(h, what), what == 0 ? "MAC" : what == 4 ? "IPv4 address" : "IPv6 address",
				 s);
			return -1;
		}
	}
	return 0;
}
