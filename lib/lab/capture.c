/* A host's capture in the lab. See capture.h. */
#include "capture.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "pcap/names.h"
#include "pcap/writer.h"

struct rp_lab_cap {
	struct rp_pcap_writer w;
	struct rp_lab_cap_budget *budget;
};

void rp_lab_cap_file(const char *kind, const char *name, bool rotating, unsigned k, char *out, size_t len)
{
	char path[200];
	snprintf(path, sizeof(path), "%s-%s.pcap", kind, name);
	rp_pcap_file_name(path, rotating, k, out, len);
}

void rp_lab_cap_name(const char *name, bool rotating, unsigned k, char *out, size_t len)
{
	rp_lab_cap_file("capture", name, rotating, k, out, len);
}

/* The first failed write stops every capture: one reason, one instant. */
static void fail(struct rp_lab_cap *c, uint64_t ts_ns)
{
	struct rp_lab_cap_budget *b = c->budget;
	if (b->failed || !c->w.failed)
		return;
	b->failed = b->stopped = true;
	b->stopped_ns = ts_ns;
	snprintf(b->error, sizeof(b->error), "cannot write %s: %s", c->w.error_file, strerror(c->w.error));
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
	return rp_lab_cap_open_kind(dir, "capture", name, snaplen, rotate_bytes, budget, err, errlen);
}

struct rp_lab_cap *rp_lab_cap_open_kind(const char *dir, const char *kind, const char *name, unsigned snaplen,
					uint64_t rotate_bytes, struct rp_lab_cap_budget *budget, char *err, size_t errlen)
{
	struct rp_lab_cap *c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	char file[200], path[4300];
	snprintf(file, sizeof(file), "%s-%s.pcap", kind, name);
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	c->budget = budget;
	struct rp_pcap_writer_cfg cfg = {.path = path, .snaplen = snaplen, .rotate_bytes = rotate_bytes};
	if (rp_pcap_writer_open(&c->w, &cfg, err, errlen) != 0) {
		/* a directory nobody can write to: the run cannot capture at all */
		if (c->w.failed) {
			fail(c, 0);
			snprintf(err, errlen, "%s", budget->error);
		}
		free(c);
		return NULL;
	}
	budget->used += c->w.bytes;
	return c;
}

int rp_lab_cap_write(struct rp_lab_cap *c, uint64_t ts_ns, const uint8_t *buf, size_t len, char *err, size_t errlen)
{
	struct rp_lab_cap_budget *b = c->budget;
	if (b->stopped)
		return 0;
	(void)err;
	(void)errlen;
	uint32_t avail = (uint32_t)len;
	if (b->max_bytes && b->used + rp_pcap_writer_need(&c->w, avail) > b->max_bytes) {
		b->stopped = true;
		b->stopped_ns = ts_ns;
		return 0;
	}
	uint64_t before = c->w.bytes;
	rp_pcap_writer_write(&c->w, ts_ns, buf, avail, avail);
	b->used = b->used - before + c->w.bytes;
	fail(c, ts_ns);
	return 0;
}

uint64_t rp_lab_cap_frames(const struct rp_lab_cap *c)
{
	return c->w.written;
}

unsigned rp_lab_cap_nfiles(const struct rp_lab_cap *c)
{
	return (unsigned)c->w.files;
}

void rp_lab_cap_close(struct rp_lab_cap *c, uint64_t end_ns)
{
	if (!c || !c->w.dead)
		return;
	uint64_t before = c->w.bytes;
	rp_pcap_writer_close(&c->w, c->budget->failed);
	c->budget->used = c->budget->used - before + c->w.bytes;
	fail(c, end_ns);
}

void rp_lab_cap_free(struct rp_lab_cap *c)
{
	if (!c)
		return;
	if (c->w.dead) { /* closing a file still open without a word */
		uint64_t used = c->budget->used;
		rp_pcap_writer_close(&c->w, false);
		c->budget->used = used;
	}
	free(c);
}
