/* libFuzzer harness: the whole-frame parser, the fast classifier
 * (wire/classify.h) and the ARP and Neighbour Discovery parsers a port's RX
 * hands every non-RoCE frame to, must survive any bytes; the fast classifier
 * must agree with the full parse. A mirror's ERSPAN copy decapsulates to a
 * frame inside the buffer, parsed like any. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "wire/arp.h"
#include "wire/classify.h"
#include "wire/erspan.h"
#include "wire/frame.h"
#include "wire/nd.h"
#include "wire/neigh.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The captured part of the payload lies inside the buffer and inside the
 * payload the wire lengths declare (a snaplen that cut the headers leaves
 * none captured: payload_cap 0, payload_off where the wire has it). */
static void check(const struct rp_frame *f, size_t size)
{
	if ((f->kind == RP_KIND_ROCE || f->kind == RP_KIND_CNP) &&
	    (f->payload_cap > f->payload_len || (f->payload_cap && f->payload_off + f->payload_cap > size)))
		__builtin_trap();
}

static bool definite(enum rp_frame_kind k)
{
	return k == RP_KIND_ROCE || k == RP_KIND_CNP || k == RP_KIND_PFC || k == RP_KIND_PAUSE;
}

/* classify.h's promise: where the full parse says pfc/pause/roce/cnp the
 * fast kind is the same; where the fast kind is one of those and the full
 * parse disagrees, it found the frame malformed. CE and the opcode agree
 * whenever the full parse got that far. Offsets stay inside the frame. */
static void check_fast(const uint8_t *data, size_t size, const struct rp_frame *f)
{
	enum rp_frame_kind fast = rp_cls_kind(data, size);
	if (definite(f->kind) && fast != f->kind)
		__builtin_trap();
	if (definite(fast) && f->kind != fast && f->kind != RP_KIND_MALFORMED)
		__builtin_trap();
	bool ce = rp_cls_ce(data, size);
	if ((f->l3 == 4 && ce != (f->ip4.ecn == RP_ECN_CE)) || (f->l3 == 6 && ce != (f->ip6.ecn == RP_ECN_CE)))
		__builtin_trap();
	if ((f->kind == RP_KIND_ROCE || f->kind == RP_KIND_CNP) && rp_cls_opcode(data, size) != f->bth.opcode)
		__builtin_trap();
	size_t off = 0;
	if (rp_cls_macctl(data, size, &off) && off + 2 > size)
		__builtin_trap();
	size_t bth = rp_cls_bth(data, size);
	if (bth && bth + RP_BTH_LEN > size)
		__builtin_trap();
	size_t udp = rp_cls_udp(data, size);
	if (udp && udp + RP_UDP_HLEN > size)
		__builtin_trap();
	(void)rp_cls_is_arp(data, size);
	(void)rp_cls_is_nd(data, size);
	(void)rp_frame_is_roce_data(data, size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rp_frame f;
	rp_frame_parse(data, size, size, &f);
	check(&f, size);
	check_fast(data, size, &f);
	/* As a capture with a snaplen would hand it: the wire frame was longer. */
	rp_frame_parse(data, size, size + 64, &f);
	check(&f, size);
	/* Whatever the parser reports must be a usable string. */
	if (f.kind == RP_KIND_MALFORMED && strlen(f.error) == 0)
		__builtin_trap();
	struct rp_arp arp;
	struct rp_nd nd;
	rp_arp_parse(data, size, &arp);
	if (rp_nd_parse(data, size, &nd) == 0 && nd.type != RP_ND_NS && nd.type != RP_ND_NA)
		__builtin_trap();
	/* The responder: any frame, for a port with both families; an answer fits
	 * what was given and is never longer than an NA with its option (86 B). */
	static const struct rp_neigh_self self = {.mac = {2, 0, 0, 0, 0, 1}, .has_ip4 = true, .ip4 = 0x0a010002,
						  .has_ip6 = true, .ip6 = {0xfd, 0, 0, 1, [15] = 2}};
	uint8_t reply[128];
	struct rp_neigh_rx nr;
	enum rp_neigh_kind k = rp_neigh_rx(&self, data, size, &nr, reply, sizeof(reply));
	if (nr.reply_len > 86 || (k == RP_NEIGH_NONE && (nr.reply_len || nr.has_binding)))
		__builtin_trap();
	/* lib/dp/neigh.c hands the responder only what classify.h calls ARP or NS/NA. */
	if (k != RP_NEIGH_NONE && !rp_cls_is_arp(data, size) && !rp_cls_is_nd(data, size))
		__builtin_trap();
	struct rp_erspan e;
	if (rp_erspan_decap(data, size, &e)) {
		if (e.inner_off > size || e.type < 1 || e.type > 3 || e.session > 0x3FF)
			__builtin_trap();
		rp_frame_parse(data + e.inner_off, size - e.inner_off, size - e.inner_off, &f);
		check(&f, size - e.inner_off);
	}
	return 0;
}
