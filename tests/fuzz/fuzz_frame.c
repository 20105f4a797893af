/* libFuzzer harness: the whole-frame parser must survive any bytes. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "wire/frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rp_frame f;
	rp_frame_parse(data, size, size, &f);
	/* As a capture with a snaplen would hand it: the wire frame was longer. */
	rp_frame_parse(data, size, size + 64, &f);
	/* Whatever the parser reports must be a usable string. */
	if (f.kind == RP_KIND_MALFORMED && strlen(f.error) == 0)
		__builtin_trap();
	return 0;
}
