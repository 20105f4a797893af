/* summary.txt's hosts of several NICs (lab): each host's sum, then its NICs
 * and where they plug in, from result.json's hosts. */
#include <inttypes.h>
#include <string.h>

#include "report/summary.h"

#define SUMMARY_HOSTS 8

static void row(FILE *f, const char *name, const char *nic, const char *sw, const json_t *x)
{
	fprintf(f, "%-12s %-10s %-6s %12" PRId64 " %14" PRId64 " %12" PRId64 " %14" PRId64 "\n", name, nic, sw,
		(int64_t)json_integer_value(json_object_get(x, "tx_frames")),
		(int64_t)json_integer_value(json_object_get(x, "tx_bytes")),
		(int64_t)json_integer_value(json_object_get(x, "rx_frames")),
		(int64_t)json_integer_value(json_object_get(x, "rx_bytes")));
}

void rp_summary_hosts(FILE *f, const struct rp_summary_lab *l)
{
	const json_t *hosts = l->hosts, *h, *n;
	size_t i, k, shown = 0;
	if (!hosts)
		return;
	fprintf(f, "\n%-12s %-10s %-6s %12s %14s %12s %14s\n", "host", "nic", "switch", "tx frames", "tx bytes",
		"rx frames", "rx bytes");
	json_array_foreach(hosts, i, h) {
		if (shown++ == SUMMARY_HOSTS) {
			fprintf(f, "... %zu more hosts in result.json\n", json_array_size(hosts) - SUMMARY_HOSTS);
			break;
		}
		row(f, json_string_value(json_object_get(h, "name")), "(all)", "", h);
		json_array_foreach(json_object_get(h, "nics"), k, n) {
			const char *nm = json_string_value(json_object_get(n, "name")), *dot = strchr(nm, '.');
			char sw[32];
			snprintf(sw, sizeof(sw), "%s:%d", json_string_value(json_object_get(n, "switch")),
				 (int)json_integer_value(json_object_get(n, "port")));
			row(f, "", dot ? dot + 1 : nm, sw, n);
		}
	}
}
