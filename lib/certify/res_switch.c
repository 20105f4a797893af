/* The switches' own counters of a run (result.json counters.switches[],
 * docs/results.md: per sample and port the roceprobe.counters/1 port
 * object, counts as deltas, watermarks as gauges) as the numbers the tests
 * judge: per switch port and priority the totals over the run, the
 * watermarks' maxima, which counters any source had at all, and which
 * switch port faces which host (each entry's `ports:` map). The one reader
 * of that vocabulary in lib/certify. */
#include <stdlib.h>
#include <string.h>

#include "cert_internal.h"

static uint64_t val(const json_t *o, const char *k, bool *seen)
{
	json_t *v = json_object_get(o, k);
	if (!json_is_integer(v))
		return 0;
	*seen = true;
	return json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
}

static void add(uint64_t *sum, const json_t *o, const char *k, unsigned *have, unsigned bit)
{
	bool seen = false;
	*sum += val(o, k, &seen);
	if (seen)
		*have |= bit;
}

static void hi(uint64_t *max, const json_t *o, const char *k, unsigned *have, unsigned bit)
{
	bool seen = false;
	uint64_t v = val(o, k, &seen);
	if (seen) {
		*have |= bit;
		*max = v > *max ? v : *max;
	}
}

static struct rp_cert_swport *port_of(struct rp_cert_swc *w, const char *sw, const char *name)
{
	for (size_t i = 0; i < w->nports; i++)
		if (strcmp(w->ports[i].sw, sw) == 0 && strcmp(w->ports[i].port, name) == 0)
			return &w->ports[i];
	if (w->nports == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 16;
		struct rp_cert_swport *p = realloc(w->ports, cap * sizeof(*p));
		if (!p)
			return NULL;
		w->ports = p;
		w->cap = cap;
	}
	struct rp_cert_swport *p = &w->ports[w->nports++];
	*p = (struct rp_cert_swport){.peer = ""};
	snprintf(p->sw, sizeof(p->sw), "%s", sw);
	snprintf(p->port, sizeof(p->port), "%s", name);
	return p;
}

static unsigned idx(const json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_integer(v) && json_integer_value(v) >= 0 && json_integer_value(v) < 8 ? (unsigned)json_integer_value(v)
											       : 8;
}

static void fold(struct rp_cert_swc *w, struct rp_cert_swport *p, const json_t *sp)
{
	size_t i;
	json_t *e;
	add(&p->tx_bytes, sp, "tx_bytes", &p->have, RP_SWC_TX_BYTES); /* the port's own, every priority */
	w->have |= p->have;
	json_array_foreach(json_object_get(sp, "prio"), i, e) {
		unsigned q = idx(e, "prio");
		if (q >= 8)
			continue;
		add(&p->pfc_tx[q], e, "pfc_tx", &w->have, RP_SWC_PFC_TX);
		add(&p->pfc_rx[q], e, "pfc_rx", &w->have, RP_SWC_PFC_RX);
	}
	json_array_foreach(json_object_get(sp, "queues"), i, e) {
		unsigned q = idx(e, "queue");
		if (q >= 8)
			continue;
		add(&p->q_packets[q], e, "packets", &w->have, 0);
		add(&p->q_drops[q], e, "drops", &w->have, RP_SWC_Q_DROPS);
		add(&p->q_ecn[q], e, "ecn_marked", &w->have, RP_SWC_ECN);
		add(&p->wd_detected[q], e, "wd_storms_detected", &w->have, RP_SWC_WD);
		add(&p->wd_restored[q], e, "wd_storms_restored", &w->have, RP_SWC_WD);
		add(&p->wd_drops[q], e, "wd_tx_drops", &w->have, 0);
		add(&p->wd_drops[q], e, "wd_rx_drops", &w->have, 0);
		hi(&p->q_wm[q], e, "shared_wm_bytes", &w->have, RP_SWC_Q_WM);
		hi(&p->q_wm[q], e, "poll_shared_wm_bytes", &w->have, RP_SWC_Q_WM);
	}
	json_array_foreach(json_object_get(sp, "pgs"), i, e) {
		unsigned q = idx(e, "pg");
		if (q >= 8)
			continue;
		add(&p->pg_drops[q], e, "drops", &w->have, RP_SWC_PG_DROPS);
		hi(&p->pg_hr_wm[q], e, "headroom_wm_bytes", &w->have, RP_SWC_PG_HR_WM);
		hi(&p->pg_hr_wm[q], e, "poll_headroom_wm_bytes", &w->have, RP_SWC_PG_HR_WM);
		hi(&p->pg_wm[q], e, "shared_wm_bytes", &w->have, 0);
	}
}

int rp_cert_swc_read(const json_t *res, struct rp_cert_swc *w)
{
	size_t i, j, k;
	json_t *s, *smp, *sp, *v;
	const char *key;
	*w = (struct rp_cert_swc){.ports = NULL};
	json_array_foreach(json_object_get(json_object_get(res, "counters"), "switches"), i, s) {
		const char *sw = json_string_value(json_object_get(s, "name")) ?: "?";
		w->nswitches++;
		json_array_foreach(json_object_get(s, "samples"), j, smp) {
			w->nsamples++;
			json_array_foreach(json_object_get(smp, "ports"), k, sp) {
				struct rp_cert_swport *p = port_of(w, sw, json_string_value(json_object_get(sp, "name")) ?: "?");
				if (!p)
					return -1;
				fold(w, p, sp);
			}
		}
		json_object_foreach(json_object_get(s, "ports"), key, v) {
			struct rp_cert_swport *p = port_of(w, sw, key);
			if (!p)
				return -1;
			snprintf(p->peer, sizeof(p->peer), "%s", json_string_value(v) ?: "");
		}
	}
	return 0;
}

void rp_cert_swc_free(struct rp_cert_swc *w)
{
	free(w->ports);
	*w = (struct rp_cert_swc){.ports = NULL};
}

const struct rp_cert_swport *rp_cert_swc_facing(const struct rp_cert_swc *w, const char *host)
{
	for (size_t i = 0; i < w->nports; i++)
		if (strcmp(w->ports[i].peer, host) == 0)
			return &w->ports[i];
	return NULL;
}

const char *rp_cert_swc_name(unsigned bit)
{
	switch (bit) {
	case RP_SWC_PFC_TX: return "the switch's PFC frames sent per priority (pfc_tx)";
	case RP_SWC_PFC_RX: return "the switch's PFC frames received per priority (pfc_rx)";
	case RP_SWC_ECN: return "the switch's ECN-marked packets per queue (queues[].ecn_marked)";
	case RP_SWC_Q_DROPS: return "the switch's drops per queue (queues[].drops)";
	case RP_SWC_PG_DROPS: return "the switch's drops per priority group (pgs[].drops)";
	case RP_SWC_Q_WM: return "the switch's queue watermarks (queues[].shared_wm_bytes)";
	case RP_SWC_PG_HR_WM: return "the switch's PG headroom watermarks (pgs[].headroom_wm_bytes)";
	case RP_SWC_TX_BYTES: return "the switch's bytes sent per port (tx_bytes)";
	case RP_SWC_WD: return "the switch's PFC watchdog counters (queues[].wd_storms_detected, wd_storms_restored)";
	default: return "a switch counter";
	}
}
