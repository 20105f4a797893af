/* The generator's TX lcore loop: packet sources into DPDK ports, gated by the
 * PFC and PAUSE frames each port receives, as a NIC honours them. */
#ifndef RP_DP_GEN_H
#define RP_DP_GEN_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dp.h"
#include "neigh.h"
#include "stats/pause.h"
#include "traffic/source.h"

struct rp_source;
struct rte_mbuf;

#define RP_DP_BURST 32
/* A TX burst: the source fills up to this many mbufs per call. 64, not 32:
 * what a burst pays once (the clock read, the pool get, the source's and
 * the PMD's calls) was 7% of an 82 B packet's time; gen measured 1.07x at
 * 1024 B, 82 B within the noise (4 alternating pairs each). RX stays at
 * RP_DP_BURST: 64 frames of 1 KiB are twice the L1 cache, and rx.sh lost 9%
 * at 1026 B with them. */
#define RP_DP_TX_BURST 64
#define RP_DP_MAX_LCORES 64
#define RP_DP_NO_LCORE UINT_MAX

struct rp_dp_rx;

/* One TX queue and one RX queue of a port, driven by one lcore. A port
 * with several queues (run --lcores N) has one per lcore: queue 0's is the
 * port's own (its counters, next hops, pause gate), queue q's (home set)
 * sends its share of the host's flows and polls RX queue q. */
struct rp_dp_txport {
	struct rp_dp_port *port;
	unsigned index; /* the host index: the accountant's port */
	uint16_t txq;
	uint16_t rxq;
	unsigned lcore; /* which lcore drives it (0 = main, or the first worker with main_idle);
			 * RP_DP_NO_LCORE: a queue its port does not have (nothing drives it) */
	/* Queue q > 0: the port's queue-0 entry. Its pause gate is this one's
	 * too (PFC and PAUSE frames carry no UDP: RSS leaves them on queue 0),
	 * and a next hop's new MAC heard there (hops_gen bumped after) moves
	 * this source's flows too, from this lcore (hops_seen). */
	struct rp_dp_txport *home;
	uint32_t hops_gen;
	uint32_t hops_seen;
	struct rp_source *src; /* NULL: the port only receives */
	struct rp_pause pause;
	uint64_t tx_packets;
	uint64_t tx_bytes;
	uint64_t tx_full;  /* bursts the TX queue did not take whole */
	uint64_t tx_unsent; /* stamped but refused for RP_DP_DRAIN_NS, then freed */
	/* tx_unsent's frames by the source's flow index (k of rp_source_flow_stats), for
	 * the frames whose probe names the flow (PFC frames and probe-less ones are only in
	 * tx_unsent); NULL: not kept. Written when pending frames are given up. */
	uint64_t *flow_unsent;
	/* ICMP fragmentation needed and ICMPv6 Packet Too Big frames received
	 * (wire/icmp.h): a router on the path said a packet was over its next
	 * link's MTU; too_big_mtu the smallest next-hop MTU they carried. */
	uint64_t rx_too_big;
	uint32_t too_big_mtu;
	uint64_t stalled_since; /* 0: the queue takes packets */
	bool sched_done;        /* its first data burst tagged (a scheduled start, dp.h) */
	uint64_t rx_frames;
	uint64_t rx_pfc;
	uint64_t rx_pause;
	struct rp_neigh_self self;       /* the host's MAC and addresses: ARP/ND answers for them */
	struct rp_dp_neigh_stats neigh;
	struct rp_dp_neigh_refresh refresh; /* resolved next hops asked again during the run */
	struct rte_mbuf *pending[RP_DP_TX_BURST];
	uint16_t pending_len[RP_DP_TX_BURST];
	unsigned n_pending;
	/* Kept frames (rp_source_burst_shaped): the pool of each of its source's
	 * shapes, [0] the port's own (frames written whole); pools[0] NULL: no
	 * kept frames (a pool could not be made), everything written whole. */
	void *pools[RP_SOURCE_SHAPES + 1];
	/* Where each pool's frames start in their data room (rte_mbuf data_off):
	 * placed so that what is written per packet touches the fewest cache
	 * lines (rp_dp_kept_offset); [0] also without kept pools. A sent mbuf
	 * goes back to its pool by the PMD's free (refcnt 1, the lcore's mempool
	 * cache, no locked instruction) and is taken again with its bytes. Not
	 * held with refcnt 2 as before 2026-12-02: the PMD's free then does a
	 * locked decrement, which waits for the burst's stores to drain; on an
	 * AVX-512 EPYC that was 47% of gen's time at 1026 B (53.5 -> 81.5 Mpps
	 * without, 5 pairs). Never enable RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE: a
	 * queue sends mbufs of several pools. */
	uint16_t data_off[RP_SOURCE_SHAPES + 1];
	unsigned shape; /* whose buffers the next burst takes */
	/* Cache lines of its own: queue k's lcore writes shape, pending and
	 * its counters every burst, and queue k + 1's reads its port and
	 * source there; sharing the line cost run --lcores 2 a sixth of its
	 * packets (121 -> 146 Mpps, docs/lab-notes.md). */
} __attribute__((aligned(64)));

