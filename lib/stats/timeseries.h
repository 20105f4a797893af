/* Fixed time bins (default 100 us) of counters: received packets and bytes,
 * CE, CNP, ACK/NAK, latency count/min/mean/stdev/max, and per port and
 * priority PFC frames and paused ns. Clock-free; every bin is allocated by
 * rp_ts_create (from the run length), never per event.
 *
 * Bounded: bin i covers [start + i*bin, start + (i+1)*bin). An event before
 * start or at/after start + nbins*bin is not put in any bin: it is counted in
 * `outside` (so a caller can tell the series was cut), and every other total
 * of the accountant still counts it. A pause interval is cut the same way.
 * Per-bin latency keeps exact count, min, max, mean and stdev, and p50, p90,
 * p99 and p99.9 from one histogram of the open bin (the histogram's error,
 * below 1%), closed when time moves to a later bin: a sample for an earlier,
 * closed bin still counts in that bin's exact figures but in the open bin's
 * percentiles. */
#ifndef RP_STATS_TIMESERIES_H
#define RP_STATS_TIMESERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hist.h"
#include "shist.h"

#define RP_TS_BIN_NS 100000ull      /* 100 us */
#define RP_TS_MAX_BINS 1000000u     /* a cap on memory: ~0.3 KiB per bin and port */

enum rp_ts_counter {
	RP_TS_RX_PACKETS,
	RP_TS_RX_BYTES,
	RP_TS_CE,
	RP_TS_CNP_TX,
	RP_TS_CNP_RX,
	RP_TS_ACKS,
	RP_TS_NAKS,
	RP_TS_COUNTERS,
};
extern const char *const rp_ts_counter_names[RP_TS_COUNTERS]; /* result.json names */

#define RP_TS_PCTS 4 /* the first four of enum rp_hist_pct: p50, p90, p99, p99.9 */

struct rp_ts_bin {
	uint64_t c[RP_TS_COUNTERS];
	uint64_t lat_count;
	uint64_t lat_min; /* UINT64_MAX when lat_count is 0 */
	uint64_t lat_max;
	struct rp_sums lat_sums; /* exact, as a histogram's (hist.h) */
	uint64_t lat_pct[RP_TS_PCTS]; /* p50, p90, p99, p99.9; 0 without samples */
};

struct rp_ts_cfg {
	uint64_t start_ns;
	uint64_t bin_ns;   /* 0: RP_TS_BIN_NS */
	size_t nbins;      /* e.g. rp_ts_bins_for(run_ns, bin_ns) */
	size_t nflows;     /* per-flow rx packets/bytes series; 0: none */
	size_t nports;
	bool bin_hist;     /* also a mergeable latency histogram per bin (rp_ts_latency_hist) */
	bool sparse_ports; /* the per-port cells (PFC frames, paused ns) only where not zero, in a
			    * hash that grows (a merged result's: 1024 ports x 30 000 bins x 8
			    * priorities is 3.9 GB dense); rp_ts_pfc and rp_ts_paused then allocate,
			    * so never on a per-packet path */
};

/* One non-zero (bin, port, prio) cell of a sparse_ports series. */
struct rp_ts_cell {
	uint64_t key; /* (bin x nports + port) x 8 + prio, plus 1 (0: a free slot) */
	uint64_t pfc, paused;
};

struct rp_ts {
	struct rp_ts_cfg cfg;
	struct rp_ts_bin *bins;
	uint64_t *pfc;       /* [bin][port][prio] PFC/PAUSE frames naming the priority */
	uint64_t *paused;    /* [bin][port][prio] paused ns inside the bin */
	uint64_t *flow_pkts; /* [bin][flow] */
	uint64_t *flow_bytes;
	uint64_t outside;    /* events that fell outside every bin */
	struct rp_hist *open_hist; /* latency of the open bin: buckets, count, min, max (no sums) */
	long open_bin;             /* -1: none */
	uint64_t end_ns;           /* start_ns + nbins x bin_ns: at or after it, no bin */
	uint64_t last_lo;          /* the last bin found starts here (rp_ts_bin_of's shortcut) */
	long last_bin;             /* -1: none yet */
	struct rp_shist *hists;    /* [nbins] with cfg.bin_hist: exact, sparse, mergeable */
	struct rp_ts_cell *cells;  /* sparse_ports: [cap_cells], open addressing */
	size_t ncells, cap_cells;
	size_t cells_bins;         /* sparse_ports: the last bin with a cell, plus 1 */
	uint8_t *active;           /* sparse_ports: [nports] the priorities (bits) with a cell */
};

/* Bins to cover run_ns (one more for the edge), capped at RP_TS_MAX_BINS. */
size_t rp_ts_bins_for(uint64_t run_ns, uint64_t bin_ns);
/* NULL when out of memory. */
struct rp_ts *rp_ts_create(const struct rp_ts_cfg *cfg);
void rp_ts_destroy(struct rp_ts *t);

/* The bin of now_ns, or -1 (and outside++) when it has none: the bin of
 * the previous call is known without a division (inline), any other is
 * worked out by rp_ts_bin_find. */
