/* Whole-frame classification and parsing, and the RoCEv2 frame builder. */
#include "frame.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bytes.h"
#include "classify.h"
#include "wire_err.h"

static const char *const kind_names[] = {
	[RP_KIND_ROCE] = "roce",   [RP_KIND_CNP] = "cnp",     [RP_KIND_PFC] = "pfc",
	[RP_KIND_PAUSE] = "pause", [RP_KIND_OTHER] = "other", [RP_KIND_MALFORMED] = "malformed",
};

const char *rp_frame_kind_name(enum rp_frame_kind k)
{
	return (unsigned)k < sizeof(kind_names) / sizeof(kind_names[0]) ? kind_names[k] : "?";
}

__attribute__((format(printf, 2, 3)))
static enum rp_frame_kind malformed(struct rp_frame *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->error, sizeof(f->error), fmt, ap);
	va_end(ap);
	return f->kind = RP_KIND_MALFORMED;
}

static enum rp_frame_kind truncated(struct rp_frame *f, const char *what, size_t have, size_t need)
{
	return malformed(f, "truncated %s: %zu of %zu bytes", what, have, need);
}

static enum rp_frame_kind parse_macctl(const uint8_t *p, size_t len, struct rp_frame *f)
{
	if (rp_macctl_parse(p, len, &f->macctl) != RP_WIRE_OK) {
		bool pfc = len >= 2 && rp_get_be16(p) == RP_MACCTL_OP_PFC;
		return truncated(f, pfc ? "PFC" : "MAC control", len, pfc ? 20u : 4u);
	}
	switch (f->macctl.opcode) {
	case RP_MACCTL_OP_PFC:
		return f->kind = RP_KIND_PFC;
	case RP_MACCTL_OP_PAUSE:
		return f->kind = RP_KIND_PAUSE;
	default:
		return f->kind = RP_KIND_OTHER;
	}
}

/* The extended headers, in wire order, each with where it lands in the frame.
 * len: the bytes after the BTH on the wire, cap: of those, the captured. A
 * header the packet has no room for is malformed; one a snaplen cut off is
 * left unparsed (not in f->ext) and the offsets go on by its length. */
static enum rp_frame_kind parse_ext(const uint8_t *p, size_t len, size_t cap, unsigned ext, struct rp_frame *f,
				    size_t *used)
{
	static const struct {
		unsigned bit;
		const char *name;
		size_t len;
	} order[] = {
		{RP_EXT_DETH, "DETH", RP_DETH_LEN},
		{RP_EXT_RETH, "RETH", RP_RETH_LEN},
		{RP_EXT_ATOMIC_ETH, "AtomicETH", RP_ATOMIC_ETH_LEN},
		{RP_EXT_AETH, "AETH", RP_AETH_LEN},
		{RP_EXT_ATOMIC_ACK, "AtomicAckETH", RP_ATOMIC_ACK_LEN},
		{RP_EXT_IMM, "ImmDt", RP_IMM_LEN},
		{RP_EXT_IETH, "IETH", RP_IETH_LEN},
		{RP_EXT_CNP_PAD, "CNP reserved", RP_CNP_PAD_LEN},
	};
	size_t off = 0;
	unsigned got = 0;
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (!(ext & order[i].bit))
			continue;
		if (len - off < order[i].len)
			return truncated(f, order[i].name, len - off, order[i].len);
		if (cap < off + order[i].len) { /* cut by the snaplen */
			off += order[i].len;
			continue;
		}
		got |= order[i].bit;
		const uint8_t *h = p + off;
		switch (order[i].bit) {
		case RP_EXT_DETH: rp_deth_parse(h, order[i].len, &f->deth); break;
		case RP_EXT_RETH: rp_reth_parse(h, order[i].len, &f->reth); break;
		case RP_EXT_ATOMIC_ETH: rp_atomic_eth_parse(h, order[i].len, &f->atomic); break;
		case RP_EXT_AETH: rp_aeth_parse(h, order[i].len, &f->aeth); break;
		case RP_EXT_ATOMIC_ACK: rp_be64_parse(h, order[i].len, &f->atomic_ack); break;
		case RP_EXT_IMM: rp_be32_parse(h, order[i].len, &f->imm); break;
		case RP_EXT_IETH: rp_be32_parse(h, order[i].len, &f->ieth); break;
		default: break;
		}
		off += order[i].len;
	}
	f->ext = got;
	*used = off;
	return f->kind;
}

