/* The merge of per-rank results (lib/stats/acct_pack.h) at all-to-all scale:
 * RANKS ranks x FLOWS received flows each (default 1024 x 1023 = 1,047,552
 * flows, 1024 hosts all-to-all), SAMPLES latency samples per flow.
 *
 * Inputs: TEMPLATES real rank accountants (FLOWS flows each, fed SAMPLES
 * probe frames per flow built by lib/wire through rp_acct_rx, latencies
 * 1.5..2.8 us + 0..1 us jitter, 1% at +50 us, 1 frame in 97 dropped),
 * finished and packed; rank r sends template r % TEMPLATES. Rank 0's buffer
 * is laid out as MPI_Gatherv delivers it: one block, one displacement per rank.
 *
 * Timed, each as the best of REPEAT:
 *   reference  memcpy of the whole gathered block (every byte read and written)
 *   stream     rp_acct_unpack_rows over every rank's buffer, each row's
 *              histogram merged into the aggregate (what rank 0 does when it
 *              cannot hold 1M flows)
 * and once, at the scale a merged accountant fits (MERGED_RANKS templates):
 *   merged     rp_acct_create + rp_acct_unpack_into x N + rp_acct_merge_done,
 *              its bytes per flow (heap in use, mallinfo2, / flows).
 * Prints key=value lines; merge.sh checks them. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "stats/acct.h"
#include "stats/acct_pack.h"
#include "wire/frame.h"

static unsigned env_u(const char *name, unsigned dflt)
{
	const char *v = getenv(name);
	return v && *v ? (unsigned)strtoul(v, NULL, 0) : dflt;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long rss_kb(void)
{
	long pages = 0, rss = 0;
	FILE *f = fopen("/proc/self/statm", "r");
	if (f) {
		if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
			rss = 0;
		fclose(f);
	}
	return rss * (sysconf(_SC_PAGESIZE) / 1024);
}

static long peak_rss_kb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

static void die(const char *what, const char *err)
{
	fprintf(stderr, "merge_bench: %s: %s\n", what, err);
	exit(2);
}

#define RX_IP 0x0A000001u

static void flow_cfgs(struct rp_acct_flow_cfg *f, unsigned n, unsigned t)
{
	for (unsigned j = 0; j < n; j++) {
		uint32_t id = t * n + j;
		f[j] = (struct rp_acct_flow_cfg){.id = id, .l3 = 4, .src_ip4 = 0x0B000000u + id, .dst_ip4 = RX_IP + t,
						 .lqpn = 0x100, .rqpn = 0x1000 + j, .qps = 1, .prio = 3, .dscp = 26};
		snprintf(f[j].src, sizeof(f[j].src), "s%u", id);
		snprintf(f[j].dst, sizeof(f[j].dst), "r%u", t);
	}
}

static void port_cfg(struct rp_acct_port_cfg *p, unsigned t)
{
	*p = (struct rp_acct_port_cfg){.port = 0, .speed_bps = 100000000000ull};
	snprintf(p->node, sizeof(p->node), "r%u", t);
}

#define RUN_NS 10000000ull

/* Template t: a real rank accountant, fed through lib/wire frames. */
static uint8_t *make_template(unsigned t, unsigned flows, unsigned samples, size_t *len)
{
	struct rp_acct_flow_cfg *fc = calloc(flows, sizeof(*fc));
	struct rp_acct_port_cfg pc;
	flow_cfgs(fc, flows, t);
	port_cfg(&pc, t);
	struct rp_acct_cfg c = {.flows = fc, .nflows = flows, .ports = &pc, .nports = 1, .start_ns = 0,
				.run_ns = RUN_NS, .latency = true};
	char err[160];
	struct rp_acct *a = rp_acct_create(&c, err, sizeof(err));
	if (!a)
		die("rp_acct_create", err);
	uint64_t seed = 12345 + t;
	uint8_t payload[64] = {0}, buf[256];
	for (unsigned s = 0; s < samples; s++)
		for (unsigned j = 0; j < flows; j++) {
			uint64_t x = lcg(&seed);
			uint64_t tx = (uint64_t)s * (RUN_NS / (samples + 1)) + j * 7;
			if (x % 97 == 0)
				continue; /* dropped */
			uint64_t lat = 1500 + (j % 64) * 20 + x % 1000 + (x % 100 == 1 ? 50000 : 0);
			struct rp_probe pr = {.flow_id = fc[j].id, .seq = s, .tx_ns = tx};
			rp_probe_build(payload, sizeof(payload), &pr);
			struct rp_roce_spec sp = {.l3 = 4, .udp_sport = 0xC000, .payload = payload,
						  .payload_len = sizeof(payload)};
			sp.ip4 = (struct rp_ipv4){.dscp = 26, .ecn = RP_ECN_ECT0, .ttl = 64, .src = fc[j].src_ip4,
						  .dst = fc[j].dst_ip4};
			sp.bth = (struct rp_bth){.opcode = RP_OP_RC_WRITE_ONLY, .pkey = 0xFFFF, .dqpn = fc[j].rqpn,
						 .psn = s};
			size_t n = rp_roce_build(buf, sizeof(buf), &sp, NULL);
			rp_acct_rx(a, 0, tx + lat, buf, n, n, NULL);
		}
	for (unsigned j = 0; j < flows; j++)
		rp_acct_set_tx(a, j, samples, samples * 130ull);
	rp_acct_finish(a, RUN_NS, NULL);
	*len = rp_acct_pack(a, NULL, NULL, NULL, 0);
	uint8_t *out = malloc(*len);
	if (!out || rp_acct_pack(a, NULL, NULL, out, *len) != *len)
		die("rp_acct_pack", "size changed");
	rp_acct_destroy(a);
	free(fc);
	return out;
}

