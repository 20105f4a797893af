/* A host's wire as a nanosecond pcap, stamped with virtual time (epoch 0):
 * the same run writes the same bytes. lib/pcap's writer (pcap/writer.h)
 * writes and rotates; this adds the lab's names and its shared budget.
 *
 * Files: DIR/capture-HOST.pcap; with rotate_bytes, DIR/capture-HOST-0001.pcap,
 * -0002, ... each started before the one before would pass rotate_bytes
 * (pcap/names.h, pcap/rotation.h).
 * Every host's files share one budget (struct rp_lab_cap_budget): the record
 * that would take them past max_bytes is not written, and from then on no
 * host's capture writes anything (every file stays whole, so all captures
 * end at the same virtual instant). */
#ifndef RP_LAB_CAPTURE_H
#define RP_LAB_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rp_lab_cap_budget {
	uint64_t max_bytes;  /* every file of every host together; 0: no limit */
	uint64_t used;       /* bytes written so far, headers included (after the close: kept) */
	bool stopped;        /* the budget ran out, or a write failed */
	uint64_t stopped_ns; /* at this virtual time (valid when stopped) */
	/* A write failed (a full disk, an I/O error): every capture stopped
	 * there, and each file is cut back to its last whole record when it
	 * closes (pcap/keep.h), so what is left are valid pcaps. */
	bool failed;
	char error[4400];    /* "cannot write DIR/capture-h0.pcap: No space left on device" */
};

struct rp_lab_cap;

/* dir/capture-NAME.pcap (or -0001.pcap with rotate_bytes). snaplen >= 64.
 * The budget is borrowed and shared. NULL with a reason. */
struct rp_lab_cap *rp_lab_cap_open(const char *dir, const char *name, unsigned snaplen, uint64_t rotate_bytes,
				   struct rp_lab_cap_budget *budget, char *err, size_t errlen);
/* 0, or -1 with a reason (out of memory). A file that cannot be written
 * (or opened on rotation) is no error: it stops every capture (the budget's
 * failed and error say why). */
int rp_lab_cap_write(struct rp_lab_cap *c, uint64_t ts_ns, const uint8_t *buf, size_t len, char *err, size_t errlen);
uint64_t rp_lab_cap_frames(const struct rp_lab_cap *c);
unsigned rp_lab_cap_nfiles(const struct rp_lab_cap *c);
/* The name (without dir) of host NAME's file k, 1-based, with or without rotation. */
void rp_lab_cap_name(const char *name, bool rotating, unsigned k, char *out, size_t len);
/* The same for a switch port's mirror (kind "mirror", name "SWITCH-PORT":
 * DIR/mirror-SWITCH-PORT.pcap), or any kind-NAME.pcap: one writer, one budget. */
struct rp_lab_cap *rp_lab_cap_open_kind(const char *dir, const char *kind, const char *name, unsigned snaplen,
					uint64_t rotate_bytes, struct rp_lab_cap_budget *budget, char *err, size_t errlen);
void rp_lab_cap_file(const char *kind, const char *name, bool rotating, unsigned k, char *out, size_t len);
/* Flushes and closes the open file; a flush that fails is a failed write at
 * end_ns (the budget says so). After a failed write the file is cut back to
 * its last whole record (removed when not even its header is whole), and
 * the frames and bytes counted are what it holds. */
void rp_lab_cap_close(struct rp_lab_cap *c, uint64_t end_ns);
/* Frees it (closing a file still open without a word). */
void rp_lab_cap_free(struct rp_lab_cap *c);
/* Bytes the captures in dir may take: what its file system has free, less
 * reserve (the run's own result files) and a page per capture file; UINT64_MAX
 * when it cannot tell. */
uint64_t rp_lab_cap_room(const char *dir, uint64_t reserve, unsigned files);

#endif
