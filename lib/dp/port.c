#include <errno.h>
#include <net/if.h>
#include <pcap/pcap.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters/ctr_names.h"
#include "dp.h"
#include "netdev.h"

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

/* net_af_packet (DPDK 22.11, drivers/net/af_packet): it says max_rx_pktlen
 * 1518 whatever it can do, and rte_eth_dev_set_mtu is refused above 1500 by
 * ethdev for that reason; what really bounds a frame is the ring frame size
 * (devargs framesz, default 2048: RX copies at most framesz - 66 bytes, the
 * tpacket2 header and sockaddr_ll in front; TX silently drops frames longer
 * than framesz - 32) and the kernel interface's MTU. */
#define AFP_DEFAULT_FRAMESZ 2048u
#define AFP_RX_OVERHEAD 66u /* TPACKET_ALIGN(TPACKET2_HDRLEN + 16) - 14: where the MAC header lands */
#define AFP_TX_OVERHEAD 32u /* TPACKET2_HDRLEN - sizeof(struct sockaddr_ll) */

bool rp_dp_is_af_packet(const char *devargs)
{
	return strncmp(devargs, "net_af_packet", 13) == 0;
}

bool rp_dp_is_af_xdp(const char *devargs)
{
	return strncmp(devargs, "net_af_xdp", 10) == 0;
}

bool rp_dp_devarg_next(const char *devargs, const char *key, const char **at, char *val, size_t n)
{
	char pat[32];
	snprintf(pat, sizeof(pat), ",%s=", key);
	const char *p = strstr(*at ? *at + 1 : devargs, pat);
	if (!p)
		return false;
	*at = p;
	p += strlen(pat);
	size_t len = strcspn(p, ",");
	if (len >= n)
		len = n - 1;
	memcpy(val, p, len);
	val[len] = '\0';
	return true;
}

/* The first key=N of devargs, else dflt. */
static unsigned devarg_uint(const char *devargs, const char *key, unsigned dflt)
{
	char v[32];
	const char *at = NULL;
	return rp_dp_devarg_next(devargs, key, &at, v, sizeof(v)) ? (unsigned)strtoul(v, NULL, 0) : dflt;
}

/* How many times key= is given (net_pcap takes rx_pcap= once per RX queue). */
static unsigned devarg_count(const char *devargs, const char *key)
{
	char v[8];
	unsigned n = 0;
	for (const char *at = NULL; rp_dp_devarg_next(devargs, key, &at, v, sizeof(v));)
		n++;
	return n;
}

/* The kernel interface's flags (sysfs, IFF_*), 0 when unknown. */
static unsigned iface_flags(const char *devargs)
{
	char name[64], path[128];
	const char *p = strstr(devargs, ",iface=");
	unsigned flags = 0;
	if (!p)
		return 0;
	p += 7;
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(p, ","), p);
	snprintf(path, sizeof(path), "/sys/class/net/%s/flags", name);
	FILE *f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%x", &flags) != 1)
			flags = 0;
		fclose(f);
	}
	return flags;
}

/* The kernel interface's MTU (sysfs), 0 when unknown. */
static unsigned iface_mtu(const char *devargs)
{
	char name[64], path[128];
	const char *p = strstr(devargs, ",iface=");
	if (!p)
		return 0;
	p += 7;
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(p, ","), p);
	snprintf(path, sizeof(path), "/sys/class/net/%s/mtu", name);
	FILE *f = fopen(path, "r");
	unsigned mtu = 0;
	if (f) {
		if (fscanf(f, "%u", &mtu) != 1)
			mtu = 0;
		fclose(f);
	}
	return mtu;
}

const char *rp_dp_devargs_fit(const char *devargs, size_t max_frame, char *out, size_t n)
{
	if (!rp_dp_is_af_packet(devargs) || strstr(devargs, "framesz=") || max_frame + AFP_RX_OVERHEAD <= AFP_DEFAULT_FRAMESZ)
		return devargs;
	unsigned f = AFP_DEFAULT_FRAMESZ;
	while (f < max_frame + AFP_RX_OVERHEAD)
		f *= 2;
	/* blocksz: a multiple of the page size holding whole frames. */
	unsigned block = devarg_uint(devargs, "blocksz", 4096);
	if (block < f)
		block = f;
	snprintf(out, n, "%s,framesz=%u", devargs, f);
	if (!strstr(devargs, "blocksz="))
		snprintf(out + strlen(out), n - strlen(out), ",blocksz=%u", block);
	return out;
}

