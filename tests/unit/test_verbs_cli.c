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
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <infiniband/verbs.h>

#include "check.h"
#include "verbs/oob.h"
#include "verbs/oob_auth.h"

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

/* ---- a server in the background, and raw clients of its control port ---- */

struct bg {
	pid_t pid;
	char errpath[64];
	unsigned port;
};

/* A port of this process's own (engineers run this test side by side). */
static unsigned test_port(unsigned k)
{
	return 20000u + (unsigned)getpid() % 20000u + k * 7u % 5000u;
}

/* roceprobe ARGS... in the background, stderr to a file. */
static void bg_start(struct bg *b, const char *const *args)
{
	snprintf(b->errpath, sizeof(b->errpath), "/tmp/test_verbs_cli.%d.err", (int)getpid());
	b->pid = fork();
	assert_true(b->pid >= 0);
	if (b->pid == 0) {
		FILE *f = freopen(b->errpath, "w", stderr);
		if (!f || !freopen("/dev/null", "w", stdout))
			_exit(127);
		const char *argv[32] = {roceprobe};
		for (int i = 0; args[i] && i < 30; i++)
			argv[i + 1] = args[i];
		execv(roceprobe, (char *const *)argv);
		_exit(127);
	}
}

/* Its exit code within 10 s (killed and -1 after), its stderr in err. */
static int bg_finish(struct bg *b, char *err, size_t len)
{
	int st = 0, rc = -1;
	for (int i = 0; i < 200; i++) {
		if (waitpid(b->pid, &st, WNOHANG) == b->pid) {
			rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
			break;
		}
		usleep(50 * 1000);
	}
	if (rc == -1 && waitpid(b->pid, &st, WNOHANG) == 0) {
		kill(b->pid, SIGKILL);
		waitpid(b->pid, &st, 0);
	}
	FILE *f = fopen(b->errpath, "r");
	size_t n = f ? fread(err, 1, len - 1, f) : 0;
	err[n] = '\0';
	if (f)
		fclose(f);
	unlink(b->errpath);
	return rc;
}

/* A TCP connection to the server, retried while it starts (5 s). */
static int dial(unsigned port)
{
	char err[256];
	int fd = rp_oob_connect("127.0.0.1", (uint16_t)port, 5000, err, sizeof(err));
	if (fd < 0)
		fail_msg("%s", err);
	return fd;
}

/* The server's one answer to a first line (its ERR ..., or what came). */
static void answer(int fd, const char *first, char *out, size_t len)
{
	char err[256];
	assert_int_equal(rp_oob_send(fd, first), 0);
	if (rp_oob_recv_line(fd, out, len, 5000, err, sizeof(err)) < 0)
		snprintf(out, len, "(%s)", err);
}

/* What a keyless `ep --client` sends first (lib/verbs/ep.c's HELLO). */
#define HELLO "HELLO 1 write lat 1 2 64 512 1 220 1000 0 2 3 16\n"
#define NO_DEVICE_ERR "ERR no RDMA device found (ibv_get_device_list); load rdma_rxe or install an HCA"

