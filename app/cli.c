#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auth/auth.h"
#include "profile/units.h"
#include "report/outdir.h"

static char *held;
static size_t held_len;

static int cmd_argc;
static char *const *cmd_argv;

void rp_cli_args(int argc, char *const argv[])
{
	cmd_argc = argc;
	cmd_argv = argv;
	opterr = 0; /* getopt says nothing: rp_cli_bad_option says it in one line */
}

int rp_cli_bad_option(const char *cmd, const char *shorts)
{
	const char *arg = cmd_argv && optind >= 1 && optind - 1 < cmd_argc ? cmd_argv[optind - 1] : "";
	bool is_long = strncmp(arg, "--", 2) == 0;
	int name_len = (int)strcspn(arg, "=");
	if (is_long && optopt == 0)
		return rp_cli_error(cmd, "unknown option '%.*s' (try 'roceprobe %s --help')", name_len, arg, cmd);
	if (is_long && arg[name_len] == '=')
		return rp_cli_error(cmd, "option '%.*s' takes no value (try 'roceprobe %s --help')", name_len, arg, cmd);
	if (is_long)
		return rp_cli_error(cmd, "option '%.*s' needs a value (try 'roceprobe %s --help')", name_len, arg, cmd);
	if (optopt > ' ' && optopt != ':' && strchr(shorts, optopt))
		return rp_cli_error(cmd, "option '-%c' needs a value (try 'roceprobe %s --help')", optopt, cmd);
	if (optopt > ' ' && optopt < 127)
		return rp_cli_error(cmd, "unknown option '-%c' (try 'roceprobe %s --help')", optopt, cmd);
	return rp_cli_error(cmd, "bad option '%s' (try 'roceprobe %s --help')", arg, cmd);
}

void rp_cli_hold_errors(char *buf, size_t len)
{
	held = buf;
	held_len = len;
	if (held && held_len)
		held[0] = '\0';
}

int rp_cli_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	if (held) {
		if (held_len && !held[0]) {
			va_start(ap, fmt);
			vsnprintf(held, held_len, fmt, ap);
			va_end(ap);
		}
		return RP_EXIT_USAGE;
	}
	fprintf(stderr, "roceprobe %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return RP_EXIT_USAGE;
}

int rp_cli_snaplen(const char *cmd, const char *arg, unsigned *out)
{
	uint64_t v = 0;
	int rc = rp_cli_uint(cmd, "--snaplen", arg, RP_CLI_SNAPLEN_MIN, RP_CLI_SNAPLEN_MAX, &v);
	if (rc == 0)
		*out = (unsigned)v;
	return rc;
}

int rp_cli_capture_timing(const char *cmd, const char *shorts, int c, const char *arg, uint64_t *bin_ns,
			  uint64_t *bps)
{
	uint64_t v;
	if (c == RP_CLI_OPT_BIN_US) {
		if (rp_parse_uint(arg, 1000000000ull, &v) || v == 0)
			return rp_cli_error(cmd, "--bin-us '%s': give a whole number of microseconds, 1 or more", arg);
		*bin_ns = v * 1000;
		return 0;
	}
	if (c == RP_CLI_OPT_SPEED) {
		if (rp_parse_bitrate(arg, bps) || *bps == 0)
			return rp_cli_error(cmd, "--speed '%s': give a link speed such as 25G, 100G or 400G", arg);
		return 0;
	}
	return rp_cli_bad_option(cmd, shorts);
}

bool rp_cli_is_help(const char *arg)
{
	return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

volatile sig_atomic_t rp_cli_stop;
static volatile sig_atomic_t own_signals;
static pid_t main_pid;

/* Async-signal-safe only. The first signal sets the flag; the second ends
 * the process at once, removing the files being written (they would be
 * cut: report/outdir.h), exit 128 + the signal. A sweep's point process
 * (forked after rp_cli_catch_stop) is passed the stop on by its parent
 * (lib/lab/sweep_jobs.c: SIGTERM), likely after the user's own signal to
 * the process group: that one is no second signal. */
static void on_stop_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	bool passed_on = getpid() != main_pid && si && si->si_code == SI_USER && si->si_pid == getppid();
	if (!passed_on && ++own_signals >= 2) {
		static const char msg[] = "roceprobe: a second signal: stopped at once (files being written removed)\n";
		rp_outdir_unlink_tracked();
		ssize_t w = write(STDERR_FILENO, msg, sizeof(msg) - 1);
		(void)w;
		_exit(128 + sig);
	}
	rp_cli_stop = 1;
}

