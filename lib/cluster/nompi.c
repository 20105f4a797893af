/* A build without MPI: one process, and a clear line when a launcher started it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_internal.h"

int rp_cluster_init(struct rp_cluster *c, volatile sig_atomic_t *stop, int *argc, char ***argv, char *err,
		    size_t errlen)
{
	(void)stop;
	(void)argc;
	(void)argv;
	*c = (struct rp_cluster){0};
	if (rp_cluster_detect(&c->launcher)) {
		snprintf(err, errlen,
			 "started by %s, but this roceprobe was built without MPI (install libopenmpi-dev and rebuild)",
			 c->launcher);
		return -1;
	}
	return rp_cluster_init_single(c, err, errlen);
}

void rp_cluster_finalize(struct rp_cluster *c)
{
	free(c->ranks);
	c->ranks = NULL;
}

int rp_cluster_barrier(const struct rp_cluster *c)
{
	(void)c;
	return 0;
}

int rp_cluster_any_all(const struct rp_cluster *c, bool any_in, bool all_in, bool *any, bool *all)
{
	(void)c;
	*any = any_in;
	*all = all_in;
	return 0;
}

int rp_cluster_bcast(const struct rp_cluster *c, void *buf, size_t len, int root)
{
	(void)c, (void)buf, (void)len, (void)root;
	return 0;
}

int rp_cluster_allgather(const struct rp_cluster *c, const void *mine, size_t len, void *all)
{
	(void)c;
	memcpy(all, mine, len);
	return 0;
}

int rp_cluster_alltoallv(const struct rp_cluster *c, const void *send, const size_t *send_lens, uint8_t **recv,
			 size_t **recv_lens)
{
	(void)c;
	*recv = malloc(send_lens[0] ? send_lens[0] : 1);
	*recv_lens = malloc(sizeof(**recv_lens));
	if (!*recv || !*recv_lens)
		return -1;
	memcpy(*recv, send, send_lens[0]);
	(*recv_lens)[0] = send_lens[0];
	return 0;
}

bool rp_cluster_all_ok(const struct rp_cluster *c, bool ok)
{
	(void)c;
	return ok;
}

_Noreturn void rp_cluster_abort(const struct rp_cluster *c, int rc)
{
	(void)c;
	exit(rc);
}

int rp_cluster_clocks(const struct rp_cluster *c, unsigned rounds, struct rp_clock_offset *offsets)
{
	(void)rounds;
	memset(offsets, 0, (size_t)c->size * sizeof(*offsets));
	return 0;
}

int rp_cluster_sum_u64(const struct rp_cluster *c, uint64_t *v, size_t n)
{
	(void)c, (void)v, (void)n;
	return 0;
}

int rp_cluster_max_u64(const struct rp_cluster *c, uint64_t *v, size_t n)
{
	(void)c, (void)v, (void)n;
	return 0;
}

int rp_cluster_gather(const struct rp_cluster *c, const void *mine, size_t len, uint8_t **all, size_t **lens)
{
	(void)c;
	*all = malloc(len ? len : 1);
	*lens = malloc(sizeof(**lens));
	if (!*all || !*lens)
		return -1;
	memcpy(*all, mine, len);
	(*lens)[0] = len;
	return 0;
}
