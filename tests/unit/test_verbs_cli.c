/* `roceprobe ep` on a host without an RDMA device (this lab's host kernel
 * has no RDMA at all): one exact line on stderr and exit code 2, for the
 * server and the client; and usage errors. Skipped where a device exists. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <infiniband/verbs.h>

#include "check.h"

static const char *roceprobe;

#define NO_DEVICE "roceprobe ep: no RDMA device found (ibv_get_device_list); load rdma_rxe or install an HCA"

static int run(const char *const *args, char *err, size_t len)
{
	return rp_test_run(roceprobe, args, err, len);
}

static bool has_device(void)
{
	int n = 0;
	struct ibv_device **l = ibv_get_device_list(&n);
	if (l)
		ibv_free_device_list(l);
	return l && n > 0;
}

/* The roceprobe line of stderr (a provider library may add warnings). */
static void assert_one_line(const char *err, const char *want)
{
	rp_test_one_line(err, "roceprobe ep:", want);
}

static void server_without_device(void **state)
{
	(void)state;
	if (has_device())
		skip();
	char err[2048];
	const char *args[] = {"ep", "--server", "--port", "18599", NULL};
	assert_int_equal(run(args, err, sizeof(err)), 2);
	assert_one_line(err, NO_DEVICE);
}

static void client_without_device(void **state)
{
	(void)state;
	if (has_device())
		skip();
	char err[2048];
	const char *args[] = {"ep", "--client", "127.0.0.1", "--mode", "bw", "--size", "4KiB,64KiB", NULL};
	assert_int_equal(run(args, err, sizeof(err)), 2);
	assert_one_line(err, NO_DEVICE);
}

/* --ud gets as far as the device (the option is accepted, the op defaults to send). */
static void ud_client_without_device(void **state)
{
	(void)state;
	if (has_device())
		skip();
	char err[2048];
	const char *args[] = {"ep", "--client", "127.0.0.1", "--ud", "--ud-timeout", "0.2", NULL};
	assert_int_equal(run(args, err, sizeof(err)), 2);
	assert_one_line(err, NO_DEVICE);
}

static void usage_errors_are_one_line_exit_2(void **state)
{
	(void)state;
	char err[2048];
	const char *none[] = {"ep", NULL};
	assert_int_equal(run(none, err, sizeof(err)), 2);
	assert_one_line(err, "roceprobe ep: say --server or --client HOST (try 'roceprobe ep --help')");
	const char *dscp[] = {"ep", "--client", "h", "--dscp", "64", NULL};
	assert_int_equal(run(dscp, err, sizeof(err)), 2);
	assert_one_line(err, "roceprobe ep: --dscp: expected a whole number from 0 to 63, got '64'");
	const char *both[] = {"ep", "--client", "h", "-n", "10", "-D", "1", NULL};
	assert_int_equal(run(both, err, sizeof(err)), 2);
	assert_one_line(err, "roceprobe ep: give --iters or --duration, not both");
	const char *ud_write[] = {"ep", "--client", "h", "--ud", "--op", "write", NULL};
	assert_int_equal(run(ud_write, err, sizeof(err)), 2);
	assert_one_line(err, "roceprobe ep: --ud supports --op send only (UD has no RDMA write)");
	const char *ud_read[] = {"ep", "--client", "h", "--op", "read", "--ud", NULL};
	assert_int_equal(run(ud_read, err, sizeof(err)), 2);
	assert_one_line(err, "roceprobe ep: --ud supports --op send only (UD has no RDMA read)");
	const char *ud_bw[] = {"ep", "--client", "h", "--ud", "--mode", "bw", NULL};
	assert_int_equal(run(ud_bw, err, sizeof(err)), 2);
	assert_one_line(err, "roceprobe ep: --ud measures latency only (--mode lat)");
	const char *ud_big[] = {"ep", "--client", "h", "--ud", "--size", "2,8KiB", NULL};
	assert_int_equal(run(ud_big, err, sizeof(err)), 2);
	assert_one_line(err, "roceprobe ep: --ud: message size 8192 B is above the largest MTU (4096 B); a UD "
			     "message is one packet");
	const char *ud_to[] = {"ep", "--client", "h", "--ud-timeout", "0.5", NULL};
	assert_int_equal(run(ud_to, err, sizeof(err)), 2);
	assert_one_line(err, "roceprobe ep: --ud-timeout applies to --ud only");
	const char *help[] = {"ep", "--help", NULL};
	assert_int_equal(run(help, err, sizeof(err)), 0);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: test_verbs_cli PATH/TO/roceprobe\n");
		return 2;
	}
	roceprobe = argv[1];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(server_without_device),
		cmocka_unit_test(client_without_device),
		cmocka_unit_test(ud_client_without_device),
		cmocka_unit_test(usage_errors_are_one_line_exit_2),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
