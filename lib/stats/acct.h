/* THE ACCOUNTANT: "these bytes arrived at T ns on port P". Shared by lib/dp
 * (RX bursts), lib/lab (its host model) and `analyze` (a pcap), so every
 * place roceprobe runs counts the same way. Clock-free, no I/O, no printing.
 *
 * rp_acct_create allocates everything; rp_acct_rx neither allocates nor
 * makes a syscall for configured flows. (Discovery mode, for offline
 * analysis, allocates once per newly seen flow or QP.) One accountant per
 * RX lcore: it is not thread-safe; merge per-lcore results in the report.
 *
 * Frames are classified (probe data, ACK, NAK, CNP, PFC, PAUSE, other,
 * malformed) and accounted per flow, per port and per priority:
 * - data: rx packets/bytes; probe seq -> lost/reordered/duplicates (seq.h);
 *   CE; latency = now - probe.tx_ns into the flow's histogram (hist.h) when
 *   sender and receiver share a clock; the flow is found by the probe's
 *   flow_id validated against the BTH DestQP, else by (src IP, dst IP, DestQP);
 * - ACK / NAK / CNP: counted for the flow whose sender QP they address;
 * - PFC / PAUSE: per port through rp_pause (pause.h), and in the time series;
 * - as the RoCE receiver (flows with `reply`): CNP/ACK/NAK decisions
 *   (receiver.h) returned in reply_out for the caller to transmit;
 * - round trips (flows with echo_every): the receiver echoes a probe back
 *   (RP_REPLY_ECHO: an RC RDMA READ response ONLY to the sender's QP, AETH
 *   ACK, the probe as its payload: valid RoCE, ICRC and all); where it
 *   arrives, at the sender's port, it is no data (class echo): now - the
 *   probe's tx_ns goes into the flow's RTT histogram, on the sender's own
 *   clock, so no clock offset enters it.
 * Time series bins are in timeseries.h. */
#ifndef RP_STATS_ACCT_H
#define RP_STATS_ACCT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hist.h"
#include "shist.h"
#include "psn.h"
#include "receiver.h"
#include "timeseries.h"
#include "wire/fastpath.h"

#define RP_ACCT_NAME_MAX 32
#define RP_ACCT_MAX_DISCOVERED 4096u /* discovery: each flow costs ~180 KiB of histograms */

struct rp_acct_flow_cfg {
	uint32_t id;                     /* reported id; the probe's flow_id */
	char src[RP_ACCT_NAME_MAX];      /* host names */
	char dst[RP_ACCT_NAME_MAX];
	uint8_t l3;                      /* 4 or 6 */
	uint32_t src_ip4, dst_ip4;       /* host order */
	uint8_t src_ip6[16], dst_ip6[16];
	uint32_t lqpn;                   /* QP q is lqpn + q at the sender ... */
	uint32_t rqpn;                   /* ... and rqpn + q at the receiver (BTH DestQP of data) */
	uint16_t qps;                    /* 0 counts as 1 */
	uint8_t prio;
	uint8_t dscp;
	uint32_t psn_start;              /* the first PSN of every QP */
	uint8_t reply;                   /* act as the RoCE receiver: RP_ACCT_REPLY_* bits (0: no) */
	uint8_t cnp_dscp;                /* 0: the accountant's cnp_dscp */
	uint64_t cnp_interval_ns;        /* with cnp_interval_set, as is (0: a CNP for every CE
					  * packet); else the accountant's cnp_interval_ns */
	bool cnp_interval_set;           /* a profile's responder.cnp_interval */
	uint8_t cnp_mode;                /* enum rp_cnp_mode (receiver.h): 0 is the paper's */
	uint32_t echo_every;             /* the receiver echoes every Nth probe (seq % N == 0) back
					  * to the sender for a round trip; 0: none (RP_REPLY_ECHO) */
	unsigned dst_port;               /* with cfg.dst_port_check: the receiver's port ... */
	uint8_t dst_mac[6];              /* ... and MAC (all zero: not checked) */
	bool bin_hist;                   /* with cfg.bin_hist: its latencies also go into the time
					  * series' per-bin histograms (a workload's, not its aggressor's) */
};

