/* One meaning for sizes and whole numbers on every command line (app/cli.c
 * over lib/profile/units.c): 64 is 64 bytes, 4KiB is 4096, 1MiB is
 * 1048576 (1024 x 1024), 1MB is 1000000 (1000 x 1000), and a bare 1M is
 * refused as ambiguous with one line and exit 2, in every command that takes
 * a size. Each command's values are read back where the command says them
 * (headroom's table, ep's UD size check, switch's XON check), all before any
 * DPDK or verbs setup, so no device is needed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "check.h"
#include "cli.h"

static const char *roceprobe;

#define SIZE_HELP "expected a size like 64, 4KiB, 1MiB (1048576) or 1MB (1000000), got '1M'"

static void cli_size_values(void **state)
{
	(void)state;
	uint64_t v;
	assert_int_equal(rp_cli_size("t", "--s", "64", 1, UINT64_MAX, &v), 0);
	assert_int_equal(v, 64);
	assert_int_equal(rp_cli_size("t", "--s", "4KiB", 1, UINT64_MAX, &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(rp_cli_size("t", "--s", "1MiB", 1, UINT64_MAX, &v), 0);
	assert_int_equal(v, 1048576);
	assert_int_equal(rp_cli_size("t", "--s", "1MB", 1, UINT64_MAX, &v), 0);
	assert_int_equal(v, 1000000);
	v = 7;
	assert_int_equal(rp_cli_size("t", "--s", "1M", 1, UINT64_MAX, &v), RP_EXIT_USAGE);
	assert_int_equal(rp_cli_size("t", "--s", "4k", 1, UINT64_MAX, &v), RP_EXIT_USAGE);
	assert_int_equal(rp_cli_size("t", "--s", "0", 1, UINT64_MAX, &v), RP_EXIT_USAGE);
	assert_int_equal(rp_cli_size("t", "--s", "4097", 1, 4096, &v), RP_EXIT_USAGE);
	assert_int_equal(v, 7); /* untouched on error */
}

static void cli_uint_values(void **state)
{
	(void)state;
	uint64_t v;
	assert_int_equal(rp_cli_uint("t", "--n", "64", 0, 100, &v), 0);
	assert_int_equal(v, 64);
	assert_int_equal(rp_cli_uint("t", "--n", "1_000", 0, 1000, &v), 0);
	assert_int_equal(v, 1000);
	assert_int_equal(rp_cli_uint("t", "--n", "0x40", 0, 100, &v), 0);
	assert_int_equal(v, 64);
	v = 7;
	assert_int_equal(rp_cli_uint("t", "--n", "101", 0, 100, &v), RP_EXIT_USAGE);
	assert_int_equal(rp_cli_uint("t", "--n", "0", 1, 100, &v), RP_EXIT_USAGE);
	assert_int_equal(rp_cli_uint("t", "--n", "-1", 0, 100, &v), RP_EXIT_USAGE);
	assert_int_equal(rp_cli_uint("t", "--n", "1.5", 0, 100, &v), RP_EXIT_USAGE);
	assert_int_equal(rp_cli_uint("t", "--n", "4K", 0, 100000, &v), RP_EXIT_USAGE);
	assert_int_equal(v, 7);
}

/* Runs roceprobe args; asserts exit 2 and the one line want. */
static void refused(const char *const *args, const char *want)
{
	char err[4096], prefix[64];
	assert_int_equal(rp_test_run(roceprobe, args, err, sizeof(err)), 2);
	snprintf(prefix, sizeof(prefix), "roceprobe %s:", args[0]);
	rp_test_one_line(err, prefix, want);
}