static bool devargs_is(const char *devargs, const char *pmd)
{
	return strncmp(devargs, pmd, strlen(pmd)) == 0;
}

/* net_tap (DPDK 22.11) says max_rx_pktlen 1522 too, so ethdev refuses an
 * MTU above 1504, and its TX stops at the first frame longer than that MTU
 * + 22 B (pmd_tx_burst's max_size): the kernel tap interface's MTU cannot
 * help. Measured: mtu 4096 through a tap bridged to a router, every 4170 B
 * frame refused (the ARP went through). */
size_t rp_dp_port_frame_limit(const char *devargs, char *why, size_t whylen, char *fix, size_t fixlen)
{
	size_t pmd = rp_dp_port_max_frame(devargs);
	if (why && whylen)
		why[0] = '\0';
	if (fix && fixlen)
		fix[0] = '\0';
	if (devargs_is(devargs, "net_tap")) {
		if (why)
			snprintf(why, whylen, "net_tap sends nothing longer than its ethdev MTU + 22 B, and ethdev caps that "
				 "MTU at 1504 (its max_rx_pktlen 1522, DPDK 22.11)");
		if (fix)
			snprintf(fix, fixlen, "or use net_af_packet on the tap's kernel interface or a veth "
				 "(net_af_packetN,iface=...), whose ring frames follow the profile");
		return pmd;
	}
	if (devargs_is(devargs, "net_af_xdp")) {
		unsigned mtu = iface_mtu(devargs);
		if (mtu && mtu + RTE_ETHER_HDR_LEN < pmd) {
			if (why)
				snprintf(why, whylen, "its interface's MTU is %u", mtu);
			if (fix)
				snprintf(fix, fixlen, "or raise it: ip link set dev IFACE mtu N makes frames of N + 14 B (XDP "
					 "on a veth takes N up to about 3500)");
			return mtu + RTE_ETHER_HDR_LEN;
		}
		if (why)
			snprintf(why, whylen, "net_af_xdp puts a frame in one UMEM page of 4 KiB less its headroom (DPDK "
				 "22.11 has no multi-buffer AF_XDP)");
		if (fix)
			snprintf(fix, fixlen, "or use net_af_packet on the same interface (net_af_packetN,iface=...), whose "
				 "ring frames follow the profile");
		return pmd;
	}
	if (!rp_dp_is_af_packet(devargs)) {
		uint16_t id;
		struct rte_eth_dev_info info;
		char name[64];
		port_name(devargs, name, sizeof(name));
		if (pmd && rte_eth_dev_get_port_by_name(name, &id) == 0 && rte_eth_dev_info_get(id, &info) == 0) {
			/* A NIC's MTU counts from the IP header: frames of max_mtu + 14 B. */
			if (info.max_mtu != UINT16_MAX && (size_t)info.max_mtu + RTE_ETHER_HDR_LEN < pmd)
				pmd = (size_t)info.max_mtu + RTE_ETHER_HDR_LEN;
			if (why)
				snprintf(why, whylen, "the device's largest MTU is %u (max_rx_pktlen %u)", info.max_mtu,
					 info.max_rx_pktlen);
			if (fix)
				snprintf(fix, fixlen, "or use a NIC (or firmware) that takes longer frames");
		}
		return pmd;
	}
	unsigned framesz = devarg_uint(devargs, "framesz", AFP_DEFAULT_FRAMESZ), mtu = iface_mtu(devargs);
	size_t ring = framesz > AFP_RX_OVERHEAD ? framesz - AFP_RX_OVERHEAD : 0;
	if (mtu && mtu + RTE_ETHER_HDR_LEN < ring) {
		if (why)
			snprintf(why, whylen, "its interface's MTU is %u", mtu);
		if (fix)
			snprintf(fix, fixlen, "or raise it: ip link set dev IFACE mtu N makes frames of N + 14 B");
		return mtu + RTE_ETHER_HDR_LEN;
	}
	if (why)
		snprintf(why, whylen, "its ring frame size is %u (devargs framesz=)", framesz);
	if (fix)
		snprintf(fix, fixlen, "or drop framesz= from the devargs (roceprobe sizes the ring frames itself)");
	return ring;
}

