/* The packet source: "flow F's next packet is due at T ns; fill these bytes".
 * Clock-free (the caller passes now_ns), allocation-free and syscall-free
 * after rp_source_create. lib/dp drives it from the TSC into mbufs; the lab
 * drives it from its virtual clock into plain buffers.
 *
 * Each (flow, QP, packet kind) gets a header template built once with
 * rp_roce_build; per packet only the PSN, the probe seq and tx_ns, the AETH
 * MSN (read responses) and the ICRC (patched incrementally) change.
 *
 * Pacing is exact (see pace.h). Catch-up rule: a flow whose next packet is
 * more than its lag allowance behind now (paused by PFC, or a late caller)
 * restarts at now instead of bursting to catch up; the allowance is
 * max(opts.catchup_ns, 32 of the flow's largest packets at its rate), so
 * after a pause a flow sends at most that much back to back.
 *
 * tx_ns (the probe's stamp): rp_source_burst and rp_source_burst_shaped stamp
 * each packet with its own due time in the caller's clock (time0_ns + the
 * plan's schedule), never the burst's now: a packet is emitted only once due,
 * so tx_ns <= now, and the catch-up rule keeps tx_ns >= now - the lag
 * allowance. rp_source_flow_burst (the lab, which asks at the virtual time it
 * puts the packet on the wire) stamps now_ns. */
#ifndef RP_TRAFFIC_SOURCE_H
#define RP_TRAFFIC_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plan.h"

#define RP_SOURCE_CATCHUP_NS 10000ull /* the default lag allowance: 10 us */
/* A packet's tx_ns is its due time on the flow's schedule, but at most this
 * much before now_ns of the burst that holds it: a sender on time hands a
 * packet over soon after it is due and keeps its due time; only a burst
 * catching up on more than 12 us of schedule (36 frames of 4 KiB at 100G)
 * has its oldest stamps moved. */
#define RP_SOURCE_STAMP_NS 12000ull

struct rp_source;

struct rp_source_opts {
	uint64_t catchup_ns; /* 0: RP_SOURCE_CATCHUP_NS */
	uint64_t time0_ns;   /* plan time 0 in the caller's clock (added to every due time) */
};

/* Every flow (RDMA and PFC) whose sender is host_idx. NULL with err set
 * when a template cannot be built or memory runs out. opts may be NULL. */
struct rp_source *rp_source_create(const struct rp_plan *plan, unsigned host_idx, const struct rp_source_opts *opts,
				   char *err, size_t errlen);
/* The given flows only (e.g. a share of a host's flows for one lcore). */
struct rp_source *rp_source_create_flows(const struct rp_plan *plan, const uint32_t *flow_ids, size_t nflows,
					 const struct rp_source_opts *opts, char *err, size_t errlen);
void rp_source_destroy(struct rp_source *s);

/* The next hop (l3 4: ip4, 6: ip6) answered from a new MAC: the frames of
 * every flow that goes through it and whose MAC was resolved on the port
 * (ARP/ND, not the profile's) carry mac as destination from their next
 * packet on. Returns how many flows moved. Not thread-safe: call it from the
 * thread that calls rp_source_burst (lib/dp: the port's lcore, RX path). */
unsigned rp_source_set_next_hop_mac(struct rp_source *s, uint8_t l3, uint32_t ip4, const uint8_t ip6[16],
				    const uint8_t mac[6]);

/* A flow's turn in a burst when other flows are due too: up to this many of
 * its due packets go back to back before the next earliest-due flow's. */
#define RP_SOURCE_TURN 16

/* Fills up to n buffers (each at least rp_source_max_frame bytes) with the
 * packets due at or before now_ns, earliest first across flows in turns of
 * up to RP_SOURCE_TURN packets (a burst leaves back to back: the order inside
 * it is not the wire's timing; each packet keeps its own due time as its
 * stamp), a PFC frame never behind a later data packet, skipping
 * flows whose priority bit is set in paused_prio_mask (PFC/PAUSE frames are
 * never paused). lens[i] gets the frame length (no FCS), flow_ids[i] the
 * plan flow id (flow_ids may be NULL). Returns how many were filled. */
unsigned rp_source_burst(struct rp_source *s, uint64_t now_ns, uint8_t paused_prio_mask, uint8_t *const bufs[],
			 uint16_t lens[], uint32_t flow_ids[], unsigned n);