/* What a receiving flow answers with (a profile's host responder). */
#define RP_ACCT_REPLY_CNP 1u
#define RP_ACCT_REPLY_ACK 2u
#define RP_ACCT_REPLY_NAK 4u
#define RP_ACCT_REPLY_ALL 7u

struct rp_acct_port_cfg {
	char node[RP_ACCT_NAME_MAX];
	unsigned port;
	uint64_t speed_bps;              /* for pause quanta -> ns */
};

struct rp_acct_cfg {
	const struct rp_acct_flow_cfg *flows;
	size_t nflows;
	const struct rp_acct_port_cfg *ports;
	size_t nports;                   /* rp_acct_rx's port indexes this array */
	uint64_t start_ns;               /* run start: time series bin 0, first_pause_ns origin */
	uint64_t run_ns;                 /* sizes the time series (rp_ts_bins_for) */
	uint64_t bin_ns;                 /* 0: 100 us */
	bool flow_series;                /* also per-flow rx packets/bytes per bin */
	bool bin_hist;                   /* a latency histogram per bin of the bin_hist flows */
	uint64_t cnp_interval_ns;        /* 0: RP_CNP_INTERVAL_NS */
	uint8_t cnp_dscp;                /* 0: RP_CNP_DSCP (48) */
	bool cnp_dscp_set;               /* use cnp_dscp even when 0 */
	uint16_t reply_sport;            /* UDP source port of replies; 0: the data packet's */
	bool reply_strict;               /* receiver.h strict mode (peer resends); else resync */
	bool latency;                    /* sender and receiver share a clock */
	bool discover;                   /* offline: flows come from the traffic (cfg flows ignored) */
	size_t max_flows;                /* discover: 0 means RP_ACCT_MAX_DISCOVERED */
	bool track_psn;                  /* per-QP PSN tracking (psn.h), message times */
	bool seq_from_first;             /* sequences start at the first probe seen, or at 0 when
					  * that is below RP_SEQ_WINDOW (the run's start) */
	bool pause_to_expiry;            /* offline: a pause still running at end_ns (the capture
					  * ended, the pause did not) counts to its expiry, quanta x
					  * 512 bit times at the port's speed; the time series still
					  * ends at end_ns */
	bool dst_port_check;             /* a data frame counts as received only at its flow's
					  * dst_port with its dst_mac; anywhere else it is
					  * misdelivered (classified RP_RX_OTHER), never received */
	bool general_only;               /* every frame through rp_frame_parse, no fast path: the
					  * reference the fast path is tested and measured against */
	bool results_only;               /* a merge target (rank 0): the accountant holds only a
					  * result (acct_result.h: per flow its row and latency and
					  * round-trip histograms, no sequence window, QPs or keys:
					  * ~0.95 KB a flow with 32 latency samples, not ~2.6 KB;
					  * the ports' time series only its non-zero cells), which
					  * report/acct_merge.h fills; it takes no frames */
	/* Called every RP_ACCT_POLL_EVERY flows set up (seconds for a million):
	 * non-zero stops rp_acct_create (NULL, err "stopped"): the caller's
	 * signal. NULL: never. */
	int (*poll)(void *arg);
	void *poll_arg;
};
#define RP_ACCT_POLL_EVERY 4096

enum rp_rx_class {
	RP_RX_DATA,
	RP_RX_ACK,
	RP_RX_NAK,
	RP_RX_CNP,
	RP_RX_PFC,
	RP_RX_PAUSE,
	RP_RX_OTHER,     /* not RoCE, or RoCE of no known flow */
	RP_RX_MALFORMED,
	RP_RX_ECHO,      /* a probe echoed back to its sender (RP_REPLY_ECHO): a round trip */
	RP_RX_ICRC_BAD,  /* RoCE (or a CNP) arrived whole with a wrong ICRC: a NIC drops it, so
			  * it is accounted as nothing its headers say (a data frame is no
			  * arrival of its flow: its flow's icrc_bad, and a gap) */
	RP_RX_CLASSES,
};
const char *rp_rx_class_name(enum rp_rx_class c);

