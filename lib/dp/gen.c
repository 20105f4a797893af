#include "gen.h"

#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rx.h"
#include "traffic/source.h"
#include "txq.h"
#include "wire/classify.h"
#include "wire/eth.h"
#include "wire/frame.h"
#include "wire/icmp.h"

struct lcore_job {
	struct rp_dp_gen *g;
	unsigned lcore;
	volatile bool done;
	volatile bool sent_all; /* its sources are done (or it stopped sending) */
	volatile bool busy;     /* still sending or holding: the others keep polling */
} __attribute__((aligned(64)));

/* The jobs of the run in progress (one at a time), so each lcore sees
 * whether the others are done. */
static struct lcore_job *run_jobs;
static unsigned run_njobs;

static bool all_sent(void)
{
	for (unsigned i = 0; i < run_njobs; i++)
		if (!run_jobs[i].sent_all)
			return false;
	return true;
}

static bool others_busy(const struct lcore_job *me)
{
	for (unsigned i = 0; i < run_njobs; i++)
		if (&run_jobs[i] != me && run_jobs[i].busy)
			return true;
	return false;
}

/* A run's per-lcore receiver (NULL in gen). */
static inline struct rp_dp_rx *rx_of(const struct rp_dp_gen *g, const struct rp_dp_txport *tp)
{
	return g->rx ? &g->rx[tp->lcore] : NULL;
}

/* The pause gate TX honours: the port's (queue 0 gets the PFC frames). */
static inline struct rp_pause *gate_of(struct rp_dp_txport *tp)
{
	return tp->home ? &tp->home->pause : &tp->pause;
}

/* A next hop's MAC changed at the port's queue-0 entry: this queue's flows
 * follow, on this lcore (the source is not thread-safe). */
static void follow_home(struct rp_dp_txport *tp)
{
	uint32_t gen = __atomic_load_n(&tp->home->hops_gen, __ATOMIC_ACQUIRE);
	if (gen == tp->hops_seen)
		return;
	for (unsigned k = 0; tp->src && k < tp->home->refresh.n; k++) {
		const struct rp_dp_neigh_hop *h = &tp->home->refresh.hop[k];
		rp_source_set_next_hop_mac(tp->src, h->l3, h->ip4, h->ip6, h->mac);
	}
	tp->hops_seen = gen;
}

static void count_too_big(struct rp_dp_txport *tp, const uint8_t *b, uint16_t len)
{
	struct rp_icmp_too_big t;
	if (rp_icmp_too_big_parse(b, len, &t) != 0)
		return;
	tp->rx_too_big++;
	if (t.mtu && (!tp->too_big_mtu || t.mtu < tp->too_big_mtu))
		tp->too_big_mtu = t.mtu;
}

/* NICs consume PFC in hardware; here the RX queue is polled and the frames
 * feed the pause gate. In a run everything received then goes to the
 * accountant; in gen it is dropped uncounted. */
static void poll_rx(struct rp_dp_gen *g, struct rp_dp_txport *tp)
{
	struct rte_mbuf *rx[RP_DP_BURST];
	uint16_t n = rte_eth_rx_burst(tp->port->id, tp->rxq, rx, RP_DP_BURST);
	if (n == 0)
		return;
	tp->rx_frames += n;
	/* Their arrival is now, not the pass's start: another lcore, another
	 * rank, or the same sender before this poller was preempted may have
	 * stamped and sent them after this pass began (else "stamped after they
	 * arrived", and a delay impairment's hold measured short: under mpirun
	 * on two busy cores a 2 ms hold gave one-way samples of 0.2 ms). One
	 * clock read per burst that brought frames. */
	const uint64_t now_ns = rp_dp_now_ns();
	struct rp_dp_rx *drx = rx_of(g, tp);
	struct rp_capture *cap = drx ? drx->ports[tp->index].cap : NULL;
	for (uint16_t i = 0; i < n; i++) {
		const uint8_t *b = rte_pktmbuf_mtod(rx[i], const uint8_t *);
		uint16_t len = rte_pktmbuf_data_len(rx[i]);
		struct rp_macctl m;
		struct rp_neigh_rx nr;
		size_t l3 = 0;
		uint16_t et = rp_cls_ethertype(b, len, &l3); /* read once: what follows asks by it */
		/* ARP/ND is answered here, between two TX bursts of the same lcore,
		 * like the RoCE responder's replies: pacing only sees a burst later. */
		if ((et == RP_ETHERTYPE_ARP || et == RP_ETHERTYPE_IPV6) && rp_dp_neigh_frame(tp, b, len, cap, now_ns, &nr))
			continue;
		/* A router's "packet too big" (its frame is also the accountant's 'other'):
		 * one byte looked at for every other IP frame. */
		if ((et == RP_ETHERTYPE_IPV4 && len > l3 + 9 && b[l3 + 9] == RP_IPPROTO_ICMP) ||
		    (et == RP_ETHERTYPE_IPV6 && len > l3 + 6 && b[l3 + 6] == RP_IPPROTO_ICMPV6))
			count_too_big(tp, b, len);
		if (et == RP_ETHERTYPE_MACCTL && len >= l3 + 2 && rp_macctl_parse(b + l3, len - l3, &m) == 0) {
			tp->rx_pfc += m.opcode == RP_MACCTL_OP_PFC;
			tp->rx_pause += m.opcode == RP_MACCTL_OP_PAUSE;
			rp_pause_rx(gate_of(tp), now_ns, &m);
		}
	}
	if (drx)
		rp_dp_rx_frames(drx, tp, rx, n, now_ns);
	else
		rte_pktmbuf_free_bulk(rx, n);
}

