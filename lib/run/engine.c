/* This rank's engine (engine.h): the one place that knows which are built. */
#include "engine.h"
#ifdef RP_HAVE_VERBS
#include "verbs/engine.h"
#endif

int rp_run_engine_setup(struct rp_run *r)
{
#ifdef RP_HAVE_VERBS
	r->nrecs = rp_vengine_layout(&r->s.plan, NULL);
	r->verbs_here = r->s.verbs_hosts > 0;
	r->eng = r->verbs_here ? &rp_run_engine_verbs : &rp_run_engine_dpdk;
#else
	for (size_t i = 0; i < r->s.plan.nflows; i++)
		if (r->s.prof->hosts[r->s.plan.flows[i].src].engine.engine == RP_ENGINE_VERBS)
			return rp_run_fail(r, "%s: host '%s' has engine: verbs, but this roceprobe was built without "
					   "rdma-core (libibverbs-dev, librdmacm-dev)", r->s.profile_path,
					   r->s.prof->hosts[r->s.plan.flows[i].src].name);
	r->eng = &rp_run_engine_dpdk;
#endif
	return r->eng->setup ? r->eng->setup(r) : 0;
}

int rp_run_connect(struct rp_run *r)
{
#ifdef RP_HAVE_VERBS
	if (r->nrecs) /* every rank takes part, verbs hosts or not */
		return rp_run_exchange(r);
#else
	(void)r;
#endif
	return 0; /* no QP records: without rdma-core a plan has none (refused above) */
}
