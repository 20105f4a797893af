/* Per-QP PSN tracking of one direction of an RC queue pair, as seen at a
 * capture point (for `analyze`): gaps, losses not later filled,
 * retransmissions, go-back-N episodes and message completion times.
 * Clock-free and allocation-free; PSNs are 24 bits and wrap.
 *
 * Serial arithmetic: a PSN less than 2^23 ahead of the next expected one is
 * "ahead" (skipping any in between), anything else is "behind". A window of
 * RP_PSN_WINDOW PSNs remembers which were seen, so a PSN behind is either a
 * gap being filled (a late or resent packet that the capture point had not
 * seen) or a retransmission (seen before). */
#ifndef RP_STATS_PSN_H
#define RP_STATS_PSN_H

#include <stdbool.h>
#include <stdint.h>

#define RP_PSN_WINDOW 4096u /* divides 2^24, so slots survive the wrap */

struct rp_psn {
	bool started;
	uint32_t first;           /* first PSN seen */
	uint32_t next;            /* highest PSN seen + 1 */
	uint32_t last;            /* PSN of the previous packet */
	uint64_t packets;         /* data packets seen, resends included */
	uint64_t gaps;            /* forward jumps */
	uint64_t skipped;         /* PSNs those jumps skipped */
	uint64_t missing;         /* skipped and never seen since: lost before the capture point */
	uint64_t filled;          /* skipped PSNs that arrived later */
	uint64_t retransmissions; /* PSNs seen before (older than the window included) */
	uint64_t go_back_n;       /* a NAK, then a resend from the NAK'd PSN */
	uint64_t rewinds;         /* any jump back to resend (go-back-N or a timeout) */
	uint64_t naks;            /* NAKs (PSN sequence error) addressed to this QP */
	bool nak_pending;
	uint32_t nak_psn;
	uint64_t nak_ns;
	uint64_t messages;        /* LAST / ONLY seen for the first time */
	bool in_msg;
	uint64_t msg_first_ns;
	uint64_t bits[RP_PSN_WINDOW / 64];
};

enum rp_psn_verdict { RP_PSN_IN_ORDER, RP_PSN_GAP, RP_PSN_FILLED, RP_PSN_RETRANSMIT };

/* What one data packet meant, beyond the verdict. */
struct rp_psn_event {
	enum rp_psn_verdict verdict;
	bool msg_done;          /* a message completed: msg_ns = FIRST -> LAST (0 for ONLY) */
	uint64_t msg_ns;
	bool multi_packet;      /* the completed message had a FIRST */
	bool nak_resend;        /* the resend a NAK asked for: nak_resend_ns after it */
	uint64_t nak_resend_ns;
};

void rp_psn_init(struct rp_psn *p);
void rp_psn_data(struct rp_psn *p, uint64_t now_ns, uint32_t psn, uint8_t opcode, struct rp_psn_event *ev);
/* A NAK (PSN sequence error) for this QP: psn is the one it expects next. */
void rp_psn_nak(struct rp_psn *p, uint64_t now_ns, uint32_t psn);

/* Signed distance from a to b in 24-bit serial arithmetic. */
int32_t rp_psn_diff(uint32_t a, uint32_t b);

#endif