/* Counted from the lengths the source gave: a sent mbuf may already be back
 * in its pool, so it is never read after rte_eth_tx_burst. */
static void account_sent(struct rp_dp_txport *tp, const uint16_t *lens, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++)
		tp->tx_bytes += lens[i];
	tp->tx_packets += n;
}

static void keep_pending(struct rp_dp_txport *tp, struct rte_mbuf **m, const uint16_t *lens, unsigned n)
{
	memmove(tp->pending, m, n * sizeof(m[0]));
	memmove(tp->pending_len, lens, n * sizeof(lens[0]));
	tp->n_pending = n;
}

/* The frames given up, by the flow their probe names (rare: a full parse
 * each, and the source's flows searched). */
static void count_unsent_flows(struct rp_dp_txport *tp)
{
	size_t nf = tp->src ? rp_source_nflows(tp->src) : 0;
	for (unsigned i = 0; tp->flow_unsent && i < tp->n_pending; i++) {
		struct rp_frame f;
		uint16_t len = rte_pktmbuf_data_len(tp->pending[i]);
		if (rp_frame_parse(rte_pktmbuf_mtod(tp->pending[i], const uint8_t *), len, len, &f) != RP_KIND_ROCE ||
		    !f.has_probe)
			continue;
		for (size_t k = 0; k < nf; k++) {
			struct rp_source_flow_stats st;
			rp_source_flow_stats(tp->src, k, &st);
			if (st.flow_id == f.probe.flow_id) {
				tp->flow_unsent[k]++;
				break;
			}
		}
	}
}

/* What the queue did not take is retried first next time (flush_pending).
 * Frames a queue still refuses after RP_DP_DRAIN_NS, or still holds when
 * the lcore stops, are freed here and counted in tx_unsent: every packet
 * the source stamped is either sent or counted unsent, never lost silently. */
static void give_up_pending(struct rp_dp_txport *tp)
{
	if (tp->n_pending) {
		count_unsent_flows(tp);
		rte_pktmbuf_free_bulk(tp->pending, tp->n_pending);
		tp->tx_unsent += tp->n_pending;
		tp->n_pending = 0;
	}
	tp->stalled_since = 0;
}

static void flush_pending(struct rp_dp_txport *tp, uint64_t now_ns)
{
	uint16_t sent = rp_dp_tx_burst(tp->port, tp->txq, tp->pending, (uint16_t)tp->n_pending);
	account_sent(tp, tp->pending_len, sent);
	keep_pending(tp, tp->pending + sent, tp->pending_len + sent, tp->n_pending - sent);
	if (sent)
		tp->stalled_since = 0;
	else if (!tp->stalled_since)
		tp->stalled_since = now_ns;
	else if (now_ns - tp->stalled_since > RP_DP_DRAIN_NS)
		give_up_pending(tp);
}

typedef uint64_t hdr_v16 __attribute__((vector_size(16)));
typedef uint32_t fields_v16 __attribute__((vector_size(16)));
#define MBUF_AT(f, o) (offsetof(struct rte_mbuf, f) == offsetof(struct rte_mbuf, rearm_data) + (o))
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && MBUF_AT(data_off, 0) && MBUF_AT(refcnt, 2) &&
		       MBUF_AT(nb_segs, 4) && MBUF_AT(port, 6) && MBUF_AT(ol_flags, 8) &&
		       MBUF_AT(rx_descriptor_fields1, 16) && MBUF_AT(packet_type, 16) && MBUF_AT(pkt_len, 20) &&
		       MBUF_AT(data_len, 24) && MBUF_AT(vlan_tci, 26) && MBUF_AT(hash, 28),
	       "tx_fill's two stores cover these mbuf fields");

