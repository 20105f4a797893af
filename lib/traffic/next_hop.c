/* A flow's next hop (plan.h): on-link destination or the sender's gateway. */
#include <stdio.h>
#include <string.h>

#include "flow_internal.h"
#include "wire/ipv4.h"
#include "wire/ipv6.h"

const char *rp_mac_from_name(enum rp_mac_from m)
{
	static const char *const names[] = {"profile", "gateway_mac", "arp", "nd", "port"};
	return m <= RP_MAC_FROM_PORT ? names[m] : "?";
}

static void subnet_text(const struct rp_host *h, uint8_t l3, char *out, size_t len)
{
	char a[46];
	if (l3 == 4)
		rp_ipv4_addr_format(h->ipv4, a);
	else
		rp_ipv6_addr_format(h->ipv6, a);
	snprintf(out, len, "%s/%u", a, l3 == 4 ? h->ipv4_plen : h->ipv6_plen);
}

int rp_flow_next_hop(struct rp_plan_builder *b, struct rp_flow *f)
{
	const struct rp_host *src = &b->plan->prof->hosts[f->src], *dst = &b->plan->prof->hosts[f->dst];
	struct rp_next_hop *nh = &f->nh;
	bool on_link = f->p.ip == 4 ? rp_host_on_link4(src, dst->ipv4) : rp_host_on_link6(src, dst->ipv6);
	*nh = (struct rp_next_hop){.l3 = f->p.ip, .via_gateway = !on_link};
	if (on_link) {
		nh->ip4 = dst->ipv4;
		memcpy(nh->ip6, dst->ipv6, 16);
		if (dst->mac_auto && !dst->mac_known) { /* the destination port's own MAC: asked on the link */
			nh->mac_from = f->p.ip == 4 ? RP_MAC_FROM_ARP : RP_MAC_FROM_ND;
			return 0;
		}
		nh->mac_from = dst->mac_auto ? RP_MAC_FROM_PORT : RP_MAC_FROM_PROFILE;
		nh->mac_known = true;
		memcpy(nh->mac, dst->mac, 6);
		return 0;
	}
	if (!(f->p.ip == 4 ? src->has_gw4 : src->has_gw6)) {
		char subnet[64];
		subnet_text(src, f->p.ip, subnet, sizeof(subnet));
		snprintf(b->err, b->errlen,
			 "flow %u (%s -> %s): %s is outside %s's subnet %s and %s has no IPv%u gateway; give %s a gateway:",
			 f->id, src->name, dst->name, dst->name, src->name, subnet, src->name, f->p.ip, src->name);
		return -1;
	}
	nh->ip4 = src->gw4;
	memcpy(nh->ip6, src->gw6, 16);
	if (src->has_gw_mac) {
		nh->mac_from = RP_MAC_FROM_GATEWAY_MAC;
		nh->mac_known = true;
		memcpy(nh->mac, src->gw_mac, 6);
	} else {
		nh->mac_from = f->p.ip == 4 ? RP_MAC_FROM_ARP : RP_MAC_FROM_ND;
	}
	return 0;
}

size_t rp_plan_unresolved(const struct rp_plan *p, size_t *first)
{
	size_t n = 0;
	for (size_t i = p->nflows; i-- > 0;)
		if (p->flows[i].kind == RP_TRAFFIC_RDMA && !p->flows[i].nh.mac_known) {
			n++;
			*first = i;
		}
	return n;
}
