/* roceprobe counters: a NIC's own counters, read from the kernel or from a
 * saved copy, in one vocabulary (lib/counters); --watch prints deltas. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "counters/sources.h"

static const char SHORTS[] = "h";

#define SOURCES_MAX 16

static void usage(FILE *out)
{
	fputs("usage: roceprobe counters SOURCE... [--json] [--watch DURATION] [--port P]\n"
	      "\n"
	      "Reads what a NIC counted and prints it under one set of names, whichever\n"
	      "driver named it: per priority pfc_rx/pfc_tx (every PFC frame naming the\n"
	      "priority, XON and XOFF alike), pause_us_rx/_tx, xoff_to_xon, bytes, packets,\n"
	      "discards; per port pause storms, out-of-buffer and PHY discards, CNPs sent and\n"
	      "handled, ECN marks, out-of-sequence, retransmissions and timeouts. Known names\n"
	      "of mlx5_core, ice, bnxt_en, rxe, mlx5_ib, bnxt_re and irdma are mapped; every\n"
	      "other counter is kept under the name the driver gave it (raw).\n"
	      "\n"
	      "SOURCE:\n"
	      "  ethtool:IFACE        the netdev's ethtool statistics (what `ethtool -S` shows)\n"
	      "  sysfs:IFACE          /sys/class/net/IFACE/statistics (what `ip -s link` shows)\n"
	      "  rdma:DEV             /sys/class/infiniband/DEV/ports/N/counters and hw_counters\n"
	      "  ethtool-file:PATH    a saved `ethtool -S IFACE > PATH`\n"
	      "  rdma-dir:PATH        a copied hw_counters directory (cp -r .../ports/1/hw_counters PATH),\n"
	      "                       or a copied port directory holding hw_counters/ and counters/\n"
	      "\n"
	      "  --json               JSON (schema roceprobe.counters/1, docs/results.md): one\n"
	      "                       object per source, one per line\n"
	      "  --watch DURATION     every DURATION (1s, 200ms) one line per source with what\n"
	      "                       changed since the line before: counters as deltas, gauges\n"
	      "                       as values; the first line (--json) is the absolute snapshot.\n"
	      "                       Ctrl-C or SIGTERM stops after a whole line\n"
	      "  --port P             rdma: sources: only port P (default: every port)\n"
	      "\n"
	      "examples:\n"
	      "  roceprobe counters ethtool:eth2                 PFC per priority, drops, raw counters\n"
	      "  roceprobe counters ethtool:eth2 rdma:mlx5_0 --port 1\n"
	      "  roceprobe counters ethtool:eth2 --watch 1s      what changes, second by second\n"
	      "  roceprobe counters sysfs:eth2 ethtool:eth2 --watch 100ms --json > series.jsonl\n"
	      "  ethtool -S eth2 > eth2.txt; roceprobe counters ethtool-file:eth2.txt --json\n"
	      "\n"
	      "Exit status: 0; 1 when a source could not be read any more during --watch;\n"
	      "2 with one line on bad input (an unknown source, a missing interface or file).\n",
	      out);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void put_json(json_t *o)
{
	char *s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	if (s) {
		fputs(s, stdout);
		fputc('\n', stdout);
		free(s);
	}
	fflush(stdout);
}

/* Sleeps until deadline (CLOCK_MONOTONIC ns) or until SIGINT/SIGTERM. */
static void sleep_until(uint64_t deadline)
{
	while (!rp_cli_stop) {
		uint64_t now = mono_ns();
		if (now >= deadline)
			return;
		uint64_t left = deadline - now;
		if (left > 50000000u)
			left = 50000000u;
		struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)left};
		nanosleep(&ts, NULL);
	}
}

static struct rp_cnt_source src[SOURCES_MAX];
static struct rp_cnt_snap prev[SOURCES_MAX], cur[SOURCES_MAX], delta;

int rp_cmd_counters(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"watch", required_argument, NULL, 'w'},
		{"port", required_argument, NULL, 'p'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	bool json = false;
	double watch_s = 0;
	uint64_t port = 0;
	int c;
	while ((c = getopt_long(argc, argv, SHORTS, opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'w':
			if (rp_cli_duration("counters", "--watch", optarg, 86400, &watch_s))
				return RP_EXIT_USAGE;
			break;
		case 'p':
			if (rp_cli_uint("counters", "--port", optarg, 1, 255, &port))
				return RP_EXIT_USAGE;
			break;
		case 'h':
			usage(stdout);
			return RP_EXIT_OK;
		default:
			return rp_cli_bad_option("counters", SHORTS);
		}
	}
	size_t n = (size_t)(argc - optind);
	if (n == 0)
		return rp_cli_error("counters", "no SOURCE: give ethtool:IFACE, sysfs:IFACE, rdma:DEV, ethtool-file:PATH or "
						"rdma-dir:PATH (roceprobe counters --help)");
	if (n > SOURCES_MAX)
		return rp_cli_error("counters", "%zu sources, at most %d", n, SOURCES_MAX);
	char err[512];
	bool rdma = false;
	for (size_t i = 0; i < n; i++) {
		if (rp_cnt_source_parse(argv[optind + (int)i], &src[i], err, sizeof(err)))
			return rp_cli_error("counters", "%s", err);
		src[i].port = (unsigned)port;
		rdma |= src[i].kind == RP_CNT_RDMA;
	}
	if (port && !rdma)
		return rp_cli_error("counters", "--port %u selects a port of an rdma: source, and none is given", (unsigned)port);
	/* Every source read once before anything is printed: a bad one is the
	 * only output. */
	for (size_t i = 0; i < n; i++)
		if (rp_cnt_read(&src[i], &cur[i], err, sizeof(err)))
			return rp_cli_error("counters", "%s", err);
	for (size_t i = 0; i < n; i++) {
		if (json)
			put_json(rp_cnt_json(&cur[i], false, 0));
		else if (!watch_s)
			rp_cnt_print(stdout, &cur[i]), fputs(i + 1 < n ? "\n" : "", stdout);
	}
	if (!watch_s)
		return RP_EXIT_OK;

	rp_cli_catch_stop();
	if (!json)
		fprintf(stdout, "# every %g s, what changed (counters as +delta); Ctrl-C stops\n", watch_s);
	fflush(stdout);
	uint64_t step = (uint64_t)(watch_s * 1e9), start = cur[0].mono_ns, next = mono_ns() + step;
	int rc = RP_EXIT_OK;
	while (!rp_cli_stop) {
		sleep_until(next);
		if (rp_cli_stop)
			break;
		next += step;
		for (size_t i = 0; i < n; i++) {
			struct rp_cnt_snap t = prev[i];
			prev[i] = cur[i];
			cur[i] = t;
			if (rp_cnt_read(&src[i], &cur[i], err, sizeof(err))) {
				rp_cli_error("counters", "%s", err);
				rc = RP_EXIT_FAIL;
				goto out;
			}
			rp_cnt_delta(&prev[i], &cur[i], &delta);
			if (json)
				put_json(rp_cnt_json(&delta, true, cur[i].mono_ns - prev[i].mono_ns));
			else {
				rp_cnt_print_delta(stdout, &delta, (double)(cur[i].mono_ns - start) / 1e9);
				fflush(stdout);
			}
		}
	}
out:
	for (size_t i = 0; i < n; i++) {
		rp_cnt_snap_free(&prev[i]);
		rp_cnt_snap_free(&cur[i]);
	}
	rp_cnt_snap_free(&delta);
	return rc;
}
