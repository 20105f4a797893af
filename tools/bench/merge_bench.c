/* The merge of per-rank results (lib/stats/acct_pack.h) at all-to-all scale:
 * RANKS ranks x FLOWS received flows each (default 1024 x 1023 = 1,047,552
 * flows, 1024 hosts all-to-all), SAMPLES latency samples per flow.
 *
 * Inputs: TEMPLATES real rank accountants (FLOWS flows each, fed SAMPLES
 * probe frames per flow built by lib/wire through rp_acct_rx, latencies
 * 1.5..2.8 us + 0..1 us jitter, 1% at +50 us, 1 frame in 97 dropped, and
 * at the rank's port 10 PFC frames on priority 3, 1 ms apart, 1000 quanta
 * each), finished and packed; rank r sends template r % TEMPLATES. Rank 0's
 * buffer is laid out as MPI_Gatherv delivers it: one block, one displacement
 * per rank.
 *
 * MODE=all (default): timed, each as the best of REPEAT:
 *   reference  memcpy of the whole gathered block (every byte read and written)
 *   stream     rp_acct_unpack_rows over every rank's buffer, each row's
 *              histogram merged into the aggregate
 * and once, at the scale a full accountant fits (MERGED_RANKS templates):
 *   merged     rp_acct_create + rp_acct_unpack_into x N + rp_acct_merge_done,
 *              its bytes per flow (heap in use, mallinfo2, / flows),
 * then rank0. MODE=rank0: only the block and rank0:
 *   rank0      what `roceprobe run`'s rank 0 does (app/cmd_run.c merge_ranks,
 *              lib/cluster/ship.c): rp_acct_create(results_only) with every
 *              flow and every rank's port, a series of RUN0_MS (3000: the
 *              30 000 bins of docs/cluster.md's 1 s run), rp_acct_merge_block
 *              over the block, then the report: pairs (rp_pairs_build),
 *              ports and time series as JSON, and flows.jsonl + pairs.jsonl
 *              written to a temporary directory (removed after). Its time,
 *              the accountant's heap bytes per flow, and the process's peak
 *              RSS (the kernel's VmHWM, reset before the merge by
 *              /proc/self/clear_refs; the block and the plan's flow configs,
 *              which rank 0 holds anyway, included).
 * RESULTS_ONLY=0: the full accountant rank 0 had before (the reference for
 * the peak RSS; since issue 27 only a results_only one is a merge target, so
 * with MUST_NOT_FIT=1 only): it exits 0 only when that accountant is refused
 * memory within the bound below. With RSS_FIXED_KB and RSS_PER_FLOW_B set, exits 1 when rank0's peak RSS
 * is above RSS_FIXED_KB + flows x RSS_PER_FLOW_B / 1024, or when its rows,
 * latency samples or loss are not what the generator made (lost = the
 * frames it dropped, exactly). Prints key=value lines; merge.sh checks them. */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "report/pairs.h"
#include "report/result.h"
#include "stats/acct.h"
#include "report/acct_merge.h"
#include "stats/acct_pack.h"
#include "wire/frame.h"
#include "wire/pfc.h"

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

/* Template t: a real rank accountant, fed through lib/wire frames; *dropped:
 * the frames it left out on purpose. */
static uint8_t *make_template(unsigned t, unsigned flows, unsigned samples, size_t *len, uint64_t *dropped)
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
			if (x % 97 == 0) {
				++*dropped;
				continue;
			}
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
	uint16_t q[8] = {0};
	q[3] = 1000;
	for (unsigned k = 0; k < 10; k++) {
		size_t n = rp_pfc_frame_build(buf, sizeof(buf), (const uint8_t[6]){2, 0, 0, 0, 0, 9}, 0x08, q);
		rp_acct_rx(a, 0, 500000 + k * 1000000ull, buf, n, n, NULL);
	}
	for (unsigned j = 0; j < flows; j++)
		rp_acct_set_tx(a, j, samples, samples * 130ull);
	rp_acct_finish(a, RUN_NS, NULL);
	*len = rp_acct_pack(rp_acct_result(a), NULL, NULL, NULL, 0);
	uint8_t *out = malloc(*len);
	if (!out || rp_acct_pack(rp_acct_result(a), NULL, NULL, out, *len) != *len)
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

struct block {
	unsigned ranks, flows, ntpl;
	size_t *tlen;      /* [template] */
	uint64_t *dropped; /* [template] */
	size_t *disp;      /* [ranks + 1] */
	size_t *lens;      /* [ranks] */
	uint8_t *all;
	size_t total;
};

