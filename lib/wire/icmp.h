/* A router's word that a packet was longer than the next link takes: ICMP
 * "fragmentation needed" (IPv4 type 3 code 4, RFC 1191) and ICMPv6 Packet
 * Too Big (type 2, RFC 8201), with the next-hop MTU they carry and the
 * packet they quote; and the RoCE MTU whose frames fit such a path. */
#ifndef RP_WIRE_ICMP_H
#define RP_WIRE_ICMP_H

#include <stddef.h>
#include <stdint.h>

#define RP_IPPROTO_ICMP 1
#define RP_IPPROTO_ICMPV6 58
#define RP_ICMP_DEST_UNREACH 3
#define RP_ICMP_FRAG_NEEDED 4 /* its code */
#define RP_ICMPV6_PACKET_TOO_BIG 2

struct rp_icmp_too_big {
	uint8_t l3;         /* 4 or 6: the family of the message (and of the packet it quotes) */
	uint32_t mtu;       /* the next-hop MTU it carries (IP bytes); 0 from a pre-RFC 1191 router */
	uint16_t quoted_len; /* the quoted packet's own length (IPv4 total length; IPv6 40 + payload
			      * length); 0 when its IP header is not all quoted */
	uint8_t quoted_proto; /* its protocol / next header; 0 when not quoted */
	uint16_t quoted_dport; /* its UDP destination port (4791: RoCEv2); 0 when not UDP or cut */
};

/* Parses an Ethernet frame (at most one 802.1Q tag, as rp_frame_parse) of
 * len bytes. RP_WIRE_OK and *out when it is an ICMP fragmentation-needed or
 * ICMPv6 Packet Too Big message whose ICMP header is all there; -1 for any
 * other frame (not IP, another protocol or ICMP type); RP_WIRE_ETRUNC when
 * the frame ends inside its IP or ICMP header. Never reads past len. */
int rp_icmp_too_big_parse(const uint8_t *frame, size_t len, struct rp_icmp_too_big *out);

/* The RoCE path MTUs (IBTA: 256, 512, 1024, 2048, 4096): the largest whose
 * packets fit a path of path_mtu IP bytes, for a flow whose largest IP
 * packet is ip_len bytes at RoCE MTU roce_mtu (its headers and ICRC are
 * ip_len - roce_mtu); 0 when none fits. An IPv4 RDMA WRITE ONLY of 4096:
 * 20 + 8 UDP + 12 BTH + 16 RETH + 4096 + 4 ICRC = 4156 B; a path of 1500
 * takes 1500 - 60 = 1440 B of payload: 1024. */
unsigned rp_roce_mtu_for_path(uint32_t path_mtu, size_t ip_len, unsigned roce_mtu);

#endif
