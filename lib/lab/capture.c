#include "capture.h"

#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rp_lab_cap {
	pcap_t *dead;
	pcap_dumper_t *d;
	char dir[4096];
	char name[128];
	unsigned snaplen;
	uint64_t rotate_bytes;
	uint64_t file_bytes; /* in the open file, its header included */
	unsigned nfiles;
	uint64_t frames;
	struct rp_lab_cap_budget *budget;
};

void rp_lab_cap_name(const char *name, bool rotating, unsigned k, char *out, size_t len)
{
	if (rotating)
		snprintf(out, len, "capture-%s-%04u.pcap", name, k);
	else
		snprintf(out, len, "capture-%s.pcap", name);
}

static int open_next(struct rp_lab_cap *c, char *err, size_t errlen)
{
	char file[160], path[4300];
	if (c->d) {
		int bad = pcap_dump_flush(c->d);
		pcap_dump_close(c->d);
		c->d = NULL;
		if (bad) {
			snprintf(err, errlen, "cannot write a capture of %s: %s", c->name, pcap_geterr(c->dead));
			return -1;
		}
	}
	rp_lab_cap_name(c->name, c->rotate_bytes != 0, c->nfiles + 1, file, sizeof(file));
	snprintf(path, sizeof(path), "%s/%s", c->dir, file);
	if (!(c->d = pcap_dump_open(c->dead, path))) {
		snprintf(err, errlen, "cannot write %s: %s", path, pcap_geterr(c->dead));
		return -1;
	}
	c->nfiles++;
	c->file_bytes = RP_LAB_CAP_FILE_HDR;
	c->budget->used += RP_LAB_CAP_FILE_HDR;
	return 0;
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
	if (open_next(c, err, errlen)) {
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
	if (rotate && open_next(c, err, errlen))
		return -1;
	struct pcap_pkthdr h;
	h.ts.tv_sec = (time_t)(ts_ns / 1000000000ull);
	h.ts.tv_usec = (suseconds_t)(ts_ns % 1000000000ull); /* nanoseconds with NANO precision */
	h.len = (bpf_u_int32)len;
	h.caplen = caplen;
	pcap_dump((u_char *)c->d, &h, buf);
	c->file_bytes += rec;
	b->used += rec;
	c->frames++;
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

int rp_lab_cap_close(struct rp_lab_cap *c, char *err, size_t errlen)
{
	int rc = 0;
	if (!c)
		return 0;
	if (c->d && pcap_dump_flush(c->d) != 0) {
		snprintf(err, errlen, "cannot flush a capture: %s", pcap_geterr(c->dead));
		rc = -1;
	}
	if (c->d)
		pcap_dump_close(c->d);
	pcap_close(c->dead);
	free(c);
	return rc;
}
