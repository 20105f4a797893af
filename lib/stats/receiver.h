/* The RoCE receiver's decisions, clock-free: when to send a CNP, an ACK or a
 * NAK for a data packet of one QP, and the reply frames themselves (built
 * with lib/wire). The caller passes now in ns and transmits the frames.
 *
 * - CNP (the notification point), per QP, interval N (mlx5's
 *   np_min_time_between_cnps), two modes:
 *   paper (RP_CNP_PAPER, the default): the DCQCN paper's NP (Zhu et al.,
 *     SIGCOMM 2015, 3.1): the first CE mark gets a CNP at once; then "at
 *     most one CNP packet every N microseconds for the flow, if any packet
 *     that arrives within that time window was marked". A mark inside the
 *     window earns one CNP at the window's end (at_ns = last CNP + N), which
 *     opens the next window; more marks before then ride on it. The decision
 *     is made when the mark arrives: the caller sends that CNP at at_ns (the
 *     lab from an event, `run` from its RX loop's clock check).
 *   first (RP_CNP_FIRST, roceprobe before issue 31): a mark inside the
 *     window is forgotten; a CNP only when t - last_cnp >= N.
 *   Either way N = 0 is a CNP for every CE packet. N's default is 4 us: a
 *   ConnectX-4 Lx mlxconfig dump shows CNP interval 4 us (per port);
 *   mstflint's register layout and mlx5's debugfs np_min_time_between_cnps
 *   (kernel patch "IB/mlx5: Add np_min_time_between_cnps and rp_max_rate
 *   debug params", 2020: microseconds, default 0) leave it 0. NVIDIA's
 *   documentation (DOCA "DCQCN CC Algorithm") says only that a CNP is
 *   generated when a marked packet arrives, nothing of marks inside the
 *   window: so the paper's NP is the default.
 * - ACK: for a packet with AckReq at the expected PSN, with the MSN (number
 *   of messages completed, LAST/ONLY packets at the expected PSN).
 * - NAK (PSN sequence error, carrying the expected PSN): once per gap.
 *   resync mode (roceprobe's own generator never resends): the NAK is sent
 *   and the QP continues from the packet that revealed the gap, so each gap
 *   gives exactly one NAK. strict mode (a real RC requester that goes back
 *   N): one NAK, then packets are dropped until the expected PSN arrives.
 * A duplicate (PSN behind) with AckReq is ACKed again, as the IBA says. */
#ifndef RP_STATS_RECEIVER_H
#define RP_STATS_RECEIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wire/eth.h"

#define RP_CNP_INTERVAL_NS 4000ull /* mlx5 np_min_time_between_cnps: a ConnectX-4 Lx shows 4 us */
#define RP_CNP_DSCP 48
#define RP_REPLY_MAX 3              /* a CE-marked AckReq packet: CNP + ACK, and its echo */
#define RP_AETH_CREDITS_INVALID 0x1F

/* ECHO: the data packet's probe back to its sender for a round trip (an RC
 * RDMA READ response ONLY: the responder-to-requester opcode that carries a
 * payload, so a fabric sees valid RoCE going the way ACKs go). */
enum rp_reply_kind { RP_REPLY_CNP, RP_REPLY_ACK, RP_REPLY_NAK, RP_REPLY_ECHO };

/* How the notification point treats a mark inside the CNP window (above). */
enum rp_cnp_mode { RP_CNP_PAPER, RP_CNP_FIRST };

struct rp_reply_msg {
	enum rp_reply_kind kind;
	uint32_t psn; /* ACK: the acknowledged PSN; NAK: the expected PSN; CNP: 0; ECHO: the data's */
	uint32_t msn;
	uint32_t flow_id; /* ECHO: the probe, as it arrived */
	uint64_t seq, tx_ns;
	uint64_t at_ns; /* CNP, paper mode: when to send it (> now: the window's end); else 0: now */
};

struct rp_rcv_qp {
	bool started;
	bool cnp_ever;
	bool nak_sent; /* strict mode: the current gap is NAKed */
	uint32_t epsn;
	uint32_t msn;
	uint64_t last_cnp_ns; /* paper mode: may be ahead of now (a CNP due at the window's end) */
	uint64_t cnps, acks, naks;
};

struct rp_rcv_pkt {
	uint8_t opcode;
	uint32_t psn;
	bool ack_req;
	bool ce;
};

/* psn_known: the first expected PSN is psn_start; otherwise the first packet sets it. */
void rp_rcv_qp_init(struct rp_rcv_qp *q, bool psn_known, uint32_t psn_start);
/* Returns how many replies went to out (0..RP_REPLY_MAX), CNP first (its
 * at_ns says when it is to go). */
unsigned rp_rcv_data(struct rp_rcv_qp *q, uint64_t cnp_interval_ns, enum rp_cnp_mode mode, bool strict,
		     uint64_t now_ns, const struct rp_rcv_pkt *pkt, struct rp_reply_msg out[RP_REPLY_MAX]);

/* Replies for one data packet, with everything needed to build them: they go
 * back to the data packet's sender (MACs and IPs swapped, same VLAN). */
struct rp_reply {
	unsigned n;
	struct rp_reply_msg msg[RP_REPLY_MAX];
	uint32_t flow;      /* accountant flow index */
	uint16_t qp;
	struct rp_eth eth;  /* dst = the data sender; vid/pcp as the data packet */
	uint8_t l3;         /* 4 or 6 */
	uint32_t ip4_src, ip4_dst;
	uint8_t ip6_src[16], ip6_dst[16];
	uint32_t dqpn;      /* the data sender's QP: the flow's lqpn + qp */
	uint16_t udp_sport;
	uint8_t dscp;       /* ACK/NAK: the data packet's DSCP */
	uint8_t ecn;        /* ACK/NAK: ECT(0) when the data was ECN-capable */
	uint8_t cnp_dscp;
	uint8_t cnp_pcp;    /* CNP VLAN priority, when tagged */
};

/* Builds reply i (CNP: opcode 0x81, BECN, 16 zero bytes; ACK: RC_ACKNOWLEDGE,
 * AETH 0x1F + MSN; NAK: AETH 0x60 + MSN, BTH PSN = the expected PSN; ECHO:
 * RC_RDMA_READ_RESPONSE_ONLY, PSN the data's, AETH 0x1F + MSN, the 24-byte
 * probe as payload, DSCP/ECN as an ACK's) into buf.
 * Returns the frame length (no FCS), 0 when cap is too small or i >= n. */
size_t rp_reply_build(const struct rp_reply *r, unsigned i, uint8_t *buf, size_t cap);

#endif
