/* lib/cluster's pure halves: hosts -> ranks, and clock offsets from ping-pongs,
 * against answers worked by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cluster/cluster.h"
#include "cluster/cluster_internal.h"

#define ERRLEN 512

static struct rp_profile *load(const char *hosts)
{
	char text[4096], err[ERRLEN];
	snprintf(text, sizeof(text), "hosts:\n%straffic:\n  - {pattern: flow, src: h1, dst: h2}\n", hosts);
	struct rp_profile *p = rp_profile_load_string("c.yaml", text, NULL, err, sizeof(err));
	if (!p)
		fail_msg("%s", err);
	return p;
}

#define H(i, extra) "  - {name: h" #i ", mac: \"02:00:00:00:00:0" #i "\", ipv4: 10.0.0." #i extra "}\n"

/* Four ranks: two on node a (local ranks 0, 1), two on node b. */
static void ranks4(struct rp_rank_info r[4])
{
	const char *nodes[4] = {"a", "a", "b", "b"};
	for (int i = 0; i < 4; i++) {
		r[i] = (struct rp_rank_info){.rank = i, .local_rank = i % 2};
		strcpy(r[i].node, nodes[i]);
	}
}

static void test_bind_default_and_keys(void **state)
{
	(void)state;
	struct rp_rank_info r[4];
	int hr[4];
	char err[ERRLEN];
	ranks4(r);
	struct rp_profile *p = load(H(1, "") H(2, "") H(3, "") H(4, ""));
	assert_int_equal(rp_cluster_bind(p, r, 4, hr, err, sizeof(err)), 0);
	for (int h = 0; h < 4; h++) /* host i on rank i */
		assert_int_equal(hr[h], h);
	rp_profile_free(p);

	/* node b's hosts take b's ranks 2, 3 in profile order; node a's take 0, 1. */
	p = load(H(1, ", node: b") H(2, ", node: a") H(3, ", node: b") H(4, ", rank: 1"));
	assert_int_equal(rp_cluster_bind(p, r, 4, hr, err, sizeof(err)), 0);
	assert_int_equal(hr[0], 2);
	assert_int_equal(hr[1], 0);
	assert_int_equal(hr[2], 3);
	assert_int_equal(hr[3], 1);
	rp_profile_free(p);
}

/* A host of several NICs is one host: its NICs (hosts[] entries) share its rank. */
#define HN(i, nics, extra)                                                                                  \
	"  - {name: h" #i ", nics: " #nics ", mac: \"02:00:00:00:0" #i ":00\", ipv4: 10.0." #i ".1" extra "}\n"
static void test_bind_nics(void **state)
{
	(void)state;
	struct rp_rank_info r[4];
	int hr[8];
	char err[ERRLEN];
	ranks4(r);
	struct rp_profile *p = load(HN(1, 2, "") HN(2, 3, "") H(3, "") H(4, ""));
	assert_int_equal(p->nhosts, 7);
	assert_int_equal(rp_cluster_bind(p, r, 4, hr, err, sizeof(err)), 0);
	static const int want[7] = {0, 0, 1, 1, 1, 2, 3}; /* h1.nic0, h1.nic1, h2.nic0..2, h3, h4 */
	for (int h = 0; h < 7; h++)
		assert_int_equal(hr[h], want[h]);
	rp_profile_free(p);

	/* node b's hosts h1, h2 (2 NICs each) take b's ranks 2 and 3, one per host */
	p = load(HN(1, 2, ", node: b") HN(2, 2, ", node: b") H(3, ", node: a") H(4, ", node: a"));
	assert_int_equal(rp_cluster_bind(p, r, 4, hr, err, sizeof(err)), 0);
	static const int want_node[6] = {2, 2, 3, 3, 0, 1};
	for (int h = 0; h < 6; h++)
		assert_int_equal(hr[h], want_node[h]);
	rp_profile_free(p);
}

static void test_bind_errors(void **state)
{
	(void)state;
	struct rp_rank_info r[4];
	int hr[8];
	char err[ERRLEN];
	ranks4(r);
	struct rp_profile *p = load(H(1, "") H(2, "") H(3, "") H(4, "") H(5, ""));
	assert_int_equal(rp_cluster_bind(p, r, 4, hr, err, sizeof(err)), -1);
	assert_string_equal(err, "host 'h5' (hosts[4]) runs on rank 4, but 4 ranks were started; start 5 or more "
				 "(mpirun -np, srun -n), or place it with rank: or node:");
	rp_profile_free(p);

	p = load(H(1, "") H(2, "") H(3, ""));
	assert_int_equal(rp_cluster_bind(p, r, 4, hr, err, sizeof(err)), -1);
	assert_string_equal(err, "rank 3 (node b) runs no host of the profile's 3; start as many ranks as it places "
				 "hosts, or give that rank one with rank: or node:");
	rp_profile_free(p);

	p = load(H(1, ", node: c") H(2, "") H(3, "") H(4, ""));
	assert_int_equal(rp_cluster_bind(p, r, 4, hr, err, sizeof(err)), -1);
	assert_string_equal(err, "host 'h1': no rank runs on node 'c' (ranks run on: a, b)");
	rp_profile_free(p);

	p = load(H(1, ", node: a") H(2, ", node: a") H(3, ", node: a") H(4, ""));
	assert_int_equal(rp_cluster_bind(p, r, 4, hr, err, sizeof(err)), -1);
	assert_string_equal(err, "host 'h3': node 'a' runs 2 ranks but the profile puts 3 or more hosts on it; "
				 "start one rank per host there");
	rp_profile_free(p);
}

