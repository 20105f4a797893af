/* PFC headroom: the bytes a lossless priority group must still absorb after
 * it decides to send XOFF, because the peer keeps sending until the pause
 * reaches it and takes effect.
 *
 * The delay model is the one of IEEE 802.1Qbb's PFC delay annex as vendors'
 * headroom calculators apply it (Cisco's Nexus "Priority Flow Control" white
 * paper: MTU[R] + wire both ways + transceiver + response + MTU[S]; SONiC's
 * buffer_headroom_mellanox.lua: mtu + 2 x cable + mac_phy_delay +
 * peer_response_time + mtu). Every term is a time the peer's data keeps
 * arriving, turned into bytes at the link rate:
 *
 *   headroom = MTU[switch]   frame in flight on the switch's transmitter; the
 *                            PFC frame cannot preempt it
 *            + PFC frame     64 B PFC frame (+20 B preamble, SFD, IFG)
 *            + 2 x cable     propagation both ways (data already on the wire
 *                            + data sent while the PFC travels), ~5 ns/m
 *            + 2 x MAC/PHY   interface delay, one way, both ways
 *            + response      the peer's reaction time, in quanta of 512 bit times
 *            + MTU[peer]     frame the peer had started when it reacted; it
 *                            completes
 *            + MTU[peer]     store-and-forward only: the frame being received
 *                            when the threshold is crossed. Such a switch
 *                            counts a frame, and decides XOFF, at its last
 *                            bit, so the frame that crosses may already lie
 *                            wholly above the threshold. The classic formula
 *                            thinks in bits and leaves this out (vendors
 *                            cover it with pipeline and cell margins); the
 *                            emulated switch is store-and-forward, and its
 *                            worst case is exactly this sum.
 *
 * An MTU term is the largest L2 frame (header to FCS) plus 20 bytes of
 * preamble, SFD and inter-frame gap, as D-Max-Frame-Len counts it. Rate
 * conversions round each term up to a whole byte, so the total is an upper
 * bound. Pure arithmetic: no clocks, no I/O. */
#ifndef RP_FABRIC_HEADROOM_H
#define RP_FABRIC_HEADROOM_H

#include <stdbool.h>
#include <stdint.h>

#define RP_HEADROOM_NS_PER_M 5.0   /* light in fibre or twinax, rounded up */
#define RP_HEADROOM_L1_EXTRA 20u   /* preamble 7 + SFD 1 + IFG 12 */
#define RP_HEADROOM_PFC_FRAME 64u  /* minimum frame with FCS */
#define RP_HEADROOM_QUANTUM_BITS 512u

struct rp_headroom_in {
	uint64_t speed_bps;
	double cable_m;           /* one way */
	double ns_per_m;          /* 0: RP_HEADROOM_NS_PER_M */
	uint32_t mtu;             /* switch side, largest L2 frame incl. FCS */
	uint32_t peer_mtu;        /* peer side; 0: same as mtu */
	uint32_t response_quanta; /* peer reaction time, 512 bit times each */
	double phy_delay_ns;      /* MAC + PHY delay, one way */
	bool cut_through;         /* leave out the store-and-forward frame */
};

/* Each term in bytes and the time it stands for. */
struct rp_headroom {
	uint64_t cable_bytes;    /* 2 x cable_m x ns_per_m at speed */
	uint64_t phy_bytes;      /* 2 x phy_delay_ns at speed */
	uint64_t mtu_bytes;      /* mtu + 20 */
	uint64_t pfc_bytes;      /* 64 + 20 */
	uint64_t response_bytes; /* response_quanta x 64 */
	uint64_t peer_mtu_bytes; /* peer_mtu + 20 */
	uint64_t rx_frame_bytes; /* peer_mtu + 20, or 0 with cut_through */
	uint64_t total_bytes;
	double cable_ns;         /* round trip */
	double phy_ns;           /* round trip */
	double response_ns;
};

/* Returns 0, or -1 when speed is 0, a length or delay is negative or not a
 * number, or mtu is 0. */
int rp_headroom_calc(const struct rp_headroom_in *in, struct rp_headroom *out);

/* IEEE 802.3 upper bounds vendor calculators quote, for speeds without the
 * user's own numbers. Pause reaction (802.3 31B.3.7, as SONiC's tables carry
 * it), in quanta: 100M 1, 1G 2, 10G 60, 25G 80, 40G 118, 50G 147, 100G 394,
 * 200G 453, 400G 905. Interface delay, in bit times: 10G 8192, 25G 6144,
 * 40G 24576, 100G 122880. A speed between two entries takes the faster
 * entry's value; where the interface table has no entry the nearest faster
 * (or, past 100G, 100G's) bit-time count is used. */
uint32_t rp_headroom_default_response_quanta(uint64_t speed_bps);
double rp_headroom_default_phy_delay_ns(uint64_t speed_bps);

#endif