/* Sends one frame that build writes into buf (cap bytes; returns its length,
 * 0: nothing to send) on tp's TX queue, offered to cap when given. False when
 * the pool, the builder or the queue refused it (the caller counts it). Call
 * it from the lcore that drives tp. */
typedef size_t (*rp_dp_ctl_build_fn)(const void *arg, uint8_t *buf, size_t cap);
struct rp_capture;
bool rp_dp_ctl_send(struct rp_dp_txport *tp, rp_dp_ctl_build_fn build, const void *arg, struct rp_capture *cap,
		    uint64_t now_ns);

/* How long a port may refuse every packet before the refused ones are given
 * up (a full ring nobody reads, a port paused for good). */
#define RP_DP_DRAIN_NS 200000000ull

/* What one lcore did, written by it alone (its own cache line). */
struct rp_dp_lcore_stats {
	unsigned lcore_id;  /* the EAL's */
	int socket;
	uint64_t passes;    /* loops over its queues */
	uint64_t busy;      /* of those, the ones that received or sent a packet */
} __attribute__((aligned(64)));

struct rp_dp_gen {
	struct rp_dp_txport *ports;
	unsigned n_ports;
	unsigned n_lcores;
	/* The main thread only sleeps and calls progress; n_lcores worker lcores
	 * poll (run --lcores N). Else the main lcore is lcore 0's poller. */
	bool main_idle;
	/* More pollers than CPUs (run --lcores 4 on 2 cores): a poller whose pass
	 * found nothing yields its CPU, so a busy one is not kept waiting for a
	 * time slice (rp_dp_gen_run sets it). */
	bool yield_idle;
	const char *who; /* command name for the NUMA line */
	struct rp_dp_lcore_stats lcore[RP_DP_MAX_LCORES]; /* [n_lcores], filled during the run */
	uint64_t duration_ns; /* 0: until every source is done; else exactly this long */
	volatile sig_atomic_t *stop; /* set from a signal handler */
	/* Called on the main lcore about once a second. */
	void (*progress)(const struct rp_dp_gen *g, uint64_t now_ns, void *arg);
	void *progress_arg;
	struct rp_dp_rx *rx; /* a run: [n_lcores]: lcore k accounts, answers and captures what its queues get in rx[k] */
	uint64_t linger_ns;  /* after the sources are done, keep receiving this long; after a stop
			      * (Ctrl-C, duration) a run drains at most this long (gen.c drain) */
	uint64_t end_ns; /* when the run stopped */
	/* A run across ranks: a receiver must keep its ports open until the other
	 * ranks' senders are done. The loop sets *tx_done when its own sources
	 * are done, or when it stops sending (a stop, the duration), and starts
	 * its linger, or after a stop its drain's quiet time, only once
	 * *others_done is set (by the caller, who learns it from the other
	 * ranks). NULL: alone. */
	volatile bool *tx_done;
	volatile bool *others_done;
	/* 0: poll without rest (the default: a poller owns its core). Else a pass
	 * over the lcore's ports that moved no frame sleeps this long, so a
	 * poller that shares its CPU (a DPDK rank beside a verbs rank and its
	 * soft NIC in a 1-vCPU VM) leaves it to them; frames then wait up to
	 * that long, and a paced flow falls behind by as much. */
	uint64_t idle_ns;
};

/* Makes the pools that keep the frames of tp's source (rp_source_shapes:
 * one a shape, its data rooms zeroed, which takes milliseconds): call it once
 * the source is made and before the clock starts. Without it, or when a pool
 * cannot be made (false, why says which in one line), every frame is written
 * whole into the port's pool: right, but slower. */
bool rp_dp_gen_kept_pools(struct rp_dp_txport *tp, char *why, size_t whylen);

/* Runs until done, duration or *stop; returns 0. Ports are driven by the
 * lcore named in each rp_dp_txport. Every lcore lingers (and drains) until
 * all have sent everything, so no queue is left unpolled while another
 * lcore still sends to it. One line on stderr when an lcore polls a port of
 * another NUMA socket. */
int rp_dp_gen_run(struct rp_dp_gen *g);

#endif
