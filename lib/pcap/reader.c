/* The one capture reader. See reader.h. */
#include "reader.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Copies standard input to an unlinked temporary file; the fd, or -1 with
 * one line in err. */
static int spool_stdin(char *err, size_t errlen)
{
	const char *dir = getenv("TMPDIR");
	char tmpl[4096];
	snprintf(tmpl, sizeof(tmpl), "%s/roceprobe-stdin-XXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkstemp(tmpl);
	if (fd < 0) {
		snprintf(err, errlen, "cannot keep a copy of standard input in %s: %s (set TMPDIR)", tmpl, strerror(errno));
		return -1;
	}
	unlink(tmpl);
	static char buf[1 << 16];
	ssize_t n;
	while ((n = read(STDIN_FILENO, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		ssize_t off = 0;
		while (n > 0 && off < n) {
			ssize_t w = write(fd, buf + off, (size_t)(n - off));
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				n = -1;
				break;
			}
			off += w;
		}
		if (n < 0) {
			snprintf(err, errlen, "cannot copy standard input to %s: %s (set TMPDIR)", tmpl, strerror(errno));
			close(fd);
			return -1;
		}
	}
	return fd;
}

/* A type III session's clock: the mirror's timestamp unwrapped, anchored at
 * the capture's time of the session's first frame. */
struct rp_pcap_mirror_clock {
	bool set;
	uint64_t last;     /* the previous timestamp as read (seconds and ns with platform subheader 3) */
	uint64_t anchor;   /* the capture's time of the first frame, ns */
	int64_t since;     /* ns of the mirror's clock since the first frame */
};

#define MIRROR_SESSIONS 1024 /* a 10-bit session id */

/* The mirror's time of e's frame, or the capture's (t) when its granularity
 * does not give one. */
static uint64_t mirror_time(struct rp_pcap_reader *r, const struct rp_erspan *e, uint64_t t)
{
	uint64_t tick, wrap; /* wrap: in ticks; 0 when the time is whole */
	if (e->gra == RP_ERSPAN_GRA_100NS) {
		tick = 100;
		wrap = 1ull << 32;
	} else if (e->gra == RP_ERSPAN_GRA_1588) {
		tick = 1;
		wrap = e->has_secs ? 0 : 1000000000ull;
	} else {
		r->erspan_ts_kept++;
		return t;
	}
	if (!r->clk && !(r->clk = calloc(MIRROR_SESSIONS, sizeof(*r->clk)))) {
		r->erspan_ts_kept++;
		return t;
	}
	struct rp_pcap_mirror_clock *c = &r->clk[e->session % MIRROR_SESSIONS];
	uint64_t now = e->has_secs ? (uint64_t)e->secs * 1000000000ull + e->ts : e->ts;
	if (!c->set) {
		*c = (struct rp_pcap_mirror_clock){.set = true, .anchor = t, .last = now};
	} else {
		/* the shortest way round the wrap: frames of one session half a wrap apart or more
		 * (215 s at 100 ns, 0.5 s for 1588 without seconds) are not told apart */
		int64_t d = (int64_t)(now - c->last);
		if (wrap) {
			d = (int64_t)((now + wrap - c->last % wrap) % wrap);
			if ((uint64_t)d >= wrap / 2)
				d -= (int64_t)wrap;
		}
		c->since += d * (int64_t)tick;
		c->last = now;
	}
	r->erspan_ts_used++;
	int64_t at = (int64_t)c->anchor + c->since;
	return at > 0 ? (uint64_t)at : 0;
}

/* A mirror's copy: *h and *data become the frame it carries. */
static void decap(struct rp_pcap_reader *r, struct pcap_pkthdr **h, const u_char **data)
{
	r->encap = rp_erspan_decap(*data, (*h)->caplen, &r->erspan);
	if (!r->encap)
		return;
	const struct rp_erspan *e = &r->erspan;
	r->erspan_frames++;
	r->hdr = **h;
	r->hdr.caplen = (*h)->caplen - (bpf_u_int32)e->inner_off;
	r->hdr.len = (*h)->len > e->inner_off ? (*h)->len - (bpf_u_int32)e->inner_off : r->hdr.caplen;
	if (e->has_ts) {
		uint64_t t = mirror_time(r, e, rp_pcap_ts_ns(*h));
		r->hdr.ts.tv_sec = (time_t)(t / 1000000000ull);
		r->hdr.ts.tv_usec = (suseconds_t)(t % 1000000000ull);
	}
	*data += e->inner_off;
	*h = &r->hdr;
}

static int open_pass(struct rp_pcap_reader *r, char *err, size_t errlen)
{
	char perr[PCAP_ERRBUF_SIZE] = "";
	r->frames = 0;
	r->truncated = false;
	r->erspan_frames = r->erspan_ts_used = r->erspan_ts_kept = 0;
	if (r->clk)
		memset(r->clk, 0, MIRROR_SESSIONS * sizeof(*r->clk));
	if (r->fd >= 0) {
		int d = lseek(r->fd, 0, SEEK_SET) == 0 ? dup(r->fd) : -1;
		FILE *fp = d >= 0 ? fdopen(d, "rb") : NULL;
		if (!fp) {
			if (d >= 0)
				close(d);
			snprintf(err, errlen, "cannot read %s again: %s", r->name, strerror(errno));
			return -1;
		}
		r->pc = pcap_fopen_offline_with_tstamp_precision(fp, PCAP_TSTAMP_PRECISION_NANO, perr);
		if (!r->pc)
			fclose(fp);
	} else if (strcmp(r->path, "-") == 0) {
		r->pc = pcap_fopen_offline_with_tstamp_precision(stdin, PCAP_TSTAMP_PRECISION_NANO, perr);
	} else {
		r->pc = pcap_open_offline_with_tstamp_precision(r->path, PCAP_TSTAMP_PRECISION_NANO, perr);
	}
	if (!r->pc) { /* libpcap's message names the file already when it could not open it */
		if (strstr(perr, r->name))
			snprintf(err, errlen, "cannot read %s", perr);
		else
			snprintf(err, errlen, "cannot read %s: %s", r->name, perr);
		return -1;
	}
	int dlt = pcap_datalink(r->pc);
	if (dlt != DLT_EN10MB) {
		pcap_close(r->pc);
		r->pc = NULL;
		snprintf(err, errlen, "%s: link type %s is not Ethernet", r->name, pcap_datalink_val_to_name(dlt));
		return -1;
	}
	return 0;
}

int rp_pcap_reader_open(struct rp_pcap_reader *r, const char *path, bool rewindable, char *err, size_t errlen)
{
	*r = (struct rp_pcap_reader){.path = path, .name = path, .fd = -1};
	if (strcmp(path, "-") == 0) {
		r->name = "standard input";
		struct stat st;
		if (rewindable && fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode))
			r->fd = dup(STDIN_FILENO);
		else if (rewindable && (r->fd = spool_stdin(err, errlen)) < 0)
			return -1;
	}
	int rc = open_pass(r, err, errlen);
	if (rc)
		rp_pcap_reader_close(r);
	return rc;
}

/* libpcap's words for a file that ends inside a record (sf-pcap.c: "truncated
 * dump file; ...", sf-pcapng.c: "truncated pcapng dump file; ..."). */
static bool is_truncation(const char *msg) { return strstr(msg, "truncated") != NULL; }

int rp_pcap_reader_next(struct rp_pcap_reader *r, struct pcap_pkthdr **h, const u_char **data, char *err,
			size_t errlen)
{
	int rc = pcap_next_ex(r->pc, h, data);
	if (rc == 1) {
		r->frames++;
		decap(r, h, data);
		return 1;
	}
	if (rc == PCAP_ERROR_BREAK)
		return 0;
	const char *msg = pcap_geterr(r->pc);
	if (!is_truncation(msg)) {
		snprintf(err, errlen, "%s: stopped after frame %" PRIu64 ": %s", r->name, r->frames, msg);
		return -1;
	}
	r->truncated = true;
	snprintf(err, errlen, "%s: the capture is truncated at frame %" PRIu64 " (%s); read the %" PRIu64
		 " whole frames before it", r->name, r->frames + 1, msg, r->frames);
	return 0;
}

int rp_pcap_reader_rewind(struct rp_pcap_reader *r, char *err, size_t errlen)
{
	if (r->fd < 0 && strcmp(r->path, "-") == 0) {
		snprintf(err, errlen, "cannot read standard input twice");
		return -1;
	}
	if (r->pc)
		pcap_close(r->pc);
	r->pc = NULL;
	return open_pass(r, err, errlen);
}

void rp_pcap_reader_close(struct rp_pcap_reader *r)
{
	free(r->clk);
	r->clk = NULL;
	if (r->pc)
		pcap_close(r->pc);
	r->pc = NULL;
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}
