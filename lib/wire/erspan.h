/* ERSPAN: a mirror's copy of a frame in GRE (draft-foschiano-erspan-03).
 *
 *   outer Ethernet / IPv4 or IPv6 (protocol 47) / GRE (RFC 2784, with the
 *   key and sequence number of RFC 2890) / ERSPAN header / the mirrored frame
 *
 * GRE protocol 0x88BE is type I (no sequence number: no ERSPAN header, the
 * frame follows GRE) or type II (sequence number present: an 8-byte header,
 * version 1, with the session id); 0x22EB is type III (a 12-byte header,
 * version 2: session id, a 32-bit timestamp of granularity Gra, frame type,
 * and with the O bit an 8-byte platform-specific subheader; platform id 3
 * holds the upper 32 bits, the seconds, of an IEEE 1588 timestamp whose
 * nanoseconds are in the base header).
 *
 * Packed header structs in network order, read through accessors. */
#ifndef RP_WIRE_ERSPAN_H
#define RP_WIRE_ERSPAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bytes.h"

#define RP_IPPROTO_GRE 47
#define RP_GRE_PROTO_ERSPAN2 0x88BE /* type I or II */
#define RP_GRE_PROTO_ERSPAN3 0x22EB

/* RFC 2784 section 2.1 / RFC 2890 section 2: C, K, S bits; version 0. */
#define RP_GRE_F_CSUM 0x8000
#define RP_GRE_F_KEY 0x2000
#define RP_GRE_F_SEQ 0x1000
#define RP_GRE_VER_MASK 0x0007

struct rp_gre_hdr {
	uint8_t flags_ver[2];
	uint8_t proto[2];
} __attribute__((packed));

/* Type II: Ver(4)=1 VLAN(12) COS(3) En(2) T(1) Session(10) | Reserved(12) Index(20) */
struct rp_erspan2_hdr {
	uint8_t w0[4];
	uint8_t w1[4];
} __attribute__((packed));

/* Type III: Ver(4)=2 VLAN(12) COS(3) BSO(2) T(1) Session(10) | Timestamp(32) |
 * SGT(16) P(1) FT(5) HwID(6) D(1) Gra(2) O(1) */
struct rp_erspan3_hdr {
	uint8_t w0[4];
	uint8_t ts[4];
	uint8_t sgt[2];
	uint8_t w2[2];
} __attribute__((packed));

/* Platform-specific subheader: Platf ID(6) info(26) | info(32). */
struct rp_erspan3_plat {
	uint8_t w0[4];
	uint8_t w1[4];
} __attribute__((packed));

enum rp_erspan_gra {
	RP_ERSPAN_GRA_100US = 0,
	RP_ERSPAN_GRA_100NS = 1,
	RP_ERSPAN_GRA_1588 = 2,
	RP_ERSPAN_GRA_USER = 3,
};
#define RP_ERSPAN_FT_ETHERNET 0
#define RP_ERSPAN_PLATF_1588_SECS 3

static inline uint16_t rp_gre_flags(const struct rp_gre_hdr *g) { return rp_get_be16(g->flags_ver); }
static inline uint16_t rp_gre_proto(const struct rp_gre_hdr *g) { return rp_get_be16(g->proto); }
/* The GRE header's length with its optional words: 4, plus 4 each for C, K, S. */
static inline size_t rp_gre_hlen(const struct rp_gre_hdr *g)
{
	uint16_t f = rp_gre_flags(g);
	return 4 + (f & RP_GRE_F_CSUM ? 4 : 0) + (f & RP_GRE_F_KEY ? 4 : 0) + (f & RP_GRE_F_SEQ ? 4 : 0);
}

static inline unsigned rp_erspan_ver(const uint8_t w0[4]) { return w0[0] >> 4; }
static inline uint16_t rp_erspan_session(const uint8_t w0[4]) { return rp_get_be16(w0 + 2) & 0x3FF; }
static inline bool rp_erspan_truncated(const uint8_t w0[4]) { return (w0[2] >> 2) & 1; }
static inline uint32_t rp_erspan3_ts(const struct rp_erspan3_hdr *h) { return rp_get_be32(h->ts); }
static inline unsigned rp_erspan3_ft(const struct rp_erspan3_hdr *h) { return (rp_get_be16(h->w2) >> 10) & 0x1F; }
static inline unsigned rp_erspan3_gra(const struct rp_erspan3_hdr *h) { return (rp_get_be16(h->w2) >> 1) & 3; }
static inline bool rp_erspan3_o(const struct rp_erspan3_hdr *h) { return rp_get_be16(h->w2) & 1; }
static inline unsigned rp_erspan3_platf_id(const struct rp_erspan3_plat *p) { return p->w0[0] >> 2; }
static inline uint32_t rp_erspan3_platf_secs(const struct rp_erspan3_plat *p) { return rp_get_be32(p->w1); }

/* What a decapsulated frame came with. */
struct rp_erspan {
	uint8_t type;      /* 1, 2 or 3 */
	uint16_t session;  /* type II/III; 0 for type I */
	bool truncated;    /* the T bit: the mirror cut the frame */
	bool has_ts;       /* type III */
	uint8_t gra;       /* enum rp_erspan_gra */
	uint32_t ts;
	bool has_secs;     /* Gra 1588 with platform subheader id 3: ts is ns, secs the seconds */
	uint32_t secs;
	size_t inner_off;  /* where the mirrored Ethernet frame starts */
};

/* An ERSPAN frame of type I, II or III carrying an Ethernet frame, with all
 * its headers within caplen: true and *e filled (the inner frame is
 * buf[e->inner_off..caplen)). Anything else (not GRE, another protocol, a
 * GRE version other than 0, an ERSPAN version that does not match its
 * protocol, type III with a frame type other than Ethernet, headers cut by
 * the snaplen): false. Never reads past caplen. */
bool rp_erspan_decap(const uint8_t *buf, size_t caplen, struct rp_erspan *e);

#endif