/* net_pcap with infinite_rx=1 keeps every frame of its rx_pcap files in
 * mbufs of the port's pool, and refuses the queue when the pool holds fewer
 * ("Not enough mbufs to accommodate packets in pcap file"): their frames,
 * counted here (a file libpcap cannot read counts none: the PMD says why). */
static unsigned replay_frames(const char *devargs)
{
	if (!devargs_is(devargs, "net_pcap") || devarg_uint(devargs, "infinite_rx", 0) == 0)
		return 0;
	unsigned n = 0;
	char file[4096], ebuf[PCAP_ERRBUF_SIZE];
	for (const char *at = NULL; rp_dp_devarg_next(devargs, "rx_pcap", &at, file, sizeof(file));) {
		pcap_t *pc = pcap_open_offline(file, ebuf);
		struct pcap_pkthdr *h;
		const u_char *d;
		while (pc && n < UINT32_MAX / 2 && pcap_next_ex(pc, &h, &d) == 1)
			n++;
		if (pc)
			pcap_close(pc);
	}
	return n;
}

static struct rte_mempool *make_pool(const char *port, unsigned n_rxq, unsigned n_txq, size_t max_frame, int socket,
				     unsigned replay)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	snprintf(name, sizeof(name), "rp_%.20s", port);
	size_t room = max_frame + RTE_PKTMBUF_HEADROOM + RP_DP_TX_SHIFT; /* TX frames start up to that much later */
	if (room < RTE_MBUF_DEFAULT_BUF_SIZE)
		room = RTE_MBUF_DEFAULT_BUF_SIZE;
	unsigned n = (RX_DESC * n_rxq + TX_DESC * n_txq) * 2 + POOL_CACHE * RTE_MAX_LCORE / 32 + replay;
	return rte_pktmbuf_pool_create(name, n, POOL_CACHE, 0, (uint16_t)room, socket);
}

static void zero_room(struct rte_mempool *mp, void *arg, void *obj, unsigned idx)
{
	(void)arg;
	(void)idx;
	struct rte_mbuf *m = obj;
	memset(m->buf_addr, 0, m->buf_len);
	(void)mp;
}

void *rp_dp_port_shape_pool(const struct rp_dp_port *p, size_t len, unsigned head)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	snprintf(name, sizeof(name), "rpk%u_%zu_%u", p->id, len, head);
	struct rte_mempool *mp = rte_mempool_lookup(name);
	if (mp)
		return mp;
	size_t room = len + RP_DP_KEPT_SLACK + RP_DP_TX_SHIFT + RTE_PKTMBUF_HEADROOM;
	struct rte_eth_dev_info info;
	if (rte_eth_dev_info_get(p->id, &info) != 0)
		return NULL;
	/* As many as the port's own pool when the memory is there; else fewer,
	 * down to twice what its TX rings hold (a frame in flight waits there)
	 * plus the lcore caches: many ports with several shapes each can ask
	 * for more than -m gives, and a smaller pool only makes the sender wait
	 * for a free mbuf sooner. */
	unsigned n = (RX_DESC + TX_DESC * info.nb_tx_queues) * 2 + POOL_CACHE * RTE_MAX_LCORE / 32; /* as make_pool */
	unsigned floor = TX_DESC * info.nb_tx_queues * 2 + POOL_CACHE * 4;
	int socket = p->socket >= 0 ? p->socket : (int)rte_socket_id();
	mp = rte_pktmbuf_pool_create(name, n, POOL_CACHE, 0, (uint16_t)room, socket);
	if (!mp && n > floor)
		mp = rte_pktmbuf_pool_create(name, floor, POOL_CACHE, 0, (uint16_t)room, socket);
	if (mp)
		rte_mempool_obj_iter(mp, zero_room, NULL);
	return mp;
}

/* The cache lines bytes [from, to) touch, from a line's start. */
static unsigned lines(size_t from, size_t to)
{
	return (unsigned)((to - 1) / RTE_CACHE_LINE_SIZE - from / RTE_CACHE_LINE_SIZE + 1);
}

static bool crosses(size_t from, size_t to)
{
	return lines(from, to) > 1;
}

/* A mempool's objects and so the mbufs' data rooms (buf_addr + headroom)
 * start on a cache line: offsets count from one. */
