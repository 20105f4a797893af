/* The capture command's RX loop (capture_rx.h). */
#include "capture_rx.h"

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#define BURST 32
#define CLASSIFY_MIN 128 /* bytes read from a segmented mbuf: enough headers to classify */
#define NS 1000000000ull

/* A segmented mbuf is copied out far enough to classify and keep. */
static void offer_mbuf(struct rp_dp_capture_rx *rx, const struct rte_mbuf *m, uint64_t now, unsigned snaplen)
{
	uint32_t avail = rte_pktmbuf_data_len(m);
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	if (m->nb_segs > 1 && avail < snaplen + CLASSIFY_MIN) {
		uint32_t want = snaplen > CLASSIFY_MIN ? snaplen : CLASSIFY_MIN;
		avail = want < rte_pktmbuf_pkt_len(m) ? want : rte_pktmbuf_pkt_len(m);
		p = rte_pktmbuf_read(m, 0, avail, rx->linear);
	}
	rp_capture_offer_cut(rx->cap, now, rx->port->id, false, p, avail, rte_pktmbuf_pkt_len(m));
}

void rp_dp_capture_run(struct rp_dp_capture_rx *rx)
{
	struct rte_mbuf *m[BURST];
	unsigned snaplen = rx->snaplen ? rx->snaplen : RP_CAPTURE_SNAPLEN_DEFAULT;
	uint64_t next_progress = NS;
	rx->received = 0;
	for (;;) {
		uint64_t now = rp_dp_now_ns();
		if ((rx->stop && *rx->stop) || (rx->duration_ns && now >= rx->duration_ns) ||
		    (rx->count && rx->received >= rx->count))
			break;
		uint16_t n = rte_eth_rx_burst(rx->port->id, 0, m, BURST);
		if (n) /* their arrival: after the burst, not before it (gen.c poll_rx) */
			now = rp_dp_now_ns();
		for (uint16_t i = 0; i < n; i++)
			if (!rx->count || rx->received + i < rx->count)
				offer_mbuf(rx, m[i], now, snaplen);
		rx->received += n;
		if (n)
			rte_pktmbuf_free_bulk(m, n);
		if (now >= next_progress) {
			if (rx->progress)
				rx->progress(rx->progress_arg, now);
			next_progress += NS;
		}
	}
	if (rx->count && rx->received > rx->count)
		rx->received = rx->count; /* the rest of the last burst was not looked at */
	rx->end_ns = rp_dp_now_ns();
	if (rx->progress)
		rx->progress(rx->progress_arg, rx->end_ns); /* the last, partial second */
}
