/* roceprobe's XDP program for a port shared with the kernel through net_af_xdp
 * (run/gen --share; lib/dp/xdp.c, docs/hardware.md). Hands to the AF_XDP
 * socket of the frame's RX queue only
 *   - RoCEv2: IPv4 or IPv6 UDP to port 4791 whose destination address is one
 *     of the run's hosts' (rp_addrs4 / rp_addrs6, filled by roceprobe once the
 *     port is up; the kernel's own RDMA on its other addresses keeps its RoCE),
 *     untagged or under one or two VLAN tags;
 *   - MAC control frames (ethertype 0x8808: PFC and PAUSE);
 * and passes everything else to the kernel (ARP, ND, ICMP, ssh, other UDP).
 * A queue without a socket passes too (bpf_redirect_map's fallback).
 *
 * DPDK 22.11's net_af_xdp (xdp_prog=PATH) loads the object, attaches its first
 * program and puts each queue's socket in the map named xsks_map (XSKMAP,
 * 4-byte key and value). Compiled by meson: clang -O2 -g -target bpf. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#define RP_ROCEV2_PORT 4791
#define RP_ETH_P_MACC 0x8808 /* MAC control: PAUSE (opcode 1), PFC (0x0101) */
#define RP_ETH_P_8021Q 0x8100
#define RP_ETH_P_8021AD 0x88A8
#define RP_MAX_VLANS 2
#define RP_MAX_ADDRS 256
#define RP_MAX_QUEUES 64

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, RP_MAX_QUEUES);
	__type(key, __u32);
	__type(value, __u32);
} xsks_map SEC(".maps");

/* The run's hosts' addresses on this port, in network byte order. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, RP_MAX_ADDRS);
	__type(key, __u32);
	__type(value, __u8);
} rp_addrs4 SEC(".maps");

struct rp_in6 {
	__u8 b[16];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, RP_MAX_ADDRS);
	__type(key, struct rp_in6);
	__type(value, __u8);
} rp_addrs6 SEC(".maps");

/* The bytes of the frame not yet parsed. */
struct cursor {
	void *pos;
	void *end;
};

/* The next n bytes as a header, or NULL when the frame is shorter. */
static __always_inline void *pull(struct cursor *c, __u32 n)
{
	void *h = c->pos;
	if (h + n > c->end)
		return NULL;
	c->pos = h + n;
	return h;
}

struct vlan_tag {
	__be16 tci;
	__be16 proto; /* the next ethertype */
};

/* The ethertype after the Ethernet header and up to RP_MAX_VLANS tags (host
 * order); 0 when the frame is cut short. */
static __always_inline __u16 parse_eth(struct cursor *c)
{
	struct ethhdr *eth = pull(c, sizeof(*eth));
	if (!eth)
		return 0;
	__u16 proto = bpf_ntohs(eth->h_proto);
#pragma unroll
	for (int i = 0; i < RP_MAX_VLANS; i++) {
		if (proto != RP_ETH_P_8021Q && proto != RP_ETH_P_8021AD)
			break;
		struct vlan_tag *v = pull(c, sizeof(*v));
		if (!v)
			return 0;
		proto = bpf_ntohs(v->proto);
	}
	return proto;
}

/* UDP to port 4791 after the network header the cursor stands past. */
static __always_inline int udp_is_rocev2(struct cursor *c)
{
	struct udphdr *udp = pull(c, sizeof(*udp));
	return udp && udp->dest == bpf_htons(RP_ROCEV2_PORT);
}

static __always_inline int ipv4_is_ours(struct cursor *c)
{
	struct iphdr *ip = pull(c, sizeof(*ip));
	if (!ip || ip->version != 4 || ip->ihl < 5 || ip->protocol != IPPROTO_UDP)
		return 0;
	if (ip->frag_off & bpf_htons(0x1fff)) /* a later fragment has no UDP header */
		return 0;
	__u32 opts = ((__u32)ip->ihl - 5) * 4; /* options: skipped, at most 40 B */
	if (opts > 40 || !pull(c, opts))
		return 0;
	__u32 dst = ip->daddr;
	return bpf_map_lookup_elem(&rp_addrs4, &dst) && udp_is_rocev2(c);
}

static __always_inline int ipv6_is_ours(struct cursor *c)
{
	struct ipv6hdr *ip6 = pull(c, sizeof(*ip6));
	if (!ip6 || ip6->version != 6 || ip6->nexthdr != IPPROTO_UDP) /* RoCEv2 has no extension headers */
		return 0;
	struct rp_in6 dst;
	__builtin_memcpy(dst.b, &ip6->daddr, sizeof(dst.b));
	return bpf_map_lookup_elem(&rp_addrs6, &dst) && udp_is_rocev2(c);
}

SEC("xdp")
int rp_share(struct xdp_md *ctx)
{
	struct cursor c = {.pos = (void *)(long)ctx->data, .end = (void *)(long)ctx->data_end};
	__u16 proto = parse_eth(&c);
	int ours = proto == RP_ETH_P_MACC || (proto == ETH_P_IP && ipv4_is_ours(&c)) ||
		   (proto == ETH_P_IPV6 && ipv6_is_ours(&c));
	if (!ours)
		return XDP_PASS;
	return bpf_redirect_map(&xsks_map, ctx->rx_queue_index, XDP_PASS);
}

char _license[] SEC("license") = "Dual BSD/GPL";
