/* RoCEv2 invariant CRC (IBA annex A17.3.3), bit-compatible with Linux rxe
 * (drivers/infiniband/sw/rxe/rxe_icrc.c). */
#include "icrc.h"

#include <string.h>

#include "bth.h"
#include "crc32.h"

#define RP_ICRC_IPV4_MIN_HLEN 20
#define RP_ICRC_IPV4_MAX_HLEN 60
#define RP_ICRC_IPV6_HLEN 40
#define RP_ICRC_UDP_HLEN 8
#define RP_ICRC_HDR_MAX (RP_ICRC_IPV4_MAX_HLEN + RP_ICRC_UDP_HLEN + RP_BTH_LEN)

/* rp_crc32(0, 8 bytes of 0xFF): the running CRC after the masked LRH that
 * RoCEv2 pretends precedes the IP header (rxe seeds with its raw form,
 * 0xdebb20e3). Starting from it saves feeding the prefix on every packet. */
#define RP_ICRC_LRH_CRC 0x2144DF1Cu

/* CRC-32 reflected polynomial; x^0 is bit 31 in this representation. */
#define RP_CRC32_POLY 0xEDB88320u
#define RP_GF2_ONE 0x80000000u

/* Length of the IP header, or 0 when l3 is not a usable IPv4/IPv6 packet. */
static size_t rp_icrc_ip_hlen(const uint8_t *l3, size_t len)
{
	size_t hlen;

	if (len < 1)
		return 0;
	switch (l3[0] >> 4) {
	case 4:
		hlen = (size_t)(l3[0] & 0x0F) * 4;
		if (hlen < RP_ICRC_IPV4_MIN_HLEN)
			return 0;
		break;
	case 6:
		hlen = RP_ICRC_IPV6_HLEN;
		break;
	default:
		return 0;
	}
	return len < hlen + RP_ICRC_UDP_HLEN + RP_BTH_LEN ? 0 : hlen;
}

/* The variant fields a router or switch may rewrite in flight become ones. */
static void rp_icrc_mask(uint8_t *h, size_t ip_hlen)
{
	uint8_t *udp = h + ip_hlen;
	uint8_t *bth = udp + RP_ICRC_UDP_HLEN;

	if ((h[0] >> 4) == 6) {
		h[0] |= 0x0F; /* traffic class, high nibble */
		h[1] = 0xFF;  /* traffic class low nibble, flow label */
		h[2] = 0xFF;
		h[3] = 0xFF;
		h[7] = 0xFF; /* hop limit */
	} else {
		h[1] = 0xFF;  /* TOS: DSCP and ECN */
		h[8] = 0xFF;  /* TTL */
		h[10] = 0xFF; /* header checksum */
		h[11] = 0xFF;
	}
	udp[6] = 0xFF; /* checksum */
	udp[7] = 0xFF;
	bth[4] = 0xFF; /* FECN, BECN, reserved */
}

/* The masks as ones over zeros, for rp_crc32_masked: the two layouts the
 * builder writes, fixed; any other IPv4 header length made per call. */
static const uint8_t mask_v4[RP_CRC32_MASK_LEN] = {
	[1] = 0xFF, [8] = 0xFF, [10] = 0xFF, [11] = 0xFF,                         /* TOS, TTL, checksum */
	[20 + 6] = 0xFF, [20 + 7] = 0xFF,                                         /* UDP checksum */
	[28 + 4] = 0xFF,                                                          /* BTH FECN/BECN/resv */
};
static const uint8_t mask_v6[RP_CRC32_MASK_LEN] = {
	[0] = 0x0F, [1] = 0xFF, [2] = 0xFF, [3] = 0xFF, [7] = 0xFF,               /* TC, flow label, hops */
	[40 + 6] = 0xFF, [40 + 7] = 0xFF,
	[48 + 4] = 0xFF,
};

uint32_t rp_icrc_compute(const uint8_t *l3, size_t len)
{
	size_t ip_hlen = rp_icrc_ip_hlen(l3, len);
	size_t hdr_len = ip_hlen + RP_ICRC_UDP_HLEN + RP_BTH_LEN;
	if (ip_hlen == 0)
		return 0;
	/* The headers within the masked head: CRC'd in place, the masks applied
	 * as the bytes are read. */
	if (hdr_len <= RP_CRC32_MASK_LEN) {
		if (ip_hlen == RP_ICRC_IPV6_HLEN && (l3[0] >> 4) == 6)
			return rp_crc32_masked(RP_ICRC_LRH_CRC, l3, len, mask_v6);
		if (ip_hlen == RP_ICRC_IPV4_MIN_HLEN)
			return rp_crc32_masked(RP_ICRC_LRH_CRC, l3, len, mask_v4);
		uint8_t mask[RP_CRC32_MASK_LEN] = {0}; /* byte 0 reads as no IPv6: masked as IPv4 */
		rp_icrc_mask(mask, ip_hlen);
		return rp_crc32_masked(RP_ICRC_LRH_CRC, l3, len, mask);
	}
	/* Long IPv4 options: the headers are masked on a copy. */
	uint8_t hdr[RP_ICRC_HDR_MAX];
	memcpy(hdr, l3, hdr_len);
	rp_icrc_mask(hdr, ip_hlen);
	uint32_t crc = rp_crc32(RP_ICRC_LRH_CRC, hdr, hdr_len);
	return rp_crc32(crc, l3 + hdr_len, len - hdr_len);
}

