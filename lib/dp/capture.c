/* The capture tap: cheap classification and a slot copy in the producers'
 * per-packet path, pcap writing in one writer thread. See capture.h. */
#include "capture.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
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

#include "dp.h"
#include "report/outdir.h"
#include "wire/bth.h"
#include "wire/eth.h"
#include "wire/ext.h"
#include "wire/ipv4.h"
#include "wire/ipv6.h"
#include "wire/pfc.h"
#include "wire/udp.h"

#define WRITER_BURST 64
#define PREFETCH_AHEAD 4
#define STDIO_BYTES (64u << 10)       /* pcap_dump's fwrites land here, then in a chunk */
#define DIO_ALIGN 4096u               /* O_DIRECT: address, length and offset */
#define DIO_CHUNK (4u << 20)          /* one pwrite per 4 MiB */
#define DIO_NBUF 4                    /* chunks: one filling, the rest in flight */
#define WRITER_NAP_NS 20000           /* idle writer sleeps 20 us: a 64k ring lasts ms */
#define IDLE_FLUSH_NS 200000000ull    /* a quiet writer flushes every 200 ms for live readers */
#define POOL_BUDGET (64u << 20)      /* default ring: at most 64 MiB of slots */
#define PCAP_FILE_HDR 24u
#define PCAP_REC_HDR 16u
#define SHARED_STRIPE RTE_MAX_LCORE   /* producers that are not EAL lcores */
#define ETHERTYPE_QINQ 0x88A8
#define AETH_SYNDROME_NAK 3u          /* syndrome bits 7..5 */

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

/* The file under the pcap stream: pcap_dump writes through stdio into
 * 4 MiB chunks that a flusher thread writes with O_DIRECT, so the writer
 * thread never copies into the page cache nor waits for the disk. A tail
 * shorter than a chunk goes through a plain descriptor (idle flushes, close).
 * Where O_DIRECT is refused, the flusher uses the plain descriptor. */
