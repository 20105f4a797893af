/* libFuzzer harness: the whole-frame parser, and the ARP and Neighbour
 * Discovery parsers a port's RX hands every non-RoCE frame to, must survive
 * any bytes. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "wire/arp.h"
#include "wire/frame.h"
#include "wire/nd.h"
#include "wire/neigh.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The captured part of the payload lies inside the buffer and inside the
 * payload the wire lengths declare. */
static void check(const struct rp_frame *f, size_t size)
{
	if ((f->kind == RP_KIND_ROCE || f->kind == RP_KIND_CNP) &&
	    (f->payload_cap > f->payload_len || f->payload_off + f->payload_cap > size))
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rp_frame f;
	rp_frame_parse(data, size, size, &f);
	check(&f, size);
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
	return 0;
}
