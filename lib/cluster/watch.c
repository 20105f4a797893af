/* The watch (cluster.h): one TCP connection from every rank to rank 0,
 * beside MPI, so that a rank that dies (kill -9, a crash) is seen at once by
 * whatever launcher started the job: the kernel closes a dead process's
 * sockets, and rank 0 reads the end of the stream. Open MPI 4.1 reacts to a
 * dead rank by killing the job a second later (docs/cluster.md) and Slurm
 * not at all; MPI on one machine (shared memory) never says anything. No
 * MPI here but the collectives of mpi.c / nompi.c to exchange the address.
 *
 *   rank r --- TCP --- rank 0        messages: u8 type, u32 length, bytes
 *                                    (watch_msg.h: the format, each type's cap)
 *   'E' r->0 its run is over         'S' 0->r stop: a rank died (dead list)
 *   'V' 0->r the verdict after the run: u8 degraded, u8 dead[size]
 *   'D' both ways: one step of a collective when degraded (watch_gather)
 *   'B' both ways: a normal end, the socket closes next
 *   'X' 0->r a rank died when nothing could be saved: exit (rank 0 said why)
 *
 * One thread per rank reads every message (blocking reads: a peer either
 * writes a message whole or dies, and then the read ends); the main thread
 * waits on a condition for what it needs.
 *
 * Who may join: rank 0 draws a secret for the job (lib/auth, the kernel's
 * CSPRNG) and broadcasts it over MPI before it opens any socket; it listens
 * only on the addresses it announces (loopback when a rank shares its node,
 * its other IPv4 addresses when a rank is elsewhere), and a connection joins
 * as rank r only once it proved the secret for r (watch_msg.h). Anything else
 * (no proof, a wrong one, too slow, a rank that already joined) is closed,
 * counted (result.json's cluster.watch_refused) and cannot take a rank's
 * place; once every rank joined rank 0 listens no more. */
#include <errno.h>
#include <stddef.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cluster_internal.h"
#include "watch_join.h"
#include "watch_msg.h"

#define ACCEPT_MS 20000 /* every rank joins within this, or the run stops */

enum { PHASE_SETUP, PHASE_RUN, PHASE_END_MPI, PHASE_END_WATCH };

struct peer {
	int fd;
	bool gone;
	bool tx_done, ended, bye; /* got 'T', 'E', 'B' */
	struct rp_watch_msg *head, *tail; /* 'D' messages not taken yet */
};

struct rp_watch {
	const struct rp_cluster *c;
	struct peer *peers; /* rank 0: by rank (peers[0] unused); else peers[0] is rank 0 */
	int npeers;
	pthread_t thread;
	bool thread_on;
	pthread_mutex_t mu, send_mu;
	pthread_cond_t cv;
	volatile sig_atomic_t *stop;
	int phase;
	bool degraded, verdict;
	bool *dead; /* [size] */
	int64_t fault_ns; /* when rank 0 saw the first death (rp_cluster_now_ns) */
	volatile bool quit;
	struct rp_auth_key key; /* the job's secret: zeroed once every rank joined */
	unsigned refused;	/* rank 0: connections closed without joining */
};

