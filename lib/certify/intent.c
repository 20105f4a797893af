/* What the fabric is meant to do: the `certify:` section, else derived from
 * the profile's RoCE traffic (its priorities are the lossless ones, its
 * DSCPs the ones the hosts send) and the lowest other priority as lossy. */
#include <string.h>

#include "cert_internal.h"

static void add_dscp(struct rp_cert_intent *w, uint8_t d)
{
	for (size_t i = 0; i < w->ndscps; i++)
		if (w->dscps[i] == d)
			return;
	w->dscps[w->ndscps++] = d;
}

void rp_cert_intent(const struct rp_profile *prof, const struct rp_cert_fabric *fab, struct rp_cert_intent *out)
{
	const struct rp_certify_cfg *cc = &prof->certify;
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < prof->ntraffic; i++) {
		const struct rp_traffic *t = &prof->traffic[i];
		if (t->kind != RP_TRAFFIC_RDMA)
			continue;
		out->lossless |= (uint8_t)(1u << rp_flow_params_prio(&t->p));
		add_dscp(out, t->p.dscp);
	}
	if (cc->lossless_mask)
		out->lossless = cc->lossless_mask;
	if (!out->lossless)
		out->lossless = fab->pfc_mask ? fab->pfc_mask : 1u << 3;
	if (cc->ndscps) {
		out->ndscps = 0;
		for (size_t i = 0; i < cc->ndscps; i++)
			add_dscp(out, cc->dscps[i]);
	}
	if (!out->ndscps)
		add_dscp(out, prof->defaults.dscp);
	out->lossy = 0;
	while (out->lossy < 7 && ((out->lossless >> out->lossy) & 1u))
		out->lossy++;
	if (cc->lossy_prio >= 0)
		out->lossy = (unsigned)cc->lossy_prio;
}

unsigned rp_cert_dscp_for(const struct rp_cert_ctx *c, unsigned prio)
{
	if (!c->fab.known || c->fab.dscp_to_prio[prio << 3] == prio)
		return prio << 3;
	for (unsigned d = 0; d < 64; d++)
		if (c->fab.dscp_to_prio[d] == prio)
			return d;
	return prio << 3;
}
