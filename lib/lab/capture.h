/* A host's wire as a nanosecond pcap, stamped with virtual time (epoch 0):
 * the same run writes the same bytes.
 *
 * Files: DIR/capture-HOST.pcap; with rotate_bytes, DIR/capture-HOST-0001.pcap,
 * -0002, ... each started before the one before would pass rotate_bytes.
 * Every host's files share one budget (struct rp_lab_cap_budget): the record
 * that would take them past max_bytes is not written, and from then on no
 * host's capture writes anything (every file stays whole, so all captures
 * end at the same virtual instant). */
#ifndef RP_LAB_CAPTURE_H
#define RP_LAB_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RP_LAB_CAP_FILE_HDR 24u /* pcap file header */
#define RP_LAB_CAP_REC_HDR 16u  /* pcap record header */

struct rp_lab_cap_budget {
	uint64_t max_bytes;  /* every file of every host together; 0: no limit */
	uint64_t used;       /* bytes written so far, headers included */
	bool stopped;        /* the budget ran out */
	uint64_t stopped_ns; /* at this virtual time (valid when stopped) */
};

struct rp_lab_cap;

/* dir/capture-NAME.pcap (or -0001.pcap with rotate_bytes). snaplen >= 64.
 * The budget is borrowed and shared. NULL with a reason. */
struct rp_lab_cap *rp_lab_cap_open(const char *dir, const char *name, unsigned snaplen, uint64_t rotate_bytes,
				   struct rp_lab_cap_budget *budget, char *err, size_t errlen);
/* 0, or -1 with a reason (a file that cannot be opened on rotation). */
int rp_lab_cap_write(struct rp_lab_cap *c, uint64_t ts_ns, const uint8_t *buf, size_t len, char *err, size_t errlen);
uint64_t rp_lab_cap_frames(const struct rp_lab_cap *c);
unsigned rp_lab_cap_nfiles(const struct rp_lab_cap *c);
/* The name (without dir) of host NAME's file k, 1-based, with or without rotation. */
void rp_lab_cap_name(const char *name, bool rotating, unsigned k, char *out, size_t len);
/* Flushes and closes; 0, or -1 with a reason (the file is incomplete). */
int rp_lab_cap_close(struct rp_lab_cap *c, char *err, size_t errlen);

#endif