/* MODE=all's reference, streamed and full merges (the code before rank0). */
static void bench_stream(const struct block *b, unsigned samples, double t_tpl)
{
	unsigned ranks = b->ranks, flows = b->flows, ntpl = b->ntpl;
	unsigned repeat = env_u("REPEAT", 3), mranks = env_u("MERGED_RANKS", 4);
	if (mranks > ntpl)
		mranks = ntpl;
	size_t *tlen = b->tlen, *disp = b->disp, total = b->total;
	uint8_t *block = b->all, *copy = malloc(total);
	if (!copy)
		die("malloc", "out of memory for the copy of the gathered block");
	memset(copy, 0, total);
	double t0;

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
				 .run_ns = RUN_NS, .latency = true, .results_only = true};
	struct rp_acct *m = rp_acct_create(&mc, err, sizeof(err));
	if (!m)
		die("rp_acct_create (merged)", err);
	double t_create = now_s() - t0;
	size_t heap_m = mallinfo2().uordblks - heap0;
	t0 = now_s();
	for (unsigned t = 0; t < mranks; t++)
		if (rp_acct_unpack_into(rp_acct_merged(m), block + disp[t], tlen[t], err, sizeof(err))) /* rank t's is template t */
			die("rp_acct_unpack_into", err);
	rp_acct_merge_done(rp_acct_merged(m));
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
	free(copy);
	free(g);
	free(mf);
	free(mp);
}

/* A field of /proc/self/status in kB (VmHWM: the peak RSS since the last
 * reset; VmSize: the address space), from the kernel; -1 if absent. */
