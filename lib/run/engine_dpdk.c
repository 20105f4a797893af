/* The DPDK engine: this rank's hosts on their ports, polled by lcores
 * (lib/dp's generator and receivers), on the TSC's packet clock. */
#include "engine.h"
#include "stats/acct.h"
#include "traffic/source.h"

/* Captures take their timestamps from the packet clock: it runs from here
 * (restarted at T0). */
static int dpdk_setup(struct rp_run *r)
{
	(void)r;
	rp_dp_clock_start();
	return 0;
}

/* ARP/ND before traffic, into the captures too; then the sources. */
static int dpdk_prepare(struct rp_run *r)
{
	struct rp_capture *caps[RP_DP_MAX_PORTS];
	for (unsigned i = 0; i < r->s.nports; i++) {
		caps[i] = r->rx[0].ports[r->s.tx[i].index].cap;
		rp_txpath_begin(&r->txpath[i], &r->s, i); /* before its first frame, ARP/ND included */
	}
	return rp_session_traffic(&r->s, caps);
}

/* Plan time 0 at T0 on this rank's corrected clock: the packet clock starts
 * as many ns ago as the rank is late now, from one reading of both clocks
 * (rp_dp_clock_start_on: a reader the CPU is taken from retries). How far
 * it started off is kept, and again after the run how far it has gone
 * (the TSC's rate against the system clock's): both enter the bound. */
static void dpdk_start(struct rp_run *r)
{
	r->pclock_gap[0] = rp_dp_clock_start_on(rp_run_corrected_ns, r, r->t0_ns);
	for (unsigned i = 0; i < r->s.nports; i++) { /* RX stamps moved to the packet clock from T0 on */
		rp_dp_rx_stamps_arm(&r->s.ports[i]);
		rp_dp_tx_sched_arm(&r->s.ports[i]); /* the first frames' NIC time: T0 + the lead */
	}
}

static int dpdk_run(struct rp_run *r, char *err, size_t errlen)
{
	(void)err, (void)errlen; /* the generator says its own */
	return rp_dp_gen_run(&r->s.g) != 0 ? RP_RUN_USAGE : 0;
}

static void dpdk_stop(struct rp_run *r)
{
	for (unsigned i = 0; i < r->s.nports; i++)
		rp_txpath_end(&r->txpath[i], &r->s, i);
}

static void dpdk_after(struct rp_run *r)
{
	if (r->cl.launched)
		r->pclock_gap[1] = rp_dp_clock_gap_ns(rp_run_corrected_ns, r, r->t0_ns);
}

/* What the sources sent: the frames the PMD took and did not count as
 * errors. Those given up after the queue refused them, and its errors where
 * they are known to be this flow's, were stamped but never sent (tx_unsent). */
static void dpdk_account_tx(struct rp_run *r, uint64_t *sent)
{
	size_t n = rp_acct_nflows(r->acct);
	for (size_t i = 0; i < rp_session_nqueues(&r->s); i++) {
		const struct rp_source *src = r->s.tx[i].src;
		for (size_t k = 0; src && k < rp_source_nflows(src); k++) {
			struct rp_source_flow_stats st;
			rp_source_flow_stats(src, k, &st);
			uint64_t stamped = st.probes ? st.probes : st.tx_packets;
			uint64_t unsent = rp_txpath_flow_unsent(&r->txpath[i % r->s.nports], &r->s, (unsigned)i, k);
			uint64_t tx = stamped > unsent ? stamped - unsent : 0;
			uint64_t bytes = st.tx_packets ? st.tx_bytes - st.tx_bytes / st.tx_packets * (stamped - tx) : 0;
			for (size_t a = 0; a < n; a++)
				if (r->flow_of[a] == st.flow_id) {
					rp_acct_set_tx(r->acct, a, tx, bytes);
					sent[a] = tx;
				}
		}
	}
}

const struct rp_run_engine rp_run_engine_dpdk = {
	.name = "dpdk",
	.setup = dpdk_setup,
	.prepare = dpdk_prepare,
	.start = dpdk_start,
	.run = dpdk_run,
	.stop = dpdk_stop,
	.after = dpdk_after,
	.account_tx = dpdk_account_tx,
};