static void test_single_process(void **state)
{
	(void)state;
	char err[ERRLEN];
	struct rp_profile *p = load(H(1, "") H(2, ", node: here"));
	assert_int_equal(rp_cluster_check_single(p, "here", err, sizeof(err)), 0);
	assert_int_equal(rp_cluster_check_single(p, "elsewhere", err, sizeof(err)), -1);
	assert_string_equal(err, "the profile runs host 'h2' on node 'here', not in this one process: start it with "
				 "mpirun or srun (e.g. mpirun -np N roceprobe ...)");
	rp_profile_free(p);
	p = load(H(1, ", rank: 0") H(2, ", rank: 1"));
	assert_int_equal(rp_cluster_check_single(p, "here", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "host 'h2' on rank 1"));
	rp_profile_free(p);
}

/* The rank's clock runs 5000 ns ahead of rank 0's. Sample 1 has the best RTT
 * (400 ns, 100 out and 300 back): midpoint 10200, offset 15100 - 10200 = 4900,
 * bound 200 (the truth, 5000, lies within 4900 +- 200). */
/* A host_template expanded for the launch (ranks4: nodes a, a, b, b) and bound:
 *   node: "{...}" is refused with launch placeholders, so: node: "b" for every
 *   host puts the 2 hosts on b's ranks 2, 3 (local ranks 0, 1, in host order);
 *   the default puts host i on rank i, and {local_rank} {node} follow it:
 *   names a-0 a-1 b-0 b-1, ports eth0 eth1 eth0 eth1. */
static void test_bind_template(void **state)
{
	(void)state;
	struct rp_rank_info r[4];
	struct rp_launch_rank l[4];
	char err[ERRLEN];
	int host_rank[4];
	ranks4(r);
	rp_cluster_launch_ranks(r, 4, l);
	assert_string_equal(l[2].node, "b");
	assert_int_equal(l[3].local_rank, 1);
	struct rp_profile_opts o = {.nranks = 4, .ranks = l};
	struct rp_profile *p = rp_profile_load_string(
		"t.yaml",
		"host_template: {name: \"{node}-{local_rank}\", port: \"net_af_packet0,iface=eth{local_rank}\", "
		"ipv4: netdev}\ntraffic: [{pattern: all-to-all, hosts: all}]\n",
		&o, err, sizeof(err));
	if (!p)
		fail_msg("%s", err);
	assert_int_equal(p->nhosts, 4); /* count defaults to ranks */
	static const char *const names[] = {"a-0", "a-1", "b-0", "b-1"};
	static const char *const ports[] = {"net_af_packet0,iface=eth0", "net_af_packet0,iface=eth1",
					    "net_af_packet0,iface=eth0", "net_af_packet0,iface=eth1"};
	assert_int_equal(rp_cluster_bind(p, r, 4, host_rank, err, sizeof(err)), 0);
	for (int i = 0; i < 4; i++) {
		assert_string_equal(p->hosts[i].name, names[i]);
		assert_string_equal(p->hosts[i].port, ports[i]);
		assert_int_equal(host_rank[i], i);
	}
	rp_profile_free(p);
	p = rp_profile_load_string("t.yaml",
				   "host_template: {count: 2, node: b, name: \"x{i}\", ipv4: \"10.0.0.{i+1}\"}\n"
				   "traffic: [{pattern: all-to-all}]\n",
				   &o, err, sizeof(err));
	if (!p)
		fail_msg("%s", err);
	int two[2];
	/* 2 hosts on node b, but ranks 0 and 1 (node a) run none: the binder says so */
	assert_int_equal(rp_cluster_bind(p, r, 4, two, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "rank 0 (node a) runs no host"));
	assert_int_equal(two[0], 2);
	assert_int_equal(two[1], 3);
	rp_profile_free(p);
}

