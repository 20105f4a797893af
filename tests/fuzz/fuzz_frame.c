/* libFuzzer harness: the whole-frame parser must survive any bytes. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "wire/frame.h"

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
	return 0;
}
