/* What a host's port does with ARP and Neighbour Discovery (arp.h, nd.h):
 * answer requests for its own addresses, learn the bindings others announce,
 * and notice another station claiming one of its addresses. Plain bytes in,
 * bytes out; lib/dp moves them. */
#ifndef RP_WIRE_NEIGH_H
#define RP_WIRE_NEIGH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "eth.h"

/* A port's own addresses. */
struct rp_neigh_self {
	uint8_t mac[RP_ETH_ADDR_LEN];
	bool has_ip4;
	uint32_t ip4; /* host order */
	bool has_ip6;
	uint8_t ip6[16];
};

enum rp_neigh_kind {
	RP_NEIGH_NONE,        /* not ARP, not NS/NA (or malformed) */
	RP_NEIGH_ARP_REQUEST,
	RP_NEIGH_ARP_REPLY,
	RP_NEIGH_NS,
	RP_NEIGH_NA,
};

struct rp_neigh_rx {
	enum rp_neigh_kind kind;
	/* The sender's binding (ARP: spa/sha; NS: source address and its
	 * source link-layer option; NA: target and its target link-layer
	 * option); an unspecified address (ARP probe, DAD) is no binding. */
	bool has_binding;
	uint8_t l3; /* 4 or 6 */
	uint32_t ip4;
	uint8_t ip6[16];
	uint8_t mac[RP_ETH_ADDR_LEN];
	/* Another station claims one of self's addresses: the binding is ours
	 * and its MAC is not. */
	bool conflict;
	size_t reply_len; /* > 0: a request for one of self's addresses, answered in reply */
};

/* Classifies one received frame (Ethernet header onwards, one VLAN tag at
 * most). A request for one of self's addresses gets its answer built into
 * reply (cap bytes; 86 are enough): an ARP reply to the asker's MAC, or an NA
 * with the Solicited and Override flags and self's MAC to the solicitor (to
 * ff02::1 without S for a DAD solicitation from ::). Returns out->kind. */
enum rp_neigh_kind rp_neigh_rx(const struct rp_neigh_self *self, const uint8_t *frame, size_t len,
			       struct rp_neigh_rx *out, uint8_t *reply, size_t cap);

/* Who-has for ip (l3 4: an ARP request to broadcast; 6: an NS to the
 * target's solicited-node group, with self's MAC as source link-layer option). */
size_t rp_neigh_request_build(const struct rp_neigh_self *self, uint8_t l3, uint32_t ip4, const uint8_t ip6[16],
			      uint8_t *buf, size_t cap);
/* Announces self's address (4: a gratuitous ARP request, spa == tpa, to
 * broadcast; 6: an unsolicited NA with the Override flag to ff02::1). */
size_t rp_neigh_announce_build(const struct rp_neigh_self *self, uint8_t l3, uint8_t *buf, size_t cap);
/* Asks whether anyone else holds self's address (4: an ARP probe, RFC 5227,
 * spa 0; 6: a DAD NS from ::, RFC 4862). An owner answers with a binding for
 * the address, which rp_neigh_rx reports as a conflict. */
size_t rp_neigh_probe_build(const struct rp_neigh_self *self, uint8_t l3, uint8_t *buf, size_t cap);

#endif
