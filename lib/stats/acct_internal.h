/* The accountant's insides, shared by its files (acct*.c) and no one else. */
#ifndef RP_STATS_ACCT_INTERNAL_H
#define RP_STATS_ACCT_INTERNAL_H

#include "acct.h"
#include "pause.h"
#include "seq.h"
#include "shist.h"
#include "wire/frame.h"

enum acct_dir { DIR_DATA, DIR_REV }; /* to the receiver's QP, or back to the sender's */

/* (src IP, dst IP, DestQP) of a frame -> flow and QP. IPv4 is v4-mapped. */
struct acct_key {
	uint8_t src[16];
	uint8_t dst[16];
	uint32_t qpn;
};

struct acct_slot {
	struct acct_key key;
	uint32_t flow;
	uint16_t qp;
	uint8_t dir;
	uint8_t used;
};

struct acct_map {
	struct acct_slot *slot;
	size_t cap; /* a power of two */
	size_t n;
};

struct acct_qp {
	uint32_t dqpn;
	uint32_t lqpn;
	bool lqpn_known;
	struct rp_rcv_qp rcv;
	struct rp_psn psn;
	uint64_t acks, naks, cnps, ce;
	uint64_t ack_first, ack_last, nak_first, nak_last, cnp_first, cnp_last;
};

struct acct_flow {
	struct rp_acct_flow_cfg cfg;
	struct rp_acct_flow_result r;
	struct rp_seq seq;
	bool probes;     /* a probe arrived */
	bool probe_id;   /* discover: cfg.id is a probe flow id */
	bool tx_known;
	bool check_mac;   /* dst_port_check compares the frame's MAC (cfg.dst_mac is not all zero) */
	uint64_t probeless_unique;
	struct rp_shist lat;        /* sparse: a flow holds the buckets it uses */
	struct rp_shist msg;        /* track_psn only */
	struct rp_shist nak_resend; /* track_psn only */
	struct acct_qp *qp;
	uint16_t nqp, cap_qp;
};

struct acct_port {
	struct rp_acct_port_cfg cfg;
	struct rp_pause pause;
	uint64_t credited[RP_PFC_PRIOS]; /* pause time already spread over bins up to here */
	uint64_t past_end[RP_PFC_PRIOS];  /* pause_to_expiry: paused time after end_ns */
	struct rp_acct_port_result r;
};

/* rp_acct_flow_latency & co. expand a flow's sparse histogram here: [0]
 * latency, [1] message times, [2] NAK -> resend, each valid until the next
 * call of its accessor; of[k] is what [k] holds, so the next expansion only
 * clears those buckets. */
struct acct_scratch {
	struct rp_hist h[3];
	const struct rp_shist *of[3];
};

struct rp_acct {
	struct rp_acct_cfg cfg;
	struct acct_flow *flows;
	size_t nflows, cap_flows;
	struct acct_port *ports;
	struct acct_map map;
	struct rp_ts *ts;
	struct rp_hist agg;
	struct acct_scratch *scratch;
	struct rp_frame f; /* parse scratch: one accountant per lcore */
	uint64_t end_ns;
	uint64_t unmatched;
	uint64_t flows_dropped;
	bool finished;
};

/* acct.c: the pause time of the interval open before now, into the bins. */
void rp_acct_credit_pause(struct rp_acct *a, struct acct_port *p, unsigned prio, uint64_t now);

/* acct_keys.c */
int rp_acct_map_init(struct acct_map *m, size_t entries);
void rp_acct_map_free(struct acct_map *m);
const struct acct_slot *rp_acct_map_find(const struct acct_map *m, const struct acct_key *k);
/* 0, or -1 when full (and it may not grow) or out of memory. */
int rp_acct_map_put(struct acct_map *m, const struct acct_key *k, uint32_t flow, uint16_t qp, uint8_t dir, bool grow);
void rp_acct_key_v4(struct acct_key *k, uint32_t src, uint32_t dst, uint32_t qpn);
void rp_acct_key_v6(struct acct_key *k, const uint8_t src[16], const uint8_t dst[16], uint32_t qpn);
/* The frame's key: its addresses and BTH DestQP. */
void rp_acct_key_frame(struct acct_key *k, const struct rp_frame *f);

/* acct_flow.c */
int rp_acct_flow_setup(struct rp_acct *a, struct acct_flow *fl, const struct rp_acct_flow_cfg *cfg);
void rp_acct_flow_free(struct acct_flow *fl);
int rp_acct_flow_add_qp(struct acct_flow *fl, uint32_t dqpn);

/* acct_discover.c: the flow and QP of a frame that no key matched. */
const struct acct_slot *rp_acct_discover_data(struct rp_acct *a, const struct rp_frame *f);
const struct acct_slot *rp_acct_discover_rev(struct rp_acct *a, const struct rp_frame *f);

#endif
