/* ICMP fragmentation needed / ICMPv6 Packet Too Big (icmp.h). */
#include "icmp.h"

#include "bytes.h"
#include "eth.h"
#include "ipv4.h"
#include "ipv6.h"
#include "wire_err.h"

#define ICMP_HLEN 8 /* type, code, checksum, 4 bytes (IPv4: unused 2 + next-hop MTU 2; IPv6: MTU 4) */
#define UDP_DPORT_END 4 /* a UDP header's destination port ends 4 bytes in */

/* The quoted packet (its IP header, then at least 8 bytes of what it carried). */
static void quoted(const uint8_t *q, size_t n, uint8_t l3, struct rp_icmp_too_big *out)
{
	size_t hlen;
	if (l3 == 4) {
		if (n < RP_IPV4_HLEN || (q[0] >> 4) != 4 || (hlen = (size_t)(q[0] & 0x0f) * 4) < RP_IPV4_HLEN ||
		    n < hlen)
			return;
		out->quoted_len = rp_get_be16(q + 2);
		out->quoted_proto = q[9];
	} else {
		if (n < RP_IPV6_HLEN || (q[0] >> 4) != 6)
			return;
		hlen = RP_IPV6_HLEN;
		out->quoted_len = (uint16_t)(RP_IPV6_HLEN + rp_get_be16(q + 4));
		out->quoted_proto = q[6];
	}
	if (out->quoted_proto == 17 && n >= hlen + UDP_DPORT_END)
		out->quoted_dport = rp_get_be16(q + hlen + 2);
}

int rp_icmp_too_big_parse(const uint8_t *b, size_t len, struct rp_icmp_too_big *out)
{
	if (len < RP_ETH_HLEN)
		return -1;
	size_t off = RP_ETH_HLEN;
	uint16_t et = rp_get_be16(b + 12);
	if (et == RP_ETHERTYPE_VLAN) {
		if (len < RP_ETH_HLEN + RP_VLAN_HLEN)
			return -1;
		et = rp_get_be16(b + 16);
		off += RP_VLAN_HLEN;
	}
	const uint8_t *ip = b + off;
	size_t n = len - off, hlen;
	*out = (struct rp_icmp_too_big){0};
	if (et == RP_ETHERTYPE_IPV4) {
		if (n < RP_IPV4_HLEN)
			return n >= 10 && ip[9] != RP_IPPROTO_ICMP ? -1 : RP_WIRE_ETRUNC;
		hlen = (size_t)(ip[0] & 0x0f) * 4;
		if ((ip[0] >> 4) != 4 || hlen < RP_IPV4_HLEN || ip[9] != RP_IPPROTO_ICMP)
			return -1;
		if (rp_get_be16(ip + 6) & 0x1fff) /* a later fragment: no ICMP header of its own */
			return -1;
		if (n < hlen + ICMP_HLEN)
			return RP_WIRE_ETRUNC;
		const uint8_t *m = ip + hlen;
		if (m[0] != RP_ICMP_DEST_UNREACH || m[1] != RP_ICMP_FRAG_NEEDED)
			return -1;
		out->l3 = 4;
		out->mtu = rp_get_be16(m + 6);
	} else if (et == RP_ETHERTYPE_IPV6) {
		if (n < RP_IPV6_HLEN)
			return n >= 7 && ip[6] != RP_IPPROTO_ICMPV6 ? -1 : RP_WIRE_ETRUNC;
		/* Packet Too Big follows the IPv6 header directly (no extension headers before it
		 * from a router); anything else is not one. */
		if ((ip[0] >> 4) != 6 || ip[6] != RP_IPPROTO_ICMPV6)
			return -1;
		hlen = RP_IPV6_HLEN;
		if (n < hlen + ICMP_HLEN)
			return RP_WIRE_ETRUNC;
		const uint8_t *m = ip + hlen;
		if (m[0] != RP_ICMPV6_PACKET_TOO_BIG || m[1] != 0)
			return -1;
		out->l3 = 6;
		out->mtu = rp_get_be32(m + 4);
	} else {
		return -1;
	}
	quoted(ip + hlen + ICMP_HLEN, n - hlen - ICMP_HLEN, out->l3, out);
	return RP_WIRE_OK;
}

unsigned rp_roce_mtu_for_path(uint32_t path_mtu, size_t ip_len, unsigned roce_mtu)
{
	if (ip_len < roce_mtu)
		return 0;
	size_t overhead = ip_len - roce_mtu;
	for (unsigned m = 4096; m >= 256; m /= 2)
		if (overhead + m <= path_mtu)
			return m;
	return 0;
}
