/* The emulated switch: a clock-free model of one shared-buffer switch with
 * per-priority queues, PFC, ECN (RED) and a strict-priority + DWRR scheduler.
 *
 * The caller owns time and the wires. The virtual-time lab (lib/lab) and a
 * real-time DPDK switch both drive it the same way:
 *
 *   frame arrives (last bit) on port P at T -> rp_switch_ingress(sw, T, P, ...)
 *     rx.kick says which transmitters have something new to send
 *   a transmitter is free at T -> rp_switch_next_tx(sw, T, port, ...)
 *     returns the frame (data or a PFC frame the switch generates) with the
 *     time its last bit leaves (end_ns) and reaches the peer (arrive_ns)
 *   nothing to send now -> rp_switch_next_event_ns(sw, port, T) says when to
 *     ask again (pause expiry, PFC refresh due, transmitter free)
 *
 * now_ns must not go backwards between calls. No clocks, no I/O, no printing;
 * allocation after create only when the buffer holds more frames than it ever
 * did (its frame memory doubles, up to what buffer_bytes can hold) and at a
 * queue's first frame (its depth series), so a fabric of many mostly idle
 * switches stays small and steady traffic never allocates.
 *
 * Model choices (the "why" of each lives next to its code):
 * - priority == traffic class == egress queue == priority group: PFC priority
 *   p pauses queue p, and ingress PG p sends PFC for priority p.
 * - Buffer: buffer_bytes in all; each lossless PG of each port reserves its
 *   headroom out of it; the rest is the shared pool. Lossless traffic is
 *   admitted on ingress (PG threshold, then headroom, never an egress limit);
 *   lossy traffic on egress (queue limit: tail drop).
 * - Release on dequeue; a PG gives back headroom bytes before shared ones.
 * - ECN is decided at dequeue, against the queue depth left behind.
 * - Frames are copied into a cell pool (64-byte cells) sized for the buffer,
 *   or, for a caller that keeps frames in memory of its own (the lab's pool),
 *   held by reference: rp_switch_use_refs.
 * - Frame lengths are without FCS; a frame occupies len + 24 bytes of wire
 *   time (FCS 4, preamble + SFD 8, IFG 12). */
#ifndef RP_FABRIC_SWITCH_H
#define RP_FABRIC_SWITCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wire/pfc.h"

#define RP_SWITCH_MAX_PORTS 256 /* as 25.6 Tbit/s ASICs split: 64 x 400G, 128 x 200G, 256 x 100G */
#define RP_SWITCH_KICKS 4       /* ports one call can kick: ingress and egress, PFC and XON */
#define RP_SWITCH_TCS RP_PFC_PRIOS
#define RP_SWITCH_NEVER UINT64_MAX
#define RP_SWITCH_L1_OVERHEAD 24 /* FCS + preamble/SFD + IFG */
#define RP_SWITCH_MIN_FRAME 60   /* shorter frames are runts */

struct rp_switch_port_cfg {
	uint64_t rate_bps;
	uint64_t prop_ns;                   /* cable delay to the peer, one way */
	uint8_t mac[6];                     /* source MAC of the PFC frames it sends */
	uint64_t headroom[RP_SWITCH_TCS];   /* bytes reserved per lossless PG */
};

/* A threshold in bytes, static or dynamic (alpha x free shared buffer, the
 * Choudhury-Hahne dynamic threshold most shared-buffer switches use). */
struct rp_thresh {
	bool dynamic;
	uint64_t bytes; /* static */
	double alpha;   /* dynamic */
};

/* A frame goes to the shared pool while the PG, with it, stays within the
 * XOFF threshold; the frame that does not fit goes to headroom and XOFF is
 * decided at once (at its last bit: the switch is store-and-forward, which
 * is why rp_headroom_calc counts the frame being received). Keep xon_delta
 * at least one max frame: headroom is given back first, and only then is it
 * surely empty when XON lets the peer send again. */
struct rp_switch_pg_cfg {
	struct rp_thresh xoff; /* lossless: XOFF when the PG holds this much */
	uint64_t xon_delta;    /* XON when it holds <= xoff threshold - xon_delta */
};

struct rp_switch_queue_cfg {
	struct rp_thresh limit; /* lossy: tail drop above this queue depth */
	bool red;               /* ECN-mark ECT packets per RED */
	uint64_t kmin, kmax;    /* bytes */
	double pmax;            /* probability at kmax; 1 above kmax */
	uint32_t weight;        /* DWRR weight (>= 1) unless strict */
};