/* A scheduled start (dp.h rp_dp_tx_start NIC): the queue's first data frame
 * leaves at T0 + RP_DP_TX_LEAD_NS on the NIC's clock, and the queue after
 * it; handed over after that time, it leaves at once (late). */
static void sched_first(struct rp_dp_txport *tp, struct rte_mbuf *m, uint64_t now_ns)
{
	struct rp_dp_tx_sched *x = &tp->port->txs;
	*RTE_MBUF_DYNFIELD(m, x->field, int64_t *) = x->at_tick;
	m->ol_flags |= x->flag;
	tp->sched_done = true;
	if (now_ns >= RP_DP_TX_LEAD_NS)
		x->late = true; /* once per queue, from its lcore */
}

/* One burst from the pool of tp's shape; returns how many the source filled. */
static unsigned tx_fill(struct rp_dp_gen *g, struct rp_dp_txport *tp, uint64_t now_ns)
{
	struct rte_mbuf *m[RP_DP_TX_BURST];
	/* Raw allocation: a pool's free mbufs already hold refcnt 1, nb_segs 1
	 * and next NULL (the mbuf library's invariant), so only the fields a
	 * previous use may have changed are reset, below, on the first cache
	 * line, instead of rte_pktmbuf_reset's full pass. tx_offload (second
	 * cache line) is left alone: with no TX offload flag in ol_flags no
	 * driver reads it, and not touching that line is worth ~9%. ol_flags
	 * is stored, not masked: the pool has no pinned external buffers, so
	 * no free mbuf carries RTE_MBUF_F_EXTERNAL (and the store needs no
	 * load of the line). */
	const unsigned k = tp->pools[0] ? tp->shape : 0; /* 0: the port's own pool */
	struct rte_mempool *pool = k ? tp->pools[k] : tp->port->pool;
	if (rte_mempool_get_bulk(pool, (void **)m, RP_DP_TX_BURST) != 0)
		return 0;
	uint8_t *bufs[RP_DP_TX_BURST];
	uint16_t lens[RP_DP_TX_BURST];
	/* The pool's mbufs are direct: the buffer follows the header and the
	 * private area, so the header is not read before the source runs. */
	uint16_t off = tp->data_off[k];
	if (!off) /* rp_dp_gen_kept_pools not called */
		off = RTE_PKTMBUF_HEADROOM;
	for (unsigned i = 0; i < RP_DP_TX_BURST; i++)
		bufs[i] = (uint8_t *)rte_mbuf_buf_addr(m[i], pool) + off;
	uint8_t paused = rp_pause_mask(gate_of(tp), now_ns);
	unsigned n = tp->pools[0] ? rp_source_burst_shaped(tp->src, now_ns, paused, tp->shape, bufs, lens, NULL,
							   RP_DP_TX_BURST, &tp->shape)
				  : rp_source_burst(tp->src, now_ns, paused, bufs, lens, NULL, RP_DP_TX_BURST);
	/* The header's fields in two 16-byte stores: data_off, refcnt (1, what
	 * a free mbuf holds already), nb_segs 1, port and ol_flags 0 at
	 * rearm_data; packet_type 0, pkt_len, data_len, vlan_tci 0 and the RX
	 * hash's low half (no TX path reads it) at rx_descriptor_fields1. A
	 * store per field was eight per packet. vlan_tci_outer is left: with no
	 * VLAN flag in ol_flags nothing reads it. */
	const hdr_v16 rearm = {(uint64_t)off | 1ull << 16 | 1ull << 32 | (uint64_t)tp->port->id << 48, 0};
	uint64_t bytes = 0;
	for (unsigned i = 0; i < n; i++) {
		uint8_t *b = (uint8_t *)m[i];
		const fields_v16 d = {0, lens[i], lens[i], 0};
		memcpy(b + offsetof(struct rte_mbuf, rearm_data), &rearm, sizeof(rearm));
		memcpy(b + offsetof(struct rte_mbuf, rx_descriptor_fields1), &d, sizeof(d));
		bytes += lens[i];
	}
	if (n < RP_DP_TX_BURST)
		rte_mempool_put_bulk(pool, (void **)(m + n), RP_DP_TX_BURST - n);
	if (unlikely(tp->port->txs.on && !tp->sched_done) && n)
		sched_first(tp, m[0], now_ns);
	if (g->rx)
		rp_dp_rx_sent(rx_of(g, tp), tp, bufs, lens, n, now_ns);
	uint16_t sent = rp_dp_tx_burst(tp->port, tp->txq, m, (uint16_t)n);
	/* The bytes were summed with the header stores: a second pass over the
	 * lengths only when the queue took part of the burst. */
	if (sent == n) {
		tp->tx_bytes += bytes;
		tp->tx_packets += n;
	} else {
		account_sent(tp, lens, sent);
	}
	if (sent < n) {
		tp->tx_full++;
		keep_pending(tp, m + sent, lens + sent, n - sent);
	}
	return n;
}

