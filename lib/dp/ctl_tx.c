/* One control frame (an ARP/ND answer or request, a RoCE ACK or CNP) out of a
 * port's TX queue, between the lcore's own bursts: the one implementation
 * the neighbour code (neigh.c) and the RoCE responder (rx.c) share. */
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "capture.h"
#include "gen.h"
#include "txq.h"

bool rp_dp_ctl_send(struct rp_dp_txport *tp, rp_dp_ctl_build_fn build, const void *arg, struct rp_capture *cap,
		    uint64_t now_ns)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(tp->port->pool);
	if (!m)
		return false;
	uint8_t *buf = rte_pktmbuf_mtod(m, uint8_t *);
	size_t len = build(arg, buf, rte_pktmbuf_tailroom(m));
	if (!len) {
		rte_pktmbuf_free(m);
		return false;
	}
	m->data_len = (uint16_t)len;
	m->pkt_len = (uint32_t)len;
	if (cap)
		rp_capture_offer(cap, now_ns, (uint16_t)tp->index, true, buf, (uint32_t)len);
	if (rp_dp_tx_burst(tp->port, tp->txq, &m, 1) != 1) {
		rte_pktmbuf_free(m);
		return false;
	}
	return true;
}
