/* Where certify's workloads run (engine_pick.h). */
#include "engine_pick.h"

#include <stdio.h>
#include <string.h>

#include "engine_run.h"
#include "lab/lab.h"

int rp_cert_pick_engine(const char *asked, bool launcher, bool suggest, const struct rp_profile *prof,
			const char *path, const char **engine, char *err, size_t errlen)
{
	bool ports = rp_cert_profile_has_ports(prof);
	*engine = asked ? asked : ports ? "run" : "lab";
	bool run = strcmp(*engine, "run") == 0;
	if (!run && launcher) {
		snprintf(err, errlen, "--launcher runs `roceprobe run` children: it needs --engine run (the lab is one "
				      "process)");
		return -1;
	}
	if (run && suggest) {
		snprintf(err, errlen, "--suggest sweeps the lab's switch settings (fabric.*): it needs --engine lab; a "
				      "real fabric's switches are not set by roceprobe");
		return -1;
	}
	if (run && !ports) {
		snprintf(err, errlen, "--engine run: no host in %s has a `port:` (the lab needs none: --engine lab)", path);
		return -1;
	}
	return !run && rp_lab_check_fit(prof, err, errlen) ? -1 : 0;
}
