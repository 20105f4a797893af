/* The accountant's insides, shared by its files (acct*.c) and no one else. */
#ifndef RP_STATS_ACCT_INTERNAL_H
#define RP_STATS_ACCT_INTERNAL_H

#include <string.h>

#include "acct.h"
#include "acct_result.h"
#include "pause.h"
#include "seq.h"
#include "shist.h"
#include "wire/frame.h"

enum acct_dir { DIR_DATA, DIR_REV }; /* to the receiver's QP, or back to the sender's */

/* (src IP, dst IP, DestQP, direction) of a frame -> flow and QP. IPv4 is
 * v4-mapped. The direction is part of the key: on an RC connection used
 * both ways, B's data to A's QP and B's ACKs of A's data carry the same
 * addresses and DestQP (the data looked up as ACKs, or the ACKs found a
 * data flow and went unmatched). */
struct acct_key {
	uint8_t src[16];
	uint8_t dst[16];
	uint32_t qpn;
	uint32_t dir; /* enum acct_dir */
};

struct acct_slot {
	struct acct_key key;
	uint32_t flow;
	uint16_t qp;
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
	bool reads;      /* an RDMA READ request went out on it: read responses come back */
	struct rp_rcv_qp rcv;
	struct rp_psn psn;
	uint64_t acks, naks, cnps, ce;
	uint64_t ack_first, ack_last, nak_first, nak_last, cnp_first, cnp_last;
};

/* A flow's message times and NAK -> resend times (track_psn): most flows
 * of a run have none (one-packet messages, no NAK), so they are apart. */
