#include "verbs/addr.h"

#include <stdio.h>
#include <string.h>

const char *rp_link_layer_name(enum rp_link_layer ll)
{
	switch (ll) {
	case RP_LL_INFINIBAND:
		return "InfiniBand";
	case RP_LL_ETHERNET:
		return "Ethernet";
	default:
		return "unknown";
	}
}

int rp_mtu_to_enum(unsigned bytes)
{
	switch (bytes) {
	case 256:
		return IBV_MTU_256;
	case 512:
		return IBV_MTU_512;
	case 1024:
		return IBV_MTU_1024;
	case 2048:
		return IBV_MTU_2048;
	case 4096:
		return IBV_MTU_4096;
	default:
		return 0;
	}
}

unsigned rp_mtu_from_enum(int mtu)
{
	return mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? 128u << mtu : 0;
}

static int gid_is_zero(const uint8_t gid[16])
{
	for (int i = 0; i < 16; i++)
		if (gid[i])
			return 0;
	return 1;
}

int rp_addr_build(const struct rp_port_attr *port, const struct rp_addr_opts *o,
		  const struct rp_peer_addr *peer, struct ibv_ah_attr *ah, char *err, size_t errlen)
{
	memset(ah, 0, sizeof(*ah));
	ah->port_num = port->port_num;
	ah->src_path_bits = 0;
	ah->static_rate = 0; /* as fast as the path allows */
	if (o->sl > 15) {
		snprintf(err, errlen, "service level %u out of range (0..15)", o->sl);
		return -1;
	}
	ah->sl = o->sl;

	switch (port->link_layer) {
	case RP_LL_INFINIBAND:
		if (peer->lid == 0) {
			snprintf(err, errlen, "peer has LID 0 on InfiniBand (is a subnet manager running?)");
			return -1;
		}
		ah->is_global = 0; /* same subnet: LID routed, no GRH */
		ah->dlid = peer->lid;
		return 0;
	case RP_LL_ETHERNET:
		if (o->dscp > 63 || o->ecn > 3) {
			snprintf(err, errlen, "DSCP %u / ECN %u out of range (0..63 / 0..3)", o->dscp, o->ecn);
			return -1;
		}
		if (o->sgid_index < 0) {
			snprintf(err, errlen, "no source GID chosen for RoCE");
			return -1;
		}
		if (gid_is_zero(peer->gid)) {
			snprintf(err, errlen, "peer sent a zero GID: it has no usable RoCE GID");
			return -1;
		}
		ah->is_global = 1;
		ah->dlid = 0;
		memcpy(ah->grh.dgid.raw, peer->gid, 16);
		ah->grh.sgid_index = (uint8_t)o->sgid_index;
		ah->grh.traffic_class = rp_addr_traffic_class(o->dscp, o->ecn);
		ah->grh.hop_limit = o->hop_limit ? o->hop_limit : 64;
		ah->grh.flow_label = 0;
		return 0;
	default:
		snprintf(err, errlen, "port %s:%u has an unknown link layer", port->dev_name, port->port_num);
		return -1;
	}
}