struct rp_acct;

/* NULL when out of memory or cfg is invalid, with a reason in err. cfg->flows
 * is read here only (the accountant keeps its own copy of each flow's cfg):
 * the caller may free it once this returns. */
struct rp_acct *rp_acct_create(const struct rp_acct_cfg *cfg, char *err, size_t errlen);
void rp_acct_destroy(struct rp_acct *a);

/* The per-packet call. reply_out->n says how many replies to build
 * (rp_reply_build) and send from this port. With reply_out NULL the
 * receiver makes no decisions at all (a capture tap, not a responder). */
enum rp_rx_class rp_acct_rx(struct rp_acct *a, unsigned port, uint64_t now_ns, const uint8_t *buf, size_t caplen,
			    size_t wire_len, struct rp_reply *reply_out);
/* A whole message of a verbs flow (engine: verbs), delivered by the NIC's own
 * transport: flow (by index) and port (the receiver's) as in rp_acct_rx; its
 * probe (flow id, seq, tx_ns on the run's common clock) counted exactly as a
 * data frame's is (sequence -> loss/reordering/duplicates, latency now -
 * tx_ns), bytes as its message bytes. rx_packets then counts messages. -1
 * (and counted unmatched) when the probe names another flow. */
struct rp_probe;
int rp_acct_message(struct rp_acct *a, size_t flow, unsigned port, uint64_t now_ns, const struct rp_probe *probe,
		    size_t bytes);
/* A burst in two passes: the fast path's stateless half (the fixed-offset
 * classification of wire/fastpath.h and the full ICRC check) for every frame
 * first, so one frame's loads and CRC overlap the next's, then
 * rp_acct_rx_pre for each in order. rp_acct_rx is exactly rp_acct_pre then
 * rp_acct_rx_pre: the same counters either way. */
struct rp_acct_pre {
	bool taken;    /* a frame the fast path may account (its layout, a probe, all captured) */
	bool icrc_ok;  /* with taken */
	struct rp_fp_pkt fp;
};
void rp_acct_pre(const uint8_t *buf, size_t caplen, size_t wire_len, struct rp_acct_pre *pre);
/* rp_acct_rx for a frame whose ICRC is known good without reading it all: the
 * lab's, built by the packet source (rp_source) with a valid ICRC and changed
 * on its way at most in bytes the ICRC masks (the CE mark). The same
 * counters, without the fast path's full ICRC check (the general path, for
 * frames the fast path does not take, still checks). */
enum rp_rx_class rp_acct_rx_trusted(struct rp_acct *a, unsigned port, uint64_t now_ns, const uint8_t *buf,
				    size_t len, struct rp_reply *reply_out);
enum rp_rx_class rp_acct_rx_pre(struct rp_acct *a, unsigned port, uint64_t now_ns, const uint8_t *buf, size_t caplen,
				size_t wire_len, const struct rp_acct_pre *pre, struct rp_reply *reply_out);
/* rp_acct_pre of n frames at once (the same pre[i] as frame by frame): all
 * classified first, then the ICRCs of those taken in pairs, side by side
 * (rp_icrc_verify_n). */
void rp_acct_pre_n(const uint8_t *const buf[], const uint16_t caplen[], const uint32_t wire_len[], unsigned n,
		   struct rp_acct_pre pre[]);
/* A burst's leading frames the fast path accounts, in order, arriving at
 * now_ns on port: the count of them (0 .. n), each counted exactly as
 * rp_acct_rx_pre counts it. The first frame it leaves (n - count > 0) goes
 * to rp_acct_rx_pre, then the rest back here. replies: the caller sends
 * replies (rp_acct_rx_pre with reply_out), so responder flows' frames are
 * left to the general path. */
unsigned rp_acct_rx_fast_n(struct rp_acct *a, unsigned port, uint64_t now_ns, const uint8_t *const buf[],
			   const uint16_t caplen[], const struct rp_acct_pre pre[], unsigned n, bool replies);
