/* Per-QP PSN tracking of one direction of an RC queue pair, as seen at a
 * capture point (for `analyze`): gaps, losses not later filled,
 * retransmissions, go-back-N episodes and message completion times.
 * Clock-free; PSNs are 24 bits and wrap. Its window (win.h) takes memory
 * only once a PSN arrives out of order.
 *
 * Serial arithmetic: a PSN less than 2^23 ahead of the next expected one is
 * "ahead" (skipping any in between), anything else is "behind". A window of
 * RP_PSN_WINDOW PSNs remembers which were seen, so a PSN behind is either a
 * gap being filled (a late or resent packet that the capture point had not
 * seen) or a duplicate (seen before).
 *
 * Retransmitted and duplicate are not the same: after a NAK the sender goes
 * back N and resends every packet from the NAK'd PSN on. Each of those is
 * retransmitted; those the capture point had seen already are also
 * duplicates, those it had not (the lost one, and any other lost since) fill
 * a gap. So for an episode of N resent packets of which k fill gaps:
 * retransmissions += N, duplicates += N - k, filled += k, reordered += 0. A
 * duplicate outside such an episode (a resend after a timeout) is
 * retransmitted too; a gap filled outside one is a late (reordered) packet. */
#ifndef RP_STATS_PSN_H
#define RP_STATS_PSN_H

#include <stdbool.h>
#include <stdint.h>

#include "win.h"
#include "wire/bth.h"

#define RP_PSN_WINDOW RP_WIN_SLOTS /* divides 2^24, so slots survive the wrap */

struct rp_psn {
	bool started;
	uint32_t first;           /* first PSN seen */
	uint32_t next;            /* highest PSN seen + 1 */
	uint32_t last;            /* PSN of the previous packet */
	uint64_t packets;         /* data packets seen, resends included */
	uint64_t gaps;            /* forward jumps */
	uint64_t skipped;         /* PSNs those jumps skipped */
	uint64_t missing;         /* skipped and never seen since: lost before the capture point */
	uint64_t filled;          /* skipped PSNs that arrived later (resent or late) */
	uint64_t reordered;       /* of those, the ones that were not resent: late arrivals */
	uint64_t duplicates;      /* PSNs seen before (older than the window included) */
	uint64_t retransmissions; /* packets sent again: every one behind the highest PSN in a
				   * go-back-N episode (gap fill or duplicate), and any other duplicate */
	uint64_t go_back_n;       /* a NAK, then a resend from the NAK'd PSN */
	uint64_t rewinds;         /* any jump back to resend (go-back-N or a timeout) */
	uint64_t naks;            /* NAKs (PSN sequence error) addressed to this QP */
	bool nak_pending;
	uint32_t nak_psn;
	uint64_t nak_ns;
	bool resending;           /* in a go-back-N episode ... */
	uint32_t resend_end;      /* ... until the PSN reaches this (next when it began) */
	uint64_t messages;        /* LAST / ONLY seen for the first time */
	bool in_msg;
	uint64_t msg_first_ns;
	struct rp_win win;        /* the PSNs seen below next */
};

enum rp_psn_verdict { RP_PSN_IN_ORDER, RP_PSN_GAP, RP_PSN_FILLED, RP_PSN_DUPLICATE };

/* What one data packet meant, beyond the verdict. */
struct rp_psn_event {
	enum rp_psn_verdict verdict;
	bool resent;            /* a retransmission (see above): a duplicate, or a gap fill in go-back-N */
	bool msg_done;          /* a message completed: msg_ns = FIRST -> LAST (0 for ONLY) */
	uint64_t msg_ns;
	bool multi_packet;      /* the completed message had a FIRST */
	bool nak_resend;        /* the resend a NAK asked for: nak_resend_ns after it */
	uint64_t nak_resend_ns;
};

/* p holds no memory (new, or freed: rp_psn_free). */
void rp_psn_init(struct rp_psn *p);
/* Its window's memory (512 B once a PSN arrived out of order). */
void rp_psn_free(struct rp_psn *p);
/* d = a copy of s (d holds no memory); -1 out of memory. */
int rp_psn_copy(struct rp_psn *d, const struct rp_psn *s);
/* Any data packet (rp_psn_data takes the next expected PSN outside a resend
 * episode itself, inline, with the same outcome). */
void rp_psn_data_any(struct rp_psn *p, uint64_t now_ns, uint32_t psn, uint8_t opcode, struct rp_psn_event *ev);
/* Where a packet sits in its message: psn.c's message() for the in-order
 * case. */
void rp_psn_message(struct rp_psn *p, uint64_t now_ns, uint8_t opcode, struct rp_psn_event *ev);
static inline void rp_psn_data(struct rp_psn *p, uint64_t now_ns, uint32_t psn, uint8_t opcode,
			       struct rp_psn_event *ev)
{
	psn &= RP_PSN_MASK;
	if (!p->started || psn != p->next || p->resending || p->nak_pending) {
		rp_psn_data_any(p, now_ns, psn, opcode, ev);
		return;
	}
	/* track() at distance 0 (the one slot cleared is the one set), no
	 * resend episode, nothing resent or late. */
	*ev = (struct rp_psn_event){.verdict = RP_PSN_IN_ORDER};
	p->packets++;
	rp_win_take_next(&p->win, psn);
	p->next = rp_psn_add(psn, 1);
	rp_psn_message(p, now_ns, opcode, ev);
	p->last = psn;
}
/* A data packet that arrived unusable (a wrong ICRC: a NIC drops it). When
 * its PSN is the next expected one (or the QP's first), the PSN holds its
 * place: a gap of one (gaps, skipped, missing), which a resend or a late
 * arrival fills as any gap; true then. Any other PSN is not trusted (the
 * corruption may be in it): false, nothing counted. No packet, no message. */
bool rp_psn_hole(struct rp_psn *p, uint32_t psn);
/* A READ response to this QP's request: a READ takes one PSN for every
 * response packet (IBA 9.7.5.1.1), which the requester's next request
 * skips. The response's PSN is taken here as seen, without counting a
 * packet: not a gap, not lost (a READ of 3 packets at PSN 50 and the next
 * request at 53 counted 2 lost). */
void rp_psn_read_response(struct rp_psn *p, uint32_t psn);
/* The PSN arrived (within the last RP_PSN_WINDOW PSNs below next). */
bool rp_psn_seen(const struct rp_psn *p, uint32_t psn);
/* A NAK (PSN sequence error) for this QP: psn is the one it expects next. */
void rp_psn_nak(struct rp_psn *p, uint64_t now_ns, uint32_t psn);

/* Signed distance from a to b in 24-bit serial arithmetic. */
static inline int32_t rp_psn_diff(uint32_t a, uint32_t b)
{
	uint32_t d = (b - a) & RP_PSN_MASK;
	return d & 0x800000u ? (int32_t)d - 0x1000000 : (int32_t)d;
}

#endif