static void tx_once(struct rp_dp_gen *g, struct rp_dp_txport *tp, uint64_t now_ns)
{
	if (tp->n_pending) {
		flush_pending(tp, now_ns);
		return;
	}
	if (!tp->src || rp_source_next_due(tp->src) > now_ns)
		return;
	/* Kept frames: a burst takes its mbufs from the pool of the shape the
	 * source says comes next, and gets only the packets of that shape; the
	 * next shape's pool is asked at once (once: nothing due then). */
	unsigned shape = tp->shape;
	unsigned n = tx_fill(g, tp, now_ns);
	if (n == 0 && tp->shape != shape)
		tx_fill(g, tp, now_ns);
}

static bool time_up(const struct rp_dp_gen *g, uint64_t now_ns)
{
	return *g->stop || (g->duration_ns && now_ns >= g->duration_ns);
}

/* After the stop (Ctrl-C, the duration, or the sources done and the linger
 * over) of a run: no new packets, but what was stamped is still sent, and RX
 * is polled and delay holds released until every port has been quiet for
 * RP_DP_QUIET_NS with nothing held or pending, or linger_ns + RP_DP_QUIET_NS
 * have passed. So frames still in flight are counted received, not lost. */
#define RP_DP_QUIET_NS 2000000ull
/* Across ranks the last frames may come from another process that the CPU left
 * waiting: the quiet counts only once every rank has stopped sending, and lasts
 * longer. */
#define RP_DP_QUIET_RANKS_NS 20000000ull
#define RP_DP_WAIT_RANKS_NS 1000000000ull

static void drain(struct rp_dp_gen *g, struct lcore_job *job)
{
	unsigned lcore = job->lcore;
	uint64_t start = rp_dp_now_ns(), last_rx = start;
	uint64_t quiet = g->others_done ? RP_DP_QUIET_RANKS_NS : RP_DP_QUIET_NS;
	uint64_t limit = start + g->linger_ns + quiet + (g->others_done ? RP_DP_WAIT_RANKS_NS : 0);
	for (;;) {
		uint64_t now = rp_dp_now_ns();
		bool busy = false;
		for (unsigned i = 0; i < g->n_ports; i++) {
			struct rp_dp_txport *tp = &g->ports[i];
			if (tp->lcore != lcore)
				continue;
			now = rp_dp_now_ns();
			uint64_t before = tp->rx_frames;
			poll_rx(g, tp);
			if (tp->n_pending)
				flush_pending(tp, now);
			rp_dp_rx_release(rx_of(g, tp), tp, now);
			if (tp->rx_frames != before)
				last_rx = now;
			busy |= tp->n_pending != 0 || rp_dp_rx_holding(rx_of(g, tp), tp);
		}
		if (job->busy != busy) /* read by the other lcores every pass */
			job->busy = busy;
		if (g->yield_idle && last_rx != now)
			sched_yield();
		if (g->others_done && !*g->others_done) /* another rank may still be sending */
			last_rx = now;
		/* Another lcore still sending (what it had stamped) may send to this one's queues. */
		if (now >= limit || (!busy && !others_busy(job) && now >= last_rx + quiet))
			break;
	}
	job->busy = false;
}