struct dio {
	int fd;        /* plain */
	int fd_direct; /* O_DIRECT, or -1 */
	uint8_t *buf[DIO_NBUF];
	unsigned cur;  /* the chunk being filled */
	size_t fill;
	uint64_t off; /* file offset of buf[cur][0] */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned pending; /* chunks submitted, not yet written: cur-pending .. cur-1 */
	size_t job_len[DIO_NBUF];
	uint64_t job_off[DIO_NBUF];
	bool quit;
	int err; /* the first errno of a failed write */
	pthread_t flusher;
	bool flusher_up;
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
	uint64_t rotate_bytes;
	unsigned rotate_files;
	struct rp_capture_cfg cfg; /* cfg.path points at path */
	char path[PATH_MAX];
	pcap_t *dead;
	FILE *fp;
	pcap_dumper_t *dump;
	char *stdio_buf;
	struct dio dio;
	uint64_t file_no, file_bytes, file_records;
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

/* ---- classification by fixed offsets ---- */

struct cls {
	enum rp_capture_kind kind;
	bool ce;
	bool neigh; /* ARP, or ICMPv6 NS/NA: kept by every filter, like control frames */
};

static inline unsigned be16(const uint8_t *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

/* p points at the UDP header; len bytes of it are present. */
static inline enum rp_capture_kind classify_udp(const uint8_t *p, uint32_t len)
{
	if (len < RP_UDP_HLEN + RP_BTH_LEN || be16(p + 2) != RP_ROCEV2_UDP_PORT)
		return RP_CAPK_OTHER;
	const uint8_t *bth = p + RP_UDP_HLEN;
	if (bth[0] == RP_OP_CNP)
		return RP_CAPK_CNP;
	if (bth[0] == RP_OP_RC_ACK && len >= RP_UDP_HLEN + RP_BTH_LEN + RP_AETH_LEN &&
	    (bth[RP_BTH_LEN] >> 5) == AETH_SYNDROME_NAK)
		return RP_CAPK_NAK;
	return RP_CAPK_ROCE;
}

static inline struct cls classify_ipv4(const uint8_t *p, uint32_t len)
{
	struct cls c = {RP_CAPK_OTHER, false, false};
	if (len < RP_IPV4_HLEN || (p[0] >> 4) != 4)
		return c;
	c.ce = (p[1] & 3) == 3;
	uint32_t hlen = (p[0] & 0xFu) * 4u;
	bool first_fragment = (be16(p + 6) & 0x1FFF) == 0;
	if (hlen >= RP_IPV4_HLEN && len >= hlen && p[9] == RP_IPPROTO_UDP && first_fragment)
		c.kind = classify_udp(p + hlen, len - hlen);
	return c;
}

static inline struct cls classify_ipv6(const uint8_t *p, uint32_t len)
{
	struct cls c = {RP_CAPK_OTHER, false, false};
	if (len < RP_IPV6_HLEN || (p[0] >> 4) != 6)
		return c;
	c.ce = ((p[1] >> 4) & 3) == 3;
	c.neigh = p[6] == 58 && len > RP_IPV6_HLEN && (p[RP_IPV6_HLEN] == 135 || p[RP_IPV6_HLEN] == 136);
	if (p[6] == RP_IPPROTO_UDP)
		c.kind = classify_udp(p + RP_IPV6_HLEN, len - RP_IPV6_HLEN);
	return c;
}

static inline struct cls classify(const uint8_t *b, uint32_t len)
{
	struct cls c = {RP_CAPK_OTHER, false, false};
	uint32_t off = 12; /* the EtherType, after any VLAN tags */
	if (len < off + 2)
		return c;
	unsigned et = be16(b + off);
	while ((et == RP_ETHERTYPE_VLAN || et == ETHERTYPE_QINQ) && len >= off + 6) {
		off += RP_VLAN_HLEN;
		et = be16(b + off);
	}
	uint32_t l3 = off + 2;
	if (et == RP_ETHERTYPE_MACCTL && len >= l3 + 2) {
		unsigned op = be16(b + l3);
		c.kind = op == RP_MACCTL_OP_PFC ? RP_CAPK_PFC : op == RP_MACCTL_OP_PAUSE ? RP_CAPK_PAUSE : RP_CAPK_OTHER;
	} else if (et == 0x0806) {
		c.neigh = true;
	} else if (et == RP_ETHERTYPE_IPV4) {
		c = classify_ipv4(b + l3, len - l3);
	} else if (et == RP_ETHERTYPE_IPV6) {
		c = classify_ipv6(b + l3, len - l3);
	}
	return c;
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

/* "dir/out.pcap" -> "dir/out" + ".pcap": the length of the part before the
 * extension. A dot that starts the file name or sits in a directory name is
 * not an extension. */
static size_t base_len(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	const char *dot = strrchr(name, '.');
	return dot && dot != name ? (size_t)(dot - path) : strlen(path);
}

void rp_capture_file_name(const struct rp_capture_cfg *cfg, uint64_t k, char *buf, size_t n)
{
	if (cfg->rotate_bytes == 0) {
		snprintf(buf, n, "%s", cfg->path);
		return;
	}
	size_t b = base_len(cfg->path);
	snprintf(buf, n, "%.*s-%04" PRIu64 "%s", (int)b, cfg->path, k, cfg->path + b);
}

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

/* ---- the O_DIRECT stream ---- */

/* Set by the flusher, read by the writer between chunks. */
static int dio_err(const struct dio *d)
{
	return __atomic_load_n(&d->err, __ATOMIC_RELAXED);
}

/* pwrite all of it; O_DIRECT refused (EINVAL: alignment, file system) drops
 * to the plain descriptor for good. */
static void dio_pwrite(struct dio *d, bool direct, const uint8_t *p, size_t len, uint64_t off)
{
	while (len && !dio_err(d)) {
		bool use_direct = direct && d->fd_direct >= 0;
		ssize_t w = pwrite(use_direct ? d->fd_direct : d->fd, p, len, (off_t)off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EINVAL && use_direct) {
			close(d->fd_direct);
			d->fd_direct = -1;
			continue;
		}
		if (w <= 0) {
			__atomic_store_n(&d->err, w < 0 ? errno : EIO, __ATOMIC_RELAXED);
			return;
		}
		p += w;
		len -= (size_t)w;
		off += (uint64_t)w;
	}
}

/* Writes submitted chunks in order; the oldest pending one is cur - pending. */
static void *dio_flusher(void *arg)
{
	struct dio *d = arg;
	pthread_mutex_lock(&d->mu);
	for (;;) {
		while (!d->quit && d->pending == 0)
			pthread_cond_wait(&d->cv, &d->mu);
		if (d->pending == 0)
			break;
		unsigned i = (d->cur + DIO_NBUF - d->pending) % DIO_NBUF;
		pthread_mutex_unlock(&d->mu);
		dio_pwrite(d, true, d->buf[i], d->job_len[i], d->job_off[i]);
		pthread_mutex_lock(&d->mu);
		d->pending--;
		pthread_cond_broadcast(&d->cv);
	}
	pthread_mutex_unlock(&d->mu);
	return NULL;
}

/* Hands the full chunk to the flusher and waits for a free one: a slow disk
 * slows the writer, the ring fills, and producers count drops. */
static void dio_submit(struct dio *d)
{
	pthread_mutex_lock(&d->mu);
	d->job_len[d->cur] = d->fill;
	d->job_off[d->cur] = d->off;
	d->pending++;
	d->off += d->fill;
	d->cur = (d->cur + 1) % DIO_NBUF;
	d->fill = 0;
	pthread_cond_broadcast(&d->cv);
	while (d->pending == DIO_NBUF)
		pthread_cond_wait(&d->cv, &d->mu);
	pthread_mutex_unlock(&d->mu);
}

static void dio_drain(struct dio *d)
{
	pthread_mutex_lock(&d->mu);
	while (d->pending)
		pthread_cond_wait(&d->cv, &d->mu);
	pthread_mutex_unlock(&d->mu);
}

/* Puts everything written so far in the file. The tail stays in its chunk:
 * the chunk's O_DIRECT write later covers the same bytes again. */
static int dio_sync(struct dio *d)
{
	dio_drain(d);
	dio_pwrite(d, false, d->buf[d->cur], d->fill, d->off);
	return d->err ? -1 : 0;
}

static ssize_t dio_cookie_write(void *cookie, const char *p, size_t n)
{
	struct dio *d = cookie;
	if (dio_err(d)) {
		errno = dio_err(d);
		return -1;
	}
	for (size_t done = 0; done < n;) {
		size_t k = n - done < DIO_CHUNK - d->fill ? n - done : DIO_CHUNK - d->fill;
		memcpy(d->buf[d->cur] + d->fill, p + done, k);
		d->fill += k;
		done += k;
		if (d->fill == DIO_CHUNK)
			dio_submit(d);
	}
	return (ssize_t)n;
}

static int dio_cookie_close(void *cookie)
{
	struct dio *d = cookie;
	int rc = dio_sync(d);
	if (d->fd_direct >= 0)
		close(d->fd_direct);
	if (close(d->fd) != 0 && !d->err)
		d->err = errno;
	d->fd = d->fd_direct = -1;
	return rc == 0 && !d->err ? 0 : -1;
}

/* A stdio stream over a new file; errno set when it cannot be created. */
static FILE *dio_fopen(struct dio *d, const char *name)
{
	d->fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (d->fd < 0)
		return NULL;
	d->fd_direct = open(name, O_WRONLY | O_DIRECT | O_CLOEXEC);
	d->cur = 0;
	d->fill = 0;
	d->off = 0;
	d->err = 0;
	cookie_io_functions_t io = {.write = dio_cookie_write, .close = dio_cookie_close};
	FILE *f = fopencookie(d, "w", io);
	if (!f) {
		int e = errno;
		dio_cookie_close(d);
		errno = e;
	}
	return f;
}

static int dio_start(struct dio *d)
{
	d->fd = d->fd_direct = -1;
	for (unsigned i = 0; i < DIO_NBUF; i++)
		if (posix_memalign((void **)&d->buf[i], DIO_ALIGN, DIO_CHUNK) != 0)
			return ENOMEM;
	pthread_mutex_init(&d->mu, NULL);
	pthread_cond_init(&d->cv, NULL);
	int rc = rte_ctrl_thread_create(&d->flusher, "rp-capture-io", NULL, dio_flusher, d);
	d->flusher_up = rc == 0;
	return rc;
}

static void dio_stop(struct dio *d)
{
	if (d->flusher_up) {
		pthread_mutex_lock(&d->mu);
		d->quit = true;
		pthread_cond_broadcast(&d->cv);
		pthread_mutex_unlock(&d->mu);
		pthread_join(d->flusher, NULL);
		pthread_mutex_destroy(&d->mu);
		pthread_cond_destroy(&d->cv);
		d->flusher_up = false;
	}
	for (unsigned i = 0; i < DIO_NBUF; i++)
		free(d->buf[i]);
}

/* ---- pcap files ---- */

static void file_failed(struct rp_capture *c, int e)
{
	char name[PATH_MAX + 32];
	file_name(c, c->file_no, name, sizeof(name));
	writer_fail(c, "writing %s failed: %s", name, strerror(e ? e : EIO));
}

/* Flushes and closes the current file; a failed write is remembered. */
static void close_file(struct rp_capture *c)
{
	if (!c->dump)
		return;
	pcap_dump_close(c->dump); /* fclose: stdio's rest, then dio_cookie_close */
	if (c->dio.err)
		file_failed(c, c->dio.err);
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
	c->fp = dio_fopen(&c->dio, name);
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
	c->file_no = k;
	c->file_bytes = PCAP_FILE_HDR;
	c->file_records = 0;
	c->dirty = true;
	set(&c->bytes, c->bytes + PCAP_FILE_HDR);
	set(&c->files, k);
	if (c->rotate_files && k > c->rotate_files) {
		file_name(c, k - c->rotate_files, name, sizeof(name));
		unlink(name);
		set(&c->first_file, k - c->rotate_files + 1);
	}
	return 0;
}

static void rotate(struct rp_capture *c)
{
	char err[RP_DP_ERRLEN];
	close_file(c);
	if (open_file(c, c->file_no + 1, err, sizeof(err)) != 0)
		writer_fail(c, "%s", err);
}

static void write_slot(struct rp_capture *c, const struct slot *s)
{
	uint64_t rec = PCAP_REC_HDR + s->caplen;
	if (c->rotate_bytes && c->file_records && c->file_bytes + rec > c->rotate_bytes && !c->failed)
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
	c->file_bytes += rec;
	c->file_records++;
	c->dirty = true;
	set(&c->written, c->written + 1);
	set(&c->bytes, c->bytes + rec);
}

/* A failed write shows in the stream's error flag; checked once per burst. */
static void check_stream(struct rp_capture *c)
{
	if (c->fp && ferror(c->fp))
		file_failed(c, c->dio.err);
}

/* A quiet writer flushes now and then, so a live file can be read up to
 * its last record. */
static void idle(struct rp_capture *c)
{
	uint64_t now = mono_ns();
	if (c->dirty && c->dump && now - c->last_flush_ns >= IDLE_FLUSH_NS) {
		if (pcap_dump_flush(c->dump) != 0 || dio_sync(&c->dio) != 0)
			file_failed(c, c->dio.err);
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
	dio_stop(&c->dio);
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
	c->rotate_bytes = cfg->rotate_bytes;
	c->rotate_files = cfg->rotate_bytes ? cfg->rotate_files : 0;
	c->epoch_ns = cfg->epoch_ns ? cfg->epoch_ns : default_epoch();
	c->epoch_fixed = cfg->epoch_ns != 0;
	c->first_file = 1;
	c->stdio_buf = malloc(STDIO_BYTES);
	c->dead = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, (int)c->snaplen, PCAP_TSTAMP_PRECISION_NANO);
	int rc = c->stdio_buf && c->dead ? dio_start(&c->dio) : ENOMEM;
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
