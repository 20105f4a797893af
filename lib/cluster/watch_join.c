/* Joining rank 0's watch (watch_join.h): rank 0 listens on the addresses it
 * announces and takes a connection as rank r only once it proved the job's
 * secret for r (watch_msg.h); every rank checks rank 0's proof in turn.
 *
 * Rank 0 proves up to JOINING_MAX connections at once, each within JOIN_MS
 * (non-blocking, one poll over the listening sockets and them): a stranger
 * that connects and says nothing, or too little, holds no rank back. When
 * all are taken, the next connection waits in the kernel's backlog (a
 * thousand ranks joining at once) unless the oldest has been proving itself
 * for EVICT_MS (a rank answers its challenge in well under that): then that
 * one goes, so that strangers holding every place cannot keep the ranks out. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "watch_join.h"
#include "watch_msg.h"

#define CONNECT_MS 1500 /* one attempt's wait for the SYN's answer (TCG guests are slow) */
#define RETRY_MS 200	/* between rounds of attempts */
#define JOIN_MS 2000	/* a connection proves itself this fast, or is closed */
#define JOINING_MAX 64	/* connections proving themselves at once, the rest wait in the backlog */
#define EVICT_MS 250	/* when all are taken, the oldest goes if it has been proving this long */
#define REFUSED_SAID 8	/* rank 0's lines about refused connections; the rest are counted */
#define LISTEN_TRIES 16 /* ports tried until one is free on every address */

static int64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* len bytes in or out of a non-blocking socket by the deadline: 0 or -1. */
static int io_until(int fd, void *buf, size_t len, bool out, int64_t until)
{
	uint8_t *p = buf;
	while (len) {
		ssize_t n = out ? send(fd, p, len, MSG_NOSIGNAL) : recv(fd, p, len, 0);
		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
			return -1;
		int64_t left = until - mono_ms();
		struct pollfd pf = {.fd = fd, .events = out ? POLLOUT : POLLIN};
		if (left <= 0 || poll(&pf, 1, (int)left) < 0)
			return -1;
	}
	return 0;
}

/* Keepalive probes after 2 s of silence, 1 s apart, 3 of them: a machine that
 * vanishes (power, cable) closes nothing, and is seen gone in about 5 s. */
int rp_watch_sock_setup(int fd)
{
	int one = 1, idle = 2, intvl = 1, cnt = 3, fl = fcntl(fd, F_GETFL);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
}

/* ---- rank 0 ---- */

/* The addresses the ranks need: loopback for those on rank 0's node, every
 * other IPv4 address that is up for those elsewhere. */
static int wanted_addrs(const struct rp_cluster *c, struct rp_watch_addr *wa, char *err, size_t errlen)
{
	bool near = false, far = false;
	for (int r = 1; r < c->size; r++) {
		bool same = !strcmp(c->ranks[r].node, c->ranks[0].node);
		near |= same;
		far |= !same;
	}
	wa->naddr = 0;
	if (near)
		wa->addr[wa->naddr++] = htonl(INADDR_LOOPBACK);
	if (!far)
		return 0;
	struct ifaddrs *ifs = NULL;
	if (getifaddrs(&ifs) != 0) {
		snprintf(err, errlen, "cannot list rank 0's addresses for the watch: %s", strerror(errno));
		return -1;
	}
	uint32_t before = wa->naddr;
	for (struct ifaddrs *i = ifs; i && wa->naddr < RP_WATCH_ADDRS; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && (i->ifa_flags & IFF_UP) &&
		    !(i->ifa_flags & IFF_LOOPBACK))
			wa->addr[wa->naddr++] = ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr;
	freeifaddrs(ifs);
	if (wa->naddr == before) {
		snprintf(err, errlen, "rank 0 has no IPv4 address but loopback for the ranks on other nodes to reach");
		return -1;
	}
	return 0;
}

