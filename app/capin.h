/* Reading a capture (decode, analyze): pcap or pcapng, Ethernet link type,
 * nanosecond timestamps; "-" is standard input. One way to open, read and
 * report a bad or truncated file for every command that reads captures. */
#ifndef RP_APP_CAPIN_H
#define RP_APP_CAPIN_H

#include <pcap/pcap.h>
#include <stdbool.h>
#include <stdint.h>

struct rp_capin {
	const char *cmd;  /* for messages: "decode", "analyze" */
	const char *path; /* as given; "-" is standard input */
	const char *name; /* for messages: path, or "standard input" */
	pcap_t *pc;
	int fd;           /* rewindable standard input: a regular file or a spooled copy; else -1 */
	uint64_t frames;  /* frames read in this pass */
	bool truncated;   /* this pass ended inside a record (a file cut short) */
	bool warned;      /* the truncation line was printed (once, whatever the passes) */
};

/* Opens path. With rewindable, rp_capin_rewind works even when path is "-"
 * on a pipe: standard input is first copied to an unlinked temporary file
 * (in $TMPDIR, else /tmp). Returns 0, or RP_EXIT_USAGE after one line on
 * stderr (unreadable, not a capture, not Ethernet). */
int rp_capin_open(struct rp_capin *c, const char *cmd, const char *path, bool rewindable);

/* The next frame: 1 with *h and *data set; 0 at the end of the capture. A
 * capture cut inside a record also ends there (c->truncated): the frames
 * before the cut are what it holds, and one line on stderr says where it was
 * cut ("truncated at frame N"), the first time. Any other read error: one
 * line on stderr and RP_EXIT_USAGE. */
int rp_capin_next(struct rp_capin *c, struct pcap_pkthdr **h, const u_char **data);

/* Back to the first frame (path reopened, or the standard input copy read
 * again). 0, or RP_EXIT_USAGE after one line. */
int rp_capin_rewind(struct rp_capin *c);

void rp_capin_close(struct rp_capin *c);

/* A record's time in ns (the capture is opened at nanosecond precision). */
uint64_t rp_capin_ts_ns(const struct pcap_pkthdr *h);

#endif
