/* libFuzzer harness: the roceprobe.counters/1 reader (lib/counters/snap_read.c),
 * which `replay infer` runs on the counter series a user hands in. Any input
 * is refused with a reason or read; what it read, written again by
 * rp_cnt_json, reads back and writes the same bytes (a fixed point after one
 * round: names the reader cut to its fields stay cut). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "counters/snap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *dump(const struct rp_cnt_snap *s, bool delta, uint64_t iv)
{
	json_t *j = rp_cnt_json(s, delta, iv);
	char *t = j ? json_dumps(j, JSON_COMPACT) : NULL;
	json_decref(j);
	return t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rp_cnt_snap a, b;
	char err[400];
	bool delta, delta2;
	uint64_t iv, iv2;
	err[0] = '\0';
	if (rp_cnt_json_read((const char *)data, size, &a, &delta, &iv, err, sizeof(err))) {
		if (!err[0] || a.nports)
			abort(); /* refused: a reason, nothing kept */
		return 0;
	}
	char *d1 = dump(&a, delta, iv);
	if (!d1)
		abort();
	if (rp_cnt_json_read(d1, strlen(d1), &b, &delta2, &iv2, err, sizeof(err)) || delta2 != delta || iv2 != iv)
		abort();
	char *d2 = dump(&b, delta2, iv2);
	if (!d2)
		abort();
	/* the second round is the first's fixed point */
	struct rp_cnt_snap *c = &a;
	if (rp_cnt_json_read(d2, strlen(d2), c, &delta2, &iv2, err, sizeof(err)))
		abort();
	char *d3 = dump(c, delta2, iv2);
	if (!d3 || strcmp(d2, d3) != 0)
		abort();
	free(d1);
	free(d2);
	free(d3);
	rp_cnt_snap_free(&a);
	rp_cnt_snap_free(&b);
	return 0;
}
