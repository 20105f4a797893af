/* The only file that includes mpi.h: init, collectives, clock ping-pong. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cluster_internal.h"

#define TAG_CLOCK 7001

int rp_cluster_init(struct rp_cluster *c, volatile sig_atomic_t *stop, int *argc, char ***argv, char *err,
		    size_t errlen)
{
	*c = (struct rp_cluster){0};
	c->launched = rp_cluster_detect(&c->launcher);
	if (!c->launched)
		return rp_cluster_init_single(c, err, errlen);
	/* Before MPI_Init: a Ctrl-C to mpirun while it runs is seen (guard.c). */
	if (stop && rp_cluster_guard_start(c, stop) != 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* Serialized: a run's helper thread waits in a barrier while the main
	 * thread polls ports, and only one of them ever calls MPI at a time. */
	int provided = 0;
	if (MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) {
		if (stop && *stop)
			snprintf(err, errlen, "interrupted while MPI started (MPI_Init failed): no result written");
		else
			snprintf(err, errlen, "MPI_Init failed under %s: is this rank reachable from the launcher?",
				 c->launcher);
		rp_cluster_guard_stop(c);
		return -1;
	}
	if (provided < MPI_THREAD_SERIALIZED) {
		snprintf(err, errlen, "this MPI gives thread level %d; roceprobe needs MPI_THREAD_SERIALIZED", provided);
		MPI_Finalize();
		return -1;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &c->rank);
	MPI_Comm_size(MPI_COMM_WORLD, &c->size);
	c->ranks = calloc((size_t)c->size, sizeof(*c->ranks));
	char mine[RP_NODE_NAME_MAX] = "";
	gethostname(mine, sizeof(mine) - 1);
	char *all = calloc((size_t)c->size, RP_NODE_NAME_MAX);
	if (!c->ranks || !all ||
	    MPI_Allgather(mine, RP_NODE_NAME_MAX, MPI_CHAR, all, RP_NODE_NAME_MAX, MPI_CHAR, MPI_COMM_WORLD) != MPI_SUCCESS) {
		free(all);
		snprintf(err, errlen, "cannot exchange node names between %d ranks", c->size);
		return -1;
	}
	for (int r = 0; r < c->size; r++)
		memcpy(c->ranks[r].node, all + (size_t)r * RP_NODE_NAME_MAX, RP_NODE_NAME_MAX);
	free(all);
	rp_cluster_local_ranks(c->ranks, (size_t)c->size);
	return 0;
}

void rp_cluster_finalize(struct rp_cluster *c)
{
	/* After a degraded end MPI is left alone: its finalize waits for the dead. */
	bool degraded = rp_cluster_degraded(c);
	rp_cluster_guard_finalizing(c);
	rp_cluster_watch_stop(c);
	if (c->launched && !degraded && !rp_cluster_launcher_ending(c))
		MPI_Finalize();
	rp_cluster_guard_stop(c);
	free(c->ranks);
	c->ranks = NULL;
}

/* Waits politely for a non-blocking collective: MPI's blocking ones spin, and
 * a rank waiting for the others' senders would take its CPU from the data
 * path (on a 1-vCPU VM, from the very NIC it measures: rxe runs in the kernel
 * of that vCPU). Tested every millisecond: at most ~1 ms late. */
