/* IPv6 fixed header: traffic class (DSCP, ECN), flow label, hop limit. */
#ifndef RP_WIRE_IPV6_H
#define RP_WIRE_IPV6_H

#include <stddef.h>
#include <stdint.h>

#define RP_IPV6_HLEN 40

struct rp_ipv6 {
	uint8_t dscp;
	uint8_t ecn;
	uint32_t flow_label; /* 20 bits */
	uint16_t payload_len;
	uint8_t next_header;
	uint8_t hop_limit;
	uint8_t src[16];
	uint8_t dst[16];
};

size_t rp_ipv6_build(uint8_t *buf, size_t cap, const struct rp_ipv6 *ip);
/* Rejects version != 6 (RP_WIRE_EMALFORMED) and len < 40 (RP_WIRE_ETRUNC). */
int rp_ipv6_parse(const uint8_t *buf, size_t len, struct rp_ipv6 *ip);

int rp_ipv6_addr_parse(const char *s, uint8_t out[16]);
void rp_ipv6_addr_format(const uint8_t addr[16], char out[46]);

#endif