static void write_key(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

/* The listener binds first and opens its device for its first client
 * (issue 33: a refused connection costs nothing), so without a device the
 * server fails when a client comes: the client is told, the server exits 2. */
static void server_without_device(void **state)
{
	(void)state;
	if (has_device())
		skip();
	char err[2048], line[512];
	struct bg b = {.port = test_port(1)};
	char port[8];
	snprintf(port, sizeof(port), "%u", b.port);
	/* No peer given: the server, as in perftest (no --server). */
	const char *args[] = {"ep", "-p", port, "--connect-timeout", "5", NULL};
	bg_start(&b, args);
	int fd = dial(b.port);
	answer(fd, HELLO, line, sizeof(line));
	close(fd);
	assert_string_equal(line, NO_DEVICE_ERR);
	assert_int_equal(bg_finish(&b, err, sizeof(err)), 2);
	assert_one_line(err, NO_DEVICE);
}

/* Every listener binds to 127.0.0.1 unless told: /proc/net/tcp's listening
 * socket on the port is 0100007F (127.0.0.1, little-endian hex) while the
 * server waits, and 00000000 with --bind 0.0.0.0. */
static void server_listens_on_loopback(void **state)
{
	(void)state;
	const char *bind[] = {NULL, "0.0.0.0"};
	const char *want[] = {"0100007F", "00000000"};
	for (int k = 0; k < 2; k++) {
		struct bg b = {.port = test_port(2 + (unsigned)k)};
		char port[8], local[32], err[2048], line[512];
		snprintf(port, sizeof(port), "%u", b.port);
		const char *args[] = {"ep", "--server", "--port", port, "--connect-timeout", "5", bind[k] ? "--bind" : NULL,
				      bind[k], NULL};
		bg_start(&b, args);
		close(dial(b.port)); /* it listens: a connection that says nothing */
		snprintf(local, sizeof(local), "%s:%04X", want[k], b.port);
		FILE *f = fopen("/proc/net/tcp", "r");
		assert_non_null(f);
		bool found = false;
		while (fgets(line, sizeof(line), f)) {
			char l[64], r[64], st[8];
			if (sscanf(line, " %*s %63s %63s %7s", l, r, st) == 3 && strcmp(st, "0A") == 0 &&
			    strcmp(l, local) == 0)
				found = true;
		}
		fclose(f);
		if (!found)
			fail_msg("no listening socket %s in /proc/net/tcp", local);
		int fd = dial(b.port); /* let it end: a HELLO, then no device */
		answer(fd, HELLO, line, sizeof(line));
		close(fd);
		bg_finish(&b, err, sizeof(err));
	}
}

/* issue 33: a server with a key refuses a keyless client before any
 * exchange (its HELLO is answered by ERR, one line on each side), does not
 * count it as its client, and still admits the one with the key: that one
 * gets the server's proof, then the server opens its device (none here). A
 * wrong key and a key the server does not have are refused the same way. */
static void server_with_key_refuses_others(void **state)
{
	(void)state;
	if (has_device())
		skip();
	char kpath[64], err[4096], line[512], want[256];
	snprintf(kpath, sizeof(kpath), "/tmp/test_verbs_cli.%d.key", (int)getpid());
	write_key(kpath, "a shared secret\n", 0600);
	struct bg b = {.port = test_port(4)};
	char port[8];
	snprintf(port, sizeof(port), "%u", b.port);
	const char *args[] = {"ep", "--server", "--port", port, "--key-file", kpath, "--connect-timeout", "5", NULL};
	bg_start(&b, args);

	int fd = dial(b.port); /* a keyless client: refused at its first line */
	answer(fd, HELLO, line, sizeof(line));
	assert_string_equal(line, "ERR this server requires a key: give the client the server's key (--key-file F or "
				  "ROCEPROBE_KEY)");
	assert_true(rp_oob_recv_line(fd, line, sizeof(line), 5000, err, sizeof(err)) < 0); /* and closed */
	close(fd);

	struct rp_auth_key wrong, right;
	assert_int_equal(rp_auth_init(err, sizeof(err)), 0);
	assert_int_equal(rp_auth_key_from_text("another secret", 14, &wrong, err, sizeof(err)), 0);
	assert_int_equal(rp_auth_key_from_text("a shared secret", 15, &right, err, sizeof(err)), 0);
	fd = dial(b.port); /* a wrong key */
	assert_int_equal(rp_oob_auth_connect(fd, &wrong, NULL, 5000, err, sizeof(err)), -1);
	assert_string_equal(err, "server refused: wrong key: the client's key is not the server's");
	close(fd);

	fd = dial(b.port); /* the key: the server proves it too, then wants the device */
	if (rp_oob_auth_connect(fd, &right, NULL, 5000, err, sizeof(err)))
		fail_msg("%s", err);
	answer(fd, HELLO, line, sizeof(line));
	close(fd);
	assert_string_equal(line, NO_DEVICE_ERR);

	assert_int_equal(bg_finish(&b, err, sizeof(err)), 2);
	unlink(kpath);
	/* stderr: the two refusals in order, then the device */
	char *p = err;
	const char *lines[3] = {"roceprobe ep: refused 127.0.0.1:", "roceprobe ep: refused 127.0.0.1:", NO_DEVICE};
	const char *tails[3] = {": no key (it sent 'HELLO 1 write lat 1 2 64 512 1 220 1000 ')", ": wrong key", ""};
	for (int i = 0; i < 3; i++) {
		p = strstr(p, "roceprobe ep:");
		assert_non_null(p);
		size_t l = strcspn(p, "\n");
		snprintf(want, sizeof(want), "%.*s", (int)l, p);
		if (strncmp(want, lines[i], strlen(lines[i])) != 0 ||
		    strcmp(want + strlen(want) - strlen(tails[i]), tails[i]) != 0)
			fail_msg("stderr line %d '%s', want '%s...%s'", i, want, lines[i], tails[i]);
		p += l;
	}
	assert_null(strstr(p, "roceprobe ep:"));
}

/* A server without a key refuses a client that has one (both must prove
 * it); the keyless HELLO after it is served as always. */
static void server_without_key_refuses_a_key(void **state)
{
	(void)state;
	if (has_device())
		skip();
	char err[2048], line[512];
	struct bg b = {.port = test_port(5)};
	char port[8];
	snprintf(port, sizeof(port), "%u", b.port);
	const char *args[] = {"ep", "--server", "--port", port, "--connect-timeout", "5", NULL};
	bg_start(&b, args);
	struct rp_auth_key key;
	assert_int_equal(rp_auth_init(err, sizeof(err)), 0);
	assert_int_equal(rp_auth_key_from_text("k", 1, &key, err, sizeof(err)), 0);
	int fd = dial(b.port);
	assert_int_equal(rp_oob_auth_connect(fd, &key, NULL, 5000, err, sizeof(err)), -1);
	assert_string_equal(err, "server refused: this server has no key and the client has one: give both the same "
				 "key, or neither");
	close(fd);
	fd = dial(b.port);
	answer(fd, HELLO, line, sizeof(line));
	close(fd);
	assert_string_equal(line, NO_DEVICE_ERR);
	assert_int_equal(bg_finish(&b, err, sizeof(err)), 2);
	const char *p = strstr(err, "roceprobe ep: refused 127.0.0.1:");
	assert_non_null(p);
	assert_non_null(strstr(p, ": it has a key and this server has none\nroceprobe ep: no RDMA device"));
}

/* The key's sources: a key file others may read is a warning line (the run
 * goes on to the device), a missing one and an empty ROCEPROBE_KEY are
 * one line and exit 2. */
static void key_sources(void **state)
{
	(void)state;
	if (has_device())
		skip();
	char kpath[64], err[2048], want[512];
	snprintf(kpath, sizeof(kpath), "/tmp/test_verbs_cli.%d.key", (int)getpid());
	write_key(kpath, "k\n", 0644);
	const char *open_key[] = {"ep", "--client", "127.0.0.1", "--key-file", kpath, NULL};
	assert_int_equal(run(open_key, err, sizeof(err)), 2);
	snprintf(want, sizeof(want), "roceprobe ep: warning: key file %s may be read by others (mode 644): chmod 600 %s\n%s\n",
		 kpath, kpath, NO_DEVICE);
	assert_string_equal(err, want);
	unlink(kpath);
	const char *missing[] = {"ep", "--server", "--key-file", kpath, NULL};
	assert_int_equal(run(missing, err, sizeof(err)), 2);
	snprintf(want, sizeof(want), "roceprobe ep: --key-file: key file %s: No such file or directory", kpath);
	assert_one_line(err, want);
	setenv("ROCEPROBE_KEY", "", 1);
	const char *env[] = {"ep", "--server", NULL};
	assert_int_equal(run(env, err, sizeof(err)), 2);
	unsetenv("ROCEPROBE_KEY");
	assert_one_line(err, "roceprobe ep: ROCEPROBE_KEY: the key is empty (unset it for no key)");
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

/* perftest's short options mean what they mean in perftest
 * (perftest_parameters.c's usage()): each shown by the check it reaches.
 * -s is the size: 8 KiB is too big for one UD message; and -s 65536 with a
 * peer gets as far as the device (before, -s was --server and 65536 an
 * unexpected argument). */
static void perftest_options(void **state)
{
	(void)state;
	char err[2048];
	struct {
		const char *args[12];
		const char *want;
	} cases[] = {
		{{"ep", "-s", "8KiB", "-c", "UD", "h", NULL},
		 "roceprobe ep: --ud: message size 8192 B is above the largest MTU (4096 B); a UD message is one packet"},
		{{"ep", "-c", "UD", "--op", "write", "h", NULL},
		 "roceprobe ep: --ud supports --op send only (UD has no RDMA write)"},
		{{"ep", "-c", "XRC", "h", NULL}, "roceprobe ep: --connection XRC: use RC or UD"},
		{{"ep", "-R", "--ud", "h", NULL}, "roceprobe ep: --ud and --cm do not go together (UD QPs are not connected)"},
		{{"ep", "--rdma_cm", "-c", "ud", "h", NULL},
		 "roceprobe ep: --ud and --cm do not go together (UD QPs are not connected)"},
		{{"ep", "-q", "2", "h", NULL}, "roceprobe ep: --qps applies to bw and rate; latency uses one QP"},
		{{"ep", "--qp", "2", "h", NULL}, "roceprobe ep: --qps applies to bw and rate; latency uses one QP"},
		{{"ep", "-n", "10", "-D", "1", "h", NULL}, "roceprobe ep: give --iters or --duration, not both"},
		{{"ep", "-x", "256", "h", NULL}, "roceprobe ep: --gid-index: expected a whole number from 0 to 255, got '256'"},
		{{"ep", "-i", "256", "h", NULL}, "roceprobe ep: --ib-port: expected a whole number from 0 to 255, got '256'"},
		{{"ep", "-p", "65536", "h", NULL}, "roceprobe ep: --port: expected a whole number from 0 to 65535, got '65536'"},
		{{"ep", "-m", "1000", "h", NULL}, "roceprobe ep: --mtu 1000: use 256, 512, 1024, 2048 or 4096"},
		{{"ep", "-S", "16", "h", NULL}, "roceprobe ep: --sl: expected a whole number from 0 to 15, got '16'"},
		{{"ep", "-L", "256", "h", NULL}, "roceprobe ep: --hop-limit: expected a whole number from 0 to 255, got '256'"},
		{{"ep", "-u", "32", "h", NULL}, "roceprobe ep: --ack-timeout: expected a whole number from 0 to 31, got '32'"},
		{{"ep", "--qp-timeout", "32", "h", NULL},
		 "roceprobe ep: --ack-timeout: expected a whole number from 0 to 31, got '32'"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(run(cases[i].args, err, sizeof(err)), 2);
		assert_one_line(err, cases[i].want);
	}
	if (has_device())
		return;
	const char *size[] = {"ep", "-s", "65536", "-n", "5", "127.0.0.1", NULL};
	assert_int_equal(run(size, err, sizeof(err)), 2);
	assert_one_line(err, NO_DEVICE);
	const char *bw[] = {"ep", "-d", "rxe0", "-i", "1", "-x", "3", "--mode", "bw", "-s", "65536", "-q", "2",
			    "-D", "1", "--report_gbits", "127.0.0.1", NULL};
	assert_int_equal(run(bw, err, sizeof(err)), 2);
	assert_one_line(err, NO_DEVICE);
}

static void usage_errors_are_one_line_exit_2(void **state)
{
	(void)state;
	char err[2048];
	const char *peer[] = {"ep", "--server", "10.0.0.1", NULL};
	assert_int_equal(run(peer, err, sizeof(err)), 2);
	assert_one_line(err, "roceprobe ep: --server takes no peer, and '10.0.0.1' is one: the client names the server");
	const char *extra[] = {"ep", "--client", "h", "extra", NULL};
	assert_int_equal(run(extra, err, sizeof(err)), 2);
	assert_one_line(err, "roceprobe ep: unexpected argument 'extra'");
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
		cmocka_unit_test(server_listens_on_loopback),
		cmocka_unit_test(server_with_key_refuses_others),
		cmocka_unit_test(server_without_key_refuses_a_key),
		cmocka_unit_test(key_sources),
		cmocka_unit_test(client_without_device),
		cmocka_unit_test(ud_client_without_device),
		cmocka_unit_test(usage_errors_are_one_line_exit_2),
		cmocka_unit_test(perftest_options),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
