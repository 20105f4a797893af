#include "neigh.h"

#include <string.h>

#include "arp.h"
#include "ipv6.h"
#include "nd.h"
#include "wire_err.h"

static const uint8_t all_nodes[16] = {0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01};

static bool zero16(const uint8_t a[16])
{
	static const uint8_t z[16];
	return !memcmp(a, z, 16);
}

static bool is_self6(const struct rp_neigh_self *s, const uint8_t a[16])
{
	return s->has_ip6 && !memcmp(s->ip6, a, 16);
}

/* An ARP frame from self's MAC to dst; a reply names dst as target hardware
 * address, a request leaves it zero. */
static size_t arp_build(const struct rp_neigh_self *self, uint16_t op, uint32_t spa, uint32_t tpa,
			const uint8_t dst[RP_ETH_ADDR_LEN], uint8_t *buf, size_t cap)
{
	struct rp_arp a = {.op = op, .spa = spa, .tpa = tpa};
	memcpy(a.sha, self->mac, RP_ETH_ADDR_LEN);
	if (op == RP_ARP_REPLY)
		memcpy(a.tha, dst, RP_ETH_ADDR_LEN);
	return rp_arp_frame_build(buf, cap, dst, &a);
}

/* An NS or NA from self's MAC, from src (NULL: the unspecified address, and
 * then no link-layer option, RFC 4861 4.3) to dst, to dst_mac (NULL: dst's
 * multicast MAC); otherwise with self's MAC as link-layer option. */
static size_t nd_build(const struct rp_neigh_self *self, uint8_t type, uint8_t flags, const uint8_t *src,
		       const uint8_t dst[16], const uint8_t target[16], const uint8_t *dst_mac, uint8_t *buf, size_t cap)
{
	struct rp_nd nd = {.type = type, .flags = flags, .has_lladdr = src != NULL};
	if (src)
		memcpy(nd.src, src, 16);
	memcpy(nd.dst, dst, 16);
	memcpy(nd.target, target, 16);
	memcpy(nd.lladdr, self->mac, RP_ETH_ADDR_LEN);
	uint8_t mc[RP_ETH_ADDR_LEN];
	if (!dst_mac) {
		rp_ipv6_mcast_mac(dst, mc);
		dst_mac = mc;
	}
	return rp_nd_frame_build(buf, cap, self->mac, dst_mac, &nd);
}

static enum rp_neigh_kind arp_rx(const struct rp_neigh_self *self, const uint8_t *p, size_t len,
				 struct rp_neigh_rx *out, uint8_t *reply, size_t cap)
{
	struct rp_arp a;
	if (rp_arp_parse(p, len, &a) != RP_WIRE_OK)
		return RP_NEIGH_NONE;
	out->kind = a.op == RP_ARP_REQUEST ? RP_NEIGH_ARP_REQUEST : RP_NEIGH_ARP_REPLY;
	out->l3 = 4;
	if (a.spa != 0) {
		out->has_binding = true;
		out->ip4 = a.spa;
		memcpy(out->mac, a.sha, RP_ETH_ADDR_LEN);
		out->conflict = self->has_ip4 && a.spa == self->ip4 && memcmp(a.sha, self->mac, RP_ETH_ADDR_LEN);
	}
	/* A gratuitous request (spa == tpa) asks nobody. */
	if (a.op == RP_ARP_REQUEST && self->has_ip4 && a.tpa == self->ip4 && a.spa != a.tpa &&
	    memcmp(a.sha, self->mac, RP_ETH_ADDR_LEN))
		out->reply_len = arp_build(self, RP_ARP_REPLY, self->ip4, a.spa, a.sha, reply, cap);
	return out->kind;
}