long rp_ts_bin_find(struct rp_ts *t, uint64_t now_ns);
static inline long rp_ts_bin_of(struct rp_ts *t, uint64_t now_ns)
{
	if (t->last_bin >= 0 && now_ns - t->last_lo < t->cfg.bin_ns) /* wraps when now_ns < last_lo */
		return t->last_bin;
	return rp_ts_bin_find(t, now_ns);
}
void rp_ts_add(struct rp_ts *t, uint64_t now_ns, enum rp_ts_counter c, uint64_t n);
/* n data packets of a flow at the same time, together bytes long, ce of
 * them CE-marked: exactly n rp_ts_rx calls (outside counts each). */
static inline void rp_ts_rx_n(struct rp_ts *t, uint64_t now_ns, size_t flow, uint64_t n, uint64_t bytes, uint64_t ce)
{
	long b = rp_ts_bin_of(t, now_ns);
	if (b < 0) {
		t->outside += n - 1;
		return;
	}
	struct rp_ts_bin *bin = &t->bins[b];
	bin->c[RP_TS_RX_PACKETS] += n;
	bin->c[RP_TS_RX_BYTES] += bytes;
	bin->c[RP_TS_CE] += ce;
	if (t->flow_pkts && flow < t->cfg.nflows) {
		t->flow_pkts[(size_t)b * t->cfg.nflows + flow] += n;
		t->flow_bytes[(size_t)b * t->cfg.nflows + flow] += bytes;
	}
}

/* A data packet: rx packets/bytes (aggregate and, if kept, the flow's), CE. */
static inline void rp_ts_rx(struct rp_ts *t, uint64_t now_ns, size_t flow, uint64_t bytes, bool ce)
{
	rp_ts_rx_n(t, now_ns, flow, 1, bytes, ce);
}
void rp_ts_latency(struct rp_ts *t, uint64_t now_ns, uint64_t lat_ns);
/* A batch's samples (hist.h), at the same time: exactly an rp_ts_latency
 * call for each, their arithmetic already done. */
void rp_ts_latency_batch(struct rp_ts *t, uint64_t now_ns, const struct rp_hist_batch *b);
/* With cfg.bin_hist: lat_ns into the histogram of now_ns's bin (nothing
 * else: call rp_ts_latency too for the bin's own figures). A caller's
 * choice of samples, e.g. a workload's flows and not its aggressor's. */
void rp_ts_latency_hist(struct rp_ts *t, uint64_t now_ns, uint64_t lat_ns);
/* The bin's histogram (NULL without cfg.bin_hist). */
static inline const struct rp_shist *rp_ts_hist(const struct rp_ts *t, size_t bin)
{
	return t->hists && bin < t->cfg.nbins ? &t->hists[bin] : NULL;
}
/* Closes the open bin's percentiles; call once the last sample is in. */
void rp_ts_flush(struct rp_ts *t);
void rp_ts_pfc(struct rp_ts *t, uint64_t now_ns, size_t port, unsigned prio);
/* Paused time [from, to) of a port's priority, spread over the bins it spans. */
void rp_ts_paused(struct rp_ts *t, size_t port, unsigned prio, uint64_t from_ns, uint64_t to_ns);

static inline size_t rp_ts_nbins(const struct rp_ts *t) { return t->cfg.nbins; }
static inline const struct rp_ts_bin *rp_ts_get(const struct rp_ts *t, size_t bin) { return &t->bins[bin]; }
/* sparse_ports: the cell, or NULL when it is zero. */
const struct rp_ts_cell *rp_ts_cell_find(const struct rp_ts *t, size_t bin, size_t port, unsigned prio);
static inline uint64_t rp_ts_pfc_frames(const struct rp_ts *t, size_t bin, size_t port, unsigned prio)
{
	if (!t->pfc) {
		const struct rp_ts_cell *c = rp_ts_cell_find(t, bin, port, prio);
		return c ? c->pfc : 0;
	}
	return t->pfc[(bin * t->cfg.nports + port) * 8 + prio];
}
static inline uint64_t rp_ts_paused_ns(const struct rp_ts *t, size_t bin, size_t port, unsigned prio)
{
	if (!t->paused) {
		const struct rp_ts_cell *c = rp_ts_cell_find(t, bin, port, prio);
		return c ? c->paused : 0;
	}
	return t->paused[(bin * t->cfg.nports + port) * 8 + prio];
}
/* A cell += (frames, paused_ns), dense or sparse; 0, or -1 when a sparse
 * series is out of memory (nothing added). */
int rp_ts_port_add(struct rp_ts *t, size_t bin, size_t port, unsigned prio, uint64_t frames, uint64_t paused_ns);
/* Whether any bin of the port's priority holds PFC frames or paused time. */
bool rp_ts_port_used(const struct rp_ts *t, size_t port, unsigned prio);
/* dst += src for one bin: counters and the latency count, min, max, sum and
 * sum of squares exactly; p50..p99.9 the larger of the two (an upper bound
 * of the union's: neither part has more than (1 - p) of its samples above
 * its own quantile). The ranks' merge and the lcores' both use it. */
void rp_ts_bin_merge(struct rp_ts_bin *dst, const struct rp_ts_bin *src);
/* The number of bins up to the last one that holds anything (for output). */
size_t rp_ts_used_bins(const struct rp_ts *t);

#endif