static int listen_one(uint32_t addr, uint16_t *port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), one = 1;
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(*port), .sin_addr.s_addr = addr};
	socklen_t len = sizeof(a);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(fd, 1024) != 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	*port = ntohs(a.sin_port);
	return fd;
}

int rp_watch_listen(const struct rp_cluster *c, struct rp_watch_addr *wa, int lfds[RP_WATCH_ADDRS], char *err,
		    size_t errlen)
{
	*wa = (struct rp_watch_addr){0};
	if (wanted_addrs(c, wa, err, errlen) != 0)
		return -1;
	/* A port of the user's (a firewall between the nodes lets it through),
	 * else the first address picks a free one and the others must have it
	 * free too. */
	const char *env = getenv("ROCEPROBE_WATCH_PORT");
	char *end = NULL;
	long fixed = env ? strtol(env, &end, 10) : 0;
	if (env && (!*env || *end || fixed < 1 || fixed > 65535)) {
		snprintf(err, errlen, "ROCEPROBE_WATCH_PORT=%s is not a TCP port (1-65535)", env);
		return -1;
	}
	int e = 0;
	for (int t = 0; t < (fixed ? 1 : LISTEN_TRIES); t++) {
		uint16_t port = (uint16_t)fixed;
		uint32_t kept = 0;
		e = 0;
		for (uint32_t i = 0; i < wa->naddr && !e; i++) {
			int fd = listen_one(wa->addr[i], &port);
			if (fd >= 0) {
				wa->addr[kept] = wa->addr[i];
				lfds[kept++] = fd;
			} else if (errno == EADDRNOTAVAIL && i > 0) { /* gone since getifaddrs */
				continue;
			} else {
				e = errno;
			}
		}
		if (!e) {
			wa->naddr = kept;
			wa->port = port;
			return (int)kept;
		}
		for (uint32_t i = 0; i < kept; i++)
			close(lfds[i]);
		if (e != EADDRINUSE)
			break;
	}
	if (fixed)
		snprintf(err, errlen, "cannot listen on port %ld for the watch (ROCEPROBE_WATCH_PORT): %s", fixed,
			 strerror(e));
	else
		snprintf(err, errlen, "cannot listen on a TCP port for the watch: %s", strerror(e));
	return -1;
}

struct joining {
	int fd;
	int64_t until;
	size_t got;
	uint8_t nonce[RP_AUTH_NONCE_LEN];
	uint8_t hello[RP_WATCH_HELLO_LEN];
	char from[INET_ADDRSTRLEN + 8];
};

static void refuse(struct joining *j, const char *why, unsigned *refused)
{
	close(j->fd);
	j->fd = -1;
	if (++*refused <= REFUSED_SAID)
		fprintf(stderr, "roceprobe run: the watch refused a connection from %s: %s%s\n", j->from, why,
			*refused == REFUSED_SAID ? " (further ones are only counted: cluster.watch_refused)" : "");
}

/* A hello complete: the connection becomes rank r's, or is refused. */
static int prove(const struct rp_cluster *c, struct joining *j, const struct rp_auth_key *key, int *fd,
		 unsigned *refused)
{
	uint8_t answer[RP_AUTH_PROOF_LEN];
	uint32_t r;
	char why[160];
	if (rp_watch_hello_check(j->hello, c->size, key, j->nonce, &r, answer, why, sizeof(why)) != 0) {
		refuse(j, why, refused);
		return 0;
	}
	if (fd[r] >= 0) { /* a proof holds only with the secret: a rank's bug, or a leak */
		snprintf(why, sizeof(why), "rank %u already joined", r);
		refuse(j, why, refused);
		return 0;
	}
	if (io_until(j->fd, answer, sizeof(answer), true, mono_ms() + JOIN_MS) != 0 || rp_watch_sock_setup(j->fd) != 0) {
		snprintf(why, sizeof(why), "rank %u's connection broke as it joined", r);
		refuse(j, why, refused);
		return 0;
	}
	fd[r] = j->fd;
	j->fd = -1;
	return 1;
}

