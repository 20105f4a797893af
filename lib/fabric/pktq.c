/* Packet descriptors (a free list over a preallocated array) and the FIFO
 * egress queues built from them. Queue depth changes only here, so the depth
 * counters and the time series are kept here too. */
#include "switch_internal.h"

uint32_t rp_sw_pkt_alloc(struct rp_switch *sw)
{
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
	q->pkts--;
	depth_changed(q, now_ns);
	return i;
}
