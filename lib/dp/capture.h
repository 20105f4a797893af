/* The capture tap: producers (RX/TX lcores) offer frames in their per-packet
 * path; a writer thread fed by a ring writes them to pcap files with
 * nanosecond timestamps, rotating by size.
 *
 *   producer lcores --offer: classify, filter, sample, copy <= snaplen
 *        |                    into a slot from a preallocated pool
 *        v
 *   rte_ring (multi-producer, single-consumer) of slots
 *        |
 *        v
 *   writer thread: lib/pcap's writer (pcap/writer.h: nanosecond pcap, a
 *        |          new file when the next record would pass rotate_bytes)
 *        |          into a stdio stream whose bytes fill 4 MiB aligned chunks
 *        v
 *   flusher thread: pwrite of each full chunk with O_DIRECT (no page-cache
 *                   copy on these cores; plain writes where O_DIRECT is
 *                   refused); the tail goes out on idle flushes and at close
 *
 * One file per stage: capture.c the offer, the ring and the writer thread;
 * lib/pcap the rest, DPDK-free (pcap/classify.h the classifier,
 * pcap/writer.h the one pcap writer with pcap/names.h and pcap/rotation.h
 * its file names and rotation, `switch --capture` and the lab name their
 * files with them too); capture_dio.{c,h} the O_DIRECT stream under the
 * writer and its flusher; capture_rx.{c,h} `roceprobe capture`'s RX loop,
 * the one producer that polls a port itself.
 *
 * Both threads are pthreads made with rte_ctrl_thread_create, so they run on
 * the CPUs the EAL did not give to lcores (with `-l 0` on 2 cores: core 1).
 *
 * Lanes (cfg.lanes = N > 1, `run --lcores N`): one file, N producer ends.
 * Each lane (rp_capture_lane) has its own slot pool, single-consumer ring and
 * counters, so producers on different lcores share no cache line written per
 * frame; a lane takes one producer at a time. The writer merges the lanes in
 * timestamp order (each lane's stamps are kept non-decreasing: a frame
 * offered with an earlier stamp than the lane's last gets the last's) and
 * writes a frame only once no lane can still bring an earlier one: a lane
 * with nothing queued holds the merge until its producer's mark
 * (rp_capture_mark, the lcore's clock once a pass) passes the frame, or the
 * capture closes. Sampling is then done by the writer, in the merged order
 * (so sampled-out data frames still take a slot); the filter and snaplen by
 * the producers, rotation by the writer, as with one lane. Counters are the
 * sum over the lanes.
 *
 * Nothing is lost silently: a frame that finds no free slot (the writer is
 * behind) is counted as dropped, and every offered frame lands in exactly one
 * of kept / filtered_out / sampled_out / dropped.
 *
 * Classification is pcap/classify.h's (the kinds rp_frame_parse and
 * `roceprobe decode` give, NAKs apart), cheap enough for the per-packet
 * path: pfc, pause, cnp, nak, roce, other, and the ce flag. "Control"
 * frames are pfc, pause, cnp, nak, ARP/ND and any CE-marked frame; every
 * other frame is "data".
 *
 * File names (pcap/names.h): without rotation, exactly cfg.path. With
 * rotate_bytes, files are numbered from 1 in the order written, the number
 * going before the extension: "out.pcap" -> out-0001.pcap, out-0002.pcap,
 * ... ("out" -> out-0001, ...). With rotate_files N only the newest N stay;
 * opening file k deletes file k-N. */
#ifndef RP_DP_CAPTURE_H
#define RP_DP_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pcap/classify.h"
#include "pcap/format.h"

#define RP_CAPTURE_SNAPLEN_DEFAULT RP_PCAP_SNAPLEN_DEFAULT
#define RP_CAPTURE_SNAPLEN_MAX RP_PCAP_SNAPLEN_MAX
#define RP_CAPTURE_RING_DEFAULT 65536
#define RP_CAPTURE_MAX_LANES 16

