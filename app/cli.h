/* What every subcommand shares: error lines, exit codes, option helpers. */
#ifndef RP_APP_CLI_H
#define RP_APP_CLI_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "dp/dp.h"

#define RP_EXIT_OK 0
#define RP_EXIT_FAIL 1  /* the run happened and found a problem */
#define RP_EXIT_USAGE 2 /* bad input: CLI, profile, file, environment */

/* One line on stderr: "roceprobe CMD: message". Returns RP_EXIT_USAGE. */
__attribute__((format(printf, 2, 3))) int rp_cli_error(const char *cmd, const char *fmt, ...);
/* The command's arguments, as its getopt_long reads them (main, once):
 * also sets opterr 0, getopt itself then says nothing. */
void rp_cli_args(int argc, char *const argv[]);
/* getopt_long's '?' as one line: the argument, unknown or missing its
 * value (or given one it takes none), and where --help is. shorts: the
 * command's short-option string. Returns RP_EXIT_USAGE. */
int rp_cli_bad_option(const char *cmd, const char *shorts);
/* Under a launcher every rank sets up alone, but the user reads one line:
 * while buf is held, rp_cli_error keeps its first message there ("message",
 * without the prefix) instead of printing it; NULL prints again. */
void rp_cli_hold_errors(char *buf, size_t len);
/* Set by SIGINT/SIGTERM once rp_cli_catch_stop() ran: every long-running
 * command polls it and stops cleanly, with its final counters. A second
 * signal ends the process at once (exit 128 + the signal), removing the
 * files being written (report/outdir.h's tracked ones), never leaving them
 * cut. */
extern volatile sig_atomic_t rp_cli_stop;
void rp_cli_catch_stop(void);
/* --snaplen, one rule for every command that captures (lab, capture, run):
 * 64..65535 bytes kept per frame (64: Ethernet, IPv4, UDP and BTH; IPv6 needs 74), default
 * 128 (every RoCEv2 header and the probe). 0, or the one error line's exit. */
#define RP_CLI_SNAPLEN_MIN 64
#define RP_CLI_SNAPLEN_MAX 65535
#define RP_CLI_SNAPLEN_DEFAULT 128
int rp_cli_snaplen(const char *cmd, const char *arg, unsigned *out);
/* --bin-us N (a time series' bin, whole microseconds, 1 or more) and --speed
 * RATE (a link speed for pause quanta -> time), as analyze and replay read a
 * capture: getopt_long's values for them ('b', 's'), and what the command's
 * option loop does with any value it has no case for: c one of them, its
 * value in *bin_ns or *bps and 0; a bad value, or any other c (a bad option:
 * rp_cli_bad_option), the one error line's exit. */
#define RP_CLI_OPT_BIN_US 'b'
#define RP_CLI_OPT_SPEED 's'
int rp_cli_capture_timing(const char *cmd, const char *shorts, int c, const char *arg, uint64_t *bin_ns,
			  uint64_t *bps);
/* --no-telemetry, one option for every command that starts DPDK's EAL (gen,
 * run, capture, switch; certify passes it to its run children): DPDK
 * telemetry is on by default, its socket /var/run/dpdk/rpPID/dpdk_telemetry.v2
 * (`dpdk-telemetry.py -f rpPID` attaches), removed at exit. An entry of the
 * command's getopt_long table; the value getopt_long returns for it. */
#define RP_CLI_OPT_NO_TELEMETRY 1003
#define RP_CLI_NO_TELEMETRY_OPTION {"no-telemetry", no_argument, NULL, RP_CLI_OPT_NO_TELEMETRY}
/* --share and --exclusive (gen, run): how a port the kernel also uses is held
 * (lib/dp/dp.h enum rp_dp_share; docs/hardware.md). Entries of the command's
 * getopt_long table, the values getopt_long returns for them, and their --help
 * lines. rp_cli_share: 1 when c is one of them (*share set; both given: the
 * error line's exit code in *rc), else 0. */
#define RP_CLI_OPT_SHARE 1005
#define RP_CLI_OPT_EXCLUSIVE 1006
#define RP_CLI_SHARE_OPTIONS                                                                                   \
	{"share", no_argument, NULL, RP_CLI_OPT_SHARE}, {"exclusive", no_argument, NULL, RP_CLI_OPT_EXCLUSIVE}
/* Their --help lines, descriptions from column col. */
void rp_cli_share_help(FILE *out, int col);
int rp_cli_share(const char *cmd, int c, enum rp_dp_share *share, int *rc);
/* True when argv[i] is -h or --help. */
bool rp_cli_is_help(const char *arg);
/* A --duration value: seconds (2, 0.5) or a duration as profiles write it
 * (500ms, 1s, 20us: lib/profile's rp_parse_duration), > 0 and <= max_s.
 * 0, or the error line's exit code. */
int rp_cli_duration(const char *cmd, const char *flag, const char *arg, double max_s, double *seconds);
/* The same in whole nanoseconds, at least min_ns. */
int rp_cli_duration_ns(const char *cmd, const char *flag, const char *arg, uint64_t min_ns, double max_s, uint64_t *ns);
/* A comma list (arg, cut in place: getopt's optarg) appended to out[*n..max). 0, or
 * the error line's exit code when it would pass max. */
