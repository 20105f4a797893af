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
	uint64_t refresh_tx;  /* of the requests sent: the ones that asked again for a resolved next hop */
	uint64_t mac_changes; /* a resolved next hop answered from a new MAC: its flows moved to it */
};

/* A resolved next hop kept fresh while traffic runs. */
struct rp_dp_neigh_hop {
	uint8_t l3;
	uint32_t ip4;
	uint8_t ip6[16];
	uint8_t mac[6];       /* what its flows' frames carry now */
	uint8_t first_mac[6]; /* what the resolution before traffic found */
	uint64_t changes;
	uint64_t changed_ns;  /* when it last moved (0: never) */
	uint64_t answers;     /* bindings heard for it during traffic */
};

/* How often a resolved next hop is asked again during a run: a router whose
 * MAC changed (a replaced line card, a VRRP failover) is followed within
 * about this long. */
#define RP_DP_NEIGH_REFRESH_NS 1000000000ull

struct rp_dp_neigh_refresh {
	struct rp_dp_neigh_hop *hop; /* [n], owned (rp_dp_neigh_keep / rp_dp_neigh_forget) */
	unsigned n;
	unsigned next_hop; /* asked at next_ns; one every interval_ns / n */
	uint64_t interval_ns;
	uint64_t next_ns; /* UINT64_MAX: nothing to ask */
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

/* After rp_dp_neigh_resolve: tp keeps the resolved wants of port index
 * port (w[0..nw)) fresh, asking each again every interval_ns (0: never) of
 * the packet clock (the clock starts at 0 with the traffic; with n hops the
 * first is asked at interval_ns / n). Any binding the port hears for one of them afterwards (the
 * answer to that request, a gratuitous ARP, an unsolicited NA, a request
 * from it) that names a new MAC moves tp->src's flows through it to that MAC
 * (rp_source_set_next_hop_mac): the RX path and the TX bursts are the same
 * lcore's, so the templates change between two bursts. -1: out of memory. */
int rp_dp_neigh_keep(struct rp_dp_txport *tp, unsigned port, const struct rp_dp_neigh_want *w, unsigned nw,
		     uint64_t interval_ns);
void rp_dp_neigh_forget(struct rp_dp_txport *tp);

/* Due: asks the next kept next hop again (an ARP request to broadcast, an NS
 * to the solicited-node group: a router whose MAC changed answers from the
 * new one, which a unicast probe to the old MAC would never reach); the hops
 * take turns, one every interval / n, so each is asked once an interval.
 * Called from the port's lcore loop when now_ns >= tp->refresh.next_ns; cap
 * may be NULL. */
void rp_dp_neigh_refresh(struct rp_dp_txport *tp, struct rp_capture *cap, uint64_t now_ns);

#endif