static void test_clock_estimate(void **state)
{
	(void)state;
	const struct rp_clock_sample s[3] = {
		{.t0 = 0, .tr = 5000 + 2000, .t1 = 5000},        /* RTT 5000 */
		{.t0 = 10000, .tr = 5000 + 10100, .t1 = 10400},  /* RTT 400 */
		{.t0 = 20000, .tr = 5000 + 20300, .t1 = 21000},  /* RTT 1000 */
	};
	struct rp_clock_offset o;
	assert_int_equal(rp_clock_estimate(s, 3, &o), 0);
	assert_int_equal(o.rtt_ns, 400);
	assert_int_equal(o.offset_ns, 4900);
	assert_int_equal(o.bound_ns, 200);
	assert_int_equal(o.at_ns, 10200);
	assert_true(o.offset_ns - o.bound_ns <= 5000 && 5000 <= o.offset_ns + o.bound_ns);
	/* 1 us of offset gained over one second of rank 0's time: 1000 ppb. */
	struct rp_clock_offset later = {.offset_ns = 5900, .at_ns = 10200 + 1000000000};
	assert_true(rp_clock_drift_ppb(&o, &later) > 999.999 && rp_clock_drift_ppb(&o, &later) < 1000.001);
	/* Bounds 200 and 300 ns over 1 s: the drift is right within 500 ns/s; during the run the
	 * corrected clock is off by at most 200 (start) + 1000 (moved) + 200 + 300 = 1700 ns. */
	later.bound_ns = 300;
	assert_true(rp_clock_drift_bound_ppb(&o, &later) > 499.999 && rp_clock_drift_bound_ppb(&o, &later) < 500.001);
	assert_int_equal(rp_clock_run_bound_ns(&o, &later), 1700);
	const struct rp_clock_sample bad = {.t0 = 10, .tr = 0, .t1 = 5}; /* time ran backwards */
	assert_int_equal(rp_clock_estimate(&bad, 1, &o), -1);
	assert_int_equal(rp_clock_estimate(s, 0, &o), -1);
}

/* The guard (guard.c), in a child whose parent (this test) plays the launcher:
 * its own SIGCONT is no stop, its parent's is (Open MPI's first word when it
 * ends a job). The child exits 0 when both held. */
static volatile sig_atomic_t guard_flag;

static void sleep_ms(long ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000};
	nanosleep(&ts, NULL);
}

static void test_guard_cont(void **state)
{
	(void)state;
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rp_cluster c = {0};
		rp_cluster_guard_start(&c, &guard_flag);
		kill(getpid(), SIGCONT); /* not from the launcher */
		sleep_ms(50);
		int own = guard_flag;
		if (write(fds[1], "r", 1) != 1)
			_exit(9);
		for (int i = 0; i < 100 && !guard_flag; i++)
			sleep_ms(10);
		_exit(own ? 1 : guard_flag ? 0 : 2);
	}
	char b;
	assert_int_equal(read(fds[0], &b, 1), 1);
	kill(pid, SIGCONT);
	int st = 0;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0); /* 1: its own SIGCONT stopped it; 2: the parent's did not */
	close(fds[0]);
	close(fds[1]);
}

/* A rank whose launcher dies (here: its parent exits; this test, a subreaper,
 * inherits it) stops and exits RP_CLUSTER_EXIT_INCOMPLETE by itself, about
 * 0.3 s later (a rank that would run on has exit 0 after 3 s). */
static void test_guard_orphan(void **state)
{
	(void)state;
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pid_t mid = fork();
	assert_true(mid >= 0);
	if (mid == 0) {
		pid_t rank = fork();
		if (rank == 0) {
			struct rp_cluster c = {0};
			rp_cluster_guard_start(&c, &guard_flag);
			if (write(fds[1], "r", 1) != 1)
				_exit(9);
			sleep_ms(3000);
			_exit(0);
		}
		char b;
		_exit(read(fds[0], &b, 1) == 1 ? 0 : 9); /* the launcher goes once the rank's guard is up */
	}
	int st = 0;
	assert_int_equal(waitpid(mid, &st, 0), mid);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid_t got = wait(&st); /* the orphan, reparented to this subreaper */
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	assert_true(got > 0);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), RP_CLUSTER_EXIT_INCOMPLETE);
	assert_true(s < 2.0); /* 0.3 s and a poll of 10 ms, on a loaded machine well under 2 s */
	prctl(PR_SET_CHILD_SUBREAPER, 0);
	close(fds[0]);
	close(fds[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bind_default_and_keys),
		cmocka_unit_test(test_bind_nics),
		cmocka_unit_test(test_bind_errors),
		cmocka_unit_test(test_single_process),
		cmocka_unit_test(test_bind_template),
		cmocka_unit_test(test_clock_estimate),
		cmocka_unit_test(test_guard_cont),
		cmocka_unit_test(test_guard_orphan),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