static enum rp_neigh_kind nd_rx(const struct rp_neigh_self *self, const struct rp_eth *eth, const uint8_t *p,
				size_t len, struct rp_neigh_rx *out, uint8_t *reply, size_t cap)
{
	struct rp_nd nd;
	if (len < RP_IPV6_HLEN || p[6] != RP_IPPROTO_ICMPV6 || rp_nd_parse(p, len, &nd) != RP_WIRE_OK || !nd.checksum_ok)
		return RP_NEIGH_NONE;
	out->l3 = 6;
	if (nd.type == RP_ND_NA) {
		out->kind = RP_NEIGH_NA;
		out->has_binding = true;
		memcpy(out->ip6, nd.target, 16);
		memcpy(out->mac, nd.has_lladdr ? nd.lladdr : eth->src, RP_ETH_ADDR_LEN);
		out->conflict = is_self6(self, nd.target) && memcmp(out->mac, self->mac, RP_ETH_ADDR_LEN);
		return out->kind;
	}
	out->kind = RP_NEIGH_NS;
	bool dad = zero16(nd.src);
	if (!dad) {
		out->has_binding = nd.has_lladdr;
		memcpy(out->ip6, nd.src, 16);
		memcpy(out->mac, nd.lladdr, RP_ETH_ADDR_LEN);
		out->conflict = nd.has_lladdr && is_self6(self, nd.src) && memcmp(nd.lladdr, self->mac, RP_ETH_ADDR_LEN);
	}
	if (is_self6(self, nd.target) && !(dad && !memcmp(eth->src, self->mac, RP_ETH_ADDR_LEN))) {
		if (dad) /* RFC 4861 7.2.4: to all-nodes, S clear */
			out->reply_len = nd_build(self, RP_ND_NA, RP_ND_FLAG_OVERRIDE, self->ip6, all_nodes, self->ip6, NULL,
						  reply, cap);
		else
			out->reply_len = nd_build(self, RP_ND_NA, RP_ND_FLAG_OVERRIDE | RP_ND_FLAG_SOLICITED, self->ip6,
						  nd.src, self->ip6, nd.has_lladdr ? nd.lladdr : eth->src, reply, cap);
	}
	return out->kind;
}

enum rp_neigh_kind rp_neigh_rx(const struct rp_neigh_self *self, const uint8_t *frame, size_t len,
			       struct rp_neigh_rx *out, uint8_t *reply, size_t cap)
{
	memset(out, 0, sizeof(*out));
	struct rp_eth eth;
	size_t hlen;
	if (rp_eth_parse(frame, len, &eth, &hlen) != RP_WIRE_OK)
		return RP_NEIGH_NONE;
	if (eth.ethertype == RP_ETHERTYPE_ARP)
		return arp_rx(self, frame + hlen, len - hlen, out, reply, cap);
	if (eth.ethertype == RP_ETHERTYPE_IPV6)
		return nd_rx(self, &eth, frame + hlen, len - hlen, out, reply, cap);
	return RP_NEIGH_NONE;
}

size_t rp_neigh_request_build(const struct rp_neigh_self *self, uint8_t l3, uint32_t ip4, const uint8_t ip6[16],
			      uint8_t *buf, size_t cap)
{
	if (l3 == 4)
		return self->has_ip4 ? arp_build(self, RP_ARP_REQUEST, self->ip4, ip4, rp_eth_broadcast, buf, cap) : 0;
	if (!self->has_ip6)
		return 0;
	uint8_t group[16];
	rp_nd_solicited_node(ip6, group);
	return nd_build(self, RP_ND_NS, 0, self->ip6, group, ip6, NULL, buf, cap);
}

size_t rp_neigh_announce_build(const struct rp_neigh_self *self, uint8_t l3, uint8_t *buf, size_t cap)
{
	if (l3 == 4)
		return rp_neigh_request_build(self, 4, self->ip4, NULL, buf, cap);
	return self->has_ip6 ? nd_build(self, RP_ND_NA, RP_ND_FLAG_OVERRIDE, self->ip6, all_nodes, self->ip6, NULL, buf, cap)
			     : 0;
}

size_t rp_neigh_probe_build(const struct rp_neigh_self *self, uint8_t l3, uint8_t *buf, size_t cap)
{
	if (l3 == 4)
		return self->has_ip4 ? arp_build(self, RP_ARP_REQUEST, 0, self->ip4, rp_eth_broadcast, buf, cap) : 0;
	if (!self->has_ip6)
		return 0;
	uint8_t group[16];
	rp_nd_solicited_node(self->ip6, group);
	return nd_build(self, RP_ND_NS, 0, NULL, group, self->ip6, NULL, buf, cap);
}