/* p points at the BTH; len is what the IP/UDP lengths say the RoCE packet
 * holds on the wire (BTH .. ICRC), cap how many of those bytes the capture
 * holds (cap <= len; less after a snaplen cut). The BTH must be captured; an
 * extended header the cut took is left out of f->ext (a WRITE FIRST cut after
 * its BTH is still data, a CNP still a CNP); the payload length comes from the
 * wire lengths either way, so a snaplen-cut frame reports its real payload_len. */
static enum rp_frame_kind parse_roce(const uint8_t *frame, const uint8_t *p, size_t len, size_t cap,
				     struct rp_frame *f)
{
	if (cap < RP_BTH_LEN)
		return truncated(f, "BTH", cap, RP_BTH_LEN);
	rp_bth_parse(p, cap, &f->bth);
	f->kind = f->bth.opcode == RP_OP_CNP ? RP_KIND_CNP : RP_KIND_ROCE;
	const struct rp_opcode_info *oi = rp_opcode_info(f->bth.opcode);
	size_t ext_len = 0;
	if (len < RP_BTH_LEN)
		return truncated(f, "BTH", len, RP_BTH_LEN);
	if (parse_ext(p + RP_BTH_LEN, len - RP_BTH_LEN, cap - RP_BTH_LEN, oi->ext, f, &ext_len) == RP_KIND_MALFORMED)
		return f->kind;
	size_t hdr = RP_BTH_LEN + ext_len;
	f->payload_off = (size_t)(p - frame) + hdr;
	if (len < hdr + f->bth.pad + RP_ICRC_LEN)
		return truncated(f, "ICRC", len > hdr ? len - hdr : 0, (size_t)f->bth.pad + RP_ICRC_LEN);
	f->payload_len = len - hdr - f->bth.pad - RP_ICRC_LEN;
	f->payload_cap = cap <= hdr ? 0 : cap - hdr < f->payload_len ? cap - hdr : f->payload_len;
	f->has_probe = rp_probe_parse(p + hdr, f->payload_cap, &f->probe) == RP_WIRE_OK;
	if (cap < len)
		return f->kind;
	memcpy(f->icrc_wire, p + len - RP_ICRC_LEN, RP_ICRC_LEN);
	f->icrc_checked = true;
	f->icrc_ok = rp_icrc_verify(frame + f->l3_off, (size_t)(p + len - frame) - f->l3_off);
	return f->kind;
}

/* l4_len: the IP header's length of what follows it; l4_cap: how much of that
 * was captured (<= l4_len). */
static enum rp_frame_kind parse_udp(const uint8_t *frame, size_t l4_off, size_t l4_len, size_t l4_cap,
				    struct rp_frame *f)
{
	if (l4_cap < RP_UDP_HLEN)
		return truncated(f, "UDP header", l4_cap, RP_UDP_HLEN);
	/* rp_udp_parse refuses a UDP length under 8 and fills nothing: the port
	 * decides first, so such a frame to 4791 is malformed, not "other". */
	if (rp_get_be16(frame + l4_off + 2) != RP_ROCEV2_UDP_PORT)
		return f->kind = RP_KIND_OTHER;
	if (rp_udp_parse(frame + l4_off, l4_cap, &f->udp) != RP_WIRE_OK) {
		f->udp.dport = RP_ROCEV2_UDP_PORT;
		f->udp.len = rp_get_be16(frame + l4_off + 4);
	}
	if (f->udp.len < RP_UDP_HLEN || f->udp.len > l4_len)
		return malformed(f, "bad UDP length: %u, %zu bytes follow the IP header", f->udp.len, l4_len);
	size_t roce_len = (size_t)f->udp.len - RP_UDP_HLEN;
	size_t roce_cap = l4_cap - RP_UDP_HLEN < roce_len ? l4_cap - RP_UDP_HLEN : roce_len;
	return parse_roce(frame, frame + l4_off + RP_UDP_HLEN, roce_len, roce_cap, f);
}

