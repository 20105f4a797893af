#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

int rp_cli_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "roceprobe %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return RP_EXIT_USAGE;
}

int rp_cli_snaplen(const char *cmd, const char *arg, unsigned *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || v < RP_CLI_SNAPLEN_MIN || v > RP_CLI_SNAPLEN_MAX)
		return rp_cli_error(cmd, "--snaplen: expected %d..%d bytes, got '%s'", RP_CLI_SNAPLEN_MIN,
				    RP_CLI_SNAPLEN_MAX, arg);
	*out = (unsigned)v;
	return 0;
}

bool rp_cli_is_help(const char *arg)
{
	return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

volatile sig_atomic_t rp_cli_stop;

static void on_stop_signal(int sig)
{
	(void)sig;
	rp_cli_stop = 1;
}

void rp_cli_catch_stop(void)
{
	signal(SIGINT, on_stop_signal);
	signal(SIGTERM, on_stop_signal);
}