static int wait_politely(const struct rp_cluster *c, MPI_Request *rq)
{
	int done = 0;
	while (!done) {
		if (rp_cluster_degraded(c)) /* a rank died (the watch): this collective would never end */
			return -1;
		if (MPI_Test(rq, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
			return -1;
		if (!done) {
			struct timespec ts = {.tv_nsec = 1000000};
			nanosleep(&ts, NULL);
		}
	}
	return 0;
}

int rp_cluster_barrier(const struct rp_cluster *c)
{
	if (!c->launched)
		return 0;
	MPI_Request rq;
	if (MPI_Ibarrier(MPI_COMM_WORLD, &rq) != MPI_SUCCESS)
		return -1;
	return wait_politely(c, &rq);
}

int rp_cluster_any_all(const struct rp_cluster *c, bool any_in, bool all_in, bool *any, bool *all)
{
	*any = any_in;
	*all = all_in;
	if (!c->launched)
		return 0;
	int in[2] = {any_in, !all_in}, out[2] = {0, 0};
	MPI_Request rq;
	if (MPI_Iallreduce(in, out, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &rq) != MPI_SUCCESS || wait_politely(c, &rq) != 0)
		return -1;
	*any = out[0] != 0;
	*all = out[1] == 0;
	return 0;
}


int rp_cluster_bcast(const struct rp_cluster *c, void *buf, size_t len, int root)
{
	if (!c->launched)
		return 0;
	return len > INT32_MAX || MPI_Bcast(buf, (int)len, MPI_BYTE, root, MPI_COMM_WORLD) != MPI_SUCCESS ? -1 : 0;
}

int rp_cluster_allgather(const struct rp_cluster *c, const void *mine, size_t len, void *all)
{
	if (!c->launched) {
		memcpy(all, mine, len);
		return 0;
	}
	if (len > INT32_MAX)
		return -1;
	return MPI_Allgather(mine, (int)len, MPI_BYTE, all, (int)len, MPI_BYTE, MPI_COMM_WORLD) != MPI_SUCCESS ? -1 : 0;
}

int rp_cluster_alltoallv(const struct rp_cluster *c, const void *send, const size_t *send_lens, uint8_t **recv,
			 size_t **recv_lens)
{
	size_t n = (size_t)c->size, out = 0, in = 0;
	*recv = NULL;
	*recv_lens = calloc(n, sizeof(**recv_lens));
	int *sc = calloc(n, sizeof(int)), *sd = calloc(n, sizeof(int)), *rc = calloc(n, sizeof(int)),
	    *rd = calloc(n, sizeof(int));
	if (!*recv_lens || !sc || !sd || !rc || !rd) {
		fprintf(stderr, "roceprobe: rank %d is out of memory for an exchange with %d ranks\n", c->rank, c->size);
		rp_cluster_abort(c, 2);
	}
	bool ok = true;
	for (size_t r = 0; ok && r < n; r++) { /* counts are ints */
		ok = send_lens[r] <= INT32_MAX && out + send_lens[r] <= INT32_MAX;
		sd[r] = (int)out;
		sc[r] = (int)send_lens[r];
		out += send_lens[r];
	}
	if (!ok) /* too much to say: send nothing, fail with the others */
		memset(sc, 0, n * sizeof(int)), memset(sd, 0, n * sizeof(int));
	if (!c->launched) {
		ok = ok && (*recv = malloc(out ? out : 1)) != NULL;
		if (ok) {
			memcpy(*recv, send, out);
			(*recv_lens)[0] = out;
		}
	} else {
		/* Every rank takes part in both steps, whatever its own state. */
		ok &= MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS;
		for (size_t r = 0; ok && r < n; r++) {
			ok = rc[r] >= 0 && in + (size_t)rc[r] <= INT32_MAX;
			rd[r] = (int)in;
			in += (size_t)rc[r];
			(*recv_lens)[r] = (size_t)rc[r];
		}
		ok = ok && (*recv = malloc(in ? in : 1)) != NULL;
		ok = rp_cluster_all_ok(c, ok);
		if (ok)
			ok = MPI_Alltoallv(send, sc, sd, MPI_BYTE, *recv, rc, rd, MPI_BYTE, MPI_COMM_WORLD) == MPI_SUCCESS;
	}
	free(sc), free(sd), free(rc), free(rd);
	if (!ok) {
		free(*recv), free(*recv_lens);
		*recv = NULL, *recv_lens = NULL;
	}
	return ok ? 0 : -1;
}

bool rp_cluster_all_ok(const struct rp_cluster *c, bool ok)
{
	int in = ok, out = ok;
	if (c->launched && MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD) != MPI_SUCCESS)
		return false;
	return out != 0;
}

_Noreturn void rp_cluster_abort(const struct rp_cluster *c, int rc)
{
	if (c->launched)
		MPI_Abort(MPI_COMM_WORLD, rc);
	exit(rc);
}

int rp_cluster_clocks(const struct rp_cluster *c, unsigned rounds, struct rp_clock_offset *offsets)
{
	memset(offsets, 0, (size_t)c->size * sizeof(*offsets));
	if (!c->launched)
		return 0;
	struct rp_clock_sample *s = calloc(rounds ? rounds : 1, sizeof(*s));
	int rc = s ? 0 : -1;
	for (int r = 1; rc == 0 && r < c->size; r++) {
		for (unsigned i = 0; i < rounds; i++) {
			int64_t t;
			if (c->rank == 0) {
				s[i].t0 = rp_cluster_now_ns();
				MPI_Send(&s[i].t0, 1, MPI_INT64_T, r, TAG_CLOCK, MPI_COMM_WORLD);
				MPI_Recv(&s[i].tr, 1, MPI_INT64_T, r, TAG_CLOCK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				s[i].t1 = rp_cluster_now_ns();
			} else if (c->rank == r) {
				MPI_Recv(&t, 1, MPI_INT64_T, 0, TAG_CLOCK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				t = rp_cluster_now_ns();
				MPI_Send(&t, 1, MPI_INT64_T, 0, TAG_CLOCK, MPI_COMM_WORLD);
			}
		}
		if (c->rank == 0 && rp_clock_estimate(s, rounds, &offsets[r]) != 0)
			rc = -1;
	}
	free(s);
	if (!rp_cluster_all_ok(c, rc == 0))
		return -1;
	return rp_cluster_bcast(c, offsets, (size_t)c->size * sizeof(*offsets), 0);
}

static int reduce_u64(const struct rp_cluster *c, uint64_t *v, size_t n, MPI_Op op)
{
	if (!c->launched || n == 0)
		return 0;
	if (rp_cluster_degraded(c))
		return rp_watch_reduce_u64(c, v, n, op == MPI_MAX);
	for (size_t off = 0; off < n;) { /* counts are ints */
		int k = n - off > (size_t)INT32_MAX ? INT32_MAX : (int)(n - off);
		if (MPI_Allreduce(MPI_IN_PLACE, v + off, k, MPI_UINT64_T, op, MPI_COMM_WORLD) != MPI_SUCCESS)
			return -1;
		off += (size_t)k;
	}
	return 0;
}

int rp_cluster_sum_u64(const struct rp_cluster *c, uint64_t *v, size_t n)
{
	return reduce_u64(c, v, n, MPI_SUM);
}

int rp_cluster_max_u64(const struct rp_cluster *c, uint64_t *v, size_t n)
{
	return reduce_u64(c, v, n, MPI_MAX);
}

int rp_cluster_gather(const struct rp_cluster *c, const void *mine, size_t len, uint8_t **all, size_t **lens)
{
	*all = NULL;
	*lens = NULL;
	if (!c->launched) {
		*all = malloc(len ? len : 1);
		*lens = malloc(sizeof(**lens));
		if (!*all || !*lens)
			return -1;
		memcpy(*all, mine, len);
		(*lens)[0] = len;
		return 0;
	}
	if (rp_cluster_degraded(c))
		return rp_watch_gather(c, mine, len, all, lens);
	if (len > INT32_MAX)
		return -1;
	int n = (int)len, *counts = NULL, *displs = NULL;
	if (c->rank == 0) {
		counts = calloc((size_t)c->size, sizeof(int));
		displs = calloc((size_t)c->size, sizeof(int));
		if (!counts || !displs) {
			fprintf(stderr, "roceprobe: rank 0 is out of memory for %d ranks' results\n", c->size);
			rp_cluster_abort(c, 2);
		}
	}
	bool ok = true;
	if (MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
		ok = false;
	size_t total = 0;
	for (int r = 0; c->rank == 0 && ok && r < c->size; r++) {
		ok &= counts[r] >= 0 && total + (size_t)counts[r] <= INT32_MAX;
		displs[r] = (int)total;
		total += counts[r] > 0 ? (size_t)counts[r] : 0;
	}
	if (c->rank == 0 && ok) {
		*all = malloc(total ? total : 1);
		*lens = calloc((size_t)c->size, sizeof(**lens));
		ok = *all && *lens;
	}
	if (!rp_cluster_all_ok(c, ok)) {
		free(counts), free(displs), free(*all), free(*lens);
		*all = NULL, *lens = NULL;
		return -1;
	}
	int rc = MPI_Gatherv(mine, (int)len, MPI_BYTE, *all, counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD);
	for (int r = 0; c->rank == 0 && r < c->size; r++)
		(*lens)[r] = (size_t)counts[r];
	free(counts);
	free(displs);
	return rc == MPI_SUCCESS ? 0 : -1;
}