/* PFC / PAUSE frames this port sent (pfc_tx). */
void rp_acct_pfc_tx(struct rp_acct *a, unsigned port, const uint8_t *buf, size_t len);
/* Frames a switch model dropped on this port's priority (the lab knows). */
void rp_acct_add_drops(struct rp_acct *a, unsigned port, unsigned prio, uint64_t n);
/* The sender's totals of a flow (by index), before rp_acct_finish. */
void rp_acct_set_tx(struct rp_acct *a, size_t flow, uint64_t packets, uint64_t bytes);
/* Of the sender's packets of a flow (in the units of its rp_acct_set_tx
 * count), those still in the fabric when the run stopped (the lab knows:
 * switch buffers and wires): in_flight, never lost. Before rp_acct_finish. */
void rp_acct_set_in_flight(struct rp_acct *a, size_t flow, uint64_t packets);
uint64_t rp_acct_flow_in_flight(const struct rp_acct *a, size_t flow);
/* Closes the run: pauses settle at end_ns; with the sender's packet counts
 * (indexed like the flows; may be NULL) lost = sent - received exactly. */
void rp_acct_finish(struct rp_acct *a, uint64_t end_ns, const uint64_t *tx_packets_per_flow);

/* One flow, with exactly the result.json field names. */
struct rp_acct_flow_result {
	uint32_t id;
	char src[RP_ACCT_NAME_MAX];
	char dst[RP_ACCT_NAME_MAX];
	uint32_t qpn;            /* the BTH DestQP of QP 0 (the receiver's) */
	uint8_t dscp;
	uint8_t prio;
	uint64_t tx_packets, tx_bytes;
	uint64_t rx_packets, rx_bytes;
	uint64_t lost, reordered, duplicates;
	uint64_t ce;
	uint64_t cnp_tx, cnp_rx;
	uint64_t acks, naks;
	uint64_t misdelivered;   /* data frames of the flow that arrived at another port (dst_port_check) */
	uint64_t icrc_bad;       /* data frames of the flow that arrived (at its destination) whole
				  * with a wrong ICRC: not received (a NIC drops them), so a gap in
				  * its PSNs and probe sequence: lost, unless sent again */
	double goodput_gbps;     /* unique payload bits / (end - start), or the rx span */
	uint64_t active_ns;      /* first to last data frame received (0 with fewer than two) */
	double goodput_active_gbps; /* unique payload bits over the active span (see acct_result.c) */
	struct rp_hist_summary latency_ns;
	/* beyond result.json's list (analyze prints them) */
	uint16_t qps;
	uint64_t rx_payload_bytes;
	uint64_t first_rx_ns, last_rx_ns;
	uint64_t retransmissions, go_back_n, messages; /* track_psn: psn.h says what counts */
	uint64_t stale;          /* seq arrivals older than the window */
	uint64_t head_lost;      /* of lost, the seqs before the first probe seen (a capture taken to
				  * begin with the run: the first seq under the seq window) */
	uint64_t clock_skew;     /* probes stamped after they arrived: no latency */
	uint64_t echo_tx;        /* probes the receiver echoed (echo_every) */
	uint64_t echo_rx;        /* echoes back at the sender: rtt_ns.count of them */
	struct rp_hist_summary rtt_ns; /* sender's tx -> its echo back, on the sender's clock */
};

/* One QP of a flow (for analyze): PSN state and the reverse traffic's timing. */
struct rp_acct_qp_result {
	uint32_t dqpn;           /* data DestQP (receiver's QP) */
	bool lqpn_known;
	uint32_t lqpn;           /* the sender's QP, which ACK/NAK/CNP address */
	struct rp_psn psn;       /* all zero without track_psn */
	uint64_t acks, naks, cnps;
	uint64_t ack_first_ns, ack_last_ns, nak_first_ns, nak_last_ns, cnp_first_ns, cnp_last_ns;
	uint64_t ce;
};