void rp_cli_catch_stop(void)
{
	struct sigaction sa = {.sa_sigaction = on_stop_signal, .sa_flags = SA_SIGINFO | SA_RESTART};
	sigemptyset(&sa.sa_mask);
	main_pid = getpid();
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int rp_cli_duration(const char *cmd, const char *flag, const char *arg, double max_s, double *seconds)
{
	char *end;
	uint64_t ns;
	double s = strtod(arg, &end);
	if (end == arg || *end) /* not a bare number of seconds: 500ms, 1s, 20us */
		s = rp_parse_duration(arg, &ns) == 0 ? (double)ns / 1e9 : -1;
	if (!(s > 0) || s > max_s)
		return rp_cli_error(cmd, "%s: expected seconds (2, 0.5) or a duration (500ms, 1s), > 0 and at most %g s, got '%s'",
				    flag, max_s, arg);
	*seconds = s;
	return 0;
}

int rp_cli_duration_ns(const char *cmd, const char *flag, const char *arg, uint64_t min_ns, double max_s, uint64_t *ns)
{
	double s;
	int rc = rp_cli_duration(cmd, flag, arg, max_s, &s);
	if (rc)
		return rc;
	*ns = (uint64_t)(s * 1e9 + 0.5);
	if (*ns < min_ns)
		return rp_cli_error(cmd, "%s: %s is under %" PRIu64 " ns, the shortest it takes", flag, arg, min_ns);
	return 0;
}

int rp_cli_list(const char *cmd, const char *flag, char *arg, const char **out, size_t max, size_t *n)
{
	for (char *sp = NULL, *t = strtok_r(arg, ",", &sp); t; t = strtok_r(NULL, ",", &sp)) {
		if (*n == max)
			return rp_cli_error(cmd, "%s: at most %zu", flag, max);
		out[(*n)++] = t;
	}
	return 0;
}

int rp_cli_size(const char *cmd, const char *flag, const char *arg, uint64_t min, uint64_t max, uint64_t *v)
{
	uint64_t x;
	if (rp_parse_size(arg, &x))
		return rp_cli_error(cmd, "%s: expected a size like 64, 4KiB, 1MiB (1048576) or 1MB (1000000), got '%s'", flag,
				    arg);
	if (x < min || x > max)
		return rp_cli_error(cmd, "%s: %s is %" PRIu64 " bytes, expected %" PRIu64 " to %" PRIu64, flag, arg, x, min,
				    max);
	*v = x;
	return 0;
}

int rp_cli_uint(const char *cmd, const char *flag, const char *arg, uint64_t min, uint64_t max, uint64_t *v)
{
	uint64_t x;
	if (rp_parse_uint(arg, max, &x) || x < min)
		return rp_cli_error(cmd, "%s: expected a whole number from %" PRIu64 " to %" PRIu64 ", got '%s'", flag, min,
				    max, arg);
	*v = x;
	return 0;
}

int rp_cli_outdir(const char *cmd, const char *dir, bool force)
{
	char err[4600];
	return rp_outdir_prepare(dir, force, err, sizeof(err)) ? rp_cli_error(cmd, "%s", err) : 0;
}

int rp_cli_outdir_check(const char *cmd, const char *dir, bool force)
{
	char err[4600];
	return rp_outdir_check(dir, force, err, sizeof(err)) ? rp_cli_error(cmd, "%s", err) : 0;
}


int rp_cli_key(const char *cmd, const char *flag, const char *file, const struct rp_auth_key **out)
{
	static struct rp_auth_key key;
	const char *env = getenv("ROCEPROBE_KEY");
	char err[512], warn[512];
	*out = NULL;
	if (!file && !env)
		return 0;
	if (rp_auth_init(err, sizeof(err)))
		return rp_cli_error(cmd, "%s", err);
	if (file) {
		if (rp_auth_key_load(file, &key, warn, sizeof(warn), err, sizeof(err)))
			return rp_cli_error(cmd, "%s: %s", flag, err);
		if (warn[0])
			fprintf(stderr, "roceprobe %s: warning: %s\n", cmd, warn);
	} else if (rp_auth_key_from_text(env, strlen(env), &key, err, sizeof(err))) {
		return rp_cli_error(cmd, "ROCEPROBE_KEY: %s (unset it for no key)", err);
	}
	*out = &key;
	return 0;
}

int rp_cli_share(const char *cmd, int c, enum rp_dp_share *share, int *rc)
{
	if (c != RP_CLI_OPT_SHARE && c != RP_CLI_OPT_EXCLUSIVE)
		return 0;
	enum rp_dp_share want = c == RP_CLI_OPT_SHARE ? RP_DP_SHARE_ON : RP_DP_SHARE_EXCLUSIVE;
	if (*share != RP_DP_SHARE_AUTO && *share != want)
		*rc = rp_cli_error(cmd, "--share and --exclusive: give one");
	*share = want;
	return 1;
}

void rp_cli_share_help(FILE *out, int col)
{
	static const char *const share[] = {
		"share every port with the kernel: only the run's RoCEv2 frames",
		"(UDP 4791 to its hosts' addresses) and PFC/PAUSE come to",
		"roceprobe (DPDK isolated mode; net_af_xdp: roceprobe's XDP",
		"program), ssh, ARP, MPI and the kernel's RDMA stay with the",
		"kernel; a PMD that cannot is one line (default: shared on mlx5,",
		"whose driver keeps the netdev, whole elsewhere; docs/hardware.md)",
	};
	for (size_t i = 0; i < sizeof(share) / sizeof(share[0]); i++)
		fprintf(out, "  %-*s%s\n", col - 2, i ? "" : "--share", share[i]);
	fprintf(out, "  %-*s%s\n", col - 2, "--exclusive", "take every port whole (every frame to roceprobe)");
}
