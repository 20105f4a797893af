/* What runs on every rank the same way, over the collectives of mpi.c /
 * nompi.c: agreeing that every rank is ready, and the common start. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cluster_internal.h"

#define AGREE_LEN 480

bool rp_cluster_agree(const struct rp_cluster *c, const char *my_err, char *first, size_t len)
{
	char mine[AGREE_LEN];
	snprintf(mine, sizeof(mine), "%s", my_err ? my_err : "");
	if (!c->launched) {
		if (mine[0])
			snprintf(first, len, "%s", mine);
		return !mine[0];
	}
	char *all = calloc((size_t)c->size, AGREE_LEN);
	if (!all || rp_cluster_allgather(c, mine, AGREE_LEN, all) != 0) {
		free(all);
		snprintf(first, len, "the ranks could not exchange their state");
		return false;
	}
	bool ok = true;
	for (int r = 0; r < c->size && ok; r++) {
		const char *e = all + (size_t)r * AGREE_LEN;
		if (e[0]) {
			snprintf(first, len, "rank %d (node %s): %.*s", r, c->ranks[r].node, AGREE_LEN, e);
			ok = false;
		}
	}
	free(all);
	return ok;
}

int rp_cluster_start_when(const struct rp_cluster *c, int64_t margin_ns, int64_t *t0)
{
	int64_t when = rp_cluster_now_ns() + margin_ns;
	if (c->launched && rp_cluster_bcast(c, &when, sizeof(when), 0) != 0)
		return -1;
	*t0 = when;
	return 0;
}

void rp_cluster_start_wait(const struct rp_cluster *c, const struct rp_clock_offset *offsets, int64_t t0,
			   int64_t *skew_ns)
{
	int64_t off = offsets ? offsets[c->rank].offset_ns : 0, now;
	/* Sleep to 200 us before, then spin: the wake-up is then a few us late at
	 * most. A stop (guard.c) ends the wait: the run it starts ends at once. */
	while ((now = rp_cluster_now_ns() - off) < t0 - 200000) {
		if (c->launched && rp_cluster_guard_stopped(c)) {
			*skew_ns = 0;
			return;
		}
		int64_t left = t0 - 200000 - now;
		left = left > 10000000 ? 10000000 : left;
		struct timespec ts = {.tv_nsec = left};
		nanosleep(&ts, NULL);
	}
	while ((now = rp_cluster_now_ns() - off) < t0)
		;
	*skew_ns = now - t0;
}
