/* Evidence -> an inferred profile and the incident's symptoms (issue 26, first
 * slice: captures only). Plain C over lib/pcap's reader, lib/wire's one
 * parser and lib/stats' accountant (the one `analyze` runs, in discovery
 * mode): no second parser, no clock, no printing.
 *
 *   rp_replay_evidence_read  captures (pcap/pcapng, one host's or a mirror's,
 *                            overlapping) -> frames counted once: a RoCE frame
 *                            is (src IP, dst IP, DestQP, PSN, opcode); its k-th
 *                            copy in one capture matches the k-th copy in every
 *                            other (the same PSN twice at one point is a
 *                            resend, not an overlap). Per QP the facts as sent
 *                            (the earliest copy); the accountant gets the copy
 *                            at the destination's capture when there is one (a
 *                            frame not there was lost on the way), else the last
 *                            copy (the one furthest along: CE marks, arrival).
 *                            ERSPAN copies are read as the frames they carry
 *                            (lib/pcap's reader), a session a point of its
 *                            own; the files' clocks aligned first (clocks.c)
 *                            from the copies two files hold; --sampled scales.
 *   rp_replay_infer          -> hosts, flows, named patterns, with evidence
 *   rp_replay_profile_write  -> the profile YAML (profile_out.c, the one writer)
 *   rp_replay_incident_json  -> "roceprobe.incident/1" (docs/results.md) */
#ifndef RP_REPLAY_REPLAY_H
#define RP_REPLAY_REPLAY_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "stats/acct.h"

#define RP_REPLAY_MAX_CAPTURES 64
#define RP_REPLAY_NAME_MAX RP_ACCT_NAME_MAX

/* One capture point: a file's frames, or one ERSPAN session's in it (a
 * mirror's session is a point of its own). */
struct rp_replay_capture {
	const char *path;
	char node[RP_REPLAY_NAME_MAX]; /* the host it was taken at, else its file name (":erspan-S" for a session) */
	uint64_t frames, roce;         /* records; RoCE frames among them */
	uint64_t first_ns, last_ns;    /* on the reference clock (aligned) */
	int host;                      /* index into hosts, -1: not one host's */
	size_t file;                   /* index into files */
	int session;                   /* ERSPAN session id; -1: frames not in ERSPAN */
	uint8_t erspan;                /* ERSPAN type (1, 2, 3); 0: none */
	struct rp_replay_first {        /* the first of a kind of frame, by MAC: */
		uint8_t mac[6];
		uint64_t ns;
	} xoff[4], cnp[4];             /* a PFC/PAUSE frame that pauses (non-zero quanta), by its
					* source (the host's own, its switch's); a CNP, by its destination */
	unsigned nxoff, ncnp;
};

/* One evidence file: one clock. Its offset is added to its times to put
 * them on the reference's clock (the first file's). */
struct rp_replay_file {
	const char *path;
	uint64_t frames, roce;
	uint64_t macctl;               /* PFC and PAUSE frames */
	uint64_t erspan, erspan_ts_used, erspan_ts_kept; /* reader.h */
	bool aligned;                  /* an offset from frames both it and an aligned file saw */
	int via;                       /* the file it was aligned to; -1: the reference, or not aligned */
	int64_t offset_ns;
	int64_t residual_ns;           /* bound on the offset's error: half the smallest round trip
					* (summed along the chain); -1: frames one way only, not bounded */
	uint64_t pairs;                /* matched copies the offset came from */
};

/* How to read the evidence. */
struct rp_replay_read_opts {
	uint64_t bin_ns;               /* the symptoms' time bin (0: 100 us) */
	uint64_t speed_bps;            /* pause quanta -> time */
	unsigned sampled;              /* the captures hold 1 in N of the frames; 0 or 1: all */
};

/* A QP's frames at one capture point (sampled evidence: counted where most were seen). */
struct rp_replay_qp_point {
	uint64_t frames, l1_bits, last_bits, first_ns, last_ns, messages;
};