unsigned rp_dp_kept_offset(size_t len, unsigned head)
{
	unsigned best = 0, best_cost = UINT32_MAX;
	for (unsigned s = 0; s < RP_DP_TX_SHIFT; s += 16) {
		unsigned cost = 4 * (lines(s, s + head) + lines(s + len - 4, s + len)) + crosses(s + len - 4, s + len);
		if (head >= 16)
			cost += crosses(s + head - 16, s + head - 8) + crosses(s + head - 8, s + head);
		if (cost < best_cost) {
			best_cost = cost;
			best = s;
		}
	}
	return best;
}

/* Why devargs gave no port: the interface it names (iface=) missing on this
 * machine, or else the PMD / the NIC's binding. */
static void no_port(const char *devargs, const char *name, char *err, size_t errlen)
{
	char ifname[IF_NAMESIZE], e[256];
	if (rp_dp_port_netdev(devargs, false, ifname, sizeof(ifname), e, sizeof(e)) == 0 && !if_nametoindex(ifname))
		snprintf(err, errlen, "no DPDK port '%s': its interface '%s' does not exist on this machine (ip link)", name,
			 ifname);
	else
		snprintf(err, errlen, "no DPDK port '%s' (is the PMD installed, the NIC bound to vfio-pci?)", name);
}

/* RSS on the UDP source port (RoCE flows differ in it, the port entropy):
 * the UDP hash types the PMD offers, only the source port where it can. */
static void rss_conf(const struct rte_eth_dev_info *info, unsigned n_rxq, struct rte_eth_conf *conf, bool *rss)
{
	uint64_t udp = info->flow_type_rss_offloads & (RTE_ETH_RSS_NONFRAG_IPV4_UDP | RTE_ETH_RSS_NONFRAG_IPV6_UDP);
	*rss = n_rxq > 1 && udp;
	if (!*rss)
		return;
	conf->rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
	conf->rx_adv_conf.rss_conf.rss_key = NULL; /* the PMD's default key */
	conf->rx_adv_conf.rss_conf.rss_hf = udp | (info->flow_type_rss_offloads & RTE_ETH_RSS_L4_SRC_ONLY);
}

/* (dp.h) The lost frames of a queue nobody polls: qpairs=2 under run
 * counted 300 of 400 frames lost on a veth that lost none. */
bool rp_dp_unpolled_queues(const char *devargs, const char *name, unsigned pmd_rxq, unsigned n_rxq, char *err,
			   size_t errlen)
{
	bool afp = rp_dp_is_af_packet(devargs), xdp = devargs_is(devargs, "net_af_xdp");
	bool pcap = devargs_is(devargs, "net_pcap");
	unsigned set = afp ? devarg_uint(devargs, "qpairs", 1) : xdp ? devarg_uint(devargs, "queue_count", 1) : 0;
	if (pcap) /* one RX queue per stream; iface= is one in each direction */
		set = devarg_count(devargs, "rx_pcap") + devarg_count(devargs, "rx_iface") +
		      devarg_count(devargs, "rx_iface_in") + devarg_count(devargs, "iface");
	if (afp && set > 1) /* the fanout hash is not the RSS each lcore's share is made by */
		snprintf(err, errlen, "port %s: qpairs=%u spreads the interface's frames over %u sockets by the kernel's "
			 "fanout hash: drop qpairs= (one socket reads them all; --lcores still spreads the work)",
			 name, set, set);
	else if (xdp && set > n_rxq && pmd_rxq > n_rxq)
		snprintf(err, errlen, "port %s: queue_count=%u takes the frames of %u NIC queues and %u %s polled "
			 "(the others' would go unread, counted lost): set queue_count=%u, or run --lcores %u",
			 name, set, set, n_rxq, n_rxq == 1 ? "is" : "are", n_rxq, set);
	else if (pcap && set > n_rxq)
		snprintf(err, errlen, "port %s: %u RX streams (rx_pcap=, rx_iface=, iface=) and %u %s polled: the "
			 "others' frames would never be read: give it at most %u (merge files first: mergecap -w "
			 "all.pcap a.pcap b.pcap), or poll %u (run --lcores %u)", name, set, n_rxq, n_rxq == 1 ? "is" : "are",
			 n_rxq, set, set);
	else
		return false;
	return true;
}

