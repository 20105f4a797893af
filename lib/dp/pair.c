/* "pair:NAME:0" and "pair:NAME:1": the two ends of an in-process link made of
 * two rte_rings, each end's TX being the other's RX. Unlike a net_ring vdev
 * (one ring shared by RX and TX), a frame sent on one end only ever arrives
 * at the other, so a sender can poll its own RX for PFC without stealing the
 * receiver's data. */
#include <rte_eth_ring.h>
#include <rte_ring.h>
#include <stdio.h>
#include <string.h>

#include "dp.h"
#include "profile/profile.h"

#define PAIR_RING_SIZE 4096

bool rp_dp_is_pair(const char *devargs)
{
	char link[RP_PAIR_LINK_MAX + 1];
	int side;
	return rp_pair_parse(devargs, link, &side) != 0;
}

static struct rte_ring *pair_ring(const char *link, int from, char *err, size_t errlen)
{
	char name[RTE_RING_NAMESIZE];
	snprintf(name, sizeof(name), "rp%.20s_%d", link, from);
	struct rte_ring *r = rte_ring_lookup(name);
	if (!r)
		r = rte_ring_create(name, PAIR_RING_SIZE, (int)rte_socket_id(), RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (!r)
		snprintf(err, errlen, "cannot create ring %s for %s", name, link);
	return r;
}

int rp_dp_pair_create(const char *devargs, uint16_t *port_id, char *err, size_t errlen)
{
	char link[RP_PAIR_LINK_MAX + 1];
	int side;
	if (rp_pair_parse(devargs, link, &side) != 1) { /* the profile checked it already */
		snprintf(err, errlen, "port '%s': expected pair:LINK:0 or pair:LINK:1", devargs);
		return -1;
	}
	struct rte_ring *to_peer = pair_ring(link, side, err, errlen);
	struct rte_ring *from_peer = pair_ring(link, !side, err, errlen);
	if (!to_peer || !from_peer)
		return -1;
	int id = rte_eth_from_rings(devargs, &from_peer, 1, &to_peer, 1, (unsigned)rte_socket_id());
	if (id < 0) {
		snprintf(err, errlen, "port '%s': cannot make a ring port", devargs);
		return -1;
	}
	*port_id = (uint16_t)id;
	return 0;
}
