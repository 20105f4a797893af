/* A port's first frames leaving at one time on the NIC's clock (dp.h enum
 * rp_dp_tx_start, struct rp_dp_tx_sched): the send-on-timestamp offload
 * (RTE_ETH_TX_OFFLOAD_SEND_ON_TIMESTAMP) holds a frame whose mbuf carries
 * RTE_MBUF_DYNFLAG_TX_TIMESTAMP_NAME until the NIC's clock reaches the time
 * in its RTE_MBUF_DYNFIELD_TIMESTAMP_NAME field, and the queue behind it.
 * mlx5 offers it with the tx_pp= devarg on a ConnectX-6 Dx (its packet
 * pacing) and natively on a ConnectX-7 (DPDK's mlx5 guide, "Tx scheduling");
 * its time is in the NIC clock's units (ns on a real-time clock, ticks on a
 * free-running one), so the time is worked from two readings of that clock
 * against the TSC (rp_dp_tick_at), whatever the unit, as the RX stamps are
 * (rxclock.c). A time already past is sent at once (mlx5 counts it in its
 * tx_pp_timestamp_past_errors xstat); the TX loop says late instead.
 * Untested on a NIC: no PMD on this machine offers the offload. */
/* rte_eth_read_clock and the TX timestamp registration are experimental in DPDK 22.11. */
#define ALLOW_EXPERIMENTAL_API
#include <stdio.h>

#include <rte_ethdev.h>
#include <rte_mbuf_dyn.h>

#include "dp.h"

int rp_dp_tx_sched_conf(struct rp_dp_port *p, enum rp_dp_tx_start want, const struct rte_eth_dev_info *info,
			struct rte_eth_conf *conf, char *err, size_t errlen)
{
	p->txs = (struct rp_dp_tx_sched){.field = -1};
	if (want != RP_DP_TXSTART_NIC)
		return 0;
	uint64_t c;
	if (!(info->tx_offload_capa & RTE_ETH_TX_OFFLOAD_SEND_ON_TIMESTAMP)) {
		snprintf(err, errlen, "port %s (%s) cannot send on a timestamp (RTE_ETH_TX_OFFLOAD_SEND_ON_TIMESTAMP; "
			 "mlx5: tx_pp=500 on a ConnectX-6 Dx): --tx-start nic needs it; --tx-start host starts at T0",
			 p->name, p->driver);
		return -1;
	}
	if (rte_mbuf_dyn_tx_timestamp_register(&p->txs.field, &p->txs.flag) != 0 || rte_eth_read_clock(p->id, &c) != 0) {
		snprintf(err, errlen, "port %s (%s) offers sending on a timestamp but %s: --tx-start host starts at T0",
			 p->name, p->driver, p->txs.field < 0 ? "its mbuf field cannot be registered" : "has no clock to read");
		return -1;
	}
	conf->txmode.offloads |= RTE_ETH_TX_OFFLOAD_SEND_ON_TIMESTAMP;
	p->txs.on = true;
	return 0;
}

void rp_dp_tx_sched_started(struct rp_dp_port *p)
{
	if (p->txs.on)
		p->txs.nic0 = rp_dp_nic_clock_read(p->id);
}

void rp_dp_tx_sched_arm(struct rp_dp_port *p)
{
	struct rp_dp_tx_sched *x = &p->txs;
	if (!x->on)
		return;
	/* No wait for a longer span (rp_dp_nic_clock_again): this is T0, and the
	 * time is 100 us past b, so the rate's error counts over 100 us only
	 * (1 % of a rate: 1 us); the port started long before (its set-up, the
	 * neighbours, the ranks' barrier). */
	struct rp_dp_clock_pair a = x->nic0, b = rp_dp_nic_clock_read(p->id);
	int64_t a_ns = rp_dp_clock_tsc_ns(a.tsc), b_ns = rp_dp_clock_tsc_ns(b.tsc);
	x->at_tick = rp_dp_tick_at(a.ref_ns, a_ns, b.ref_ns, b_ns, RP_DP_TX_LEAD_NS);
	x->bound_ns = (a.window_ns + b.window_ns) / 2; /* in ticks: ns on a real-time clock */
}
