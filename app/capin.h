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
};

/* rp_pcap_reader_open's; RP_EXIT_USAGE after one line on stderr. */
int rp_capin_open(struct rp_capin *c, const char *cmd, const char *path, bool rewindable);
/* rp_pcap_reader_next's: 1, 0 (a cut capture: one line on stderr the first
 * time), or RP_EXIT_USAGE after one line. */
int rp_capin_next(struct rp_capin *c, struct pcap_pkthdr **h, const u_char **data);
/* Back to the first frame: 0, or RP_EXIT_USAGE after one line. */
int rp_capin_rewind(struct rp_capin *c);
void rp_capin_close(struct rp_capin *c);

static inline uint64_t rp_capin_ts_ns(const struct pcap_pkthdr *h)
{
	return rp_pcap_ts_ns(h);
}

#endif
