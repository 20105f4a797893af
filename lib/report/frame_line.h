/* A parsed frame (lib/wire/frame.h) as one line, the way `roceprobe decode`
 * prints it (docs/decode.md): text columns (frame, len, kind, detail) or one
 * JSON object per line (keys: frame, len, kind, vlan, l3, src, dst, dscp,
 * ecn, ttl, udp_sport, udp_dport, bth, reth, aeth, imm, payload_len, icrc,
 * icrc_ok; pfc: src_mac, enable, quanta), and the closing count of frames
 * by kind. n counts frames from 1; wire_len is the frame's length on the
 * wire (a snaplen-cut frame keeps its full length). */
#ifndef RP_REPORT_FRAME_LINE_H
#define RP_REPORT_FRAME_LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "wire/frame.h"

#define RP_FRAME_KINDS (RP_KIND_MALFORMED + 1)

struct rp_frame_totals {
	uint64_t frames;
	uint64_t kinds[RP_FRAME_KINDS];
	uint64_t icrc_bad;
};

/* The text columns' header line. */
void rp_frame_line_header(FILE *out);
void rp_frame_line_text(FILE *out, uint64_t n, size_t wire_len, const struct rp_frame *f);
void rp_frame_line_json(FILE *out, uint64_t n, size_t wire_len, const struct rp_frame *f);
/* "N frames: roce A, ...; ICRC bad B", or {"summary":true,...} with json. */
void rp_frame_totals_print(FILE *out, const struct rp_frame_totals *t, bool json);

#endif
