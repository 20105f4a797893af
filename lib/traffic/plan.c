/* rp_plan_build: every entry expanded, counted, and summed per pair and port. */
#include "plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flow_internal.h"

int rp_plan_add_flow(struct rp_plan_builder *b, const struct rp_flow *f)
{
	struct rp_plan *p = b->plan;
	if (p->nflows == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 16;
		struct rp_flow *nf = realloc(p->flows, cap * sizeof(*nf));
		if (!nf) {
			snprintf(b->err, b->errlen, "out of memory");
			return -1;
		}
		p->flows = nf;
		b->cap = cap;
	}
	struct rp_flow *out = &p->flows[p->nflows];
	*out = *f;
	out->id = (uint32_t)p->nflows++;
	if (out->kind == RP_TRAFFIC_RDMA) {
		if (rp_flow_next_hop(b, out) != 0)
			return -1;
		out->lqpn = b->next_qpn[out->src];
		b->next_qpn[out->src] += out->p.qps;
		out->rqpn = b->next_qpn[out->dst];
		b->next_qpn[out->dst] += out->p.qps;
		if (out->rqpn + out->p.qps > 0xFFFFFFu || out->lqpn + out->p.qps > 0xFFFFFFu) {
			snprintf(b->err, b->errlen, "more QPs than 24-bit QP numbers allow");
			return -1;
		}
	}
	return 0;
}

int rp_plan_add_phase(struct rp_plan_builder *b, const struct rp_phase *ph)
{
	struct rp_plan *p = b->plan;
	if (p->nphases == b->phase_cap) {
		size_t cap = b->phase_cap ? b->phase_cap * 2 : 16;
		struct rp_phase *np = realloc(p->phases, cap * sizeof(*np));
		if (!np) {
			snprintf(b->err, b->errlen, "out of memory");
			return -1;
		}
		p->phases = np;
		b->phase_cap = cap;
	}
	p->phases[p->nphases++] = *ph;
	return 0;
}

uint32_t rp_plan_first_qpn(const struct rp_profile *prof, size_t h)
{
	if (!prof->qpn_seed)
		return RP_QPN_BASE;
	uint64_t z = 0xCBF29CE484222325ull; /* FNV-1a of the name, then splitmix64's finaliser with the seed */
	for (const char *c = prof->hosts[h].name; *c; c++)
		z = (z ^ (uint8_t)*c) * 0x100000001B3ull;
	z ^= prof->qpn_seed * 0x9E3779B97F4A7C15ull;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	z ^= z >> 31;
	return RP_QPN_BASE + (uint32_t)(z % RP_QPN_SPREAD);
}

static void sum_up(struct rp_plan *p)
{
	size_t nh = p->prof->nhosts;
	for (size_t i = 0; i < p->nflows; i++) {
		struct rp_flow *f = &p->flows[i];
		rp_flow_count(f);
		p->load[f->src].tx_bps += f->avg_bps;
		p->load[f->src].tx_frames += f->tot.pkts;
		if (f->kind != RP_TRAFFIC_RDMA)
			continue;
		p->load[f->dst].rx_bps += f->avg_bps;
		p->load[f->dst].rx_frames += f->tot.pkts;
		p->pair_bytes[f->src * nh + f->dst] += f->payload_bytes;
		p->pair_packets[f->src * nh + f->dst] += f->tot.pkts;
	}
}

int rp_plan_build(const struct rp_profile *prof, struct rp_plan *plan, char *err, size_t errlen)
{
	memset(plan, 0, sizeof(*plan));
	plan->prof = prof;
	size_t nh = prof->nhosts;
	struct rp_plan_builder b = {.plan = plan, .err = err, .errlen = errlen};
	b.next_qpn = calloc(nh ? nh : 1, sizeof(*b.next_qpn));
	b.nic_rr = calloc(prof->nservers ? prof->nservers : 1, sizeof(*b.nic_rr));
	plan->load = calloc(nh ? nh : 1, sizeof(*plan->load));
	plan->pair_bytes = calloc(nh * nh + 1, sizeof(*plan->pair_bytes));
	plan->pair_packets = calloc(nh * nh + 1, sizeof(*plan->pair_packets));
	int rc = -1;
	if (!b.next_qpn || !b.nic_rr || !plan->load || !plan->pair_bytes || !plan->pair_packets) {
		snprintf(err, errlen, "out of memory");
	} else {
		for (size_t h = 0; h < nh; h++)
			b.next_qpn[h] = rp_plan_first_qpn(prof, h);
		rc = 0;
		for (size_t t = 0; t < prof->ntraffic && rc == 0; t++)
			rc = rp_plan_expand(&b, (uint16_t)t);
	}
	free(b.next_qpn);
	free(b.nic_rr);
	if (rc) {
		rp_plan_free(plan);
		return -1;
	}
	sum_up(plan);
	return 0;
}

void rp_plan_free(struct rp_plan *plan)
{
	free(plan->flows);
	free(plan->phases);
	free(plan->load);
	free(plan->pair_bytes);
	free(plan->pair_packets);
	memset(plan, 0, sizeof(*plan));
}

uint64_t rp_plan_phase_ns(const struct rp_plan *p, uint16_t traffic)
{
	for (size_t i = 0; i < p->nphases; i++)
		if (p->phases[i].traffic == traffic)
			return p->phases[i].len_ns;
	return 0;
}
