/* The event loop: pop the earliest (time, seq), hand it to its node. */
#include <stdio.h>
#include <stdlib.h>

#include "lab_internal.h"
#include "wire/frame.h"

void rp_lab_push(struct rp_lab *lab, uint64_t t, enum rp_lab_ev kind, uint32_t node, uint16_t port, uint32_t slot)
{
	if (rp_evq_push(&lab->q, t, (uint16_t)kind, node, port, slot))
		lab->failed = true;
}

/* splitmix64: a tie value per frame, from the profile's seed. */
static uint32_t next_tie(struct rp_lab *lab)
{
	uint64_t z = (lab->tie_rng += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return (uint32_t)((z ^ (z >> 31)) >> 33) + 1; /* 1 .. 2^31: after the same nanosecond's other events */
}

/* Frames that reach a switch at the same nanosecond (senders started in
 * step) are taken in a seeded random order, as a real switch's arbiter does
 * not always favour the same port: without it the same sender always won
 * the one free slot of a full lossy queue and the others lost everything. */
void rp_lab_deliver(struct rp_lab *lab, const struct rp_lab_port *to, uint32_t slot, uint64_t t)
{
	lab->tot.hops++;
	uint32_t node = to->kind == RP_PEER_HOST ? to->peer : (uint32_t)lab->nhosts + to->peer;
	uint32_t tie = to->kind == RP_PEER_SWITCH ? next_tie(lab) : 0;
	if (rp_evq_push_tie(&lab->q, t, tie, RP_EV_ARRIVE, node, to->peer_port, slot))
		lab->failed = true;
}

/* A transmitter wake that a nearer one replaced: nothing happens at its time. */
static bool stale(const struct rp_lab *lab, const struct rp_event *e)
{
	if (e->kind == RP_EV_HOST_TX)
		return lab->hosts[e->node].wake_at != e->t;
	if (e->kind == RP_EV_SW_TX)
		return lab->sw[e->node - lab->nhosts].wake_at[e->port] != e->t;
	return false;
}

static void dispatch(struct rp_lab *lab, const struct rp_event *e)
{
	bool host = e->node < lab->nhosts;
	unsigned s = host ? 0 : (unsigned)(e->node - lab->nhosts);
	switch (e->kind) {
	case RP_EV_ARRIVE:
		if (host)
			rp_lab_host_arrive(lab, e->node, e->slot);
		else
			rp_lab_sw_arrive(lab, s, e->port, e->slot);
		break;
	case RP_EV_HOST_TX:
		if (lab->hosts[e->node].wake_at == e->t) {
			lab->hosts[e->node].wake_at = RP_LAB_NEVER;
			rp_lab_host_tx(lab, e->node);
		}
		break;
	case RP_EV_SW_TX:
		if (lab->sw[s].wake_at[e->port] == e->t) {
			lab->sw[s].wake_at[e->port] = RP_LAB_NEVER;
			rp_lab_sw_tx(lab, s, e->port);
		}
		break;
	case RP_EV_PFC_APPLY:
		rp_lab_host_pfc_apply(lab, e->node, e->slot);
		break;
	case RP_EV_HOST_RX:
		rp_lab_host_rx(lab, e->node, e->slot);
		break;
	case RP_EV_HOST_REPLY:
		rp_lab_host_reply_due(lab, e->node, e->slot);
		break;
	}
}

/* A frame on a wire: an arrival still to come, or a receiver's delay line. */
static bool on_link(const struct rp_lab *lab, uint16_t kind, uint32_t slot)
{
	return (kind == RP_EV_ARRIVE || kind == RP_EV_HOST_RX) && lab->pool.flow[slot] != RP_POOL_NONE;
}

static void count_on_link(const struct rp_evq_node *n, void *arg)
{
	struct rp_lab *lab = arg;
	lab->tot.in_flight_on_links += on_link(lab, n->kind, n->slot);
}

/* Every data frame the pool still holds when the run stops is in flight
 * (a switch buffer holds it, or a wire): frames[f] of flow f, and probes[f]
 * of those that carry a probe (the unit its sent count is in when it has
 * probes). The events still queued say which are on wires. */
static int count_in_flight(struct rp_lab *lab, uint64_t *frames, uint64_t *probes)
{
	struct rp_pool *p = &lab->pool;
	size_t slots = p->nchunks * RP_POOL_CHUNK;
	uint8_t *is_free = calloc(slots ? slots : 1, 1);
	if (!is_free)
		return -1;
	for (size_t i = 0; i < p->nfree; i++)
		is_free[p->free[i]] = 1;
	for (size_t s = 0; s < slots; s++) {
		uint32_t f = p->flow[s];
		if (is_free[s] || f == RP_POOL_NONE)
			continue;
		struct rp_frame fr;
		const uint8_t *b = rp_pool_buf(p, (uint32_t)s);
		frames[f]++;
		lab->tot.in_flight++;
		if (rp_frame_parse(b, p->len[s], p->len[s], &fr) == RP_KIND_ROCE && fr.has_probe)
			probes[f]++;
	}
	free(is_free);
	rp_evq_each(&lab->q, count_on_link, lab);
	if (lab->has_pending)
		lab->tot.in_flight_on_links += on_link(lab, lab->pending.kind, lab->pending.slot);
	return 0;
}

/* The run is over and its accountant finished: what only sending needed
 * goes before the results are written, the run's peak (issue 29): the
 * packet sources (headers, templates, pacing: about 1 KB a flow), the
 * hosts' flow heaps and, when no frame is left in it, the frame pool (its
 * peak is in the totals already). */
static void release_run_state(struct rp_lab *lab)
{
	for (size_t h = 0; h < lab->nhosts; h++) {
		struct rp_lab_host *ho = &lab->hosts[h];
		rp_source_destroy(ho->src);
		ho->src = NULL;
		for (unsigned g = 0; g < RP_LAB_FGROUPS; g++) {
			free(ho->grp[g].v);
			ho->grp[g] = (struct rp_lab_fheap){0};
		}
	}
	if (!lab->pool.in_use) {
		size_t peak = lab->pool.peak, slot_size = lab->pool.slot_size;
		rp_pool_free(&lab->pool);
		lab->pool.peak = peak;
		lab->pool.slot_size = slot_size;
	}
}

static void finish(struct rp_lab *lab)
{
	size_t n = rp_acct_nflows(lab->acct);
	uint64_t *sent = calloc(n ? n : 1, sizeof(*sent));
	/* A run that drained holds no frame: nothing to count (and no 16 B a flow). */
	uint64_t *fly = lab->pool.in_use ? calloc(2 * (n ? n : 1), sizeof(*fly)) : NULL;
	if (lab->pool.in_use && (!fly || count_in_flight(lab, fly, fly + n)))
		lab->failed = true;
	for (size_t h = 0; h < lab->nhosts; h++)
		for (size_t i = 0; i < lab->hosts[h].nflows; i++) {
			const struct rp_lab_flow *f = &lab->hosts[h].flows[i];
			struct rp_source_flow_stats st;
			if (f->acct < 0)
				continue;
			rp_source_flow_stats(lab->hosts[h].src, f->si, &st);
			uint64_t pk = st.probes ? st.probes : st.tx_packets;
			rp_acct_set_tx(lab->acct, (size_t)f->acct, pk, st.tx_bytes);
			if (fly)
				rp_acct_set_in_flight(lab->acct, (size_t)f->acct, fly[(st.probes ? n : 0) + (size_t)f->acct]);
			if (sent)
				sent[f->acct] = pk;
		}
	for (size_t h = 0; h < lab->nhosts; h++)
		rp_pause_settle(&lab->hosts[h].pause, lab->tot.end_ns);
	rp_acct_finish(lab->acct, lab->tot.end_ns, sent);
	free(sent);
	free(fly);
	release_run_state(lab);
}

int rp_lab_run(struct rp_lab *lab, char *err, size_t errlen)
{
	struct rp_event e;
	uint64_t every = lab->opts.progress_every ? lab->opts.progress_every : (1u << 18);
	uint64_t cap = lab->fab->max_time_ns;
	uint64_t report_at = lab->tot.events - lab->tot.events % every + every; /* the next multiple: no division per event */
	if (lab->ctrs && lab->ctrs_next == 0) { /* the snapshot before anything happened: every count 0 */
		if (rp_lab_ctrs_sample(lab->ctrs, lab, 0, lab->err, sizeof(lab->err)))
			lab->failed = true;
		lab->ctrs_next = lab->opts.counters_ns;
	}
	while (!lab->failed && rp_evq_pop(&lab->q, &e)) {
		if (lab->opts.stop && *lab->opts.stop) {
			lab->tot.stopped = true;
			lab->pending = e;
			lab->has_pending = true;
			break;
		}
		if (stale(lab, &e))
			continue;
		if (e.t > cap) {
			lab->tot.truncated = true;
			lab->pending = e;
			lab->has_pending = true;
			break;
		}
		/* --counters: every reading due before this event holds everything up to it */
		while (lab->ctrs && lab->ctrs_next < e.t) {
			if (rp_lab_ctrs_sample(lab->ctrs, lab, lab->ctrs_next, lab->err, sizeof(lab->err)))
				lab->failed = true;
			lab->ctrs_next += lab->opts.counters_ns;
		}
		lab->now = e.t;
		lab->tot.end_ns = e.t;
		dispatch(lab, &e);
		if (++lab->tot.events == report_at) {
			report_at += every;
			if (lab->opts.progress)
				lab->opts.progress(lab->now, lab->tot.events, lab->opts.progress_arg);
		}
	}
	if (lab->q.oom)
		lab->failed = true;
	if (lab->failed) {
		if (lab->err[0])
			snprintf(err, errlen, "%s", lab->err);
		else
			snprintf(err, errlen, "out of memory at virtual time %llu ns", (unsigned long long)lab->now);
		return -1;
	}
	lab->tot.peak_in_flight = lab->pool.peak;
	finish(lab);
	if (lab->failed) {
		snprintf(err, errlen, "out of memory counting the frames in flight");
		return -1;
	}
	return 0;
}
