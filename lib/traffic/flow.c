/* One flow: its frame sizes, its pacing and what it will send in total. */
#include <string.h>

#include "flow_internal.h"
#include "wire/pfc.h"

void rp_flow_when_default(const struct rp_traffic *t, struct rp_flow_when *w)
{
	*w = (struct rp_flow_when){
		.start_ns = t->p.start_ns,
		.end_ns = t->p.stop == RP_STOP_DURATION ? t->p.start_ns + t->p.stop_value : UINT64_MAX,
	};
	if (t->p.burst_on_ns) {
		w->period_ns = t->p.burst_on_ns + t->p.burst_off_ns;
		w->on_ns = t->p.burst_on_ns;
	}
}

static void frame_lens(struct rp_flow *f, uint64_t l1[RP_PKT_KINDS])
{
	uint32_t n = rp_seg_count(f->p.msg_size, f->p.mtu);
	memset(l1, 0, sizeof(uint64_t) * RP_PKT_KINDS);
	for (uint32_t idx = 0; idx < n && idx < 2; idx++) {
		struct rp_seg s;
		rp_segment(f->p.verb, f->p.msg_size, f->p.mtu, idx, &s);
		f->frame_len[s.kind] = rp_seg_frame_len(&f->shape, &s);
	}
	if (n > 1) {
		struct rp_seg s;
		rp_segment(f->p.verb, f->p.msg_size, f->p.mtu, n - 1, &s);
		f->frame_len[s.kind] = rp_seg_frame_len(&f->shape, &s);
	}
	for (int k = 0; k < RP_PKT_KINDS; k++)
		l1[k] = f->frame_len[k] ? rp_l1_bits(f->frame_len[k]) : 0;
}

static void pace_times(struct rp_flow *f, const struct rp_flow_when *w)
{
	f->pace.start_ns = w->start_ns;
	f->pace.end_ns = w->end_ns;
	f->pace.period_ns = w->period_ns;
	f->pace.on_ns = w->on_ns;
	f->pace.burst_msgs = w->burst_msgs;
	f->pace.stop = f->p.stop;
	f->pace.stop_count = f->p.stop == RP_STOP_DURATION ? 0 : f->p.stop_value;
}

int rp_flow_setup_rdma(struct rp_flow *f, const struct rp_profile *prof, uint16_t t, uint16_t src, uint16_t dst,
		       const struct rp_flow_when *w)
{
	const struct rp_traffic *tr = &prof->traffic[t];
	memset(f, 0, sizeof(*f));
	f->traffic = t;
	f->kind = RP_TRAFFIC_RDMA;
	f->src = src;
	f->dst = dst;
	f->phase = w->phase;
	f->p = tr->p;
	f->rate_bps = rp_rate_bps(&f->p.rate, prof->hosts[src].speed_bps);
	if (f->rate_bps == 0)
		return -1;
	f->prio = rp_flow_params_prio(&f->p);
	f->shape = (struct rp_frame_shape){.l3 = f->p.ip, .vlan = f->p.has_vlan};
	uint64_t l1[RP_PKT_KINDS];
	frame_lens(f, l1);
	pace_times(f, w);
	f->pace.div = f->rate_bps;
	f->pace.npkts = rp_seg_count(f->p.msg_size, f->p.mtu);
	rp_pace_cfg_gaps(&f->pace, l1);
	if (tr->nphases) { /* a duration stop, no bursts (lib/profile refuses the rest) */
		f->pace.phases = tr->phases;
		f->pace.nphases = tr->nphases;
		f->pace.link_bps = prof->hosts[src].speed_bps;
		f->pace.stop_ns = f->pace.end_ns;
		rp_pace_phase_set(&f->pace, 0);
	}
	return 0;
}

