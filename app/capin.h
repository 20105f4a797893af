/* Reading a capture on a command line (decode, analyze): lib/pcap's reader
 * (pcap/reader.h) with its errors as one line on stderr and exit 2, and the
 * truncation line said once whatever the passes. */
#ifndef RP_APP_CAPIN_H
#define RP_APP_CAPIN_H

#include <stdbool.h>
#include <stdint.h>

#include "pcap/reader.h"

struct rp_capin {
	const char *cmd; /* for messages: "decode", "analyze" */
	struct rp_pcap_reader r;
	bool truncated; /* this pass ended inside a record (a file cut short) */
	bool warned;    /* the truncation line was printed (once, whatever the passes) */
	/* Progress of a long read (rp_capin_pass): the file's size, the pass's
	 * name and wall-clock start, the last line's time. */
	uint64_t size;
	const char *pass;
	double pass_t0, last;
	uint64_t frames;
};

/* rp_pcap_reader_open's; RP_EXIT_USAGE after one line on stderr. */
int rp_capin_open(struct rp_capin *c, const char *cmd, const char *path, bool rewindable);
/* rp_pcap_reader_next's: 1, 0 (a cut capture: one line on stderr the first
 * time), or RP_EXIT_USAGE after one line. */
int rp_capin_next(struct rp_capin *c, struct pcap_pkthdr **h, const u_char **data);
/* Names the pass about to read the capture ("pass 2 of 2: accounting"):
 * while it takes more than a second, a line on stderr every second with
 * the share of the file read and the time left ("analyze: pass 2 of 2:
 * accounting: 45% of 1100.0 MB, 6.0 s left"). NULL: no lines. */
void rp_capin_pass(struct rp_capin *c, const char *pass);
/* Back to the first frame: 0, or RP_EXIT_USAGE after one line. */
int rp_capin_rewind(struct rp_capin *c);
void rp_capin_close(struct rp_capin *c);

static inline uint64_t rp_capin_ts_ns(const struct pcap_pkthdr *h)
{
	return rp_pcap_ts_ns(h);
}

#endif