struct acct_psn_hists {
	struct rp_shist msg;
	struct rp_shist nak_resend;
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
	uint64_t in_flight; /* rp_acct_set_in_flight: sent, still in the fabric, not lost */
	struct rp_shist lat;        /* sparse: a flow holds the buckets it uses */
	struct acct_psn_hists *ph;  /* track_psn: made at its first sample (rp_acct_flow_ph) */
	struct rp_shist rtt;        /* echoes back at the sender: its tx -> the echo */
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
 * latency, [1] message times, [2] NAK -> resend, [3] RTT, each valid until the next
 * call of its accessor; of[k] is what [k] holds, so the next expansion only
 * clears those buckets. */
struct acct_scratch {
	struct rp_hist h[4];
	const struct rp_shist *of[4];
};

struct rp_acct {
	struct rp_acct_cfg cfg;
	struct acct_flow *flows; /* NULL in a results_only accountant: its result has the rows */
	size_t nflows, cap_flows;
	uint32_t *flow_of_id; /* a probe's flow id -> index in flows (RP_ACCT_NO_FLOW: none); built once */
	size_t nids;          /* its length: the largest configured id + 1 (0: no table) */
	struct acct_port *ports;
	struct acct_map map;
	struct rp_ts *ts;     /* res.ts: the result owns it */
	/* rp_acct_finish fills it (results_only: the merge). Here, where the
	 * aggregate histogram was: the fields the per-packet path reads keep
	 * 90ddd54's order and, from f on, the offsets measured before the
	 * result was a view. (acct_bench's general path moved between 116 and
	 * 126 ns a frame (82 B) with such offsets and with code placement: with
	 * -falign-functions=64 90ddd54 takes 127.6 and this tree 122.2.) */
	struct rp_acct_result res;
	struct rp_frame f; /* parse scratch: one accountant per lcore */
	bool fast;          /* data frames try the fast path (acct_fast.c) first */
	uint64_t fast_frames;
	uint64_t end_ns;
	uint64_t unmatched;
	uint64_t unmatched_data; /* of those, data frames (the rest: ACK/NAK/CNP, echoes) */
	uint64_t flows_dropped;
	bool finished;
	struct acct_scratch *scratch;
};

#define RP_ACCT_NO_FLOW UINT32_MAX

/* acct_flow.c: fl->ph, made (empty) when it has none yet; NULL out of
 * memory (the sample is then lost). */
struct acct_psn_hists *rp_acct_flow_ph(struct acct_flow *fl);

/* Flow i's row, latency and round-trip histograms and id: a live
 * accountant's flows keep them (its result views them in place), a
 * results_only one's result owns them. */
static inline struct rp_acct_flow_result *rp_acct_res(const struct rp_acct *a, size_t i)
{
	return a->cfg.results_only ? rp_acct_result_flow(&a->res, i) : &a->flows[i].r;
}
static inline struct rp_shist *rp_acct_lat(const struct rp_acct *a, size_t i)
{
	return a->cfg.results_only ? rp_acct_result_lat(&a->res, i) : &a->flows[i].lat;
}
static inline struct rp_shist *rp_acct_rtt(const struct rp_acct *a, size_t i)
{
	return a->cfg.results_only ? rp_acct_result_rtt(&a->res, i) : &a->flows[i].rtt;
}
static inline uint32_t rp_acct_id(const struct rp_acct *a, size_t i)
{
	return a->cfg.results_only ? rp_acct_result_id(&a->res, i) : a->flows[i].cfg.id;
}
/* The scalars (end, unmatched, ...) are the result's once it is closed. */
static inline bool rp_acct_closed(const struct rp_acct *a) { return a->finished || a->cfg.results_only; }

/* acct_result.c: the series of an accountant of cfg (bin_ns set) with nflows
 * flows; sparse: the ports' cells only where not zero (a merge target's). */
struct rp_ts *rp_acct_series_create(const struct rp_acct_cfg *cfg, size_t nflows, bool sparse);

/* acct.c: flows' ids -> index table (*tab NULL, *nids 0 when the ids are too
 * sparse for one: look-ups then find nothing by id). 0, or -1 out of memory. */
int rp_acct_ids_build(uint32_t **tab, size_t *nids, const struct rp_acct_flow_cfg *flows, size_t n);

/* The configured flow whose cfg.id is a probe's flow id, or RP_ACCT_NO_FLOW.
 * A plan numbers every source (PFC ones too), the accountant only its RDMA
 * flows: ids and indexes differ as soon as a PFC source comes first. */
static inline uint32_t rp_acct_flow_of_id(const struct rp_acct *a, uint32_t id)
{
	return id < a->nids ? a->flow_of_id[id] : RP_ACCT_NO_FLOW;
}

/* acct.c: the pause time of the interval open before now, into the bins. */
void rp_acct_credit_pause(struct rp_acct *a, struct acct_port *p, unsigned prio, uint64_t now);

/* What the accounting of a data frame reads: filled from the general parse
 * (struct rp_frame) or by the fast path (wire/fastpath.h), then accounted by
 * the one rp_acct_data. */
struct acct_pkt {
	uint8_t opcode;
	uint32_t psn;
	bool ce;
	uint8_t prio;              /* the frame's priority (PCP, or DSCP >> 3): discovery only */
	bool has_probe;
	struct rp_probe probe;
	size_t payload_len;
	const uint8_t *dst_mac;
};
/* With dst_port_check, a data frame is the flow's only at the port of its
 * destination host and with that host's MAC: a frame that reached any other
 * port (a loopback, a misrouting fabric) was not received by anyone. */
static inline bool rp_acct_at_destination(const struct rp_acct *a, const struct acct_port *p,
					  const struct acct_flow *fl, const uint8_t *eth_dst)
{
	if (!p || (size_t)(p - a->ports) != fl->cfg.dst_port)
		return false;
	return !fl->check_mac || !memcmp(fl->cfg.dst_mac, eth_dst, 6);
}

/* acct.c: a responder flow's replies to the data frame in the general parse (a->f). */
void rp_acct_respond(struct rp_acct *a, uint32_t fi, uint16_t qi, uint64_t now, bool ce, struct rp_reply *r);

/* The per-frame accounting, inline: both paths (acct.c, acct_fast.c) call
 * rp_acct_data, and a burst of the fast path runs it without a call. */

#define RP_ACCT_LAT_BATCH RP_HIST_BATCH

/* The fast path's latency samples of one flow at one time (a run of its
 * frames in a burst), recorded together by rp_acct_lat_flush in arrival
 * order: the same histogram and series bits as one record per frame
 * (rp_shist_record_batch, rp_ts_latency_batch). */
struct acct_lat_batch {
	struct acct_flow *fl;
	uint64_t now;
	unsigned n;
	uint64_t v[RP_ACCT_LAT_BATCH];
};

/* n latency samples of flow fl at one time, in order: its histogram, the
 * time series and (bin_hist) the bin's histogram. */
static inline void rp_acct_lat_record_n(struct rp_acct *a, struct acct_flow *fl, uint64_t now, const uint64_t *v,
					unsigned n)
{
	struct rp_hist_batch b; /* the arithmetic once for both */
	rp_hist_batch_of(&b, v, n);
	rp_shist_record_batch(&fl->lat, &b);
	rp_ts_latency_batch(a->ts, now, &b);
	for (unsigned i = 0; fl->cfg.bin_hist && i < n; i++)
		rp_ts_latency_hist(a->ts, now, v[i]);
}

static inline void rp_acct_lat_flush(struct rp_acct *a, struct acct_lat_batch *lb)
{
	if (!lb->n)
		return;
	rp_acct_lat_record_n(a, lb->fl, lb->now, lb->v, lb->n);
	lb->n = 0;
}

/* lb: NULL records the sample now; else it joins the batch (which is first
 * flushed if it holds another flow's or another time's: the samples keep
 * their order). */
static inline void rp_acct_record_latency(struct rp_acct *a, struct acct_flow *fl, uint64_t now, uint64_t tx,
					  struct acct_lat_batch *lb)
{
	if (now < tx) {
		fl->r.clock_skew++;
		return;
	}
	if (lb) {
		if (lb->n && (lb->fl != fl || lb->now != now || lb->n == RP_ACCT_LAT_BATCH))
			rp_acct_lat_flush(a, lb);
		lb->fl = fl;
		lb->now = now;
		lb->v[lb->n++] = now - tx;
		return;
	}
	uint64_t v = now - tx;
	rp_acct_lat_record_n(a, fl, now, &v, 1);
}

/* PSN tracking (analyze): for probe-less packets the PSN is what tells a
 * duplicate from a new one. Returns true for a duplicate (PSN seen before). */
static inline bool rp_acct_track_psn(struct acct_flow *fl, struct acct_qp *q, uint64_t now, const struct acct_pkt *k)
{
	struct rp_psn_event ev;
	rp_psn_data(&q->psn, now, k->psn, k->opcode, &ev);
	struct acct_psn_hists *ph;
	if (ev.msg_done && ev.multi_packet && (ph = rp_acct_flow_ph(fl)))
		rp_shist_record(&ph->msg, ev.msg_ns);
	if (ev.nak_resend && (ph = rp_acct_flow_ph(fl)))
		rp_shist_record(&ph->nak_resend, ev.nak_resend_ns);
	return ev.verdict == RP_PSN_DUPLICATE;
}

/* What n arrivals of a flow's data at one time count: a frame (rp_acct_data),
 * a whole verbs message (rp_acct_message), or a run of one flow's frames in
 * a burst (acct_fast.c). */
static inline void rp_acct_count_arrivals(struct acct_flow *fl, uint64_t now, uint64_t n, uint64_t bytes)
{
	/* The earliest and the latest: a capture merged from several interfaces
	 * (pcapng) need not be in time order. */
	if (fl->r.rx_packets == 0 || now < fl->r.first_rx_ns)
		fl->r.first_rx_ns = now;
	if (now > fl->r.last_rx_ns)
		fl->r.last_rx_ns = now;
	fl->r.rx_packets += n;
	fl->r.rx_bytes += bytes;
}

/* A probe's sequence and latency (lb: rp_acct_record_latency's); true for a duplicate. */
static inline bool rp_acct_probe(struct rp_acct *a, struct acct_flow *fl, const struct rp_probe *pr, uint64_t now,
				 struct acct_lat_batch *lb)
{
	fl->probes = true;
	if (!fl->seq.started && pr->seq < RP_SEQ_WINDOW) {
		rp_seq_init(&fl->seq, 0); /* the capture holds the run's start: loss before it counts */
		fl->seq.low = pr->seq;    /* this first arrival, in order or not */
	}
	bool dup = rp_seq_rx(&fl->seq, pr->seq) == RP_SEQ_DUPLICATE;
	if (!dup && a->cfg.latency)
		rp_acct_record_latency(a, fl, now, pr->tx_ns, lb);
	return dup;
}

/* rp_acct_data but the arrival's count, its payload, the time series and the
 * replies: what the frame's sequence, PSN, latency and CE mark count (lb:
 * rp_acct_record_latency's). True for a duplicate. Always inline: gcc left
 * it a call in the fast path's loop. */
static inline __attribute__((always_inline)) bool
rp_acct_data_marks(struct rp_acct *a, struct acct_port *p, struct acct_flow *fl, struct acct_qp *q, uint64_t now,
		   const struct acct_pkt *k, struct acct_lat_batch *lb)
{
	bool dup = false;
	bool seen = a->cfg.track_psn && rp_acct_track_psn(fl, q, now, k);
	if (k->has_probe) {
		dup = rp_acct_probe(a, fl, &k->probe, now, lb);
	} else {
		dup = seen;
		fl->probeless_unique += !dup;
	}
	if (k->ce) {
		fl->r.ce++;
		q->ce++;
		if (p)
			p->r.prio[a->cfg.discover ? k->prio : fl->cfg.prio & 7].ecn_marked++;
	}
	return dup;
}

/* rp_acct_data but the time series and the replies: what the flow, its QP
 * and the port's priority count. True for a duplicate. */
static inline bool rp_acct_data_flow(struct rp_acct *a, struct acct_port *p, struct acct_flow *fl, struct acct_qp *q,
				     uint64_t now, size_t wire_len, const struct acct_pkt *k)
{
	rp_acct_count_arrivals(fl, now, 1, wire_len);
	bool dup = rp_acct_data_marks(a, p, fl, q, now, k, NULL);
	if (!dup)
		fl->r.rx_payload_bytes += k->payload_len;
	return dup;
}

/* Flow fl echoes this probe back to its sender (rtt:): every echo_every-th.
 * The fast path leaves these to the general parse, which addresses the echo. */
static inline bool rp_acct_echoes(const struct acct_flow *fl, uint32_t seq)
{
	return fl->cfg.echo_every && seq % fl->cfg.echo_every == 0;
}

/* acct.c: the probe back to its sender (RP_REPLY_ECHO), after the flow's own replies. */
void rp_acct_echo(struct rp_acct *a, uint32_t fi, uint16_t qi, const struct acct_pkt *k, struct rp_reply *r);

/* A data frame of flow fi, QP qi, from either path. Its replies are decided
 * from the general parse (a->f): the fast path leaves responder flows to it. */
static inline void rp_acct_data(struct rp_acct *a, struct acct_port *p, uint32_t fi, uint16_t qi, uint64_t now,
				size_t wire_len, const struct acct_pkt *k, struct rp_reply *reply)
{
	struct acct_flow *fl = &a->flows[fi];
	bool dup = rp_acct_data_flow(a, p, fl, &fl->qp[qi], now, wire_len, k);
	rp_ts_rx(a->ts, now, fi, wire_len, k->ce);
	if (fl->cfg.reply && reply)
		rp_acct_respond(a, fi, qi, now, k->ce, reply);
	if (reply && k->has_probe && !dup && rp_acct_echoes(fl, k->probe.seq))
		rp_acct_echo(a, fi, qi, k, reply);
}


/* Every frame's port counters (p may be NULL). */
static inline void rp_acct_port_rx(struct acct_port *p, size_t wire_len, enum rp_rx_class c, bool icrc_bad)
{
	if (!p)
		return;
	p->r.rx_frames++;
	p->r.rx_bytes += wire_len;
	p->r.class_frames[c]++;
	p->r.icrc_bad += icrc_bad;
}

/* acct_fast.c: a data frame of a configured flow in the builder's layout
 * (pre->taken), accounted without the general parse (true), or left to it
 * (false, nothing touched). */
bool rp_acct_rx_fast(struct rp_acct *a, struct acct_port *p, uint64_t now, const uint8_t *buf, size_t len,
		     const struct rp_acct_pre *pre, struct rp_reply *reply);

/* acct_keys.c */
int rp_acct_map_init(struct acct_map *m, size_t entries);
void rp_acct_map_free(struct acct_map *m);
const struct acct_slot *rp_acct_map_find(const struct acct_map *m, const struct acct_key *k);
/* 0, or -1 when full (and it may not grow) or out of memory. */
int rp_acct_map_put(struct acct_map *m, const struct acct_key *k, uint32_t flow, uint16_t qp, bool grow);
void rp_acct_key_v4(struct acct_key *k, uint32_t src, uint32_t dst, uint32_t qpn, enum acct_dir dir);
void rp_acct_key_v6(struct acct_key *k, const uint8_t src[16], const uint8_t dst[16], uint32_t qpn, enum acct_dir dir);
/* The frame's key: its addresses and BTH DestQP, in direction dir. */
void rp_acct_key_frame(struct acct_key *k, const struct rp_frame *f, enum acct_dir dir);

/* acct_flow.c */
int rp_acct_flow_setup(struct rp_acct *a, struct acct_flow *fl, const struct rp_acct_flow_cfg *cfg);
void rp_acct_flow_free(struct acct_flow *fl);
int rp_acct_flow_add_qp(struct acct_flow *fl, uint32_t dqpn);

/* acct_discover.c: the flow and QP of a frame that no key matched. */
const struct acct_slot *rp_acct_discover_data(struct rp_acct *a, const struct rp_frame *f);
/* reads: a read response, which answers only a QP that sent READ requests. */
const struct acct_slot *rp_acct_discover_rev(struct rp_acct *a, const struct rp_frame *f, bool reads);

#endif
