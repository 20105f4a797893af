/* lib/cluster/watch_join.c over loopback, no MPI: rank 0 of 3 (every rank on
 * its node) listens on 127.0.0.1 only; 70 strangers that connect first and
 * say nothing (more than the 64 places for connections proving themselves)
 * and a rank 1 with a wrong secret are refused and counted, and the real
 * ranks 1 and 2, connecting after all of them, still join. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cluster/watch_join.h"

#define STRANGERS 70

static struct rp_rank_info ranks[3];
static struct rp_watch_addr wa;
static struct rp_auth_key key, wrong;

struct joiner {
	struct rp_cluster c;
	const struct rp_auth_key *key;
	int delay_ms;
	int fd;
	const char *why;
	pthread_t t;
};

static void *joiner(void *arg)
{
	struct joiner *j = arg;
	struct timespec ts = {.tv_nsec = (long)j->delay_ms * 1000000};
	nanosleep(&ts, NULL);
	j->why = "";
	j->fd = rp_watch_connect(&j->c, &wa, j->key, 10000, &j->why);
	return NULL;
}

static void join_past_strangers(void **state)
{
	(void)state;
	char err[256];
	assert_int_equal(rp_auth_init(err, sizeof(err)), 0);
	rp_auth_key_draw(&key);
	rp_auth_key_draw(&wrong);
	for (int r = 0; r < 3; r++)
		ranks[r] = (struct rp_rank_info){.rank = r, .node = "n"};
	struct rp_cluster c0 = {.launched = true, .rank = 0, .size = 3, .ranks = ranks};
	int lfds[RP_WATCH_ADDRS];
	int nl = rp_watch_listen(&c0, &wa, lfds, err, sizeof(err));
	assert_int_equal(nl, 1); /* every rank on rank 0's node: loopback alone */
	assert_int_equal(wa.naddr, 1);
	assert_int_equal(wa.addr[0], htonl(INADDR_LOOPBACK));
	assert_true(wa.port > 0);

	/* In the backlog first: strangers that say nothing, then a wrong secret. */
	int strangers[STRANGERS];
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(wa.port), .sin_addr.s_addr = wa.addr[0]};
	for (int k = 0; k < STRANGERS; k++) {
		strangers[k] = socket(AF_INET, SOCK_STREAM, 0);
		assert_int_equal(connect(strangers[k], (struct sockaddr *)&a, sizeof(a)), 0);
	}
	struct joiner j[3] = {
		{.c = {.launched = true, .rank = 1, .size = 3, .ranks = ranks}, .key = &wrong, .delay_ms = 0},
		{.c = {.launched = true, .rank = 1, .size = 3, .ranks = ranks}, .key = &key, .delay_ms = 100},
		{.c = {.launched = true, .rank = 2, .size = 3, .ranks = ranks}, .key = &key, .delay_ms = 100},
	};
	for (int k = 0; k < 3; k++)
		assert_int_equal(pthread_create(&j[k].t, NULL, joiner, &j[k]), 0);
	int fd[3] = {-1, -1, -1};
	unsigned refused = 0;
	assert_int_equal(rp_watch_accept(&c0, lfds, nl, &key, fd, &refused, 10000), 0);
	for (int k = 0; k < 3; k++)
		pthread_join(j[k].t, NULL);
	close(lfds[0]);
	/* 70 strangers + the wrong secret: the backlog is served in order, so
	 * each was taken (and refused) before the real ranks joined. */
	assert_int_equal(refused, STRANGERS + 1);
	assert_int_equal(j[0].fd, -1);
	assert_string_equal(j[0].why,
			    "rank 0's watch did not let this rank join (no answer in time, or its proof refused)");
	assert_true(j[1].fd >= 0 && j[2].fd >= 0);
	assert_true(fd[1] >= 0 && fd[2] >= 0);
	/* Each joined connection is the rank's own: a byte from rank r arrives on fd[r]. */
	for (int r = 1; r <= 2; r++) {
		uint8_t b = (uint8_t)(0x40 + r), got = 0;
		assert_int_equal(write(j[r].fd, &b, 1), 1);
		assert_int_equal(read(fd[r], &got, 1), 1);
		assert_int_equal(got, b);
		close(j[r].fd);
		close(fd[r]);
	}
	for (int k = 0; k < STRANGERS; k++)
		close(strangers[k]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(join_past_strangers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