struct rp_switch_cfg {
	unsigned nports;
	struct rp_switch_port_cfg port[RP_SWITCH_MAX_PORTS];
	uint64_t buffer_bytes;
	uint8_t lossless_mask; /* PFC-enabled priorities; PFC received for others is ignored */
	uint8_t strict_mask;   /* queues served by strict priority (7 highest) before DWRR */
	struct rp_switch_pg_cfg pg[RP_SWITCH_TCS];
	struct rp_switch_queue_cfg queue[RP_SWITCH_TCS];
	bool trust_pcp;        /* tagged frames by PCP; otherwise (and untagged) by DSCP */
	uint8_t dscp_to_tc[64];
	uint8_t default_tc;    /* frames that are neither tagged (when trusted) nor IP */
	uint16_t pfc_quanta;   /* in each XOFF */
	uint32_t pfc_refresh_pct; /* refresh XOFF when this share of its pause has run */
	uint32_t dwrr_quantum; /* bytes per weight unit per round */
	uint32_t max_frame;    /* largest frame accepted, without FCS */
	uint64_t seed;         /* RED random numbers (xorshift64*) */
	uint32_t fdb_size;     /* static MAC table entries */
	/* PFC watchdog (watchdog.c), SONiC pfcwd's with action forward: a
	 * lossless queue held paused with frames waiting for wd_detect_ns is in
	 * a storm and stops honouring PFC, until no PFC has named it for
	 * wd_restore_ns. wd_detect_ns 0: no watchdog. */
	uint64_t wd_detect_ns, wd_restore_ns;
	uint64_t qdepth_bin_ns; /* queue-depth time series: bin width ... */
	uint32_t qdepth_bins;   /* ... and count; 0 bins: no series */
};

/* Sensible defaults for nports ports at rate_bps: 16 MiB buffer, priority 3
 * lossless (static XOFF 128 KiB, XON 18 KiB below it, headroom from
 * rp_headroom_calc for 10 m of cable and max_frame on both ends), RED on
 * queue 3 (5 KB, 200 KB, 1%: the DCQCN paper's), queues 6-7 strict (CNPs),
 * lossy queues dynamic alpha 1, DSCP d -> TC d >> 3, 9216-byte frames,
 * quanta 0xFFFF refreshed at half time. The model's own starting point (its
 * unit tests); roceprobe's commands build switches from a `fabric:`
 * description instead (profile/switch_cfg.h), which starts here. */
void rp_switch_cfg_default(struct rp_switch_cfg *cfg, unsigned nports, uint64_t rate_bps);
/* 0, or -1 with a one-line reason in err. Besides each field's range: a
 * static XOFF of a lossless priority below the shared pool (buffer_bytes
 * less every port's reserved headroom: a PG past the pool spills into its
 * headroom before it ever reaches XOFF), and pfc_quanta of at least
 * rp_switch_min_quanta. */
int rp_switch_cfg_check(const struct rp_switch_cfg *cfg, char *err, size_t errlen);
/* The fewest quanta that hold a sender between refreshes. A refresh falls
 * due once refresh_pct of the pause has run, may wait behind a frame of
 * max_frame the port is sending (the headroom formula's MTU[switch]) and
 * then takes a PFC frame's time on the wire, so what is left of the pause,
 * (100 - refresh_pct)% of quanta x 512 bit times, must cover a PFC frame
 * (60 + 24 B) and a max_frame frame (max_frame + 24 B). Bit times on both
 * sides: the same at every port speed. refresh_pct 1..99. */
uint32_t rp_switch_min_quanta(uint32_t max_frame, uint32_t refresh_pct);

struct rp_switch;
/* NULL when the config does not pass rp_switch_cfg_check or memory is short. */
struct rp_switch *rp_switch_create(const struct rp_switch_cfg *cfg);
void rp_switch_destroy(struct rp_switch *sw);
/* Static forwarding table entry; 0, or -1 when port is out of range or the
 * table is full. Adding a MAC again moves it. */
int rp_switch_fdb_add(struct rp_switch *sw, const uint8_t mac[6], unsigned port);
/* The port a MAC forwards to, or -1. */
int rp_switch_fdb_lookup(const struct rp_switch *sw, const uint8_t mac[6]);
/* The settings it was created with. */
const struct rp_switch_cfg *rp_switch_config(const struct rp_switch *sw);

enum rp_switch_verdict {
	RP_SW_QUEUED,   /* stored; will leave through rp_switch_next_tx */
	RP_SW_DROPPED,  /* see drop */
	RP_SW_CONSUMED, /* a MAC control frame (PFC, PAUSE): acted on, not forwarded */
};