struct rp_acct_prio_result {
	unsigned prio;
	uint64_t pfc_rx, pfc_tx;
	uint64_t quanta;
	uint64_t paused_ns;
	uint64_t paused_past_end_ns; /* pause_to_expiry: the part of paused_ns after end_ns */
	uint64_t xoff_to_xon;
	bool paused_ever;
	uint64_t first_pause_ns; /* since start_ns; valid with paused_ever */
	uint64_t drops;
	uint64_t ecn_marked;
};

struct rp_acct_port_result {
	char node[RP_ACCT_NAME_MAX];
	unsigned port;
	uint64_t speed_bps;
	uint64_t rx_frames, rx_bytes;
	uint64_t class_frames[RP_RX_CLASSES];
	uint64_t pfc_frames, pause_frames;
	uint64_t misdelivered, misdelivered_bytes; /* data frames whose destination is another port */
	uint64_t icrc_bad;       /* RoCE frames whose ICRC was checked (all captured) and wrong:
				  * class RP_RX_ICRC_BAD, accounted as nothing else */
	struct rp_acct_prio_result prio[8];
};

size_t rp_acct_nflows(const struct rp_acct *a);
void rp_acct_flow(const struct rp_acct *a, size_t i, struct rp_acct_flow_result *out);
/* Flow i's probe sequence gaps not (yet) filled, while the run goes on: a
 * live view of loss (exact only after rp_acct_finish, from the sender's
 * count: rp_acct_flow's lost). 0 for a merge target. */
uint64_t rp_acct_flow_gaps(const struct rp_acct *a, size_t i);
/* Flow i's latency histogram, valid until the next call (the accountant keeps
 * flows' histograms sparse and expands the one asked for). */
const struct rp_hist *rp_acct_flow_latency(const struct rp_acct *a, size_t i);
/* Flow i's latency histogram as the accountant keeps it (valid until the
 * accountant is destroyed). */
const struct rp_shist *rp_acct_flow_latency_sparse(const struct rp_acct *a, size_t i);
/* Flow i's round-trip histogram (echoes), valid until the next call. */
const struct rp_hist *rp_acct_flow_rtt(const struct rp_acct *a, size_t i);
/* dst += flow i's latency histogram, without expanding it. */
void rp_acct_flow_latency_merge(const struct rp_acct *a, size_t i, struct rp_hist *dst);
/* track_psn only (NULL otherwise): FIRST -> LAST times, NAK -> resend times;
 * each valid until the next call of the same function. */
const struct rp_hist *rp_acct_flow_msg_times(const struct rp_acct *a, size_t i);
const struct rp_hist *rp_acct_flow_nak_resend(const struct rp_acct *a, size_t i);
size_t rp_acct_flow_nqps(const struct rp_acct *a, size_t i);
void rp_acct_qp(const struct rp_acct *a, size_t flow, size_t qp, struct rp_acct_qp_result *out);
size_t rp_acct_nports(const struct rp_acct *a);
void rp_acct_port(const struct rp_acct *a, size_t i, struct rp_acct_port_result *out);
/* Every flow's latency merged (valid after rp_acct_finish). */
const struct rp_hist *rp_acct_latency(const struct rp_acct *a);
const struct rp_ts *rp_acct_timeseries(const struct rp_acct *a);
uint64_t rp_acct_start_ns(const struct rp_acct *a);
uint64_t rp_acct_end_ns(const struct rp_acct *a);
/* RoCE frames that matched no flow (classified RP_RX_OTHER), of them the
 * data frames (no flow for their QP: discovery full, or their probe's flow
 * id another host pair's), and the frames whose flow discovery could not add
 * (max_flows reached). */
uint64_t rp_acct_unmatched(const struct rp_acct *a);
uint64_t rp_acct_unmatched_data(const struct rp_acct *a);
uint64_t rp_acct_flows_dropped(const struct rp_acct *a);
/* Frames the fast path accounted (acct_fast.c; the rest took rp_frame_parse). */
uint64_t rp_acct_fast_frames(const struct rp_acct *a);

#endif
