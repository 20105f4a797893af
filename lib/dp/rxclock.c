/* A port's RX stamps (dp.h enum rp_dp_rx_clock, struct rp_dp_rx_stamps):
 * the PMD's per-frame timestamp (RTE_ETH_RX_OFFLOAD_TIMESTAMP, in the mbuf
 * field RTE_MBUF_DYNFIELD_TIMESTAMP_NAME with RTE_MBUF_DYNFLAG_RX_TIMESTAMP_NAME
 * set) moved to the packet clock. Its unit is the PMD's (mlx5: the NIC
 * clock's ticks unless rt_timestamp; net_pcap: ns since the epoch): with
 * rte_eth_read_clock the NIC's clock is read against the TSC at the port's
 * start and again at T0 (rp_dp_clock_read_pair, the readings' windows the
 * bound), which gives its rate and offset whatever the unit; a PMD with no
 * clock to read has its stamps taken as the host's CLOCK_REALTIME ns, moved
 * by the packet clock's epoch (clock.c), the one the captures write with, so
 * a stamped frame is captured with the stamp it came with. Untested on a
 * NIC here (no PCI NIC on this machine): net_pcap is the offload path run. */
/* rte_eth_read_clock is experimental in DPDK 22.11 (its ABI may change). */
#define ALLOW_EXPERIMENTAL_API
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rte_bus.h>
#include <rte_dev.h>
#include <rte_ethdev.h>
#include <rte_mbuf_dyn.h>

#include "dp.h"

#define ARM_MIN_NS 50000000 /* the NIC's rate from readings at least this far apart */

const char *rp_dp_rx_stamps_name(enum rp_dp_rx_stamp_kind k)
{
	return k == RP_DP_STAMP_NIC ? "nic" : k == RP_DP_STAMP_HOST ? "host" : "poll";
}

static bool on_pci(const struct rte_eth_dev_info *info)
{
	const struct rte_bus *bus = info->device ? rte_dev_bus(info->device) : NULL;
	return bus && !strcmp(rte_bus_name(bus), "pci");
}

int rp_dp_rx_stamps_conf(struct rp_dp_port *p, enum rp_dp_rx_clock want, const struct rte_eth_dev_info *info,
			 struct rte_eth_conf *conf, char *err, size_t errlen)
{
	bool offered = (info->rx_offload_capa & RTE_ETH_RX_OFFLOAD_TIMESTAMP) != 0;
	p->rxs = (struct rp_dp_rx_stamps){.kind = RP_DP_STAMP_POLL, .field = -1};
	if (want == RP_DP_RXCLK_NIC && !offered) {
		snprintf(err, errlen, "port %s (%s) has no RX timestamps (RTE_ETH_RX_OFFLOAD_TIMESTAMP): --rx-clock nic "
			 "cannot stamp its frames; --rx-clock poll stamps them when the poll takes them", p->name, p->driver);
		return -1;
	}
	if (want == RP_DP_RXCLK_NIC || (want == RP_DP_RXCLK_AUTO && offered && on_pci(info))) {
		conf->rxmode.offloads |= RTE_ETH_RX_OFFLOAD_TIMESTAMP;
		p->rxs.kind = RP_DP_STAMP_NIC; /* until started: NIC or HOST */
	}
	return 0;
}

static int64_t nic_clock(const void *arg)
{
	uint64_t c = 0;
	rte_eth_read_clock(*(const uint16_t *)arg, &c);
	return (int64_t)c;
}

void rp_dp_rx_stamps_started(struct rp_dp_port *p)
{
	struct rp_dp_rx_stamps *x = &p->rxs;
	if (x->kind == RP_DP_STAMP_POLL)
		return;
	/* The PMD registered the field when the offload was configured. */
	x->field = rte_mbuf_dynfield_lookup(RTE_MBUF_DYNFIELD_TIMESTAMP_NAME, NULL);
	int bit = rte_mbuf_dynflag_lookup(RTE_MBUF_DYNFLAG_RX_TIMESTAMP_NAME, NULL);
	if (x->field < 0 || bit < 0) {
		x->kind = RP_DP_STAMP_POLL; /* offered but never registered: every frame the poll's */
		return;
	}
	x->flag = 1ull << bit;
	uint64_t c;
	if (rte_eth_read_clock(p->id, &c) == 0) {
		x->kind = RP_DP_STAMP_NIC;
		x->nic0 = rp_dp_clock_read_pair(nic_clock, &p->id);
	} else {
		x->kind = RP_DP_STAMP_HOST;
	}
}

void rp_dp_rx_stamps_arm(struct rp_dp_port *p)
{
	struct rp_dp_rx_stamps *x = &p->rxs;
	if (x->kind == RP_DP_STAMP_HOST) {
		int64_t window;
		x->base_pkt = 0;
		x->base_stamp = (int64_t)rp_dp_clock_epoch_ns(&window);
		x->mult_q32 = 1ull << 32;
		x->bound_ns = window;
		return;
	}
	if (x->kind != RP_DP_STAMP_NIC)
		return;
	struct rp_dp_clock_pair a = x->nic0, b = rp_dp_clock_read_pair(nic_clock, &p->id);
	int64_t span = rp_dp_clock_tsc_ns(b.tsc) - rp_dp_clock_tsc_ns(a.tsc);
	if (span < ARM_MIN_NS) {
		struct timespec ts = {.tv_nsec = ARM_MIN_NS - span};
		nanosleep(&ts, NULL);
		b = rp_dp_clock_read_pair(nic_clock, &p->id);
		span = rp_dp_clock_tsc_ns(b.tsc) - rp_dp_clock_tsc_ns(a.tsc);
	}
	int64_t ticks = b.ref_ns - a.ref_ns;
	if (ticks <= 0) { /* a clock that does not run: nothing to map */
		x->kind = RP_DP_STAMP_POLL;
		return;
	}
	x->mult_q32 = (uint64_t)(((unsigned __int128)span << 32) / (uint64_t)ticks);
	x->base_stamp = b.ref_ns;
	x->base_pkt = rp_dp_clock_tsc_ns(b.tsc);
	/* Each reading is within half its window (in ticks: moved to ns). */
	x->bound_ns = (int64_t)((((unsigned __int128)(uint64_t)(a.window_ns + b.window_ns) * x->mult_q32) >> 32) / 2);
}
