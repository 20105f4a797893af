/* Inside lib/dp: a burst into a port's TX queue. A pair: link with several
 * queues spreads the frames over its peer's RX queues itself (pair.c), as
 * the RSS of a NIC would; every other port takes them as the PMD does. */
#ifndef RP_DP_TXQ_H
#define RP_DP_TXQ_H

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "dp.h"

static inline uint16_t rp_dp_tx_burst(const struct rp_dp_port *p, uint16_t q, struct rte_mbuf **m, uint16_t n)
{
	if (p->nq > 1 && p->pair_ring[0])
		return rp_dp_pair_tx(p, m, n);
	return rte_eth_tx_burst(p->id, q, m, n);
}

#endif