/* Buffers that keep their bytes between uses (lib/dp: mbufs of a pool only
 * the TX loop takes from; a sent mbuf returns to it with its bytes intact).
 * A shape is a frame length whose frames are all zeros from the end of their
 * head (headers and probe) to their ICRC: the frames of every RoCE packet
 * kind longer than RP_SOURCE_SHAPE_MIN bytes (the probe, then zeros). A
 * buffer that started all zeros and has only ever held frames of one shape
 * needs per packet only its head and its ICRC written: the head is written
 * whole (so an ECN mark a receiver set in place does not stay, and a new
 * next-hop MAC goes out at once), the zeros are not. Up to RP_SOURCE_SHAPES
 * per source; kinds past them, PFC frames and short frames are shape 0,
 * written whole into any buffer. A small frame gains too, though its head
 * is all of it: lib/dp's pool of one shape has mbufs sized to it, so a
 * burst of them spans few pages (64 B, every frame that carries a probe;
 * it was 256 until 2026-12-02, when 82 B frames from the port's pool of
 * 2 KiB mbufs went at 61 Mpps and from their own pool at 97). */
#define RP_SOURCE_SHAPES 8
#define RP_SOURCE_SHAPE_MIN 64
struct rp_source_shape {
	uint16_t len;  /* the frame length */
	uint16_t head; /* the bytes written per packet before the ICRC */
};
/* The source's shapes: out[i] is shape i + 1. Returns how many. */
unsigned rp_source_shapes(const struct rp_source *s, struct rp_source_shape out[RP_SOURCE_SHAPES]);
/* As rp_source_burst, for buffers of one shape (0: any buffer, frames
 * written whole): fills packets of that shape only, and stops before the
 * first due packet of another shape, whose shape it puts in *next_shape
 * (else shape): the buffers to ask for next. */
unsigned rp_source_burst_shaped(struct rp_source *s, uint64_t now_ns, uint8_t paused_prio_mask, unsigned shape,
				uint8_t *const bufs[], uint16_t lens[], uint32_t flow_ids[], unsigned n,
				unsigned *next_shape);

/* The earliest due time of an unfinished flow (UINT64_MAX when all are done);
 * the _unpaused form ignores flows paused by the mask. */
uint64_t rp_source_next_due(const struct rp_source *s);
uint64_t rp_source_next_due_unpaused(const struct rp_source *s, uint8_t paused_prio_mask);
bool rp_source_done(const struct rp_source *s);
size_t rp_source_max_frame(const struct rp_source *s);

struct rp_source_flow_stats {
	uint32_t flow_id;
	uint64_t tx_packets;
	uint64_t tx_bytes;     /* Ethernet bytes without FCS */
	uint64_t tx_payload;   /* RDMA message bytes */
	uint64_t tx_messages;  /* whole messages */
	uint64_t probes;       /* packets that carried a probe (= next probe seq) */
	uint64_t first_tx_ns;  /* now_ns of the bursts that held its first and last packet */
	uint64_t last_tx_ns;   /* (0 and 0 before the first) */
	uint64_t span_packets; /* the packets (and bytes) sent before the last burst: */
	uint64_t span_bytes;   /* what filled first_tx_ns .. last_tx_ns */
	bool done;
};
size_t rp_source_nflows(const struct rp_source *s);

/* One flow of a source on its own (the lab's host NIC picks the flow itself):
 * flow i's next due time (UINT64_MAX once done), whether it is done, and its
 * next packet into buf when it is due at now_ns and its priority is not in
 * paused_prio_mask (1), else 0. Every flow of a source shares its ICRC patch
 * tables, so one source per host costs far less than one per flow. Do not
 * mix with rp_source_burst on the same source. */
uint64_t rp_source_flow_next_due(const struct rp_source *s, size_t i);
bool rp_source_flow_done(const struct rp_source *s, size_t i);
unsigned rp_source_flow_burst(struct rp_source *s, size_t i, uint64_t now_ns, uint8_t paused_prio_mask, uint8_t *buf,
			      uint16_t *len);
/* The same into a buffer whose bytes [zero[0], zero[1]) are known to be zero
 * (the lab's frame pool keeps that per slot): a large frame's zero payload
 * tail is then not written again. On return zero[] says which bytes are zero
 * now ([tail, ICRC) of a large frame, else 0, 0). The bytes are exactly
 * rp_source_flow_burst's. */
unsigned rp_source_flow_burst_zeroed(struct rp_source *s, size_t i, uint64_t now_ns, uint8_t paused_prio_mask,
				     uint8_t *buf, uint16_t *len, uint16_t zero[2]);
void rp_source_flow_stats(const struct rp_source *s, size_t i, struct rp_source_flow_stats *out);

#endif
