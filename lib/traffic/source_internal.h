/* Packet source internals shared by source.c and template.c. */
#ifndef RP_TRAFFIC_SOURCE_INTERNAL_H
#define RP_TRAFFIC_SOURCE_INTERNAL_H

#include "source.h"
#include "wire/icrc.h"

#define RP_TMPL_HDR_MAX 128 /* eth+vlan 18, ipv6 40, udp 8, bth 12, reth 16, imm 4 */
/* Frames are copied in whole blocks of this size, so templates carry that much
 * slack and rp_source_max_frame() includes it for the caller's buffers. */
#define RP_COPY_BLOCK 32

/* One packet kind of one flow: the frame of QP 0 (its payload serves every
 * QP) and where the stamped fields are. Offsets are from the frame start. */
struct rp_tkind {
	uint8_t *frame;     /* up to tail_off (0: all of it), RP_COPY_BLOCK more allocated */
	uint16_t len;
	uint16_t tail_off;  /* 0, or from here to len the frame is zeros (rp_tmpl_zeros): a
			       large frame keeps its headers and probe, not its payload */
	uint16_t hdr_len;   /* the payload offset: bytes taken from the QP header */
	uint16_t icrc_off;
	uint16_t psn_off;
	uint16_t msn_off;   /* 0: no AETH */
	uint16_t probe_off; /* 0: payload too short for a probe */
	uint32_t payload;
	uint16_t head;      /* the bytes a kept buffer gets: headers and probe (hdr_len without one) */
	uint8_t shape;      /* 0, or its shape in the source's table (rp_source_shapes) */
	const struct rp_icrc_patch *psn_p;
	const struct rp_icrc_patch *msn_p;
	const struct rp_icrc_patch *seq_p;
	const struct rp_icrc_patch *ts_p;
};

struct rp_qhdr {
	uint8_t bytes[RP_TMPL_HDR_MAX];
	uint32_t icrc;
};

struct rp_sflow {
	struct rp_pace pace;
	struct rp_pace_cfg cfg;
	uint8_t prio_bit; /* 0 for PFC sources */
	bool is_pfc;
	uint16_t qp;
	uint16_t qps;
	uint32_t flow_id;
	uint64_t lag_ns;
	uint64_t seq;
	uint32_t *psn;    /* [qps] */
	uint32_t *msn;    /* [qps] */
	struct rp_tkind kinds[RP_PKT_KINDS];
	struct rp_qhdr *hdrs; /* [qps * nkinds]: only the kinds its messages use (rp_sflow_hdr) */
	uint8_t nkinds;
	uint8_t kslot[RP_PKT_KINDS]; /* a kind's place among them */
	uint64_t tx_packets;
	uint64_t tx_bytes;
	uint64_t tx_payload;
	uint64_t first_tx_ns, last_tx_ns; /* the bursts of its first and last packets */
	uint64_t before_last_packets, before_last_bytes; /* sent before the last burst */
	/* rp_source_flow_burst_zeroed: bytes [zlo, zhi) of the buffer are zero
	 * already (in), then what is zero after the packet (out); 0, 0: none. */
	uint16_t zlo, zhi;
	bool zhint; /* only inside rp_source_flow_burst_zeroed */
	struct rp_next_hop nh; /* where its frames go first (rp_source_set_next_hop_mac moves them) */
};

/* Patches depend only on (offset, length, region length): shared by every
 * flow and kind with the same layout. */
/* QP q's header of kind k (one the flow sends). */
static inline struct rp_qhdr *rp_sflow_hdr(const struct rp_sflow *f, unsigned q, enum rp_pkt_kind k)
{
	return &f->hdrs[q * f->nkinds + f->kslot[k]];
}

struct rp_patch_entry {
	size_t off;
	size_t len;
	size_t region;
	struct rp_icrc_patch *p;
};

struct rp_patch_cache {
	struct rp_patch_entry *e;
	size_t n;
	size_t cap;
};

struct rp_source {
	struct rp_sflow *flows;
	size_t nflows;
	struct rp_sflow **active; /* unfinished flows */
	size_t nactive;
	size_t rr; /* where pick() starts: flows due at the same time take turns */
	size_t max_frame;
	struct rp_patch_cache patches;
	struct rp_source_shape shapes[RP_SOURCE_SHAPES]; /* shape i + 1 */
	unsigned nshapes;
};

/* Zeros enough for any frame's tail (max MTU 4096 + headers, and slack). */
#define RP_TMPL_ZEROS (16384 + RP_COPY_BLOCK)
extern const uint8_t rp_tmpl_zeros[RP_TMPL_ZEROS];
/* Frames up to this size are kept whole (the source stages them); past it a
 * template keeps this much payload (the probe and slack) and zeros after. */
#define RP_TMPL_WHOLE 256
#define RP_TMPL_HEAD 64

/* Builds every template of flow f of the plan into sf. */
int rp_tmpl_build(struct rp_source *s, const struct rp_plan *plan, const struct rp_flow *f, struct rp_sflow *sf,
		  char *err, size_t errlen);
void rp_tmpl_free(struct rp_sflow *sf);
void rp_patch_cache_free(struct rp_patch_cache *c);

#endif
