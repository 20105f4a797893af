/* Builds the address vector (struct ibv_ah_attr) that points a QP at its
 * peer, from a plain rp_port_attr and the peer's record. Pure: no device is
 * touched, so both the RoCE and the InfiniBand paths are unit-tested here
 * even though only RoCE (rxe) can run in this lab.
 *
 *   RoCE (link layer Ethernet): every packet carries a GRH, so is_global = 1,
 *   dgid = the peer's GID, sgid_index = our chosen (RoCE v2) GID, and the
 *   GRH traffic class is the IP TOS byte: DSCP << 2 | ECN. The HCA copies it
 *   into the IPv4 header, which is how a RoCE flow lands in a switch queue.
 *   dlid is unused (0).
 *
 *   InfiniBand: inside one subnet packets are routed by LID, so is_global = 0,
 *   dlid = the peer's LID and sl = the service level (which maps to a VL).
 *   No GRH is sent; DSCP/ECN do not exist there. */
#ifndef RP_VERBS_ADDR_H
#define RP_VERBS_ADDR_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "verbs/port.h"

struct rp_addr_opts {
	int sgid_index;    /* RoCE: index of our GID (from rp_gid_select) */
	uint8_t dscp;      /* RoCE: 0..63 */
	uint8_t ecn;       /* RoCE: 0..3 (1 or 2 = ECN-capable transport) */
	uint8_t hop_limit; /* RoCE: GRH hop limit / IP TTL; 0 means 64 */
	uint8_t sl;        /* IB: service level 0..15 (on RoCE, passed through) */
};

struct rp_peer_addr {
	uint16_t lid;    /* IB */
	uint8_t gid[16]; /* RoCE */
};

/* 0 on success; -1 with a one-line reason in err when the combination
 * cannot work (DSCP/ECN out of range, IB peer with LID 0, RoCE peer with a
 * zero GID, unknown link layer). */
int rp_addr_build(const struct rp_port_attr *port, const struct rp_addr_opts *o,
		  const struct rp_peer_addr *peer, struct ibv_ah_attr *ah, char *err, size_t errlen);

/* The IP TOS byte a RoCE packet will carry. */
static inline uint8_t rp_addr_traffic_class(uint8_t dscp, uint8_t ecn)
{
	return (uint8_t)((dscp << 2) | (ecn & 3));
}

#endif
