/* The capture tap: cheap classification and a slot copy in the producers'
 * per-packet path, pcap writing in one writer thread. See capture.h. */
#include "capture.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mempool.h>
#include <rte_prefetch.h>
#include <rte_ring.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capture_dio.h"
#include "dp.h"
#include "pcap/writer.h"
#include "report/outdir.h"

#define WRITER_BURST 64
#define PREFETCH_AHEAD 4
#define STDIO_BYTES (64u << 10)       /* pcap_dump's fwrites land here, then in a chunk */
#define WRITER_NAP_NS 20000           /* idle writer sleeps 20 us: a 64k ring lasts ms */
#define IDLE_FLUSH_NS 200000000ull    /* a quiet writer flushes every 200 ms for live readers */
#define POOL_BUDGET (64u << 20)      /* default ring: at most 64 MiB of slots */
#define SHARED_STRIPE RTE_MAX_LCORE   /* producers that are not EAL lcores */
#define MARK_EVERY_NS 10000           /* a lane's producer says its time at most every 10 us */
#define SAMPLE_DATA 0x8000u           /* slot key: a data frame the writer samples (lanes) */

/* One producer's counters: written by that lcore only, summed by readers. */
struct stripe {
	uint64_t offered, kept, filtered_out, sampled_out, dropped;
	uint64_t kind[RP_CAPK_COUNT];
	uint64_t ce;
} __rte_cache_aligned;

/* Per port and direction: which data frame this is, for 1-in-N sampling. */
struct sample_ctr {
	uint64_t n;
} __rte_cache_aligned;

/* What sits in a pool object: the frame's head and what pcap needs. */
struct slot {
	uint64_t ts_ns;
	uint32_t wire_len;
	uint16_t caplen;
	uint16_t key; /* lanes: SAMPLE_DATA | port and direction, for the writer's sampling; else 0 */
	uint8_t data[];
};

/* The writer's view of one lane while it merges (writer thread only). */
struct merge_lane {
	void *buf[WRITER_BURST];
	unsigned n, i;     /* dequeued, written */
	uint64_t last_ts;  /* the newest stamp seen: the lane's frames come in this order */
};

struct rp_capture {
	/* Read by producers on every offer. */
	unsigned snaplen;
	unsigned sample_every;
	enum rp_capture_filter filter;
	bool accepting;
	bool ordered; /* one lane of several: stamps kept non-decreasing, sampling left to the writer */
	uint64_t epoch_ns;
	struct rte_mempool *pool;
	struct rte_ring *ring;
	struct stripe stripes[RTE_MAX_LCORE + 1];
	struct sample_ctr sample[2 * RTE_MAX_ETHPORTS];
	/* A lane's own producer: the stamp of its last frame, its next mark. */
	uint64_t last_ts __rte_cache_aligned;
	uint64_t mark_next;
	/* Published by the lane's producer, read by the writer: wall ns before
	 * which this lane will offer nothing more. */
	uint64_t mark __rte_cache_aligned;

	/* Lanes (capture.h rp_capture_lane): lane 0 owns the file and the writer;
	 * the others point at it. Off the mark's line, which its producer writes. */
	struct rp_capture *owner __rte_cache_aligned;
	unsigned nlanes;
	struct rp_capture *lanes[RP_CAPTURE_MAX_LANES];
	struct merge_lane *merge; /* [nlanes], the writer's */
	uint64_t wsample_n[2 * RTE_MAX_ETHPORTS]; /* the writer's 1-in-N count (lanes) */
	unsigned wsample_every;
	uint64_t wsampled; /* data frames the writer sampled out, read by rp_capture_stats */

	/* The writer thread's. */
	bool stop;
	pthread_t writer;
	bool writer_up;
	bool epoch_fixed; /* given in the cfg */
	struct rp_pcap_writer w; /* the files; its counters read by rp_capture_stats */
	char *stdio_buf;
	struct rp_dio dio;
	bool dirty;
	uint64_t last_flush_ns;
	uint64_t write_errors; /* read by rp_capture_stats */
};

/* ---- counters: single-writer stripes need no locked instruction ---- */

