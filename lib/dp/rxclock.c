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
 * NIC here (no PCI NIC on this machine): net_pcap is the stamp path run.
 *
 * net_pcap stamps every frame without offering the offload (ethdev would
 * refuse to configure it). DPDK 22.11 drivers/net/pcap/pcap_ethdev.c:
 * pmd_pcap_probe registers the field and flag, eth_pcap_rx writes each
 * record's header time as tv_sec * 1000000 + tv_usec (libpcap opened at
 * microsecond precision, a nanosecond file's times cut to the us): the
 * kernel's time for rx_iface= (clock "host"), the file's for rx_pcap= (clock
 * "file": its first frame at the run's time 0, the others at the file's
 * spacing; the earliest first frame of its files, read here with lib/pcap
 * and cut to the us as libpcap cuts it). Its infinite_rx=1 path copies
 * frames from a ring and stamps none. */
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
#include "pcap/reader.h"


const char *rp_dp_rx_stamps_name(enum rp_dp_rx_stamp_kind k)
{
	static const char *const name[] = {[RP_DP_STAMP_POLL] = "poll", [RP_DP_STAMP_NIC] = "nic",
					   [RP_DP_STAMP_HOST] = "host", [RP_DP_STAMP_FILE] = "file"};
	return name[k];
}

/* The unit of a PMD's stamps when it stamps without offering the offload
 * (above); 0: it does not stamp. */
static int64_t unoffered_unit_ns(const char *driver)
{
	return !strcmp(driver, "net_pcap") ? 1000 : 0;
}

/* The earliest first frame of a port's rx_pcap= files, in us as net_pcap
 * stamps it (0 when they hold none: no frame to stamp); -1 with err when one
 * cannot be read. */
static int64_t files_first_us(const struct rp_dp_port *p, const char *devargs, char *err, size_t errlen)
{
	char file[4096];
	int64_t first = -1;
	for (const char *at = NULL; rp_dp_devarg_next(devargs, "rx_pcap", &at, file, sizeof(file));) {
		struct rp_pcap_reader r;
		struct pcap_pkthdr *h;
		const u_char *d;
		char why[256] = "";
		if (rp_pcap_reader_open(&r, file, false, why, sizeof(why)) != 0) {
			snprintf(err, errlen, "port %s: rx_pcap=%s: %s", p->name, file, why);
			return -1;
		}
		int got = rp_pcap_reader_next(&r, &h, &d, why, sizeof(why));
		int64_t us = got == 1 ? (int64_t)(rp_pcap_ts_ns(h) / 1000) : -1;
		rp_pcap_reader_close(&r);
		if (got < 0) {
			snprintf(err, errlen, "port %s: rx_pcap=%s: %s", p->name, file, why);
			return -1;
		}
		if (got == 1 && (first < 0 || us < first))
			first = us;
	}
	return first < 0 ? 0 : first;
}

static bool on_pci(const struct rte_eth_dev_info *info)
{
	const struct rte_bus *bus = info->device ? rte_dev_bus(info->device) : NULL;
	return bus && !strcmp(rte_bus_name(bus), "pci");
}

int rp_dp_rx_stamps_conf(struct rp_dp_port *p, const char *devargs, enum rp_dp_rx_clock want,
			 const struct rte_eth_dev_info *info, struct rte_eth_conf *conf, char *err, size_t errlen)
{
	bool offered = (info->rx_offload_capa & RTE_ETH_RX_OFFLOAD_TIMESTAMP) != 0;
	int64_t unit = offered ? 1 : unoffered_unit_ns(p->driver);
	p->rxs = (struct rp_dp_rx_stamps){.kind = RP_DP_STAMP_POLL, .field = -1, .unit_ns = unit, .file_first = -1};
	if (want == RP_DP_RXCLK_NIC && !unit) {
		snprintf(err, errlen, "port %s (%s) has no RX timestamps (RTE_ETH_RX_OFFLOAD_TIMESTAMP): --rx-clock nic "
			 "cannot stamp its frames; --rx-clock poll stamps them when the poll takes them", p->name, p->driver);
		return -1;
	}
	if (want == RP_DP_RXCLK_NIC || (want == RP_DP_RXCLK_AUTO && offered && on_pci(info))) {
		if (offered)
			conf->rxmode.offloads |= RTE_ETH_RX_OFFLOAD_TIMESTAMP;
		p->rxs.kind = RP_DP_STAMP_NIC; /* until started: NIC, HOST or FILE */
		char file[8];
		const char *at = NULL;
		if (!offered && rp_dp_devarg_next(devargs, "rx_pcap", &at, file, sizeof(file)) &&
		    (p->rxs.file_first = files_first_us(p, devargs, err, errlen)) < 0)
			return -1;
	}
	return 0;
}

#define RATE_MIN_NS 50000000 /* the NIC's rate from readings at least this far apart */

static int64_t nic_clock(const void *arg)
{
	uint64_t c = 0;
	rte_eth_read_clock(*(const uint16_t *)arg, &c);
	return (int64_t)c;
}

struct rp_dp_clock_pair rp_dp_nic_clock_read(uint16_t port)
{
	return rp_dp_clock_read_pair(nic_clock, &port);
}

struct rp_dp_clock_pair rp_dp_nic_clock_again(struct rp_dp_clock_pair a, uint16_t port)
{
	struct rp_dp_clock_pair b = rp_dp_nic_clock_read(port);
	int64_t span = rp_dp_clock_tsc_ns(b.tsc) - rp_dp_clock_tsc_ns(a.tsc);
	if (span < RATE_MIN_NS) {
		struct timespec ts = {.tv_nsec = RATE_MIN_NS - span};
		nanosleep(&ts, NULL);
		b = rp_dp_nic_clock_read(port);
	}
	return b;
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
	if (x->unit_ns > 1) { /* stamped without the offload (above): a file's or the kernel's */
		x->kind = x->file_first >= 0 ? RP_DP_STAMP_FILE : RP_DP_STAMP_HOST;
	} else if (rte_eth_read_clock(p->id, &c) == 0) {
		x->kind = RP_DP_STAMP_NIC;
		x->nic0 = rp_dp_nic_clock_read(p->id);
	} else {
		x->kind = RP_DP_STAMP_HOST;
	}
}

void rp_dp_rx_stamps_arm(struct rp_dp_port *p)
{
	struct rp_dp_rx_stamps *x = &p->rxs;
	if (x->kind == RP_DP_STAMP_HOST) { /* s units of the host's time: s * unit - epoch */
		int64_t window, epoch = (int64_t)rp_dp_clock_epoch_ns(&window);
		x->base_stamp = epoch / x->unit_ns;
		x->base_pkt = -(epoch % x->unit_ns);
		x->mult_q32 = (uint64_t)x->unit_ns << 32;
		x->bound_ns = window + x->unit_ns - 1;
		return;
	}
	if (x->kind == RP_DP_STAMP_FILE) { /* the first frame at time 0, the file's spacing after */
		x->base_stamp = x->file_first;
		x->base_pkt = 0;
		x->mult_q32 = (uint64_t)x->unit_ns << 32;
		x->bound_ns = x->unit_ns - 1; /* the file's times cut to the unit */
		return;
	}
	if (x->kind != RP_DP_STAMP_NIC)
		return;
	struct rp_dp_clock_pair a = x->nic0, b = rp_dp_nic_clock_again(a, p->id);
	int64_t span = rp_dp_clock_tsc_ns(b.tsc) - rp_dp_clock_tsc_ns(a.tsc);
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
