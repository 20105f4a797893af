/* UDP header; RoCEv2 rides on destination port 4791. */
#ifndef RP_WIRE_UDP_H
#define RP_WIRE_UDP_H

#include <stddef.h>
#include <stdint.h>

#define RP_UDP_HLEN 8
#define RP_ROCEV2_UDP_PORT 4791

struct rp_udp {
	uint16_t sport;
	uint16_t dport;
	uint16_t len;      /* header + payload */
	uint16_t checksum; /* 0 = none (allowed for IPv4 RoCEv2) */
};

size_t rp_udp_build(uint8_t *buf, size_t cap, const struct rp_udp *u);
/* Rejects len < 8 (ETRUNC) and a length field below 8 (EMALFORMED). */
int rp_udp_parse(const uint8_t *buf, size_t len, struct rp_udp *u);

#endif