int rp_cli_list(const char *cmd, const char *flag, char *arg, const char **out, size_t max, size_t *n);
/* A size option, read as profiles read sizes (lib/profile's rp_parse_size):
 * 64 and 64B are bytes, KiB/MiB/GiB/TiB count in 1024s, KB/MB/GB/TB in
 * 1000s (1MB = 1000000, 1MiB = 1048576), a bare K/M/G is refused as
 * ambiguous; min..max bytes. 0, or the error line's exit code. */
int rp_cli_size(const char *cmd, const char *flag, const char *arg, uint64_t min, uint64_t max, uint64_t *v);
/* A whole-number option (lib/profile's rp_parse_uint: 64, 1_000_000, 0x40),
 * min..max. 0, or the error line's exit code. */
int rp_cli_uint(const char *cmd, const char *flag, const char *arg, uint64_t min, uint64_t max, uint64_t *v);
/* The -o directory made ready for a run (parents made; a non-empty one
 * refused unless force, see lib/report/outdir.h). 0 or the error's exit code. */
int rp_cli_outdir(const char *cmd, const char *dir, bool force);
/* Only the refusal of rp_cli_outdir, nothing made: before a slow setup. */
int rp_cli_outdir_check(const char *cmd, const char *dir, bool force);

/* --metrics [ADDR:]PORT and --metrics-linger DURATION (app/cli_metrics.c),
 * on run, gen, lab, switch and certify: the long options' values (no short
 * form), their help lines, the server started and ended the same way. */
#define RP_CLI_OPT_METRICS 1001
#define RP_CLI_OPT_METRICS_LINGER 1002
#define RP_CLI_OPT_METRICS_KEY 1004
#define RP_CLI_METRICS_OPTIONS                                                                           \
	{"metrics", required_argument, NULL, RP_CLI_OPT_METRICS},                                        \
	{"metrics-linger", required_argument, NULL, RP_CLI_OPT_METRICS_LINGER},                          \
	{"metrics-key-file", required_argument, NULL, RP_CLI_OPT_METRICS_KEY}
#define RP_CLI_METRICS_HELP                                                                              \
	"  --metrics [ADDR:]PORT  serve live numbers in the Prometheus text format at\n"                 \
	"                         http://ADDR:PORT/metrics (ADDR 127.0.0.1 unless given; docs/metrics.md)\n" \
	"  --metrics-linger D     keep serving the final values D (10s, 1m) after the results are\n"     \
	"                         written, so the last scrape sees them (default 0; Ctrl-C ends it)\n"     \
	"  --metrics-key-file F   scrapes must send Authorization: Bearer <F's text> (Prometheus:\n"   \
	"                         authorization: {credentials_file: F}); else ROCEPROBE_KEY; needed\n"  \
	"                         on any address but loopback (0.0.0.0 is refused: name the address)\n"
struct rp_cli_metrics {
	const char *spec;   /* NULL: no --metrics */
	double linger_s;
	const char *key_file; /* --metrics-key-file (else ROCEPROBE_KEY) */
};
struct rp_metrics;
/* One of the two options (c: getopt's value) into m: 0 or the error's exit. */
int rp_cli_metrics_opt(const char *cmd, int c, const char *arg, struct rp_cli_metrics *m);
/* The listener (port + port_add: a rank's local index under a launcher),
 * its address said on stderr; *out NULL without --metrics. 0, or the one
 * error line's exit code (a port in use, a bad address). */
int rp_cli_metrics_start(const char *cmd, const struct rp_cli_metrics *m, unsigned port_add, struct rp_metrics **out);
/* Once the EAL is up: the listener's thread off the lcores' CPUs (a scrape
 * never takes a poller's core; tools/bench/tx.sh METRICS=1). */
void rp_cli_metrics_off_lcores(struct rp_metrics *mx);
/* The final values taken (the collect callback once more), served for the
 * linger when the command wrote its results (not after a failed set-up),
 * the listener closed. NULL does nothing. */
void rp_cli_metrics_end(const char *cmd, const struct rp_cli_metrics *m, struct rp_metrics *mx, bool results);

/* A shared key (lib/auth): the text of file (flag names it in errors), else
 * ROCEPROBE_KEY, else none (*out NULL). 0, or the exit code of one line on
 * stderr; a key file others may read is a warning line. ep and --metrics. */
struct rp_auth_key;
int rp_cli_key(const char *cmd, const char *flag, const char *file, const struct rp_auth_key **out);

int rp_cmd_analyze(int argc, char **argv);
int rp_cmd_replay(int argc, char **argv);
int rp_cmd_replay_run(int argc, char **argv); /* cmd_replay_run.c: 'replay run' */
int rp_cmd_certify(int argc, char **argv);
int rp_cmd_cluster(int argc, char **argv);
int rp_cmd_counters(int argc, char **argv);
int rp_cmd_decode(int argc, char **argv);
int rp_cmd_headroom(int argc, char **argv);
int rp_cmd_lab(int argc, char **argv);
int rp_cmd_plan(int argc, char **argv);
int rp_cmd_gen(int argc, char **argv);
int rp_cmd_run(int argc, char **argv);
int rp_cmd_ep(int argc, char **argv);
int rp_cmd_capture(int argc, char **argv);
int rp_cmd_switch(int argc, char **argv);
int rp_cmd_doctor(int argc, char **argv);

#endif
