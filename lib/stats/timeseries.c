#include "timeseries.h"

#include <stdlib.h>

const char *const rp_ts_counter_names[RP_TS_COUNTERS] = {
	"rx_packets", "rx_bytes", "ce", "cnp_tx", "cnp_rx", "acks", "naks",
};

size_t rp_ts_bins_for(uint64_t run_ns, uint64_t bin_ns)
{
	if (bin_ns == 0)
		bin_ns = RP_TS_BIN_NS;
	uint64_t n = run_ns / bin_ns + 1;
	return n > RP_TS_MAX_BINS ? RP_TS_MAX_BINS : (size_t)n;
}

struct rp_ts *rp_ts_create(const struct rp_ts_cfg *cfg)
{
	struct rp_ts *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->cfg = *cfg;
	if (t->cfg.bin_ns == 0)
		t->cfg.bin_ns = RP_TS_BIN_NS;
	if (t->cfg.nbins == 0)
		t->cfg.nbins = 1;
	size_t nb = t->cfg.nbins, pp = nb * (t->cfg.nports ? t->cfg.nports : 1) * 8;
	t->bins = calloc(nb, sizeof(*t->bins));
	if ((t->open_hist = malloc(sizeof(*t->open_hist))))
		rp_hist_init(t->open_hist);
	t->open_bin = -1;
	if (t->cfg.sparse_ports) {
		t->active = calloc(t->cfg.nports ? t->cfg.nports : 1, 1);
	} else {
		t->pfc = calloc(pp, sizeof(uint64_t));
		t->paused = calloc(pp, sizeof(uint64_t));
	}
	if (t->cfg.nflows) {
		t->flow_pkts = calloc(nb * t->cfg.nflows, sizeof(uint64_t));
		t->flow_bytes = calloc(nb * t->cfg.nflows, sizeof(uint64_t));
	}
	if (t->cfg.bin_hist && (t->hists = calloc(nb, sizeof(*t->hists))))
		for (size_t i = 0; i < nb; i++)
			rp_shist_init(&t->hists[i]);
	if (!t->bins || !t->open_hist || (t->cfg.bin_hist && !t->hists) ||
	    (t->cfg.sparse_ports ? !t->active : !t->pfc || !t->paused) || (t->cfg.nflows && (!t->flow_pkts || !t->flow_bytes))) {
		rp_ts_destroy(t);
		return NULL;
	}
	for (size_t i = 0; i < nb; i++)
		t->bins[i].lat_min = UINT64_MAX;
	t->last_bin = -1;
	/* Beyond UINT64_MAX nothing is binned anyway: saturate. */
	uint64_t span = nb > UINT64_MAX / t->cfg.bin_ns ? UINT64_MAX : nb * t->cfg.bin_ns;
	t->end_ns = span > UINT64_MAX - t->cfg.start_ns ? UINT64_MAX : t->cfg.start_ns + span;
	return t;
}

void rp_ts_destroy(struct rp_ts *t)
{
	if (!t)
		return;
	for (size_t i = 0; t->hists && i < t->cfg.nbins; i++)
		rp_shist_free(&t->hists[i]);
	free(t->hists);
	free(t->bins);
	free(t->open_hist);
	free(t->pfc);
	free(t->paused);
	free(t->cells);
	free(t->active);
	free(t->flow_pkts);
	free(t->flow_bytes);
	free(t);
}

long rp_ts_bin_find(struct rp_ts *t, uint64_t now_ns)
{
	if (now_ns < t->cfg.start_ns || now_ns >= t->end_ns) {
		t->outside++;
		return -1;
	}
	uint64_t i = (now_ns - t->cfg.start_ns) / t->cfg.bin_ns;
	t->last_bin = (long)i;
	t->last_lo = t->cfg.start_ns + i * t->cfg.bin_ns;
	return (long)i;
}

void rp_ts_add(struct rp_ts *t, uint64_t now_ns, enum rp_ts_counter c, uint64_t n)
{
	long b = rp_ts_bin_of(t, now_ns);
	if (b >= 0)
		t->bins[b].c[c] += n;
}

/* The open histogram's buckets from its min's to its max's: the only ones
 * that can hold samples (rp_hist_summarize_walk's walker, pos relative to lo). */
struct open_range {
	const struct rp_hist *h;
	size_t lo, hi;
};

static bool walk_open(const void *arg, size_t *pos, uint64_t *upper, uint64_t *count)
{
	const struct open_range *r = arg;
	for (size_t i = r->lo + *pos; i <= r->hi; i++) {
		if (r->h->b[i]) {
			*upper = rp_hist_bucket_hi(i);
			*count = r->h->b[i];
			*pos = i - r->lo + 1;
			return true;
		}
	}
	*pos = r->hi - r->lo + 1;
	return false;
}

