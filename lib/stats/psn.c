#include "psn.h"

#include <string.h>

#include "wire/bth.h"

enum msg_pos { POS_ONLY, POS_FIRST, POS_MIDDLE, POS_LAST, POS_NONE };

/* Where a packet sits in its message, from the opcode alone. */
static enum msg_pos opcode_pos(uint8_t op)
{
	switch (op) {
	case RP_OP_RC_SEND_FIRST: case RP_OP_RC_WRITE_FIRST: case RP_OP_RC_READ_RESP_FIRST:
		return POS_FIRST;
	case RP_OP_RC_SEND_MIDDLE: case RP_OP_RC_WRITE_MIDDLE: case RP_OP_RC_READ_RESP_MIDDLE:
		return POS_MIDDLE;
	case RP_OP_RC_SEND_LAST: case RP_OP_RC_SEND_LAST_IMM: case RP_OP_RC_SEND_LAST_INV:
	case RP_OP_RC_WRITE_LAST: case RP_OP_RC_WRITE_LAST_IMM: case RP_OP_RC_READ_RESP_LAST:
		return POS_LAST;
	case RP_OP_RC_SEND_ONLY: case RP_OP_RC_SEND_ONLY_IMM: case RP_OP_RC_SEND_ONLY_INV:
	case RP_OP_RC_WRITE_ONLY: case RP_OP_RC_WRITE_ONLY_IMM: case RP_OP_RC_READ_RESP_ONLY:
	case RP_OP_RC_READ_REQUEST: case RP_OP_RC_CMP_SWAP: case RP_OP_RC_FETCH_ADD:
	case RP_OP_UD_SEND_ONLY: case RP_OP_UD_SEND_ONLY_IMM:
		return POS_ONLY;
	default:
		return POS_NONE;
	}
}

void rp_psn_init(struct rp_psn *p) { memset(p, 0, sizeof(*p)); }

void rp_psn_free(struct rp_psn *p) { rp_win_free(&p->win); }

int rp_psn_copy(struct rp_psn *d, const struct rp_psn *s)
{
	*d = *s;
	return rp_win_copy(&d->win, &s->win);
}

static void bit_set(uint64_t *bits, uint32_t psn)
{
	uint32_t i = psn % RP_PSN_WINDOW;
	bits[i / 64] |= 1ull << (i % 64);
}

static void bit_clear_run(uint64_t *bits, uint32_t from, uint32_t n)
{
	if (n >= RP_PSN_WINDOW) {
		memset(bits, 0, RP_WIN_WORDS * sizeof(*bits));
		return;
	}
	for (uint32_t k = 0; k < n; k++) {
		uint32_t i = (from + k) % RP_PSN_WINDOW;
		bits[i / 64] &= ~(1ull << (i % 64));
	}
}

static enum rp_psn_verdict track(struct rp_psn *p, uint32_t psn)
{
	int32_t d = rp_psn_diff(p->next, psn);
	if (d == 0) {
		rp_win_take_next(&p->win, psn);
		p->next = rp_psn_add(psn, 1);
		return RP_PSN_IN_ORDER;
	}
	if (d > 0) {
		uint64_t *bits = rp_win_bits(&p->win, p->next);
		if (bits) {
			bit_clear_run(bits, p->next, (uint32_t)d + 1);
			bit_set(bits, psn);
		}
		p->next = rp_psn_add(psn, 1);
		p->gaps++;
		p->skipped += (uint64_t)d;
		p->missing += (uint64_t)d;
		return RP_PSN_GAP;
	}
	if ((uint32_t)-d > RP_PSN_WINDOW || rp_win_get(&p->win, psn, (uint32_t)-d)) {
		p->duplicates++;
		return RP_PSN_DUPLICATE;
	}
	uint64_t *bits = rp_win_bits(&p->win, p->next);
	if (bits)
		bit_set(bits, psn);
	p->filled++;
	if (p->missing)
		p->missing--;
	return RP_PSN_FILLED;
}

/* A jump back (not the next PSN after the previous packet) starts a resend
 * episode; it is go-back-N when it starts at the PSN a NAK asked for. */
static void resend_episode(struct rp_psn *p, uint64_t now, uint32_t psn, bool behind, struct rp_psn_event *ev)
{
	if (p->nak_pending && psn == p->nak_psn) {
		p->nak_pending = false;
		p->go_back_n++;
		ev->nak_resend = true;
		ev->nak_resend_ns = now - p->nak_ns;
		if (behind) { /* everything from here up to the highest PSN seen is sent again */
			p->resending = true;
			p->resend_end = p->next;
		}
	}
	if (behind && psn != rp_psn_add(p->last, 1))
		p->rewinds++;
}