static enum rp_frame_kind parse_ipv4(const uint8_t *frame, size_t off, size_t caplen, size_t wire_len,
				     struct rp_frame *f)
{
	int rc = rp_ipv4_parse(frame + off, caplen - off, &f->ip4);
	if (rc == RP_WIRE_ETRUNC)
		return truncated(f, "IPv4 header", caplen - off, RP_IPV4_HLEN);
	if (rc != RP_WIRE_OK)
		return malformed(f, "bad IPv4 header: version %u, header length %u, total length %u", /* as on the wire */
				 frame[off] >> 4, (frame[off] & 0xFu) * 4, rp_get_be16(frame + off + 2));
	f->l3 = 4;
	/* A fragment after the first carries no UDP header (classify.h agrees). */
	if (f->ip4.proto != RP_IPPROTO_UDP || (rp_get_be16(frame + off + 6) & 0x1FFF))
		return f->kind = RP_KIND_OTHER;
	if (f->ip4.total_len > wire_len - off)
		return malformed(f, "truncated IPv4 packet: %zu of %u bytes", wire_len - off, f->ip4.total_len);
	/* rp_ipv4_parse checked hlen <= total_len and hlen <= caplen - off */
	size_t cap = caplen - off < f->ip4.total_len ? caplen - off : f->ip4.total_len;
	return parse_udp(frame, off + f->ip4.hlen, (size_t)f->ip4.total_len - f->ip4.hlen, cap - f->ip4.hlen, f);
}

static enum rp_frame_kind parse_ipv6(const uint8_t *frame, size_t off, size_t caplen, size_t wire_len,
				     struct rp_frame *f)
{
	int rc = rp_ipv6_parse(frame + off, caplen - off, &f->ip6);
	if (rc == RP_WIRE_ETRUNC)
		return truncated(f, "IPv6 header", caplen - off, RP_IPV6_HLEN);
	if (rc != RP_WIRE_OK)
		return malformed(f, "bad IPv6 header: version %u", frame[off] >> 4);
	f->l3 = 6;
	if (f->ip6.next_header != RP_IPPROTO_UDP)
		return f->kind = RP_KIND_OTHER;
	size_t total = RP_IPV6_HLEN + (size_t)f->ip6.payload_len;
	if (total > wire_len - off)
		return malformed(f, "truncated IPv6 packet: %zu of %zu bytes", wire_len - off, total);
	size_t cap = caplen - off < total ? caplen - off : total;
	return parse_udp(frame, off + RP_IPV6_HLEN, total - RP_IPV6_HLEN, cap - RP_IPV6_HLEN, f);
}

enum rp_frame_kind rp_frame_parse(const uint8_t *buf, size_t caplen, size_t wire_len, struct rp_frame *f)
{
	memset(f, 0, sizeof(*f));
	if (wire_len < caplen)
		wire_len = caplen;
	size_t off = 0;
	if (rp_eth_parse(buf, caplen, &f->eth, &off) != RP_WIRE_OK) {
		size_t need = caplen >= RP_ETH_HLEN ? RP_ETH_HLEN + RP_VLAN_HLEN : RP_ETH_HLEN;
		return truncated(f, "Ethernet header", caplen, need);
	}
	f->l3_off = off;
	switch (f->eth.ethertype) {
	case RP_ETHERTYPE_MACCTL:
		return parse_macctl(buf + off, caplen - off, f);
	case RP_ETHERTYPE_IPV4:
		return parse_ipv4(buf, off, caplen, wire_len, f);
	case RP_ETHERTYPE_IPV6:
		return parse_ipv6(buf, off, caplen, wire_len, f);
	default:
		return f->kind = RP_KIND_OTHER;
	}
}

