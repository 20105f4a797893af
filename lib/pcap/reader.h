/* The one capture reader (decode, analyze): pcap or pcapng, Ethernet link
 * type, nanosecond timestamps; "-" is standard input. One way to open, read
 * and report a bad or truncated file for everything that reads captures;
 * errors by the err/errlen convention (app/capin.h puts them on stderr with
 * exit 2).
 *
 * A capture cut inside a record (a run killed, a disk that filled) ends
 * there: the frames before the cut are what it holds, and the reader says
 * where it was cut.
 *
 * A mirror's ERSPAN copy (type I, II or III in GRE, lib/wire/erspan.h) is
 * read as the frame it carries: *data is the mirrored frame, caplen and len
 * its own, and encap/erspan say what it came in. A type III timestamp of
 * 100 ns granularity, or IEEE 1588 (nanoseconds; seconds in platform
 * subheader 3, else taken modulo 1 s) is the frame's time: the mirror's
 * clock spaces the frames of a session, anchored to the capture's clock at
 * the session's first frame (a 32-bit timestamp wraps: 429 s at 100 ns;
 * unwrapped from one frame to the next). 100 us granularity is coarser than
 * the capture's own clock and a user-defined one has no known unit: those
 * keep the capture's time (erspan_ts_kept counts them). */
#ifndef RP_PCAP_READER_H
#define RP_PCAP_READER_H

#include <pcap/pcap.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wire/erspan.h"

struct rp_pcap_mirror_clock; /* reader.c: a type III session's clock */

struct rp_pcap_reader {
	const char *path; /* as given; "-" is standard input */
	const char *name; /* for messages: path, or "standard input" */
	pcap_t *pc;
	int fd;           /* rewindable standard input: a regular file or a spooled copy; else -1 */
	uint64_t frames;  /* frames read in this pass */
	bool truncated;   /* this pass ended inside a record (a file cut short) */
	bool encap;       /* the last frame came in ERSPAN (erspan says how) */
	struct rp_erspan erspan;
	uint64_t erspan_frames;  /* this pass: frames decapsulated */
	uint64_t erspan_ts_used; /* of those, timed by the mirror's timestamp */
	uint64_t erspan_ts_kept; /* type III whose granularity keeps the capture's time */
	struct pcap_pkthdr hdr;  /* a decapsulated frame's record */
	struct rp_pcap_mirror_clock *clk; /* per type III session, made at the first */
};

/* Opens path. With rewindable, rp_pcap_reader_rewind works even when path
 * is "-" on a pipe: standard input is first copied to an unlinked temporary
 * file (in $TMPDIR, else /tmp). 0, or -1 with one line in err (unreadable,
 * not a capture, not Ethernet) and nothing to close. */
int rp_pcap_reader_open(struct rp_pcap_reader *r, const char *path, bool rewindable, char *err, size_t errlen);

/* The next frame: 1 with *h and *data set; 0 at the end of the capture. A
 * capture cut inside a record also ends there, with r->truncated set and
 * in err the line that says where ("NAME: the capture is truncated at frame
 * N (...); read the N-1 whole frames before it"). Any other read error: -1
 * with one line in err. */
int rp_pcap_reader_next(struct rp_pcap_reader *r, struct pcap_pkthdr **h, const u_char **data, char *err,
			size_t errlen);

/* Back to the first frame (path reopened, or the standard input copy read
 * again). 0, or -1 with one line in err. */
int rp_pcap_reader_rewind(struct rp_pcap_reader *r, char *err, size_t errlen);

void rp_pcap_reader_close(struct rp_pcap_reader *r);

/* A record's time in ns (the capture is opened at nanosecond precision). */
static inline uint64_t rp_pcap_ts_ns(const struct pcap_pkthdr *h)
{
	return (uint64_t)h->ts.tv_sec * 1000000000ull + (uint64_t)h->ts.tv_usec;
}

#endif
