/* Packet descriptors (a free list over an array grown on demand) and the FIFO
 * egress queues built from them. Queue depth changes only here, so the depth
 * counters and the time series are kept here too. */
#include <stdlib.h>

#include "switch_internal.h"

int rp_sw_pkt_grow(struct rp_switch *sw)
{
	uint64_t want = (uint64_t)sw->npkt * 2;
	if (want < 1024)
		want = 1024;
	if (want > sw->pkt_max)
		want = sw->pkt_max;
	if (want <= sw->npkt)
		return -1;
	struct rp_pkt *pkt = realloc(sw->pkt, (size_t)want * sizeof(*pkt));
	if (!pkt)
		return -1;
	sw->pkt = pkt;
	uint32_t n = (uint32_t)want;
	for (uint32_t i = sw->npkt; i < n; i++)
		sw->pkt[i].next = i + 1 < n ? i + 1 : sw->pkt_free;
	sw->pkt_free = sw->npkt;
	sw->npkt = n;
	return 0;
}

uint32_t rp_sw_pkt_alloc(struct rp_switch *sw)
{
	if (sw->pkt_free == RP_PKT_NONE && rp_sw_pkt_grow(sw))
		return RP_PKT_NONE;
	uint32_t i = sw->pkt_free;
	if (i != RP_PKT_NONE) {
		sw->pkt_free = sw->pkt[i].next;
		sw->pkt_used++;
	}
	return i;
}

void rp_sw_pkt_free(struct rp_switch *sw, uint32_t i)
{
	sw->pkt[i].next = sw->pkt_free;
	sw->pkt_free = i;
	sw->pkt_used--;
}

static void depth_changed(struct rp_queue *q, uint64_t now_ns)
{
	q->st.depth_bytes = q->bytes;
	q->st.depth_pkts = q->pkts;
	if (q->bytes > q->st.max_depth_bytes)
		q->st.max_depth_bytes = q->bytes;
	rp_series_record(&q->series, now_ns, q->bytes);
}

void rp_sw_queue_push(struct rp_switch *sw, unsigned port, unsigned tc, uint32_t i, uint64_t now_ns)
{
	struct rp_queue *q = &sw->port[port].q[tc];
	sw->pkt[i].next = RP_PKT_NONE;
	if (q->tail == RP_PKT_NONE)
		q->head = i;
	else
		sw->pkt[q->tail].next = i;
	q->tail = i;
	q->bytes += sw->pkt[i].len;
	q->pkts++;
	sw->port[port].qmask |= (uint8_t)(1u << tc);
	q->st.enq_pkts++;
	q->st.enq_bytes += sw->pkt[i].len;
	depth_changed(q, now_ns);
}

uint32_t rp_sw_queue_pop(struct rp_switch *sw, unsigned port, unsigned tc, uint64_t now_ns)
{
	struct rp_queue *q = &sw->port[port].q[tc];
	uint32_t i = q->head;
	if (i == RP_PKT_NONE)
		return i;
	q->head = sw->pkt[i].next;
	if (q->head == RP_PKT_NONE)
		q->tail = RP_PKT_NONE;
	q->bytes -= sw->pkt[i].len;
	if (!--q->pkts)
		sw->port[port].qmask &= (uint8_t)~(1u << tc);
	depth_changed(q, now_ns);
	return i;
}