/* One lcore's loop over the ports it owns. */
static int lcore_loop(void *arg)
{
	struct lcore_job *job = arg;
	struct rp_dp_gen *g = job->g;
	struct rp_dp_lcore_stats *ls = &g->lcore[job->lcore];
	bool main_lcore = job->lcore == 0 && !g->main_idle;
	uint64_t next_progress = 1000000000ull, done_at = 0;
	for (;;) {
		uint64_t now = rp_dp_now_ns();
		bool sources_done = true, pending = false, first = true, work = false;
		for (unsigned i = 0; i < g->n_ports; i++) {
			struct rp_dp_txport *tp = &g->ports[i];
			if (tp->lcore != job->lcore)
				continue;
			uint64_t before = tp->rx_frames + tp->tx_packets;
			/* Each port sees its own time: a frame sent on one port and
			 * received on the next in the same pass took real time. The
			 * first port of a pass uses the pass's time. */
			if (!first)
				now = rp_dp_now_ns();
			first = false;
			poll_rx(g, tp);
			/* Housekeeping on the RX side, one compare a pass: the kept
			 * next hops are asked again about once a second (neigh.h). */
			if (now >= tp->refresh.next_ns)
				rp_dp_neigh_refresh(tp, g->rx ? rx_of(g, tp)->ports[tp->index].cap : NULL, now);
			if (tp->home)
				follow_home(tp);
			tx_once(g, tp, now);
			if (g->rx) {
				rp_dp_rx_release(rx_of(g, tp), tp, now);
				pending |= rp_dp_rx_holding(rx_of(g, tp), tp);
			}
			sources_done &= !tp->src || rp_source_done(tp->src);
			pending |= tp->n_pending != 0;
			work |= tp->rx_frames + tp->tx_packets != before;
		}
		if (g->idle_ns && !work && !pending) { /* a CPU shared with others (idle_ns in gen.h) */
			struct timespec ts = {.tv_sec = (time_t)(g->idle_ns / 1000000000u),
					      .tv_nsec = (long)(g->idle_ns % 1000000000u)};
			nanosleep(&ts, NULL);
		}
		ls->passes++;
		ls->busy += work;
		if (!work && g->yield_idle)
			sched_yield();
		if (main_lcore && now >= next_progress) {
			if (g->progress)
				g->progress(g, now, g->progress_arg);
			next_progress += 1000000000ull;
		}
		if (time_up(g, now))
			break;
		/* Frames in flight or held by a delay arrive during the linger; a
		 * queue that still refuses packets after that is given up. */
		/* Every lcore's sources: until then its queues may still get frames.
		 * Stored once: the other lcores read the line every pass, and a
		 * store per pass would pull it away from them each time. */
		if (sources_done && !job->sent_all)
			job->sent_all = true;
		bool all = sources_done && all_sent();
		if (all && g->tx_done && !*g->tx_done)
			*g->tx_done = true;
		if (all && !done_at && (!g->others_done || *g->others_done))
			done_at = now;
		/* A duration is a promise to keep the ports open (and receiving) that long. */
		if (done_at && !g->duration_ns && now >= done_at + g->linger_ns &&
		    (!pending || now >= done_at + g->linger_ns + RP_DP_DRAIN_NS))
			break;
	}
	job->sent_all = true; /* no new packets from here */
	if (g->tx_done && all_sent()) /* the other ranks may count on it */
		*g->tx_done = true;
	if (g->rx)
		drain(g, job);
	for (unsigned i = 0; i < g->n_ports; i++)
		if (g->ports[i].lcore == job->lcore)
			give_up_pending(&g->ports[i]);
	job->busy = false;
	job->done = true;
	return 0;
}

/* One line when an lcore polls a port of another NUMA socket (a user's
 * --eal "-l ..." can do that; virtual devices have no socket). */
static void check_numa(const struct rp_dp_gen *g)
{
	unsigned far = 0;
	const struct rp_dp_txport *first = NULL;
	for (unsigned i = 0; i < g->n_ports; i++) {
		const struct rp_dp_txport *tp = &g->ports[i];
		if (tp->lcore == RP_DP_NO_LCORE)
			continue;
		int ls = g->lcore[tp->lcore].socket;
		if (tp->port->socket < 0 || ls < 0 || ls == tp->port->socket)
			continue;
		first = first ? first : tp;
		far++;
	}
	if (first)
		fprintf(stderr, "roceprobe %s: lcore %u (socket %d) polls port %s on socket %d (%u queue%s across sockets): "
				"give --eal \"-l ...\" cores of the port's socket\n", g->who ? g->who : "run",
			g->lcore[first->lcore].lcore_id, g->lcore[first->lcore].socket, first->port->name,
			first->port->socket, far, far == 1 ? "" : "s");
}