int rp_dp_port_open(const char *devargs, unsigned n_rxq, unsigned n_txq, size_t max_frame,
		    const struct rp_dp_port_want *want, struct rp_dp_port *p, char *err, size_t errlen)
{
	memset(p, 0, sizeof(*p));
	port_name(devargs, p->name, sizeof(p->name));
	p->nq = n_rxq;
	if (rp_dp_is_pair(devargs)) {
		snprintf(p->name, sizeof(p->name), "%s", devargs);
		if (rp_dp_pair_create(devargs, n_rxq, &p->id, p->pair_ring, err, errlen) != 0)
			return -1;
		p->rss = n_rxq > 1; /* spread on the TX side of the peer (pair.c) */
	} else if (rte_eth_dev_get_port_by_name(p->name, &p->id) != 0) {
		no_port(devargs, p->name, err, errlen);
		return -1;
	}
	struct rte_eth_dev_info info;
	if (rte_eth_dev_info_get(p->id, &info) != 0) {
		snprintf(err, errlen, "port %s: cannot read device info", p->name);
		return -1;
	}
	snprintf(p->driver, sizeof(p->driver), "%s", info.driver_name);
	if (rp_dp_unpolled_queues(devargs, p->name, info.max_rx_queues, n_rxq, err, errlen))
		return -1;
	/* As many queue pairs as the PMD has, when it has fewer than asked
	 * (run --lcores N on a one-queue PMD: p->nq says how many). */
	unsigned most = info.max_rx_queues < info.max_tx_queues ? info.max_rx_queues : info.max_tx_queues;
	if (n_rxq == n_txq && n_rxq > most && most >= 1 && !rp_dp_is_pair(devargs))
		n_rxq = n_txq = p->nq = most;
	if (n_txq > info.max_tx_queues || n_rxq > info.max_rx_queues) {
		snprintf(err, errlen, "port %s (%s) has %u RX and %u TX queues, %u and %u asked%s", p->name, p->driver,
			 info.max_rx_queues, info.max_tx_queues, n_rxq, n_txq,
			 devargs_is(devargs, "net_af_xdp") ? " (net_af_xdp: add queue_count=N to its devargs)"
							     : " (use fewer --lcores)");
		return -1;
	}
	/* Mbufs and queues on the port's socket (a vdev says SOCKET_ID_ANY: the caller's). */
	p->socket = rte_eth_dev_socket_id(p->id);
	int socket = p->socket >= 0 ? p->socket : (int)rte_socket_id();
	/* net_af_packet refuses an RX queue whose mbufs are shorter than its ring frames. */
	size_t room = max_frame;
	if (rp_dp_is_af_packet(devargs) && devarg_uint(devargs, "framesz", AFP_DEFAULT_FRAMESZ) - AFP_TX_OVERHEAD > room)
		room = devarg_uint(devargs, "framesz", AFP_DEFAULT_FRAMESZ) - AFP_TX_OVERHEAD;
	unsigned replay = replay_frames(devargs);
	p->pool = make_pool(p->name, n_rxq, n_txq, room, socket, replay);
	if (!p->pool) {
		snprintf(err, errlen, "port %s: cannot allocate mbufs (%s)%s; give the EAL more memory (-m)%s", p->name,
			 rte_strerror(rte_errno), replay ? " for infinite_rx=1, which keeps every frame of its files" : "",
			 replay ? " or replay a shorter capture" : "");
		return -1;
	}
	/* An af_xdp port's netdev (a NIC the kernel keeps using, with --share) gets its
	 * IFF_PROMISC back at close: read before the start (which clears it, ethdev's
	 * promiscuous state being off until rte_eth_promiscuous_enable). */
	p->promisc_restore = devargs_is(devargs, "net_af_xdp") && !(iface_flags(devargs) & IFF_PROMISC);
	/* Shared with the kernel: isolated before configure (mlx5 takes it only
	 * then); net_tap once its queues exist (flow.c rp_dp_isolate_after_queues);
	 * net_af_xdp is shared by the XDP program its devargs name instead (xdp.h). */
	bool share = want && rp_dp_share_wanted(want->share, p->driver) && !rp_dp_is_af_xdp(devargs);
	bool late = rp_dp_isolate_after_queues(p->driver);
	if (share && !late && rp_dp_port_isolate(p, err, errlen) != 0)
		return -1;
	struct rte_eth_conf conf;
	memset(&conf, 0, sizeof(conf));
	if (!rp_dp_is_pair(devargs))
		rss_conf(&info, n_rxq, &conf, &p->rss);
	if (want && (rp_dp_rx_stamps_conf(p, devargs, want->rx_clock, &info, &conf, err, errlen) != 0 ||
		     rp_dp_tx_sched_conf(p, want->tx_start, &info, &conf, err, errlen) != 0))
		return -1;
	int rc = rte_eth_dev_configure(p->id, (uint16_t)n_rxq, (uint16_t)n_txq, &conf);
	/* The MTU from the profile's longest frame. Virtual PMDs take any frame
	 * and some refuse the call: only a NIC's refusal counts. net_af_packet:
	 * ethdev refuses any MTU above 1500 (max_rx_pktlen 1518); its ring frames
	 * (framesz) and the interface's MTU bound the frame instead, checked
	 * before (rp_dp_port_frame_limit); net_tap cannot carry more. */
	unsigned mtu = (unsigned)(max_frame - RTE_ETHER_HDR_LEN);
	if (mtu > info.max_mtu) /* the frames fit (rp_dp_port_frame_limit): max_frame has slack */
		mtu = info.max_mtu;
	/* net_af_xdp sets its interface's MTU: raised when short, never lowered. */
	bool iface_fits = devargs_is(devargs, "net_af_xdp") && iface_mtu(devargs) >= mtu;
	if (rc == 0 && max_frame > RTE_ETHER_MAX_LEN && mtu > RTE_ETHER_MTU && !rp_dp_is_af_packet(devargs) &&
	    !devargs_is(devargs, "net_tap") && !iface_fits) {
		rc = rte_eth_dev_set_mtu(p->id, (uint16_t)mtu);
		if (rc == -ENOTSUP)
			rc = 0;
		if (rc != 0) {
			snprintf(err, errlen, "port %s (%s) refused MTU %u (rte_eth_dev_set_mtu: %s)", p->name, p->driver,
				 mtu, rte_strerror(-rc));
			return -1;
		}
	}
	for (unsigned q = 0; rc == 0 && q < n_rxq; q++)
		rc = rte_eth_rx_queue_setup(p->id, (uint16_t)q, RX_DESC, (unsigned)socket, NULL, p->pool);
	for (unsigned q = 0; rc == 0 && q < n_txq; q++)
		rc = rte_eth_tx_queue_setup(p->id, (uint16_t)q, TX_DESC, (unsigned)socket, NULL);
	if (rc == 0 && share && late && rp_dp_port_isolate(p, err, errlen) != 0)
		return -1;
	if (rc == 0)
		rc = rte_eth_dev_start(p->id);
	if (rc != 0 && devargs_is(devargs, "net_af_xdp") && iface_mtu(devargs) > 3500) {
		snprintf(err, errlen, "port %s (%s): setup failed: %s; XDP refuses an interface MTU of %u (on a veth "
			 "at most about 3500: ip link set dev IFACE mtu 3500)", p->name, p->driver, rte_strerror(-rc),
			 iface_mtu(devargs));
		return -1;
	}
	if (rc != 0) {
		snprintf(err, errlen, "port %s (%s): setup failed: %s", p->name, p->driver, rte_strerror(-rc));
		return -1;
	}
	p->started = true;
	rp_dp_rx_stamps_started(p);
	rp_dp_tx_sched_started(p);
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

void rp_dp_port_mac(const struct rp_dp_port *p, uint8_t mac[6])
{
	struct rte_ether_addr a;
	memset(&a, 0, sizeof(a));
	rte_eth_macaddr_get(p->id, &a);
	memcpy(mac, a.addr_bytes, 6);
}

bool rp_dp_port_is_wire(const struct rp_dp_port *p)
{
	return strcmp(p->driver, "net_ring") && strcmp(p->driver, "net_null") && strcmp(p->driver, "net_pcap");
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
		rp_dp_port_unsteer(p);
		if (p->promisc_restore)
			rte_eth_promiscuous_disable(p->id);
		rte_eth_dev_stop(p->id);
		rte_eth_dev_close(p->id);
		p->started = false;
	}
}

/* What run keeps of a port's xstats: the pause counters (pause_xstats) and
 * the names lib/counters' vocabulary knows (xstats). */
static bool kept_counter(const char *name)
{
	struct rp_ctr_key k;
	return rp_ctr_is_pause(name) || rp_ctr_key(RP_CTR_DPDK, name, &k);
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
			if (!kept_counter(names[vals[i].id].name))
				continue;
			snprintf(out[k].name, sizeof(out[k].name), "%s", names[vals[i].id].name);
			out[k++].value = vals[i].value;
		}
	}
	free(names);
	free(vals);
	return k;
}
