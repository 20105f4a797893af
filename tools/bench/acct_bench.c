/* The accountant's cost per received frame, as `run` configures it
 * (PSN tracking, destination check, latency), on the frames tools/bench/rx.sh
 * replays: one flow over 8 QPs, RoCEv2 SEND ONLY with the probe, made by
 * the packet source, each a new probe (seqs 4097 apart, as rx.sh's). The general path (cfg.general_only: rp_frame_parse for
 * every frame) against the fast path (lib/stats/acct_fast.c), and the fast
 * path with each CRC implementation (lib/wire/crc32.c). No DPDK: the frames
 * sit in plain buffers, so this is the accounting alone, without the PMD.
 *
 * Prints one line per frame size:
 *   frame=N general_ns=G fast_ns=F speedup=G/F fast_burst_ns fast_table_ns fast_clmul_ns fast_vpclmul_ns fast_vpclmul512_ns
 *   burst_icrc_ns burst_classify_ns burst_account_ns live_burst_ns
 * (fast_burst: bursts of 32 as lib/dp/rx.c's rx_plain: rp_acct_pre_n, then
 * rp_acct_rx_fast_n; the burst_ three are its stages, timed apart: the
 * ICRCs alone, the rest of the first pass, and what follows it; live_burst:
 * the same bursts with seqs and PSNs in order, each frame once, as a
 * receiver keeping up with a live run sees them, where the replays above,
 * like rx.sh's, are late arrivals)
 * each the best of many 50 us runs for 300 ms (the uncontended cost on a
 * shared machine). Usage: acct_bench [frame bytes ...] (default 82 1026: a RoCE
 * frame is 2 mod 4 bytes long, 58 + payload padded to 4). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "profile/profile.h"
#include "stats/acct.h"
#include "traffic/acct_cfg.h"
#include "traffic/plan.h"
#include "traffic/source.h"
#include "wire/bytes.h"
#include "wire/crc32.h"
#include "wire/eth.h"
#include "wire/icrc.h"
#include "wire/ipv4.h"
#include "wire/udp.h"
#include "wire/bth.h"
#include "wire/probe.h"

#define FRAMES 4096
#define FRAME_MAX 9216
#define SHORT_NS 50000ull
#define MEASURE_NS 300000000ull

static uint8_t *frame[FRAMES];
static uint16_t frame_len[FRAMES];
static uint64_t clock_ns = 1000000000ull;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void die(const char *what, const char *err)
{
	fprintf(stderr, "acct_bench: %s: %s\n", what, err);
	exit(2);
}

static void make_frames(unsigned bytes, struct rp_profile **prof, struct rp_plan *plan)
{
	char yaml[1024], err[RP_PROFILE_ERR_LEN];
	snprintf(yaml, sizeof(yaml),
		 "name: acct-bench\n"
		 "defaults: {speed: 100G, opcode: send, message_size: %u, mtu: 4096, dscp: 26, ecn: ect0}\n"
		 "hosts:\n"
		 "  - {name: tx, mac: \"02:00:00:00:00:01\", ipv4: 192.0.2.1}\n"
		 "  - {name: rx, mac: \"02:00:00:00:00:02\", ipv4: 192.0.2.2}\n"
		 "traffic:\n"
		 "  - {name: f, pattern: flow, src: tx, dst: rx, qps: 8, rate: 100%%, messages: %u}\n",
		 bytes - 58, FRAMES);
	if (!(*prof = rp_profile_load_string("acct-bench.yaml", yaml, NULL, err, sizeof(err))))
		die("profile", err);
	if (rp_plan_build(*prof, plan, err, sizeof(err)))
		die("plan", err);
	struct rp_source *src = rp_source_create(plan, 0, NULL, err, sizeof(err));
	if (!src)
		die("source", err);
	unsigned n = 0;
	for (uint64_t t = 0; n < FRAMES && t < 10000000000ull; t += 1000) {
		uint16_t lens[32];
		unsigned got = rp_source_burst(src, t, 0, frame + n, lens, NULL, FRAMES - n < 32 ? FRAMES - n : 32);
		memcpy(frame_len + n, lens, got * sizeof(lens[0]));
		n += got;
	}
	rp_source_destroy(src);
	if (n != FRAMES || frame_len[0] != bytes)
		die("source", "not the frames asked for");
}

static void feed(struct rp_acct *a, uint64_t iters)
{
	for (uint64_t i = 0; i < iters; i++) {
		unsigned k = (unsigned)(i % FRAMES);
		rp_acct_rx(a, 1, clock_ns, frame[k], frame_len[k], frame_len[k], NULL);
		clock_ns += 10;
	}
}

/* As lib/dp/rx.c does a burst of 32 (rx_plain): rp_acct_pre_n for all, then
 * rp_acct_rx_fast_n, and rp_acct_rx_pre for any frame it leaves; one time
 * per burst. The burst is frames k0 .. k0 + 31. */
