/* The capture tap: cheap classification and a slot copy in the producers'
 * per-packet path, pcap writing in one writer thread. See capture.h. */
#include "capture.h"

#include <errno.h>
#include <limits.h>
#include <pcap/pcap.h>
#include <pthread.h>
#include <stdarg.h>
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

#include "capture_classify.h"
#include "capture_dio.h"
#include "capture_files.h"
#include "dp.h"
#include "report/outdir.h"

#define WRITER_BURST 64
#define PREFETCH_AHEAD 4
#define STDIO_BYTES (64u << 10)       /* pcap_dump's fwrites land here, then in a chunk */
#define WRITER_NAP_NS 20000           /* idle writer sleeps 20 us: a 64k ring lasts ms */
#define IDLE_FLUSH_NS 200000000ull    /* a quiet writer flushes every 200 ms for live readers */
#define POOL_BUDGET (64u << 20)      /* default ring: at most 64 MiB of slots */
#define SHARED_STRIPE RTE_MAX_LCORE   /* producers that are not EAL lcores */

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
	uint32_t caplen;
	uint8_t data[];
};

struct rp_capture {
	/* Read by producers on every offer. */
	unsigned snaplen;
	unsigned sample_every;
	enum rp_capture_filter filter;
	bool accepting;
	struct rte_mempool *pool;
	struct rte_ring *ring;
	struct stripe stripes[RTE_MAX_LCORE + 1];
	struct sample_ctr sample[2 * RTE_MAX_ETHPORTS];

	/* The writer's. */
	bool stop;
	pthread_t writer;
	bool writer_up;
	uint64_t epoch_ns;
	bool epoch_fixed; /* given in the cfg */
	struct rp_capture_cfg cfg; /* cfg.path points at path */
	char path[PATH_MAX];
	pcap_t *dead;
	FILE *fp;
	pcap_dumper_t *dump;
	char *stdio_buf;
	struct rp_dio dio;
	struct rp_capture_rotation rot;
	bool dirty;
	uint64_t last_flush_ns;
	bool failed;
	char werr[RP_DP_ERRLEN];
	/* Writer-owned counters, read by rp_capture_stats. */
	uint64_t written, write_errors, bytes, files, first_file;
};

static const char *const kind_names[RP_CAPK_COUNT] = {
	[RP_CAPK_ROCE] = "roce", [RP_CAPK_CNP] = "cnp",     [RP_CAPK_NAK] = "nak",
	[RP_CAPK_PFC] = "pfc",   [RP_CAPK_PAUSE] = "pause", [RP_CAPK_OTHER] = "other",
};

const char *rp_capture_kind_name(enum rp_capture_kind k)
{
	return (unsigned)k < RP_CAPK_COUNT ? kind_names[k] : "?";
}

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

static inline bool is_control(struct cls k)
{
	return k.ce || k.neigh || k.kind == RP_CAPK_CNP || k.kind == RP_CAPK_NAK || k.kind == RP_CAPK_PFC ||
	       k.kind == RP_CAPK_PAUSE;
}

