/* The receiving side of a run on DPDK ports: impairments put on purpose,
 * the accountant, the RoCE responder's replies, and the capture tap. */
#ifndef RP_DP_RX_H
#define RP_DP_RX_H

#include <stdbool.h>
#include <stdint.h>

#include "dp.h"
#include "fabric/impair.h"
#include "stats/later.h"

struct rp_acct;
struct rp_capture;
struct rte_mbuf;
struct rp_dp_txport;

#define RP_DP_HOLD 8192 /* frames a delay impairment may hold per port */

struct rp_dp_hold {
	struct rte_mbuf *m[RP_DP_HOLD];
	uint64_t due[RP_DP_HOLD];
	unsigned head;
	unsigned n;
};

struct rp_dp_rxport {
	struct rp_impair_state impair;
	/* Several RX lcores on one port: the link's one count of data frames
	 * (lcore 0's impair), advanced atomically, so "every 10th" is the
	 * link's 10th whichever queue the frame came in on; NULL: impair alone. */
	struct rp_impair_state *shared;
	struct rp_dp_hold *hold; /* only with a delay */
	uint64_t hold_full;      /* frames accounted undelayed: the hold was full */
	uint64_t replies_sent;
	uint64_t replies_unsent; /* the TX queue refused them */
	struct rp_later later;   /* paper-mode CNPs due at their window's end (stats/later.h) */
	/* On a port with RX stamps (dp.h rp_dp_rx_stamps): frames whose stamp was used, and not. */
	uint64_t stamped, unstamped;
	struct rp_capture *cap;  /* this port's TX and RX, as a tap on its wire; may be NULL */
};

/* One per RX lcore (run --lcores): its own accountant, holds and replies. */
struct rp_dp_rx {
	struct rp_acct *acct;
	const unsigned *acct_port; /* by host index: its port in acct (NULL: the host index) */
	struct rp_dp_rxport ports[RP_DP_MAX_PORTS]; /* by host index */
};

/* Takes ownership of the n received mbufs of port tp. */
void rp_dp_rx_frames(struct rp_dp_rx *rx, struct rp_dp_txport *tp, struct rte_mbuf **m, uint16_t n, uint64_t now_ns);
/* Accounts the delayed frames whose time has come and sends the CNPs held
 * for their window's end (the RX loop's own clock check: no timer thread);
 * called once a pass of the lcore, after the port's frames of the pass, it
 * also marks the lcore's lane of the port's capture (capture.h
 * rp_capture_mark). */
void rp_dp_rx_release(struct rp_dp_rx *rx, struct rp_dp_txport *tp, uint64_t now_ns);
/* True while frames or CNPs are held. */
bool rp_dp_rx_holding(const struct rp_dp_rx *rx, const struct rp_dp_txport *tp);
/* What the port sent: to its capture, and PFC frames to the accountant.
 * Received frames are captured as they arrive, after the impairments (which
 * stand for the wire). */
void rp_dp_rx_sent(struct rp_dp_rx *rx, const struct rp_dp_txport *tp, uint8_t *const bufs[], const uint16_t *lens,
		     unsigned n, uint64_t now_ns);

#endif
