/* A run in this process (local.h): the steps of `roceprobe run` without a
 * launcher (steps.h), on a DPDK EAL kept across runs. */
#include <stdio.h>
#include <stdlib.h>

#include "dp/dp.h"
#include "local.h"
#include "steps.h"

static bool eal_kept;

static void run_failed(const char *err)
{
	fprintf(stderr, "roceprobe run: %s (the run goes on to its result)\n", err);
}

int rp_run_local(const struct rp_run_local *o)
{
	struct rp_run *r = calloc(1, sizeof(*r));
	char err[RP_CLUSTER_ERR_LEN], *argv0 = "roceprobe", **argv = &argv0;
	int argc = 1;
	if (!r) {
		fprintf(stderr, "roceprobe run: out of memory\n");
		return RP_RUN_USAGE;
	}
	/* As the command's defaults (app/cmd_run.c parse_args). */
	r->cfg = (struct rp_run_cfg){.out = o->out, .capture = o->capture,
				     .snaplen = o->snaplen ? o->snaplen : RP_CAPTURE_SNAPLEN_DEFAULT, .sample = 1,
				     .counter_interval_ns = 100000000, .stop = o->stop, .run_failed = run_failed};
	rp_dp_eal_keep(true);
	eal_kept = true;
	if (rp_cluster_init(&r->cl, NULL, &argc, &argv, err, sizeof(err)) != 0) {
		fprintf(stderr, "roceprobe run: %s\n", err);
		free(r);
		return RP_RUN_USAGE;
	}
	struct rp_run_steps st = {
		.profile = o->profile, .out = o->out, .force = o->force, .version = o->version,
		.po = {.sets = o->sets, .nsets = o->nsets, .allow_pause_storm = o->allow_pause_storm},
		.so = {.sets = o->sets, .nsets = o->nsets, .allow_pause_storm = o->allow_pause_storm, .receivers = true,
		       .no_telemetry = o->no_telemetry, .lcores = 1, .defer_traffic = true,
		       .no_preflight = o->no_preflight}};
	int rc = rp_run_steps(r, &st, 0, NULL);
	free(r);
	return rc;
}

void rp_run_local_end(void)
{
	if (eal_kept)
		rp_dp_eal_keep(false);
	eal_kept = false;
}
