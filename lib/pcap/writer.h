/* The one pcap writer: a capture's files (format.h: nanosecond pcap,
 * Ethernet, the header's snaplen the capture's), named and rotated by
 * names.h and rotation.h, cut back to whole records after a failed write
 * (keep.h). libpcap's dumper over a stdio stream; the stream is the
 * caller's to choose (lib/dp: a 4 MiB-chunk O_DIRECT stream; the lab:
 * fopen's). No thread, no lock: one caller at a time; the counters are
 * stored with relaxed atomics, so another thread may read them
 * (__atomic_load_n) while it writes.
 *
 * A failure (a file that cannot be created, a write the stream refused)
 * is remembered, the first one only: the writer writes nothing after it,
 * and the file it hit is cut back to its last whole record when it closes
 * (removed when not even its header is whole). What the counters say then
 * is what the files hold: a full disk once reported 20000 records written
 * where 3963 were in the file. */
#ifndef RP_PCAP_WRITER_H
#define RP_PCAP_WRITER_H

#include <limits.h>
#include <pcap/pcap.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rotation.h"

struct rp_pcap_writer_cfg {
	const char *path;      /* the file, or the name numbered files derive from (names.h) */
	unsigned snaplen;      /* records keep at most this many bytes of a frame; 1..65535 */
	uint64_t rotate_bytes; /* start a new file before one would exceed this; 0 = one file */
	unsigned rotate_files; /* keep at most N files, oldest deleted; 0 = keep all */
	/* The stream under file name, created (truncated) for writing; NULL with
	 * errno set when it cannot be. NULL: fopen(name, "wb"). */
	FILE *(*fopen)(void *arg, const char *name);
	void *fopen_arg;
};

struct rp_pcap_writer {
	char path[PATH_MAX];
	unsigned snaplen;
	FILE *(*fopen)(void *arg, const char *name);
	void *fopen_arg;
	pcap_t *dead;
	pcap_dumper_t *dump; /* the open file's; NULL when none is open */
	struct rp_pcap_rotation rot;
	/* The first failure: which file, the errno, and whether it was the
	 * file's creation (else a write to it). */
	bool failed;
	bool failed_open;
	int error;
	char error_file[PATH_MAX + 32];
	/* Counters. */
	uint64_t written;    /* records in the files (after a failed write: what they hold) */
	uint64_t lost;       /* records handed to a file a failed write cut off: not in written */
	uint64_t bytes;      /* file bytes, pcap headers included */
	uint64_t files;      /* files opened: the last one is number `files` (a file a failed
			      * write left nothing in is not counted) */
	uint64_t first_file; /* the oldest file still kept (rotate_files deletes older) */
};

/* Opens file 1 (so an unwritable path fails here): 0, or -1 with "cannot
 * write NAME: REASON" in err and nothing to close. */
int rp_pcap_writer_open(struct rp_pcap_writer *w, const struct rp_pcap_writer_cfg *cfg, char *err, size_t errlen);

/* The file bytes the next record of a frame of avail bytes takes: its
 * header and min(avail, snaplen), and a new file's header when it rotates. */
uint64_t rp_pcap_writer_need(const struct rp_pcap_writer *w, uint32_t avail);

/* One record: min(avail, snaplen) bytes of frame, wire_len its length on
 * the wire, stamped ts_ns (ns since the Unix epoch, or virtual time). A new
 * file first when the rotation says so. 0 when handed to the file; -1 when
 * the writer had failed (before, or on the rotation): not written. A write
 * the stream refuses makes the writer failed after this record. */
int rp_pcap_writer_write(struct rp_pcap_writer *w, uint64_t ts_ns, const uint8_t *frame, uint32_t avail,
			 uint32_t wire_len);

/* Hands the stream's buffer to its file (stdio's fflush, for live
 * readers): 0, or -1 when that failed (the writer is failed). */
int rp_pcap_writer_flush(struct rp_pcap_writer *w);

/* The stream failed in a way only its owner saw (lib/dp's O_DIRECT sync):
 * e is its errno. The first failure is the one remembered. */
void rp_pcap_writer_fail(struct rp_pcap_writer *w, int e);

/* Closes the open file (a failed flush is a failed write) and frees the
 * writer's state. The file is cut back to its last whole record when the
 * writer failed, or when cut (another capture failed: every file ends
 * whole), and the counters then say what it holds. */
void rp_pcap_writer_close(struct rp_pcap_writer *w, bool cut);

#endif