/* A connection accepted: the challenge goes out at once (32 B into an empty
 * socket buffer: it does not block). */
static int greet(int lfd, struct joining *j, unsigned *refused)
{
	struct sockaddr_in a;
	socklen_t alen = sizeof(a);
	j->fd = accept4(lfd, (struct sockaddr *)&a, &alen, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (j->fd < 0)
		return -1;
	char ip[INET_ADDRSTRLEN] = "?";
	inet_ntop(AF_INET, &a.sin_addr, ip, sizeof(ip));
	snprintf(j->from, sizeof(j->from), "%s:%u", ip, ntohs(a.sin_port));
	j->until = mono_ms() + JOIN_MS;
	j->got = 0;
	rp_auth_nonce(j->nonce);
	if (send(j->fd, j->nonce, sizeof(j->nonce), MSG_NOSIGNAL) != (ssize_t)sizeof(j->nonce)) {
		refuse(j, "it could not be sent the challenge", refused);
		return -1;
	}
	return 0;
}

int rp_watch_accept(const struct rp_cluster *c, const int *lfds, int nl, const struct rp_auth_key *key, int *fd,
		    unsigned *refused, int timeout_ms)
{
	struct joining j[JOINING_MAX];
	struct pollfd pf[RP_WATCH_ADDRS + JOINING_MAX];
	int want = c->size - 1, nj = 0;
	int64_t end = mono_ms() + timeout_ms;
	while (want > 0 && mono_ms() < end) {
		int64_t now = mono_ms();
		int live = 0; /* the ones still proving, oldest first */
		for (int k = 0; k < nj; k++)
			if (j[k].until <= now)
				refuse(&j[k], "it did not prove the job's secret within 2 s", refused);
			else
				j[live++] = j[k];
		nj = live;
		bool room = nj < JOINING_MAX || j[0].until - JOIN_MS + EVICT_MS <= now;
		for (int k = 0; k < nl; k++) /* no room: the listening sockets wait (no spinning) */
			pf[k] = (struct pollfd){.fd = room ? lfds[k] : -1, .events = POLLIN};
		for (int k = 0; k < nj; k++)
			pf[nl + k] = (struct pollfd){.fd = j[k].fd, .events = POLLIN};
		if (poll(pf, (nfds_t)(nl + nj), 100) > 0) {
			for (int k = 0; k < nj && want > 0; k++) {
				if (j[k].fd < 0 || !pf[nl + k].revents)
					continue;
				ssize_t n = recv(j[k].fd, j[k].hello + j[k].got, sizeof(j[k].hello) - j[k].got, 0);
				if (n <= 0 && !(n < 0 && (errno == EAGAIN || errno == EINTR)))
					refuse(&j[k], "it closed before it proved the job's secret", refused);
				else if (n > 0 && (j[k].got += (size_t)n) == sizeof(j[k].hello))
					want -= prove(c, &j[k], key, fd, refused);
			}
		}
		live = 0;
		for (int k = 0; k < nj; k++)
			if (j[k].fd >= 0)
				j[live++] = j[k];
		nj = live;
		for (int k = 0; k < nl && want > 0; k++) {
			for (int more = 0; pf[k].revents && more < JOINING_MAX; more++) { /* those waiting */
				now = mono_ms();
				if (nj == JOINING_MAX && j[0].until - JOIN_MS + EVICT_MS > now)
					break; /* the rest wait in the backlog */
				struct joining nw;
				if (greet(lfds[k], &nw, refused) != 0) {
					if (errno == EAGAIN || errno == EWOULDBLOCK)
						break;
					continue;
				}
				if (nj == JOINING_MAX) {
					refuse(&j[0], "too many connections were proving themselves at once", refused);
					memmove(&j[0], &j[1], (size_t)(--nj) * sizeof(j[0]));
				}
				j[nj++] = nw;
			}
		}
	}
	for (int k = 0; k < nj; k++)
		refuse(&j[k], want ? "the ranks' 20 s to join were over" : "every rank had joined", refused);
	return want == 0 ? 0 : -1;
}

/* ---- the other ranks ---- */

static int connect_one(uint32_t addr, uint16_t port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), soerr = 0;
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = addr};
	socklen_t len = sizeof(soerr);
	struct pollfd pf = {.fd = fd, .events = POLLOUT};
	if (fd < 0)
		return -1;
	if ((connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0 && errno != EINPROGRESS) ||
	    poll(&pf, 1, CONNECT_MS) != 1 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) != 0 || soerr) {
		close(fd);
		return -1;
	}
	return fd;
}