static inline bool wanted(enum rp_capture_filter f, struct cls k, bool control)
{
	switch (f) {
	case RP_CAPTURE_CONTROL:
		return control;
	case RP_CAPTURE_ROCE:
		return control || k.kind == RP_CAPK_ROCE;
	default:
		return true;
	}
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
			   uint32_t wire_len)
{
	void *obj;
	if (rte_mempool_get(c->pool, &obj) != 0)
		return false;
	struct slot *s = obj;
	/* Wall time now, with the epoch of the clock that stamped ts_ns: frames
	 * offered before rp_capture_clock_restarted keep theirs. */
	s->ts_ns = c->epoch_ns + ts_ns;
	s->wire_len = wire_len;
	s->caplen = avail < c->snaplen ? avail : c->snaplen;
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
	struct cls k = classify(frame, avail);
	bump(&st->kind[k.kind], shared);
	if (k.ce)
		bump(&st->ce, shared);
	bool control = is_control(k);
	if (!wanted(c->filter, k, control)) {
		bump(&st->filtered_out, shared);
		return false;
	}
	if (!control && !sample_keep(c, port, is_tx)) {
		bump(&st->sampled_out, shared);
		return false;
	}
	if (!__atomic_load_n(&c->accepting, __ATOMIC_RELAXED) || !enqueue(c, ts_ns, frame, avail, wire_len)) {
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

/* ---- files ---- */

static void file_name(const struct rp_capture *c, uint64_t k, char *buf, size_t n)
{
	rp_capture_file_name(&c->cfg, k, buf, n);
}

static uint64_t mono_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

__attribute__((format(printf, 2, 3))) static void writer_fail(struct rp_capture *c, const char *fmt, ...)
{
	if (c->failed)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->werr, sizeof(c->werr), fmt, ap);
	va_end(ap);
	c->failed = true;
}

/* ---- pcap files ---- */

static void file_failed(struct rp_capture *c, int e)
{
	char name[PATH_MAX + 32];
	file_name(c, c->rot.file_no, name, sizeof(name));
	writer_fail(c, "writing %s failed: %s", name, strerror(e ? e : EIO));
}

/* Flushes and closes the current file; a failed write is remembered. */
static void close_file(struct rp_capture *c)
{
	if (!c->dump)
		return;
	pcap_dump_close(c->dump); /* fclose: stdio's rest, then dio_cookie_close */
	if (rp_dio_error(&c->dio))
		file_failed(c, rp_dio_error(&c->dio));
	c->dump = NULL;
	c->fp = NULL;
	c->dirty = false;
}

/* Opens file number k, writes its pcap header, and deletes the file that
 * falls out of the rotate_files window. */
static int open_file(struct rp_capture *c, uint64_t k, char *err, size_t errlen)
{
	char name[PATH_MAX + 32];
	file_name(c, k, name, sizeof(name));
	c->fp = rp_dio_fopen(&c->dio, name);
	if (!c->fp) {
		snprintf(err, errlen, "cannot write %s: %s", name, strerror(errno));
		return -1;
	}
	setvbuf(c->fp, c->stdio_buf, _IOFBF, STDIO_BYTES);
	/* Only the writer thread touches the stream: no lock per fwrite. */
	__fsetlocking(c->fp, FSETLOCKING_BYCALLER);
	c->dump = pcap_dump_fopen(c->dead, c->fp);
	if (!c->dump) {
		snprintf(err, errlen, "cannot write %s: %s", name, pcap_geterr(c->dead));
		fclose(c->fp);
		c->fp = NULL;
		return -1;
	}
	uint64_t expired = rp_capture_rotation_opened(&c->rot, k);
	c->dirty = true;
	set(&c->bytes, c->bytes + RP_PCAP_FILE_HDR);
	set(&c->files, k);
	if (expired) {
		file_name(c, expired, name, sizeof(name));
		unlink(name);
		set(&c->first_file, expired + 1);
	}
	return 0;
}

static void rotate(struct rp_capture *c)
{
	char err[RP_DP_ERRLEN];
	close_file(c);
	if (open_file(c, c->rot.file_no + 1, err, sizeof(err)) != 0)
		writer_fail(c, "%s", err);
}

static void write_slot(struct rp_capture *c, const struct slot *s)
{
	uint64_t rec = RP_PCAP_REC_HDR + s->caplen;
	if (rp_capture_rotation_due(&c->rot, rec) && !c->failed)
		rotate(c);
	if (c->failed || !c->dump) {
		set(&c->write_errors, c->write_errors + 1);
		return;
	}
	uint64_t t = s->ts_ns;
	struct pcap_pkthdr h = {.caplen = s->caplen, .len = s->wire_len};
	h.ts.tv_sec = (time_t)(t / 1000000000ull);
	h.ts.tv_usec = (suseconds_t)(t % 1000000000ull); /* nanoseconds: the dumper is nano precision */
	pcap_dump((u_char *)c->dump, &h, s->data);
	rp_capture_rotation_wrote(&c->rot, rec);
	c->dirty = true;
	set(&c->written, c->written + 1);
	set(&c->bytes, c->bytes + rec);
}

/* A failed write shows in the stream's error flag; checked once per burst. */
static void check_stream(struct rp_capture *c)
{
	if (c->fp && ferror(c->fp))
		file_failed(c, rp_dio_error(&c->dio));
}

/* A quiet writer flushes now and then, so a live file can be read up to
 * its last record. */
static void idle(struct rp_capture *c)
{
	uint64_t now = mono_ns();
	if (c->dirty && c->dump && now - c->last_flush_ns >= IDLE_FLUSH_NS) {
		if (pcap_dump_flush(c->dump) != 0 || rp_dio_sync(&c->dio) != 0)
			file_failed(c, rp_dio_error(&c->dio));
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
		check_stream(c);
	}
	close_file(c);
	return NULL;
}

/* ---- open, stats, close ---- */

static uint64_t default_epoch(void)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec - rp_dp_now_ns();
}