struct rp_capture_cfg {
	const char *path;      /* the file, or the name numbered files derive from */
	unsigned snaplen;      /* bytes kept per frame; 0 = 128 */
	uint64_t rotate_bytes; /* start a new file before one would exceed this; 0 = one file */
	unsigned rotate_files; /* keep at most N files, oldest deleted; 0 = keep all */
	unsigned sample_every; /* keep 1 in N data frames per port and direction; 0/1 = all */
	enum rp_capture_filter filter;
	unsigned ring_size; /* slots between producers and writer; 0 = 65536, fewer when
			     * snaplen is big (at most 64 MiB of slots); shared out among lanes */
	unsigned lanes;     /* producer ends merged in time order (see Lanes); 0/1 = one */
	/* Wall-clock ns (Unix epoch) at ts_ns == 0; 0 = now - rp_dp_now_ns(), which
	 * needs rp_dp_clock_start to have been called. */
	uint64_t epoch_ns;
};

struct rp_capture_stats {
	uint64_t offered;      /* frames given to rp_capture_offer */
	uint64_t kept;         /* queued to the writer (lanes: less what it sampled out) */
	uint64_t filtered_out; /* not wanted by the filter */
	uint64_t sampled_out;  /* data frames skipped by sampling (lanes: by the writer) */
	uint64_t dropped;      /* no free slot: the writer could not keep up */
	uint64_t written;      /* records handed to the file (there after a close that
				* reports no error) */
	uint64_t write_errors; /* kept frames dropped after a file write failed */
	uint64_t bytes;        /* file bytes written, pcap headers included */
	uint64_t files;        /* files opened so far: the last one is number `files` */
	uint64_t first_file;   /* the oldest file still kept (rotate_files deletes older) */
	uint64_t kind[RP_CAPK_COUNT]; /* offered frames by kind */
	uint64_t ce;                  /* offered frames marked CE */
};

struct rp_capture;

/* Opens the first file (so an unwritable path fails here, with a message in
 * err) and starts the writer. NULL on error. Needs the EAL up. */
struct rp_capture *rp_capture_open(const struct rp_capture_cfg *cfg, char *err, size_t errlen);

/* The per-packet call: no allocation, lock or syscall. frame holds the whole
 * frame of wire_len bytes (at least min(wire_len, snaplen) are read).
 * ts_ns: ns since rp_dp_clock_start. Safe from several lcores at once on a
 * capture of one lane; one producer at a time per lane of several.
 * Returns true when the frame was queued for writing (on a lane of several
 * the writer may still sample it out). */
bool rp_capture_offer(struct rp_capture *c, uint64_t ts_ns, uint16_t port, bool is_tx, const uint8_t *frame,
		      uint32_t wire_len);

/* As rp_capture_offer when only avail bytes of the frame are at hand (a
 * segmented mbuf, a cut capture); wire_len is still the frame's length. */
bool rp_capture_offer_cut(struct rp_capture *c, uint64_t ts_ns, uint16_t port, bool is_tx, const uint8_t *frame,
			  uint32_t avail, uint32_t wire_len);

/* Lane k (0 .. cfg.lanes - 1) of the capture open returned (which is lane 0);
 * NULL past the last. Offer to it from one producer at a time; stats,
 * clock_restarted and close act on the whole capture from any lane. */
struct rp_capture *rp_capture_lane(struct rp_capture *c, unsigned k);

/* A lane's producer says its clock (ns since rp_dp_clock_start): it will
 * offer nothing stamped earlier (a later offer stamped earlier is stamped
 * with this time, as the lane's order wants anyway). Once a pass of its loop,
 * so a lane with nothing to say does not hold the merge back; a few loads
 * when called more often than every 10 us, nothing on a capture of one lane. */
void rp_capture_mark(struct rp_capture *c, uint64_t now_ns);

/* Counters so far; callable from any thread while producers run. */
void rp_capture_stats(const struct rp_capture *c, struct rp_capture_stats *s);
/* The clock was (re)started by rp_dp_clock_start after the open and before any
 * frame was offered: ts_ns 0 is now (a default epoch_ns is taken again). */
void rp_capture_clock_restarted(struct rp_capture *c);

/* Stops accepting, lets the writer drain the ring, flushes and closes the
 * file, and stops the writer. Call it after the producers have made their
 * last offer (from the normal exit path, never from a signal handler).
 * final (may be NULL) receives the last counters. Returns 0, or -1 when a
 * write failed (err says which file and why). Frees c. */
int rp_capture_close(struct rp_capture *c, struct rp_capture_stats *final, char *err, size_t errlen);

#endif