/* 1: joined; 0: rank 0 answered with a wrong proof; -1: no answer. */
static int join(int fd, uint32_t rank, const struct rp_auth_key *key, int64_t until)
{
	uint8_t nonce_l[RP_AUTH_NONCE_LEN], hello[RP_WATCH_HELLO_LEN], answer[RP_AUTH_PROOF_LEN];
	if (io_until(fd, nonce_l, sizeof(nonce_l), false, until) != 0)
		return -1;
	rp_watch_hello_build(hello, rank, key, nonce_l);
	if (io_until(fd, hello, sizeof(hello), true, until) != 0 ||
	    io_until(fd, answer, sizeof(answer), false, until) != 0)
		return -1;
	return rp_watch_answer_ok(answer, rank, key, hello, nonce_l) ? 1 : 0;
}

int rp_watch_connect(const struct rp_cluster *c, const struct rp_watch_addr *wa, const struct rp_auth_key *key,
		     int timeout_ms, const char **why)
{
	if (!wa->port) {
		*why = "rank 0 cannot listen on a TCP port for the watch";
		return -1;
	}
	/* A test hook (tests/cluster/run_check.py, stranger): the ranks join this
	 * late, so that a test can knock on rank 0's watch before they do. */
	const char *hold = getenv("ROCEPROBE_WATCH_DELAY_MS");
	if (hold && atoi(hold) > 0) {
		struct timespec ts = {.tv_sec = atoi(hold) / 1000, .tv_nsec = (long)(atoi(hold) % 1000) * 1000000};
		nanosleep(&ts, NULL);
	}
	/* Loopback only for a rank on rank 0's node. */
	bool same = !strcmp(c->ranks[0].node, c->ranks[c->rank].node);
	int64_t until = mono_ms() + timeout_ms;
	int best = -2; /* -2 reached nothing, -1 no answer, 0 a wrong proof */
	/* Round after round until the deadline: one lost SYN (a lossy or slow
	 * management network; the kernel resends it only after 1 s) is not the end.
	 * Not cut short by a stop: rank 0 waits for every rank to join before the
	 * ranks agree on the stop (and say it once), as it waits for a rank that
	 * joins at once. */
	do {
		for (uint32_t i = 0; i < wa->naddr && i < RP_WATCH_ADDRS; i++) {
			if (wa->addr[i] == htonl(INADDR_LOOPBACK) && !same)
				continue;
			int fd = connect_one(wa->addr[i], wa->port), ok = fd >= 0 ? join(fd, (uint32_t)c->rank, key, until) : -2;
			if (ok == 1 && rp_watch_sock_setup(fd) == 0)
				return fd;
			if (fd >= 0)
				close(fd);
			best = ok > best ? ok : best;
		}
		if (best != 0)
			nanosleep(&(struct timespec){.tv_nsec = RETRY_MS * 1000000L}, NULL);
	} while (best != 0 && mono_ms() < until);
	*why = best == 0    ? "rank 0's watch did not prove the job's secret: another program on its port?"
	       : best == -1 ? "rank 0's watch did not let this rank join (no answer in time, or its proof refused)"
			    : "cannot reach rank 0's watch port (TCP, any of its IPv4 addresses): a firewall between "
			      "the nodes?";
	return -1;
}
