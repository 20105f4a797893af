/* The embedded lab: a profile's hosts, switches and links in virtual time.
 *
 * A discrete-event loop in nanoseconds (evq.h) where every link serializes
 * at its configured rate, so a 100G or 400G fabric runs faithfully on a slow
 * machine. Hosts drive the real packet source (lib/traffic) and feed the
 * real accountant (lib/stats); switches are lib/fabric's model. Same
 * profile, same result, byte for byte: there is no clock and no randomness
 * beyond the profile's seed. Clock-free and silent: the caller prints. */
#ifndef RP_LAB_LAB_H
#define RP_LAB_LAB_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"
#include "stats/acct.h"
#include "traffic/plan.h"

struct rp_lab;

struct rp_lab_opts {
	const char *capture_dir; /* non-NULL: DIR/capture-HOST.pcap per host (its TX and RX) */
	unsigned snaplen;        /* bytes kept per frame; 0: whole frames */
	uint64_t capture_max;    /* every pcap together at most this many bytes; 0: no limit */
	uint64_t capture_rotate; /* a host's next file before one passes this; 0: one file */
	uint64_t bin_ns;         /* accountant time series bin; 0: 100 us */
	/* The evidence a fabric leaves (docs/lab.md), into evidence_dir: a pcap
	 * per mirrored switch port ("SWITCH:PORT", rp_lab_mirror_check; the
	 * captures' snaplen, budget and rotation), and with counters_ns the
	 * counters.jsonl series (counters.h). */
	const char *evidence_dir;
	const char *const *mirrors;
	size_t nmirrors;
	uint64_t counters_ns;
	uint64_t progress_every; /* events between progress calls; 0: 1 << 18 */
	void (*progress)(uint64_t now_ns, uint64_t events, void *arg);
	void *progress_arg;
	/* Non-NULL: the run stops (totals.stopped) at the first event after *stop
	 * becomes non-zero (the caller's SIGINT/SIGTERM flag); the results so far
	 * and the captures stay whole. */
	volatile sig_atomic_t *stop;
	/* Called (with progress_arg) when a capture write fails (a full disk,
	 * once): msg names the file and the error; every capture stops there, the
	 * run goes on, and the files are cut back to whole records as they close. */
	void (*capture_failed)(const char *msg, uint64_t now_ns, void *arg);
	/* Set-up (seconds for a million flows): called (with progress_arg) with
	 * each stage's name as it starts ("accounting (1047552 flows)"), and
	 * with NULL every few thousand items within one. Non-zero (the caller's
	 * signal) stops the set-up: rp_lab_create returns NULL, err "stopped".
	 * NULL: none. */
	int (*setup)(const char *stage, void *arg);
};

/* Whether the profile's hosts fit the lab's switches (without a `fabric:`
 * section the lab is one switch of RP_SWITCH_MAX_PORTS (256) ports), its
 * flows the flow limit, and each switch's settings, with the ports the
 * topology gives it, the model's rules (rp_switch_cfg_check: an XOFF below
 * the shared buffer left after the ports' headroom, ...). 0, or -1 with one
 * line saying what to change. Cheap: call it before building a plan. */
int rp_lab_check_fit(const struct rp_profile *prof, char *err, size_t errlen);

/* Whether every "SWITCH:PORT" of specs names a port of the fabric the lab
 * would build for prof (switch names as result.json's switches[]: sw0,
 * leaf0, spine1, agg2, core0; PORT a number or EthernetN). 0, or -1 with
 * one line naming the spec and the fabric's switches or ports. */
int rp_lab_mirror_check(const struct rp_profile *prof, const char *const *specs, size_t n, char *err, size_t errlen);
#define RP_LAB_MIRRORS_MAX 64
/* The ports of the lab's switch name (sw0, leaf1, ...) in prof's fabric,
 * or -1 when it has none of that name. */
int rp_lab_switch_nports(const struct rp_profile *prof, const char *name);

/* At most this many flows in one lab run, each about RP_LAB_FLOW_BYTES
 * (measured: docs/lab.md; plan, packet source, accountant, host NIC and the
 * result's pair row), so a 1024-host all-to-all (1,047,552 flows) runs in
 * 7.36 GiB (peak resident, measured 2026-12-07: 7543 B a flow) and the limit
 * in about 15 GiB. */
#define RP_LAB_MAX_FLOWS (1u << 21)
#define RP_LAB_FLOW_BYTES 7500u
/* 0, or -1 with one line when the plan has more flows than that. */
int rp_lab_check_plan(const struct rp_plan *plan, char *err, size_t errlen);

/* prof and plan are borrowed and must outlive the lab. NULL with a reason. */
struct rp_lab *rp_lab_create(const struct rp_profile *prof, const struct rp_plan *plan, const struct rp_lab_opts *o,
			     char *err, size_t errlen);
void rp_lab_destroy(struct rp_lab *lab);
/* The virtual time the run should end at: the plan's last message, or the
 * slowest receiver's drain when later, at most fabric.max_time. A run that
 * slows (PFC, DCQCN) ends later: a progress estimate, not a bound. */
uint64_t rp_lab_planned_ns(const struct rp_lab *lab);
/* Runs until nothing is left to happen (or fabric.max_time), then closes
 * the accounting. 0, or -1 with a reason (out of memory, capture I/O). */
int rp_lab_run(struct rp_lab *lab, char *err, size_t errlen);

struct rp_lab_totals {
	uint64_t end_ns;       /* virtual time of the last event */
	uint64_t events;
	uint64_t hops;         /* frames put on a wire */
	uint64_t tx_frames, tx_bytes; /* by hosts */
	uint64_t rx_frames, rx_bytes; /* by hosts */
	uint64_t sw_drops, sw_drop_bytes;
	uint64_t impair_dropped;
	bool truncated;        /* stopped at fabric.max_time */
	bool stopped;          /* stopped by opts.stop (a signal) */
	size_t peak_in_flight;
	/* Data frames sent and neither received nor dropped when the run
	 * stopped (fabric.max_time, a signal): in switch buffers or on links.
	 * Counted per flow as in_flight, never as lost. */
	uint64_t in_flight;
	uint64_t in_flight_on_links; /* of them: on a wire (or a receiver's impair: delay) */
	uint64_t capture_bytes;  /* written to the pcaps, headers included */
	bool capture_stopped;    /* the captures reached opts.capture_max (or the disk's room), or failed ... */
	uint64_t capture_stopped_ns; /* ... at this virtual time */
	bool capture_room_limited; /* the limit was the disk's room, not opts.capture_max */
	uint64_t capture_max;      /* the limit in force (0: none) */
	bool capture_failed;       /* a write failed: capture_error says why */
	char capture_error[4400];
};
/* Flushes and closes the captures (rp_lab_run leaves them open). */
int rp_lab_close_captures(struct rp_lab *lab, char *err, size_t errlen);
void rp_lab_totals(const struct rp_lab *lab, struct rp_lab_totals *out);
const struct rp_acct *rp_lab_acct(const struct rp_lab *lab);

#endif
