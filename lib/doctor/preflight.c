/* Preflight: doctor's checks at the start of run, gen and certify, for the
 * hosts this process (rank) runs, before any port opens. A FAIL ends the
 * command (one line, exit 2), a WARN is a line and the command goes on.
 * The checks are rp_doctor_run's; only what is said differs. */
#include <stdio.h>
#include <string.h>

#include "doctor.h"
#include "traffic/plan.h"

/* The port's existence and a verbs host's RDMA device are the run's own to
 * refuse: its line names the NIC, the rank and its node, and what the
 * machine has (docs/doctor.md "Preflight"). */
static bool left_to_run(const struct rp_doctor_finding *f)
{
	return f->status == RP_DOCTOR_FAIL && (!strcmp(f->check, "port") || !strcmp(f->check, "rdma"));
}

/* "host 'h1': mtu: what; fix: fix" ("hugepages: ..." for the machine). */
static void line(const struct rp_doctor_finding *f, char *out, size_t len)
{
	char host[RP_NAME_MAX + 16] = "";
	if (f->host[0])
		snprintf(host, sizeof(host), "host '%s': ", f->host);
	snprintf(out, len, "preflight %s: %s%s: %s%s%s", rp_doctor_status_name(f->status), host, f->check, f->what, f->fix[0] ? "; fix: " : "", f->fix);
}

int rp_doctor_preflight(const struct rp_doctor_sys *sys, const struct rp_profile *prof, const struct rp_plan *plan,
			const bool *want, const char *who, void *warn, bool machine_warns, struct rp_preflight *out, char *err,
			size_t errlen)
{
	struct rp_doctor d;
	char text[2 * RP_DOCTOR_TEXT + RP_NAME_MAX + 64];
	memset(out, 0, sizeof(*out));
	if (rp_doctor_run(sys, prof, plan, want, &d, err, errlen) != 0) {
		rp_doctor_free(&d);
		return -1;
	}
	const struct rp_doctor_finding *fail = NULL;
	for (size_t i = 0; i < d.n && !fail; i++)
		if (d.f[i].status == RP_DOCTOR_FAIL && !left_to_run(&d.f[i]))
			fail = &d.f[i];
	if (fail) { /* one line: the first FAIL (the others after it is fixed) */
		line(fail, text, sizeof(text));
		snprintf(err, errlen, "%s (or --no-preflight)", text);
		out->fails = 1;
		rp_doctor_free(&d);
		return 1;
	}
	for (size_t i = 0; i < d.n; i++) {
		if (d.f[i].status != RP_DOCTOR_WARN)
			continue;
		out->warns++;
		out->huge_warned |= !strcmp(d.f[i].check, "hugepages");
		if (warn && (machine_warns || d.f[i].host[0])) {
			line(&d.f[i], text, sizeof(text));
			fprintf(warn, "roceprobe %s: %s\n", who, text);
		}
	}
	rp_doctor_free(&d);
	return 0;
}

int rp_doctor_preflight_profile(const struct rp_profile *prof, const char *who, void *warn, char *err, size_t errlen)
{
	struct rp_plan plan;
	struct rp_doctor_sys sys;
	struct rp_preflight pf;
	memset(&plan, 0, sizeof(plan));
	if (rp_plan_build(prof, &plan, err, errlen) != 0)
		return -1;
	rp_doctor_sys_real(&sys);
	int rc = rp_doctor_preflight(&sys, prof, &plan, NULL, who, warn, true, &pf, err, errlen);
	rp_plan_free(&plan);
	return rc;
}
