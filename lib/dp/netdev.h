/* The Linux netdev behind a DPDK port, and its addresses: what `ipv4: netdev`
 * and `ipv6: netdev` read (docs/profiles.md). Plain Linux (sysfs,
 * getifaddrs); no DPDK. */
#ifndef RP_DP_NETDEV_H
#define RP_DP_NETDEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The kernel interface of a port: `iface=NAME` of net_af_packet / net_af_xdp
 * devargs, or the netdev the kernel driver of a PCI NIC still has
 * (/sys/bus/pci/devices/ADDR/net/NAME; a bifurcated mlx5 keeps it). 0, or -1
 * with why in err (a port with no netdev: net_ring, net_null, pair:, a NIC
 * bound to vfio-pci). */
int rp_dp_port_netdev(const char *port, bool is_pci, char *name, size_t len, char *err, size_t errlen);

/* The first address of family 4 or 6 on netdev name (IPv6: the first of
 * global scope, never a link-local fe80::/10) and its prefix length: ip4 in
 * host order, or ip6. 0, or -1 with why in err. */
int rp_dp_netdev_addr(const char *name, int family, uint32_t *ip4, uint8_t ip6[16], uint8_t *plen, char *err,
		      size_t errlen);

/* The kernel's own TX counters of netdev name
 * (/sys/class/net/NAME/statistics): frames it sent, dropped and failed.
 * What a PMD over a kernel interface (af_packet, af_xdp, tap) handed it and
 * what left are two counts: a veth whose peer's MTU is below the frames
 * drops them after af_packet counted them sent (tx_dropped). 0, or -1 when
 * this namespace has no such netdev. */
struct rp_dp_netdev_tx {
	uint64_t tx_packets;
	uint64_t tx_dropped;
	uint64_t tx_errors;
};
int rp_dp_netdev_tx_read(const char *name, struct rp_dp_netdev_tx *out);
/* The same from the netdev's rx_packets (dropped and errors 0): a tap's.
 * What net_tap writes to its tap, the kernel receives there (its TX is what
 * the kernel hands net_tap); what the kernel then drops as not its own
 * (rx_dropped: a PFC frame, no handler) is no frame that failed to go. */
int rp_dp_netdev_rx_read(const char *name, struct rp_dp_netdev_tx *out);

/* The MAC the kernel's neighbour table holds for an address on netdev name
 * (family 4: ip4, host order; 6: ip6), from rtnetlink (RTM_GETNEIGH, as
 * `ip neigh` reads it; entries reachable, stale, delay, probe or permanent):
 * a port shared with the kernel (dp.h enum rp_dp_share) never sees ARP or
 * Neighbour Advertisements, the kernel does. With none, a UDP datagram to
 * the address's discard port (9) from a socket bound to the netdev and to
 * the host's own address (src4 host order, or src6: the kernel's) makes
 * the kernel ask, and the table is read again until timeout_ms. 0, or -1
 * with why in err. */
int rp_dp_netdev_neigh(const char *name, int family, uint32_t ip4, const uint8_t ip6[16], uint32_t src4,
		       const uint8_t src6[16], uint8_t mac[6], unsigned timeout_ms, char *err, size_t errlen);

#endif
