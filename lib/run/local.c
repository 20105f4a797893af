/* A run in this process (local.h): the steps of `roceprobe run` without a
 * launcher (app/cmd_run.c), on a DPDK EAL kept across runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dp/dp.h"
#include "engine.h"
#include "local.h"
#include "report.h"
#include "report/outdir.h"
#include "run.h"

static bool eal_kept;

/* A step's error, said as the command says it. */
static int said(const struct rp_run *r, int rc)
{
	if (rc && r->s.err[0])
		fprintf(stderr, "roceprobe run: %s\n", r->s.err);
	return rc;
}

static int fail(const char *err)
{
	fprintf(stderr, "roceprobe run: %s\n", err);
	return RP_RUN_USAGE;
}

static void run_failed(const char *err)
{
	fprintf(stderr, "roceprobe run: %s (the run goes on to its result)\n", err);
}

/* From the session to the ready ports, accountants and sources (cmd_run.c's
 * set-up, one rank). *prepared: DIR made or cleared for this run. */
static int set_up(struct rp_run *r, const struct rp_run_local *o, char **text, bool *made, bool *prepared)
{
	char err[4600];
	struct rp_profile_opts po = {.sets = o->sets, .nsets = o->nsets, .allow_pause_storm = o->allow_pause_storm};
	int rc = said(r, rp_run_place(r, o->profile, &po, text));
	struct rp_session_opts so = {.sets = o->sets, .nsets = o->nsets, .allow_pause_storm = o->allow_pause_storm,
				     .receivers = true, .no_telemetry = o->no_telemetry, .lcores = 1,
				     .profile_text = *text, .defer_traffic = true, .nranks = (size_t)r->cl.size,
				     .ranks = r->launch, .no_preflight = o->no_preflight};
	/* The profile is checked before DIR is made: bad input leaves nothing behind. */
	if (rc == 0 && rp_outdir_check(o->out, o->force, err, sizeof(err)) != 0)
		rc = fail(err);
	if (rc == 0)
		rc = said(r, rp_session_open(&r->s, "run", o->profile, &so));
	if (rc == 0)
		rc = said(r, rp_session_addresses(&r->s));
	if (rc == 0)
		rc = said(r, rp_run_engine_setup(r));
	if (rc == 0 && rp_run_switches_check(&r->switches, r->s.prof, stderr, err, sizeof(err)) != 0)
		rc = fail(err);
	struct stat st;
	*made = stat(o->out, &st) != 0;
	if (rc == 0 && rp_outdir_prepare(o->out, o->force, err, sizeof(err)) != 0)
		rc = fail(err);
	*prepared = rc == 0;
	if (rc == 0) {
		rp_session_stage(&r->s, "accounting");
		rc = said(r, rp_run_accounting(r));
	}
	if (rc == 0 && r->eng->account)
		rc = said(r, r->eng->account(r));
	if (rc == 0 && r->eng->prepare)
		rc = said(r, r->eng->prepare(r));
	if (rc == 0 && r->nrecs) {
		rp_session_stage(&r->s, "QP connect");
		rc = said(r, rp_run_connect(r));
	}
	return rc;
}

/* result.json and summary.txt, the summary on stdout, as the command ends. */
static int finish(struct rp_run *r, const struct rp_run_local *o)
{
	char err[4200];
	if (rp_run_write_result(r, o->out, o->profile, o->version, rp_dp_version(), err, sizeof(err)))
		return fail(err);
	if (rp_run_write_summary(r, o->out, stdout, err, sizeof(err)) != 0)
		return fail(err);
	printf("\nresult: %s/result.json\nsummary: %s/summary.txt\n", o->out, o->out);
	fflush(stdout);
	if (!isatty(STDOUT_FILENO) || !isatty(STDERR_FILENO))
		rp_session_warn_rates(&r->s, stderr, NULL);
	return 0;
}

int rp_run_local(const struct rp_run_local *o)
{
	struct rp_run *r = calloc(1, sizeof(*r));
	char err[RP_CLUSTER_ERR_LEN], *text = NULL, *argv0 = "roceprobe", **argv = &argv0;
	int argc = 1, rc, vrc = 0;
	bool made = false, prepared = false;
	if (!r)
		return fail("out of memory");
	r->cfg = (struct rp_run_cfg){.out = o->out, .snaplen = RP_CAPTURE_SNAPLEN_DEFAULT, .sample = 1,
				     .counter_interval_ns = 100000000, .stop = o->stop, .run_failed = run_failed};
	rp_dp_eal_keep(true);
	eal_kept = true;
	if (rp_cluster_init(&r->cl, NULL, &argc, &argv, err, sizeof(err)) != 0) {
		free(r);
		return fail(err);
	}
	rc = set_up(r, o, &text, &made, &prepared);
	if (rc == 0) {
		rc = said(r, rp_run_go(r, &vrc));
		if (rc == 0)
			rc = finish(r, o);
	} else if (prepared) { /* no empty DIR, no header-only captures */
		rp_run_close(r);
		rp_outdir_abandon(o->out, made);
		free(text);
		free(r);
		return rc;
	}
	rp_run_close(r);
	free(text);
	free(r);
	return rc ? rc : vrc;
}

void rp_run_local_end(void)
{
	if (eal_kept)
		rp_dp_eal_keep(false);
	eal_kept = false;
}
