/* IPv4 header: DSCP, ECN, TTL, DF and the header checksum. */
#ifndef RP_WIRE_IPV4_H
#define RP_WIRE_IPV4_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RP_IPV4_HLEN 20
#define RP_IPPROTO_UDP 17

enum rp_ecn { RP_ECN_NOT_ECT = 0, RP_ECN_ECT1 = 1, RP_ECN_ECT0 = 2, RP_ECN_CE = 3 };

struct rp_ipv4 {
	uint8_t dscp; /* 0..63 */
	uint8_t ecn;  /* enum rp_ecn */
	uint16_t total_len;
	uint16_t id;
	bool df;
	uint8_t ttl;
	uint8_t proto;
	uint16_t checksum; /* parse: as read; build: ignored, computed */
	uint32_t src;      /* host order: 192.0.2.1 is 0xC0000201 */
	uint32_t dst;
	uint8_t hlen;      /* parse: IHL * 4 (options are skipped, not kept) */
	bool checksum_ok;  /* parse only */
};

/* Writes a 20-byte header (no options) with a valid checksum; returns 20 or 0. */
size_t rp_ipv4_build(uint8_t *buf, size_t cap, const struct rp_ipv4 *ip);
/* Rejects version != 4, IHL < 5, total_len < IHL*4 (RP_WIRE_EMALFORMED) and
 * buffers shorter than IHL*4 (RP_WIRE_ETRUNC). A wrong checksum is reported
 * in checksum_ok, not as an error. */
int rp_ipv4_parse(const uint8_t *buf, size_t len, struct rp_ipv4 *ip);
/* RFC 1071 checksum over the header as it stands (checksum field included). */
uint16_t rp_ipv4_checksum(const uint8_t *hdr, size_t hlen);

int rp_ipv4_addr_parse(const char *s, uint32_t *out);
void rp_ipv4_addr_format(uint32_t addr, char out[16]);

#endif