static void headroom_mtu(void **state)
{
	(void)state;
	char err[4096], out[8192];
	const char *kib[] = {"headroom", "--speed", "100G", "--cable", "100m", "--mtu", "4KiB", NULL};
	assert_int_equal(rp_test_run_out(roceprobe, kib, err, sizeof(err), out, sizeof(out)), 0);
	assert_non_null(strstr(out, "MTU 4096 (peer 4096)"));
	const char *b64[] = {"headroom", "--speed", "100G", "--cable", "100m", "--mtu", "64", NULL};
	assert_int_equal(rp_test_run_out(roceprobe, b64, err, sizeof(err), out, sizeof(out)), 0);
	assert_non_null(strstr(out, "MTU 64 (peer 64)"));
	const char *mb[] = {"headroom", "--speed", "100G", "--cable", "100m", "--mtu", "1MB", NULL};
	refused(mb, "roceprobe headroom: --mtu: 1MB is 1000000 bytes, expected 64 to 65535");
	const char *mib[] = {"headroom", "--speed", "100G", "--cable", "100m", "--peer-mtu", "1MiB", NULL};
	refused(mib, "roceprobe headroom: --peer-mtu: 1MiB is 1048576 bytes, expected 64 to 65535");
	const char *m[] = {"headroom", "--speed", "100G", "--cable", "100m", "--mtu", "1M", NULL};
	refused(m, "roceprobe headroom: --mtu: " SIZE_HELP);
}

#ifdef RP_HAVE_DPDK
/* --xoff A --xon-delta B with B >= A names both in bytes. */
static void switch_sizes(void **state)
{
	(void)state;
	const char *mb[] = {"switch", "--port", "x", "--xoff", "1MB", "--xon-delta", "1MiB", NULL};
	refused(mb, "roceprobe switch: --xon-delta (1048576 B) must be below --xoff (1000000 B)");
	const char *kib[] = {"switch", "--port", "x", "--xoff", "4KiB", "--xon-delta", "4096", NULL};
	refused(kib, "roceprobe switch: --xon-delta (4096 B) must be below --xoff (4096 B)");
	const char *b64[] = {"switch", "--port", "x", "--xoff", "64", "--xon-delta", "64B", NULL};
	refused(b64, "roceprobe switch: --xon-delta (64 B) must be below --xoff (64 B)");
	static const char *const flags[] = {"--buffer", "--xoff", "--xon-delta", "--headroom", "--lossy-limit"};
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		const char *m[] = {"switch", "--port", "x", flags[i], "1M", NULL};
		char want[256];
		snprintf(want, sizeof(want), "roceprobe switch: %s: " SIZE_HELP, flags[i]);
		refused(m, want);
	}
}

/* --profile's fabric: section is read before any flag, wherever it stands:
 * its pfc.xoff (40 KiB = 40960 B, not the default 131072) is what a later or
 * earlier --xon-delta 48KiB (49152 B) is checked against. */
static void switch_profile(void **state)
{
	(void)state;
	char path[] = "/tmp/rp-test-switch-XXXXXX.yaml";
	int fd = mkstemps(path, 5);
	assert_true(fd >= 0);
	static const char text[] = "name: sw\n"
				   "hosts:\n"
				   "  - {name: a, mac: \"02:00:00:00:00:01\", ipv4: 10.0.0.1, port: net_null0}\n"
				   "  - {name: b, mac: \"02:00:00:00:00:02\", ipv4: 10.0.0.2, port: net_null1}\n"
				   "traffic:\n"
				   "  - {name: t, pattern: flow, src: a, dst: b, messages: 1}\n"
				   "fabric: {pfc: {xoff: 40KiB}}\n";
	assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)(sizeof(text) - 1));
	close(fd);
	const char *after[] = {"switch", "--port", "x", "--profile", path, "--xon-delta", "48KiB", NULL};
	refused(after, "roceprobe switch: --xon-delta (49152 B) must be below --xoff (40960 B)");
	const char *before[] = {"switch", "--port", "x", "--xon-delta", "48KiB", "--profile", path, NULL};
	refused(before, "roceprobe switch: --xon-delta (49152 B) must be below --xoff (40960 B)");
	unlink(path);
	const char *missing[] = {"switch", "--port", "x", "--profile", "/nonexistent/sw.yaml", NULL};
	refused(missing, "roceprobe switch: /nonexistent/sw.yaml: cannot open: No such file or directory");
}

/* --fdb reads MACs with lib/wire's rp_mac_parse: two hex digits per byte,
 * colons; 2:0:0:0:0:c (which sscanf("%2x:") took) is refused before EAL. */
