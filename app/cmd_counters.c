/* roceprobe counters: a NIC's own counters, read from the kernel or from a
 * saved copy, and a switch's from its database, in one vocabulary
 * (lib/counters); --watch prints deltas. */
#include <getopt.h>
#include <inttypes.h>
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
	      "  sonic://HOST[:PORT]  a SONiC switch's Redis (PORT 6379): COUNTERS_DB as pfcstat,\n"
	      "                       queuestat and watermarkstat read it, per port and priority\n"
	      "                       pfc_rx/pfc_tx/pause_us_rx/_tx, per queue packets, drops,\n"
	      "                       ecn_marked, watchdog storms, per queue and PG watermarks\n"
	      "                       (gauges), and CONFIG_DB's priority -> queue and PG maps.\n"
	      "                       SONiC refreshes these about once a second (counterpoll)\n"
	      "  snmp://HOST[:PORT]   a switch's SNMP agent (PORT 161): IF-MIB ifName, ifHighSpeed,\n"
	      "                       octets and discards, CISCO-PFC-EXT-MIB pfc_rx/pfc_tx per\n"
	      "                       priority, IEEE8021-PFC-MIB's per port, CISCO-SWITCH-QOS-MIB\n"
	      "                       queue packets and drops; needs --credentials. A Counter32\n"
	      "                       that went back wrapped if the count that implies fits the\n"
	      "                       interval at line rate (ifHighSpeed), else it was reset\n"
	      "  exec:CMD             any command printing JSON (Arista '... | json', NVUE\n"
	      "                       'nv show ... -o json', 'ip -j -s link'), read through\n"
	      "                       --map; run by /bin/sh, at most 10 s\n"
	      "\n"
	      "  --json               JSON (schema roceprobe.counters/1, docs/results.md): one\n"
	      "                       object per source, one per line\n"
	      "  --watch DURATION     every DURATION (1s, 200ms) one line per source with what\n"
	      "                       changed since the line before: counters as deltas, gauges\n"
	      "                       as values; the first line (--json) is the absolute snapshot.\n"
	      "                       Ctrl-C or SIGTERM stops after a whole line\n"
	      "  --port P             rdma: sources: only port P (default: every port)\n"
	      "  --credentials FILE   snmp: sources: 'community NAME', or 'user NAME' with\n"
	      "                       'auth SHA|SHA-256|MD5 PASS' and 'priv AES|DES PASS' lines;\n"
	      "                       never on the command line (ps shows it); chmod 600 FILE\n"
	      "  --map FILE           exec: sources: {\"ports\": [NAME...], \"counters\": {KEY: PATH}},\n"
	      "                       PATH like 'ifaces.{port}.pfc[{prio}].rx' or\n"
	      "                       '[ifname={port}].stats64.rx.bytes' (docs/results.md)\n"
	      "\n"
	      "examples:\n"
	      "  roceprobe counters ethtool:eth2                 PFC per priority, drops, raw counters\n"
	      "  roceprobe counters ethtool:eth2 rdma:mlx5_0 --port 1\n"
	      "  roceprobe counters ethtool:eth2 --watch 1s      what changes, second by second\n"
	      "  roceprobe counters sysfs:eth2 ethtool:eth2 --watch 100ms --json > series.jsonl\n"
	      "  ethtool -S eth2 > eth2.txt; roceprobe counters ethtool-file:eth2.txt --json\n"
	      "  roceprobe counters sonic://10.0.0.1 --watch 1s   the switch's PFC, drops, ECN marks\n"
	      "  roceprobe counters snmp://10.0.0.1 --credentials ~/.roceprobe/sw1.snmp --json\n"
	      "  roceprobe counters 'exec:ssh sw1 show interfaces counters | json' --map arista.json\n"
	      "\n"
	      "Exit status: 0; 1 when a source could not be read any more during --watch;\n"
	      "2 with one line on bad input (an unknown source, a missing interface or file,\n"
	      "a switch that cannot be reached or whose database is not SONiC's, credentials\n"
	      "the agent refuses, a switch counter that went backwards during --watch and\n"
	      "did not wrap: the switch restarted or its counters were cleared).\n",
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

/* A switch's counter of the vocabulary that went backwards: SONiC's are
 * 64-bit and only restart with the switch (syncd), an SNMP Counter32 that
 * went back further than line rate could wrap it was reset (snap.h), so a
 * delta over it means nothing. One line naming the first, true when there is one. (A raw field
 * going back is marked in resets, as a NIC's: the vocabulary does not know
 * what it counts.) */
