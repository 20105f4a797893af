/* Reading a capture for decode and analyze (see capin.h). */
#include "capin.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* Copies standard input to an unlinked temporary file; the fd, or -1 with
 * one line on stderr. */
static int spool_stdin(const char *cmd)
{
	const char *dir = getenv("TMPDIR");
	char tmpl[4096];
	snprintf(tmpl, sizeof(tmpl), "%s/roceprobe-stdin-XXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkstemp(tmpl);
	if (fd < 0) {
		rp_cli_error(cmd, "cannot keep a copy of standard input in %s: %s (set TMPDIR)", tmpl, strerror(errno));
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
			rp_cli_error(cmd, "cannot copy standard input to %s: %s (set TMPDIR)", tmpl, strerror(errno));
			close(fd);
			return -1;
		}
	}
	return fd;
}

static int open_pass(struct rp_capin *c)
{
	char err[PCAP_ERRBUF_SIZE] = "";
	c->frames = 0;
	c->truncated = false;
	if (c->fd >= 0) {
		int d = lseek(c->fd, 0, SEEK_SET) == 0 ? dup(c->fd) : -1;
		FILE *fp = d >= 0 ? fdopen(d, "rb") : NULL;
		if (!fp) {
			if (d >= 0)
				close(d);
			return rp_cli_error(c->cmd, "cannot read %s again: %s", c->name, strerror(errno));
		}
		c->pc = pcap_fopen_offline_with_tstamp_precision(fp, PCAP_TSTAMP_PRECISION_NANO, err);
		if (!c->pc)
			fclose(fp);
	} else if (strcmp(c->path, "-") == 0) {
		c->pc = pcap_fopen_offline_with_tstamp_precision(stdin, PCAP_TSTAMP_PRECISION_NANO, err);
	} else {
		c->pc = pcap_open_offline_with_tstamp_precision(c->path, PCAP_TSTAMP_PRECISION_NANO, err);
	}
	if (!c->pc) /* libpcap's message names the file already when it could not open it */
		return strstr(err, c->name) ? rp_cli_error(c->cmd, "cannot read %s", err)
					    : rp_cli_error(c->cmd, "cannot read %s: %s", c->name, err);
	int dlt = pcap_datalink(c->pc);
	if (dlt != DLT_EN10MB) {
		pcap_close(c->pc);
		c->pc = NULL;
		return rp_cli_error(c->cmd, "%s: link type %s is not Ethernet", c->name, pcap_datalink_val_to_name(dlt));
	}
	return 0;
}

int rp_capin_open(struct rp_capin *c, const char *cmd, const char *path, bool rewindable)
{
	*c = (struct rp_capin){.cmd = cmd, .path = path, .name = path, .fd = -1};
	if (strcmp(path, "-") == 0) {
		c->name = "standard input";
		struct stat st;
		if (rewindable && fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode))
			c->fd = dup(STDIN_FILENO);
		else if (rewindable && (c->fd = spool_stdin(cmd)) < 0)
			return RP_EXIT_USAGE;
	}
	int rc = open_pass(c);
	if (rc)
		rp_capin_close(c);
	return rc;
}

/* libpcap's words for a file that ends inside a record (sf-pcap.c: "truncated
 * dump file; ...", sf-pcapng.c: "truncated pcapng dump file; ..."). */
static bool is_truncation(const char *msg) { return strstr(msg, "truncated") != NULL; }

int rp_capin_next(struct rp_capin *c, struct pcap_pkthdr **h, const u_char **data)
{
	int rc = pcap_next_ex(c->pc, h, data);
	if (rc == 1) {
		c->frames++;
		return 1;
	}
	if (rc == PCAP_ERROR_BREAK)
		return 0;
	const char *msg = pcap_geterr(c->pc);
	if (!is_truncation(msg))
		return rp_cli_error(c->cmd, "%s: stopped after frame %" PRIu64 ": %s", c->name, c->frames, msg);
	c->truncated = true;
	if (!c->warned) {
		c->warned = true;
		rp_cli_error(c->cmd, "%s: the capture is truncated at frame %" PRIu64 " (%s); read the %" PRIu64
			     " whole frames before it", c->name, c->frames + 1, msg, c->frames);
	}
	return 0;
}

int rp_capin_rewind(struct rp_capin *c)
{
	if (c->fd < 0 && strcmp(c->path, "-") == 0)
		return rp_cli_error(c->cmd, "cannot read standard input twice");
	if (c->pc)
		pcap_close(c->pc);
	c->pc = NULL;
	return open_pass(c);
}

void rp_capin_close(struct rp_capin *c)
{
	if (c->pc)
		pcap_close(c->pc);
	c->pc = NULL;
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

uint64_t rp_capin_ts_ns(const struct pcap_pkthdr *h)
{
	return (uint64_t)h->ts.tv_sec * 1000000000ull + (uint64_t)h->ts.tv_usec; /* nanosecond precision */
}