static void switch_fdb_mac(void **state)
{
	(void)state;
	const char *short_mac[] = {"switch", "--port", "x", "--fdb", "2:0:0:0:0:c=0", NULL};
	refused(short_mac, "roceprobe switch: --fdb: expected a unicast MAC=PORT like 02:00:00:00:00:0c=2, got "
			   "'2:0:0:0:0:c=0'");
	const char *dashes[] = {"switch", "--port", "x", "--fdb", "02-00-00-00-00-0c=0", NULL};
	refused(dashes, "roceprobe switch: --fdb: expected a unicast MAC=PORT like 02:00:00:00:00:0c=2, got "
			"'02-00-00-00-00-0c=0'");
	/* A well-formed MAC passes the parse: the next check names port 1. */
	const char *good[] = {"switch", "--port", "x", "--fdb", "02:00:00:00:00:0c=1", NULL};
	refused(good, "roceprobe switch: --fdb: port 1 does not exist (1 ports, numbered from 0)");
}

/* 4KiB = 4096 in capture is read back from the rotated files by
 * tests/lab/capture_check.py; here the refusal of a bare M. */
static void capture_rotate_size(void **state)
{
	(void)state;
	const char *m[] = {"capture", "--port", "x", "-w", "x.pcap", "--rotate-size", "1M", NULL};
	refused(m, "roceprobe capture: --rotate-size: " SIZE_HELP);
	const char *k[] = {"capture", "--port", "x", "-w", "x.pcap", "--rotate-size", "4k", NULL};
	refused(k, "roceprobe capture: --rotate-size: expected a size like 64, 4KiB, 1MiB (1048576) or 1MB (1000000), "
		   "got '4k'");
}
#endif

#ifdef RP_HAVE_VERBS
/* A UD message is one packet of at most 4096 B: the check names the size. */
static void ep_size(void **state)
{
	(void)state;
	const char *mb[] = {"ep", "--client", "h", "--ud", "--size", "64,1MB", NULL};
	refused(mb, "roceprobe ep: --ud: message size 1000000 B is above the largest MTU (4096 B); a UD message is one "
		    "packet");
	const char *mib[] = {"ep", "--client", "h", "--ud", "--size", "4KiB,1MiB", NULL};
	refused(mib, "roceprobe ep: --ud: message size 1048576 B is above the largest MTU (4096 B); a UD message is one "
		     "packet");
	const char *m[] = {"ep", "--client", "h", "--size", "64,1M", NULL};
	refused(m, "roceprobe ep: --size: " SIZE_HELP);
	/* --ud-timeout is a duration like --duration: 200ms is accepted (the run
	 * gets as far as the device), 0.5ms is below its 1 ms floor. */
	const char *ms[] = {"ep", "--client", "h", "--ud-timeout", "0.5ms", "--ud", NULL};
	refused(ms, "roceprobe ep: --ud-timeout 0.5ms: at least 1ms");
	const char *n[] = {"ep", "--client", "h", "--dscp", "64", NULL};
	refused(n, "roceprobe ep: --dscp: expected a whole number from 0 to 63, got '64'");
}
#endif

/* The whole-number options of lab and run share one reading too. */
static void uint_options(void **state)
{
	(void)state;
	const char *lab[] = {"lab", "--snaplen", "4KiB", "x.yaml", NULL};
	refused(lab, "roceprobe lab: --snaplen: expected a whole number from 64 to 65535, got '4KiB'");
#ifdef RP_HAVE_DPDK
	const char *run[] = {"run", "--bin-us", "0", "x.yaml", NULL};
	refused(run, "roceprobe run: --bin-us: expected a whole number from 1 to 10000000, got '0'");
	const char *gen[] = {"gen", "--lcores", "65", "x.yaml", NULL};
	refused(gen, "roceprobe gen: --lcores: expected a whole number from 1 to 64, got '65'");
	const char *sw[] = {"switch", "--port", "x", "--quanta", "1.5", NULL};
	refused(sw, "roceprobe switch: --quanta: expected a whole number from 1 to 65535, got '1.5'");
#endif
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: test_cli PATH/TO/roceprobe\n");
		return 2;
	}
	roceprobe = argv[1];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cli_size_values),
		cmocka_unit_test(cli_uint_values),
		cmocka_unit_test(headroom_mtu),
#ifdef RP_HAVE_DPDK
		cmocka_unit_test(switch_sizes),
		cmocka_unit_test(switch_profile),
		cmocka_unit_test(capture_rotate_size),
		cmocka_unit_test(switch_fdb_mac),
#endif
#ifdef RP_HAVE_VERBS
		cmocka_unit_test(ep_size),
#endif
		cmocka_unit_test(uint_options),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
