/* Counter series as evidence (issue 26): roceprobe.counters/1 files (what
 * `roceprobe counters --json --watch` and `lab --counters` write), read by
 * lib/counters' one reader (rp_cnt_json_read), into what captures lack: per
 * port and priority the PFC frames sent and received per time bin, drops,
 * ECN marks and queue watermarks. incident.json's "counters" (docs/results.md).
 * Plain C; no clock, no printing. */
#ifndef RP_REPLAY_COUNTERS_IN_H
#define RP_REPLAY_COUNTERS_IN_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay.h"

#define RP_REPLAY_MAX_COUNTER_FILES 64
#define RP_REPLAY_CTR_PORT_KEYS 7

struct rp_replay_ctr_prio {
	uint64_t pfc_rx, pfc_tx;
	uint64_t *rx_bins, *tx_bins; /* [nbins] */
};

struct rp_replay_ctr_obj {          /* an egress queue or an ingress PG */
	bool seen;
	uint64_t drops, ecn_marked;
	uint64_t wm_bytes, headroom_wm_bytes; /* the largest watermark gauge read */
};

struct rp_replay_ctr_port {
	char source[320], name[96];
	/* rx_packets, tx_packets, rx_discards, tx_discards, cnp_sent, cnp_handled,
	 * ecn_ce_received summed (counters_in.c's order); has: a bit for each the source has */
	uint64_t count[RP_REPLAY_CTR_PORT_KEYS];
	unsigned has;
	uint8_t prio_seen;          /* priorities with a pfc_rx or pfc_tx count */
	struct rp_replay_ctr_prio prio[8];
	struct rp_replay_ctr_obj queue[8], pg[8];
};

struct rp_replay_counters {
	const char *files[RP_REPLAY_MAX_COUNTER_FILES];
	uint64_t lines[RP_REPLAY_MAX_COUNTER_FILES];
	size_t nfiles;
	uint64_t first_ns, last_ns; /* the readings' span: first interval's start .. last reading */
	uint64_t bin0_ns, bin_ns;   /* bins from the evidence's first frame */
	size_t nbins;
	struct rp_replay_ctr_port *ports;
	size_t nports;
};

/* Whether path holds a counter series (its first line a roceprobe.counters/1
 * object), not a capture: by content, not by name. */
bool rp_replay_is_counters(const char *path);

/* With a fabric, what its sources may be: a switch's ports by name (the
 * lab's layout: sw0, leaf1, ...; -1 when none), besides the profile's
 * `switches:` and hosts. */
struct rp_profile;
struct rp_replay_fabric_check {
	const struct rp_profile *prof;
	int (*switch_nports)(const struct rp_profile *prof, const char *name);
};

/* Reads paths[0..n) against the captures' evidence ev (its time bins). With
 * fc, a source that is of another fabric (a lab:NAME that is none of its
 * switches or hosts, a switch source none of its `switches:`, a port the
 * switch has not) is an error; so are a line that is not roceprobe.counters/1,
 * and readings that do not overlap the captures' time. 0, or -1 with one
 * line in err. */
int rp_replay_counters_read(struct rp_replay_counters *c, const char *const *paths, size_t n,
			    const struct rp_replay_evidence *ev, const struct rp_replay_fabric_check *fc, char *err,
			    size_t errlen);
void rp_replay_counters_free(struct rp_replay_counters *c);

/* incident.json's "counters" (docs/results.md). */
json_t *rp_replay_counters_json(const struct rp_replay_counters *c);

#endif
