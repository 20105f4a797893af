#include "segment.h"

#include "wire/bth.h"
#include "wire/eth.h"
#include "wire/icrc.h"
#include "wire/ipv4.h"
#include "wire/ipv6.h"
#include "wire/udp.h"

static const uint8_t opcodes[RP_VERB_COUNT][RP_PKT_KINDS] = {
	[RP_VERB_WRITE] = {RP_OP_RC_WRITE_ONLY, RP_OP_RC_WRITE_FIRST, RP_OP_RC_WRITE_MIDDLE, RP_OP_RC_WRITE_LAST},
	[RP_VERB_WRITE_IMM] = {RP_OP_RC_WRITE_ONLY_IMM, RP_OP_RC_WRITE_FIRST, RP_OP_RC_WRITE_MIDDLE,
			       RP_OP_RC_WRITE_LAST_IMM},
	[RP_VERB_SEND] = {RP_OP_RC_SEND_ONLY, RP_OP_RC_SEND_FIRST, RP_OP_RC_SEND_MIDDLE, RP_OP_RC_SEND_LAST},
	[RP_VERB_SEND_IMM] = {RP_OP_RC_SEND_ONLY_IMM, RP_OP_RC_SEND_FIRST, RP_OP_RC_SEND_MIDDLE,
			      RP_OP_RC_SEND_LAST_IMM},
	[RP_VERB_READ_RESP] = {RP_OP_RC_READ_RESP_ONLY, RP_OP_RC_READ_RESP_FIRST, RP_OP_RC_READ_RESP_MIDDLE,
			       RP_OP_RC_READ_RESP_LAST},
};

uint8_t rp_verb_opcode(enum rp_verb v, enum rp_pkt_kind k)
{
	return opcodes[v][k];
}

uint32_t rp_seg_payload(uint32_t size, uint32_t mtu, enum rp_pkt_kind k)
{
	switch (k) {
	case RP_PKT_ONLY:
		return size;
	case RP_PKT_FIRST:
	case RP_PKT_MIDDLE:
		return mtu;
	default:
		return size - (rp_seg_count(size, mtu) - 1) * mtu;
	}
}

int rp_segment(enum rp_verb v, uint32_t size, uint32_t mtu, uint32_t idx, struct rp_seg *out)
{
	uint32_t n = rp_seg_count(size, mtu);
	if (idx >= n || (unsigned)v >= RP_VERB_COUNT)
		return -1;
	enum rp_pkt_kind k = rp_seg_kind(idx, n);
	out->kind = k;
	out->opcode = opcodes[v][k];
	out->ext = rp_opcode_info(out->opcode)->ext;
	out->payload = rp_seg_payload(size, mtu, k);
	out->pad = (uint8_t)((4 - (out->payload & 3)) & 3);
	out->ack_req = v != RP_VERB_READ_RESP && (k == RP_PKT_LAST || k == RP_PKT_ONLY);
	return 0;
}

const char *rp_pkt_kind_name(enum rp_pkt_kind k)
{
	static const char *const names[RP_PKT_KINDS] = {"only", "first", "middle", "last"};
	return (unsigned)k < RP_PKT_KINDS ? names[k] : "?";
}

uint32_t rp_seg_frame_len(const struct rp_frame_shape *sh, const struct rp_seg *s)
{
	uint32_t len = RP_ETH_HLEN + (sh->vlan ? RP_VLAN_HLEN : 0) + (sh->l3 == 6 ? RP_IPV6_HLEN : RP_IPV4_HLEN) +
		       RP_UDP_HLEN + RP_BTH_LEN + (uint32_t)rp_ext_len(s->ext) + s->payload + s->pad + RP_ICRC_LEN;
	return len < RP_ETH_MIN_FRAME ? RP_ETH_MIN_FRAME : len;
}
