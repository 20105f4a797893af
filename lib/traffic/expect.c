/* The goodput each flow of a plan can reach (expect.h). */
#include "expect.h"

#include <stdlib.h>

static double over(double load_bps, uint64_t speed_bps)
{
	double r = speed_bps ? load_bps / (double)speed_bps : 1.0;
	return r > 1.0 ? r : 1.0;
}

static double expect_one(const struct rp_plan *p, const struct rp_flow *f)
{
	if (f->kind != RP_TRAFFIC_RDMA || f->tot.pkts < 2 || f->end_ns <= f->pace.start_ns)
		return 0;
	const struct rp_host *h = p->prof->hosts;
	double planned = (double)f->payload_bytes * 8.0 / (double)(f->end_ns - f->pace.start_ns);
	double r = over(p->load[f->src].tx_bps, h[f->src].speed_bps), rx = over(p->load[f->dst].rx_bps, h[f->dst].speed_bps);
	return planned / (rx > r ? rx : r);
}

double *rp_plan_expect_goodput(const struct rp_plan *p, const uint32_t *flow_of, size_t n)
{
	double *out = calloc(n ? n : 1, sizeof(*out));
	size_t k = 0;
	if (!out)
		return NULL;
	for (size_t i = 0; flow_of && i < n; i++)
		out[i] = flow_of[i] < p->nflows ? expect_one(p, &p->flows[flow_of[i]]) : 0;
	for (size_t i = 0; !flow_of && i < p->nflows && k < n; i++)
		if (p->flows[i].kind == RP_TRAFFIC_RDMA)
			out[k++] = expect_one(p, &p->flows[i]);
	return out;
}

uint8_t rp_plan_lossless(const struct rp_profile *prof)
{
	return prof->fabric.pfc_off ? 0 : prof->fabric.lossless_mask;
}