/* A host seen in the frames: its MAC, and addresses sent from or to it. */
struct rp_replay_host {
	char name[RP_REPLAY_NAME_MAX];
	int fabric;      /* its index among the fabric's hosts; -1 without one */
	uint8_t mac[6];
	bool has_ipv4, has_ipv6;
	uint32_t ipv4;
	uint8_t ipv6[16];
	uint64_t tx, rx; /* unique RoCE frames from and to it */
};

/* A host that sent PFC or PAUSE frames (by source MAC and frame type), as
 * one capture point saw them (the first that did: a frame on a link is one
 * frame, whichever points saw it). infer writes it as a `kind: pfc` source. */
#define RP_REPLAY_MAX_PFC_SOURCES 64
struct rp_replay_pfc_src {
	uint8_t mac[6];
	bool pause;                       /* 802.3x PAUSE; else 802.1Qbb PFC */
	uint8_t prios;                    /* PFC: every priority a frame paused */
	uint16_t quanta;                  /* the largest quanta a frame carried */
	uint64_t frames, first_ns, last_ns;
	size_t cap;                       /* the capture point it is counted at */
};

/* A QP's first frames as sent (the first copies): the pace its sender
 * offered before anything held it back (infer.c's offered rate). */
#define RP_REPLAY_PRE_FRAMES 16
#define RP_REPLAY_PRE_MIN 4 /* frames an offered pace is measured from */
struct rp_replay_pre {
	uint8_t n;
	uint32_t dt[RP_REPLAY_PRE_FRAMES];  /* ns after the QP's first frame */
	uint16_t len[RP_REPLAY_PRE_FRAMES]; /* on the wire, without FCS */
};

/* A QP's sending pace in one time window (the evidence's bin, counted from the
 * QP's first frame): phases.c finds a flow's rate phases from them. Recorded
 * for the first RP_REPLAY_PACE_WINDOWS windows, not for sampled evidence. */
#define RP_REPLAY_PACE_WINDOWS 4096
struct rp_replay_pace_win {
	uint64_t first_ns, last_ns; /* its first and last frame */
	uint64_t bits;              /* layer 1 of every frame but its last: the pace's */
	uint32_t frames;
	uint32_t last_bits;
};

/* One QP's data as sent (the first copy of each unique frame). */
struct rp_replay_qp {
	uint8_t l3;
	uint32_t src4, dst4;
	uint8_t src6[16], dst6[16];
	uint32_t dqpn;
	int src_host, dst_host;
	uint8_t dscp, ecn, pcp;
	bool vlan;
	uint16_t vid;
	unsigned ops;                     /* bit per opcode seen (data opcodes < 32) */
	uint32_t psn_first;
	bool reth_seen;                   /* a RETH's DMA length was read */
	uint32_t reth_min, reth_max;
	uint64_t reth_cut;                /* WRITE FIRST/ONLY frames whose RETH the snaplen cut */
	uint32_t mtu;                     /* largest FIRST/MIDDLE payload: the path MTU */
	uint64_t span_bytes;              /* the open message so far (FIRST..) */
	bool span_open;
	uint64_t spans;                   /* whole messages seen FIRST..LAST or ONLY */
	uint64_t messages;                /* LAST or ONLY packets first sent (not resent) */
	uint64_t span_min, span_max;
	uint64_t frames, l1_bits, last_bits; /* unique data frames, their layer-1 bits, the last one's
					      * (sampled: scaled by N from the point that saw most) */
	uint64_t first_ns, last_ns;
	uint64_t sampled_frames;          /* sampled: frames in the sample it was counted from */
	struct rp_replay_qp_point *pt;    /* sampled: per capture point */
	struct rp_replay_pre pre;
	struct rp_replay_pace_win *win;   /* [nwin]: its pace per window; NULL: none kept */
	uint32_t nwin;
	uint16_t sport;                   /* the UDP source port of its first frame (ECMP's entropy) */
	bool sport_varies;                /* a later frame carried another */
	struct rp_replay_bursts {         /* on/off bursts: idle gaps far over the pace */
		uint64_t pace_ns;         /* the smallest gap of its first frames: the pace */
		uint64_t prev_ns, on_ns;  /* the last frame; the current burst's first */
		uint64_t offs, off_sum, period_sum, period_min, period_max; /* gaps; burst + gap */
	} bursts;
};