/* The bin's percentiles as rp_hist_percentile gives them, in one walk over
 * the used range, which is then emptied for the next bin (rp_hist_clear_used:
 * not all 7424 buckets, 58 KiB, every 100 us). */
void rp_ts_flush(struct rp_ts *t)
{
	if (t->open_bin < 0)
		return;
	struct rp_ts_bin *bin = &t->bins[t->open_bin];
	struct rp_hist *h = t->open_hist;
	if (h->count) {
		struct open_range r = {h, rp_hist_index(h->min), rp_hist_index(h->max)};
		struct rp_hist_summary s;
		rp_hist_summarize_walk(&s, h->count, h->min, h->max, &h->sums, walk_open, &r);
		for (int k = 0; k < RP_TS_PCTS; k++)
			bin->lat_pct[k] = s.pct[k];
	} else {
		for (int k = 0; k < RP_TS_PCTS; k++)
			bin->lat_pct[k] = 0;
	}
	rp_hist_clear_used(h);
	t->open_bin = -1;
}

/* One histogram serves every bin in turn: emptied when its bin is flushed.
 * Only its percentiles are read: no moments (rp_hist_record_counts). */
static void open_bin(struct rp_ts *t, long b)
{
	if (b <= t->open_bin)
		return;
	rp_ts_flush(t);
	t->open_bin = b;
}

void rp_ts_latency_batch(struct rp_ts *t, uint64_t now_ns, const struct rp_hist_batch *b)
{
	if (b->n == 0)
		return;
	long bi = rp_ts_bin_of(t, now_ns);
	if (bi < 0) {
		t->outside += b->n - 1; /* one per sample, as n calls count them */
		return;
	}
	open_bin(t, bi);
	struct rp_ts_bin *bin = &t->bins[bi];
	struct rp_hist *h = t->open_hist;
	for (uint32_t i = 0; i < b->n; i++)
		h->b[b->idx[i]]++;
	h->count += b->n;
	bin->lat_count += b->n;
	if (b->min < h->min)
		h->min = b->min;
	if (b->max > h->max)
		h->max = b->max;
	if (b->min < bin->lat_min)
		bin->lat_min = b->min;
	if (b->max > bin->lat_max)
		bin->lat_max = b->max;
	rp_sums_merge(&bin->lat_sums, &b->sums);
}

void rp_ts_latency(struct rp_ts *t, uint64_t now_ns, uint64_t lat_ns)
{
	struct rp_hist_batch b;
	rp_hist_batch_of(&b, &lat_ns, 1);
	rp_ts_latency_batch(t, now_ns, &b);
}

/* Not rp_ts_bin_of: the sample's rp_ts_latency already counted it if outside. */
void rp_ts_latency_hist(struct rp_ts *t, uint64_t now_ns, uint64_t lat_ns)
{
	if (!t->hists || now_ns < t->cfg.start_ns || now_ns >= t->end_ns)
		return;
	rp_shist_record(&t->hists[(now_ns - t->cfg.start_ns) / t->cfg.bin_ns], lat_ns);
}

void rp_ts_pfc(struct rp_ts *t, uint64_t now_ns, size_t port, unsigned prio)
{
	long b = rp_ts_bin_of(t, now_ns);
	if (b >= 0 && port < t->cfg.nports && prio < 8)
		rp_ts_port_add(t, (size_t)b, port, prio, 1, 0);
}

/* Loops over the bins the interval spans: bounded by the pause length over
 * the bin width (one 65535-quanta pause at 1G is 34 ms: 336 bins of 100 us). */
void rp_ts_paused(struct rp_ts *t, size_t port, unsigned prio, uint64_t from_ns, uint64_t to_ns)
{
	if (port >= t->cfg.nports || prio >= 8 || to_ns <= from_ns)
		return;
	uint64_t start = t->cfg.start_ns, end = start + t->cfg.nbins * t->cfg.bin_ns;
	if (from_ns < start || to_ns > end)
		t->outside++;
	if (from_ns < start)
		from_ns = start;
	if (to_ns > end)
		to_ns = end;
	while (from_ns < to_ns) {
		uint64_t b = (from_ns - start) / t->cfg.bin_ns;
		uint64_t bin_end = start + (b + 1) * t->cfg.bin_ns;
		uint64_t upto = bin_end < to_ns ? bin_end : to_ns;
		rp_ts_port_add(t, b, port, prio, 0, upto - from_ns);
		from_ns = upto;
	}
}

