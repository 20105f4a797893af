/* What a capture file holds after a failed write (a full disk, an I/O
 * error): the writer counted every record it handed to the stream, but only
 * a prefix reached the file, and the last record in it may be cut. Pure C,
 * no DPDK: the writer (writer.h) calls it on the closed file. */
#ifndef RP_PCAP_KEEP_H
#define RP_PCAP_KEEP_H

#include <stdint.h>

/* Cuts the regular file at name back to its last whole pcap record (the
 * file header and records as the writer wrote them, host byte order), or
 * removes it when not even the 24-byte file header is whole: what stays is
 * a valid pcap. *records and *bytes (file header included) get what it
 * holds. 0; -1 (errno) when name is not a regular file (/dev/full) or
 * cannot be opened, with *records and *bytes 0. */
int rp_pcap_keep_whole(const char *name, uint64_t *records, uint64_t *bytes);

#endif