struct rp_replay_evidence {
	struct rp_replay_capture cap[RP_REPLAY_MAX_CAPTURES];
	size_t ncap;
	struct rp_replay_file files[RP_REPLAY_MAX_CAPTURES];
	size_t nfiles;
	unsigned sampled;                 /* 1 in N; 1: every frame */
	uint64_t first_ns, last_ns;       /* over every capture */
	uint64_t frames, roce_copies;     /* every record; RoCE records */
	uint64_t unique, matched;         /* RoCE frames counted once; copies matched to another capture's */
	uint64_t malformed;               /* frames the parser could not read (malformed, or a snaplen
					   * cut their headers: IPv6 needs 74 B): in no flow */
	struct rp_replay_host *hosts;
	size_t nhosts;
	struct rp_replay_qp *qps;
	size_t nqps;
	struct rp_replay_pfc_src pfc[RP_REPLAY_MAX_PFC_SOURCES];
	size_t npfc;                      /* sources beyond the array are left out */
	struct rp_acct *acct;             /* finished; port i is capture i */
	uint64_t bin_ns;
};

/* Reads paths[0..n), at most RP_REPLAY_MAX_CAPTURES. 0, or -1 with one line
 * in err (unreadable, not a capture, empty, no RoCE in one; with fabric, a
 * host of the frames that is none of its hosts by MAC or address). Hosts are
 * named as the fabric names them, else h0, h1, ... in MAC order. bin_ns: the
 * symptoms' time bin (0: 100 us); speed_bps: pause quanta -> time. */
struct rp_profile;
int rp_replay_evidence_read(struct rp_replay_evidence *ev, const char *const *paths, size_t n,
			    const struct rp_profile *fabric, uint64_t bin_ns, uint64_t speed_bps, char *err,
			    size_t errlen);
/* The same, with the sampling (opts->sampled) said: counts and rates scale
 * by N, sizes from PSN spans are not read (a span needs every frame), and
 * the accountant does not follow PSNs (a sample's gaps are not losses). */
int rp_replay_evidence_read_opts(struct rp_replay_evidence *ev, const char *const *paths, size_t n,
				 const struct rp_profile *fabric, const struct rp_replay_read_opts *opts, char *err,
				 size_t errlen);
void rp_replay_evidence_free(struct rp_replay_evidence *ev);

/* The 2-sigma relative bound of a count scaled from a 1-in-N sample of k
 * frames: 2 sqrt((N-1)/(N k)) (binomial; docs/replay.md). */
double rp_replay_sample_bound(unsigned n, uint64_t k);

enum rp_replay_pattern { RP_REPLAY_FLOW, RP_REPLAY_INCAST, RP_REPLAY_ALL_TO_ALL, RP_REPLAY_PERMUTATION };

/* One rate phase of a flow (phases.c): its pace from at_ns on. */
struct rp_replay_phase {
	uint64_t at_ns;                   /* after the flow's first frame */
	double rate_bps;                  /* layer 1: its windows' bits over their spans */
	double bound;                     /* relative: the largest deviation of a window's pace from
					   * rate_bps, at least the timestamps' (2 granularity / spans) */
	uint32_t windows;                 /* the whole windows it is measured from */
	uint64_t frames;
	bool mixed;                       /* at: interpolated inside a window of both paces; else
					   * the first frame of the first window at the new pace */
};