static bool bin_used(const struct rp_ts *t, size_t b)
{
	const struct rp_ts_bin *bin = &t->bins[b];
	for (unsigned c = 0; c < RP_TS_COUNTERS; c++)
		if (bin->c[c])
			return true;
	if (bin->lat_count || (t->hists && t->hists[b].count))
		return true;
	if (!t->pfc)
		return b < t->cells_bins; /* sparse: below it every bin counts as used anyway */
	for (size_t i = 0; i < t->cfg.nports * 8; i++)
		if (t->pfc[b * t->cfg.nports * 8 + i] || t->paused[b * t->cfg.nports * 8 + i])
			return true;
	return false;
}

/* ---- sparse port cells: open addressing, linear probing, at most half full ---- */

static size_t cell_slot(const struct rp_ts_cell *cells, size_t cap, uint64_t key)
{
	uint64_t h = key * 0x9E3779B97F4A7C15ull;
	size_t i = (size_t)(h >> 17) & (cap - 1);
	while (cells[i].key && cells[i].key != key)
		i = (i + 1) & (cap - 1);
	return i;
}

static uint64_t cell_key(const struct rp_ts *t, size_t bin, size_t port, unsigned prio)
{
	return ((uint64_t)bin * t->cfg.nports + port) * 8 + prio + 1;
}

const struct rp_ts_cell *rp_ts_cell_find(const struct rp_ts *t, size_t bin, size_t port, unsigned prio)
{
	if (!t->cap_cells || port >= t->cfg.nports || !(t->active[port] & (1u << prio)))
		return NULL;
	size_t i = cell_slot(t->cells, t->cap_cells, cell_key(t, bin, port, prio));
	return t->cells[i].key ? &t->cells[i] : NULL;
}

static int cells_grow(struct rp_ts *t)
{
	size_t cap = t->cap_cells ? 2 * t->cap_cells : 256;
	struct rp_ts_cell *n = calloc(cap, sizeof(*n));
	if (!n)
		return -1;
	for (size_t i = 0; i < t->cap_cells; i++)
		if (t->cells[i].key)
			n[cell_slot(n, cap, t->cells[i].key)] = t->cells[i];
	free(t->cells);
	t->cells = n;
	t->cap_cells = cap;
	return 0;
}

int rp_ts_port_add(struct rp_ts *t, size_t bin, size_t port, unsigned prio, uint64_t frames, uint64_t paused_ns)
{
	if (t->pfc) {
		size_t cell = (bin * t->cfg.nports + port) * 8 + prio;
		t->pfc[cell] += frames;
		t->paused[cell] += paused_ns;
		return 0;
	}
	if (!frames && !paused_ns)
		return 0;
	if (2 * (t->ncells + 1) > t->cap_cells && cells_grow(t) != 0)
		return -1;
	uint64_t key = cell_key(t, bin, port, prio);
	struct rp_ts_cell *c = &t->cells[cell_slot(t->cells, t->cap_cells, key)];
	if (!c->key) {
		c->key = key;
		t->ncells++;
	}
	c->pfc += frames;
	c->paused += paused_ns;
	t->active[port] |= (uint8_t)(1u << prio);
	if (bin + 1 > t->cells_bins)
		t->cells_bins = bin + 1;
	return 0;
}

bool rp_ts_port_used(const struct rp_ts *t, size_t port, unsigned prio)
{
	if (!t->pfc)
		return port < t->cfg.nports && (t->active[port] & (1u << prio));
	for (size_t b = 0; b < t->cfg.nbins; b++)
		if (rp_ts_pfc_frames(t, b, port, prio) || rp_ts_paused_ns(t, b, port, prio))
			return true;
	return false;
}

size_t rp_ts_used_bins(const struct rp_ts *t)
{
	size_t n = t->cfg.nbins;
	while (n > 0 && !bin_used(t, n - 1))
		n--;
	return n;
}

void rp_ts_bin_merge(struct rp_ts_bin *y, const struct rp_ts_bin *x)
{
	for (unsigned c = 0; c < RP_TS_COUNTERS; c++)
		y->c[c] += x->c[c];
	if (!x->lat_count)
		return;
	y->lat_count += x->lat_count;
	y->lat_min = x->lat_min < y->lat_min ? x->lat_min : y->lat_min;
	y->lat_max = x->lat_max > y->lat_max ? x->lat_max : y->lat_max;
	rp_sums_merge(&y->lat_sums, &x->lat_sums);
	for (unsigned k = 0; k < RP_TS_PCTS; k++)
		y->lat_pct[k] = x->lat_pct[k] > y->lat_pct[k] ? x->lat_pct[k] : y->lat_pct[k];
}
