/* summary.txt's ports (run): what each port received, misdelivered, PFC
 * and paused time by priority; and the misdelivered frames' line. */
#include <inttypes.h>

#include "report/summary.h"

void rp_summary_ports(FILE *f, const struct rp_summary *s)
{
	fprintf(f, "\n%-8s %10s %10s %8s %8s %12s %s\n", "port", "rx", "misdeliv", "PFC rx", "PFC tx", "paused ns",
		"(by priority: paused ns)");
	for (size_t i = 0; i < rp_acct_nports(s->acct); i++) {
		struct rp_acct_port_result p;
		rp_acct_port(s->acct, i, &p);
		if (!p.rx_frames && !p.pfc_frames)
			continue;
		uint64_t paused = 0, pfc_tx = 0, pfc_rx = 0;
		for (int q = 0; q < 8; q++) {
			paused = p.prio[q].paused_ns > paused ? p.prio[q].paused_ns : paused;
			pfc_tx += p.prio[q].pfc_tx;
			pfc_rx += p.prio[q].pfc_rx;
		}
		fprintf(f, "%-8s %10" PRIu64 " %10" PRIu64 " %8" PRIu64 " %8" PRIu64 " %12" PRIu64 " ", p.node, p.rx_frames,
			p.misdelivered, pfc_rx, pfc_tx, paused);
		for (int q = 0; q < 8; q++)
			fprintf(f, "%s%" PRIu64, q ? "/" : "", p.prio[q].paused_ns);
		fputc('\n', f);
	}
}

void rp_summary_misdelivered(FILE *f, const struct rp_summary *s)
{
	uint64_t misdelivered = 0;
	for (size_t i = 0; i < rp_acct_nports(s->acct); i++) {
		struct rp_acct_port_result p;
		rp_acct_port(s->acct, i, &p);
		misdelivered += p.misdelivered;
	}
	if (misdelivered)
		fprintf(f, "\nMISDELIVERED: %" PRIu64 " data frames arrived at a port that is not their destination "
			   "host's and count as lost (misdeliv above): a loopback port (net_ring) or a fabric that "
			   "misroutes\n", misdelivered);
}