/* One inferred flow (an accountant flow: its QPs together). */
struct rp_replay_flow {
	size_t acct;                      /* the accountant's flow index */
	int src, dst;                     /* hosts of the model */
	uint16_t qps;
	const char *opcode;               /* profile word: write, write_imm, send, send_imm, read_resp */
	uint8_t l3;                       /* 4 or 6 */
	uint8_t dscp, ecn, pcp;
	bool vlan;
	uint16_t vid;
	uint64_t message_size;
	const char *size_how;             /* "RETH", "span", "cut", "none" */
	uint64_t size_spread;             /* max - min of what was seen */
	uint32_t mtu;                     /* 0: no multi-packet message seen */
	uint64_t max_payload;
	double rate_bps;                  /* layer 1 over the active time; 0: one frame */
	double offered_bps;               /* layer 1, the pace of its first frames before its sender's
					   * host received a pause; 0: not measured (fewer than
					   * RP_REPLAY_PRE_MIN such frames, or sampled) */
	uint64_t offered_frames;          /* the frames that pace is from */
	int32_t sport;                    /* the one UDP source port every frame of its QPs carried; -1:
					   * several */
	uint64_t burst_on_ns, burst_off_ns; /* regular on/off bursts (one QP); 0: none seen */
	uint64_t bursts;                  /* the idle gaps they are from */
	struct rp_replay_phase *phases;   /* [nphases]: its offered rate over time (one QP, 2 or more
					   * phases); NULL: one rate */
	unsigned nphases;
	uint64_t win_ns;                  /* the windows the phases are measured in */
	uint64_t ts_grain_ns;             /* the timestamps' granularity taken (1 or 1000 ns) */
	uint64_t active_ns, frames;
	uint64_t sampled_frames;          /* sampled evidence: frames in the sample */
	uint64_t start_ns;                /* first frame - the evidence's first frame */
	uint64_t messages;                /* sent: LAST or ONLY packets, resends not counted */
	int entry;                        /* the traffic entry it went into; -2: merged into another */
	uint64_t bits, last_bits;         /* layer-1 bits of its frames, of its last frame */
	uint64_t first_abs, last_abs;     /* its first and last frame's times */
	size_t merged;                    /* accountant flows taken in as QPs of this one */
};

struct rp_replay_entry {
	enum rp_replay_pattern pattern;
	size_t first;                     /* flows of the entry: flow indices */
	size_t *flows;                    /* permutation: flow i's source is member i of its hosts */
	size_t nflows;
};

struct rp_replay_model {
	const struct rp_replay_evidence *ev;
	const struct rp_profile *fabric;  /* NULL: hosts from the frames */
	const char *fabric_path;
	const char *fabric_text;          /* the --fabric file's text (its fabric: section is copied) */
	struct rp_replay_flow *flows;
	size_t nflows;
	struct rp_replay_entry *entries;
	size_t nentries;
	uint64_t window_ns;               /* incast: starts within this */
};

/* Flows and patterns from the evidence. 0, or -1 (out of memory). */
int rp_replay_infer(struct rp_replay_model *m, const struct rp_replay_evidence *ev, const struct rp_profile *fabric,
		    const char *fabric_path, const char *fabric_text);
void rp_replay_model_free(struct rp_replay_model *m);

/* phases.c: records frame t of bits in q's pace windows of win_ns. */
void rp_replay_pace_see(struct rp_replay_qp *q, uint64_t t, uint64_t bits, uint64_t win_ns);
/* phases.c: fl's rate phases from its one QP q's pace windows ending before
 * xoff_ns (its sender's host's first pause or CNP): fl->phases, or none. */
void rp_replay_flow_phases(const struct rp_replay_qp *q, uint64_t win_ns, uint64_t xoff_ns, struct rp_replay_flow *fl);

/* The profile, commented with the evidence of every value. */
void rp_replay_profile_write(FILE *f, const struct rp_replay_model *m, const char *const *paths, size_t n);

/* Paused ns on the flow's priority at its sender's capture point, in the
 * time bins of its active time; -1: no capture at its sender. */
int64_t rp_replay_sender_paused(const struct rp_replay_model *m, const struct rp_replay_flow *x);

/* "roceprobe.incident/1". */
json_t *rp_replay_incident_json(const struct rp_replay_model *m);

#endif