static size_t build_ext(uint8_t *p, size_t cap, const struct rp_roce_spec *s, unsigned ext)
{
	size_t off = 0, n;
#define PUT(bit, call)                                  \
	if (ext & (bit)) {                              \
		if ((n = (call)) == 0)                  \
			return 0;                       \
		off += n;                               \
	}
	PUT(RP_EXT_DETH, rp_deth_build(p + off, cap - off, &s->deth));
	PUT(RP_EXT_RETH, rp_reth_build(p + off, cap - off, &s->reth));
	PUT(RP_EXT_ATOMIC_ETH, rp_atomic_eth_build(p + off, cap - off, &s->atomic));
	PUT(RP_EXT_AETH, rp_aeth_build(p + off, cap - off, &s->aeth));
	PUT(RP_EXT_ATOMIC_ACK, rp_be64_build(p + off, cap - off, s->atomic_ack));
	PUT(RP_EXT_IMM, rp_be32_build(p + off, cap - off, s->imm));
	PUT(RP_EXT_IETH, rp_be32_build(p + off, cap - off, s->ieth));
#undef PUT
	if (ext & RP_EXT_CNP_PAD) {
		if (cap - off < RP_CNP_PAD_LEN)
			return 0;
		memset(p + off, 0, RP_CNP_PAD_LEN);
		off += RP_CNP_PAD_LEN;
	}
	return off;
}

static size_t build_l3(uint8_t *p, size_t cap, const struct rp_roce_spec *s, size_t l4_len)
{
	if (s->l3 == 4) {
		struct rp_ipv4 ip = s->ip4;
		ip.total_len = (uint16_t)(RP_IPV4_HLEN + l4_len);
		ip.proto = RP_IPPROTO_UDP;
		return rp_ipv4_build(p, cap, &ip);
	}
	struct rp_ipv6 ip = s->ip6;
	ip.payload_len = (uint16_t)l4_len;
	ip.next_header = RP_IPPROTO_UDP;
	return rp_ipv6_build(p, cap, &ip);
}

size_t rp_roce_build(uint8_t *buf, size_t cap, const struct rp_roce_spec *s, struct rp_roce_layout *layout)
{
	const struct rp_opcode_info *oi = rp_opcode_info(s->bth.opcode);
	if ((s->l3 != 4 && s->l3 != 6) || oi->name == NULL)
		return 0;
	struct rp_eth eth = s->eth;
	eth.ethertype = s->l3 == 4 ? RP_ETHERTYPE_IPV4 : RP_ETHERTYPE_IPV6;
	size_t l3_off = rp_eth_build(buf, cap, &eth);
	size_t l3_hlen = s->l3 == 4 ? RP_IPV4_HLEN : RP_IPV6_HLEN;
	uint8_t pad = (uint8_t)((4 - (s->payload_len & 3)) & 3);
	size_t bth_off = l3_off + l3_hlen + RP_UDP_HLEN;
	size_t ext_len = rp_ext_len(oi->ext);
	size_t payload_off = bth_off + RP_BTH_LEN + ext_len;
	size_t icrc_off = payload_off + s->payload_len + pad;
	size_t end = icrc_off + RP_ICRC_LEN;
	size_t frame_len = end < RP_ETH_MIN_FRAME ? RP_ETH_MIN_FRAME : end;
	if (l3_off == 0 || frame_len > cap || end - l3_off > 0xFFFF)
		return 0;

	size_t l4_len = end - l3_off - l3_hlen;
	build_l3(buf + l3_off, cap - l3_off, s, l4_len);
	struct rp_udp udp = {.sport = s->udp_sport, .dport = RP_ROCEV2_UDP_PORT, .len = (uint16_t)l4_len};
	rp_udp_build(buf + l3_off + l3_hlen, cap - l3_off - l3_hlen, &udp);
	struct rp_bth bth = s->bth;
	bth.pad = pad;
	rp_bth_build(buf + bth_off, RP_BTH_LEN, &bth);
	build_ext(buf + bth_off + RP_BTH_LEN, ext_len, s, oi->ext);
	if (s->payload)
		memcpy(buf + payload_off, s->payload, s->payload_len);
	else
		memset(buf + payload_off, 0, s->payload_len);
	memset(buf + payload_off + s->payload_len, 0, pad);
	memset(buf + end, 0, frame_len - end);
	/* The ICRC masks the UDP checksum and the UDP checksum covers the ICRC. */
	rp_icrc_store(buf + icrc_off, rp_icrc_compute(buf + l3_off, icrc_off - l3_off));
	if (s->udp_checksum) {
		uint16_t c = rp_udp_checksum(buf + l3_off, end - l3_off);
		rp_put_be16(buf + l3_off + l3_hlen + 6, c);
	}

	if (layout) {
		*layout = (struct rp_roce_layout){
			.l3_off = l3_off,
			.udp_off = l3_off + l3_hlen,
			.bth_off = bth_off,
			.payload_off = payload_off,
			.icrc_off = icrc_off,
			.frame_len = frame_len,
		};
	}
	return frame_len;
}

