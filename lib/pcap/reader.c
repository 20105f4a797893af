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

static int open_pass(struct rp_pcap_reader *r, char *err, size_t errlen)
{
	char perr[PCAP_ERRBUF_SIZE] = "";
	r->frames = 0;
	r->truncated = false;
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
	if (r->pc)
		pcap_close(r->pc);
	r->pc = NULL;
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}
