/* A switch's counters as SONiC keeps them (struct rp_sonic_port) -> the
 * vocabulary, without a Redis in between (sonic_pub.h): the fields
 * sonic_pub.c writes into COUNTERS_DB, under the names sonic.c reads them
 * by (a watermark table's with its "U/" or "P/" prefix), folded by
 * ctr_names.c's one table as a `sonic://` read of them would be. */
#include "counters/sonic_pub.h"

#include <stdio.h>

#include "counters/sonic_db.h"

#define FOLD_MAX (4 * RP_SONIC_PUB_PRIOS + 8)

struct fields {
	struct rp_ctr c[FOLD_MAX];
	size_t n;
};

static void put(struct fields *f, const char *prefix, const char *fmt, unsigned prio, uint64_t v)
{
	if (f->n == FOLD_MAX)
		return; /* not reached: a port has 4 x 8 + 6 */
	struct rp_ctr *c = &f->c[f->n++];
	char name[64];
	snprintf(name, sizeof(name), fmt, prio);
	snprintf(c->name, sizeof(c->name), "%s%s", prefix, name);
	c->src = RP_CTR_SAI;
	c->value = v;
}

void rp_sonic_port_fold(const struct rp_sonic_port *s, struct rp_cnt_port *out)
{
	static const char *const wm[2] = {RP_SONIC_USER_WM_PREFIX, RP_SONIC_PERSISTENT_WM_PREFIX};
	struct fields f = {.n = 0};
	for (unsigned q = 0; q < RP_SONIC_PUB_PRIOS; q++) {
		put(&f, "", RP_SAI_PORT_PFC_RX_PKTS, q, s->pfc_rx[q]);
		put(&f, "", RP_SAI_PORT_PFC_TX_PKTS, q, s->pfc_tx[q]);
		put(&f, "", RP_SAI_PORT_PFC_RX_PAUSE_US, q, s->pause_us_rx[q]);
		put(&f, "", RP_SAI_PORT_PFC_TX_PAUSE_US, q, s->pause_us_tx[q]);
	}
	put(&f, "", RP_SAI_PORT_IN_OCTETS, 0, s->in_octets);
	put(&f, "", RP_SAI_PORT_OUT_OCTETS, 0, s->out_octets);
	put(&f, "", RP_SAI_PORT_IN_DISCARDS, 0, s->in_discards);
	put(&f, "", RP_SAI_PORT_OUT_DISCARDS, 0, s->out_discards);
	put(&f, "", RP_SAI_PORT_IN_UCAST_PKTS, 0, s->in_ucast_pkts);
	put(&f, "", RP_SAI_PORT_OUT_UCAST_PKTS, 0, s->out_ucast_pkts);
	rp_cnt_port_fold(out, f.c, f.n);
	for (unsigned q = 0; q < RP_SONIC_PUB_PRIOS; q++) {
		const struct rp_sonic_queue *u = &s->queue[q];
		const struct rp_sonic_pg *g = &s->pg[q];
		f.n = 0;
		put(&f, "", RP_SAI_QUEUE_PACKETS, 0, u->packets);
		put(&f, "", RP_SAI_QUEUE_BYTES, 0, u->bytes);
		put(&f, "", RP_SAI_QUEUE_DROPPED_PACKETS, 0, u->dropped_packets);
		put(&f, "", RP_SAI_QUEUE_DROPPED_BYTES, 0, u->dropped_bytes);
		put(&f, "", RP_SAI_QUEUE_ECN_MARKED, 0, u->ecn_marked);
		if (u->wd) {
			put(&f, "", RP_SONIC_WD_DETECTED, 0, u->wd_detected);
			put(&f, "", RP_SONIC_WD_RESTORED, 0, u->wd_restored);
			put(&f, "", RP_SONIC_WD_STATUS, 0, u->wd_detected > u->wd_restored);
		}
		for (unsigned t = 0; t < 2; t++)
			put(&f, wm[t], RP_SAI_QUEUE_SHARED_WM, 0, u->wm_bytes);
		rp_cnt_port_fold_at(out, RP_CNT_AT_QUEUE, (int)q, f.c, f.n);
		f.n = 0;
		put(&f, "", RP_SAI_PG_PACKETS, 0, g->packets);
		put(&f, "", RP_SAI_PG_DROPPED_PACKETS, 0, g->dropped_packets);
		for (unsigned t = 0; t < 2; t++) {
			put(&f, wm[t], RP_SAI_PG_SHARED_WM, 0, g->shared_wm_bytes);
			put(&f, wm[t], RP_SAI_PG_XOFF_ROOM_WM, 0, g->xoff_room_wm_bytes);
		}
		rp_cnt_port_fold_at(out, RP_CNT_AT_PG, (int)q, f.c, f.n);
	}
}
