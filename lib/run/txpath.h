/* What left a port, by every count there is: the frames the PMD took from
 * the sources (the TX loop's), the ones it counted as errors (the PMD's
 * oerrors), what the kernel netdev under it sent and dropped (af_packet,
 * af_xdp, tap: /sys/class/net/IF/statistics), and the routers' word that the
 * frames were too big for the path (ICMP fragmentation needed, ICMPv6
 * Packet Too Big: gen.c counts them). Disagreements are findings, in
 * result.json and summary.txt (docs/results.md). */
#ifndef RP_RUN_TXPATH_H
#define RP_RUN_TXPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dp/netdev.h"
#include "report/rank_env.h"
#include "session.h"

struct rp_txpath {
	char netdev[64]; /* "" when the port has none (net_ring, pair:, a NIC on vfio-pci) */
	bool netdev_read; /* its counters were read before and after */
	bool tap;         /* net_tap: what it hands the kernel is the tap's RX (netdev.h) */
	struct rp_dp_netdev_tx before, after;
	uint64_t oerrors_before, oerrors_after;
};

/* Before the first frame (ARP/ND included) and right after the TX loop, for
 * port i (s->tx[i]) of s. */
void rp_txpath_begin(struct rp_txpath *t, const struct rp_session *s, unsigned i);
void rp_txpath_end(struct rp_txpath *t, const struct rp_session *s, unsigned i);

/* The frames the PMD counted as errors over the run. */
uint64_t rp_txpath_oerrors(const struct rp_txpath *t);

/* Frames of the source flow k of queue entry q (s->tx[q]) that never went:
 * given up after the queue refused them (gen.c, by their probe), plus the
 * port's PMD errors when that flow is the port's only one (the PMD counts
 * errors per port: with several flows nobody knows whose, and they stay
 * counted sent; a finding says so). t is the port's (t[q % nports]). */
uint64_t rp_txpath_flow_unsent(const struct rp_txpath *t, const struct rp_session *s, unsigned q, size_t k);

/* Fills what environment.ports[] entry p of port i says of the path
 * (lib/report/rank_env.h): pmd_oerrors, netdev (name, tx_packets,
 * tx_dropped, tx_errors over the run; has_netdev false without a netdev),
 * icmp_too_big (frames, mtu), flows_unsent (only flows with some) and
 * findings (one line each); and tx_packets/tx_unsent corrected for the
 * PMD's errors. replies: the responder's frames the port sent. */
void rp_txpath_port_facts(const struct rp_txpath *t, const struct rp_session *s, unsigned i, uint64_t replies,
			  struct rp_env_port *p);

#endif
