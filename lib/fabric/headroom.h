/* PFC headroom: the bytes a lossless priority group must still absorb after
 * it decides to send XOFF, because the peer keeps sending until the pause
 * reaches it and takes effect.
 *
 * The delay model is the one of IEEE 802.1Qbb Annex O ("PFC delay model") as
 * vendors' headroom calculators (Cisco's Nexus PFC white paper, NVIDIA/Mellanox
 * buffer calculators) apply it. Every term is a time the peer's data keeps
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
 *
 * An MTU term is the largest L2 frame (header to FCS) plus 20 bytes of
 * preamble, SFD and inter-frame gap, as D-Max-Frame-Len counts it. Rate
 * conversions round each term up to a whole byte, so the total is an upper
 * bound. Pure arithmetic: no clocks, no I/O. */
#ifndef RP_FABRIC_HEADROOM_H
#define RP_FABRIC_HEADROOM_H

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
};

/* Each term in bytes and the time it stands for. */
struct rp_headroom {
	uint64_t cable_bytes;    /* 2 x cable_m x ns_per_m at speed */
	uint64_t phy_bytes;      /* 2 x phy_delay_ns at speed */
	uint64_t mtu_bytes;      /* mtu + 20 */
	uint64_t pfc_bytes;      /* 64 + 20 */
	uint64_t response_bytes; /* response_quanta x 64 */
	uint64_t peer_mtu_bytes; /* peer_mtu + 20 */
	uint64_t total_bytes;
	double cable_ns;         /* round trip */
	double phy_ns;           /* round trip */
	double response_ns;
};

/* Returns 0, or -1 when speed is 0, a length or delay is negative or not a
 * number, or mtu is 0. */
int rp_headroom_calc(const struct rp_headroom_in *in, struct rp_headroom *out);

/* IEEE 802.3 upper bounds vendor calculators quote (pause reaction per
 * Annex 31B, interface delay per PHY clause), for speeds without the user's own
 * numbers: 10G 60 quanta / 8192 bit times, 25G 80 / 6144, 40G 118 / 24576,
 * 100G 394 / 122880, 400G 905 quanta. A speed between two table entries takes
 * the faster entry's value (the larger bound); above 100G the interface delay
 * keeps 100G's bit-time count. */
uint32_t rp_headroom_default_response_quanta(uint64_t speed_bps);
double rp_headroom_default_phy_delay_ns(uint64_t speed_bps);

#endif
