/* A capture's file names and rotation (capture.h "File names"): pure C, no
 * DPDK, no I/O. `capture` and `run --capture` number rotated files with it,
 * `switch --capture` names one file per port with it.
 *
 *   rp_capture_name_tag("dir/out.pcap", "-p0")   -> dir/out-p0.pcap
 *   rp_capture_name_tag("out", "-0001")          -> out-0001
 *   rp_capture_name_tag("dir.d/.hidden", "-p1")  -> dir.d/.hidden-p1
 *
 * A dot that starts the file name or sits in a directory name is not an
 * extension. */
#ifndef RP_DP_CAPTURE_FILES_H
#define RP_DP_CAPTURE_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RP_PCAP_FILE_HDR 24u /* pcap file header */
#define RP_PCAP_REC_HDR 16u  /* pcap record header */

/* path with tag inserted before its extension, into buf (n bytes, cut to fit). */
void rp_capture_name_tag(const char *path, const char *tag, char *buf, size_t n);

/* The writer's place in a rotation: rotate_bytes 0 is one file for good. */
struct rp_capture_rotation {
	uint64_t rotate_bytes; /* start a new file before one would exceed this */
	unsigned rotate_files; /* keep the newest N; 0: all */
	uint64_t file_no;      /* the file being written, from 1 */
	uint64_t file_bytes;   /* its bytes, pcap header included */
	uint64_t file_records;
};

/* A record of rec_bytes (header included) must go to a new file first: the
 * current one holds a record and would pass rotate_bytes. */
bool rp_capture_rotation_due(const struct rp_capture_rotation *r, uint64_t rec_bytes);
/* File k was opened (its pcap header written). Returns the file number that
 * falls out of the rotate_files window and is to be deleted, else 0. */
uint64_t rp_capture_rotation_opened(struct rp_capture_rotation *r, uint64_t k);
/* A record of rec_bytes went to the current file. */
void rp_capture_rotation_wrote(struct rp_capture_rotation *r, uint64_t rec_bytes);

#endif