void rp_flow_setup_pfc(struct rp_flow *f, const struct rp_profile *prof, uint16_t t)
{
	const struct rp_traffic *tr = &prof->traffic[t];
	struct rp_flow_when w;
	memset(f, 0, sizeof(*f));
	f->traffic = t;
	f->kind = RP_TRAFFIC_PFC;
	f->src = f->dst = tr->hosts[0];
	f->p = tr->p;
	f->pfc = tr->pfc;
	f->frame_len[RP_PKT_ONLY] = RP_MACCTL_FRAME_LEN;
	rp_flow_when_default(tr, &w);
	w.period_ns = w.on_ns = 0;
	pace_times(f, &w);
	rp_pace_cfg_fps(&f->pace, f->pfc.fps);
}

__extension__ typedef unsigned __int128 rp_u128;

/* How long the flow is busy from its start: its packets' wire time laid out
 * in its bursts or phases. */
static uint64_t busy_ns(const struct rp_flow *f)
{
	const struct rp_pace_cfg *c = &f->pace;
	rp_u128 num = 0;
	for (int k = 0; k < RP_PKT_KINDS; k++)
		num += (rp_u128)f->tot.kind[k] * ((rp_u128)c->gap_ns[k] * c->div + c->gap_rem[k]);
	if (c->nphases)
		return f->tot.msgs ? rp_pace_phases_end(c) - c->start_ns : 0;
	uint64_t active = (uint64_t)((num + c->div - 1) / c->div);
	if (!c->period_ns || active == 0)
		return active;
	if (c->on_ns) {
		uint64_t full = (active - 1) / c->on_ns;
		return full * c->period_ns + (active - full * c->on_ns);
	}
	uint64_t m = f->tot.msgs ? f->tot.msgs : 1;
	uint64_t msg = c->msg_ns + (c->msg_rem > 0);
	return (m - 1) / c->burst_msgs * c->period_ns + ((m - 1) % c->burst_msgs + 1) * msg;
}

/* Totals and loads from the pacing. */
void rp_flow_count(struct rp_flow *f)
{
	rp_pace_totals(&f->pace, &f->tot);
	f->payload_bytes = 0;
	f->frame_bytes = 0;
	for (int k = 0; k < RP_PKT_KINDS; k++) {
		f->frame_bytes += f->tot.kind[k] * f->frame_len[k];
		if (f->kind == RP_TRAFFIC_RDMA)
			f->payload_bytes += f->tot.kind[k] * rp_seg_payload(f->p.msg_size, f->p.mtu, (enum rp_pkt_kind)k);
	}
	f->end_ns = f->pace.start_ns + busy_ns(f);
	if (f->kind == RP_TRAFFIC_PFC) {
		f->peak_bps = f->avg_bps = (double)rp_l1_bits(RP_MACCTL_FRAME_LEN) * (double)f->pfc.fps;
		return;
	}
	f->peak_bps = (double)f->rate_bps;
	if (f->pace.nphases) {
		/* The phases' rates weighed by their times in the duration. */
		const struct rp_pace_cfg *c = &f->pace;
		double sum = 0;
		for (uint16_t i = 0; i < c->nphases; i++) {
			double r = (double)rp_rate_bps(&c->phases[i].rate, c->link_bps);
			uint64_t to = i + 1 < c->nphases ? c->phases[i + 1].at_ns : c->stop_ns - c->start_ns;
			sum += r * (double)(to - c->phases[i].at_ns);
			f->peak_bps = r > f->peak_bps ? r : f->peak_bps;
		}
		f->avg_bps = sum / (double)(c->stop_ns - c->start_ns);
		return;
	}
	double msg_ns = (double)f->pace.msg_ns + (double)f->pace.msg_rem / (double)f->pace.div;
	if (!f->pace.period_ns)
		f->avg_bps = f->peak_bps;
	else if (f->pace.on_ns)
		f->avg_bps = f->peak_bps * (double)f->pace.on_ns / (double)f->pace.period_ns;
	else
		f->avg_bps = f->peak_bps * msg_ns * f->pace.burst_msgs / (double)f->pace.period_ns;
}