bool rp_icrc_verify(const uint8_t *l3, size_t len)
{
	if (len < RP_ICRC_LEN || rp_icrc_ip_hlen(l3, len - RP_ICRC_LEN) == 0)
		return false;
	return rp_icrc_compute(l3, len - RP_ICRC_LEN) == rp_icrc_load(l3 + len - RP_ICRC_LEN);
}

/* The fixed mask of the two layouts the builder writes (an IPv4 header of
 * 20 bytes, or IPv6), as rp_icrc_compute picks it; NULL for any other. */
static const uint8_t *builder_mask(const uint8_t *l3, size_t len)
{
	size_t ip_hlen = rp_icrc_ip_hlen(l3, len);
	if (ip_hlen == RP_ICRC_IPV6_HLEN && (l3[0] >> 4) == 6)
		return mask_v6;
	return ip_hlen == RP_ICRC_IPV4_MIN_HLEN ? mask_v4 : NULL;
}

void rp_icrc_verify_n(const uint8_t *const l3[], const uint32_t len[], unsigned n, bool ok[])
{
	unsigned i = 0;
	while (i < n) {
		/* Up to four neighbours of one length in the builder's layouts. */
		size_t crc_len = len[i] >= RP_ICRC_LEN ? len[i] - RP_ICRC_LEN : 0;
		const void *buf[4];
		const uint8_t *mask[4];
		unsigned k = 0;
		while (k < 4 && i + k < n && len[i + k] == len[i] && crc_len &&
		       (mask[k] = builder_mask(l3[i + k], crc_len)) != NULL) {
			buf[k] = l3[i + k];
			k++;
		}
		if (k < 2) {
			ok[i] = rp_icrc_verify(l3[i], len[i]);
			i++;
			continue;
		}
		k &= ~1u; /* pairs */
		uint32_t c[4];
		rp_crc32_masked_n(RP_ICRC_LRH_CRC, buf, mask, k, crc_len, c);
		for (unsigned j = 0; j < k; j++)
			ok[i + j] = c[j] == rp_icrc_load(l3[i + j] + crc_len);
		i += k;
	}
}

/* a * b mod P over GF(2), both in the reflected representation (zlib's
 * multmodp). Only used when a patch is set up, never per packet. */
static uint32_t rp_gf2_mulmod(uint32_t a, uint32_t b)
{
	uint32_t m = RP_GF2_ONE;
	uint32_t p = 0;

	while (m != 0 && a != 0) {
		if (a & m) {
			p ^= b;
			a &= ~m;
		}
		m >>= 1;
		b = (b & 1) ? (b >> 1) ^ RP_CRC32_POLY : b >> 1;
	}
	return p;
}

/* x^(8 * nbytes) mod P: feeding nbytes zero bytes through a raw CRC register
 * multiplies its content by exactly this. Square-and-multiply keeps set-up
 * time logarithmic in the packet length. */
static uint32_t rp_gf2_x8n(size_t nbytes)
{
	uint32_t result = RP_GF2_ONE;
	uint32_t base = RP_GF2_ONE >> 8; /* x^8 */

	while (nbytes != 0) {
		if (nbytes & 1)
			result = rp_gf2_mulmod(result, base);
		base = rp_gf2_mulmod(base, base);
		nbytes >>= 1;
	}
	return result;
}

/* The field must lie outside the masked bytes: a change there never reaches
 * the CRC, but the patch would still fold it in. Nothing per-packet needs
 * that (DSCP, ECN, TTL, FECN/BECN do not move the ICRC at all). */
/* Table k of a chunk maps byte value b at byte k of the chunk (bits 8k..8k+7
 * of the reflected register) to its image under the operator; the operator is
 * linear, so an entry is the XOR of the images of its set bits. */
static void fill_tables(uint32_t tab[4][256], uint32_t op)
{
	uint32_t basis[32];
	for (unsigned i = 0; i < 32; i++)
		basis[i] = rp_gf2_mulmod(op, 1u << i);
	for (unsigned k = 0; k < 4; k++) {
		tab[k][0] = 0;
		for (unsigned bit = 0; bit < 8; bit++) {
			unsigned top = 1u << bit;
			for (unsigned b = top; b < 2 * top; b++)
				tab[k][b] = tab[k][b ^ top] ^ basis[8 * k + bit];
		}
	}
}

/* A chunk of n bytes loaded little-endian into a zero register and fed
 * through n + trail byte steps: multiplying by x^(8 (n + trail)) mod P. */
int rp_icrc_patch_init(struct rp_icrc_patch *p, size_t off, size_t len, size_t region_len)
{
	if (len < 1 || len > 8 || off > region_len || len > region_len - off)
		return -1;
	p->off = (uint32_t)off;
	p->len = (uint32_t)len;
	size_t end_trail = region_len - off - len;
	size_t n0 = len < 4 ? len : 4;
	fill_tables(p->tab, rp_gf2_x8n(n0 + (len - n0) + end_trail));
	if (len > 4)
		fill_tables(p->tab + 4, rp_gf2_x8n((len - 4) + end_trail));
	return 0;
}

uint32_t rp_icrc_patch_apply(const struct rp_icrc_patch *p, uint32_t icrc, const uint8_t *old_bytes, const uint8_t *new_bytes)
{
	for (uint32_t k = 0; k < p->len; k++)
		icrc ^= p->tab[k][old_bytes[k] ^ new_bytes[k]];
	return icrc;
}
