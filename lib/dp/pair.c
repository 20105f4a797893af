/* "pair:NAME:0" and "pair:NAME:1": the two ends of an in-process link made of
 * rte_rings, each end's TX being the other's RX. Unlike a net_ring vdev
 * (one ring shared by RX and TX), a frame sent on one end only ever arrives
 * at the other, so a sender can poll its own RX for PFC without stealing the
 * receiver's data.
 *
 * With N queues (run --lcores N) each direction is N rings, one per RX
 * queue of the receiving end, and the sending side spreads frames over them
 * as a NIC's RSS would: the Toeplitz hash (the usual 40-byte key) of the UDP
 * source port, through a 128-entry redirection table filled i % N; frames
 * without a UDP header (PFC, PAUSE, ARP, ND) go to queue 0, where a NIC puts
 * what it cannot hash. Any lcore may send into any ring: multi-producer
 * rings, one consumer each (the lcore that polls that RX queue). */
#include <rte_bus_vdev.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_thash.h>
#include <stdio.h>
#include <string.h>

#include "dp.h"
#include "profile/profile.h"
#include "wire/classify.h"

#define PAIR_RING_SIZE 4096
#define RETA_SIZE 128
#define RP_DP_PAIR_TX_MAX 64 /* frames per call; the rest are left to the next */

static const uint8_t rss_key[40] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
	0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
	0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

bool rp_dp_is_pair(const char *devargs)
{
	char link[RP_PAIR_LINK_MAX + 1];
	int side;
	return rp_pair_parse(devargs, link, &side) != 0;
}

/* The rings made, for rp_dp_pair_release (each link's, once). */
static struct rte_ring *made[2 * RP_DP_MAX_PORTS * RP_DP_MAX_QUEUES];
static unsigned nmade;
static char ports[RP_DP_MAX_PORTS][RTE_ETH_NAME_MAX_LEN]; /* the ring PMD's devices (net_ring_pair:...) */
static unsigned nports;

void rp_dp_pair_release(void)
{
	void *m[64];
	for (unsigned i = 0; i < nports; i++)
		rte_vdev_uninit(ports[i]);
	nports = 0;
	for (unsigned i = 0; i < nmade; i++) {
		unsigned n;
		while ((n = rte_ring_dequeue_burst(made[i], m, 64, NULL)) > 0)
			rte_pktmbuf_free_bulk((struct rte_mbuf **)m, n);
		rte_ring_free(made[i]);
	}
	nmade = 0;
}

static struct rte_ring *pair_ring(const char *link, int from, unsigned q, unsigned nq, char *err, size_t errlen)
{
	char name[RTE_RING_NAMESIZE];
	if (q == 0)
		snprintf(name, sizeof(name), "rp%.20s_%d", link, from);
	else
		snprintf(name, sizeof(name), "rp%.16s_%d_%u", link, from, q);
	struct rte_ring *r = rte_ring_lookup(name);
	/* One queue: one lcore sends and receives (single producer); more: any
	 * lcore's TX may pick any ring. */
	unsigned flags = nq > 1 ? RING_F_SC_DEQ : RING_F_SP_ENQ | RING_F_SC_DEQ;
	if (!r && (r = rte_ring_create(name, PAIR_RING_SIZE, (int)rte_socket_id(), flags)) &&
	    nmade < sizeof(made) / sizeof(made[0]))
		made[nmade++] = r;
	if (!r)
		snprintf(err, errlen, "cannot create ring %s for %s", name, link);
	return r;
}

int rp_dp_pair_create(const char *devargs, unsigned nq, uint16_t *port_id, void **to_peer_out, char *err,
		      size_t errlen)
{
	char link[RP_PAIR_LINK_MAX + 1];
	int side;
	if (rp_pair_parse(devargs, link, &side) != 1) { /* the profile checked it already */
		snprintf(err, errlen, "port '%s': expected pair:LINK:0 or pair:LINK:1", devargs);
		return -1;
	}
	if (nq == 0 || nq > RP_DP_MAX_QUEUES) {
		snprintf(err, errlen, "port '%s': %u queues, at most %u", devargs, nq, RP_DP_MAX_QUEUES);
		return -1;
	}
	struct rte_ring *to_peer[RP_DP_MAX_QUEUES], *from_peer[RP_DP_MAX_QUEUES];
	for (unsigned q = 0; q < nq; q++) {
		to_peer[q] = pair_ring(link, side, q, nq, err, errlen);
		from_peer[q] = pair_ring(link, !side, q, nq, err, errlen);
		if (!to_peer[q] || !from_peer[q])
			return -1;
		to_peer_out[q] = to_peer[q];
	}
	int id = rte_eth_from_rings(devargs, from_peer, nq, to_peer, nq, (unsigned)rte_socket_id());
	if (id < 0) {
		snprintf(err, errlen, "port '%s': cannot make a ring port", devargs);
		return -1;
	}
	*port_id = (uint16_t)id;
	if (nports < RP_DP_MAX_PORTS && rte_eth_dev_get_name_by_port(*port_id, ports[nports]) == 0)
		nports++;
	return 0;
}

unsigned rp_dp_rss_queue(const uint8_t *frame, size_t len, unsigned nq)
{
	size_t udp = rp_cls_udp(frame, len);
	if (nq <= 1 || !udp)
		return 0;
	uint32_t tuple = (uint32_t)rp_get_be16(frame + udp) << 16; /* source port, destination port left out */
	uint32_t hash = rte_softrss(&tuple, 1, rss_key);
	return (hash % RETA_SIZE) % nq;
}

/* In order: each frame to the ring of its queue, runs of one queue in one
 * burst; stops at the first frame a ring refuses, as a PMD's TX stops at a
 * full queue, so the caller retries the rest in order. */
uint16_t rp_dp_pair_tx(const struct rp_dp_port *p, struct rte_mbuf **m, uint16_t n)
{
	uint8_t qs[RP_DP_PAIR_TX_MAX];
	if (n > RP_DP_PAIR_TX_MAX)
		n = RP_DP_PAIR_TX_MAX;
	for (uint16_t i = 0; i < n; i++)
		qs[i] = (uint8_t)rp_dp_rss_queue(rte_pktmbuf_mtod(m[i], const uint8_t *), rte_pktmbuf_data_len(m[i]), p->nq);
	uint16_t sent = 0;
	while (sent < n) {
		uint16_t run = 1;
		while (sent + run < n && qs[sent + run] == qs[sent])
			run++;
		unsigned got = rte_ring_enqueue_burst(p->pair_ring[qs[sent]], (void **)(m + sent), run, NULL);
		sent += (uint16_t)got;
		if (got < run)
			break;
	}
	return sent;
}
