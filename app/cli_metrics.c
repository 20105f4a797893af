/* --metrics and --metrics-linger, one implementation for every command
 * (cli.h; the server is lib/metrics). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "metrics/metrics.h"
#ifdef RP_HAVE_DPDK
#include "dp/dp.h"
#endif

int rp_cli_metrics_opt(const char *cmd, int c, const char *arg, struct rp_cli_metrics *m)
{
	if (c == RP_CLI_OPT_METRICS) {
		char addr[64], err[300];
		uint16_t port;
		if (rp_metrics_parse(arg, addr, sizeof(addr), &port, err, sizeof(err)))
			return rp_cli_error(cmd, "%s", err);
		m->spec = arg;
		return 0;
	}
	if (c == RP_CLI_OPT_METRICS_KEY) {
		m->key_file = arg;
		return 0;
	}
	return rp_cli_duration(cmd, "--metrics-linger", arg, 86400, &m->linger_s);
}

int rp_cli_metrics_start(const char *cmd, const struct rp_cli_metrics *m, unsigned port_add, struct rp_metrics **out)
{
	*out = NULL;
	if (!m->spec)
		return 0;
	char spec[128], addr[64], err[400];
	uint16_t port;
	if (rp_metrics_parse(m->spec, addr, sizeof(addr), &port, err, sizeof(err)))
		return rp_cli_error(cmd, "%s", err);
	if (port + port_add > 65535)
		return rp_cli_error(cmd, "--metrics: port %u + this rank's local index %u is beyond 65535", port, port_add);
	snprintf(spec, sizeof(spec), strchr(addr, ':') ? "[%s]:%u" : "%s:%u", addr, port + port_add);
	const struct rp_auth_key *key;
	int rc = rp_cli_key(cmd, "--metrics-key-file", m->key_file, &key);
	if (rc)
		return rc;
	*out = rp_metrics_start(spec, cmd, RP_VERSION, key, err, sizeof(err));
	if (!*out)
		return rp_cli_error(cmd, "%s", err);
	fprintf(stderr, "%s: metrics at http://%s/metrics%s\n", cmd, rp_metrics_where(*out),
		key ? " (scrapes prove the key)" : "");
	return 0;
}

void rp_cli_metrics_end(const char *cmd, const struct rp_cli_metrics *m, struct rp_metrics *mx, bool results)
{
	if (!mx)
		return;
	rp_metrics_final(mx);
	if (results && m->linger_s > 0) {
		/* A run a signal stopped lingers too (its final values are what a
		 * burn-in's dashboard wants most); a signal then ends the process
		 * (the second one: cli.c), its files all written. */
		bool stopped = rp_cli_stop != 0;
		fprintf(stderr, "%s: serving the final metrics at http://%s/metrics for %g s (Ctrl-C ends it)\n", cmd,
			rp_metrics_where(mx), m->linger_s);
		rp_metrics_linger(mx, (uint64_t)(m->linger_s * 1e9), stopped ? NULL : &rp_cli_stop);
	}
	rp_metrics_stop(mx);
}

void rp_cli_metrics_off_lcores(struct rp_metrics *mx)
{
#ifdef RP_HAVE_DPDK
	cpu_set_t busy;
	if (!mx)
		return;
	rp_dp_lcore_cpus(&busy);
	rp_metrics_avoid_cpus(mx, &busy);
#else
	(void)mx;
#endif
}
