/* `roceprobe capture`'s receive loop: one DPDK port's RX queue 0 polled in
 * bursts of 32, one timestamp per burst, every frame offered to a capture
 * (capture.h) and freed. A segmented mbuf is copied out far enough to
 * classify and keep (max(snaplen, 128) bytes). */
#ifndef RP_DP_CAPTURE_RX_H
#define RP_DP_CAPTURE_RX_H

#include <signal.h>
#include <stdint.h>

#include "capture.h"
#include "dp.h"

struct rp_dp_capture_rx {
	/* set by the caller */
	const struct rp_dp_port *port;
	struct rp_capture *cap;
	unsigned snaplen;       /* the capture's; 0 = RP_CAPTURE_SNAPLEN_DEFAULT */
	uint64_t duration_ns;   /* stop when rp_dp_now_ns() reaches it; 0 = no limit */
	uint64_t count;         /* stop after this many frames received; 0 = no limit */
	volatile sig_atomic_t *stop; /* non-NULL: stop once *stop is set (a signal) */
	/* Called once a second (the first pass at or after 1 s, 2 s, ... of
	 * rp_dp_now_ns()) and once at the end, with end_ns; may be NULL. */
	void (*progress)(void *arg, uint64_t now_ns);
	void *progress_arg;
	/* set by rp_dp_capture_run */
	uint64_t received; /* frames polled; with count, at most count (the rest of
			    * the last burst was not looked at) */
	uint64_t end_ns;   /* rp_dp_now_ns() when the loop stopped */
	uint8_t linear[RP_CAPTURE_SNAPLEN_MAX]; /* a segmented frame's head, copied out */
};

/* Polls until *stop, duration_ns or count. Needs rp_dp_clock_start. */
void rp_dp_capture_run(struct rp_dp_capture_rx *rx);

#endif