static void account_burst(struct rp_acct *a, unsigned k0)
{
	struct rp_acct_pre pre[32];
	uint32_t wire[32];
	const uint8_t *const *buf = (const uint8_t *const *)frame + k0;
	const uint16_t *len = frame_len + k0;
	for (unsigned j = 0; j < 32; j++)
		wire[j] = len[j];
	rp_acct_pre_n(buf, len, wire, 32, pre);
	for (unsigned j = 0; j < 32;) {
		j += rp_acct_rx_fast_n(a, 1, clock_ns, buf + j, len + j, pre + j, 32 - j, false);
		if (j < 32) {
			rp_acct_rx_pre(a, 1, clock_ns, buf[j], len[j], wire[j], &pre[j], NULL);
			j++;
		}
	}
	clock_ns += 320;
}

static void feed_burst(struct rp_acct *a, uint64_t iters)
{
	for (uint64_t i = 0; i < iters; i += 32)
		account_burst(a, (unsigned)(i % FRAMES));
}

/* The burst's stages alone, on the same bursts: the ICRCs (rp_icrc_verify_n,
 * as the first pass calls it), and the whole first pass (classification and
 * ICRC, rp_acct_pre_n). Timed, not sampled: on a VM without hardware
 * counters perf's cpu-clock samples land on whichever instruction waits,
 * so a stage's share of samples moves with the code around it. */
static void feed_icrc(struct rp_acct *a, uint64_t iters)
{
	const uint8_t *l3[32];
	uint32_t len[32];
	bool ok[32];
	(void)a;
	for (uint64_t i = 0; i < iters; i += 32) {
		unsigned k0 = (unsigned)(i % FRAMES);
		for (unsigned j = 0; j < 32; j++) {
			l3[j] = frame[k0 + j] + RP_ETH_HLEN;
			len[j] = frame_len[k0 + j] - RP_ETH_HLEN;
		}
		rp_icrc_verify_n(l3, len, 32, ok);
		if (!ok[0])
			die("icrc", "a frame's ICRC is wrong");
	}
}

static void feed_pre(struct rp_acct *a, uint64_t iters)
{
	struct rp_acct_pre pre[32];
	uint32_t wire[32];
	(void)a;
	for (uint64_t i = 0; i < iters; i += 32) {
		unsigned k0 = (unsigned)(i % FRAMES);
		for (unsigned j = 0; j < 32; j++)
			wire[j] = frame_len[k0 + j];
		rp_acct_pre_n((const uint8_t *const *)frame + k0, frame_len + k0, wire, 32, pre);
		if (!pre[0].icrc_ok)
			die("first pass", "a frame not taken or its ICRC wrong");
	}
}

static void (*feeder)(struct rp_acct *, uint64_t) = feed;

/* Seqs k*stride, the ICRC written again (set-up, never timed). */
static void number_frames(uint64_t stride)
{
	const size_t l3 = RP_ETH_HLEN, seq_off = l3 + RP_IPV4_HLEN + RP_UDP_HLEN + RP_BTH_LEN + RP_PROBE_SEQ_OFFSET;
	for (unsigned k = 0; k < FRAMES; k++) {
		rp_put_be64(frame[k] + seq_off, (uint64_t)k * stride);
		rp_icrc_store(frame[k] + frame_len[k] - RP_ICRC_LEN,
			      rp_icrc_compute(frame[k] + l3, frame_len[k] - l3 - RP_ICRC_LEN));
	}
}

static double measure(struct rp_acct *a)
{
	uint64_t iters = 32, t;
	for (;;) {
		t = now_ns();
		feeder(a, iters);
		if (now_ns() - t >= SHORT_NS)
			break;
		iters *= 2;
	}
	double best = 0;
	uint64_t start = now_ns();
	for (int r = 0; r < 5 || now_ns() - start < MEASURE_NS; r++) {
		t = now_ns();
		feeder(a, iters);
		double ns = (double)(now_ns() - t) / (double)iters;
		if (r == 0 || ns < best)
			best = ns;
	}
	return best;
}