static long status_kb(const char *field)
{
	char line[128];
	long kb = -1;
	size_t n = strlen(field);
	FILE *f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && line[n] == ':' && sscanf(line + n + 1, "%ld", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}
static long hwm_kb(void) { return status_kb("VmHWM"); }

static int reset_hwm(void)
{
	FILE *f = fopen("/proc/self/clear_refs", "w");
	int rc = f && fputs("5", f) >= 0 ? 0 : -1; /* 5: reset the peak RSS to the current RSS */
	if (f && fclose(f) != 0)
		rc = -1;
	return rc;
}


/* The best of 3 memcpys of the whole block (freed before rank0 starts). */
static double memcpy_s(const struct block *b)
{
	uint8_t *copy = malloc(b->total ? b->total : 1);
	double best = 1e9;
	if (!copy)
		die("malloc", "out of memory for the copy of the gathered block");
	for (int k = 0; k < 3; k++) {
		double t0 = now_s();
		memcpy(copy, b->all, b->total);
		double d = now_s() - t0;
		best = d < best ? d : best;
	}
	if (b->total && copy[b->total - 1] != b->all[b->total - 1])
		die("memcpy", "copy differs");
	free(copy);
	return best;
}

/* rank0: the plan's flows and every rank's port (what run's rank 0 has);
 * ref: a memcpy of the block, timed in this invocation (0: not timed). */
static int bench_rank0(const struct block *b, unsigned samples, double ref)
{
	size_t nflows = (size_t)b->ntpl * b->flows; /* distinct: a repeated template overwrites its flows */
	struct rp_acct_flow_cfg *fc = calloc(nflows ? nflows : 1, sizeof(*fc));
	struct rp_acct_port_cfg *pc = calloc(b->ranks, sizeof(*pc));
	if (!fc || !pc)
		die("calloc", "out of memory for the plan");
	/* rank r ships template r % T: T distinct ranks' flows and ports (MODE=rank0: T = RANKS) */
	for (unsigned t = 0; t < b->ntpl; t++) {
		flow_cfgs(fc + (size_t)t * b->flows, b->flows, t);
		port_cfg(&pc[t], t);
	}
	char err[400];
	/* The bound (RSS_FIXED_KB + a flow's RSS_PER_FLOW_B) on the growth of the
	 * peak RSS, and on the address space by RLIMIT_AS: an allocation past it
	 * fails (the full accountant's dense port series does). */
	unsigned fixed = env_u("RSS_FIXED_KB", 0), per = env_u("RSS_PER_FLOW_B", 0);
	double bound = (double)fixed + (double)nflows * per / 1024.0;
	long vm0 = status_kb("VmSize");
	if (fixed && per) {
		struct rlimit rl = {.rlim_cur = (rlim_t)((vm0 + (long)bound) * 1024), .rlim_max = RLIM_INFINITY};
		if (vm0 < 0 || setrlimit(RLIMIT_AS, &rl) != 0)
			die("setrlimit(RLIMIT_AS)", strerror(errno));
	}
	long hwm0 = reset_hwm() == 0 ? hwm_kb() : -1;
	struct mallinfo2 mi = mallinfo2();
	size_t heap0 = mi.uordblks + mi.hblkhd; /* small blocks and mmapped ones (the rows) */
	double t0 = now_s();
	struct rp_acct_cfg c = {.flows = fc, .nflows = nflows, .ports = pc, .nports = b->ntpl,
				.start_ns = 0, .run_ns = env_u("RUN0_MS", 3000) * 1000000ull, .latency = true,
				.track_psn = true, .dst_port_check = true,
				.results_only = env_u("RESULTS_ONLY", 1) != 0};
	struct rp_acct *m = rp_acct_create(&c, err, sizeof(err));
	/* MUST_NOT_FIT=1: the accountant must be refused memory within the bound
	 * (exit 0 when it is, 1 when it fits): what the bound rules out. */
	bool must_not_fit = env_u("MUST_NOT_FIT", 0) != 0;
	if (must_not_fit) {
		bool refused = !m && strstr(err, "out of memory");
		printf("must_not_fit=1 refused=%d%s%s\n", refused, m ? "" : " err=", m ? "" : err);
		return refused ? 0 : 1;
	}
	if (!m)
		die(c.results_only ? "rp_acct_create (results_only)" : "rp_acct_create (full)", err);
	size_t bad = 0;
	if (rp_acct_merge_block(rp_acct_merged(m), b->all, b->lens, b->ranks, NULL, &bad, err, sizeof(err)))
		die("rp_acct_merge_block", err);
	rp_acct_merge_done(rp_acct_merged(m));
	double t_merge = now_s() - t0;
	mi = mallinfo2();
	size_t heap = mi.uordblks + mi.hblkhd - heap0;
	t0 = now_s();
	char dir[] = "/tmp/rp_merge_bench_XXXXXX", fpath[64], ppath[64];
	if (!mkdtemp(dir))
		die("mkdtemp", strerror(errno));
	snprintf(fpath, sizeof(fpath), "%s/flows.jsonl", dir);
	snprintf(ppath, sizeof(ppath), "%s/pairs.jsonl", dir);
	struct rp_pairs *pairs = rp_pairs_build(m, NULL);
	if (!pairs)
		die("rp_pairs_build", "out of memory");
	const struct rp_report_stream fl = {NULL, rp_acct_nflows(m), rp_report_flow_item, m},
				      pr = {NULL, rp_pairs_nrows(pairs), rp_pairs_row_item, pairs};
	if (rp_report_write_jsonl(fpath, &fl, err, sizeof(err)) || rp_report_write_jsonl(ppath, &pr, err, sizeof(err)))
		die("rp_report_write_jsonl", err);
	json_t *j = json_pack("{s:o, s:o}", "ports", rp_report_ports(m), "timeseries", rp_report_timeseries(m));
	char *text = json_dumps(j, JSON_INDENT(2));
	size_t jlen = text ? strlen(text) : 0;
	free(text);
	json_decref(j);
	struct stat st;
	size_t flen = stat(fpath, &st) == 0 ? (size_t)st.st_size : 0;
	unlink(fpath);
	unlink(ppath);
	rmdir(dir);
	double t_report = now_s() - t0;
	long hwm = hwm_kb(), vm = status_kb("VmSize");
	/* what the generator made: every row, every unique probe a latency sample, lost = dropped */
	uint64_t rows = 0, rx = 0, lost = 0, want_lost = 0;
	for (size_t i = 0; i < rp_acct_nflows(m); i++) {
		struct rp_acct_flow_result x;
		rp_acct_flow(m, i, &x);
		rows += x.tx_packets == samples;
		rx += x.rx_packets;
		lost += x.lost;
	}
	for (unsigned t = 0; t < b->ntpl; t++)
		want_lost += b->dropped[t];
	uint64_t count = rp_acct_latency(m)->count;
	size_t npairs = rp_pairs_nrows(pairs), mflows = rp_acct_nflows(m);
	rp_pairs_free(pairs);
	rp_acct_destroy(m);
	free(fc);
	free(pc);
	printf("rank0_flows=%zu rank0_merge_s=%.3f rank0_report_s=%.3f rank0_heap_bytes_per_flow=%.0f "
	       "rank0_peak_rss_kb=%ld rank0_rss_at_start_kb=%ld rank0_rss_growth_bytes_per_flow=%.0f rank0_vm_start_kb=%ld "
	       "rank0_vm_end_kb=%ld flows_jsonl_bytes=%zu ports_timeseries_json_bytes=%zu "
	       "pairs=%zu rank0_rows=%llu rank0_rx=%llu rank0_count=%llu rank0_lost=%llu generator_dropped=%llu\n",
	       mflows, t_merge, t_report, (double)heap / (double)(mflows ? mflows : 1), hwm, hwm0,
	       (double)(hwm - hwm0) * 1024.0 / (double)(mflows ? mflows : 1), vm0, vm, flen, jlen, npairs,
	       (unsigned long long)rows, (unsigned long long)rx, (unsigned long long)count, (unsigned long long)lost,
	       (unsigned long long)want_lost);
	int rc = 0;
	if (ref > 0)
		printf("reference=memcpy reference_s=%.4f rank0_merge_vs_memcpy=%.1f\n", ref, t_merge / ref);
	if (rows != mflows || count != rx || lost != want_lost || npairs != mflows) {
		fprintf(stderr, "merge_bench: rank0: %llu rows of %zu flows sent %u each, %llu latency samples of %llu "
				"received, lost %llu of %llu dropped, %zu pairs\n",
			(unsigned long long)rows, mflows, samples, (unsigned long long)count, (unsigned long long)rx,
			(unsigned long long)lost, (unsigned long long)want_lost, npairs);
		rc = 1;
	}
	if (fixed && per) {
		printf("rank0_bound_kb=%.0f (%u KB + %u B a flow) rank0_rss_growth_kb=%ld\n", bound, fixed, per, hwm - hwm0);
		if (hwm < 0 || hwm0 < 0 || (double)(hwm - hwm0) > bound) {
			fprintf(stderr, "merge_bench: rank0's peak RSS grew %ld KB, above %.0f KB (%u KB + %zu flows x %u B)\n",
				hwm - hwm0, bound, fixed, mflows, per);
			rc = 1;
		}
	}
	return rc;
}

int main(void)
{
	struct block b = {.ranks = env_u("RANKS", 1024), .flows = env_u("FLOWS", 1023), .ntpl = env_u("TEMPLATES", 8)};
	unsigned samples = env_u("SAMPLES", 32);
	const char *mode = getenv("MODE") ? getenv("MODE") : "all";
	if (strcmp(mode, "all") && strcmp(mode, "rank0"))
		die("MODE", "all or rank0");
	if (!strcmp(mode, "rank0") && !getenv("TEMPLATES"))
		b.ntpl = b.ranks; /* every rank its own flows and port, as rank 0 of a run gets them */
	if (b.ntpl > b.ranks)
		b.ntpl = b.ranks;
	b.tlen = calloc(b.ntpl, sizeof(*b.tlen));
	b.dropped = calloc(b.ntpl, sizeof(*b.dropped));
	b.disp = calloc(b.ranks + 1, sizeof(*b.disp));
	b.lens = calloc(b.ranks, sizeof(*b.lens));
	double t0 = now_s();
	/* the Gatherv block, rank by rank; rank t < T is template t, made and
	 * freed here (T = RANKS: every rank its own, no copy kept) */
	size_t cap = 0;
	for (unsigned r = 0; r < b.ranks; r++) {
		unsigned t = r % b.ntpl;
		uint8_t *one = r < b.ntpl ? make_template(t, b.flows, samples, &b.tlen[t], &b.dropped[t]) : NULL;
		const uint8_t *src = one ? one : b.all + b.disp[t];
		b.lens[r] = b.tlen[t];
		b.disp[r + 1] = b.disp[r] + b.lens[r];
		if (b.disp[r + 1] > cap) {
			size_t want = cap ? cap : b.lens[r] * (size_t)b.ranks;
			while (want < b.disp[r + 1])
				want *= 2;
			size_t at = one ? 0 : (size_t)(src - b.all);
			if (!(b.all = realloc(b.all, want)))
				die("realloc", "out of memory for the gathered block");
			cap = want;
			src = one ? one : b.all + at;
		}
		memcpy(b.all + b.disp[r], src, b.lens[r]);
		free(one);
	}
	b.total = b.disp[b.ranks];
	double t_tpl = now_s() - t0;
	double ref = 0;
	if (!strcmp(mode, "all")) {
		bench_stream(&b, samples, t_tpl);
	} else {
		printf("ranks=%u flows_per_rank=%u flows=%llu samples_per_flow=%u templates=%u template_s=%.3f "
		       "gathered_bytes=%zu\n", b.ranks, b.flows, (unsigned long long)b.ranks * b.flows, samples, b.ntpl,
		       t_tpl, b.total);
		ref = memcpy_s(&b); /* the reference, in this invocation */
	}
	int rc = bench_rank0(&b, samples, ref);
	free(b.tlen);
	free(b.dropped);
	free(b.disp);
	free(b.lens);
	free(b.all);
	return rc;
}