bool rp_frame_is_roce_data(const uint8_t *b, size_t len)
{
	int op = rp_cls_opcode(b, len);
	return op >= 0 && op != RP_OP_RC_ACK && op != RP_OP_RC_ATOMIC_ACK && op != RP_OP_CNP;
}

int rp_frame_set_ecn(uint8_t *frame, size_t len, uint8_t ecn)
{
	struct rp_eth eth;
	size_t off;
	if (rp_eth_parse(frame, len, &eth, &off) != RP_WIRE_OK)
		return -1;
	uint8_t *ip = frame + off;
	if (eth.ethertype == RP_ETHERTYPE_IPV4 && len - off >= RP_IPV4_HLEN) {
		ip[1] = (uint8_t)((ip[1] & 0xFC) | (ecn & 3));
		size_t hlen = (size_t)(ip[0] & 0xF) * 4;
		if (hlen < RP_IPV4_HLEN || hlen > len - off)
			return -1;
		ip[10] = ip[11] = 0;
		rp_put_be16(ip + 10, rp_ipv4_checksum(ip, hlen));
		return 0;
	}
	if (eth.ethertype == RP_ETHERTYPE_IPV6 && len - off >= RP_IPV6_HLEN) {
		/* Traffic class spans bytes 0-1: its low two bits are bits 4-5 of byte 1. */
		ip[1] = (uint8_t)((ip[1] & 0xCF) | ((ecn & 3) << 4));
		return 0;
	}
	return -1;
}

static uint32_t sum16(const uint8_t *p, size_t len, uint32_t sum)
{
	for (size_t i = 0; i + 1 < len; i += 2)
		sum += rp_get_be16(p + i);
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

uint16_t rp_l4_checksum(const uint8_t *l3, size_t l3_len, uint8_t proto, size_t csum_off)
{
	uint32_t sum;
	size_t hlen;
	if ((l3[0] >> 4) == 4) {
		hlen = (size_t)(l3[0] & 0xF) * 4;
		sum = sum16(l3 + 12, 8, 0); /* source and destination */
	} else {
		hlen = RP_IPV6_HLEN;
		sum = sum16(l3 + 8, 32, 0);
	}
	sum += proto;
	size_t l4_len = l3_len - hlen;
	sum += (uint32_t)l4_len;
	/* The checksum field itself counts as zero. */
	sum = sum16(l3 + hlen, csum_off, sum);
	sum = sum16(l3 + hlen + csum_off + 2, l4_len - csum_off - 2, sum);
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	return (uint16_t)~sum;
}

uint16_t rp_udp_checksum(const uint8_t *l3, size_t l3_len)
{
	uint16_t c = rp_l4_checksum(l3, l3_len, RP_IPPROTO_UDP, 6);
	return c ? c : 0xFFFF; /* 0 would mean "no checksum" */
}