enum rp_switch_drop {
	RP_DROP_NONE,
	RP_DROP_MALFORMED, /* runt, oversize, or no Ethernet header */
	RP_DROP_NO_ROUTE,  /* destination MAC not in the table */
	RP_DROP_TAIL,      /* lossy: queue above its limit */
	RP_DROP_BUFFER,    /* lossy: shared buffer full */
	RP_DROP_HEADROOM,  /* lossless: PG threshold and headroom both full */
	RP_DROP_NOMEM,     /* cell pool exhausted (not expected: it is sized for the worst case) */
	RP_DROP_REASONS,
};
const char *rp_switch_drop_name(enum rp_switch_drop d); /* "tail", "headroom", ... */

struct rp_switch_rx {
	enum rp_switch_verdict verdict;
	enum rp_switch_drop drop;
	unsigned out_port; /* data frames that got that far */
	unsigned tc;
	bool headroom;     /* queued into the PG's headroom */
	uint8_t xoff;      /* priorities this frame sent into XOFF on the ingress port */
	uint8_t pfc_prios; /* consumed PFC/PAUSE: priorities it named and the port honours */
	uint16_t kick_port[RP_SWITCH_KICKS]; /* every port to ask (any port number) ... */
	uint8_t nkick;
	uint64_t kick;     /* ... and as a mask for ports 0..63: bit p: ask port p's transmitter now (new frame queued,
			      PFC frame due, or a pause changed) */
};

/* One frame (without FCS) received on in_port whose last bit arrived at now_ns.
 * out_port >= 0 forwards there; -1 looks up the destination MAC. PFC/PAUSE
 * pause this port's egress queues. A PFC frame the switch must send in answer
 * (XOFF) is not returned here: it leaves through rp_switch_next_tx on the
 * ingress port, ahead of data, when that transmitter is free (as a MAC does),
 * and rx.kick/rx.xoff say it is due. Returns 0, or -1 for a bad in_port. */
int rp_switch_ingress(struct rp_switch *sw, uint64_t now_ns, unsigned in_port, const uint8_t *frame, size_t len,
		      int out_port, struct rp_switch_rx *rx);
/* Frames by reference, for a caller whose frames already sit in memory that
 * does not move (the lab's frame pool): the switch keeps the caller's ref of
 * a queued frame instead of a copy of its bytes, asks frame_of(ctx, ref) for
 * them when it must read or rewrite them (classify at ingress, the CE mark at
 * dequeue), and gives the ref back from rp_switch_next_tx (tx.ref). Set once,
 * before the first frame; its cell memory is given back. The buffer
 * accounting, every counter and every decision are the same as with copies. */
#define RP_SWITCH_NOREF UINT32_MAX
typedef uint8_t *(*rp_switch_frame_fn)(void *ctx, uint32_t ref);
void rp_switch_use_refs(struct rp_switch *sw, rp_switch_frame_fn frame_of, void *ctx);
/* rp_switch_ingress of the caller's frame ref (len bytes): with rx.verdict
 * RP_SW_QUEUED the switch holds it until rp_switch_next_tx hands it back;
 * with any other verdict it is the caller's again at once. */
int rp_switch_ingress_ref(struct rp_switch *sw, uint64_t now_ns, unsigned in_port, uint32_t ref, size_t len,
			  int out_port, struct rp_switch_rx *rx);

enum rp_switch_tx_kind { RP_TX_NONE, RP_TX_DATA, RP_TX_PFC };

struct rp_switch_tx {
	enum rp_switch_tx_kind kind;
	size_t len;
	unsigned tc;         /* data: its queue */
	unsigned in_port;    /* data: where it came in */
	bool ce;             /* data: marked CE here */
	uint8_t pfc_xoff;    /* PFC: priorities it pauses */
	uint8_t pfc_xon;     /* PFC: priorities it resumes */
	uint64_t enq_ns;     /* data: when it was queued */
	uint64_t start_ns;   /* first bit leaves */
	uint64_t end_ns;     /* last bit leaves; the transmitter is free again */
	uint64_t arrive_ns;  /* last bit reaches the peer (end + prop delay) */
	uint16_t kick_port[RP_SWITCH_KICKS]; /* every port where a PFC frame (XON) is now due ... */
	uint8_t nkick;
	uint64_t kick;       /* ... and as a mask for ports 0..63 (bit p: port p) */
	uint32_t ref;        /* by reference (rp_switch_use_refs): a data frame's ref, its bytes not copied
				to buf; RP_SWITCH_NOREF for a PFC frame (in buf) and with copies */
};

