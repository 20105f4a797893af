/* ARP and Neighbour Discovery on DPDK ports (the decisions are lib/wire/neigh.h):
 * every port answers for its host's addresses from the RX path, and before
 * traffic the next hops nobody gave a MAC for are resolved. */
#ifndef RP_DP_NEIGH_H
#define RP_DP_NEIGH_H

#include <stdbool.h>
#include <stdint.h>

#include "wire/neigh.h"

struct rp_dp_txport;
struct rp_capture;

/* Frames counted per port (result.json environment.ports[].neigh). */
struct rp_dp_neigh_stats {
	uint64_t arp_requests_rx, arp_replies_tx, arp_replies_rx, arp_requests_tx;
	uint64_t nd_solicits_rx, nd_adverts_tx, nd_adverts_rx, nd_solicits_tx;
	uint64_t unsent; /* answers the pool or the TX queue refused */
};

/* An ARP/ND frame tp received: counted, answered on tp's TX queue when it
 * asks for one of tp's addresses (the answer goes to cap too, when given);
 * what it says is left in *out. False when it is not ARP or NS/NA. */
bool rp_dp_neigh_frame(struct rp_dp_txport *tp, const uint8_t *frame, uint16_t len, struct rp_capture *cap,
		       uint64_t now_ns, struct rp_neigh_rx *out);

/* A next hop to resolve on ports[port]. */
struct rp_dp_neigh_want {
	unsigned port;
	uint8_t l3;
	uint32_t ip4;
	uint8_t ip6[16];
	bool resolved;
	uint8_t mac[6];
};

struct rp_dp_neigh_opts {
	uint64_t timeout_ns; /* all tries within this (1 s) */
	unsigned tries;      /* requests per next hop (3), evenly spaced */
	uint64_t dad_ns;     /* how long an owner of a port's own address has to answer its probe (50 ms) */
};

/* Before traffic, on ports[0..n): wire ports (announce[i]) probe for their
 * own addresses (ARP probe, DAD NS) and then announce them (gratuitous ARP,
 * unsolicited NA); the wants are asked for (ARP request, NS to the
 * solicited-node group) until answered or the time is up; every port answers
 * requests meanwhile. Returns 0 when every want is resolved, 1 when some are
 * not, 2 when another station answered for a port's own address: *conflict
 * (port index in *conflict_port) says who. caps (may be NULL; by port index,
 * entries may be NULL) get every frame the ports send and receive meanwhile. */
int rp_dp_neigh_resolve(struct rp_dp_txport *ports, unsigned n, const bool *announce, struct rp_dp_neigh_want *w,
			unsigned nw, const struct rp_dp_neigh_opts *o, struct rp_neigh_rx *conflict,
			unsigned *conflict_port, struct rp_capture *const *caps);

#endif
