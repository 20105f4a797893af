/* lib/verbs/ep_text.c: what `roceprobe ep` prints, for reports made by hand
 * (no RDMA device): a RoCE bandwidth client, an InfiniBand server with two
 * clients (Jain's index), every number worked out below. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "verbs/ep_text.h"

static char *text_of(const struct rp_ep_report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	rp_ep_text(f, r);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void port(struct rp_ep_report *r, const char *dev, enum rp_link_layer ll)
{
	snprintf(r->port.dev_name, sizeof(r->port.dev_name), "%s", dev);
	r->port.port_num = 1;
	r->port.link_layer = ll;
	snprintf(r->driver, sizeof(r->driver), "rxe");
	r->mtu = 1024;
	r->max_inline = 220;
}

static void test_bw_client(void **state)
{
	(void)state;
	static struct rp_ep_report r;
	memset(&r, 0, sizeof(r));
	port(&r, "rxe0", RP_LL_ETHERNET);
	r.cfg.op = RP_OP_WRITE;
	r.cfg.mode = RP_MODE_BW;
	r.cfg.nqp = 2;
	r.cfg.dscp = 26;
	r.cfg.ecn = 1;
	r.gid_index = 1;
	snprintf(r.gid, sizeof(r.gid), "::ffff:10.0.0.1");
	snprintf(r.netdev, sizeof(r.netdev), "eth1");
	r.npeers = 1;
	r.peers[0].nsizes = 2;
	/* 1000 x 4096 B = 4096000 B in 4 ms: 4096000 * 8 / 4e6 ns = 8.192 Gbit/s, 1000 / 4 ms = 0.2500 Mmsg/s */
	r.peers[0].res[0] = (struct rp_ep_size_result){.size = 4096, .client = {1000, 4096000, 4000000, 0}};
	/* 100 x 65536 B = 6553600 B in 50 ms: 6553600 * 8 / 5e7 = 1.048576 Gbit/s, 100 / 50 ms = 0.0020 Mmsg/s */
	r.peers[0].res[1] = (struct rp_ep_size_result){.size = 65536, .client = {100, 6553600, 50000000, 0}};
	char *t = text_of(&r);
	assert_string_equal(t, "client: write bw on rxe0:1 (rxe, Ethernet, GID 1 ::ffff:10.0.0.1 on eth1, DSCP 26 ECN 1), "
			       "path MTU 1024, inline 220, RC QPs 2\n"
			       "    bytes     messages    bytes total     Gbit/s     Mmsg/s   seconds\n"
			       "     4096         1000        4096000      8.192     0.2500     0.004\n"
			       "    65536          100        6553600      1.049     0.0020     0.050\n");
	free(t);
}

static void test_server_two_clients(void **state)
{
	(void)state;
	static struct rp_ep_report r;
	memset(&r, 0, sizeof(r));
	port(&r, "mlx5_0", RP_LL_INFINIBAND);
	r.server = true;
	r.cfg.op = RP_OP_SEND;
	r.cfg.mode = RP_MODE_BW;
	r.cfg.nqp = 1;
	r.cfg.sl = 3;
	r.cfg.cm = true;
	r.gid_index = -1;
	r.port.lid = 7;
	r.npeers = 2;
	/* a: 2e6 B in 1 ms = 16 Gbit/s; b: 1e6 B in 2 ms = 4 Gbit/s (its error said after) */
	snprintf(r.peers[0].name, sizeof(r.peers[0].name), "10.0.0.2:4000");
	r.peers[0].nsizes = 1;
	r.peers[0].res[0] = (struct rp_ep_size_result){.size = 65536, .client = {30, 2000000, 1000000, 0}};
	snprintf(r.peers[1].name, sizeof(r.peers[1].name), "10.0.0.3:4001");
	r.peers[1].nsizes = 1;
	r.peers[1].res[0] = (struct rp_ep_size_result){.size = 65536, .client = {15, 1000000, 2000000, 0}};
	r.peers[1].status = 1;
	snprintf(r.peers[1].err, sizeof(r.peers[1].err), "peer closed");
	char *t = text_of(&r);
	/* Jain: (16 + 4)^2 / (2 * (256 + 16)) = 400 / 544 = 0.7353; one takes all: 1/2 */
	assert_string_equal(t, "server: send bw on mlx5_0:1 (rxe, InfiniBand, LID 7, SL 3, no GRH), path MTU 1024, "
			       "inline 220, RC QPs 1 connected by rdma_cm\n"
			       "client                       sizes          bytes     Gbit/s\n"
			       "10.0.0.2:4000                    1        2000000     16.000\n"
			       "10.0.0.3:4001                    1        1000000      4.000  error: peer closed\n"
			       "Jain's fairness index over 2 clients: 0.7353 (1 = equal shares, 0.5000 = one takes all)\n");
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bw_client),
		cmocka_unit_test(test_server_two_clients),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
