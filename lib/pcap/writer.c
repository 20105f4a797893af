/* The one pcap writer. See writer.h. */
#include "writer.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "format.h"
#include "keep.h"
#include "names.h"

static inline void set(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

static void file_name(const struct rp_pcap_writer *w, uint64_t k, char *buf, size_t n)
{
	rp_pcap_file_name(w->path, w->rot.rotate_bytes != 0, k, buf, n);
}

/* The first failure, on file k. */
static void fail(struct rp_pcap_writer *w, uint64_t k, bool opening, int e)
{
	if (w->failed)
		return;
	w->failed = true;
	w->failed_open = opening;
	w->error = e ? e : EIO;
	file_name(w, k, w->error_file, sizeof(w->error_file));
}

void rp_pcap_writer_fail(struct rp_pcap_writer *w, int e)
{
	fail(w, w->rot.file_no, false, e);
}

/* After a failed write the file holds a prefix of what was handed to it: it
 * is cut back to its last whole record (or removed, headerless), and the
 * records and bytes that never reached it leave the counters. */
static void keep_whole(struct rp_pcap_writer *w)
{
	char name[PATH_MAX + 32];
	file_name(w, w->rot.file_no, name, sizeof(name));
	uint64_t recs, bytes;
	rp_pcap_keep_whole(name, &recs, &bytes); /* not a regular file: none of it counts */
	uint64_t gone = w->rot.file_records > recs ? w->rot.file_records - recs : 0;
	uint64_t gone_bytes = w->rot.file_bytes > bytes ? w->rot.file_bytes - bytes : 0;
	set(&w->written, w->written - gone);
	set(&w->lost, w->lost + gone);
	set(&w->bytes, w->bytes - gone_bytes);
	w->rot.file_records -= gone;
	w->rot.file_bytes -= gone_bytes;
	if (bytes == 0 && w->files == w->rot.file_no) /* nothing of it left: the last file is the one before */
		set(&w->files, w->rot.file_no - 1);
}

/* Flushes and closes the open file; a failure is a failed write, and the
 * file is then cut back to whole records (also when cut). */
static void close_file(struct rp_pcap_writer *w, bool cut)
{
	if (!w->dump)
		return;
	FILE *f = pcap_dump_file(w->dump);
	errno = 0;
	if (fflush(f) != 0 || ferror(f))
		fail(w, w->rot.file_no, false, errno);
	errno = 0;
	if (fclose(f) != 0) /* pcap_dump_close is this fclose, without its result */
		fail(w, w->rot.file_no, false, errno);
	w->dump = NULL;
	if (w->failed || cut)
		keep_whole(w);
}

/* Opens file number k, writes its pcap header, and deletes the file that
 * falls out of the rotate_files window. */
static int open_file(struct rp_pcap_writer *w, uint64_t k)
{
	char name[PATH_MAX + 32];
	file_name(w, k, name, sizeof(name));
	errno = 0;
	FILE *f = w->fopen ? w->fopen(w->fopen_arg, name) : fopen(name, "wb");
	if (!f) {
		fail(w, k, true, errno);
		return -1;
	}
	w->dump = pcap_dump_fopen(w->dead, f);
	if (!w->dump) {
		int e = errno;
		fclose(f);
		fail(w, k, true, e);
		return -1;
	}
	uint64_t expired = rp_pcap_rotation_opened(&w->rot, k);
	set(&w->bytes, w->bytes + RP_PCAP_FILE_HDR);
	set(&w->files, k);
	if (expired) {
		file_name(w, expired, name, sizeof(name));
		unlink(name);
		set(&w->first_file, expired + 1);
	}
	return 0;
}

int rp_pcap_writer_open(struct rp_pcap_writer *w, const struct rp_pcap_writer_cfg *cfg, char *err, size_t errlen)
{
	memset(w, 0, sizeof(*w));
	if (!cfg->path || !cfg->path[0] || strlen(cfg->path) >= sizeof(w->path)) {
		snprintf(err, errlen, "capture: no file name, or one too long");
		return -1;
	}
	snprintf(w->path, sizeof(w->path), "%s", cfg->path);
	w->snaplen = cfg->snaplen;
	w->fopen = cfg->fopen;
	w->fopen_arg = cfg->fopen_arg;
	w->rot.rotate_bytes = cfg->rotate_bytes;
	w->rot.rotate_files = cfg->rotate_bytes ? cfg->rotate_files : 0;
	w->first_file = 1;
	w->dead = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, (int)w->snaplen, PCAP_TSTAMP_PRECISION_NANO);
	if (!w->dead) {
		snprintf(err, errlen, "capture: out of memory");
		return -1;
	}
	if (open_file(w, 1) != 0) {
		snprintf(err, errlen, "cannot write %s: %s", w->error_file, strerror(w->error));
		pcap_close(w->dead);
		w->dead = NULL;
		return -1;
	}
	return 0;
}

uint64_t rp_pcap_writer_need(const struct rp_pcap_writer *w, uint32_t avail)
{
	uint64_t rec = RP_PCAP_REC_HDR + (avail < w->snaplen ? avail : w->snaplen);
	return rec + (rp_pcap_rotation_due(&w->rot, rec) ? RP_PCAP_FILE_HDR : 0);
}

int rp_pcap_writer_write(struct rp_pcap_writer *w, uint64_t ts_ns, const uint8_t *frame, uint32_t avail,
			 uint32_t wire_len)
{
	if (w->failed)
		return -1;
	uint32_t caplen = avail < w->snaplen ? avail : w->snaplen;
	uint64_t rec = RP_PCAP_REC_HDR + caplen;
	if (rp_pcap_rotation_due(&w->rot, rec)) {
		close_file(w, false);
		if (w->failed || open_file(w, w->rot.file_no + 1) != 0)
			return -1;
	}
	struct pcap_pkthdr h = {.caplen = caplen, .len = wire_len};
	h.ts.tv_sec = (time_t)(ts_ns / 1000000000ull);
	h.ts.tv_usec = (suseconds_t)(ts_ns % 1000000000ull); /* nanoseconds: the dumper is nano precision */
	errno = 0;
	pcap_dump((u_char *)w->dump, &h, frame);
	rp_pcap_rotation_wrote(&w->rot, rec);
	set(&w->written, w->written + 1);
	set(&w->bytes, w->bytes + rec);
	if (ferror_unlocked(pcap_dump_file(w->dump))) /* the stream could not write its buffer out */
		fail(w, w->rot.file_no, false, errno);
	return 0;
}

int rp_pcap_writer_flush(struct rp_pcap_writer *w)
{
	if (!w->dump)
		return w->failed ? -1 : 0;
	errno = 0;
	if (pcap_dump_flush(w->dump) != 0 || ferror_unlocked(pcap_dump_file(w->dump)))
		fail(w, w->rot.file_no, false, errno);
	return w->failed ? -1 : 0;
}

void rp_pcap_writer_close(struct rp_pcap_writer *w, bool cut)
{
	close_file(w, cut);
	if (w->dead)
		pcap_close(w->dead);
	w->dead = NULL;
}
