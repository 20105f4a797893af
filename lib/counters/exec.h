/* A switch's counters from any command that prints JSON (Arista `show ...
 * | json`, NVIDIA NVUE `nv show ... -o json`, `ip -j -s link`), through a
 * mapping: for each counter a JSON path with {port} and {prio} in it.
 *
 * The mapping file (JSON):
 *   {"ports": ["Ethernet1", "Ethernet2"],
 *    "counters": {"pfc_rx": "interfaces.{port}.pfc.rx[{prio}]",
 *                 "rx_bytes": "[ifname={port}].stats64.rx.bytes"}}
 * A path is segments joined by '.': a member name, [N] an array element,
 * [FIELD=VALUE] the array element whose member FIELD is VALUE (a string, or
 * a number written as one); a member name may carry [..] after it
 * (prio[3]). {port} is the port's name, {prio} 0..7: a path holding {prio}
 * gives the counter per priority. Counter names are the vocabulary's
 * (pfc_rx, pfc_tx, pause_us_rx, pause_us_tx per priority; rx_bytes,
 * tx_bytes, rx_packets, tx_packets, rx_discards, tx_discards, ... per port);
 * other names are kept raw. A path that finds nothing leaves the counter
 * out (a source offers what it has); a port for which no path finds
 * anything is an error. */
#ifndef RP_COUNTERS_EXEC_H
#define RP_COUNTERS_EXEC_H

#include <stddef.h>

#include "counters/snap.h"

struct rp_exec_map {
	size_t nports, ncounters;
	char (*port)[96];
	struct rp_exec_counter {
		char name[48];
		char path[256];
	} *counter;
};

/* 0, or -1 with err naming what is wrong in the file. */
int rp_exec_map_load(const char *path, struct rp_exec_map *m, char *err, size_t errlen);
void rp_exec_map_free(struct rp_exec_map *m);

/* Runs cmd (/bin/sh -c, stdin /dev/null, at most 10 s), parses what it
 * printed as JSON and fills out through the map. 0, or -1 with err: the
 * command failed (its exit status and the first line it wrote to stderr),
 * printed no JSON, a value that is not a count, a port nothing matched. */
int rp_exec_read(const char *cmd, const struct rp_exec_map *m, struct rp_cnt_snap *out, char *err, size_t errlen);

/* The value at path in root ({port}, {prio} already replaced); NULL when
 * the path finds nothing. Exposed for the unit tests. */
#include <jansson.h>
json_t *rp_exec_path(json_t *root, const char *path);

#endif
