/* Joining rank 0's watch (watch_join.c): where rank 0 listens, and every
 * rank's proof of the job's secret (watch_msg.h) before it is taken as one. */
#ifndef RP_CLUSTER_WATCH_JOIN_H
#define RP_CLUSTER_WATCH_JOIN_H

#include "auth/auth.h"
#include "cluster.h"

#define RP_WATCH_ADDRS 16

/* What rank 0 announces (broadcast over MPI): its port and the addresses it
 * listens on, network order, loopback (if any) first. */
struct rp_watch_addr {
	uint16_t port;
	uint32_t naddr;
	uint32_t addr[RP_WATCH_ADDRS];
};

/* Rank 0: listens on one port of each address the ranks need (loopback when
 * a rank shares its node, its other IPv4 addresses when a rank is on another
 * one), never on INADDR_ANY; the addresses and the port into wa, a listening
 * socket per address into lfds. The number of sockets, or -1 (err). */
int rp_watch_listen(const struct rp_cluster *c, struct rp_watch_addr *wa, int lfds[RP_WATCH_ADDRS], char *err,
		    size_t errlen);

/* Rank 0: within timeout_ms, every other rank's connection, proven (fd[r],
 * blocking, for r in 1 .. size - 1; fd[0] untouched); every connection that
 * did not prove itself is closed and counted in *refused (up to a few said
 * on stderr). 0 once every rank joined, else -1. */
int rp_watch_accept(const struct rp_cluster *c, const int *lfds, int nl, const struct rp_auth_key *key, int *fd,
		    unsigned *refused, int timeout_ms);

/* Rank r: a connection to rank 0's watch that proved the secret both ways
 * (the first address that answers and proves itself), or -1 and why. */
int rp_watch_connect(const struct rp_cluster *c, const struct rp_watch_addr *wa, const struct rp_auth_key *key,
		     int timeout_ms, const char **why);

/* A connected socket set up for the watch: blocking, no Nagle, keepalive. */
int rp_watch_sock_setup(int fd);

#endif
