/* An ep report as perftest-style text (docs/verbs.md): the device and path,
 * then the server's clients, a latency table or a bandwidth table, and the
 * NIC counters' change over the run. result.json is ep_json.c's. */
#include "verbs/ep_text.h"

#include <inttypes.h>
#include <stdbool.h>

#include "verbs/counters.h"
#include "stats/hist.h"
#include "verbs/ep_json.h"

static void print_header(FILE *f, const struct rp_ep_report *r)
{
	const struct rp_port_attr *p = &r->port;
	fprintf(f, "%s %s %s on %s:%u (%s, %s", r->server ? "server:" : "client:", rp_op_name(r->cfg.op),
		rp_mode_name(r->cfg.mode), p->dev_name, p->port_num, r->driver, rp_link_layer_name(p->link_layer));
	if (r->gid_index >= 0)
		fprintf(f, ", GID %d %s%s%s, DSCP %u ECN %u", r->gid_index, r->gid, r->netdev[0] ? " on " : "", r->netdev,
			r->cfg.dscp, r->cfg.ecn);
	else
		fprintf(f, ", LID %u, SL %u, no GRH", p->lid, r->cfg.sl);
	fprintf(f, "), path MTU %u, inline %u, %s QPs %u%s\n", r->mtu, r->max_inline, r->cfg.ud ? "UD" : "RC",
		r->cfg.nqp, r->cfg.cm ? " connected by rdma_cm" : "");
}

static void print_lat(FILE *f, const struct rp_ep_report *r)
{
	const struct rp_ep_peer *p = &r->peers[0];
	bool ud = r->cfg.ud;
	fprintf(f, "latency in usec (%s); every sample counted",
		rp_lat_divisor(r->cfg.op) == 2 ? "half round trip, as perftest" : "full round trip");
	if (ud)
		fprintf(f, "; UD: a probe not answered within %.3f s is lost", (double)r->cfg.ud_timeout_ms / 1e3);
	fputc('\n', f);
	fprintf(f, "%9s %9s %9s %9s %9s %9s %9s %9s %9s %9s %9s %9s", "bytes", "samples", "min", "p50", "p90",
		"p99", "p99.9", "p99.99", "p99.999", "max", "mean", "stdev");
	fprintf(f, ud ? " %9s\n" : "\n", "lost");
	for (unsigned s = 0; s < p->nsizes; s++) {
		struct rp_hist_summary h;
		rp_hist_summarize(p->res[s].hist, &h);
		fprintf(f, "%9zu %9" PRIu64 " %9.2f", p->res[s].size, h.count, (double)h.min / 1e3);
		for (unsigned i = 0; i < RP_PCT_COUNT; i++)
			fprintf(f, " %9.2f", (double)h.pct[i] / 1e3);
		fprintf(f, " %9.2f %9.2f %9.2f", (double)h.max / 1e3, h.mean / 1e3, h.stdev / 1e3);
		if (ud)
			fprintf(f, " %9" PRIu64, p->res[s].client.lost);
		fputc('\n', f);
	}
}

static void print_bw(FILE *f, const struct rp_ep_peer *p)
{
	fprintf(f, "%9s %12s %14s %10s %10s %9s\n", "bytes", "messages", "bytes total", "Gbit/s", "Mmsg/s", "seconds");
	for (unsigned s = 0; s < p->nsizes; s++) {
		const struct rp_run_result *c = &p->res[s].client;
		fprintf(f, "%9zu %12" PRIu64 " %14" PRIu64 " %10.3f %10.4f %9.3f\n", p->res[s].size, c->msgs, c->bytes,
			rp_ep_gbps(c), c->t_ns ? (double)c->msgs * 1e3 / (double)c->t_ns : 0.0, (double)c->t_ns / 1e9);
	}
}

static void print_counters(FILE *f, const struct rp_ep_report *r)
{
	if (!r->have_counters)
		return;
	static struct rp_ctr delta[RP_CTR_MAX], norm[RP_CTR_MAX];
	size_t nd = rp_ctr_delta(r->before, r->after, delta, RP_CTR_MAX);
	size_t nn = rp_ctr_fold(delta, nd, norm, RP_CTR_MAX);
	fprintf(f, "counters %s:%u%s%s, change over the run:", r->ctr_src.dev, r->ctr_src.port,
		r->ctr_src.netdev[0] ? " + " : "", r->ctr_src.netdev);
	unsigned shown = 0;
	for (size_t i = 0; i < nn; i++)
		if (norm[i].value) {
			fprintf(f, "%s %s %" PRIu64, shown % 4 ? "," : "\n ", norm[i].name, norm[i].value);
			shown++;
		}
	fprintf(f, "%s\n", shown ? "" : " none");
}

static void print_server(FILE *f, const struct rp_ep_report *r)
{
	fprintf(f, "%-24s %9s %14s %10s\n", "client", "sizes", "bytes", "Gbit/s");
	for (unsigned i = 0; i < r->npeers; i++) {
		const struct rp_ep_peer *p = &r->peers[i];
		uint64_t bytes = 0;
		for (unsigned s = 0; s < p->nsizes; s++)
			bytes += p->res[s].client.bytes;
		fprintf(f, "%-24s %9u %14" PRIu64 " %10.3f%s%s\n", p->name, p->nsizes, bytes, rp_ep_peer_gbps(p),
			p->status ? "  error: " : "", p->status ? p->err : "");
	}
	if (r->npeers > 1)
		fprintf(f, "Jain's fairness index over %u clients: %.4f (1 = equal shares, %.4f = one takes all)\n",
			r->npeers, rp_ep_fairness(r), 1.0 / r->npeers);
}

void rp_ep_text(FILE *f, const struct rp_ep_report *r)
{
	print_header(f, r);
	if (r->server)
		print_server(f, r);
	else if (r->cfg.mode == RP_MODE_LAT)
		print_lat(f, r);
	else
		print_bw(f, &r->peers[0]);
	print_counters(f, r);
}