/* When port's transmitter is free at now_ns, the next frame: a due PFC frame
 * first, then strict priority, then DWRR among the rest, skipping queues that
 * received PFC pauses. The frame is copied to buf (cap must be >= max_frame,
 * or by reference >= a PFC frame);
 * by reference a data frame is tx.ref instead and only PFC frames use buf.
 * Returns 1 with a frame, 0 when there is nothing to send now (or the
 * transmitter is still busy), -1 for a bad port or too small a cap. */
int rp_switch_next_tx(struct rp_switch *sw, unsigned port, uint64_t now_ns, uint8_t *buf, size_t cap,
		      struct rp_switch_tx *tx);

/* The earliest time >= now_ns at which rp_switch_next_tx(port) may return a
 * frame: now when one is ready, the transmitter's free time, a pause's end, a
 * PFC refresh's due time; RP_SWITCH_NEVER when nothing waits. An incoming
 * frame can make it earlier: rx.kick says so. */
uint64_t rp_switch_next_event_ns(const struct rp_switch *sw, unsigned port, uint64_t now_ns);

/* ---- counters ---- */

struct rp_switch_queue_stats {
	uint64_t enq_pkts, enq_bytes;
	uint64_t tx_pkts, tx_bytes;
	uint64_t drop_pkts[RP_DROP_REASONS], drop_bytes[RP_DROP_REASONS];
	uint64_t ecn_marked;
	uint64_t depth_bytes, depth_pkts, max_depth_bytes;
	uint64_t pfc_rx;    /* received PFC frames naming this priority (XOFF or XON) */
	uint64_t paused_ns; /* time received PFC held this queue paused, up to now */
	uint64_t wd_storms;   /* times the watchdog found it in a pause storm */
	uint64_t wd_first_ns; /* when it first did; RP_SWITCH_NEVER: never */
	uint64_t wd_restored; /* times it honoured PFC again after a storm */
};

/* Ingress priority group (port, priority). */
struct rp_switch_pg_stats {
	uint64_t rx_pkts, rx_bytes;            /* data classified to it */
	uint64_t bytes, shared_bytes, headroom_bytes; /* held now */
	uint64_t max_bytes, max_headroom_bytes;
	uint64_t drop_pkts, drop_bytes;        /* every reason, once classified */
	uint64_t xoff_sent, xon_sent, refresh_sent; /* PFC frames naming it */
	uint64_t first_xoff_ns;                /* first XOFF decision; RP_SWITCH_NEVER */
	uint64_t xoff_ns;                      /* time in XOFF state, up to now */
	bool xoff;
};

struct rp_switch_port_stats {
	uint64_t rx_pkts, rx_bytes;   /* everything received */
	uint64_t tx_pkts, tx_bytes;   /* data sent */
	uint64_t drop_pkts[RP_DROP_REASONS];
	uint64_t ecn_marked;
	uint64_t pfc_tx;              /* PFC frames sent */
	uint64_t pfc_rx, pause_rx, macctl_other_rx;
	uint64_t busy_ns;             /* transmitter busy, data and PFC */
};

struct rp_switch_buffer_stats {
	uint64_t size, shared_size, headroom_size;
	uint64_t shared_used, headroom_used, max_shared_used, max_headroom_used;
	uint64_t pkts;
};

void rp_switch_queue_stats(const struct rp_switch *sw, unsigned port, unsigned tc, uint64_t now_ns,
			   struct rp_switch_queue_stats *out);
void rp_switch_pg_stats(const struct rp_switch *sw, unsigned port, unsigned pg, uint64_t now_ns,
			struct rp_switch_pg_stats *out);
void rp_switch_port_stats(const struct rp_switch *sw, unsigned port, struct rp_switch_port_stats *out);
void rp_switch_buffer_stats(const struct rp_switch *sw, struct rp_switch_buffer_stats *out);

/* Queue-depth time series of (port, tc): bin i holds the largest depth in
 * bytes the queue had during [i * bin_ns, (i + 1) * bin_ns). Brings the bins
 * up to now_ns (a depth held since the last change fills them) and returns
 * how many bins that covers; *bins points into the switch, valid until the
 * next call that changes it. 0 when the series is off. */
size_t rp_switch_qdepth_series(struct rp_switch *sw, unsigned port, unsigned tc, uint64_t now_ns,
			       const uint64_t **bins);
/* The same series cut after its last non-zero bin: what result.json's
 * qdepth_bytes and the lab's qdepth.csv hold. 0 when the queue held nothing. */
size_t rp_switch_qdepth_series_cut(struct rp_switch *sw, unsigned port, unsigned tc, uint64_t now_ns,
				   const uint64_t **bins);

#endif
