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
#include <time.h>

#include <rte_ethdev.h>
#include <rte_mbuf_dyn.h>

#include "dp.h"

#define ARM_MIN_NS 50000000 /* the NIC's rate from readings at least this far apart */

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

static int64_t nic_clock(const void *arg)
{
	uint64_t c = 0;
	rte_eth_read_clock(*(const uint16_t *)arg, &c);
	return (int64_t)c;
}

void rp_dp_tx_sched_started(struct rp_dp_port *p)
{
	if (p->txs.on)
		p->txs.nic0 = rp_dp_clock_read_pair(nic_clock, &p->id);
}

void rp_dp_tx_sched_arm(struct rp_dp_port *p)
{
	struct rp_dp_tx_sched *x = &p->txs;
	if (!x->on)
		return;
	struct rp_dp_clock_pair a = x->nic0, b = rp_dp_clock_read_pair(nic_clock, &p->id);
	int64_t span = rp_dp_clock_tsc_ns(b.tsc) - rp_dp_clock_tsc_ns(a.tsc);
	if (span < ARM_MIN_NS) {
		struct timespec ts = {.tv_nsec = ARM_MIN_NS - span};
		nanosleep(&ts, NULL);
		b = rp_dp_clock_read_pair(nic_clock, &p->id);
	}
	int64_t a_ns = rp_dp_clock_tsc_ns(a.tsc), b_ns = rp_dp_clock_tsc_ns(b.tsc);
	x->at_tick = rp_dp_tick_at(a.ref_ns, a_ns, b.ref_ns, b_ns, RP_DP_TX_LEAD_NS);
	x->bound_ns = (a.window_ns + b.window_ns) / 2; /* in ticks: ns on a real-time clock */
}
