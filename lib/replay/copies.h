/* lib/replay's own: the captures read side by side, and a frame's copies
 * across them (evidence.c's passes, clocks.c's alignment). Not installed;
 * replay.h is the library's interface. */
#ifndef RP_REPLAY_COPIES_H
#define RP_REPLAY_COPIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pcap/reader.h"
#include "replay.h"
#include "wire/frame.h"

/* A RoCE frame's identity across capture points, with its copy number in
 * one capture (occ): the k-th copy at one point matches the k-th at another. */
struct dkey {
	uint8_t l3, op;
	uint16_t zero;
	uint32_t dqpn, psn, occ;
	uint8_t src[16], dst[16];
};

struct dent {
	struct dkey k;
	uint64_t seen[2];  /* captures holding this copy: pass 1, pass 2 */
	uint8_t chosen;    /* the capture whose copy the accountant gets: the last in time */
	bool fed;          /* pass 2: a copy went to the accountant */
	uint32_t val;      /* a QP's entry (QP_OP): its index in ev->qps + 1; a MAC's (MAC_OP): its
			    * host's index + 1 when a capture was taken at that host */
	bool used;
	uint8_t f0;        /* pass 0 (clocks): the file of its first copy, and that copy's time */
	uint64_t t0;
};

struct dmap {
	struct dent *e;
	size_t cap, n;
};

struct dent *rp_replay_dmap_get(struct dmap *m, const struct dkey *k); /* found or added; NULL: out of memory */
bool rp_replay_is_roce(const struct rp_frame *f);
void rp_replay_key_of(const struct rp_frame *f, struct dkey *k);
/* The copy of f at capture c: its entry, and whether it is the first copy
 * anywhere (*first). NULL: out of memory. */
struct dent *rp_replay_copy_of(struct dmap *m, const struct rp_frame *f, size_t c, int pass, bool *first);

/* The captures, read side by side in time order: each file's times with
 * its clock's offset added (0 until the clocks are aligned). */
struct merge {
	struct rp_pcap_reader r[RP_REPLAY_MAX_CAPTURES];
	struct pcap_pkthdr *h[RP_REPLAY_MAX_CAPTURES];
	const u_char *d[RP_REPLAY_MAX_CAPTURES];
	bool live[RP_REPLAY_MAX_CAPTURES];
	int64_t off[RP_REPLAY_MAX_CAPTURES];
	size_t n;
};

uint64_t rp_replay_merge_t(const struct merge *m, size_t i);   /* file i's frame's time, aligned */
int rp_replay_merge_advance(struct merge *m, size_t i, char *err, size_t errlen);
int rp_replay_merge_start(struct merge *m, char *err, size_t errlen);
long rp_replay_merge_next(const struct merge *m);              /* the file whose frame is next; -1: none */
int rp_replay_merge_rewind(struct merge *m, char *err, size_t errlen);
void rp_replay_merge_close(struct merge *m);

/* The capture's host: the MAC in every one of its RoCE frames (cand). Of two
 * (a capture of one host pair), the one the frames show it at: the source
 * where its copy is a frame's first, the destination where it is a later one
 * (a frame is captured at its sender before its receiver); a tie goes to
 * the one no other capture is of. */
struct point {
	uint8_t cand[2][6];
	uint64_t score[2];
	int ncand; /* -1: no RoCE frame yet */
};

/* A RoCE frame at the point: its MACs narrow the candidates; first: the
 * frame's first copy anywhere. */
void rp_replay_point_see(struct point *p, const struct rp_frame *f, bool first);

/* Pass 0 (clocks.c): each file's offset to the first file's clock from the
 * frames two files saw, into ev->files[] and m->off[]; the captures are
 * read once and rewound. 0, or -1 with one line in err (out of memory, a
 * read error, or a file that shares no frame with the others and whose
 * times do not overlap theirs). */
int rp_replay_align(struct rp_replay_evidence *ev, struct merge *m, char *err, size_t errlen);

#endif