static int write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int read_all(int fd, void *buf, size_t len)
{
	uint8_t *p = buf;
	while (len) {
		ssize_t n = recv(fd, p, len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int send_msg(struct rp_watch *w, struct peer *p, uint8_t type, const void *data, size_t len)
{
	uint8_t hdr[RP_WATCH_HDR_LEN];
	if (p->fd < 0 || len > RP_WATCH_DATA_MAX)
		return -1;
	rp_watch_hdr_build(hdr, type, (uint32_t)len);
	pthread_mutex_lock(&w->send_mu);
	int rc = write_all(p->fd, hdr, sizeof(hdr)) || (len && write_all(p->fd, data, len)) ? -1 : 0;
	pthread_mutex_unlock(&w->send_mu);
	return rc;
}

static int read_fd(void *arg, void *buf, size_t len)
{
	return read_all(*(int *)arg, buf, len);
}

/* A message from peer r (rank 0's peer when this is another rank), or NULL
 * when it is gone or broke the rules (said on stderr: a bug, not a death). */
static struct rp_watch_msg *read_msg(struct rp_watch *w, int fd, int r)
{
	const struct rp_cluster *c = w->c;
	struct rp_watch_rules rules = {.from_rank0 = c->rank != 0, .size = c->size, .degraded = w->degraded};
	struct rp_watch_msg *m;
	char err[160];
	if (rp_watch_msg_read(read_fd, &fd, &rules, &m, err, sizeof(err)) != 0 && err[0])
		fprintf(stderr, "roceprobe run: the watch's connection %s rank %d broke: %s\n",
			c->rank == 0 ? "from" : "to", r, err);
	return m;
}

static struct rp_watch *W(const struct rp_cluster *c)
{
	return c->launched ? c->watch : NULL;
}

/* ---- the thread ---- */

/* Rank 0: rank r is gone without saying goodbye. While traffic runs the run
 * stops and carries on without it; before the run or while MPI carries the
 * results nothing can be saved: one line, exit (atexit handlers remove what
 * DPDK left; the other ranks see rank 0 go). */
static void lost_rank(struct rp_watch *w, int r)
{
	const struct rp_cluster *c = w->c;
	struct peer *p = &w->peers[r];
	close(p->fd);
	p->fd = -1;
	p->gone = true;
	w->dead[r] = true;
	if (w->phase == PHASE_SETUP || w->phase == PHASE_END_MPI) {
		fprintf(stderr, "roceprobe run: rank %d (node %s) died %s: no result written\n", r, c->ranks[r].node,
			w->phase == PHASE_SETUP ? "before the traffic started" : "while the results were gathered");
		for (int k = 1; k < c->size; k++) /* the others end quietly: this line is the one */
			if (!w->dead[k])
				send_msg(w, &w->peers[k], 'X', NULL, 0);
		exit(RP_CLUSTER_EXIT_INCOMPLETE);
	}
	if (!w->degraded) {
		w->degraded = true;
		w->fault_ns = rp_cluster_now_ns();
		*w->stop = 1;
		for (int k = 1; k < c->size; k++)
			if (!w->dead[k])
				send_msg(w, &w->peers[k], 'S', w->dead, (size_t)c->size);
	}
}

static void take(struct rp_watch *w, struct peer *p, int r, struct rp_watch_msg *m)
{
	const struct rp_cluster *c = w->c;
	switch (m->type) {
	case 'T': p->tx_done = true; break;
	case 'X': exit(RP_CLUSTER_EXIT_INCOMPLETE); /* from rank 0: a rank died, nothing to save */
	case 'E': p->ended = true; break;
	case 'B': p->bye = true; break;
	case 'S': /* from rank 0: a rank died, stop */
	case 'V':
		if (rp_watch_dead_apply(m, w->dead, c->size))
			w->degraded = true, *w->stop = 1;
		w->verdict |= m->type == 'V';
		break;
	case 'D':
		if (p->tail)
			p->tail->next = m;
		else
			p->head = m;
		p->tail = m;
		return;
	default: fprintf(stderr, "roceprobe run: the watch got message %u from rank %d\n", m->type, r); break;
	}
	free(m);
}

static void *watch_thread(void *arg)
{
	struct rp_watch *w = arg;
	const struct rp_cluster *c = w->c;
	struct pollfd *fds = calloc((size_t)w->npeers, sizeof(*fds));
	while (fds && !w->quit) {
		int n = 0;
		for (int k = 0; k < w->npeers; k++)
			fds[k] = (struct pollfd){.fd = w->peers[k].gone || w->peers[k].bye ? -1 : w->peers[k].fd,
						 .events = POLLIN};
		for (int k = 0; k < w->npeers; k++)
			n += fds[k].fd >= 0;
		if (n == 0)
			break;
		if (poll(fds, (nfds_t)w->npeers, 50) <= 0)
			continue;
		for (int k = 0; k < w->npeers; k++) {
			if (fds[k].fd < 0 || !fds[k].revents)
				continue;
			struct peer *p = &w->peers[k];
			int r = c->rank == 0 ? k : 0;
			struct rp_watch_msg *m = read_msg(w, p->fd, r);
			pthread_mutex_lock(&w->mu);
			if (m) {
				take(w, p, r, m);
			} else if (c->rank == 0) {
				lost_rank(w, r);
			} else if (!p->bye) { /* rank 0 is gone: nobody can write a result */
				p->gone = true;
				if (c->rank == 1)
					fprintf(stderr, "roceprobe run: rank 0 (node %s) died: no result written\n",
						c->ranks[0].node);
				exit(RP_CLUSTER_EXIT_INCOMPLETE);
			}
			pthread_cond_broadcast(&w->cv);
			pthread_mutex_unlock(&w->mu);
		}
	}
	free(fds);
	return NULL;
}

/* ---- set-up ---- */

static void watch_free(struct rp_watch *w)
{
	if (!w)
		return;
	for (int k = 0; w->peers && k < w->npeers; k++) {
		if (w->peers[k].fd >= 0)
			close(w->peers[k].fd);
		for (struct rp_watch_msg *m = w->peers[k].head, *n; m; m = n) {
			n = m->next;
			free(m);
		}
	}
	pthread_mutex_destroy(&w->mu);
	pthread_mutex_destroy(&w->send_mu);
	pthread_cond_destroy(&w->cv);
	free(w->peers);
	free(w->dead);
	free(w);
}

static struct rp_watch *watch_new(const struct rp_cluster *c, volatile sig_atomic_t *stop)
{
	struct rp_watch *w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	*w = (struct rp_watch){.c = c, .stop = stop, .npeers = c->rank == 0 ? c->size : 1};
	pthread_mutex_init(&w->mu, NULL);
	pthread_mutex_init(&w->send_mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	w->peers = calloc((size_t)w->npeers, sizeof(*w->peers));
	w->dead = calloc((size_t)c->size, sizeof(*w->dead));
	if (!w->peers || !w->dead) {
		watch_free(w);
		return NULL;
	}
	for (int k = 0; k < w->npeers; k++)
		w->peers[k].fd = -1;
	w->peers[0].gone = c->rank == 0; /* rank 0 has no peer 0 */
	return w;
}

/* The job's secret: drawn by rank 0 and broadcast over MPI before any
 * socket opens; every rank takes part whatever its state (a collective). */
static const char *share_key(struct rp_watch *w, const struct rp_cluster *c, char *err, size_t errlen)
{
	struct rp_auth_key key = {{0}};
	bool ok = rp_auth_init(err, errlen) == 0;
	if (ok && c->rank == 0)
		rp_auth_key_draw(&key);
	if (rp_cluster_bcast(c, &key, sizeof(key), 0) != 0)
		return "cannot share the watch's secret over MPI";
	if (w)
		w->key = key;
	explicit_bzero(&key, sizeof(key));
	return ok ? "" : err;
}

int rp_cluster_watch_start(struct rp_cluster *c, volatile sig_atomic_t *stop, char *err, size_t errlen)
{
	if (!c->launched)
		return 0;
	struct rp_watch *w = watch_new(c, stop);
	struct rp_watch_addr wa = {0};
	char why0[RP_CLUSTER_ERR_LEN] = "";
	const char *why = share_key(w, c, why0, sizeof(why0));
	int lfds[RP_WATCH_ADDRS], nl = 0;
	if (!w)
		why = "out of memory";
	if (c->rank == 0 && !why[0] && (nl = rp_watch_listen(c, &wa, lfds, why0, sizeof(why0))) < 0)
		why = why0;
	if (rp_cluster_bcast(c, &wa, sizeof(wa), 0) != 0)
		why = "cannot exchange the watch's address";
	if (c->rank != 0 && !why[0])
		w->peers[0].fd = rp_watch_connect(c, &wa, &w->key, ACCEPT_MS, &why);
	if (c->rank == 0 && nl > 0) {
		int *fd = calloc((size_t)c->size, sizeof(*fd));
		for (int r = 0; fd && r < c->size; r++)
			fd[r] = -1;
		if (!fd)
			why = "out of memory";
		else if (rp_watch_accept(c, lfds, nl, &w->key, fd, &w->refused, ACCEPT_MS) != 0)
			why = "not every rank joined the watch in 20 s";
		for (int r = 1; fd && r < c->size; r++)
			w->peers[r].fd = fd[r];
		free(fd);
		for (int k = 0; k < nl; k++) /* nobody joins from here on */
			close(lfds[k]);
	}
	if (w)
		explicit_bzero(&w->key, sizeof(w->key)); /* needed no more */
	if (w && !why[0] && pthread_create(&w->thread, NULL, watch_thread, w) == 0)
		w->thread_on = true;
	else if (!why[0])
		why = "cannot start the watch thread";
	char first[RP_CLUSTER_ERR_LEN];
	if (!rp_cluster_agree(c, why, first, sizeof(first))) {
		snprintf(err, errlen, "%s", first);
		if (w && w->thread_on) {
			w->quit = true;
			pthread_join(w->thread, NULL);
		}
		watch_free(w);
		return -1;
	}
	c->watch = w;
	return 0;
}

unsigned rp_cluster_watch_refused(const struct rp_cluster *c)
{
	struct rp_watch *w = W(c);
	return w ? w->refused : 0;
}

void rp_cluster_watch_run(struct rp_cluster *c)
{
	rp_cluster_guard_run(c);
	struct rp_watch *w = W(c);
	if (!w)
		return;
	pthread_mutex_lock(&w->mu);
	w->phase = PHASE_RUN;
	pthread_mutex_unlock(&w->mu);
}

bool rp_cluster_degraded(const struct rp_cluster *c)
{
	struct rp_watch *w = W(c);
	return w && w->degraded;
}

bool rp_cluster_rank_lost(const struct rp_cluster *c, int rank)
{
	struct rp_watch *w = W(c);
	return w && rank >= 0 && rank < c->size && w->dead[rank];
}

int64_t rp_cluster_fault_ns(const struct rp_cluster *c)
{
	struct rp_watch *w = W(c);
	return w ? w->fault_ns : 0;
}

static void wait_locked(struct rp_watch *w)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += 50000000;
	if (ts.tv_nsec >= 1000000000)
		ts.tv_sec++, ts.tv_nsec -= 1000000000;
	pthread_cond_timedwait(&w->cv, &w->mu, &ts);
}

/* Rank 0 waits until every living rank has set its flag (the field at off in
 * struct peer), then clears them; other ranks send type and wait for reply. */
static bool *peer_flag(struct peer *p, size_t off)
{
	return (bool *)((uint8_t *)p + off);
}

static void gather_flags(struct rp_watch *w, size_t off)
{
	pthread_mutex_lock(&w->mu);
	for (int k = 1; k < w->c->size; k++)
		while (!*peer_flag(&w->peers[k], off) && !w->peers[k].gone)
			wait_locked(w);
	for (int k = 1; k < w->c->size; k++)
		*peer_flag(&w->peers[k], off) = false;
	pthread_mutex_unlock(&w->mu);
}

int rp_cluster_watch_barrier(const struct rp_cluster *c)
{
	struct rp_watch *w = W(c);
	if (!w)
		return 0;
	if (c->rank != 0) {
		if (send_msg(w, &w->peers[0], 'T', NULL, 0) != 0)
			return -1;
		pthread_mutex_lock(&w->mu);
		while (!w->peers[0].tx_done)
			wait_locked(w);
		w->peers[0].tx_done = false;
		pthread_mutex_unlock(&w->mu);
		return 0;
	}
	gather_flags(w, offsetof(struct peer, tx_done));
	for (int k = 1; k < c->size; k++)
		if (!w->dead[k])
			send_msg(w, &w->peers[k], 'T', NULL, 0);
	return 0;
}

bool rp_cluster_run_over(struct rp_cluster *c)
{
	struct rp_watch *w = W(c);
	if (!w)
		return false;
	if (c->rank != 0) {
		send_msg(w, &w->peers[0], 'E', NULL, 0);
		pthread_mutex_lock(&w->mu);
		while (!w->verdict)
			wait_locked(w);
	} else {
		gather_flags(w, offsetof(struct peer, ended));
		pthread_mutex_lock(&w->mu);
		uint8_t *v = calloc(1, (size_t)c->size + 1);
		if (v) {
			v[0] = w->degraded;
			for (int k = 0; k < c->size; k++)
				v[k + 1] = w->dead[k];
			for (int k = 1; k < c->size; k++)
				if (!w->dead[k])
					send_msg(w, &w->peers[k], 'V', v, (size_t)c->size + 1);
		}
		free(v);
	}
	w->phase = w->degraded ? PHASE_END_WATCH : PHASE_END_MPI;
	bool d = w->degraded;
	pthread_mutex_unlock(&w->mu);
	return d;
}

/* ---- the collectives of a degraded end: a star through rank 0 ---- */

static struct rp_watch_msg *next_data(struct rp_watch *w, struct peer *p)
{
	pthread_mutex_lock(&w->mu);
	while (!p->head && !p->gone)
		wait_locked(w);
	struct rp_watch_msg *m = p->head;
	if (m && !(p->head = m->next))
		p->tail = NULL;
	pthread_mutex_unlock(&w->mu);
	return m;
}

int rp_watch_gather(const struct rp_cluster *c, const void *mine, size_t len, uint8_t **all, size_t **lens)
{
	struct rp_watch *w = W(c);
	*all = NULL;
	*lens = NULL;
	if (c->rank != 0)
		return send_msg(w, &w->peers[0], 'D', mine, len);
	struct rp_watch_msg **got = calloc((size_t)c->size, sizeof(*got));
	size_t total = len;
	for (int k = 1; got && k < c->size; k++)
		if (!w->dead[k] && (got[k] = next_data(w, &w->peers[k])) != NULL)
			total += got[k]->len;
	*all = got ? malloc(total ? total : 1) : NULL;
	*lens = got ? calloc((size_t)c->size, sizeof(**lens)) : NULL;
	int rc = *all && *lens ? 0 : -1;
	size_t off = len;
	if (rc == 0) {
		memcpy(*all, mine, len);
		(*lens)[0] = len;
	}
	for (int k = 1; got && k < c->size; k++) {
		if (rc == 0 && got[k]) {
			memcpy(*all + off, got[k]->data, got[k]->len);
			(*lens)[k] = got[k]->len;
			off += got[k]->len;
		}
		free(got[k]);
	}
	free(got);
	return rc;
}

int rp_watch_reduce_u64(const struct rp_cluster *c, uint64_t *v, size_t n, bool max)
{
	struct rp_watch *w = W(c);
	uint8_t *all = NULL;
	size_t *lens = NULL;
	if (rp_watch_gather(c, v, n * sizeof(*v), &all, &lens) != 0)
		return -1;
	if (c->rank != 0) {
		struct rp_watch_msg *m = next_data(w, &w->peers[0]);
		int rc = m && m->len == n * sizeof(*v) ? 0 : -1;
		if (rc == 0)
			memcpy(v, m->data, m->len);
		free(m);
		return rc;
	}
	size_t off = lens[0];
	for (int k = 1; k < c->size; k++) {
		if (lens[k] == n * sizeof(*v)) { /* a living rank's; the dead have none */
			const uint64_t *in = (const uint64_t *)(void *)(all + off);
			for (size_t i = 0; i < n; i++) {
				uint64_t x;
				memcpy(&x, in + i, sizeof(x));
				v[i] = max ? (x > v[i] ? x : v[i]) : v[i] + x;
			}
		}
		off += lens[k];
	}
	free(all);
	free(lens);
	for (int k = 1; k < c->size; k++)
		if (!w->dead[k])
			send_msg(w, &w->peers[k], 'D', v, n * sizeof(*v));
	return 0;
}

/* ---- the end ---- */

void rp_cluster_watch_stop(struct rp_cluster *c)
{
	struct rp_watch *w = W(c);
	if (!w)
		return;
	if (c->rank == 0) {
		for (int k = 1; k < c->size; k++)
			if (!w->dead[k])
				send_msg(w, &w->peers[k], 'B', NULL, 0);
	} else {
		send_msg(w, &w->peers[0], 'B', NULL, 0);
		/* A degraded end: rank 0 is still writing; exiting before it does
		 * makes mpirun kill it (a rank that ends without MPI_Finalize). */
		pthread_mutex_lock(&w->mu);
		while (w->degraded && !w->peers[0].bye && !w->peers[0].gone)
			wait_locked(w);
		pthread_mutex_unlock(&w->mu);
	}
	w->quit = true;
	if (w->thread_on)
		pthread_join(w->thread, NULL);
	watch_free(w);
	c->watch = NULL;
}