struct agg {
	struct rp_hist h;
	uint64_t rows, lost, rx;
};

static int add_row(void *ctx, const struct rp_acct_flow_result *row, const struct rp_hist *lat)
{
	struct agg *g = ctx;
	g->rows++;
	g->lost += row->lost;
	g->rx += row->rx_packets;
	(void)lat; /* merged by rp_acct_unpack_rows itself (sparse) */
	return 0;
}

int main(void)
{
	unsigned ranks = env_u("RANKS", 1024), flows = env_u("FLOWS", 1023), samples = env_u("SAMPLES", 32);
	unsigned ntpl = env_u("TEMPLATES", 8), repeat = env_u("REPEAT", 3), mranks = env_u("MERGED_RANKS", 4);
	if (ntpl > ranks)
		ntpl = ranks;
	if (mranks > ntpl)
		mranks = ntpl;
	uint8_t **tpl = calloc(ntpl, sizeof(*tpl));
	size_t *tlen = calloc(ntpl, sizeof(*tlen));
	double t0 = now_s();
	for (unsigned t = 0; t < ntpl; t++)
		tpl[t] = make_template(t, flows, samples, &tlen[t]);
	double t_tpl = now_s() - t0;

	/* the Gatherv block */
	size_t *disp = calloc(ranks + 1, sizeof(*disp));
	for (unsigned r = 0; r < ranks; r++)
		disp[r + 1] = disp[r] + tlen[r % ntpl];
	size_t total = disp[ranks];
	uint8_t *block = malloc(total), *copy = malloc(total);
	if (!block || !copy)
		die("malloc", "out of memory for the gathered block");
	for (unsigned r = 0; r < ranks; r++)
		memcpy(block + disp[r], tpl[r % ntpl], tlen[r % ntpl]);
	memset(copy, 0, total);

	double ref = 1e9, stream = 1e9;
	struct agg *g = malloc(sizeof(*g));
	long rss_before = rss_kb();
	char err[160];
	for (unsigned k = 0; k < repeat; k++) {
		t0 = now_s();
		memcpy(copy, block, total);
		double d = now_s() - t0;
		if (d < ref)
			ref = d;
		if (memcmp(copy, block, 64) != 0)
			die("memcpy", "copy differs");
		memset(g, 0, sizeof(*g));
		rp_hist_init(&g->h);
		t0 = now_s();
		for (unsigned r = 0; r < ranks; r++)
			if (rp_acct_unpack_rows(block + disp[r], disp[r + 1] - disp[r], add_row, g, &g->h, err,
						sizeof(err)))
				die("rp_acct_unpack_rows", err);
		d = now_s() - t0;
		if (d < stream)
			stream = d;
	}
	long rss_stream = rss_kb() - rss_before;
	struct rp_hist_summary s;
	rp_hist_summarize(&g->h, &s);

	/* a merged accountant, at a scale one fits */
	size_t mflows = (size_t)mranks * flows;
	struct rp_acct_flow_cfg *mf = calloc(mflows, sizeof(*mf));
	struct rp_acct_port_cfg *mp = calloc(mranks, sizeof(*mp));
	for (unsigned t = 0; t < mranks; t++) {
		flow_cfgs(mf + (size_t)t * flows, flows, t);
		port_cfg(&mp[t], t);
	}
	size_t heap0 = mallinfo2().uordblks;
	t0 = now_s();
	struct rp_acct_cfg mc = {.flows = mf, .nflows = mflows, .ports = mp, .nports = mranks, .start_ns = 0,
				 .run_ns = RUN_NS, .latency = true};
	struct rp_acct *m = rp_acct_create(&mc, err, sizeof(err));
	if (!m)
		die("rp_acct_create (merged)", err);
	double t_create = now_s() - t0;
	size_t heap_m = mallinfo2().uordblks - heap0;
	t0 = now_s();
	for (unsigned t = 0; t < mranks; t++)
		if (rp_acct_unpack_into(m, tpl[t], tlen[t], err, sizeof(err)))
			die("rp_acct_unpack_into", err);
	rp_acct_merge_done(m);
	double t_merged = now_s() - t0;
	uint64_t mcount = rp_acct_latency(m)->count;
	rp_acct_destroy(m);

	printf("ranks=%u flows_per_rank=%u flows=%llu samples_per_flow=%u templates=%u template_s=%.3f\n", ranks,
	       flows, (unsigned long long)ranks * flows, samples, ntpl, t_tpl);
	printf("gathered_bytes=%zu bytes_per_flow=%.1f\n", total, (double)total / ((double)ranks * flows));
	printf("reference=memcpy reference_s=%.4f stream_s=%.4f ratio=%.1f rows=%llu rows_per_s=%.0f\n", ref,
	       stream, stream / ref, (unsigned long long)g->rows, (double)g->rows / stream);
	printf("aggregate count=%llu rx=%llu lost=%llu min=%llu p50=%llu p99=%llu p99999=%llu max=%llu\n",
	       (unsigned long long)s.count, (unsigned long long)g->rx, (unsigned long long)g->lost,
	       (unsigned long long)s.min, (unsigned long long)s.pct[RP_P50], (unsigned long long)s.pct[RP_P99],
	       (unsigned long long)s.pct[RP_P99999], (unsigned long long)s.max);
	printf("stream_rss_growth_kb=%ld peak_rss_kb=%ld\n", rss_stream, peak_rss_kb());
	printf("merged_flows=%zu merged_create_s=%.3f merged_unpack_done_s=%.3f merged_bytes_per_flow=%.0f "
	       "merged_count=%llu\n",
	       mflows, t_create, t_merged, (double)heap_m / (double)mflows, (unsigned long long)mcount);
	for (unsigned t = 0; t < ntpl; t++)
		free(tpl[t]);
	free(tpl);
	free(tlen);
	free(disp);
	free(block);
	free(copy);
	free(g);
	free(mf);
	free(mp);
	return 0;
}
