#include <errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dp.h"

#define RX_DESC 1024
#define TX_DESC 1024
#define POOL_CACHE 256

static void port_name(const char *devargs, char *name, size_t n)
{
	size_t len = strcspn(devargs, ",");
	if (len >= n)
		len = n - 1;
	memcpy(name, devargs, len);
	name[len] = '\0';
}

static struct rte_mempool *make_pool(const char *port, unsigned n_txq, size_t max_frame)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	snprintf(name, sizeof(name), "rp_%.20s", port);
	size_t room = max_frame + RTE_PKTMBUF_HEADROOM;
	if (room < RTE_MBUF_DEFAULT_BUF_SIZE)
		room = RTE_MBUF_DEFAULT_BUF_SIZE;
	unsigned n = (RX_DESC + TX_DESC * n_txq) * 2 + POOL_CACHE * RTE_MAX_LCORE / 32;
	return rte_pktmbuf_pool_create(name, n, POOL_CACHE, 0, (uint16_t)room, (int)rte_socket_id());
}

int rp_dp_port_open(const char *devargs, unsigned n_txq, size_t max_frame, struct rp_dp_port *p, char *err,
		    size_t errlen)
{
	memset(p, 0, sizeof(*p));
	port_name(devargs, p->name, sizeof(p->name));
	if (rp_dp_is_pair(devargs)) {
		snprintf(p->name, sizeof(p->name), "%s", devargs);
		if (rp_dp_pair_create(devargs, &p->id, err, errlen) != 0)
			return -1;
	} else if (rte_eth_dev_get_port_by_name(p->name, &p->id) != 0) {
		snprintf(err, errlen, "no DPDK port '%s' (is the PMD installed, the NIC bound to vfio-pci?)", p->name);
		return -1;
	}
	struct rte_eth_dev_info info;
	if (rte_eth_dev_info_get(p->id, &info) != 0) {
		snprintf(err, errlen, "port %s: cannot read device info", p->name);
		return -1;
	}
	snprintf(p->driver, sizeof(p->driver), "%s", info.driver_name);
	if (n_txq > info.max_tx_queues) {
		snprintf(err, errlen, "port %s (%s) has %u TX queues, %u asked", p->name, p->driver,
			 info.max_tx_queues, n_txq);
		return -1;
	}
	p->pool = make_pool(p->name, n_txq, max_frame);
	if (!p->pool) {
		snprintf(err, errlen, "port %s: cannot allocate mbufs (%s); give the EAL more memory (-m)", p->name,
			 rte_strerror(rte_errno));
		return -1;
	}
	struct rte_eth_conf conf;
	memset(&conf, 0, sizeof(conf));
	int rc = rte_eth_dev_configure(p->id, 1, (uint16_t)n_txq, &conf);
	/* Virtual PMDs take any frame and some refuse the call: only a NIC's refusal counts. */
	if (rc == 0 && max_frame > RTE_ETHER_MAX_LEN && info.max_mtu >= max_frame - RTE_ETHER_HDR_LEN) {
		rc = rte_eth_dev_set_mtu(p->id, (uint16_t)(max_frame - RTE_ETHER_HDR_LEN));
		if (rc == -ENOTSUP)
			rc = 0;
	}
	if (rc == 0)
		rc = rte_eth_rx_queue_setup(p->id, 0, RX_DESC, rte_eth_dev_socket_id(p->id), NULL, p->pool);
	for (unsigned q = 0; rc == 0 && q < n_txq; q++)
		rc = rte_eth_tx_queue_setup(p->id, (uint16_t)q, TX_DESC, rte_eth_dev_socket_id(p->id), NULL);
	if (rc == 0)
		rc = rte_eth_dev_start(p->id);
	if (rc != 0) {
		snprintf(err, errlen, "port %s (%s): setup failed: %s", p->name, p->driver, rte_strerror(-rc));
		return -1;
	}
	p->started = true;
	rte_eth_promiscuous_enable(p->id);
	struct rte_eth_link link;
	if (rte_eth_link_get_nowait(p->id, &link) == 0 && link.link_speed != RTE_ETH_SPEED_NUM_UNKNOWN &&
	    link.link_speed != RTE_ETH_SPEED_NUM_NONE)
		p->link_bps = (uint64_t)link.link_speed * 1000000ull;
	return 0;
}

size_t rp_dp_port_max_frame(const char *devargs)
{
	char name[64];
	uint16_t id;
	struct rte_eth_dev_info info;
	port_name(devargs, name, sizeof(name));
	if (rp_dp_is_pair(devargs))
		return 0; /* rings take any mbuf */
	if (rte_eth_dev_get_port_by_name(name, &id) != 0 || rte_eth_dev_info_get(id, &info) != 0 ||
	    info.max_rx_pktlen <= RTE_ETHER_CRC_LEN)
		return 0;
	return info.max_rx_pktlen - RTE_ETHER_CRC_LEN;
}

void rp_dp_port_read_drops(const struct rp_dp_port *p, struct rp_dp_port_drops *out)
{
	struct rte_eth_stats st;
	*out = (struct rp_dp_port_drops){0};
	if (rte_eth_stats_get(p->id, &st) == 0) {
		out->missed = st.imissed + st.rx_nombuf;
		out->oerrors = st.oerrors;
	}
}

void rp_dp_port_close(struct rp_dp_port *p)
{
	if (p->started) {
		rte_eth_dev_stop(p->id);
		rte_eth_dev_close(p->id);
		p->started = false;
	}
}

static bool pause_counter(const char *name)
{
	return strcasestr(name, "pause") || strcasestr(name, "pfc");
}

unsigned rp_dp_port_pause_xstats(const struct rp_dp_port *p, struct rp_dp_xstat *out, unsigned max)
{
	int n = rte_eth_xstats_get_names(p->id, NULL, 0);
	if (n <= 0)
		return 0;
	struct rte_eth_xstat_name *names = calloc((size_t)n, sizeof(*names));
	struct rte_eth_xstat *vals = calloc((size_t)n, sizeof(*vals));
	unsigned k = 0;
	if (names && vals && rte_eth_xstats_get_names(p->id, names, (unsigned)n) == n &&
	    rte_eth_xstats_get(p->id, vals, (unsigned)n) == n) {
		for (int i = 0; i < n && k < max; i++) {
			if (!pause_counter(names[vals[i].id].name))
				continue;
			snprintf(out[k].name, sizeof(out[k].name), "%s", names[vals[i].id].name);
			out[k++].value = vals[i].value;
		}
	}
	free(names);
	free(vals);
	return k;
}
