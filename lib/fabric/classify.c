/* Which traffic class a frame belongs to and where its ECN bits are: enough
 * parsing for a switch, not the full RoCE parse (no ICRC work per packet). */
#include <string.h>

#include "switch_internal.h"
#include "wire/eth.h"
#include "wire/ipv4.h"
#include "wire/ipv6.h"

static bool ect(uint8_t ecn)
{
	return ecn == RP_ECN_ECT0 || ecn == RP_ECN_ECT1;
}

/* DSCP and ECN of an IPv4/IPv6 packet at l3; false when it is not one. */
static bool ip_fields(const struct rp_eth *e, const uint8_t *l3, size_t len, uint8_t *dscp, struct rp_class *c)
{
	if (e->ethertype == RP_ETHERTYPE_IPV4) {
		struct rp_ipv4 ip;
		if (rp_ipv4_parse(l3, len, &ip) != 0)
			return false;
		*dscp = ip.dscp;
		c->l3 = 4;
		c->ect = ect(ip.ecn);
		return true;
	}
	if (e->ethertype == RP_ETHERTYPE_IPV6) {
		struct rp_ipv6 ip;
		if (rp_ipv6_parse(l3, len, &ip) != 0)
			return false;
		*dscp = ip.dscp;
		c->l3 = 6;
		c->ect = ect(ip.ecn);
		return true;
	}
	return false;
}

int rp_sw_classify(const struct rp_switch *sw, const uint8_t *frame, size_t len, struct rp_class *c)
{
	struct rp_eth e;
	size_t hlen;
	uint8_t dscp = 0;

	memset(c, 0, sizeof(*c));
	if (len < RP_SWITCH_MIN_FRAME || len > sw->cfg.max_frame || rp_eth_parse(frame, len, &e, &hlen) != 0)
		return -1;
	memcpy(c->dst, e.dst, sizeof(c->dst));
	if (e.ethertype == RP_ETHERTYPE_MACCTL) {
		c->macctl = true;
		return 0;
	}
	bool ip = ip_fields(&e, frame + hlen, len - hlen, &dscp, c);
	c->l3_off = ip ? (uint16_t)hlen : 0;
	if (sw->cfg.trust_pcp && e.has_vlan)
		c->tc = e.pcp;
	else
		c->tc = ip ? sw->cfg.dscp_to_tc[dscp] : sw->cfg.default_tc;
	return 0;
}
