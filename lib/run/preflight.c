/* A session's preflight: which hosts take part here, then lib/doctor's
 * rp_doctor_preflight over them. */
#include "preflight.h"

#include <stdio.h>
#include <stdlib.h>

#include "doctor/doctor.h"
#include "session.h"

/* A verbs host of this process that sends or receives (pick_ports counts
 * them; they have no DPDK port). */
static bool verbs_here(const struct rp_session *s, const struct rp_session_opts *o, unsigned h)
{
	if (s->prof->hosts[h].engine.engine != RP_ENGINE_VERBS || (o->hosts && !o->hosts[h]))
		return false;
	for (size_t i = 0; i < s->plan.nflows; i++)
		if (s->plan.flows[i].src == h || s->plan.flows[i].dst == h)
			return true;
	return false;
}

int rp_session_preflight(struct rp_session *s, const struct rp_session_opts *o, bool *huge_warned)
{
	*huge_warned = false;
	if (o->no_preflight)
		return 0;
	bool *want = calloc(s->prof->nhosts ? s->prof->nhosts : 1, sizeof(*want));
	if (!want) {
		snprintf(s->err, sizeof(s->err), "out of memory");
		return RP_SESSION_USAGE;
	}
	for (unsigned i = 0; i < s->nports; i++)
		want[s->tx[i].index] = true;
	for (unsigned h = 0; s->verbs_hosts && h < s->prof->nhosts; h++)
		want[h] |= verbs_here(s, o, h);
	struct rp_doctor_sys sys;
	struct rp_preflight pf;
	rp_doctor_sys_real(&sys);
	int rc = rp_doctor_preflight(&sys, s->prof, &s->plan, want, s->cmd, stderr, !o->node_shared, &pf, s->err,
				     sizeof(s->err));
	free(want);
	*huge_warned = pf.huge_warned;
	return rc == 0 ? 0 : RP_SESSION_USAGE;
}
