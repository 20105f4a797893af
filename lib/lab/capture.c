#include "capture.h"

#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "dp/capture_keep.h"

struct rp_lab_cap {
	pcap_t *dead;
	pcap_dumper_t *d;
	char dir[4096];
	char name[128];
	unsigned snaplen;
	uint64_t rotate_bytes;
	uint64_t file_bytes; /* in the open file, its header included */
	char path[4300];     /* the open file's */
	unsigned nfiles;
	uint64_t frames;     /* every file's; file_frames of them in the open one */
	uint64_t file_frames;
	struct rp_lab_cap_budget *budget;
};

void rp_lab_cap_name(const char *name, bool rotating, unsigned k, char *out, size_t len)
{
	if (rotating)
		snprintf(out, len, "capture-%s-%04u.pcap", name, k);
	else
		snprintf(out, len, "capture-%s.pcap", name);
}

/* The first failed write stops every capture: one reason, one instant. */
static void fail(struct rp_lab_cap *c, uint64_t ts_ns, int e)
{
	struct rp_lab_cap_budget *b = c->budget;
	if (b->failed)
		return;
	b->failed = b->stopped = true;
	b->stopped_ns = ts_ns;
	snprintf(b->error, sizeof(b->error), "cannot write %s: %s", c->path, strerror(e ? e : EIO));
}

/* Closes the open file; after a failed write, cuts it back to whole records. */
static void close_file(struct rp_lab_cap *c, uint64_t ts_ns)
{
	if (!c->d)
		return;
	FILE *f = pcap_dump_file(c->d);
	errno = 0;
	int bad = pcap_dump_flush(c->d) != 0 || ferror(f);
	int e = errno;
	pcap_dump_close(c->d);
	c->d = NULL;
	if (bad)
		fail(c, ts_ns, e);
	if (!c->budget->failed)
		return;
	uint64_t recs = 0, bytes = 0;
	/* not a regular file (/dev/full): none of it counts; not even a whole header: removed */
	if (rp_capture_keep_whole(c->path, &recs, &bytes) == 0 && bytes == 0)
		c->nfiles--;
	c->frames -= c->file_frames - (recs < c->file_frames ? recs : c->file_frames);
	c->budget->used -= c->file_bytes - (bytes < c->file_bytes ? bytes : c->file_bytes);
	c->file_frames = recs;
	c->file_bytes = bytes;
}

static int open_next(struct rp_lab_cap *c, uint64_t ts_ns)
{
	char file[160];
	close_file(c, ts_ns);
	if (c->budget->failed)
		return -1;
	rp_lab_cap_name(c->name, c->rotate_bytes != 0, c->nfiles + 1, file, sizeof(file));
	snprintf(c->path, sizeof(c->path), "%s/%s", c->dir, file);
	errno = 0;
	if (!(c->d = pcap_dump_open(c->dead, c->path))) {
		fail(c, ts_ns, errno);
		return -1;
	}
	c->nfiles++;
	c->file_bytes = RP_LAB_CAP_FILE_HDR;
	c->file_frames = 0;
	c->budget->used += RP_LAB_CAP_FILE_HDR;
	return 0;
}

uint64_t rp_lab_cap_room(const char *dir, uint64_t reserve, unsigned files)
{
	struct statvfs v;
	if (statvfs(dir, &v) != 0)
		return UINT64_MAX;
	uint64_t avail = (uint64_t)v.f_bavail * v.f_frsize, keep = reserve + (uint64_t)files * v.f_frsize;
	return avail > keep ? avail - keep : 0;
}

struct rp_lab_cap *rp_lab_cap_open(const char *dir, const char *name, unsigned snaplen, uint64_t rotate_bytes,
				   struct rp_lab_cap_budget *budget, char *err, size_t errlen)
{
	struct rp_lab_cap *c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	snprintf(c->dir, sizeof(c->dir), "%s", dir);
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->snaplen = snaplen;
	c->rotate_bytes = rotate_bytes;
	c->budget = budget;
	c->dead = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, (int)c->snaplen, PCAP_TSTAMP_PRECISION_NANO);
	if (!c->dead) {
		snprintf(err, errlen, "out of memory");
		free(c);
		return NULL;
	}
	if (open_next(c, 0)) { /* a directory nobody can write to: the run cannot capture at all */
		snprintf(err, errlen, "%s", budget->error);
		pcap_close(c->dead);
		free(c);
		return NULL;
	}
	return c;
}

int rp_lab_cap_write(struct rp_lab_cap *c, uint64_t ts_ns, const uint8_t *buf, size_t len, char *err, size_t errlen)
{
	struct rp_lab_cap_budget *b = c->budget;
	if (b->stopped)
		return 0;
	uint32_t caplen = (uint32_t)(len < c->snaplen ? len : c->snaplen);
	uint64_t rec = RP_LAB_CAP_REC_HDR + caplen;
	bool rotate = c->rotate_bytes && c->file_bytes > RP_LAB_CAP_FILE_HDR && c->file_bytes + rec > c->rotate_bytes;
	uint64_t need = rec + (rotate ? RP_LAB_CAP_FILE_HDR : 0);
	if (b->max_bytes && b->used + need > b->max_bytes) {
		b->stopped = true;
		b->stopped_ns = ts_ns;
		return 0;
	}
	(void)err;
	(void)errlen;
	if (rotate && open_next(c, ts_ns))
		return 0;
	struct pcap_pkthdr h;
	h.ts.tv_sec = (time_t)(ts_ns / 1000000000ull);
	h.ts.tv_usec = (suseconds_t)(ts_ns % 1000000000ull); /* nanoseconds with NANO precision */
	h.len = (bpf_u_int32)len;
	h.caplen = caplen;
	errno = 0;
	pcap_dump((u_char *)c->d, &h, buf);
	c->file_bytes += rec;
	b->used += rec;
	c->frames++;
	c->file_frames++;
	if (ferror(pcap_dump_file(c->d))) /* the stream could not write its buffer out: the disk is full */
		fail(c, ts_ns, errno);
	return 0;
}

uint64_t rp_lab_cap_frames(const struct rp_lab_cap *c)
{
	return c->frames;
}

unsigned rp_lab_cap_nfiles(const struct rp_lab_cap *c)
{
	return c->nfiles;
}

void rp_lab_cap_close(struct rp_lab_cap *c, uint64_t end_ns)
{
	if (c)
		close_file(c, end_ns);
}

void rp_lab_cap_free(struct rp_lab_cap *c)
{
	if (!c)
		return;
	if (c->d)
		pcap_dump_close(c->d);
	pcap_close(c->dead);
	free(c);
}