static bool backwards(const struct rp_cnt_snap *before, const struct rp_cnt_snap *now, const struct rp_cnt_snap *d)
{
	for (size_t i = 0; i < d->nports; i++)
		for (size_t k = 0; k < d->port[i].n; k++) {
			const struct rp_cnt_val *v = &d->port[i].v[k];
			if (!v->reset || v->cls != RP_CNT_KEY)
				continue;
			const struct rp_cnt_val *b = NULL, *c = NULL;
			for (size_t j = 0; j < before->nports && !b; j++)
				if (strcmp(before->port[j].name, d->port[i].name) == 0)
					b = rp_cnt_find_at(&before->port[j], (enum rp_cnt_scope)v->scope, v->prio, v->name,
							   (enum rp_cnt_class)v->cls);
			for (size_t j = 0; j < now->nports && !c; j++)
				if (strcmp(now->port[j].name, d->port[i].name) == 0)
					c = rp_cnt_find_at(&now->port[j], (enum rp_cnt_scope)v->scope, v->prio, v->name,
							   (enum rp_cnt_class)v->cls);
			char at[24] = "";
			if (v->scope == RP_CNT_AT_QUEUE || v->scope == RP_CNT_AT_PG)
				snprintf(at, sizeof(at), " %s %d", v->scope == RP_CNT_AT_QUEUE ? "queue" : "pg", v->prio);
			else if (v->prio >= 0)
				snprintf(at, sizeof(at), " prio %d", v->prio);
			rp_cli_error("counters",
				     "%s: %s%s %s went backwards from %" PRIu64 " to %" PRIu64 "%s: the switch restarted "
				     "or its counters were cleared; no delta over it",
				     d->source, d->port[i].name, at, v->name, b ? b->value : 0, c ? c->value : 0,
				     v->bits == 32 ? " (a Counter32, and no wrap: that many at line rate would take longer)"
						   : "");
			return true;
		}
	return false;
}

static struct rp_cnt_source src[SOURCES_MAX];
static struct rp_exec_map map;

/* --map FILE for every exec: source (one line and -1 when one needs it and
 * it is missing or bad, or it is given for none). */
static int load_map(size_t n, const char *file)
{
	size_t nexec = 0;
	for (size_t i = 0; i < n; i++)
		nexec += src[i].kind == RP_CNT_EXEC;
	if (!nexec || !file) {
		if (nexec)
			rp_cli_error("counters", "exec: needs --map FILE (the ports, and a JSON path per counter)");
		else if (file)
			rp_cli_error("counters", "--map is for exec: sources, and none is given");
		return nexec || file ? -1 : 0;
	}
	char err[600];
	if (rp_exec_map_load(file, &map, err, sizeof(err))) {
		rp_cli_error("counters", "%s", err);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		src[i].map = &map;
	return 0;
}

/* --credentials FILE into every snmp: source (one line and -1 when a
 * source needs it and it is missing or bad; a warning line when others may
 * read it). */
static int load_credentials(size_t n, const char *file)
{
	size_t nsnmp = 0;
	for (size_t i = 0; i < n; i++)
		nsnmp += src[i].kind == RP_CNT_SNMP;
	if (!nsnmp) {
		if (file)
			rp_cli_error("counters", "--credentials is for snmp:// sources, and none is given");
		return file ? -1 : 0;
	}
	if (!file) {
		rp_cli_error("counters", "snmp:// needs --credentials FILE ('community NAME' or an SNMPv3 user; never on "
					 "the command line)");
		return -1;
	}
	struct rp_snmp_cred c;
	char warn[600], err[600];
	if (rp_snmp_cred_load(file, &c, warn, sizeof(warn), err, sizeof(err))) {
		rp_cli_error("counters", "%s", err);
		return -1;
	}
	if (warn[0])
		fprintf(stderr, "roceprobe counters: warning: %s\n", warn);
	for (size_t i = 0; i < n; i++)
		if (src[i].kind == RP_CNT_SNMP)
			src[i].cred = c;
	rp_snmp_cred_clear(&c);
	return 0;
}
static struct rp_cnt_snap prev[SOURCES_MAX], cur[SOURCES_MAX], delta;

int rp_cmd_counters(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"watch", required_argument, NULL, 'w'},
		{"port", required_argument, NULL, 'p'},
		{"credentials", required_argument, NULL, 'c'},
		{"map", required_argument, NULL, 'm'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	bool json = false;
	const char *cred_file = NULL, *map_file = NULL;
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
		case 'c':
			cred_file = optarg;
			break;
		case 'm':
			map_file = optarg;
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
		return rp_cli_error("counters", "no SOURCE: give ethtool:IFACE, sysfs:IFACE, rdma:DEV, ethtool-file:PATH, "
						"rdma-dir:PATH or sonic://HOST[:PORT] (roceprobe counters --help)");
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
	if (load_credentials(n, cred_file) || load_map(n, map_file))
		return RP_EXIT_USAGE;
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
			if (rp_cnt_source_is_switch(&src[i]) && backwards(&prev[i], &cur[i], &delta)) {
				rc = RP_EXIT_USAGE;
				goto out;
			}
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
		rp_snmp_cred_clear(&src[i].cred);
		rp_cnt_snap_free(&prev[i]);
		rp_cnt_snap_free(&cur[i]);
	}
	rp_cnt_snap_free(&delta);
	return rc;
}
