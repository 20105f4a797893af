/* The generator's TX lcore loop: packet sources into DPDK ports, gated by the
 * PFC and PAUSE frames each port receives, as a NIC honours them. */
#ifndef RP_DP_GEN_H
#define RP_DP_GEN_H

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

struct rp_dp_rx;

struct rp_dp_txport {
	struct rp_dp_port *port;
	unsigned index; /* the host index: the accountant's port */
	uint16_t txq;
	unsigned lcore; /* which lcore drives it (0 = main) */
	struct rp_source *src; /* NULL: the port only receives */
	struct rp_pause pause;
	uint64_t tx_packets;
	uint64_t tx_bytes;
	uint64_t tx_full;  /* bursts the TX queue did not take whole */
	uint64_t tx_unsent; /* stamped but refused for RP_DP_DRAIN_NS, then freed */
	uint64_t stalled_since; /* 0: the queue takes packets */
	uint64_t rx_frames;
	uint64_t rx_pfc;
	uint64_t rx_pause;
	struct rp_neigh_self self;       /* the host's MAC and addresses: ARP/ND answers for them */
	struct rp_dp_neigh_stats neigh;
	struct rp_dp_neigh_refresh refresh; /* resolved next hops asked again during the run */
	struct rte_mbuf *pending[RP_DP_BURST];
	uint16_t pending_len[RP_DP_BURST];
	unsigned n_pending;
	/* Kept frames (rp_source_burst_shaped): the pool of each of its source's
	 * shapes, [0] the port's own (frames written whole); pools[0] NULL: no
	 * kept frames (a pool could not be made), everything written whole. */
	void *pools[RP_SOURCE_SHAPES + 1];
	unsigned shape; /* whose buffers the next burst takes */
};

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

struct rp_dp_gen {
	struct rp_dp_txport *ports;
	unsigned n_ports;
	unsigned n_lcores;
	uint64_t duration_ns; /* 0: until every source is done; else exactly this long */
	volatile sig_atomic_t *stop; /* set from a signal handler */
	/* Called on the main lcore about once a second. */
	void (*progress)(const struct rp_dp_gen *g, uint64_t now_ns, void *arg);
	void *progress_arg;
	struct rp_dp_rx *rx; /* a run: account, answer and capture what arrives (one lcore) */
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
};

/* Makes the pools that keep the frames of tp's source (rp_source_shapes:
 * one a shape, its data rooms zeroed, which takes milliseconds): call it once
 * the source is made and before the clock starts. Without it, or when a pool
 * cannot be made (false), every frame is written whole into the port's pool. */
bool rp_dp_gen_kept_pools(struct rp_dp_txport *tp);

/* Runs until done, duration or *stop; returns 0. Ports are driven by the
 * lcore named in each rp_dp_txport. */
int rp_dp_gen_run(struct rp_dp_gen *g);

#endif