void rp_capture_clock_restarted(struct rp_capture *c)
{
	if (!c->epoch_fixed)
		c->epoch_ns = default_epoch();
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
	if (c->dump)
		pcap_dump_close(c->dump);
	if (c->dead)
		pcap_close(c->dead);
	rte_ring_free(c->ring);
	rte_mempool_free(c->pool);
	rp_dio_stop(&c->dio);
	free(c->stdio_buf);
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
	if (cfg->ring_size && cfg->ring_size < 2) {
		snprintf(err, errlen, "capture: ring size %u is under 2", cfg->ring_size);
		return -1;
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
	c->cfg = *cfg;
	snprintf(c->path, sizeof(c->path), "%s", cfg->path);
	c->cfg.path = c->path;
	c->snaplen = cfg->snaplen ? cfg->snaplen : RP_CAPTURE_SNAPLEN_DEFAULT;
	c->sample_every = cfg->sample_every ? cfg->sample_every : 1;
	c->filter = cfg->filter;
	c->rot.rotate_bytes = cfg->rotate_bytes;
	c->rot.rotate_files = cfg->rotate_bytes ? cfg->rotate_files : 0;
	c->epoch_ns = cfg->epoch_ns ? cfg->epoch_ns : default_epoch();
	c->epoch_fixed = cfg->epoch_ns != 0;
	c->first_file = 1;
	c->stdio_buf = malloc(STDIO_BYTES);
	c->dead = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, (int)c->snaplen, PCAP_TSTAMP_PRECISION_NANO);
	int rc = c->stdio_buf && c->dead ? rp_dio_start(&c->dio) : ENOMEM;
	if (rc != 0) {
		snprintf(err, errlen, "capture: cannot set up the file writer: %s", strerror(rc));
		destroy(c);
		return NULL;
	}
	if (make_queues(c, ring_size(cfg, c->snaplen), err, errlen) != 0 ||
	    open_file(c, 1, err, errlen) != 0) {
		destroy(c);
		return NULL;
	}
	rc = rte_ctrl_thread_create(&c->writer, "rp-capture", NULL, writer_main, c);
	if (rc != 0) {
		snprintf(err, errlen, "capture: cannot start the writer thread: %s", strerror(rc));
		destroy(c);
		return NULL;
	}
	c->writer_up = true;
	__atomic_store_n(&c->accepting, true, __ATOMIC_RELEASE);
	return c;
}

void rp_capture_stats(const struct rp_capture *c, struct rp_capture_stats *s)
{
	memset(s, 0, sizeof(*s));
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
	s->written = load(&c->written);
	s->write_errors = load(&c->write_errors);
	s->bytes = load(&c->bytes);
	s->files = load(&c->files);
	s->first_file = load(&c->first_file);
}

int rp_capture_close(struct rp_capture *c, struct rp_capture_stats *final, char *err, size_t errlen)
{
	if (!c)
		return 0;
	__atomic_store_n(&c->accepting, false, __ATOMIC_RELEASE);
	__atomic_store_n(&c->stop, true, __ATOMIC_RELEASE);
	if (c->writer_up)
		pthread_join(c->writer, NULL);
	if (final)
		rp_capture_stats(c, final);
	int rc = 0;
	if (c->failed) {
		snprintf(err, errlen, "%s", c->werr);
		rc = -1;
	}
	destroy(c);
	return rc;
}