/* Counts the packet as retransmitted, or as a late arrival. */
static void resend_or_late(struct rp_psn *p, uint32_t psn, struct rp_psn_event *ev)
{
	if (p->resending && rp_psn_diff(p->resend_end, psn) >= 0)
		p->resending = false; /* caught up: new packets from here */
	ev->resent = ev->verdict == RP_PSN_DUPLICATE || (p->resending && ev->verdict == RP_PSN_FILLED);
	p->retransmissions += ev->resent;
	p->reordered += ev->verdict == RP_PSN_FILLED && !ev->resent;
}

void rp_psn_message(struct rp_psn *p, uint64_t now, uint8_t opcode, struct rp_psn_event *ev)
{
	switch (opcode_pos(opcode)) {
	case POS_FIRST:
		/* A new PSN starts a message even inside one: the previous LAST
		 * was lost (its time would run on to this message's LAST). A
		 * FIRST sent again (late, resent) keeps the first one's time. */
		if (!p->in_msg || ev->verdict == RP_PSN_IN_ORDER || ev->verdict == RP_PSN_GAP) {
			p->in_msg = true;
			p->msg_first_ns = now;
		}
		break;
	case POS_LAST:
		ev->msg_done = true;
		ev->multi_packet = p->in_msg;
		ev->msg_ns = p->in_msg ? now - p->msg_first_ns : 0;
		p->in_msg = false;
		p->messages++;
		break;
	case POS_ONLY:
		ev->msg_done = true;
		p->messages++;
		break;
	default:
		break;
	}
}

void rp_psn_data_any(struct rp_psn *p, uint64_t now_ns, uint32_t psn, uint8_t opcode, struct rp_psn_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	psn &= RP_PSN_MASK;
	if (!p->started) {
		p->started = true;
		p->first = p->next = psn;
	}
	p->packets++;
	bool behind = rp_psn_diff(p->next, psn) < 0;
	ev->verdict = track(p, psn);
	resend_episode(p, now_ns, psn, behind, ev);
	resend_or_late(p, psn, ev);
	if (ev->verdict != RP_PSN_DUPLICATE)
		rp_psn_message(p, now_ns, opcode, ev);
	p->last = psn;
}

bool rp_psn_hole(struct rp_psn *p, uint32_t psn)
{
	psn &= RP_PSN_MASK;
	if (!p->started) {
		p->started = true;
		p->first = p->next = psn;
	} else if (psn != p->next) {
		return false;
	}
	uint64_t *bits = rp_win_bits(&p->win, p->next);
	if (bits)
		bit_clear_run(bits, psn, 1);
	p->next = rp_psn_add(psn, 1);
	p->last = psn;
	p->gaps++;
	p->skipped++;
	p->missing++;
	return true;
}

void rp_psn_read_response(struct rp_psn *p, uint32_t psn)
{
	psn &= RP_PSN_MASK;
	if (!p->started)
		return;
	int32_t d = rp_psn_diff(p->next, psn);
	if (d == 0) { /* the next PSN: the request's span goes on */
		rp_win_take_next(&p->win, psn);
		p->next = rp_psn_add(psn, 1);
	} else if (d < 0 && (uint32_t)-d <= RP_PSN_WINDOW && !rp_win_get(&p->win, psn, (uint32_t)-d)) {
		/* a later request came first and counted it skipped: it was not */
		uint64_t *bits = rp_win_bits(&p->win, p->next);
		if (bits)
			bit_set(bits, psn);
		p->skipped -= p->skipped > 0;
		p->missing -= p->missing > 0;
	}
}

bool rp_psn_seen(const struct rp_psn *p, uint32_t psn)
{
	psn &= RP_PSN_MASK;
	int32_t d = rp_psn_diff(psn, p->next);
	return p->started && d > 0 && (uint32_t)d <= RP_PSN_WINDOW && rp_win_get(&p->win, psn, (uint32_t)d);
}

void rp_psn_nak(struct rp_psn *p, uint64_t now_ns, uint32_t psn)
{
	p->naks++;
	if (!p->nak_pending || p->nak_psn != (psn & RP_PSN_MASK)) {
		p->nak_pending = true;
		p->nak_psn = psn & RP_PSN_MASK;
		p->nak_ns = now_ns;
	}
}