static inline uint64_t load(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static inline void bump(uint64_t *p, bool shared)
{
	if (shared)
		__atomic_fetch_add(p, 1, __ATOMIC_RELAXED);
	else
		__atomic_store_n(p, load(p) + 1, __ATOMIC_RELAXED);
}

static inline void set(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

/* ---- the per-packet path ---- */

/* Deterministic: the 1st, (N+1)th, (2N+1)th... data frame of a port and
 * direction is kept. The counter is shared only if lcores share a port. */
static inline bool sample_keep(struct rp_capture *c, uint16_t port, bool is_tx)
{
	if (c->sample_every <= 1)
		return true;
	struct sample_ctr *s = &c->sample[(port % RTE_MAX_ETHPORTS) * 2 + is_tx];
	return __atomic_fetch_add(&s->n, 1, __ATOMIC_RELAXED) % c->sample_every == 0;
}

static inline bool enqueue(struct rp_capture *c, uint64_t ts_ns, const uint8_t *frame, uint32_t avail,
			   uint32_t wire_len, uint16_t key)
{
	void *obj;
	if (rte_mempool_get(c->pool, &obj) != 0)
		return false;
	struct slot *s = obj;
	/* Wall time now, with the epoch of the clock that stamped ts_ns: frames
	 * offered before rp_capture_clock_restarted keep theirs. */
	s->ts_ns = c->epoch_ns + ts_ns;
	if (c->ordered) { /* the writer merges lanes that are each in time order */
		if (s->ts_ns < c->last_ts)
			s->ts_ns = c->last_ts;
		c->last_ts = s->ts_ns;
	}
	s->wire_len = wire_len;
	s->key = key;
	s->caplen = (uint16_t)(avail < c->snaplen ? avail : c->snaplen);
	memcpy(s->data, frame, s->caplen);
	/* The ring holds as many entries as the pool has slots: this cannot fail
	 * unless the ring was made smaller, and then the frame is still counted. */
	if (rte_ring_mp_enqueue(c->ring, obj) != 0) {
		rte_mempool_put(c->pool, obj);
		return false;
	}
	return true;
}

bool rp_capture_offer_cut(struct rp_capture *c, uint64_t ts_ns, uint16_t port, bool is_tx, const uint8_t *frame,
			  uint32_t avail, uint32_t wire_len)
{
	unsigned lc = rte_lcore_id();
	bool shared = lc >= RTE_MAX_LCORE;
	struct stripe *st = &c->stripes[shared ? SHARED_STRIPE : lc];
	if (avail > wire_len)
		wire_len = avail;
	bump(&st->offered, shared);
	struct rp_pcap_cls k = rp_pcap_classify(frame, avail);
	bump(&st->kind[k.kind], shared);
	if (k.ce)
		bump(&st->ce, shared);
	bool control = rp_pcap_is_control(k);
	if (!rp_pcap_wanted(c->filter, k, control)) {
		bump(&st->filtered_out, shared);
		return false;
	}
	if (!control && !sample_keep(c, port, is_tx)) {
		bump(&st->sampled_out, shared);
		return false;
	}
	uint16_t key = c->ordered && !control ? (uint16_t)(SAMPLE_DATA | ((port % RTE_MAX_ETHPORTS) * 2 + is_tx)) : 0;
	if (!__atomic_load_n(&c->accepting, __ATOMIC_RELAXED) || !enqueue(c, ts_ns, frame, avail, wire_len, key)) {
		bump(&st->dropped, shared);
		return false;
	}
	bump(&st->kept, shared);
	return true;
}

bool rp_capture_offer(struct rp_capture *c, uint64_t ts_ns, uint16_t port, bool is_tx, const uint8_t *frame,
		      uint32_t wire_len)
{
	return rp_capture_offer_cut(c, ts_ns, port, is_tx, frame, wire_len, wire_len);
}

/* ---- files: lib/pcap's writer over the O_DIRECT stream ---- */

static uint64_t mono_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* The writer's stream under each file: O_DIRECT chunks, a big stdio buffer,
 * no lock per fwrite (only the writer thread touches it). */
static FILE *dio_open(void *arg, const char *name)
{
	struct rp_capture *c = arg;
	FILE *f = rp_dio_fopen(&c->dio, name);
	if (f) {
		setvbuf(f, c->stdio_buf, _IOFBF, STDIO_BYTES);
		__fsetlocking(f, FSETLOCKING_BYCALLER);
	}
	return f;
}

static void write_slot(struct rp_capture *c, const struct slot *s)
{
	/* Lanes: the 1st, (N+1)th, ... data frame of a port and direction in the
	 * file's (merged) order, as one producer would have sampled them. */
	if ((s->key & SAMPLE_DATA) && c->wsample_every > 1 &&
	    c->wsample_n[s->key & ~SAMPLE_DATA]++ % c->wsample_every != 0) {
		set(&c->wsampled, c->wsampled + 1);
		return;
	}
	if (rp_pcap_writer_write(&c->w, s->ts_ns, s->data, s->caplen, s->wire_len) != 0) {
		set(&c->write_errors, c->write_errors + 1);
		return;
	}
	c->dirty = true;
}

/* A quiet writer flushes now and then, so a live file can be read up to
 * its last record. */
static void idle(struct rp_capture *c)
{
	uint64_t now = mono_ns();
	if (c->dirty && c->w.dump && now - c->last_flush_ns >= IDLE_FLUSH_NS) {
		if (rp_pcap_writer_flush(&c->w) == 0 && rp_dio_sync(&c->dio) != 0)
			rp_pcap_writer_fail(&c->w, rp_dio_error(&c->dio));
		c->dirty = false;
		c->last_flush_ns = now;
	}
	struct timespec nap = {0, WRITER_NAP_NS};
	nanosleep(&nap, NULL);
}

/* Every line of the slot that holds the frame's kept bytes, up to 4. */
static inline void prefetch_slot(const struct rp_capture *c, const void *slot)
{
	size_t len = sizeof(struct slot) + c->snaplen;
	for (size_t off = 0; off < len && off < 4 * RTE_CACHE_LINE_SIZE; off += RTE_CACHE_LINE_SIZE)
		rte_prefetch0((const uint8_t *)slot + off);
}

static void *writer_main(void *arg)
{
	struct rp_capture *c = arg;
	void *burst[WRITER_BURST];
	c->last_flush_ns = mono_ns();
	for (;;) {
		/* Read stop before the ring: whatever was queued before close set
		 * it is then seen by this dequeue or a later one. */
		bool stopping = __atomic_load_n(&c->stop, __ATOMIC_ACQUIRE);
		unsigned n = rte_ring_sc_dequeue_burst(c->ring, burst, WRITER_BURST, NULL);
		if (n == 0) {
			if (stopping)
				break;
			idle(c);
			continue;
		}
		/* The slots were last written by another core: fetch ahead. */
		for (unsigned i = 0; i < n && i < PREFETCH_AHEAD; i++)
			prefetch_slot(c, burst[i]);
		for (unsigned i = 0; i < n; i++) {
			if (i + PREFETCH_AHEAD < n)
				prefetch_slot(c, burst[i + PREFETCH_AHEAD]);
			write_slot(c, burst[i]);
		}
		rte_mempool_put_bulk(c->pool, burst, n);
	}
	rp_pcap_writer_close(&c->w, false);
	return NULL;
}

/* ---- the writer of several lanes: a merge in time order ---- */

/* Refills lane k's buffer when it is used up. Its mark is read before its
 * ring: a frame queued before the mark was published is then seen. Returns
 * the lane's bound: the earliest stamp it may still bring (UINT64_MAX when
 * stopping and empty), or its head's stamp. */
static uint64_t lane_head(struct rp_capture *c, unsigned k, bool stopping, const struct slot **head)
{
	struct merge_lane *m = &c->merge[k];
	struct rp_capture *l = c->lanes[k];
	*head = NULL;
	if (m->i == m->n) {
		if (m->n)
			rte_mempool_put_bulk(l->pool, m->buf, m->n);
		m->i = m->n = 0;
		uint64_t mark = __atomic_load_n(&l->mark, __ATOMIC_ACQUIRE);
		m->n = rte_ring_sc_dequeue_burst(l->ring, m->buf, WRITER_BURST, NULL);
		if (m->n == 0) {
			if (stopping)
				return UINT64_MAX;
			return mark > m->last_ts ? mark : m->last_ts;
		}
		for (unsigned i = 0; i < m->n && i < PREFETCH_AHEAD; i++)
			prefetch_slot(c, m->buf[i]);
	}
	*head = m->buf[m->i];
	return (*head)->ts_ns;
}

/* Writes every frame no lane can still precede; the number written. */
static unsigned merge_pass(struct rp_capture *c, bool stopping)
{
	unsigned written = 0;
	for (;;) {
		const struct slot *best = NULL;
		unsigned bk = 0;
		uint64_t bound = UINT64_MAX;
		for (unsigned k = 0; k < c->nlanes; k++) {
			const struct slot *h;
			uint64_t t = lane_head(c, k, stopping, &h);
			if (!h) {
				bound = t < bound ? t : bound;
			} else if (!best || h->ts_ns < best->ts_ns) {
				best = h;
				bk = k;
			}
		}
		/* An empty lane may still bring a frame stamped before its bound. */
		if (!best || best->ts_ns > bound)
			return written;
		struct merge_lane *m = &c->merge[bk];
		if (m->i + PREFETCH_AHEAD < m->n)
			prefetch_slot(c, m->buf[m->i + PREFETCH_AHEAD]);
		m->last_ts = best->ts_ns;
		write_slot(c, best);
		m->i++;
		written++;
	}
}

static void *merge_main(void *arg)
{
	struct rp_capture *c = arg;
	c->last_flush_ns = mono_ns();
	for (;;) {
		/* As writer_main: stop is read before the rings. */
		bool stopping = __atomic_load_n(&c->stop, __ATOMIC_ACQUIRE);
		unsigned n = merge_pass(c, stopping);
		if (n == 0) {
			if (stopping)
				break;
			idle(c);
		}
	}
	for (unsigned k = 0; k < c->nlanes; k++) /* every lane is empty: give back the last buffers */
		if (c->merge[k].n)
			rte_mempool_put_bulk(c->lanes[k]->pool, c->merge[k].buf, c->merge[k].n);
	rp_pcap_writer_close(&c->w, false);
	return NULL;
}

/* The mark holds whoever offers next: a frame stamped before it (a reply
 * sent for a frame a delay held, stamped with its due time) gets the mark's
 * time, which is when it really goes out. */
void rp_capture_mark(struct rp_capture *c, uint64_t now_ns)
{
	if (!c->ordered)
		return;
	if (c->epoch_ns + now_ns > c->last_ts)
		c->last_ts = c->epoch_ns + now_ns;
	if (now_ns < c->mark_next)
		return;
	c->mark_next = now_ns + MARK_EVERY_NS;
	__atomic_store_n(&c->mark, c->last_ts, __ATOMIC_RELEASE);
}

struct rp_capture *rp_capture_lane(struct rp_capture *c, unsigned k)
{
	return k < c->nlanes ? c->lanes[k] : NULL;
}

/* ---- open, stats, close ---- */

/* The packet clock's epoch, the one an RX stamp on the host's time is moved by
 * (rxclock.c): such a frame is written with the stamp it came with. */
static uint64_t default_epoch(void)
{
	return rp_dp_clock_epoch_ns(NULL);
}

void rp_capture_clock_restarted(struct rp_capture *c)
{
	c = c->owner ? c->owner : c;
	if (c->epoch_fixed)
		return;
	uint64_t e = default_epoch();
	for (unsigned k = 0; k < c->nlanes; k++)
		c->lanes[k]->epoch_ns = e;
}

/* The default ring shrinks for big snaplens so its slots fit the budget. */
static unsigned ring_size(const struct rp_capture_cfg *cfg, unsigned snaplen)
{
	if (cfg->ring_size)
		return cfg->ring_size;
	unsigned fit = POOL_BUDGET / (unsigned)(sizeof(struct slot) + snaplen);
	return fit < RP_CAPTURE_RING_DEFAULT ? fit : RP_CAPTURE_RING_DEFAULT;
}

static int make_queues(struct rp_capture *c, unsigned n_slots, char *err, size_t errlen)
{
	static unsigned instance;
	char name[RTE_RING_NAMESIZE];
	unsigned id = __atomic_fetch_add(&instance, 1, __ATOMIC_RELAXED);
	snprintf(name, sizeof(name), "rpcap_pool%u", id);
	c->pool = rte_mempool_create(name, n_slots, sizeof(struct slot) + c->snaplen,
				     n_slots >= 1024 ? 256 : 0, 0, NULL, NULL, NULL, NULL, (int)rte_socket_id(), 0);
	snprintf(name, sizeof(name), "rpcap_ring%u", id);
	if (c->pool)
		c->ring = rte_ring_create(name, n_slots, (int)rte_socket_id(), RING_F_SC_DEQ | RING_F_EXACT_SZ);
	if (!c->pool || !c->ring) {
		snprintf(err, errlen, "capture: cannot allocate %u slots of %u bytes (%s); give the EAL more memory (-m)",
			 n_slots, c->snaplen, rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

static void destroy(struct rp_capture *c)
{
	rp_pcap_writer_close(&c->w, false); /* closed already when the writer thread ran */
	for (unsigned k = 1; k < c->nlanes; k++) {
		rte_ring_free(c->lanes[k]->ring);
		rte_mempool_free(c->lanes[k]->pool);
		rte_free(c->lanes[k]);
	}
	rte_ring_free(c->ring);
	rte_mempool_free(c->pool);
	rp_dio_stop(&c->dio);
	free(c->stdio_buf);
	free(c->merge);
	rte_free(c);
}

static int check_cfg(const struct rp_capture_cfg *cfg, char *err, size_t errlen)
{
	if (!cfg->path || !cfg->path[0] || strlen(cfg->path) >= PATH_MAX) {
		snprintf(err, errlen, "capture: no file name, or one too long");
		return -1;
	}
	if (cfg->snaplen > RP_CAPTURE_SNAPLEN_MAX) {
		snprintf(err, errlen, "capture: snaplen %u is over %u", cfg->snaplen, RP_CAPTURE_SNAPLEN_MAX);
		return -1;
	}
	if (cfg->lanes > RP_CAPTURE_MAX_LANES) {
		snprintf(err, errlen, "capture: %u lanes, at most %u", cfg->lanes, RP_CAPTURE_MAX_LANES);
		return -1;
	}
	if (cfg->ring_size && cfg->ring_size < 2 * (cfg->lanes ? cfg->lanes : 1)) {
		snprintf(err, errlen, "capture: ring size %u is under 2 a lane", cfg->ring_size);
		return -1;
	}
	return 0;
}

/* Lane 0 is c itself; lanes 1.. are producer ends of their own (pool, ring,
 * counters) that point at c. The slots are shared out among them. */
static int open_lanes(struct rp_capture *c, const struct rp_capture_cfg *cfg, char *err, size_t errlen)
{
	unsigned n = cfg->lanes > 1 ? cfg->lanes : 1, slots = ring_size(cfg, c->snaplen) / n;
	c->nlanes = 1;
	c->lanes[0] = c;
	if (n > 1) {
		c->merge = calloc(n, sizeof(*c->merge));
		if (!c->merge) {
			snprintf(err, errlen, "capture: out of memory");
			return -1;
		}
		c->ordered = true;
		c->wsample_every = c->sample_every;
		c->sample_every = 1;
	}
	if (make_queues(c, slots, err, errlen) != 0)
		return -1;
	for (; c->nlanes < n; c->nlanes++) {
		struct rp_capture *l = rte_zmalloc("rp_capture_lane", sizeof(*l), RTE_CACHE_LINE_SIZE);
		if (!l) {
			snprintf(err, errlen, "capture: out of memory; give the EAL more memory (-m)");
			return -1;
		}
		l->snaplen = c->snaplen;
		l->sample_every = 1;
		l->filter = c->filter;
		l->ordered = true;
		l->epoch_ns = c->epoch_ns;
		l->owner = c;
		c->lanes[c->nlanes] = l;
		if (make_queues(l, slots, err, errlen) != 0) {
			c->nlanes++; /* destroy frees it */
			return -1;
		}
	}
	return 0;
}

struct rp_capture *rp_capture_open(const struct rp_capture_cfg *cfg, char *err, size_t errlen)
{
	if (check_cfg(cfg, err, errlen) != 0 || rp_outdir_mkparents(cfg->path, err, errlen) != 0)
		return NULL;
	/* rte_zmalloc: the stripes must really be cache-line aligned. */
	struct rp_capture *c = rte_zmalloc("rp_capture", sizeof(*c), RTE_CACHE_LINE_SIZE);
	if (!c) {
		snprintf(err, errlen, "capture: out of memory; give the EAL more memory (-m)");
		return NULL;
	}
	c->snaplen = cfg->snaplen ? cfg->snaplen : RP_CAPTURE_SNAPLEN_DEFAULT;
	c->sample_every = cfg->sample_every ? cfg->sample_every : 1;
	c->filter = cfg->filter;
	c->epoch_ns = cfg->epoch_ns ? cfg->epoch_ns : default_epoch();
	c->epoch_fixed = cfg->epoch_ns != 0;
	c->stdio_buf = malloc(STDIO_BYTES);
	int rc = c->stdio_buf ? rp_dio_start(&c->dio) : ENOMEM;
	if (rc != 0) {
		snprintf(err, errlen, "capture: cannot set up the file writer: %s", strerror(rc));
		destroy(c);
		return NULL;
	}
	struct rp_pcap_writer_cfg wcfg = {.path = cfg->path, .snaplen = c->snaplen, .rotate_bytes = cfg->rotate_bytes,
					  .rotate_files = cfg->rotate_files, .fopen = dio_open, .fopen_arg = c};
	if (open_lanes(c, cfg, err, errlen) != 0 || rp_pcap_writer_open(&c->w, &wcfg, err, errlen) != 0) {
		destroy(c);
		return NULL;
	}
	rc = rte_ctrl_thread_create(&c->writer, "rp-capture", NULL, c->nlanes > 1 ? merge_main : writer_main, c);
	if (rc != 0) {
		snprintf(err, errlen, "capture: cannot start the writer thread: %s", strerror(rc));
		destroy(c);
		return NULL;
	}
	c->writer_up = true;
	for (unsigned k = 0; k < c->nlanes; k++)
		__atomic_store_n(&c->lanes[k]->accepting, true, __ATOMIC_RELEASE);
	return c;
}

static void add_lane(const struct rp_capture *c, struct rp_capture_stats *s)
{
	for (unsigned i = 0; i <= SHARED_STRIPE; i++) {
		const struct stripe *st = &c->stripes[i];
		s->offered += load(&st->offered);
		s->kept += load(&st->kept);
		s->filtered_out += load(&st->filtered_out);
		s->sampled_out += load(&st->sampled_out);
		s->dropped += load(&st->dropped);
		for (unsigned k = 0; k < RP_CAPK_COUNT; k++)
			s->kind[k] += load(&st->kind[k]);
		s->ce += load(&st->ce);
	}
}

void rp_capture_stats(const struct rp_capture *c, struct rp_capture_stats *s)
{
	c = c->owner ? c->owner : c;
	memset(s, 0, sizeof(*s));
	/* The writer's count first: every frame it sampled out was kept before. */
	uint64_t wsampled = load(&c->wsampled);
	for (unsigned k = 0; k < c->nlanes; k++)
		add_lane(c->lanes[k], s);
	s->kept -= wsampled;
	s->sampled_out += wsampled;
	s->written = load(&c->w.written);
	s->write_errors = load(&c->write_errors) + load(&c->w.lost); /* kept = written + write_errors */
	s->bytes = load(&c->w.bytes);
	s->files = load(&c->w.files);
	s->first_file = load(&c->w.first_file);
}


int rp_capture_close(struct rp_capture *c, struct rp_capture_stats *final, char *err, size_t errlen)
{
	if (!c)
		return 0;
	c = c->owner ? c->owner : c;
	for (unsigned k = 0; k < c->nlanes; k++)
		__atomic_store_n(&c->lanes[k]->accepting, false, __ATOMIC_RELEASE);
	__atomic_store_n(&c->stop, true, __ATOMIC_RELEASE);
	if (c->writer_up)
		pthread_join(c->writer, NULL);
	if (final)
		rp_capture_stats(c, final);
	int rc = 0;
	if (c->w.failed) {
		snprintf(err, errlen, c->w.failed_open ? "cannot write %s: %s" : "writing %s failed: %s", c->w.error_file,
			 strerror(c->w.error));
		rc = -1;
	}
	destroy(c);
	return rc;
}
