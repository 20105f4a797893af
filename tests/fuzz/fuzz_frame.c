/* libFuzzer harness: the whole-frame parser, and the ARP and Neighbour
 * Discovery parsers a port's RX hands every non-RoCE frame to, must survive
 * any bytes. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "wire/arp.h"
#include "wire/frame.h"
#include "wire/nd.h"

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
	return 0;
}