static struct rp_acct *make_acct(const struct rp_plan *plan, bool general)
{
	struct rp_acct_cfg cfg;
	char err[256];
	if (rp_acct_cfg_from_plan(plan, &cfg, NULL, err, sizeof(err)))
		die("accountant", err);
	cfg.track_psn = true; /* as `run` sets them */
	cfg.dst_port_check = true;
	cfg.general_only = general;
	struct rp_acct *a = rp_acct_create(&cfg, err, sizeof(err));
	if (!a)
		die("accountant", err);
	rp_acct_cfg_free(&cfg);
	return a;
}

#define LIVE_WARM 512u

/* A live run's frames: seqs and PSNs in order, each frame once, as a
 * receiver keeping up sees them (the replays above are late arrivals). A
 * new accountant each time, its first LIVE_WARM frames untimed (first
 * touches); the bursts as feed_burst's. */
static double measure_live(const struct rp_plan *plan)
{
	double best = 0;
	uint64_t start = now_ns();
	for (int r = 0; r < 5 || now_ns() - start < MEASURE_NS; r++) {
		struct rp_acct *a = make_acct(plan, false);
		uint64_t t = 0;
		for (unsigned k0 = 0; k0 < FRAMES; k0 += 32) {
			if (k0 == LIVE_WARM)
				t = now_ns();
			account_burst(a, k0);
		}
		double ns = (double)(now_ns() - t) / (FRAMES - LIVE_WARM);
		if (rp_acct_fast_frames(a) != FRAMES)
			die("accountant", "the fast path did not take every live frame");
		rp_acct_destroy(a);
		if (r == 0 || ns < best)
			best = ns;
	}
	return best;
}

int main(int argc, char **argv)
{
	static const char *const levels[] = {"table", "clmul", "vpclmul", "vpclmul512"};
	static const unsigned defaults[] = {82, 1026};
	unsigned nsizes = argc > 1 ? (unsigned)argc - 1 : 2;
	for (unsigned i = 0; i < FRAMES; i++)
		if (!(frame[i] = malloc(FRAME_MAX)))
			die("memory", "out of memory");
	for (unsigned s = 0; s < nsizes; s++) {
		unsigned bytes = argc > 1 ? (unsigned)strtoul(argv[s + 1], NULL, 10) : defaults[s];
		if (bytes < 82 || bytes > 4096 + 58)
			die("frame size", "82 .. 4154 bytes");
		struct rp_profile *prof;
		struct rp_plan plan;
		make_frames(bytes, &prof, &plan);
		double live = measure_live(&plan); /* the source's seqs: 0, 1, 2 ... */
		/* As tools/bench/rx_input.py does rx.sh's capture: seqs 4097 apart
		 * (the window and one), so that the frames fed again and again are
		 * each a new probe (late, older than the window) with a latency
		 * sample, not a duplicate. SEND ONLY over IPv4: the probe starts
		 * the payload. */
		number_frames(4097);
		struct rp_acct *g = make_acct(&plan, true), *f = make_acct(&plan, false);
		double lvl[4];
		const char *got[4];
		for (int l = 0; l < 4; l++) {
			got[l] = rp_crc32_force(levels[l]);
			lvl[l] = measure(f);
		}
		double gen = measure(g), fast = lvl[3];
		feeder = feed_burst;
		double burst = measure(f);
		feeder = feed_icrc;
		double icrc = measure(f);
		feeder = feed_pre;
		double pre = measure(f);
		feeder = feed;
		if (rp_acct_fast_frames(f) == 0 || rp_acct_fast_frames(g) != 0)
			die("accountant", "the fast path did not take the frames");
		printf("frame=%u general_ns=%.1f fast_ns=%.1f speedup=%.2f fast_burst_ns=%.1f", bytes, gen, fast, gen / fast,
		       burst);
		for (int l = 0; l < 4; l++)
			printf(" fast_%s_ns=%.1f", got[l], lvl[l]);
		printf(" burst_icrc_ns=%.1f burst_classify_ns=%.1f burst_account_ns=%.1f live_burst_ns=%.1f\n", icrc, pre - icrc,
		       burst - pre, live);
		rp_acct_destroy(g);
		rp_acct_destroy(f);
		rp_plan_free(&plan);
		rp_profile_free(prof);
	}
	return 0;
}