/* main_idle: the main thread sleeps and prints progress; the workers poll. */
static void main_wait(struct rp_dp_gen *g, struct lcore_job *jobs, unsigned n)
{
	uint64_t next_progress = 1000000000ull;
	for (;;) {
		bool done = true;
		for (unsigned i = 0; i < n; i++)
			done &= jobs[i].done;
		if (done)
			return;
		struct timespec ts = {.tv_nsec = 1000000};
		nanosleep(&ts, NULL);
		uint64_t now = rp_dp_now_ns();
		if (now >= next_progress) {
			if (g->progress)
				g->progress(g, now, g->progress_arg);
			next_progress += 1000000000ull;
		}
	}
}

bool rp_dp_gen_kept_pools(struct rp_dp_txport *tp, char *why, size_t whylen)
{
	struct rp_source_shape sh[RP_SOURCE_SHAPES];
	unsigned n = tp->src ? rp_source_shapes(tp->src, sh) : 0;
	memset(tp->pools, 0, sizeof(tp->pools));
	tp->shape = 0;
	/* Frames written whole go where the common small one fits best: a SEND
	 * ONLY carrying the probe alone, 82 B (Ethernet 14, IPv4 20, UDP 8, BTH
	 * 12, the probe 24 ending at 78, the ICRC 4): at 16 (rp_dp_kept_offset). */
	tp->data_off[0] = (uint16_t)(RTE_PKTMBUF_HEADROOM + rp_dp_kept_offset(82, 78));
	for (unsigned i = 0; i < n; i++) {
		if (!(tp->pools[i + 1] = rp_dp_port_shape_pool(tp->port, sh[i].len, sh[i].head))) {
			memset(tp->pools, 0, sizeof(tp->pools));
			snprintf(why, whylen, "port %s: no memory for a pool of its %u B frames: every frame is written whole, "
				 "which is slower; give the EAL more memory (--eal \"-m N\")", tp->port->name, sh[i].len);
			return false;
		}
		tp->data_off[i + 1] = (uint16_t)(RTE_PKTMBUF_HEADROOM + rp_dp_kept_offset(sh[i].len, sh[i].head));
	}
	if (n)
		tp->pools[0] = tp->port->pool;
	return true;
}

int rp_dp_gen_run(struct rp_dp_gen *g)
{
	static struct lcore_job jobs[RP_DP_MAX_LCORES];
	unsigned lcore_ids[RP_DP_MAX_LCORES];
	/* Job k runs on lcore_ids[k]: the main lcore first unless it stays idle. */
	unsigned n = 0, id, want = g->n_lcores < RP_DP_MAX_LCORES ? g->n_lcores : RP_DP_MAX_LCORES;
	if (!g->main_idle)
		lcore_ids[n++] = rte_get_main_lcore();
	RTE_LCORE_FOREACH_WORKER(id)
	{
		if (n >= want)
			break;
		lcore_ids[n++] = id;
	}
	if (n < want) {
		fprintf(stderr, "roceprobe %s: the EAL gave %u polling lcore%s, %u asked: give --eal \"-l ...\" %u cores "
				"(or none: roceprobe picks them)\n", g->who ? g->who : "run", n, n == 1 ? "" : "s", want,
			want + g->main_idle);
		return -1;
	}
	for (unsigned i = 0; i < n; i++) {
		jobs[i] = (struct lcore_job){.g = g, .lcore = i, .busy = true};
		g->lcore[i] = (struct rp_dp_lcore_stats){.lcore_id = lcore_ids[i],
							 .socket = (int)rte_lcore_to_socket_id(lcore_ids[i])};
	}
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	g->yield_idle = g->main_idle && ncpu > 0 && n > (unsigned)ncpu;
	run_jobs = jobs;
	run_njobs = n;
	check_numa(g);
	for (unsigned i = g->main_idle ? 0 : 1; i < n; i++)
		rte_eal_remote_launch(lcore_loop, &jobs[i], lcore_ids[i]);
	if (g->main_idle)
		main_wait(g, jobs, n);
	else
		lcore_loop(&jobs[0]);
	/* The main lcore may finish first; workers see *stop or finish their own. */
	for (unsigned i = g->main_idle ? 0 : 1; i < n; i++)
		rte_eal_wait_lcore(lcore_ids[i]);
	run_njobs = 0;
	g->end_ns = rp_dp_now_ns();
	for (unsigned i = 0; i < g->n_ports; i++)
		rp_pause_settle(&g->ports[i].pause, g->end_ns);
	return 0;
}
